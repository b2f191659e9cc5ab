"""The mask scorer's adapter: from a :class:`~pytest_omfc.scoring.registry.ScoringInput` to one outcome per
query position, and its registration.  Light at import (the engine is imported when it runs)."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...editions import Task
from ..registry import NotScored, Outcome, Scorer, ScoreResult, ScoringInput, Tally, not_scored, register
from .metrics import mean_columns
from .options import MASK_OPTIONS

if TYPE_CHECKING:  # annotations only; the adapter imports the engine when it runs
    import pandas as pd

    from ..paired import TrialData

__all__ = ["MASK", "MASK_METRICS", "MASK_REFERENCE_COLUMNS", "MASK_TASKS", "run_masks"]

#: Tasks scored by the mask scorer, with MaskScorer's task name (docs/scoring/masks.md).
MASK_TASKS: dict[Task, str] = {Task.IMG: "manipulation", Task.SPL: "splice"}


#: Reference columns naming masks: one of them switches the mask scorer on.
MASK_REFERENCE_COLUMNS = (
    "ProbeMaskFileName",
    "ProbeBitPlaneMaskFileName",
    "BinaryProbeMaskFileName",
    "DonorMaskFileName",
)


#: Per-image columns kept in ``per_probe`` besides the metric columns (MediScore's names).
_PER_PROBE_INPUTS = (
    "ProbeFileID",
    "DonorFileID",
    "ProbeMaskFileName",
    "ProbeBitPlaneMaskFileName",
    "BinaryProbeMaskFileName",
    "DonorMaskFileName",
    "OutputProbeMaskFileName",
    "OutputDonorMaskFileName",
)


def _plain(v: Any) -> Any:
    """A JSON/JUnit-ready value: numpy scalars unwrapped, NaN and "" as None."""
    import numpy as np

    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if v is None or (isinstance(v, str) and v == ""):
        return None
    return v


def _per_probe(rows: pd.DataFrame, inputs: set[str]) -> list[dict[str, Any]]:
    cols = [c for c in rows.columns if c in _PER_PROBE_INPUTS or c not in inputs]
    return [{c: _plain(v) for c, v in rec.items()} for rec in rows[cols].to_dict("records")]


def _mask_failure(not_scored: Sequence[tuple[str, str]], shown: int = 5) -> str | None:
    if not not_scored:
        return None
    head = "; ".join(f"{trial}: {why}" for trial, why in not_scored[:shown])
    more = f"; ... and {len(not_scored) - shown} more" if len(not_scored) > shown else ""
    return f"{len(not_scored)} mask(s) could not be scored ({head}{more})"


def _polarity_notes(polarity: Sequence[tuple[str, float, float]], shown: int = 3) -> list[str]:
    """The polarity hints of a run (docs/scoring/masks.md#reading-masks: 0 is manipulated): one line each kind,
    examples named."""
    from .run import INVERTED_MCC, MOSTLY_BLACK

    out = []
    inverted = [(t, m) for t, _, m in polarity if not math.isnan(m)]
    black = [(t, b) for t, b, _ in polarity if b > MOSTLY_BLACK]
    ask = "is 255 used for manipulated? the plans use 0 (MASK-08)"
    if inverted:
        eg = ", ".join(f"{t} {m:.3f}" for t, m in inverted[:shown])
        out.append(
            f"{len(inverted)} system mask(s) score better inverted (MCC {INVERTED_MCC} or below at some "
            f"threshold; inverted optimum e.g. {eg}): {ask}"
        )
    if black:
        eg = ", ".join(f"{t} {b:.0%}" for t, b in black[:shown])
        out.append(
            f"{len(black)} system mask(s) are mostly black (over {MOSTLY_BLACK:.0%} of the scored pixels "
            f"are 0, e.g. {eg}): {ask}"
        )
    return out


def _high_plane_notes(high: Sequence[tuple[str, tuple[int, ...]]], shown: int = 3) -> list[str]:
    """Trials that score bit planes above 8 of a one-component 16-bit JPEG 2000 reference."""
    if not high:
        return []
    eg = ", ".join(f"{t} (planes {', '.join(map(str, planes))})" for t, planes in high[:shown])
    return [
        f"{len(high)} trial(s) score bit planes above 8 of a one-component 16-bit JPEG 2000 reference, e.g. {eg}: "
        "all 16 planes are read here, while MediScore reads such a file as 8 bits and finds those planes empty, "
        "so its numbers for these trials differ (docs/scoring/masks.md#ground-truth)"
    ]


def _mask_tally(run: Any, rows: Any) -> Tally:
    """Scored of target mask sides among ``rows`` (per-image rows of ``run``), unscored counted by reason."""
    positions = [int(i) for i in rows.index]
    counts: dict[str, int] = {}
    targets = scored = 0
    for side_codes in run.codes:
        for i in positions:
            targets += 1
            code = side_codes[i]
            if code is None:
                scored += 1
            else:
                counts[code] = counts.get(code, 0) + 1
    order = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return Tally(
        "targets" if len(run.codes) == 1 else "mask sides",
        targets,
        scored,
        tuple((run.descriptions.get(c, c), k) for c, k in order),
    )


def _run_results(report: Any, run: Any, inputs: set[str]) -> dict[tuple[str | None, str], Outcome]:
    """The score results of one run of :func:`.run.score_masks` (a ``MaskReport`` and one of its ``MaskRun``),
    by (query, kind): the metrics JSON entry, the item's properties, the failure and the tally."""
    import numpy as np

    failure = _mask_failure(run.not_scored)
    hints = _polarity_notes(run.polarity) + _high_plane_notes(run.high_planes)
    found: dict[tuple[str | None, str], Outcome] = {}
    for r in run.results:
        rows = run.perimage
        if r.kind in ("q", "qp") and r.query is not None and len(rows):
            from ..merge import select_query, typed_frame

            frame = typed_frame(rows.drop(columns=[c for c in rows.columns if c not in inputs]))
            hit = select_query(frame.assign(_row=np.arange(len(rows))), r.query, "q", ["_row"])
            rows = rows.iloc[hit["_row"].to_numpy()]
        entry: dict[str, Any] = {
            "query": r.query,
            "query_kind": r.kind if r.kind != "all" else "all",
            "notes": [*report.notes, *hints],
            "reference_column": report.reference_column,
            "metrics": {k: _plain(v) for k, v in r.aggregate.items()},
            "stddev": {k: _plain(v) for k, v in r.stddev.items()},
            "per_probe": _per_probe(rows, inputs),
        }
        props: list[tuple[str, Any]] = [
            (k, v if isinstance(v, (str, int)) and not isinstance(v, bool) else (math.nan if v is None else float(v)))
            for k, v in entry["metrics"].items()
        ]
        props.append(("count.not_scored", len(run.not_scored)))
        props += [("omfc.warning", h) for h in hints]
        found[(r.query, r.kind)] = ScoreResult(entry, props, failure, _mask_tally(run, rows))
    return found


def run_masks(inp: ScoringInput) -> list[Outcome]:
    """Mask scoring of every query (docs/scoring/masks.md); one outcome per position."""
    import pandas as pd

    from ...errors import ScoringError
    from .run import default_jobs, score_masks

    n = inp.positions
    task: Any = MASK_TASKS[inp.task]  # "manipulation" or "splice"
    table = inp.table
    need = ("ProbeFileID", "OutputProbeMaskFileName") + (
        ("DonorFileID", "OutputDonorMaskFileName") if task == "splice" else ()
    )
    for col in need:
        if not table.has(col):
            return [NotScored(f"{inp.column_rule} failed: column {col} is absent")] * n
    opts = dict(inp.options)
    engine = {k: opts[k] for k in ("kernel", "eks", "dks", "ntdks", "sbin", "nspx", "pppns", "jpeg2000")}
    extra = {"dask": opts["dask"]} if opts.get("dask") else {}  # the engine's keyword (dask branch)
    kind = inp.kind
    queries = [q for q, _ in inp.queries]
    by_kind: dict[str, Any] = {}
    if kind == "q":
        by_kind["query"] = queries
    elif kind == "qm":
        by_kind["query_manipulation"] = queries
    elif kind == "qp":
        by_kind["query_partition"] = inp.query_partition
    try:
        report = score_masks(
            inp.index,
            inp.reference,
            table.df,
            task=task,
            sys_dir=inp.submission,
            ref_dir=inp.dataset_root,
            optout=inp.optout,
            convention=inp.convention,
            jobs=inp.jobs or default_jobs(),
            **engine,
            **by_kind,
            **extra,
            progress=inp.progress,
            rejected=inp.rejected() if inp.rejected is not None else None,
        )
    except ScoringError as exc:
        return [not_scored(exc)] * n
    inputs = set(table.df.columns) | set(pd.read_csv(inp.reference, sep="|", nrows=0).columns)
    found = {key: result for run in report.runs for key, result in _run_results(report, run, inputs).items()}
    out: list[Outcome] = []
    for query, qkind in inp.queries or ((None, "all"),):
        got = found.get((query, qkind))
        if got is None and qkind == "qp":
            got = NotScored(f"qp query {query!r}: no trial is selected (MediScore skips empty partitions)")
        out.append(got if got is not None else NotScored(f"{qkind} query {query!r}: no result", fail=True))
    return out


#: The mask aggregate's numeric keys (mask/run.py): per-mask means (:func:`.metrics.mean_columns`), AUC
#: averages and thresholds, bookkeeping; splice prefixes the per-side ones with p (probe) and d (donor).
#: tests/glue/test_gates.py checks them against a mask run's keys.
_MASK_SIDE_METRICS = (*mean_columns(), "PixelAverageAUC", "MaskAverageAUC", "MaximumThreshold", "ActualThreshold")


MASK_METRICS: tuple[str, ...] = (
    *_MASK_SIDE_METRICS,
    "TRR",
    "totalTrials",
    "totalOptIn",
    "totalOptOut",
    "ScoreableTrials",
    *(side + m for side in ("p", "d") for m in _MASK_SIDE_METRICS),
    "ScoreableProbeTrials",
    "ScoreableDonorTrials",
)


def _trials(entry: Mapping[str, Any], options: Mapping[str, Any]) -> TrialData | None:
    """The entry's trials for comparisons (the engine side is imported only when a comparison runs)."""
    from .paired import mask_trials

    return mask_trials(entry, options)


MASK = register(
    Scorer(
        name="mask",
        title="mask",
        tasks=MASK_TASKS,
        run=run_masks,
        switch_columns=MASK_REFERENCE_COLUMNS,
        options=MASK_OPTIONS,
        null_keys=("metrics", "stddev", "per_probe"),
        metrics=MASK_METRICS,
        progress_unit="masks",
        trials=_trials,
        lower_is_better=tuple(m for m in MASK_METRICS if m.endswith(("BWL1", "GWL1", "EER"))),
        headline=("OptimumMCC", "OptimumNMM", "OptimumBWL1", "pOptimumMCC", "dOptimumMCC"),
    )
)
