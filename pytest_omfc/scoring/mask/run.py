"""End-to-end mask scoring, pytest-free: :func:`score_masks` is MediScore's MaskScorer (docs/scoring/masks.md).

Pipeline (section numbers of docs/scoring/masks.md):

1. 2.1 merge ``reference LEFT JOIN system`` on ProbeFileID (+ DonorFileID for splice); opt-out
   bookkeeping (TRR, totalTrials, totalOptIn, totalOptOut) before anything is removed; ``optout``
   removes opted-out rows; ``IsTarget=='Y'`` only.  A target without a system row is scored with a
   white mask; ``FailedValidation`` blanks the mask name (white mask too).
2. 2.1 step 4 / 2.3 journal selection (:mod:`.journal`); ``query_manipulation`` (``-qm``) scores each
   query separately.
3. 2.2-2.8 every mask side is read and scored by :func:`_score_job` (a pure function of absolute file
   paths and options, so that only paths cross processes): in this process, in a pool of ``jobs``
   processes, or on dask.distributed (``dask="local"`` or a scheduler address), by
   :class:`~pytest_omfc.work.executors.Executor`, in input order and with identical results.
   A bad mask (missing, unreadable, not a PNG, wrong size, a bit plane the file does not hold) makes
   that side "not scored" with a reason; the run goes on.
4. 2.7 Maximum and Actual (``sbin``), Pixel/MaskAverageAUC over the scored masks of the run.
5. 2.9/2.10 ``query`` (``-q``) and ``query_partition`` (``-qp``) filter the per-image table, then means
   (skipna), stddev (ddof=1, blank for one value), OptimumThreshold mean truncated by ``int()``.

Results are frozen dataclasses: :class:`MaskReport` -> :class:`MaskRun` (one per ``-qm`` query, or one)
-> :class:`MaskResult` (one per ``-q`` query / ``-qp`` partition, or "Full").  Aggregates use
MediScore's column names (``p``/``d`` prefixes for splice), None where MediScore prints a blank.
Values are not rounded (MediScore rounds to ``--precision`` significant digits when printing).

Input errors that stop the whole run (unreadable CSV, missing key columns, a query naming an unknown
column, bad options) raise a :mod:`~pytest_omfc.errors` class (set-up errors fail the item,
system-output errors skip it).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from ... import arrays
from ...errors import QueryError, SetupError, SubmissionError
from ...options import exclusive_queries
from ...paths import resolve_inside
from ...work.executors import Executor, check_dask
from ...work.pool import cpu_count
from ..merge import (
    QueryKind,
    as_frame,
    partition_query,
    require,
    select_query,
    typed_frame,
)
from .aggregate import mask_average_auc, maximum, pixel_average_auc
from .engine import MaskScore, ThresholdMetrics
from .io import MAX_PIXELS
from .job import JobOutcome, SideMode, _Job, _score_job
from .journal import Journal, load_journal
from .metrics import PER_THRESHOLD, added_metrics, mean_columns, mediscore_metrics
from .morphology import kernel

__all__ = ["MaskOptions", "MaskReport", "MaskResult", "MaskRun", "score_masks"]

MaskTask = Literal["manipulation", "splice"]
MaskConvention = Literal["mediscore", "plan"]

#: IsOptOut / ProbeStatus values that opt a trial out of localization (docs/scoring/masks.md#trial-selection step 2)
_OPTOUT_ISOPTOUT = frozenset({"Y", "Localization"})
_OPTOUT_STATUS = frozenset({"OptOutAll", "OptOutLocalization"})

_MEAN_COLUMNS = mean_columns()


@dataclass(frozen=True)
class MaskOptions:
    """MaskScorer's options (docs/scoring/masks.md#defaults); defaults are MediScore's.

    ``ntdks=None`` means 15 (MediScore) or 11 (``convention="plan"``: MFC19 "dilation with a kernel of
    11 pixels"); splice always uses 0.  ``sbin=None`` (MediScore's -10) means no Maximum/Actual.
    ``convention="plan"`` also scores a missing system mask MCC -1 (MASK-01, OpenMFC 6.3)
    instead of MediScore's 0 (docs/scoring/conventions.md).

    Where the masks are and which trials, as MaskScorer's ``-r``/``-s`` and ``-q``/``-qp``/``-qm``: mask names
    are resolved inside ``ref_dir`` (reference masks) and ``sys_dir`` (system masks; default: the system
    CSV's folder); the journal tables are looked up beside the reference (or ``journal_reference`` when
    the reference is a DataFrame); the queries are pandas query syntax, at most one kind.  Where the work
    runs: ``jobs`` local processes, or ``dask``: ``"local"`` (a LocalCluster of ``jobs`` workers) or the
    address of a dask.distributed scheduler (``tcp://host:8786``, reached within ``dask_timeout``
    seconds) whose workers see the mask paths (:mod:`pytest_omfc.work`).
    """

    kernel: str = "box"
    eks: int = 15
    dks: int = 11
    ntdks: int | None = None
    sbin: int | None = None
    nspx: int = -1
    pppns: bool = False
    optout: bool = False
    jpeg2000: Literal["auto", "yes", "no"] = "auto"
    index_filter: bool = False
    convention: MaskConvention = "mediscore"
    jobs: int = 1
    max_pixels: int = MAX_PIXELS
    ref_dir: str | Path | None = None
    sys_dir: str | Path | None = None
    journal_reference: str | Path | None = None
    query: str | Sequence[str] | None = None
    query_partition: str | None = None
    query_manipulation: str | Sequence[str] | None = None
    dask: str | None = None
    dask_timeout: float = 10.0


@dataclass(frozen=True)
class MaskResult:
    """Aggregates of one query (or "Full"): MediScore's columns, ``stddev`` with the same metric keys."""

    query: str | None  # None: the full set
    kind: QueryKind
    aggregate: Mapping[str, float | int | str | None]
    stddev: Mapping[str, float | None]
    n_rows: int  # per-image rows selected by the query


@dataclass(frozen=True)
class MaskRun:
    """One scoring pass: the whole selection, or one ``-qm`` query (MediScore's ``index_<k>``)."""

    query_manipulation: str | None
    perimage: pd.DataFrame
    journal: pd.DataFrame | None
    results: tuple[MaskResult, ...]
    not_scored: tuple[tuple[str, str], ...]  # (trial, reason) of every side whose reason is a failure (FAILURES)
    codes: tuple[tuple[str | None, ...], ...] = ()  # per side ("" or p, d), per per-image row: NOT_SCORED code
    descriptions: Mapping[str, str] = field(default_factory=dict)  # code -> what the count says ("have ...")
    #: scored sides whose system mask looks inverted (255 for manipulated): (trial, share of black pixels,
    #: the optimum MCC the inverted mask would reach, or NaN when only the black share is suspicious)
    polarity: tuple[tuple[str, float, float], ...] = ()
    #: scored sides that score bit planes above 8 of a one-component 16-bit JPEG 2000 reference
    #: (docs/scoring/masks.md#ground-truth)
    high_planes: tuple[tuple[str, tuple[int, ...]], ...] = ()


@dataclass(frozen=True)
class MaskReport:
    """Everything :func:`score_masks` computed."""

    task: MaskTask
    options: MaskOptions
    runs: tuple[MaskRun, ...]
    notes: tuple[str, ...] = field(default=())
    reference_column: str = ""  # the reference column whose masks were scored (manipulation: PNG or bit planes)

    @property
    def results(self) -> tuple[MaskResult, ...]:
        return tuple(r for run in self.runs for r in run.results)


# --- one mask side ----------------------------------------------------------------------------------------------------


#: Why a mask side was not scored, by code (the per-image table carries the text; counts use the code).
#: ``FAILURES`` are the user's to fix and fail the item; the others are MediScore's "not scoreable".
NOT_SCORED: dict[str, str] = {
    "white-reference": "have no reference mask (white reference: no region to score)",
    "no-region": "have no selected region in the reference mask",
    "other-column": "have no reference mask in the chosen column while the other mask column names one",
    "reference": "have a reference mask that cannot be read",
    "system": "have a system mask that cannot be read",
    "rule": "have a system mask that a rule rejects",
    "path": "name a mask outside its directory",
    "engine": "have journal values the engine refuses",
}
#: Polarity hints (the plans: 0 is manipulated, 255 not; machine-learning tools often write the opposite).
#: A system mask is "mostly black" when over half of its scored pixels are 0: manipulated regions of MFC
#: probes cover a small part of the image, so such a mask is inverted or marks nearly everything.  A probe
#: "scores better inverted" when its MCC reaches INVERTED_MCC or below at some threshold and the inverted
#: mask's optimum (minus that minimum) would beat the mask's own optimum.
MOSTLY_BLACK = 0.5
INVERTED_MCC = -0.5

FAILURES = frozenset({"other-column", "reference", "system", "rule", "path", "engine"})

#: ``progress(done, total)``: told after each distinct mask side of a run is scored (the caller draws it).
Progress = Callable[[int, int], None]


def _pixels(job: _Job) -> float:
    return job.pixels


def _run_jobs(jobs: Sequence[_Job], executor: Executor, progress: Progress | None = None) -> list[JobOutcome]:
    """Score distinct jobs once, in input order, on ``executor`` (local processes or dask, :mod:`..executors`).

    ``progress(k, n)`` is called after the k-th of the n distinct jobs (``(0, n)`` first), so the
    caller can show progress on long runs; results arrive in input order, so k counts finished jobs.
    """
    unique = list(dict.fromkeys(jobs))
    if progress is None:
        done = list(executor.map(_score_job, unique, cost=_pixels))
    else:
        total = len(unique)
        progress(0, total)
        done = []
        for result in executor.map(_score_job, unique, cost=_pixels):
            done.append(result)
            progress(len(done), total)
    by_job = dict(zip(unique, done, strict=True))
    return [by_job[j] for j in jobs]


# --- inputs -----------------------------------------------------------------------------------------------------------


_frame, _require = as_frame, require  # a set-up table's problem is a SetupError; the system output's a SubmissionError


def _check_options(opts: MaskOptions, task: str) -> None:
    try:
        kernel(opts.kernel, 1)
        for name in ("eks", "dks"):
            kernel(opts.kernel, getattr(opts, name))
        if opts.ntdks is not None:
            kernel(opts.kernel, opts.ntdks)
    except (ValueError, TypeError) as exc:
        raise SetupError(f"bad mask scoring option: {exc}") from None
    if opts.sbin is not None and not -1 <= opts.sbin <= 255:
        raise SetupError(f"sbin must be in [-1, 255] or None (got {opts.sbin})")
    if opts.jpeg2000 not in ("auto", "yes", "no"):
        raise SetupError(f"jpeg2000 must be auto, yes or no (got {opts.jpeg2000!r})")
    if task not in ("manipulation", "splice"):
        raise SetupError(f"mask task must be manipulation or splice (got {task!r})")
    if opts.jobs < 1:
        raise SetupError(f"jobs must be >= 1 (got {opts.jobs})")


def _query_list(q: str | Sequence[str] | None) -> list[str]:
    if q is None:
        return []
    return [q] if isinstance(q, str) else list(q)


def _path(root: Path | None, name: str, what: str) -> tuple[str | None, str | None]:
    """(absolute path, None) or (None, reason) for a mask name relative to ``root`` (paths.resolve_inside)."""
    base = root if root is not None else Path(".")
    path, why = resolve_inside(base, name)
    if path is None:
        return None, f"{what} {name!r} {why}"
    return str(path.absolute()), None  # absolute: dask workers may run in another directory


# --- aggregation ------------------------------------------------------------------------------------------------------


def _num(x: Any) -> float | None:
    if x is None:
        return None
    try:
        v = float(x)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(v) else v


def _means(rows: pd.DataFrame, prefix: str) -> tuple[dict[str, float | int | None], dict[str, float | None]]:
    """skipna means and ddof=1 stddevs of the per-mask metrics; OptimumThreshold mean truncated by int()."""
    agg: dict[str, float | int | None] = {}
    std: dict[str, float | None] = {}
    for base in _MEAN_COLUMNS:
        col = prefix + base
        if col not in rows.columns or rows.empty:
            agg[col] = std[col] = None
            continue
        values = pd.to_numeric(rows[col], errors="coerce")
        mean = _num(values.mean(skipna=True)) if len(values) else None
        agg[col] = int(mean) if base == "OptimumThreshold" and mean is not None else mean
        std[col] = _num(values.std(skipna=True, ddof=1)) if values.notna().sum() > 1 else None
    return agg, std


# --- which reference masks --------------------------------------------------------------------------------------------

_PNG_COLUMN, _BP_COLUMN = "ProbeMaskFileName", "ProbeBitPlaneMaskFileName"


def _named(df: pd.DataFrame, col: str) -> pd.Series:
    return df[col].astype(str).str.strip().ne("") if col in df.columns else pd.Series(False, index=df.index)


def reference_mode(ref_df: pd.DataFrame, jpeg2000: str) -> tuple[bool, str]:
    """``(bit planes?, why)``: which manipulation reference column is scored (docs/scoring/masks.md#reading-masks).

    ``auto`` decides from content, not from the header: MFC2019 references carry both columns, and
    either may be empty.  Bit planes are used when ``ProbeBitPlaneMaskFileName`` names a file for at
    least as many targets as ``ProbeMaskFileName`` does (and for at least one); PNG otherwise, as
    MediScore does without ``--jpeg2000``.  Targets whose chosen column is empty while the other names
    a file are reported by :func:`_score_run` (code ``other-column``), never silently white.
    """
    has_bp, has_png = _BP_COLUMN in ref_df.columns, _PNG_COLUMN in ref_df.columns
    if jpeg2000 == "yes":
        if not has_bp:
            raise SetupError(f"jpeg2000='yes' needs the reference column {_BP_COLUMN}")
        return True, f"JPEG 2000 bit planes ({_BP_COLUMN}): --omfc-jpeg2000 yes"
    if jpeg2000 == "no" or not has_bp:
        why = "--omfc-jpeg2000 no" if jpeg2000 == "no" else f"the reference has no {_BP_COLUMN} column"
        return False, f"PNG ({_PNG_COLUMN}): {why}"
    targets = ref_df[ref_df["IsTarget"].astype(str).str.strip() == "Y"] if "IsTarget" in ref_df.columns else ref_df
    n, n_bp, n_png = len(targets), int(_named(targets, _BP_COLUMN).sum()), int(_named(targets, _PNG_COLUMN).sum())
    counts = f"{_BP_COLUMN} names a file for {n_bp} of {n} targets, {_PNG_COLUMN} for {n_png}"
    if not has_png or (n_bp > 0 and n_bp >= n_png):
        return True, f"JPEG 2000 bit planes ({_BP_COLUMN}): --omfc-jpeg2000 auto, {counts}"
    return False, f"PNG ({_PNG_COLUMN}): --omfc-jpeg2000 auto, {counts}"


# --- the scorer -------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Layout:
    """What the task's tables look like: the trial key, the mask sides ("" for manipulation, "p" and "d" for a
    splice's probe and donor) and each side's reference and system mask columns."""

    splice: bool
    bitplane: bool  # the manipulation reference is scored from its JPEG 2000 bit planes
    key: tuple[str, ...]
    sides: tuple[str, ...]
    ref_cols: Mapping[str, str]
    sys_cols: Mapping[str, str]

    @classmethod
    def of(cls, task: MaskTask, bitplane: bool) -> _Layout:
        splice = task == "splice"
        return cls(
            splice=splice,
            bitplane=bitplane,
            key=("ProbeFileID", "DonorFileID") if splice else ("ProbeFileID",),
            sides=("p", "d") if splice else ("",),
            ref_cols={
                "": _BP_COLUMN if bitplane else _PNG_COLUMN,
                "p": "BinaryProbeMaskFileName",
                "d": "DonorMaskFileName",
            },
            sys_cols={"": "OutputProbeMaskFileName", "p": "OutputProbeMaskFileName", "d": "OutputDonorMaskFileName"},
        )

    def scored_column(self, side: str) -> str:
        return "Scored" if not side else ("ProbeScored" if side == "p" else "DonorScored")

    def reason_column(self, side: str) -> str:
        return "NotScoredReason" if not side else ("ProbeNotScoredReason" if side == "p" else "DonorNotScoredReason")


@dataclass(frozen=True)
class _RunSetup:
    """What every run of one :func:`score_masks` call shares (one run per ``-qm`` query, else one)."""

    layout: _Layout
    opts: MaskOptions
    ref_root: Path | None
    sys_root: Path | None
    engine: Mapping[str, Any]  # the engine's keywords: kernel, eks, dks, ntdks, sbin, max_pixels
    bookkeeping: Mapping[str, float | int | str | None]  # TRR and the trial counts, before any removal
    queries: tuple[str, ...]  # -q
    query_partition: str | None  # -qp
    rejected: Mapping[str, str]  # absolute system mask path -> the rule's finding
    failures: frozenset[str]  # not-scored codes that fail the item
    pixels: Mapping[str, int] = field(default_factory=dict)  # "p:"/"d:" + probe/donor ID -> index width x height


#: The index column naming each side's image ("": a manipulation task's one side).
_ID = {"": "ProbeFileID", "p": "ProbeFileID", "d": "DonorFileID"}


def _index_pixels(idx_df: pd.DataFrame) -> dict[str, int]:
    """Width x height of every probe (``p:<ID>``) and donor (``d:<ID>``) the index sizes (a dask task's work is
    counted in pixels, :meth:`~pytest_omfc.work.executors.Executor.map`); a size that is not a number: none."""
    out: dict[str, int] = {}
    for side, who in (("p", "Probe"), ("d", "Donor")):
        cols = [f"{who}FileID", f"{who}Width", f"{who}Height"]
        if not all(c in idx_df.columns for c in cols):
            continue
        w, h = (pd.to_numeric(idx_df[c], errors="coerce").to_numpy(dtype=np.float64) for c in cols[1:])
        px = np.nan_to_num(np.clip(w * h, 0, 2**40), nan=0).astype(np.int64)
        out.update(zip((f"{side}:{i}" for i in idx_df[cols[0]].astype(str).str.strip()), px.tolist(), strict=True))
    return out


def _resolved_options(options: MaskOptions | None, overrides: Mapping[str, Any], task: str) -> MaskOptions:
    """The options of a call: ``options`` with the keyword ``overrides``, checked (:class:`SetupError`)."""
    opts = options or MaskOptions()
    if overrides:
        unknown = sorted(set(overrides) - set(MaskOptions.__dataclass_fields__))
        if unknown:
            raise SetupError(f"unknown mask scoring option(s) {unknown}")
        opts = MaskOptions(**{**opts.__dict__, **overrides})
    if opts.sbin == -10:  # MediScore's "off" value
        opts = MaskOptions(**{**opts.__dict__, "sbin": None})
    _check_options(opts, task)
    return opts


def _merged(
    ref_df: pd.DataFrame, sys_df: pd.DataFrame, idx_df: pd.DataFrame, layout: _Layout, opts: MaskOptions
) -> pd.DataFrame:
    """docs/scoring/masks.md#trial-selection step 1: the reference left-joined with the system output (every
    reference trial is scored), restricted to the index with ``index_filter``; an empty ConfidenceScore is
    the minimum system score."""
    key, sides = list(layout.key), layout.sides
    _require(ref_df, [*key, "IsTarget", *(layout.ref_cols[s] for s in sides)], "reference")
    _require(sys_df, [*key, *(layout.sys_cols[s] for s in sides)], "system output", SubmissionError)
    _require(idx_df, key, "index")
    dup = sys_df.duplicated(subset=key, keep=False)
    if dup.any():
        shown = sys_df.loc[dup, key].drop_duplicates().head(3).astype(str).agg("/".join, axis=1).tolist()
        raise SubmissionError(f"system output lists {int(dup.sum())} rows for repeated trials, e.g. {shown}")
    sys_cols_all = [c for c in sys_df.columns if c not in ref_df.columns or c in key]
    merged = ref_df.merge(sys_df[sys_cols_all], how="left", on=key, sort=False)
    merged = merged.astype(object).where(merged.notna(), "")
    if opts.index_filter:
        ids = idx_df[key].drop_duplicates()
        merged = merged.merge(ids, how="inner", on=key, sort=False)
    if "ConfidenceScore" in merged.columns:
        # read as the rules read them (SCORE-01); a trial without a score takes the lowest score given
        scores = arrays.parse_floats(merged["ConfidenceScore"].astype(str).to_numpy(dtype=object))
        given = (
            arrays.parse_floats(sys_df["ConfidenceScore"].astype(str).to_numpy(dtype=object))
            if "ConfidenceScore" in sys_df.columns
            else np.empty(0)
        )
        given = given[~np.isnan(given)]
        merged["ConfidenceScore"] = np.where(np.isnan(scores), float(given.min()) if given.size else math.nan, scores)
    return merged


def _opt_out(
    merged: pd.DataFrame, layout: _Layout, opts: MaskOptions
) -> tuple[pd.DataFrame, dict[str, pd.Series], dict[str, float | int | str | None]]:
    """docs/scoring/masks.md#trial-selection steps 2-3: the bookkeeping of every trial (TRR, totals), then the
    targets scored (opted-out rows removed with ``optout``), and per side the rows whose FailedValidation
    status blanks the system mask (a white mask, the name blanked in the per-image table)."""
    sides = layout.sides
    if "IsOptOut" in merged.columns:
        opted = merged["IsOptOut"].isin(_OPTOUT_ISOPTOUT)
    elif "ProbeStatus" in merged.columns:
        opted = merged["ProbeStatus"].isin(_OPTOUT_STATUS)
        if layout.splice and "DonorStatus" in merged.columns:
            opted &= merged["DonorStatus"].isin(_OPTOUT_STATUS)
    else:
        opted = pd.Series(False, index=merged.index)
    total = len(merged)
    opt_in = int((~opted).sum())
    bookkeeping: dict[str, float | int | str | None] = {
        "TRR": opt_in / total if total else None,
        "totalTrials": total,
        "totalOptIn": opt_in,
        "totalOptOut": total - opt_in,
        "optOutScoring": "Y" if opts.optout else "N",
    }
    failed = {s: pd.Series(False, index=merged.index) for s in sides}
    for s in sides:
        if "IsOptOut" in merged.columns:
            failed[s] |= merged["IsOptOut"] == "FailedValidation"
        status = "DonorStatus" if s == "d" else "ProbeStatus"
        if status in merged.columns:
            failed[s] |= merged[status] == "FailedValidation"
    kept = merged[~opted] if opts.optout else merged
    targets = kept[kept["IsTarget"] == "Y"].reset_index(drop=True)
    failed = {s: f.loc[kept.index[kept["IsTarget"] == "Y"]].reset_index(drop=True) for s, f in failed.items()}
    for s, f in failed.items():
        if layout.sys_cols[s] in targets.columns and f.any():
            targets.loc[f.to_numpy(), layout.sys_cols[s]] = ""
    return targets, failed, bookkeeping


def _journal(
    reference: str | Path | pd.DataFrame,
    journal_reference: str | Path | None,
    trials: pd.DataFrame,
    layout: _Layout,
) -> Journal | None:
    """docs/scoring/masks.md#trial-selection step 4: the journal tables beside the reference, restricted to
    the reference's targets (``trials``), or None."""
    source = journal_reference if journal_reference is not None else None
    if source is None and not isinstance(reference, pd.DataFrame):
        source = reference
    journal = load_journal(source, splice=layout.splice) if source is not None else None
    if journal is not None:
        journal = journal.restrict(trials, list(layout.key))
    if layout.bitplane and journal is None:
        raise SetupError("--jpeg2000 bit-plane references need the journal tables beside the reference")
    return journal


def _one_query_kind(query: object, query_manipulation: object, query_partition: object) -> None:
    """At most one of ``-q``, ``-qm`` and ``-qp`` (:class:`QueryError` naming them)."""
    given = [k for k, v in (("query", query), ("query_manipulation", query_manipulation),
                            ("query_partition", query_partition)) if v]  # fmt: skip
    if (why := exclusive_queries(given)) is not None:
        raise QueryError(why)


def _engine_keywords(layout: _Layout, opts: MaskOptions) -> dict[str, Any]:
    """The one-mask engine's keywords; the no-score dilation of the distractions (``ntdks``) is 0 for splice,
    else the option, else 15 (MediScore) or 11 (the plan's convention)."""
    ntdks = opts.ntdks if opts.ntdks is not None else (11 if opts.convention == "plan" else 15)
    return {
        "kernel": opts.kernel,
        "eks": opts.eks,
        "dks": opts.dks,
        "ntdks": 0 if layout.splice else ntdks,
        "sbin": opts.sbin,
        "max_pixels": opts.max_pixels,
    }


def _qm_selection(
    targets: pd.DataFrame, journal: Journal | None, qm_query: str | None, key: Sequence[str]
) -> tuple[Journal | None, np.ndarray]:
    """The journal and the targets (a row mask) of one run: all, or those a ``-qm`` query selects."""
    if qm_query is None:
        return journal, np.ones(len(targets), dtype=bool)
    if journal is None:
        raise SetupError("query_manipulation (-qm) needs the journal tables beside the reference")
    run_journal, chosen = journal.select(targets, qm_query, key)
    if not len(targets):
        return run_journal, np.zeros(0, dtype=bool)
    keys = targets[list(key)].astype(str).apply(tuple, axis=1)
    return run_journal, keys.isin(chosen).to_numpy(dtype=bool)


def score_masks(
    index: str | Path | pd.DataFrame,
    reference: str | Path | pd.DataFrame,
    system: str | Path | pd.DataFrame,
    *,
    task: MaskTask = "manipulation",
    options: MaskOptions | None = None,
    progress: Progress | None = None,
    rejected: Mapping[str, str] | None = None,
    **overrides: Any,
) -> MaskReport:
    """Score localization masks as MediScore's MaskScorer (docs/scoring/masks.md).

    ``index``, ``reference``, ``system``: pipe-separated CSV paths or string DataFrames.  Options: a
    :class:`MaskOptions` and/or its fields as keywords (``ref_dir=...``, ``query="..."``, ``sbin=128``,
    ``optout=True``, ``jobs=4``, ``dask="local"``...), among them where the mask files are, which trials
    are scored and where the work runs.  Results are identical and in the same order on every executor.

    ``rejected``: absolute system mask path -> the finding of a rule that fails the file (``"MASK-04:
    ..."``); such a side is not scored with that reason (code ``rule``), so rules and scorer agree.

    ``progress(done, total)``: called as the masks of each run (each ``-qm`` query, or the one run)
    are scored, ``total`` being that run's distinct mask sides; the pytest layer draws a bar with it.
    """
    opts = _resolved_options(options, overrides, task)
    check_dask(opts.dask)
    _one_query_kind(opts.query, opts.query_manipulation, opts.query_partition)
    ref_df = _frame(reference, "reference")
    sys_df = _frame(system, "system output", SubmissionError)
    idx_df = _frame(index, "index")
    sys_dir, ref_dir = opts.sys_dir, opts.ref_dir
    if sys_dir is None and not isinstance(system, pd.DataFrame):
        sys_dir = Path(system).parent
    bitplane, mode_note = (False, "") if task == "splice" else reference_mode(ref_df, opts.jpeg2000)
    layout = _Layout.of(task, bitplane)
    merged = _merged(ref_df, sys_df, idx_df, layout, opts)
    targets, failed, bookkeeping = _opt_out(merged, layout, opts)
    journal = _journal(reference, opts.journal_reference, merged[merged["IsTarget"] == "Y"], layout)
    setup = _RunSetup(
        layout=layout,
        opts=opts,
        ref_root=Path(ref_dir) if ref_dir is not None else None,
        sys_root=Path(sys_dir) if sys_dir is not None else None,
        engine=_engine_keywords(layout, opts),
        bookkeeping=bookkeeping,
        queries=tuple(_query_list(opts.query)),
        query_partition=opts.query_partition,
        rejected=rejected or {},
        failures=FAILURES if opts.jpeg2000 == "auto" else FAILURES - {"other-column"},
        pixels=_index_pixels(idx_df),
    )
    runs: list[MaskRun] = []
    with Executor(jobs=opts.jobs, dask=opts.dask, connect_timeout=opts.dask_timeout) as executor:  # one per call
        qm_runs: list[str | None] = [*_query_list(opts.query_manipulation)] or [None]
        for qm_query in qm_runs:
            run_journal, pick = _qm_selection(targets, journal, qm_query, layout.key)
            trials = targets[pick].reset_index(drop=True)
            run_failed = {s: f[pick].reset_index(drop=True) for s, f in failed.items()}
            runs.append(_score_run(setup, trials, run_failed, run_journal, qm_query, executor, progress))
    return MaskReport(
        task=task,
        options=opts,
        runs=tuple(runs),
        notes=(f"reference masks: {mode_note}",) if mode_note else (),
        reference_column=" and ".join(layout.ref_cols[s] for s in layout.sides),
    )


def _trial_label(row: Mapping[str, Any], key: Sequence[str]) -> str:
    return "/".join(str(row[k]) for k in key)


def _other_column(layout: _Layout) -> str | None:
    """The manipulation reference column not scored (PNG or bit planes), or None for splice."""
    return None if layout.splice else {_PNG_COLUMN: _BP_COLUMN, _BP_COLUMN: _PNG_COLUMN}.get(layout.ref_cols[""])


def _jobs(
    setup: _RunSetup, trials: pd.DataFrame, failed: Mapping[str, pd.Series], journal: Journal | None
) -> tuple[list[_Job], list[bool]]:
    """One engine job per trial and side, in per-image order, and whether each side's system mask is missing."""
    layout, opts = setup.layout, setup.opts
    colours = journal.colours() if journal is not None and not layout.splice and not layout.bitplane else {}
    planes = journal.bitplanes() if journal is not None and layout.bitplane else {}
    other_col = _other_column(layout)
    jobs: list[_Job] = []
    missing: list[bool] = []
    for i, row in enumerate(trials.to_dict("records")):
        for s in layout.sides:
            ref_name = str(row[layout.ref_cols[s]]).strip()
            sys_name = "" if failed[s].iloc[i] else str(row.get(layout.sys_cols[s], "")).strip()
            error: str | None = None
            code = "path"
            ref_path = sys_path = alternative = None
            if ref_name:
                ref_path, error = _path(setup.ref_root, ref_name, "reference mask")
            elif other_col is not None and str(row.get(other_col, "")).strip():
                fix = "no" if other_col == _PNG_COLUMN else "yes"
                alternative = (
                    f"{layout.ref_cols[s]} is empty while {other_col} names {str(row[other_col]).strip()!r} "
                    f"(use --omfc-jpeg2000 {fix})"
                )
            if sys_name and error is None:
                sys_path, error = _path(setup.sys_root, sys_name, "system mask")
                if sys_path is not None and os.path.abspath(sys_path) in setup.rejected:
                    error, code = setup.rejected[os.path.abspath(sys_path)], "rule"
            px_col = "DonorOptOutPixelValue" if s == "d" else "ProbeOptOutPixelValue"
            nspx = str(row.get(px_col, "")).strip() if opts.pppns else str(opts.nspx)
            selected: tuple[str, ...] | None = None
            listed: tuple[str, ...] = ()
            evaluated: tuple[str, ...] = ()
            mode: SideMode
            if layout.splice:
                mode = "splice_probe" if s == "p" else "splice_donor"
            elif layout.bitplane:
                mode = "bitplane"
                listed, evaluated = planes.get(str(row["ProbeFileID"]), ((), ()))
            else:
                mode = "manipulation"
                selected = colours.get(str(row["ProbeFileID"]), ()) if journal is not None else None
            jobs.append(
                _Job(
                    mode,
                    ref_path,
                    sys_path,
                    selected,
                    listed,
                    evaluated,
                    nspx,
                    error=error,
                    error_code=code,
                    alternative=alternative,
                    pixels=setup.pixels.get(f"{s or 'p'}:{str(row.get(_ID[s], '')).strip()}", 0),
                    **setup.engine,
                )  # fmt: skip
            )
            missing.append(sys_path is None and error is None)
    return jobs, missing


@dataclass
class _Sides:
    """The per-image table's metric columns of one run, built side by side from the engine's outcomes."""

    n: int
    columns: dict[str, list[Any]] = field(default_factory=dict)
    not_scored: list[tuple[str, str]] = field(default_factory=list)
    polarity: list[tuple[str, float, float]] = field(default_factory=list)
    high_planes: list[tuple[str, tuple[int, ...]]] = field(default_factory=list)
    codes: dict[str, list[str | None]] = field(default_factory=dict)
    scores: dict[str, list[MaskScore | None]] = field(default_factory=dict)  # per side, None: not scored
    missing: dict[str, list[bool]] = field(default_factory=dict)  # per side: no system mask

    def put(self, col: str, i: int, value: Any) -> None:
        self.columns.setdefault(col, [None] * self.n)[i] = value


def _side_row(score: MaskScore | None, side: str, layout: _Layout, opts: MaskOptions, reason: str) -> dict[str, Any]:
    """One side's per-image columns: the engine's, F1 and IoU, the Actual ones with ``sbin``, the reason."""
    scored = score is not None and score.scored
    row = (score or MaskScore(scored=False)).row(side)
    row[layout.scored_column(side)] = "Y" if scored else "N"
    opt = score.optimum if scored and score is not None else None
    for name in added_metrics():
        row[f"{side}Optimum{name}"] = _num(opt[name]) if opt else None
    if opts.sbin is not None:
        act = score.actual if scored and score is not None else None
        row[f"{side}ActualThreshold"] = opts.sbin if scored else None
        for name in added_metrics():
            row[f"{side}Actual{name}"] = _num(act[name]) if act else None
    row[layout.reason_column(side)] = "" if scored else reason
    return row


def _per_side(
    setup: _RunSetup, records: list[dict[str, Any]], outcomes: list[JobOutcome], missing: list[bool]
) -> _Sides:
    """The per-image metric columns of every side, and what the run reports beside them: the sides not
    scored for a failure, the polarity hints and the high bit planes."""
    layout = setup.layout
    out = _Sides(len(records))
    out.codes = {s: [None] * out.n for s in layout.sides}
    out.scores = {s: [] for s in layout.sides}
    out.missing = {s: [] for s in layout.sides}
    for j, (score, why, reason) in enumerate(outcomes):
        i, k = divmod(j, len(layout.sides))
        side = layout.sides[k]
        scored = score is not None and score.scored
        out.scores[side].append(score if scored else None)
        out.missing[side].append(missing[j])
        out.codes[side][i] = why
        label = _trial_label(records[i], layout.key) + (f" ({'probe' if side == 'p' else 'donor'})" if side else "")
        if scored and score is not None and score.table is not None and score.optimum is not None:
            black, worst = score.table.black_fraction(), float(np.nanmin(score.table.mcc(), initial=np.inf))
            inverted = worst <= INVERTED_MCC and -worst > (_num(score.optimum.mcc) or 0.0)
            if inverted or black > MOSTLY_BLACK:
                out.polarity.append((label, black, -worst if inverted else math.nan))
        if scored and score is not None and score.high_planes:
            out.high_planes.append((label, score.high_planes))
        if why in setup.failures:
            out.not_scored.append((label, reason or ""))
        for col, value in _side_row(score, side, layout, setup.opts, reason or "").items():
            out.put(col, i, value)
    return out


def _side_aggregates(setup: _RunSetup, sides: _Sides) -> dict[str, float | int | None]:
    """The aggregates over a side's masks that are not means of per-image columns (the AUC averages, the
    Maximum threshold), and the per-image Maximum columns that come from that threshold; with the plan's
    convention a missing system mask scores MCC -1 (MASK-01)."""
    opts = setup.opts
    extra: dict[str, float | int | None] = {}
    for side in setup.layout.sides:
        tables = [sc.table if sc is not None else None for sc in sides.scores[side]]
        extra[f"{side}PixelAverageAUC"] = _num(pixel_average_auc(tables))
        extra[f"{side}MaskAverageAUC"] = _num(mask_average_auc(tables))
        extra[f"{side}MaximumThreshold"] = None
        extra[f"{side}ActualThreshold"] = opts.sbin
        if opts.sbin is not None:
            mx = maximum(tables)
            extra[f"{side}MaximumThreshold"] = None if math.isnan(mx.threshold) else int(mx.threshold)
            for i, m in enumerate(mx.per_mask):
                vals: ThresholdMetrics | None = m
                for name in (m.name for m in PER_THRESHOLD):
                    sides.put(f"{side}Maximum{name}", i, _num(vals[name]) if vals else None)
                for name in ("TP", "TN", "FP", "FN"):
                    sides.put(f"{side}MaximumPixel{name}", i, getattr(vals, name.lower()) if vals else None)
        if opts.convention == "plan":  # MASK-01: a missing mask scores MCC -1
            for i, (sc, miss) in enumerate(zip(sides.scores[side], sides.missing[side], strict=True)):
                if sc is not None and miss:
                    for prefix in ("Optimum", "Maximum", "Actual"):
                        col = f"{side}{prefix}MCC"
                        if col in sides.columns and sides.columns[col][i] is not None:
                            sides.columns[col][i] = -1.0
    for side in setup.layout.sides:  # MediScore's per-image table always has the Maximum/Actual columns
        for prefix in ("Maximum", "Actual"):
            for name in (*mediscore_metrics(), "PixelTP", "PixelTN", "PixelFP", "PixelFN"):
                sides.columns.setdefault(f"{side}{prefix}{name}", [None] * sides.n)
    return extra


def _scoreable(setup: _RunSetup, perimage: pd.DataFrame) -> dict[str, int]:
    """MediScore's scoreable-trial counts of the run (splice: per side, out of every trial)."""
    if not setup.layout.splice:
        return {"ScoreableTrials": int((perimage.get("Scored", pd.Series(dtype=str)) == "Y").sum())}
    total = int(setup.bookkeeping["totalTrials"] or 0)
    return {
        f"Scoreable{what}Trials": total - int((perimage.get(f"{what}Scored", pd.Series(dtype=str)) == "N").sum())
        for what in ("Probe", "Donor")
    }


def _journal_out(setup: _RunSetup, journal: Journal | None, perimage: pd.DataFrame) -> pd.DataFrame | None:
    """The journal's results: rows of sides not scoreable become 'N' (docs/scoring/masks.md#ground-truth)."""
    if journal is None:
        return None
    for side in setup.layout.sides:
        col = setup.layout.scored_column(side)
        ev = journal.evaluated[0] if side in ("", "p") else journal.evaluated[-1]
        if col in perimage.columns:
            journal = journal.mark_unscored(perimage.loc[perimage[col] == "N", list(setup.layout.key)], ev)
    return journal.frame


def _selections(
    setup: _RunSetup, trials: pd.DataFrame, perimage: pd.DataFrame, qm_query: str | None
) -> list[tuple[str | None, QueryKind, pd.DataFrame]]:
    """docs/scoring/masks.md#queries: the per-image rows of each ``-q`` query or ``-qp`` partition (an empty
    partition is skipped, as MediScore does), else the whole table."""
    n = len(trials)
    if not (setup.queries or setup.query_partition):
        return [(None, "qm" if qm_query is not None else "all", perimage)]
    qframe = typed_frame(trials.reset_index(drop=True)) if n else trials
    kinds: list[tuple[str, QueryKind]] = (
        [(q, "q") for q in setup.queries]
        if setup.queries
        else [(q, "qp") for q in partition_query(setup.query_partition or "")]
    )
    out: list[tuple[str | None, QueryKind, pd.DataFrame]] = []
    for q, kind in kinds:
        if n == 0:
            chosen = perimage.iloc[0:0]
        else:
            hit = select_query(qframe.assign(_row=np.arange(n)), q, kind, ["_row"])
            chosen = perimage.iloc[hit["_row"].to_numpy()].drop_duplicates(subset=list(setup.layout.key))
        if kind == "qp" and chosen.empty:
            continue
        out.append((q, kind, chosen))
    return out


#: the aggregate columns that are blank without ``sbin`` (MediScore prints no Maximum or Actual then)
_SBIN_COLUMNS = tuple(f"{p}{m.name}" for p in ("Maximum", "Actual") for m in PER_THRESHOLD)


def _result(
    setup: _RunSetup, rows: pd.DataFrame, extra: Mapping[str, Any], scoreable: Mapping[str, int]
) -> tuple[dict[str, float | int | str | None], dict[str, float | None]]:
    """The aggregate and the standard deviations of one selection of per-image rows."""
    layout = setup.layout
    if layout.splice:
        used = rows[(rows.get("ProbeScored") == "Y") | (rows.get("DonorScored") == "Y")] if len(rows) else rows
        used = used.copy()
        for side, col in (("p", "ProbeScored"), ("d", "DonorScored")):
            side_cols = [c for c in used.columns if c.startswith(side) and c[1:] in _MEAN_COLUMNS]
            used.loc[used[col] != "Y", side_cols] = np.nan
    else:
        used = rows[rows["Scored"] == "Y"] if len(rows) else rows
    agg: dict[str, float | int | str | None] = {}
    std: dict[str, float | None] = {}
    for side in layout.sides:
        a, sd = _means(used, side)
        if setup.opts.sbin is None:
            for base in _SBIN_COLUMNS:
                a.setdefault(side + base, None)
                sd.setdefault(side + base, None)
        agg.update(a)
        std.update(sd)
    for side in layout.sides:
        for name in ("PixelAverageAUC", "MaskAverageAUC", "MaximumThreshold", "ActualThreshold"):
            agg[side + name] = extra[side + name]
    agg.update(setup.bookkeeping)
    agg.update(scoreable)
    return agg, std


def _score_run(
    setup: _RunSetup,
    trials: pd.DataFrame,
    failed: Mapping[str, pd.Series],
    journal: Journal | None,
    qm_query: str | None,
    executor: Executor,
    progress: Progress | None = None,
) -> MaskRun:
    """Score the selected trials of one run, then aggregate per query."""
    jobs, missing = _jobs(setup, trials, failed, journal)
    outcomes = _run_jobs(jobs, executor, progress)
    sides = _per_side(setup, trials.to_dict("records"), outcomes, missing)
    extra = _side_aggregates(setup, sides)
    n = len(trials)
    metrics = pd.DataFrame(sides.columns, index=range(n)) if n else pd.DataFrame(sides.columns)
    perimage = pd.concat([trials.reset_index(drop=True), metrics], axis=1)
    scoreable = _scoreable(setup, perimage)
    results = []
    for q_text, kind, rows in _selections(setup, trials, perimage, qm_query):
        agg, std = _result(setup, rows, extra, scoreable)
        results.append(MaskResult(q_text if kind != "qm" else qm_query, kind, agg, std, len(rows)))
    describe = dict(NOT_SCORED)
    if (other_col := _other_column(setup.layout)) is not None:
        describe["other-column"] = (
            f"have an empty {setup.layout.ref_cols['']} while {other_col} names a mask "
            f"(use --omfc-jpeg2000 {'no' if other_col == _PNG_COLUMN else 'yes'})"
        )
    return MaskRun(
        qm_query,
        perimage,
        _journal_out(setup, journal, perimage),
        tuple(results),
        tuple(sides.not_scored),
        tuple(tuple(sides.codes[s]) for s in setup.layout.sides),
        describe,
        tuple(sides.polarity),
        tuple(sides.high_planes),
    )


def default_jobs() -> int:
    """A sensible ``jobs`` value: the CPUs this process may use."""
    return cpu_count()
