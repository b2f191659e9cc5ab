"""The detection scorer's view: the summary table (AUC, EER, AUC@FAR, CDR@FAR, TRR), ROC and DET plots."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...scoring.detection.options import far_stop
from .base import Options, View, ViewContext, fmt

if TYPE_CHECKING:
    from ..page import ReportData

__all__ = ["DETECTION"]


def _far(opts: Options, common: Options) -> float:
    return far_stop(opts, str(common.get("convention", "mediscore")))


def _columns(opts: Options) -> list[str]:
    return ["T#", "NT#", "AUC", "EER", "AUC@FAR", "CDR@FAR", "TRR"] + (["AUC CI"] if opts.get("ci") else [])


def _row(entry: dict[str, Any], opts: Options) -> list[str]:
    m, c = entry["metrics"], entry["counts"]
    row = [str(c["targets"]), str(c["nontargets"])] + [
        fmt(m.get(k)) for k in ("AUC", "EER", "AUC@FAR", "CDR@FAR", "TRR")
    ]
    if opts.get("ci"):
        row.append(f"{fmt(m.get('AUC_CI_LOWER'))}-{fmt(m.get('AUC_CI_UPPER'))}")
    return row


def _header(opts: Options, common: Options) -> str:
    return (
        f"omfc: scoring detection against {common['reference']} (convention {common['convention']}, "
        f"FAR stop {_far(opts, common):g})"
    )


def _footer(opts: Options, common: Options) -> str:
    return f"omfc: convention {common['convention']}, FAR stop {_far(opts, common):g}" + (
        ", opt-out" if common.get("optout") else ""
    )


def _finish(entries: list[dict[str, Any]], opts: Options, title: str) -> tuple[list[str], list[str]]:
    """``--omfc-plots``: ROC and DET plots of the scored results."""
    from ...scoring.detection import detection_result
    from ..plots import write_plots

    plots: Path | None = opts.get("plots")
    scored = [detection_result(e) for e in entries if e.get("metrics") is not None]
    if plots is None or not scored:
        return [], []
    try:
        paths = write_plots(scored, plots, title=title)
    except (OSError, ValueError) as exc:
        return [], [f"--omfc-plots: cannot write into {plots}: {exc}"]
    return [f"plots: {', '.join(p.name for p in paths)} in {plots}"], []


def detection_plots(data: ReportData, entries: list[dict[str, Any]], ctx: ViewContext) -> None:
    """ROC and DET of the scored detection results, as inline SVG."""
    from ...scoring.detection import detection_result
    from ..page import Plot
    from ..plots import det_svg, roc_svg

    scored = [detection_result(e) for e in entries if e.get("metrics") is not None and e.get("roc")]
    if not scored:
        return
    size = (640, 480)
    data.plots += [
        Plot(f"{ctx.title} ROC", roc_svg(scored, title=f"{ctx.title} ROC", size=size)),
        Plot(f"{ctx.title} DET", det_svg(scored, title=f"{ctx.title} DET", size=size)),
    ]


def detection_compared_plots(
    data: ReportData, pairs: list[tuple[dict[str, Any], dict[str, Any]]], names: tuple[str, str]
) -> None:
    """The baseline's and this run's curves of the overall result on one ROC and one DET."""
    from dataclasses import replace

    from ...scoring.detection import detection_result
    from ..page import Plot
    from ..plots import det_svg, roc_svg

    pair = next((p for p in pairs if p[1].get("query") is None and p[0].get("roc") and p[1].get("roc")), None)
    if pair is None:
        return
    curves = [
        replace(detection_result(entry), query=name, query_kind="all") for entry, name in zip(pair, names, strict=True)
    ]
    title = "compared with the baseline"
    size = (640, 480)
    data.plots += [
        Plot(f"ROC {title}", roc_svg(curves, title=f"ROC {title}", size=size)),
        Plot(f"DET {title}", det_svg(curves, title=f"DET {title}", size=size)),
    ]


def _json_options(opts: Options, common: Options) -> dict[str, Any]:
    return {
        "far_stop": far_stop(opts, str(common.get("convention", "mediscore"))),
        "ci": bool(opts.get("ci")),
        "ci_level": opts.get("ci_level", 0.9),
        "ci_iterations": opts.get("ci_iterations", 500),
        "seed": opts.get("seed", 77),
    }


DETECTION = View(
    json_options=_json_options,
    columns=_columns,
    row=_row,
    header=_header,
    footer=_footer,
    finish=_finish,
    html=detection_plots,
    compared=detection_compared_plots,
)
