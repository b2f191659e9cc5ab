"""The mask scorer's view: the summary table (Optimum metrics, probe/donor for splice), the per-probe CSV and
the HTML report's worst and best probes."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...outputs import write_atomic
from .base import Options, View, ViewContext, fmt

if TYPE_CHECKING:
    from ..page import ReportData

__all__ = ["MASK"]

#: Summary columns (header, aggregate name); the Maximum/Actual ones only with ``--omfc-sbin``.
_MASK_COLUMNS = (
    ("MCC", "OptimumMCC"),
    ("NMM", "OptimumNMM"),
    ("BWL1", "OptimumBWL1"),
    ("GWL1", "GWL1"),
    ("AUC", "AUC"),
    ("F1", "OptimumF1"),
    ("IoU", "OptimumIoU"),
)


_MASK_SBIN_COLUMNS = (("MaxMCC", "MaximumMCC"), ("ActMCC", "ActualMCC"))


def _mask_metric_columns(opts: Options) -> tuple[tuple[str, str], ...]:
    return _MASK_COLUMNS + (_MASK_SBIN_COLUMNS if opts.get("sbin") is not None else ())


def _mask_columns(opts: Options) -> list[str]:
    return ["trials", "scored", *(h for h, _ in _mask_metric_columns(opts))]


def _mask_row(entry: dict[str, Any], opts: Options) -> list[str]:
    """One result: Optimum metrics (splice: probe/donor)."""
    m = entry["metrics"]
    cols = _mask_metric_columns(opts)
    tally = entry.get("scored") or {}
    scored = f"{tally.get('scored')} of {tally.get('targets')}" if tally else str(m.get("ScoreableTrials"))
    if "pOptimumMCC" in m:
        return [str(m.get("totalTrials")), scored] + [f"{fmt(m.get('p' + c))}/{fmt(m.get('d' + c))}" for _, c in cols]
    return [str(m.get("totalTrials")), scored] + [fmt(m.get(c)) for _, c in cols]


def _mask_settings(opts: Options, common: Options) -> str:
    ntdks = opts.get("ntdks")
    ntdks_text = str(ntdks) if ntdks is not None else ("11" if common.get("convention") == "plan" else "15")
    sbin = "none" if opts.get("sbin") is None else str(opts["sbin"])
    nspx = "per probe" if opts.get("pppns") else str(opts.get("nspx"))
    return (
        f"kernel {opts.get('kernel')}, eks {opts.get('eks')}, dks {opts.get('dks')}, ntdks {ntdks_text} (0 for "
        "splice), "
        f"sbin {sbin}, nspx {nspx}, jpeg2000 {opts.get('jpeg2000')}"
    )


def _mask_header(opts: Options, common: Options) -> str:
    where = f"; on the dask.distributed cluster {opts['dask']}" if opts.get("dask") else ""
    return f"omfc: scoring masks against {common['reference']} ({_mask_settings(opts, common)}{where})"


def _mask_footer(opts: Options, common: Options) -> str:
    return f"omfc: masks: Optimum metrics; convention {common['convention']}, {_mask_settings(opts, common)}" + (
        ", opt-out" if common.get("optout") else ""
    )


def _mask_finish(entries: list[dict[str, Any]], opts: Options, title: str) -> tuple[list[str], list[str]]:
    """``--omfc-per-probe-csv``: the per-probe tables, pipe-separated (a Query column when several results)."""
    import pandas as pd

    path: Path | None = opts.get("per_probe_csv")
    if path is None:
        return [], []
    frames = []
    for e in entries:
        rows = pd.DataFrame(e.get("per_probe") or [])
        if len(entries) > 1:
            rows.insert(0, "Query", e.get("query") or "")
        frames.append(rows)
    table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    try:
        write_atomic(path, table.to_csv(sep="|", index=False))
    except (OSError, ValueError) as exc:
        return [], [f"--omfc-per-probe-csv: cannot write {path}: {exc}"]
    return [f"per-probe CSV: {path}"], []


def mask_thumbnails(data: ReportData, entries: list[dict[str, Any]], ctx: ViewContext) -> None:
    """The worst and best probes of the first result by their primary metric, with overlays."""
    from ..masks import mask_cards, pick_probes, primary_metric

    rows = next((e["per_probe"] for e in entries if e.get("per_probe")), None)
    if not rows:
        data.mask_note = "No probe was scored: no thumbnails."
        return
    if ctx.masks == 0:
        data.mask_note = "Thumbnails are off (--omfc-html-masks 0)."
        return
    worst, best = pick_probes(rows, ctx.masks)
    bitplane = entries[0].get("reference_column") == "ProbeBitPlaneMaskFileName"  # the engine's choice
    data.worst, data.best = (
        mask_cards(chosen, ref_root=ctx.ref_root, sys_root=ctx.sys_root, options=ctx.options, bitplane=bitplane)
        for chosen in (worst, best)
    )
    first = entries[0].get("query")
    scope = "all trials" if first is None else f"the first query ({first})"
    scored = sum(1 for r in rows if isinstance(r.get(primary_metric(rows)), (int, float)))
    data.mask_note = (
        f"The {len(worst)} worst and {len(best)} best of the {scored} scored probes of {scope} "
        f"by the scorer's per-probe {primary_metric(rows)}; each probe is shown once."
    )


def _json_options(opts: Options, common: Options) -> dict[str, Any]:
    return {"mask": {k: opts.get(k) for k in ("kernel", "eks", "dks", "ntdks", "sbin", "nspx", "pppns", "jpeg2000")}}


MASK = View(
    json_options=_json_options,
    columns=_mask_columns,
    row=_mask_row,
    header=_mask_header,
    footer=_mask_footer,
    finish=_mask_finish,
    html=mask_thumbnails,
)
