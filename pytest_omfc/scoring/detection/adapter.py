"""The detection scorer's adapter: from a :class:`~pytest_omfc.scoring.registry.ScoringInput` to one outcome
per query position, and its registration.  Light at import (the engine is imported when it runs)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...editions import Task
from ...findings import Unavailable
from ..registry import NotScored, Outcome, Scorer, ScoreResult, ScoringInput, common_errors, not_scored, register
from .options import DETECTION_OPTIONS

if TYPE_CHECKING:  # annotations only; the adapter imports the engine when it runs
    import pandas as pd

    from ..paired import TrialData
    from .engine import DetectionResult

__all__ = ["DETECTION", "DETECTION_METRICS", "DETECTION_TASKS", "run_detection"]

#: Tasks scored by the detection scorer, with MediScore's task name (docs/scoring/detection.md#task-specifics).
DETECTION_TASKS: dict[Task, str] = {
    Task.IMG: "manipulation",
    Task.VID: "manipulation",
    Task.SPL: "splice",
    Task.EV: "eventverification",
    Task.CAM: "camera",
}


def _detection_system(inp: ScoringInput) -> pd.DataFrame:
    """The system output frame; :class:`Unavailable` names the rule that makes it unscorable."""
    import numpy as np

    from ... import arrays
    from ..merge import SCORE_COLUMN, TASK_KEYS, read_scores

    table = inp.table
    for col in (SCORE_COLUMN, *TASK_KEYS[DETECTION_TASKS[inp.task]]):
        if not table.has(col):
            raise Unavailable(inp.column_rule, f"column {col} is absent")
    text = arrays.strip(table.column(SCORE_COLUMN))
    bad = np.flatnonzero(read_scores(text)[1])  # as SCORE-01 and the merge read them
    if bad.size:
        pos = int(bad[0])
        raise Unavailable(
            "SCORE-01",
            f"{bad.size} ConfidenceScore value(s) are not numbers "
            f"(first {table.display}:{table.line_of(pos)}: {text[pos]!r})",
        )
    return table.df


def _not_scored(exc: Exception, inp: ScoringInput) -> NotScored:
    from ...errors import QueryError

    if inp.kind == "qm" and isinstance(exc, QueryError) and exc.unknown:
        stem = inp.reference.with_suffix("")
        join, mask = (stem.parent / f"{stem.name}-{s}.csv" for s in ("probejournaljoin", "journalmask"))
        if not (join.is_file() and mask.is_file()):
            return NotScored(f"{exc} (no journal tables {join.name} and {mask.name} beside the reference)", fail=True)
    return not_scored(exc)


def _defined(r: DetectionResult) -> DetectionResult | NotScored:
    """AUC and EER need both classes (docs/scoring/detection.md#auc-and-partial-auc, docs/scoring/detection.md#eer):
    skip instead of printing NaN as MediScore does."""
    t, nt = int(r.counts.get("targets", 0)), int(r.counts.get("nontargets", 0))
    if t and nt:
        return r
    what = "no trials" if t + nt == 0 else ("no target trials" if t == 0 else "no non-target trials")
    where = "all trials" if r.query is None else f"{r.query_kind} query {r.query!r}"
    return NotScored(f"{where}: {what} (targets={t}, non-targets={nt}); AUC and EER are undefined")


def _detection_result(r: DetectionResult, convention: str = "mediscore") -> ScoreResult:
    data = r.to_dict()
    props: list[tuple[str, Any]] = [("SYS_RESPONSE", r.sys_response)]
    props += [(name, math.nan if value is None else float(value)) for name, value in data["metrics"].items()]
    props += [(f"count.{name}", int(value)) for name, value in data["counts"].items()]
    entry: dict[str, Any] = {
        k: data[k] for k in ("query", "query_kind", "metrics", "counts", "roc", "trials") if k in data
    }
    note = _zero_by_convention(data["metrics"], convention)
    if note:  # only then: the entry's keys stay as documented otherwise
        entry["notes"] = [note]
    return ScoreResult(entry, props)


def _zero_by_convention(metrics: dict[str, Any], convention: str) -> str | None:
    """The footnote for an AUC@FAR of 0 beside a CDR@FAR above 0 (a perfect ranking, above all): MediScore's
    trapezoids end at the last ROC point at or below the FAR stop, and a ROC that climbs at FAR 0 climbs in a
    vertical step, which has no area."""
    pauc, cdr = metrics.get("AUC@FAR"), metrics.get("CDR@FAR")
    if convention != "mediscore" or pauc is None or cdr is None or pauc != 0 or not cdr > 0:
        return None
    return (
        f"AUC@FAR 0 beside CDR@FAR {cdr:.4f} is MediScore's convention, not a sign of a poor detector: it adds "
        "trapezoids only up to the last ROC point at or below the FAR stop, and this ROC climbs at FAR 0, a "
        "vertical step with no area; --omfc-convention plan integrates up to the FAR stop"
    )


def run_detection(inp: ScoringInput) -> list[Outcome]:
    """Detection scoring of every query (docs/scoring/detection.md); one outcome per position."""
    from ...errors import QueryError, ScoringError
    from .engine import score_detection

    n = inp.positions
    try:
        system = _detection_system(inp)
    except Unavailable as exc:
        return [common_errors(exc)] * n
    opts = inp.options
    common: dict[str, Any] = dict(
        task=DETECTION_TASKS[inp.task],
        optout=inp.optout,
        far_stop=opts.get("far_stop"),
        ci=bool(opts.get("ci")),
        ci_level=opts.get("ci_level", 0.9),
        n_bootstrap=opts.get("ci_iterations", 500),
        seed=opts.get("seed", 77),
        convention=inp.convention,
        strict=False,
    )
    kind = inp.kind

    def run(queries: list[str]) -> list[DetectionResult]:
        by_kind: dict[str, Any] = {}
        if kind == "qp":
            by_kind["query_partition"] = inp.query_partition
        elif kind in ("q", "qm"):
            by_kind["query" if kind == "q" else "query_manipulation"] = queries
        return score_detection(inp.index, inp.reference, system, **common, **by_kind).results

    try:
        results: list[DetectionResult | NotScored] = list(run([q for q, _ in inp.queries]))
    except ScoringError as exc:
        if not (isinstance(exc, QueryError) and kind in ("q", "qm") and n > 1):
            return [_not_scored(exc, inp)] * n
        results = []  # one bad query must not hide the others: score each alone
        for query, _ in inp.queries:
            try:
                results += run([query])
            except ScoringError as one:
                results.append(_not_scored(one, inp))
    out: list[Outcome] = []
    for r in results:
        d = r if isinstance(r, NotScored) else _defined(r)
        out.append(d if isinstance(d, NotScored) else _detection_result(d, inp.convention))
    return out


#: detection.METRIC_COLUMNS written out, so that registration imports no numpy
#: (tests/glue/test_lazy_imports.py checks they agree).
DETECTION_METRICS: tuple[str, ...] = (
    "TRR",
    "AUC",
    "EER",
    "FAR_STOP",
    "AUC@FAR",
    "CDR@FAR",
    "CI_LEVEL",
    "AUC_CI_LOWER",
    "AUC_CI_UPPER",
    "AUC_CI_LOWER@FAR",
    "AUC_CI_UPPER@FAR",
    "CDR_CI_LOWER@FAR",
    "CDR_CI_UPPER@FAR",
)


def _trials(entry: Mapping[str, Any], options: Mapping[str, Any]) -> TrialData | None:
    """The entry's trials for comparisons (the engine side is imported only when a comparison runs)."""
    from .paired import detection_trials

    return detection_trials(entry, options)


DETECTION = register(
    Scorer(
        name="detection",
        title="detection",
        tasks=DETECTION_TASKS,
        run=run_detection,
        options=DETECTION_OPTIONS,
        null_keys=("metrics", "counts", "roc", "trials"),
        metrics=DETECTION_METRICS,
        trials=_trials,
        lower_is_better=("EER",),
        headline=("AUC", "EER"),
    )
)
