"""Video temporal localization scoring (METRICS.md section 4, section 7 point 11).

Pure numpy/pandas, no pytest.  Reproduces MediScore's
``VideoTemporalLocalizationScoring.py`` (checkfiles ``test_1_0``, METRICS.md 6.4) without its
aborts: a reference interval outside the video, segments that are not JSON, a probe listed twice
in the system output or missing from it (MediScore asserts), a query that cannot be evaluated become a reason on that trial or that
query, never an exception for the whole run.

Frame model (METRICS.md 4): continuous coordinates on ``[1, FrameCount]``; ``[a, b]`` has length
``b - a``.  Each probe is scored by a sweep over boundary events: every endpoint of the reference,
system, collar and opt-out (SNS) unions is sorted once, each elementary piece is classified by its
midpoint, and the piece lengths are summed.  Nothing is allocated per frame, so a video of millions
of frames costs what its few intervals cost.

``convention="plan"`` (METRICS.md section 7 point 11 and the issue): frames are counted
inclusively (``[a, b]`` covers frames a..b, i.e. ``[a, b + 1)`` in continuous coordinates, and the
video is ``[1, FrameCount + 1)``), so a one-frame segment ``[a, a]`` counts one frame instead of
being removed; system and opt-out intervals are truncated at the last frame only when
``truncate=True`` is asked (MediScore truncates always: its ``self.truncate = truncate,`` is a
non-empty tuple).  Collars, union rule, status filter and MCC are the same in both conventions.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from .merge import Convention, ScoringError, read_table, select_query, typed_frame

__all__ = [
    "MAX_SEGMENTS",
    "SegmentError",
    "TemporalReport",
    "TemporalResult",
    "TemporalTrial",
    "confusion_counts",
    "interval_union",
    "mcc",
    "parse_segments",
    "score_temporal",
]

#: Default bound on the number of intervals in one segment cell (a cell is refused beyond it).
MAX_SEGMENTS = 100_000
#: Characters allowed per interval in a cell before it is refused unparsed ("[123456789, 123456790], ").
_CHARS_PER_SEGMENT = 64
#: MediScore rounds per-probe MCCs and their mean to 12 decimals (METRICS.md 4, Reporting).
_DECIMALS = 12

_JOIN_KEYS = ["JournalName", "StartNodeID", "EndNodeID"]
_LINE = "_omfc_line"
_EMPTY = np.empty((0, 2), dtype=float)

TrialStatus = Literal["scored", "opted_out", "error"]


class SegmentError(ValueError):
    """A segment cell is not a bounded JSON list of ``[start, end]`` number pairs."""


@dataclass(frozen=True)
class TemporalTrial:
    """One probe of one query: its MCC (rounded as MediScore) and confusion lengths, or why not."""

    probe: str
    status: TrialStatus
    mcc: float | None = None
    tp: float = 0.0
    tn: float = 0.0
    fp: float = 0.0
    fn: float = 0.0
    reason: str | None = None


@dataclass(frozen=True)
class TemporalResult:
    """One query: the per-probe trials and the mean MCC over the scored ones (``scores.csv``)."""

    query: str
    position: int
    kind: Literal["all", "q"]
    trials: tuple[TemporalTrial, ...]
    mcc: float
    error: str | None = None

    @property
    def metrics(self) -> dict[str, float]:
        """MediScore's ``scores.csv`` column."""
        return {"MCC": self.mcc}

    @property
    def scored(self) -> tuple[TemporalTrial, ...]:
        return tuple(t for t in self.trials if t.status == "scored")

    @property
    def failed(self) -> tuple[TemporalTrial, ...]:
        """Trials that could not be scored because of bad input (not the opted-out ones)."""
        return tuple(t for t in self.trials if t.status == "error")


@dataclass(frozen=True)
class TemporalReport:
    """Every query's result, in the order the queries were given."""

    results: tuple[TemporalResult, ...]
    collar: int
    truncate: bool
    convention: Convention
    notes: tuple[str, ...] = field(default_factory=tuple)


# --------------------------------------------------------------------------- intervals


def parse_segments(text: str, *, max_segments: int = MAX_SEGMENTS) -> np.ndarray:
    """Parse ``[[a, b], ...]`` with ``json.loads`` (never ``eval``) into an ``(n, 2)`` float array.

    Bounded before parsing (length of the text) and after (number of pairs), so a hostile cell
    costs at most ``max_segments`` intervals.  An empty cell is an empty list.  Each pair is sorted
    (MediScore sorts each pair before the union, METRICS.md 4).
    """
    s = text.strip()
    if not s:
        return _EMPTY
    limit = max_segments * _CHARS_PER_SEGMENT + 16
    if len(s) > limit:
        raise SegmentError(f"must hold at most {max_segments} intervals (got {len(s)} characters)")
    try:
        obj = json.loads(s)
    except (ValueError, RecursionError):
        raise SegmentError("must be a JSON list of [start, end] pairs (got text that is not JSON)") from None
    if not isinstance(obj, list):
        raise SegmentError(f"must be a JSON list of [start, end] pairs (got a JSON {type(obj).__name__})")
    if len(obj) > max_segments:
        raise SegmentError(f"must hold at most {max_segments} intervals (got {len(obj)})")
    if not obj:
        return _EMPTY
    num = (int, float)  # exact types: a JSON true/false is a bool and refused
    for pair in obj:
        if not (type(pair) is list and len(pair) == 2 and type(pair[0]) in num and type(pair[1]) in num):
            raise SegmentError(f"must be a list of [start, end] number pairs (got element {_brief(pair)})")
    try:
        arr = np.array(obj, dtype=float)
    except OverflowError:
        raise SegmentError("must hold finite numbers (got an integer too large for a float)") from None
    if not np.isfinite(arr).all():
        raise SegmentError("must hold finite numbers (got NaN or Infinity)")
    return np.sort(arr, axis=1)


def interval_union(intervals: np.ndarray) -> np.ndarray:
    """Union of intervals as MediScore's ``compute_intervals_union`` (METRICS.md 4).

    Sort each pair, sort by start, merge while ``start <= current end`` (so touching intervals
    merge).  Vectorised: an interval opens a new group when its start exceeds the running maximum
    of the previous ends.  Zero-length intervals are kept here (their endpoints still get collars
    in MediScore) and dropped by :func:`confusion_counts`.
    """
    if intervals.size == 0:
        return _EMPTY
    iv = np.sort(np.asarray(intervals, dtype=float).reshape(-1, 2), axis=1)
    iv = iv[np.argsort(iv[:, 0], kind="stable")]
    prev_end = np.maximum.accumulate(iv[:, 1])
    new = np.empty(len(iv), dtype=bool)
    new[0] = True
    new[1:] = iv[1:, 0] > prev_end[:-1]
    starts = iv[new, 0]
    ends = np.maximum.reduceat(iv[:, 1], np.flatnonzero(new))
    return np.column_stack([starts, ends])


def _truncate(union: np.ndarray, last: float) -> np.ndarray:
    """MediScore's ``truncate``: drop intervals starting at or after ``last``, cut the ends at it."""
    if union.size == 0:
        return union
    kept = union[union[:, 0] < last]
    return np.column_stack([kept[:, 0], np.minimum(kept[:, 1], last)])


def _collars(ref_union: np.ndarray, collar: float, lo: float, hi: float) -> np.ndarray:
    """``[x - c, x + c]`` clipped to ``[lo, hi]`` around every reference endpoint (MediScore ``compute_collars``)."""
    if collar <= 0 or ref_union.size == 0:
        return _EMPTY
    x = np.sort(ref_union.ravel())
    return np.clip(np.column_stack([x - collar, x + collar]), lo, hi)


def _inside(mid: np.ndarray, union: np.ndarray) -> np.ndarray:
    """Which midpoints fall inside a sorted disjoint union (binary search, no per-frame array)."""
    if union.size == 0:
        return np.zeros(mid.shape, dtype=bool)
    i = np.searchsorted(union[:, 0], mid, side="right") - 1
    ok = i >= 0
    out = np.zeros(mid.shape, dtype=bool)
    out[ok] = mid[ok] < union[i[ok], 1]
    return out


def _nonzero(union: np.ndarray) -> np.ndarray:
    return union[union[:, 0] != union[:, 1]] if union.size else union


def confusion_counts(
    ref: np.ndarray, sys: np.ndarray, lo: float, hi: float, *,
    collars: np.ndarray = _EMPTY, sns: np.ndarray = _EMPTY,
) -> tuple[float, float, float, float]:
    """TP, TN, FP, FN lengths on ``[lo, hi]`` (METRICS.md 4, Confusion).

    Cut the range at every endpoint, classify each piece by its midpoint (``ref + 2 sys``), ignore
    pieces inside a collar or an SNS interval, sum the lengths.  Inputs are unions; zero-length
    intervals are removed first, as MediScore's ``compute_confusion_map`` does.
    """
    return _counts(interval_union(ref), interval_union(sys), interval_union(collars), interval_union(sns), lo, hi)


def _counts(ref: np.ndarray, sys: np.ndarray, collars: np.ndarray, sns: np.ndarray,
            lo: float, hi: float) -> tuple[float, float, float, float]:
    """:func:`confusion_counts` on inputs that are already unions (sorted, disjoint)."""
    ref, sys, collars, sns = (_nonzero(a) for a in (ref, sys, collars, sns))
    cuts = np.unique(np.concatenate([ref.ravel(), sys.ravel(), collars.ravel(), sns.ravel(), [lo, hi]]))
    if cuts.size < 2:
        return 0.0, 0.0, 0.0, 0.0
    length = np.diff(cuts)
    mid = (cuts[:-1] + cuts[1:]) / 2.0
    code = _inside(mid, ref).astype(np.int8) + 2 * _inside(mid, sys).astype(np.int8)
    scored = ~(_inside(mid, collars) | _inside(mid, sns))
    sums = np.bincount(code[scored], weights=length[scored], minlength=4)
    tn, fn, fp, tp = (float(v) for v in sums)
    return tp, tn, fp, fn


def mcc(tp: float, tn: float, fp: float, fn: float) -> float:
    """Matthews correlation; 0 when the denominator is 0 (empty reference or output, METRICS.md 4)."""
    den = math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    return (tp * tn - fp * fn) / den if den != 0 else 0.0


# --------------------------------------------------------------------------- tables


def _frame(obj: str | Path | pd.DataFrame, what: str) -> tuple[pd.DataFrame, str]:
    """A string table with its source name (for ``file:line`` in reasons) and a line column."""
    if isinstance(obj, pd.DataFrame):
        df = obj.astype(object).where(obj.notna(), "").astype(str).reset_index(drop=True)
        name = what
    else:
        df = read_table(obj, what)
        name = Path(obj).name
    df[_LINE] = np.arange(2, len(df) + 2)
    return df, name


def _require(df: pd.DataFrame, columns: Sequence[str], what: str) -> None:
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise ScoringError(f"{what} lacks column(s) {missing}; it has {[c for c in df.columns if c != _LINE]}")


def _brief(value: object, width: int = 40) -> str:
    text = repr(value) if not isinstance(value, str) else value
    text = text.encode("unicode_escape").decode("ascii")
    return text if len(text) <= width else f"{text[:width - 3]}..."


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _iv(a: np.ndarray) -> str:
    return f"[{_fmt(a[0])}, {_fmt(a[1])}]"


@dataclass
class _Probe:
    """What one probe needs from the system output and the index, parsed once for all queries."""

    frame_count: float | None
    sys: np.ndarray = field(default_factory=lambda: _EMPTY)
    sns: np.ndarray = field(default_factory=lambda: _EMPTY)
    processed: bool = True
    reason: str | None = None
    where: str = ""  # "<system output>:<line>" of its row, for reasons about its segments


def score_temporal(
    index: str | Path | pd.DataFrame,
    reference: str | Path | pd.DataFrame | None,
    system: str | Path | pd.DataFrame,
    *,
    journal_join: str | Path | pd.DataFrame,
    journal_mask: str | Path | pd.DataFrame,
    query: str | Sequence[str] = ("*",),
    collar: int = 0,
    video_optout: bool = True,
    optout_filter: bool = True,
    truncate: bool | None = None,
    convention: Convention = "mediscore",
    max_segments: int = MAX_SEGMENTS,
) -> TemporalReport:
    """Score video temporal localization as MediScore's VTL scorer (METRICS.md section 4).

    Trials: ``merge(journal_join, journal_mask, on=[JournalName, StartNodeID, EndNodeID])`` joined
    with the index on ProbeFileID; ``reference`` is accepted but unused, as in MediScore (IsTarget is
    ignored).  Each query (``"*"`` = all) selects probes and the operations whose ``VideoFrame``
    intervals form the reference; un-selected operations count as negatives.  ``collar`` is
    MediScore's ``-c``; ``video_optout=False`` is ``--no_video_opt_out``; ``optout_filter=False`` is
    ``--no_opt_out`` (score every status, not only ``Processed``); ``truncate=None`` means the
    convention's default (MediScore: always, see the module docstring; plan: never).

    Raises :class:`ScoringError` only when the tables themselves are unusable (file missing,
    column missing, nothing to join); everything per trial or per query is a reason in the report.
    """
    if convention not in ("mediscore", "plan"):
        raise ScoringError(f"unknown convention {convention!r}; use 'mediscore' or 'plan'")
    if isinstance(collar, bool) or not isinstance(collar, (int, np.integer)) or collar < 0:
        raise ScoringError(f"collar must be an integer >= 0 (got {collar!r})")
    if isinstance(max_segments, bool) or not isinstance(max_segments, int) or max_segments < 1:
        raise ScoringError(f"max_segments must be a positive integer (got {max_segments!r})")
    do_truncate = (convention == "mediscore") if truncate is None else bool(truncate)
    queries = [query] if isinstance(query, str) else list(query)
    if not queries:
        raise ScoringError("no query given; use '*' to score every probe")

    idx, idx_name = _frame(index, "index")
    sys_df, sys_name = _frame(system, "system output")
    join, _ = _frame(journal_join, "probe-journal join table")
    mask, mask_name = _frame(journal_mask, "journal mask table")
    _require(idx, ["ProbeFileID", "FrameCount"], "index")
    _require(join, ["ProbeFileID", *_JOIN_KEYS], "probe-journal join table")
    _require(mask, [*_JOIN_KEYS, "VideoFrame"], "journal mask table")
    _require(sys_df, ["ProbeFileID", "VideoFrameSegments"], "system output")
    if optout_filter and "ProbeStatus" not in sys_df.columns and "IsOptOut" not in sys_df.columns:
        raise ScoringError("system output lacks column ProbeStatus (needed to keep only Processed probes)")
    if video_optout and "VideoFrameOptOutSegments" not in sys_df.columns:
        raise ScoringError("system output lacks column VideoFrameOptOutSegments (or disable video opt-out)")

    # METRICS.md 4, Trials: the journal join, then the index.
    jm = join.drop(columns=[_LINE]).merge(mask, on=_JOIN_KEYS, sort=False)
    idx_cols = [c for c in idx.columns if c == "ProbeFileID" or c not in jm.columns]
    frame = jm.merge(idx[idx_cols], on="ProbeFileID", sort=False).reset_index(drop=True)
    notes: list[str] = []
    if frame.empty:
        raise ScoringError("no trial: the probe-journal join, journal mask and index share no probe")

    ref_cells = _parse_column(frame["VideoFrame"], max_segments)
    probes = _system_probes(frame, idx, sys_df, sys_name, idx_name, video_optout=video_optout,
                            optout_filter=optout_filter, max_segments=max_segments)
    plan = convention == "plan"

    results: list[TemporalResult] = []
    typed = None
    for pos, q in enumerate(queries):
        kind: Literal["all", "q"] = "all" if q.strip() == "*" else "q"
        if kind == "all":
            rows = np.arange(len(frame))
        else:
            try:
                if typed is None:
                    typed = typed_frame(frame.drop(columns=[_LINE]))
                sel = select_query(frame.assign(_omfc_row=np.arange(len(frame))), q, "q",
                                   key=["_omfc_row"], typed=typed.assign(_omfc_row=np.arange(len(frame))))
                rows = sel["_omfc_row"].to_numpy(dtype=int)
            except ScoringError as exc:
                results.append(TemporalResult(q, pos, kind, (), float("nan"), error=str(exc)))
                continue
        trials = tuple(
            _score_probe(pid, sorted_rows, frame, ref_cells, probes[pid], mask_name,
                         collar=float(collar), truncate=do_truncate, plan=plan)
            for pid, sorted_rows in _by_probe(frame, rows)
        )
        values = [t.mcc for t in trials if t.status == "scored" and t.mcc is not None]
        mean = round(float(np.mean(values)), _DECIMALS) if values else float("nan")
        results.append(TemporalResult(q, pos, kind, trials, mean))
    return TemporalReport(tuple(results), int(collar), do_truncate, convention, tuple(notes))


def _parse_column(col: pd.Series, max_segments: int) -> list[np.ndarray | str]:
    """Parse every distinct cell once: an array, or the reason it is refused."""
    cache: dict[str, np.ndarray | str] = {}
    out: list[np.ndarray | str] = []
    for cell in col.tolist():
        if cell not in cache:
            try:
                cache[cell] = parse_segments(cell, max_segments=max_segments)
            except SegmentError as exc:
                cache[cell] = str(exc)
        out.append(cache[cell])
    return out


def _by_probe(frame: pd.DataFrame, rows: np.ndarray) -> list[tuple[str, np.ndarray]]:
    """Selected rows grouped by probe, probes in first-appearance order (MediScore's ``drop_duplicates``)."""
    if rows.size == 0:
        return []
    pids = frame["ProbeFileID"].to_numpy()[rows]
    codes, uniques = pd.factorize(pids, sort=False)
    order = np.argsort(codes, kind="stable")
    bounds = np.flatnonzero(np.diff(codes[order])) + 1
    return [(str(uniques[codes[g[0]]]), rows[g]) for g in np.split(order, bounds)]


def _system_probes(
    frame: pd.DataFrame, idx: pd.DataFrame, sys_df: pd.DataFrame, sys_name: str, idx_name: str, *,
    video_optout: bool, optout_filter: bool, max_segments: int,
) -> dict[str, _Probe]:
    """FrameCount, status and parsed system/SNS unions of every probe of the trials."""
    wanted = pd.unique(frame["ProbeFileID"])
    first = idx.drop_duplicates("ProbeFileID")
    fc_of = dict(zip(first["ProbeFileID"], zip(first["FrameCount"], first[_LINE])))
    sys_groups = sys_df.groupby("ProbeFileID", sort=False).indices
    status_col = "ProbeStatus" if "ProbeStatus" in sys_df.columns else "IsOptOut"
    keep_status = "Processed" if status_col == "ProbeStatus" else "N"
    status = sys_df[status_col].to_numpy() if status_col in sys_df.columns else None
    sys_lines = sys_df[_LINE].to_numpy()
    columns = ["VideoFrameSegments"] + (["VideoFrameOptOutSegments"] if video_optout else [])
    cells = {col: sys_df[col].to_numpy() for col in columns}
    out: dict[str, _Probe] = {}
    for pid in wanted:
        tag = f"[ProbeFileID={_brief(pid, 60)}]"
        raw_fc, fc_line = fc_of[pid]
        raw_fc = str(raw_fc)
        try:
            fc = float(raw_fc)
        except ValueError:
            fc = float("nan")
        if not math.isfinite(fc) or fc < 1:
            out[pid] = _Probe(None, reason=f"{idx_name}:{fc_line} {tag} FrameCount={_brief(raw_fc)!r}: "
                                          f"FrameCount must be a number >= 1 (got {_brief(raw_fc)!r})")
            continue
        hits = sys_groups.get(pid)
        if hits is None:
            out[pid] = _Probe(fc, reason=f"{sys_name} {tag}: the probe must have a system output row (got none)")
            continue
        if len(hits) > 1:
            lines = ", ".join(str(v) for v in sys_lines[hits[:5]])
            out[pid] = _Probe(fc, reason=f"{sys_name}:{lines} {tag}: the probe must have one system output row "
                                          f"(got {len(hits)})")
            continue
        at = int(hits[0])
        if optout_filter and status is not None and status[at] != keep_status:
            out[pid] = _Probe(fc, processed=False,
                              reason=f"opted out ({_brief(status[at])!r} is not {keep_status})")
            continue
        probe = _Probe(fc, where=f"{sys_name}:{sys_lines[at]}")
        for col in columns:
            cell = str(cells[col][at])
            try:
                arr = interval_union(parse_segments(cell, max_segments=max_segments))
            except SegmentError as exc:
                probe.reason = f"{sys_name}:{sys_lines[at]} {tag} {col}={_brief(cell)!r}: {exc}"
                break
            if col == "VideoFrameSegments":
                probe.sys = arr
            else:
                probe.sns = arr
        out[pid] = probe
    return out


def _score_probe(
    pid: str, rows: np.ndarray, frame: pd.DataFrame, ref_cells: list[np.ndarray | str], probe: _Probe,
    mask_name: str, *, collar: float, truncate: bool, plan: bool,
) -> TemporalTrial:
    """One probe of one query: reference union, collars, truncation, range check, sweep, MCC."""
    if not probe.processed:
        return TemporalTrial(pid, "opted_out", reason=probe.reason)
    if probe.reason is not None or probe.frame_count is None:
        return TemporalTrial(pid, "error", reason=probe.reason)
    tag = f"[ProbeFileID={_brief(pid, 60)}]"
    parts: list[np.ndarray] = []
    part_rows: list[int] = []
    for r in rows:
        cell = ref_cells[r]
        if isinstance(cell, str):
            raw = frame.at[int(r), "VideoFrame"]
            return TemporalTrial(pid, "error", reason=f"{mask_name}:{frame.at[int(r), _LINE]} {tag} "
                                                      f"VideoFrame={_brief(raw)!r}: {cell}")
        if cell.size:
            parts.append(cell)
            part_rows += [int(r)] * len(cell)
    ref_raw = np.concatenate(parts) if parts else _EMPTY
    fc = probe.frame_count
    sys, sns = probe.sys, probe.sns
    if plan:
        # Inclusive frames: [a, b] covers a..b, i.e. [a, b + 1) in continuous coordinates.
        ref_raw, sys, sns = (a + np.array([0.0, 1.0]) if a.size else a for a in (ref_raw, sys, sns))
        sys, sns = interval_union(sys), interval_union(sns)
    lo, hi = 1.0, fc + 1.0 if plan else fc
    # A reference interval outside the video fails this trial only (MediScore asserts for all).
    if ref_raw.size:
        bad = (ref_raw[:, 0] < lo) | (ref_raw[:, 1] > hi)
        nz = ref_raw[:, 0] != ref_raw[:, 1]
        out = bad & (nz | plan)
        if out.any():
            at = int(np.flatnonzero(out)[0])
            first = ref_raw[at] - (np.array([0.0, 1.0]) if plan else 0.0)
            return TemporalTrial(pid, "error", reason=(
                f"{mask_name}:{frame.at[part_rows[at], _LINE]} {tag} VideoFrame: reference interval {_iv(first)} of probe {pid} must lie within "
                f"the video [1, {_fmt(fc)}] (got {_iv(first)}); trial not scored"))
    ref = interval_union(ref_raw)
    if truncate:
        sys, sns = _truncate(sys, hi), _truncate(sns, hi)
    for name, arr in (("VideoFrameSegments", sys), ("VideoFrameOptOutSegments", sns)):
        nz = _nonzero(arr)
        bad = (nz[:, 0] < lo) | (nz[:, 1] > hi) if nz.size else np.zeros(0, dtype=bool)
        if bad.any():
            first = nz[np.flatnonzero(bad)[0]] - (np.array([0.0, 1.0]) if plan else 0.0)
            hint = "" if truncate else " (truncation is off)"
            return TemporalTrial(pid, "error", reason=(
                f"{probe.where} {tag} {name}: system interval {_iv(first)} must lie within the video [1, {_fmt(fc)}]"
                f"{hint} (got {_iv(first)}); trial not scored"))
    collars = interval_union(_collars(ref, collar, lo, hi))
    tp, tn, fp, fn = _counts(ref, sys, collars, sns, lo, hi)
    value = round(mcc(tp, tn, fp, fn), _DECIMALS)
    return TemporalTrial(pid, "scored", mcc=value, tp=tp, tn=tn, fp=fp, fn=fn)
