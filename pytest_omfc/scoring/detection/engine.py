"""Detection scoring engine: MediScore ``DetectionScorer`` reimplemented in numpy/pandas.

No pytest here; the plugin builds items on top of this API. The definitions are those of
``docs/scoring/detection.md`` (NIST MediScore 1.3.2 as implemented).

Public API
----------
``score_detection(index, reference, system, *, task="manipulation", optout=False,
query=None, query_manipulation=None, query_partition=None, far_stop=None, ci=False,
ci_level=0.9, n_bootstrap=500, seed=77, bootstrap="mediscore", convention="mediscore",
journal="auto", strict=True) -> DetectionReport``
    Full pipeline for one submission: merge, opt-out, queries,
    metrics (each a section of docs/scoring/detection.md). ``index``/``reference``/``system`` are paths or
    string DataFrames. ``query`` (``-q``) and ``query_manipulation`` (``-qm``)
    take one string or a sequence (one result each); ``query_partition``
    (``-qp``) takes one string expanded into partitions. At most one of the
    three. ``far_stop=None`` means 0.1 (MediScore) or 0.05 (plan).
    ``journal="auto"`` finds ``<ref stem>-probejournaljoin.csv`` and
    ``<ref stem>-journalmask.csv`` beside a reference path; pass a
    ``JournalTables`` or ``None`` to override. ``strict=True`` raises
    ``ScoringError`` when a scored set is empty or lacks targets or non-targets;
    ``strict=False`` returns MediScore's numbers for such sets (NaN -> None).

``score_trials(scores, is_target, *, total=None, far_stop=None, ci=False, ...) -> DetectionResult``
    Metrics of one set of trials given as arrays, in MediScore row order.

``DetectionReport``: ``results`` (list of ``DetectionResult``, one per query, or
one with ``query_kind="all"``), ``settings``, ``to_dict()``.

``DetectionResult``: ``query``, ``query_kind`` (``"all"|"q"|"qp"|"qm"``),
``sys_response`` (``"all"``, or ``"tr"`` with opt-out), ``metrics`` (MediScore report
column -> float or None), ``counts``, ``roc`` (``RocCurve``), ``to_dict()``::

    {"query": None | str, "query_kind": ..., "sys_response": ...,
     "metrics": {"TRR", "AUC", "EER", "FAR_STOP", "AUC@FAR", "CDR@FAR", "CI_LEVEL",
                 "AUC_CI_LOWER", "AUC_CI_UPPER", "AUC_CI_LOWER@FAR",
                 "AUC_CI_UPPER@FAR", "CDR_CI_LOWER@FAR", "CDR_CI_UPPER@FAR"},
     "counts": {"targets", "nontargets", "scored", "total", "opted_out",
                "missing_system", "index_unmatched"},
     "roc": {"fpr": [...], "tpr": [...], "thresholds": [...]}}

Values are full precision builtin floats (MediScore rounds its CSV to 6
decimals). None where MediScore prints NaN; the six CI columns are None when
``ci=False`` (MediScore prints 0 there).

Building blocks: ``roc_curve``, ``auc_mediscore``, ``auc_interpolated``,
``eer_mediscore``, ``eer_interpolated``, ``cdr_at_far``, ``trr``; errors:
``ScoringError``. ``CONVENTION_DIFFERENCES`` / ``convention_table()`` give the
table below.

Conventions
-----------
``convention="mediscore"`` (default) reproduces MediScore's numbers, checkfiles
included. ``convention="plan"`` switches every detection point of docs/scoring/conventions.md
section 7 to the evaluation plans' wording:

the differences are listed by ``convention_table()`` (from ``CONVENTION_DIFFERENCES``: missing trials,
the default ``far_stop``, partial AUC, EER, TRR and the opt-out statuses; docs/scoring/conventions.md).

Independent of the convention: ``-qp`` works (MediScore crashes, 7.7), is
split on ``&`` and the word ``and`` only, and yields one result per partition,
empty ones included (MediScore misaligns rows after an empty partition).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ...errors import QueryError, SetupError, SubmissionError, Undefined
from ...options import exclusive_queries
from ..conventions import CONVENTION_DIFFERENCES, ConventionDifference, convention_table
from ..merge import (
    RESPONSE_COLUMN,
    SCORE_COLUMN,
    TARGET_COLUMN,
    Convention,
    JournalTables,
    QueryKind,
    ScoringError,
    apply_optout,
    find_journal_tables,
    journal_frame,
    merge_trials,
    partition_query,
    select_query,
    typed_frame,
)
from .bootstrap import bootstrap_ci
from .curves import TIE_ATOL, curve_from_counts, sorted_groups
from .options import DEFAULT_FAR_STOP

__all__ = [
    "CONVENTION_DIFFERENCES",
    "METRIC_COLUMNS",
    "CI_COLUMNS",
    "ConventionDifference",
    "DetectionReport",
    "DetectionResult",
    "RocCurve",
    "ScoringError",
    "auc_interpolated",
    "auc_mediscore",
    "cdr_at_far",
    "convention_table",
    "detection_result",
    "curve_from_counts",
    "eer_interpolated",
    "eer_mediscore",
    "roc_curve",
    "score_detection",
    "score_trials",
    "sorted_groups",
    "trr",
]

#: MediScore report columns (docs/scoring/detection.md#report) that are numbers.
METRIC_COLUMNS: tuple[str, ...] = (
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
CI_COLUMNS: tuple[str, ...] = METRIC_COLUMNS[7:]


@dataclass(frozen=True)
class RocCurve:
    """ROC points in MediScore order (fpr non-decreasing); NaN rates when a class is absent."""

    fpr: np.ndarray
    tpr: np.ndarray
    thresholds: np.ndarray
    n_targets: int
    n_nontargets: int

    @property
    def fnr(self) -> np.ndarray:
        return 1.0 - self.tpr

    def to_dict(self) -> dict[str, list[float | None]]:
        """Plain-Python lists; NaN/inf become None."""
        return {
            "fpr": _clean_list(self.fpr),
            "tpr": _clean_list(self.tpr),
            "thresholds": _clean_list(self.thresholds),
        }


def _clean_list(a: np.ndarray) -> list[float | None]:
    return [float(v) if np.isfinite(v) else None for v in np.asarray(a, dtype=float).tolist()]


def roc_curve(scores: np.ndarray, is_target: np.ndarray, tie_atol: float = TIE_ATOL) -> RocCurve:
    """ROC points of MediScore (sklearn 0.17 ``roc_curve``, docs/scoring/detection.md#roc-points)."""
    s = np.asarray(scores, dtype=float)
    y = np.asarray(is_target, dtype=bool)
    if s.shape != y.shape or s.ndim != 1:
        raise ValueError("scores and is_target must be 1-d arrays of the same length")
    n_t = int(y.sum())
    if s.size == 0:
        empty = np.zeros(0)
        return RocCurve(empty, empty, empty, 0, 0)
    order, group_end, ss = sorted_groups(s, tie_atol)
    tps = np.cumsum(y[order], dtype=np.int64)[group_end].astype(float)
    fps = (1 + group_end).astype(float) - tps
    fpr, tpr, thr = curve_from_counts(tps, fps, ss[group_end])
    return RocCurve(fpr, tpr, thr, n_t, int(s.size - n_t))


def auc_mediscore(fpr: np.ndarray, tpr: np.ndarray, far_stop: float = 1.0) -> float:
    """Trapezoids over consecutive points with ``fpr[i+1] <= far_stop`` (docs/scoring/detection.md#auc-and-partial-auc).

    Not normalised, not interpolated up to far_stop; NaN fpr gives 0.
    """
    if fpr.size < 2:
        return 0.0
    use = fpr[1:] <= far_stop
    width = np.diff(fpr)[use]
    height = ((tpr[1:] + tpr[:-1]) / 2.0)[use]
    return float(np.sum(width * height))


def auc_interpolated(fpr: np.ndarray, tpr: np.ndarray, far_stop: float = 1.0) -> float:
    """Area under the ROC from fpr 0 to exactly ``far_stop``, interpolating the last segment (plan).

    Unnormalised like MediScore's (its maximum is far_stop).
    """
    area = auc_mediscore(fpr, tpr, far_stop)
    if fpr.size < 2 or far_stop >= 1.0 or np.isnan(fpr).any():
        return area
    inside = fpr <= far_stop
    k = int(np.count_nonzero(inside)) - 1  # fpr is non-decreasing: inside is a prefix
    if k < 0 or k + 1 >= fpr.size or fpr[k] >= far_stop:
        return area
    x0, x1, y0, y1 = fpr[k], fpr[k + 1], tpr[k], tpr[k + 1]
    y_stop = y0 + (y1 - y0) * (far_stop - x0) / (x1 - x0)
    return float(area + (far_stop - x0) * (y0 + y_stop) / 2.0)


def eer_mediscore(fpr: np.ndarray, tpr: np.ndarray) -> float:
    """Mean of fpr and fnr at the first point minimising ``|fpr - fnr|`` (docs/scoring/detection.md#eer)."""
    if fpr.size == 0:
        return float("nan")
    fnr = 1.0 - tpr
    diff = np.abs(fpr - fnr)
    if np.isnan(diff[0]):  # Python min() over a list starting with NaN returns NaN
        return float("nan")
    j = int(np.nanargmin(diff))
    return float((fpr[j] + fnr[j]) / 2.0)


def eer_interpolated(fpr: np.ndarray, tpr: np.ndarray) -> float:
    """Rate where the ROC crosses fpr == fnr, linear between points (plan definition)."""
    if fpr.size == 0 or np.isnan(fpr).any() or np.isnan(tpr).any():
        return float("nan")
    fnr = 1.0 - tpr
    diff = fpr - fnr  # non-decreasing along the curve
    j = int(np.argmax(diff >= 0)) if (diff >= 0).any() else diff.size - 1
    if j == 0 or diff[j] < 0:
        return float((fpr[j] + fnr[j]) / 2.0)
    d0, d1 = diff[j - 1], diff[j]
    t = -d0 / (d1 - d0)
    return float(fpr[j - 1] + t * (fpr[j] - fpr[j - 1]))


def cdr_at_far(fpr: np.ndarray, tpr: np.ndarray, far: float) -> float:
    """TPR at FPR ``far``: exact point (lowest tpr) or linear interpolation (docs/scoring/detection.md#cdr-at-far).

    MediScore stable-sorts points by fpr first; fpr is already non-decreasing
    (or all NaN, where Python's sort keeps the order), so no sort is needed.
    """
    if fpr.size == 0:
        return float("nan")
    exact = np.flatnonzero(fpr == far)
    if exact.size:
        return float(tpr[exact[0]])
    smaller = np.flatnonzero(fpr < far)
    if smaller.size == 0:
        x1, y1 = 0.0, 0.0
        x2, y2 = float(fpr[0]), float(tpr[0])
    else:
        k = int(smaller[-1])
        x1, y1 = float(fpr[k]), float(tpr[k])
        if k + 1 < fpr.size:
            x2, y2 = float(fpr[k + 1]), float(tpr[k + 1])
        else:
            x2, y2 = 1.0, 1.0
    if x2 != x1:
        return y1 + (y2 - y1) / (x2 - x1) * (far - x1)
    return (y2 + y1) / 2.0


def trr(scored: int, total: int, convention: Convention = "mediscore") -> float | None:
    """Trial response rate (docs/scoring/detection.md#trr).

    MediScore: ``round(scored/total, 2)`` with Python 2 rounding (half away
    from zero on the exact binary value), reproduced with Decimal.
    """
    if total <= 0:
        return None
    ratio = scored / total
    if convention == "plan":
        return float(ratio)
    return float(Decimal(ratio).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def _num(v: float | None) -> float | None:
    if v is None:
        return None
    f = float(v)
    return f if np.isfinite(f) else None


@dataclass(frozen=True)
class DetectionResult:
    """Scores of one set of trials (all trials, or one query/partition)."""

    query: str | None
    query_kind: QueryKind
    sys_response: str
    metrics: dict[str, float | None]
    counts: dict[str, int]
    roc: RocCurve
    #: the scored trials: their keys (key columns joined by '|'), scores and target flags, in row order, for
    #: paired comparisons and intervals (docs/scoring/comparison.md); None when not kept
    trials: dict[str, list[Any]] | None = None

    def to_dict(self) -> dict[str, Any]:
        """Builtin types only (JSON-ready)."""
        out = {
            "query": self.query,
            "query_kind": self.query_kind,
            "sys_response": self.sys_response,
            "metrics": {k: _num(v) for k, v in self.metrics.items()},
            "counts": {k: int(v) for k, v in self.counts.items()},
            "roc": self.roc.to_dict(),
        }
        if self.trials is not None:
            out["trials"] = self.trials
        return out

    @property
    def label(self) -> str:
        """Short text for legends and item names."""
        return "all trials" if self.query is None else f"{self.query_kind}: {self.query}"


@dataclass(frozen=True)
class DetectionReport:
    """All results of one scoring run plus the settings that produced them."""

    results: list[DetectionResult]
    settings: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"settings": dict(self.settings), "results": [r.to_dict() for r in self.results]}

    def __iter__(self) -> Iterator[DetectionResult]:
        return iter(self.results)

    def __len__(self) -> int:
        return len(self.results)


def _metric_fns(far_stop: float, convention: Convention) -> dict[str, Callable[[np.ndarray, np.ndarray], float]]:
    pauc = auc_mediscore if convention == "mediscore" else auc_interpolated
    return {
        "AUC": lambda f, t: auc_mediscore(f, t, 1.0),
        "AUC@FAR": lambda f, t: pauc(f, t, far_stop),
        "CDR@FAR": lambda f, t: cdr_at_far(f, t, far_stop),
    }


def score_trials(
    scores: Sequence[float] | np.ndarray,
    is_target: Sequence[bool] | np.ndarray,
    *,
    total: int | None = None,
    far_stop: float | None = None,
    ci: bool = False,
    ci_level: float = 0.9,
    n_bootstrap: int = 500,
    seed: int = 77,
    bootstrap: str = "mediscore",
    convention: Convention = "mediscore",
    query: str | None = None,
    query_kind: QueryKind = "all",
    sys_response: str = "all",
    extra_counts: dict[str, int] | None = None,
    responded: int | None = None,
    strict: bool = True,
    keys: Sequence[str] | None = None,
) -> DetectionResult:
    """Metrics of one trial set (docs/scoring/detection.md); arrays must be in MediScore row order.

    ``total`` is the TRR denominator (default: the number of trials) and
    ``responded`` its numerator (default: the number of scored trials); ``keys`` (one per trial) keeps the
    trials in the result for comparisons.
    """
    if convention not in DEFAULT_FAR_STOP:
        raise SetupError(f"unknown convention {convention!r}; use 'mediscore' or 'plan'")
    far = DEFAULT_FAR_STOP[convention] if far_stop is None else float(far_stop)
    if not 0.0 <= far <= 1.0:
        raise SetupError(f"far_stop must lie in [0, 1], got {far}")
    if ci and not 0.0 < ci_level < 1.0:
        raise SetupError(f"ci_level must lie strictly between 0 and 1, got {ci_level}")
    if ci and n_bootstrap < 1:
        raise SetupError(f"n_bootstrap must be positive, got {n_bootstrap}")
    s = np.asarray(scores, dtype=float)
    y = np.asarray(is_target, dtype=bool)
    if s.shape != y.shape or s.ndim != 1:
        raise SetupError("scores and is_target must be 1-d and of equal length")
    if np.isnan(s).any():
        raise SubmissionError(f"{int(np.isnan(s).sum())} trial score(s) are NaN")
    where = "all trials" if query is None else f"{query_kind} query {query!r}"
    n_t = int(y.sum())
    n_nt = int(y.size - n_t)
    if strict and (n_t == 0 or n_nt == 0):
        what = "no trials" if y.size == 0 else ("no target trials" if n_t == 0 else "no non-target trials")
        raise Undefined(f"{where}: {what} (targets={n_t}, non-targets={n_nt}); AUC/EER are undefined")

    metrics: dict[str, float | None] = dict.fromkeys(METRIC_COLUMNS)
    metrics["FAR_STOP"] = far
    metrics["CI_LEVEL"] = float(ci_level)
    denom = int(total) if total is not None else int(s.size)
    metrics["TRR"] = trr(int(s.size) if responded is None else int(responded), denom, convention)
    roc = roc_curve(s, y)
    if s.size:
        fns = _metric_fns(far, convention)
        metrics["AUC"] = fns["AUC"](roc.fpr, roc.tpr)
        metrics["AUC@FAR"] = fns["AUC@FAR"](roc.fpr, roc.tpr)
        metrics["CDR@FAR"] = fns["CDR@FAR"](roc.fpr, roc.tpr)
        eer = eer_mediscore if convention == "mediscore" else eer_interpolated
        metrics["EER"] = eer(roc.fpr, roc.tpr)
        if ci:
            try:
                bounds = bootstrap_ci(
                    s, y, ci_level=ci_level, metric_fns=fns, n_iter=n_bootstrap, seed=seed, method=bootstrap
                )
            except ValueError as exc:
                raise Undefined(str(exc)) from None
            metrics["AUC_CI_LOWER"], metrics["AUC_CI_UPPER"] = bounds["AUC"]
            metrics["AUC_CI_LOWER@FAR"], metrics["AUC_CI_UPPER@FAR"] = bounds["AUC@FAR"]
            metrics["CDR_CI_LOWER@FAR"], metrics["CDR_CI_UPPER@FAR"] = bounds["CDR@FAR"]
    counts = {"targets": n_t, "nontargets": n_nt, "scored": int(s.size), "total": denom}
    counts.update(extra_counts or {})
    return DetectionResult(
        query=query,
        query_kind=query_kind,
        sys_response=sys_response,
        metrics={k: _num(v) for k, v in metrics.items()},
        counts=counts,
        roc=roc,
        trials=None if keys is None else {"key": list(keys), "score": s.tolist(), "target": y.tolist()},
    )


def _as_query_list(q: str | Sequence[str] | None, name: str) -> list[str] | None:
    if q is None:
        return None
    items = [q] if isinstance(q, str) else list(q)
    if not items or not all(isinstance(x, str) and x.strip() for x in items):
        raise QueryError(f"{name} must be a non-empty query string or a list of them")
    return items


def score_detection(
    index: str | Path | pd.DataFrame,
    reference: str | Path | pd.DataFrame,
    system: str | Path | pd.DataFrame,
    *,
    task: str = "manipulation",
    optout: bool = False,
    query: str | Sequence[str] | None = None,
    query_manipulation: str | Sequence[str] | None = None,
    query_partition: str | None = None,
    far_stop: float | None = None,
    ci: bool = False,
    ci_level: float = 0.9,
    n_bootstrap: int = 500,
    seed: int = 77,
    bootstrap: str = "mediscore",
    convention: Convention = "mediscore",
    journal: JournalTables | str | None = "auto",
    strict: bool = True,
) -> DetectionReport:
    """Score one detection submission like ``DetectionScorer.py`` (see module docstring)."""
    given = [
        n
        for n, v in (("query", query), ("query_manipulation", query_manipulation), ("query_partition", query_partition))
        if v is not None
    ]
    if (why := exclusive_queries(given)) is not None:
        raise QueryError(why)
    trials = merge_trials(index, reference, system, task=task, convention=convention)
    sys_response = "tr" if optout else "all"
    far = DEFAULT_FAR_STOP.get(convention, 0.1) if far_stop is None else float(far_stop)
    settings: dict[str, Any] = {
        "task": trials.task,
        "convention": convention,
        "optout": bool(optout),
        "far_stop": far,
        "ci": bool(ci),
        "ci_level": float(ci_level),
        "n_bootstrap": int(n_bootstrap),
        "seed": int(seed),
        "bootstrap": bootstrap,
        "trial_key": list(trials.key),
    }
    common: dict[str, Any] = dict(
        far_stop=far,
        ci=ci,
        ci_level=ci_level,
        n_bootstrap=n_bootstrap,
        seed=seed,
        bootstrap=bootstrap,
        convention=convention,
        sys_response=sys_response,
    )
    base_counts = {"missing_system": trials.n_missing, "index_unmatched": trials.n_index_unmatched}

    def finish(sub: pd.DataFrame, q: str | None, kind: QueryKind) -> DetectionResult:
        # docs/scoring/detection.md#trr: MediScore's TRR denominator is always the full merge;
        # the plan's is the selected set, before opt-out.
        denom = trials.total if convention == "mediscore" else len(sub)
        kept = apply_optout(sub, convention) if optout else sub
        # Without opt-out every trial of the set is scored, the plan's missing ones
        # at the lowest score; TRR then counts responses, not scored rows.
        if convention == "plan" and not optout and RESPONSE_COLUMN in sub.columns:
            responded = int((sub[RESPONSE_COLUMN] == "Y").sum())
        else:
            responded = len(kept)
        return score_trials(
            kept[SCORE_COLUMN].to_numpy(dtype=float),
            (kept[TARGET_COLUMN] == "Y").to_numpy(),
            total=denom,
            query=q,
            query_kind=kind,
            extra_counts={**base_counts, "opted_out": len(sub) - len(kept)},
            responded=responded,
            strict=strict and not (kind == "qp" and len(kept) == 0),
            keys=_joined_keys(kept, trials.key),
            **common,
        )

    if not given:
        report_results = [finish(trials.frame, None, "all")]
    else:
        if isinstance(journal, str):
            if journal != "auto":
                raise SetupError(f"journal must be 'auto', None or JournalTables, not {journal!r}")
            journal_tables = find_journal_tables(reference) if isinstance(reference, (str, Path)) else None
        else:
            journal_tables = journal
        settings["journal"] = (
            None
            if journal_tables is None
            else [str(journal_tables.join_path or "<frame>"), str(journal_tables.mask_path or "<frame>")]
        )
        jframe = journal_frame(trials.frame, journal_tables)
        if query is not None:
            jobs = [(q, "q") for q in _as_query_list(query, "query") or []]
        elif query_manipulation is not None:
            jobs = [(q, "qm") for q in _as_query_list(query_manipulation, "query_manipulation") or []]
        else:
            if not isinstance(query_partition, str) or not query_partition.strip():
                raise QueryError("query_partition must be one non-empty query string")
            jobs = [(q, "qp") for q in partition_query(query_partition)]
        typed = typed_frame(jframe)
        report_results = [
            finish(select_query(jframe, q, kind, trials.key, typed), q, kind)  # type: ignore[arg-type]
            for q, kind in jobs
        ]
    return DetectionReport(results=report_results, settings=settings)


def _joined_keys(frame: pd.DataFrame, key: Sequence[str]) -> list[str]:
    """Each row's trial key: its key columns joined by '|' (which no field of a '|'-separated file holds)."""
    columns = [frame[c].astype(str) for c in key]
    if len(columns) == 1:
        return columns[0].tolist()
    return columns[0].str.cat(columns[1:], sep="|").tolist()


def detection_result(d: dict[str, Any]) -> DetectionResult:
    """Rebuild a result from its entry (the controller has no engine objects under xdist)."""
    roc = d["roc"]
    arr = {k: np.array([np.nan if v is None else v for v in roc[k]], dtype=float) for k in ("fpr", "tpr", "thresholds")}
    counts = d["counts"]
    curve = RocCurve(
        fpr=arr["fpr"],
        tpr=arr["tpr"],
        thresholds=arr["thresholds"],
        n_targets=int(counts.get("targets", 0)),
        n_nontargets=int(counts.get("nontargets", 0)),
    )
    return DetectionResult(
        query=d["query"],
        query_kind=d["query_kind"],
        sys_response=d.get("sys_response", "all"),
        metrics=d["metrics"],
        counts=counts,
        roc=curve,
        trials=d.get("trials"),
    )
