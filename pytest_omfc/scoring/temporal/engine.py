"""Video temporal localization scoring (docs/scoring/temporal.md#definition, section 7 point 11).

Pure numpy/pandas, no pytest.  Reproduces MediScore's
``VideoTemporalLocalizationScoring.py`` (checkfiles ``test_1_0``, docs/scoring/temporal.md#checked-against-mediscore)
without its
aborts: a reference interval outside the video, segments that are not JSON, a probe listed twice
in the system output or missing from it (MediScore asserts), a query that cannot be evaluated become a
reason on that trial or that query, never an exception for the whole run.

Frame model (docs/scoring/temporal.md#definition): continuous coordinates on ``[1, FrameCount]``; ``[a, b]`` has length
``b - a``.  Each probe is scored by a sweep over boundary events: every endpoint of the reference,
system, collar and opt-out (SNS) unions is sorted once, each elementary piece is classified by
whether it lies inside each union, and the piece lengths are summed.  Nothing is allocated per
frame, so a video of millions of frames costs what its few intervals cost; and all probes of a query
are swept together by a few numpy calls (a per-probe numpy call costs more than an ordinary
video's whole sweep), with the numbers of the per-probe :func:`confusion_counts`, bit for bit.

``convention="plan"`` (docs/scoring/conventions.md point 11 and the issue): frames are counted
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
from itertools import chain
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from ...errors import QueryError, ScoringError, SetupError, SubmissionError
from ..merge import Convention, as_frame, require, select_query, typed_frame

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
#: MediScore rounds per-probe MCCs and their mean to 12 decimals (docs/scoring/temporal.md#definition, Reporting).
_DECIMALS = 12
#: Decoded segment pairs converted to floats at a time (bounds the Python lists held while parsing).
_CHUNK_PAIRS = 200_000

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
    (MediScore sorts each pair before the union, docs/scoring/temporal.md#definition).
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
    """Union of intervals as MediScore's ``compute_intervals_union`` (docs/scoring/temporal.md#definition).

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
    ref: np.ndarray,
    sys: np.ndarray,
    lo: float,
    hi: float,
    *,
    collars: np.ndarray = _EMPTY,
    sns: np.ndarray = _EMPTY,
) -> tuple[float, float, float, float]:
    """TP, TN, FP, FN lengths on ``[lo, hi]`` (docs/scoring/temporal.md#definition, Confusion).

    Cut the range at every endpoint, classify each piece by its midpoint (``ref + 2 sys``), ignore
    pieces inside a collar or an SNS interval, sum the lengths.  Inputs are unions; zero-length
    intervals are removed first, as MediScore's ``compute_confusion_map`` does.
    """
    return _counts(interval_union(ref), interval_union(sys), interval_union(collars), interval_union(sns), lo, hi)


def _counts(
    ref: np.ndarray, sys: np.ndarray, collars: np.ndarray, sns: np.ndarray, lo: float, hi: float
) -> tuple[float, float, float, float]:
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
    """Matthews correlation; 0 when the denominator is 0 (empty reference or output,
    docs/scoring/temporal.md#definition)."""
    den = math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    return (tp * tn - fp * fn) / den if den != 0 else 0.0


# --------------------------------------------------------------------------- tables


def _frame(
    obj: str | Path | pd.DataFrame, what: str, error: type[ScoringError] = SetupError
) -> tuple[pd.DataFrame, str]:
    """A string table with its source name (for ``file:line`` in reasons) and a line column."""
    df = as_frame(obj, what, error)
    name = what if isinstance(obj, pd.DataFrame) else Path(obj).name
    df[_LINE] = np.arange(2, len(df) + 2)
    return df, name


def _require(df: pd.DataFrame, columns: Sequence[str], what: str, error: type[ScoringError] = SetupError) -> None:
    require(df, columns, what, error, hidden=(_LINE,))


def _brief(value: object, width: int = 40) -> str:
    text = repr(value) if not isinstance(value, str) else value
    text = text.encode("unicode_escape").decode("ascii")
    return text if len(text) <= width else f"{text[: width - 3]}..."


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _iv(a: np.ndarray) -> str:
    return f"[{_fmt(a[0])}, {_fmt(a[1])}]"


@dataclass
class _Probe:
    """What one probe needs from the system output and the index, prepared once for all queries."""

    frame_count: float | None
    processed: bool = True
    reason: str | None = None  # bad FrameCount, no or two system rows, segments that do not parse
    range_error: str | None = (
        None  # a system or opt-out interval outside the video: reported after the reference checks
    )
    where: str = ""  # "<system output>:<line>" of its row, for reasons about its segments


@dataclass
class _Cells:
    """A column of segment cells parsed at once: cell ``i`` is ``flat[start[i]:start[i] + count[i]]``."""

    flat: np.ndarray
    start: np.ndarray
    count: np.ndarray
    codes: list[int]  # cell -> distinct cell
    errors: list[str | None]  # distinct cell -> why it is refused (its count is then 0)

    def error(self, i: int) -> str | None:
        return self.errors[self.codes[i]]


@dataclass
class _System:
    """Every probe of the trials with its bounds and final system / opt-out unions (query independent)."""

    probes: dict[str, _Probe]
    number: dict[str, int]  # probe -> its row in lo, hi and the *_g arrays
    lo: np.ndarray
    hi: np.ndarray
    range_bad: np.ndarray  # bool per probe: range_error is set
    sys: tuple[np.ndarray, np.ndarray, np.ndarray]  # (probe number, start, end), nonzero, disjoint
    sns: tuple[np.ndarray, np.ndarray, np.ndarray]


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
    """Score video temporal localization as MediScore's VTL scorer (docs/scoring/temporal.md#definition).

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
        raise SetupError(f"unknown convention {convention!r}; use 'mediscore' or 'plan'")
    if isinstance(collar, bool) or not isinstance(collar, (int, np.integer)) or collar < 0:
        raise SetupError(f"collar must be an integer >= 0 (got {collar!r})")
    if isinstance(max_segments, bool) or not isinstance(max_segments, int) or max_segments < 1:
        raise SetupError(f"max_segments must be a positive integer (got {max_segments!r})")
    do_truncate = (convention == "mediscore") if truncate is None else bool(truncate)
    queries = [query] if isinstance(query, str) else list(query)
    if not queries:
        raise QueryError("no query given; use '*' to score every probe")

    idx, idx_name = _frame(index, "index")
    sys_df, sys_name = _frame(system, "system output", SubmissionError)
    join, _ = _frame(journal_join, "probe-journal join table")
    mask, mask_name = _frame(journal_mask, "journal mask table")
    _require(idx, ["ProbeFileID", "FrameCount"], "index")
    _require(join, ["ProbeFileID", *_JOIN_KEYS], "probe-journal join table")
    _require(mask, [*_JOIN_KEYS, "VideoFrame"], "journal mask table")
    _require(sys_df, ["ProbeFileID", "VideoFrameSegments"], "system output", SubmissionError)
    if optout_filter and "ProbeStatus" not in sys_df.columns and "IsOptOut" not in sys_df.columns:
        raise SubmissionError("system output lacks column ProbeStatus (needed to keep only Processed probes)")
    if video_optout and "VideoFrameOptOutSegments" not in sys_df.columns:
        raise SubmissionError("system output lacks column VideoFrameOptOutSegments (or disable video opt-out)")

    # docs/scoring/temporal.md#definition, Trials: the journal join, then the index.
    jm = join.drop(columns=[_LINE]).merge(mask, on=_JOIN_KEYS, sort=False)
    idx_cols = [c for c in idx.columns if c == "ProbeFileID" or c not in jm.columns]
    frame = jm.merge(idx[idx_cols], on="ProbeFileID", sort=False).reset_index(drop=True)
    notes: list[str] = []
    if frame.empty:
        raise SetupError("no trial: the probe-journal join, journal mask and index share no probe")

    refs = _parse_cells(frame["VideoFrame"].tolist(), max_segments)
    plan = convention == "plan"
    system_ = _system_probes(
        frame,
        idx,
        sys_df,
        sys_name,
        idx_name,
        video_optout=video_optout,
        optout_filter=optout_filter,
        max_segments=max_segments,
        plan=plan,
        truncate=do_truncate,
    )

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
                sel = select_query(
                    frame.assign(_omfc_row=np.arange(len(frame))),
                    q,
                    "q",
                    key=["_omfc_row"],
                    typed=typed.assign(_omfc_row=np.arange(len(frame))),
                )
                rows = sel["_omfc_row"].to_numpy(dtype=int)
            except ScoringError as exc:
                results.append(TemporalResult(q, pos, kind, (), float("nan"), error=str(exc)))
                continue
        trials = _score_query(_by_probe(frame, rows), frame, refs, system_, mask_name, collar=float(collar), plan=plan)
        values = [t.mcc for t in trials if t.status == "scored" and t.mcc is not None]
        mean = round(float(np.mean(values)), _DECIMALS) if values else float("nan")
        results.append(TemporalResult(q, pos, kind, trials, mean))
    return TemporalReport(tuple(results), int(collar), do_truncate, convention, tuple(notes))


# --------------------------------------------------------------------------- batched over probes
#
# Every probe of a query is scored by the same few numpy calls on arrays that carry a probe
# number ``g`` per interval (per-probe numpy calls cost more than the sweep on
# ordinary videos).  Unions and the confusion sweep use boundary events sorted by (probe, position)
# and a cumulative sum over all probes at once: each probe's +1/-1 deltas sum to zero, so the
# running count is back at zero where the next probe begins and needs no reset.  Positions are
# only copied, compared and subtracted as before, and each probe's piece lengths are summed in
# the same order, so the numbers are those of :func:`confusion_counts`, bit for bit.


def _parse_cells(cells: list[str], max_segments: int) -> _Cells:
    """Parse a column of segment cells into one flat ``(n, 2)`` array of sorted pairs.

    Each distinct cell is decoded once with ``json.loads``; the pair and number type checks (those of
    :func:`parse_segments`), the float conversion, the finiteness check and the pair sort run once
    per chunk of about ``_CHUNK_PAIRS`` pairs (so the decoded Python lists, ten times the size of the
    floats, never pile up for a whole column).  A refused cell is re-read by :func:`parse_segments`
    for its reason.
    """
    codes, uniques = pd.factorize(pd.Series(cells, dtype=object), sort=False)
    texts: list[str] = uniques.tolist()
    limit = max_segments * _CHARS_PER_SEGMENT + 16
    errors: list[str | None] = []
    flats: list[np.ndarray] = []
    counts: list[np.ndarray] = []
    chunk: list[list[Any]] = []
    base = size = 0
    for k, cell in enumerate(texts):
        s = cell.strip()
        obj: object = []
        if s:
            obj = None
            if len(s) <= limit:
                try:
                    obj = json.loads(s)
                except (ValueError, RecursionError):
                    obj = None
        if type(obj) is list and len(obj) <= max_segments:
            chunk.append(obj)
            errors.append(None)
            size += len(obj)
        else:
            chunk.append([])
            errors.append(_reason(cell, max_segments))
        if size >= _CHUNK_PAIRS or k == len(texts) - 1:
            flat, count = _to_array(chunk, base, texts, errors, max_segments)
            flats.append(flat)
            counts.append(count)
            chunk, base, size = [], k + 1, 0
    flat = np.concatenate(flats) if flats else _EMPTY
    count = np.concatenate(counts) if counts else np.zeros(0, dtype=np.intp)
    starts = np.cumsum(count) - count
    code_arr = np.asarray(codes, dtype=np.intp)
    return _Cells(flat, starts[code_arr], count[code_arr], code_arr.tolist(), errors)


def _to_array(
    objs: list[list[Any]], base: int, texts: list[str], errors: list[str | None], max_segments: int
) -> tuple[np.ndarray, np.ndarray]:
    """The pairs of the decoded cells ``base, base + 1, ...`` as one sorted-pair float array and the
    count per cell; a cell that is not a list of number pairs (exact types: a JSON true/false is a
    bool and refused), or holds an integer too large for a float or a non-finite number, gets its
    reason in ``errors`` and count 0.  The checks are C loops over the whole chunk."""
    pairs = list(chain.from_iterable(objs))
    if not (
        set(map(type, pairs)) <= {list}
        and set(map(len, pairs)) <= {2}
        and set(map(type, chain.from_iterable(pairs))) <= {int, float}
    ):
        num = (int, float)
        for k, obj in enumerate(objs):
            if not all(type(p) is list and len(p) == 2 and type(p[0]) in num and type(p[1]) in num for p in obj):
                errors[base + k], objs[k] = _reason(texts[base + k], max_segments), []
    while True:
        counts = np.fromiter((len(o) for o in objs), dtype=np.intp, count=len(objs))
        try:
            flat = np.array(list(chain.from_iterable(chain.from_iterable(objs))), dtype=np.float64).reshape(-1, 2)
        except OverflowError:
            for k, o in enumerate(objs):  # rare: find the cells at fault, then convert again
                try:
                    np.array(o, dtype=float)
                except OverflowError:
                    errors[base + k], objs[k] = _reason(texts[base + k], max_segments), []
            continue
        finite = np.isfinite(flat).all(axis=1)
        if finite.all():
            return np.sort(flat, axis=1), counts
        cell_of = np.repeat(np.arange(len(objs)), counts)
        for k in np.unique(cell_of[~finite]).tolist():
            errors[base + k], objs[k] = _reason(texts[base + k], max_segments), []


def _reason(cell: str, max_segments: int) -> str:
    """Why :func:`parse_segments` refuses a cell (the batched parser's checks are the same)."""
    try:
        parse_segments(cell, max_segments=max_segments)
    except SegmentError as exc:
        return str(exc)
    return "must be a JSON list of [start, end] pairs (got a cell that could not be read)"


def _ranges(start: np.ndarray, count: np.ndarray) -> np.ndarray:
    """Concatenated ``range(start[i], start[i] + count[i])`` without a Python loop."""
    total = int(count.sum())
    if total == 0:
        return np.zeros(0, dtype=np.intp)
    ends = np.cumsum(count)
    return np.repeat(start - (ends - count), count) + np.arange(total)


def _order(g: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """Stable order by (g, pos), as ``np.lexsort((pos, g))``: a stable sort by position, then a stable
    sort by probe number, which numpy does by radix when the numbers fit 16 bits (most runs)."""
    first = np.argsort(pos, kind="stable")
    small = np.int16 if len(g) == 0 or int(g.max()) < 2**15 else np.int64
    return first[np.argsort(g[first].astype(small), kind="stable")]


def _grouped_union(g: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`interval_union` of every probe at once (pairs sorted: ``a <= b``); output sorted by (g, a).

    Starts sort before ends at equal positions, so touching intervals merge (MediScore merges while
    ``start <= current end``) and a lone zero-length interval stays one.
    """
    n = len(a)
    if n == 0:
        return g, a, b
    pos = np.concatenate([a, b])
    gg = np.concatenate([g, g])
    end = np.repeat(np.array([False, True]), n)
    order = _order(gg, pos)  # stable: at equal (g, position) the starts (first half) stay first
    end, pos, gg = end[order], pos[order], gg[order]
    count = np.cumsum(np.where(end, -1, 1))
    opens = ~end & (count == 1)
    closes = end & (count == 0)
    return gg[opens], pos[opens], pos[closes]


def _sorted_union(g: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_grouped_union` of intervals already sorted by (g, a) whose ends also ascend within each g
    (collars around sorted endpoints): the running maximum of the ends is the previous end, so no sort."""
    if len(a) == 0:
        return g, a, b
    new = np.ones(len(a), dtype=bool)
    new[1:] = (g[1:] != g[:-1]) | (a[1:] > b[:-1])
    last = np.append(np.flatnonzero(new)[1:] - 1, len(a) - 1)
    return g[new], a[new], b[last]


def _nonzero_g(g: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    keep = a != b
    return g[keep], a[keep], b[keep]


def _sweep(lo: np.ndarray, hi: np.ndarray, sets: Sequence[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> np.ndarray:
    """TN, FN, FP, TP lengths (columns 0..3) of every probe: :func:`_counts` for all probes at once.

    ``sets`` are the nonzero unions (reference, system, collars, opt-out) inside ``[lo, hi]``.  The
    events are ``lo``, ``hi`` and every endpoint; after the last event at a position, the running
    count of each set says whether the piece up to the next position is inside it (as the midpoint
    test does); pieces in a collar or an opt-out segment go to column 4 and are not reported.
    """
    n = len(lo)
    ar = np.arange(n)
    pos = [lo, hi]
    gid = [ar, ar]
    col = [np.zeros(2 * n, dtype=np.intp)]
    delta = [np.zeros(2 * n, dtype=np.int32)]
    for s, (g, a, b) in enumerate(sets):
        pos += [a, b]
        gid += [g, g]
        col.append(np.full(2 * len(a), s, dtype=np.intp))
        delta.append(np.repeat(np.array([1, -1], dtype=np.int32), len(a)))
    p = np.concatenate(pos)
    order = _order(np.concatenate(gid), p)
    p = p[order]
    gv = np.concatenate(gid)[order]
    d = np.zeros((len(p), len(sets)), dtype=np.int32)
    d[np.arange(len(p)), np.concatenate(col)[order]] = np.concatenate(delta)[order]
    inside = np.cumsum(d, axis=0) > 0  # row k: the state after event k
    same = gv[1:] == gv[:-1]
    length = np.diff(p)
    state = np.arange(len(p) - 1)  # the piece after event k is classified by row k ...
    # ... except where the per-probe path's midpoint rounds up onto the next position (the two are
    # adjacent floats): its test then sees the state at that position, i.e. after its last event.
    up = ((p[:-1] + p[1:]) / 2.0 == p[1:]) & (length > 0) & same
    if up.any():
        run_last = np.append(np.flatnonzero((p[1:] != p[:-1]) | ~same), len(p) - 1)
        nxt = np.flatnonzero(up) + 1
        state[up] = run_last[np.searchsorted(run_last, nxt)]
    inside = inside[state]
    code = inside[:, 0].astype(np.intp) + 2 * inside[:, 1]
    code[inside[:, 2] | inside[:, 3]] = 4
    bins = (gv[:-1] * 5 + code)[same]
    sums = np.bincount(bins, weights=length[same], minlength=5 * n)
    return sums.reshape(n, 5)


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
    frame: pd.DataFrame,
    idx: pd.DataFrame,
    sys_df: pd.DataFrame,
    sys_name: str,
    idx_name: str,
    *,
    video_optout: bool,
    optout_filter: bool,
    max_segments: int,
    plan: bool,
    truncate: bool,
) -> _System:
    """FrameCount, status and final system/SNS unions of every probe of the trials (all queries share them).

    System and opt-out segments: union, then (plan) the inclusive shift and a union again, then
    (truncate) MediScore's truncation at the last frame, then zero-length intervals dropped; one
    outside ``[lo, hi]`` is that probe's ``range_error``.
    """
    wanted = pd.unique(frame["ProbeFileID"])
    first = idx.drop_duplicates("ProbeFileID")
    fc_of = dict(zip(first["ProbeFileID"], zip(first["FrameCount"], first[_LINE], strict=False), strict=False))
    sys_groups = sys_df.groupby("ProbeFileID", sort=False).indices
    status_col = "ProbeStatus" if "ProbeStatus" in sys_df.columns else "IsOptOut"
    keep_status = "Processed" if status_col == "ProbeStatus" else "N"
    status = sys_df[status_col].to_numpy() if status_col in sys_df.columns else None
    sys_lines = sys_df[_LINE].to_numpy()
    columns = ["VideoFrameSegments"] + (["VideoFrameOptOutSegments"] if video_optout else [])
    cells = {col: sys_df[col].to_numpy() for col in columns}
    out: dict[str, _Probe] = {}
    number: dict[str, int] = {}
    fcs = np.full(len(wanted), np.nan)
    ok_k: list[int] = []
    ok_at: list[int] = []
    for k, pid in enumerate(wanted):
        number[pid] = k
        tag = f"[ProbeFileID={_brief(pid, 60)}]"
        raw_fc, fc_line = fc_of[pid]
        raw_fc = str(raw_fc)
        try:
            fc = float(raw_fc)
        except ValueError:
            fc = float("nan")
        if not math.isfinite(fc) or fc < 1:
            out[pid] = _Probe(
                None,
                reason=f"{idx_name}:{fc_line} {tag} FrameCount={_brief(raw_fc)!r}: "
                f"FrameCount must be a number >= 1 (got {_brief(raw_fc)!r})",
            )
            continue
        fcs[k] = fc
        hits = sys_groups.get(pid)
        if hits is None:
            out[pid] = _Probe(fc, reason=f"{sys_name} {tag}: the probe must have a system output row (got none)")
            continue
        if len(hits) > 1:
            lines = ", ".join(str(v) for v in sys_lines[hits[:5]])
            out[pid] = _Probe(
                fc, reason=f"{sys_name}:{lines} {tag}: the probe must have one system output row (got {len(hits)})"
            )
            continue
        at = int(hits[0])
        if optout_filter and status is not None and status[at] != keep_status:
            out[pid] = _Probe(fc, processed=False, reason=f"opted out ({_brief(status[at])!r} is not {keep_status})")
            continue
        out[pid] = _Probe(fc, where=f"{sys_name}:{sys_lines[at]}")
        ok_k.append(k)
        ok_at.append(at)

    lo = np.ones(len(wanted))
    hi = fcs + 1.0 if plan else fcs
    parsed = {col: _parse_cells([str(v) for v in cells[col][ok_at]], max_segments) for col in columns}
    good = np.ones(len(ok_k), dtype=bool)
    for i, (k, at) in enumerate(zip(ok_k, ok_at, strict=False)):
        for col in columns:
            err = parsed[col].error(i)
            if err is not None:
                pid = wanted[k]
                cell = str(cells[col][at])
                out[
                    pid
                ].reason = f"{sys_name}:{sys_lines[at]} [ProbeFileID={_brief(pid, 60)}] {col}={_brief(cell)!r}: {err}"
                good[i] = False
                break
    ks = np.asarray(ok_k, dtype=np.intp)
    finals: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    range_bad = np.zeros(len(wanted), dtype=bool)
    for col in columns:
        cs = parsed[col]
        count = np.where(good, cs.count, 0)
        iv = cs.flat[_ranges(cs.start, count)]
        g, a, b = _grouped_union(np.repeat(ks, count), iv[:, 0], iv[:, 1])
        if plan:  # inclusive frames: [a, b] covers a..b, i.e. [a, b + 1) in continuous coordinates
            g, a, b = _grouped_union(g, a, b + 1.0)
        if truncate:  # MediScore's truncate: drop intervals starting at or after hi, cut the ends at it
            keep = a < hi[g]
            g, a, b = g[keep], a[keep], np.minimum(b[keep], hi[g[keep]])
        g, a, b = _nonzero_g(g, a, b)
        bad = (a < lo[g]) | (b > hi[g])
        hit = np.flatnonzero(bad)
        gs, firsts = np.unique(g[hit], return_index=True)
        for k, h in zip(gs.tolist(), hit[firsts].tolist(), strict=False):
            if range_bad[k]:
                continue  # VideoFrameSegments are checked first
            pid = wanted[k]
            probe = out[pid]
            shown = np.array([a[h], b[h]]) - (np.array([0.0, 1.0]) if plan else 0.0)
            hint = "" if truncate else " (truncation is off)"
            probe.range_error = (
                f"{probe.where} [ProbeFileID={_brief(pid, 60)}] {col}: system interval {_iv(shown)} must lie within "
                f"the video [1, {_fmt(probe.frame_count or 0.0)}]{hint} (got {_iv(shown)}); trial not scored"
            )
            range_bad[k] = True
        finals[col] = (g, a, b)
    empty = (np.zeros(0, dtype=np.intp), np.zeros(0), np.zeros(0))
    return _System(
        out, number, lo, hi, range_bad, finals["VideoFrameSegments"], finals.get("VideoFrameOptOutSegments", empty)
    )


def _select(
    arrays: tuple[np.ndarray, np.ndarray, np.ndarray], new_id: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The intervals of the probes being scored, renumbered (``new_id`` is -1 for the others)."""
    g, a, b = arrays
    ng = new_id[g]
    keep = ng >= 0
    return ng[keep], a[keep], b[keep]


def _score_query(
    groups: list[tuple[str, np.ndarray]],
    frame: pd.DataFrame,
    refs: _Cells,
    system_: _System,
    mask_name: str,
    *,
    collar: float,
    plan: bool,
) -> tuple[TemporalTrial, ...]:
    """Every probe of one query: status checks per probe in Python, then reference range check,
    reference union, collars, sweep and confusion sums for all probes at once; MCC per probe."""
    trials: list[TemporalTrial | None] = [None] * len(groups)
    cand_pos: list[int] = []
    cand_k: list[int] = []
    cand_rows: list[np.ndarray] = []
    for i, (pid, rows) in enumerate(groups):
        probe = system_.probes[pid]
        if not probe.processed:
            trials[i] = TemporalTrial(pid, "opted_out", reason=probe.reason)
            continue
        if probe.reason is not None or probe.frame_count is None:
            trials[i] = TemporalTrial(pid, "error", reason=probe.reason)
            continue
        for r in rows.tolist():
            err = refs.error(r)
            if err is not None:
                raw = frame.at[r, "VideoFrame"]
                trials[i] = TemporalTrial(
                    pid,
                    "error",
                    reason=(
                        f"{mask_name}:{frame.at[r, _LINE]} [ProbeFileID={_brief(pid, 60)}] "
                        f"VideoFrame={_brief(raw)!r}: {err}"
                    ),
                )
                break
        else:
            cand_pos.append(i)
            cand_k.append(system_.number[pid])
            cand_rows.append(rows)
    if cand_pos:
        _score_batch(
            trials, groups, cand_pos, cand_k, cand_rows, frame, refs, system_, mask_name, collar=collar, plan=plan
        )
    return tuple(t for t in trials if t is not None)


def _score_batch(
    trials: list[TemporalTrial | None],
    groups: list[tuple[str, np.ndarray]],
    cand_pos: list[int],
    cand_k: list[int],
    cand_rows: list[np.ndarray],
    frame: pd.DataFrame,
    refs: _Cells,
    system_: _System,
    mask_name: str,
    *,
    collar: float,
    plan: bool,
) -> None:
    """Fill ``trials`` at ``cand_pos``: the probes whose inputs parsed, scored together."""
    nc = len(cand_pos)
    k = np.asarray(cand_k, dtype=np.intp)
    lo, hi = system_.lo[k], system_.hi[k]
    row_n = np.fromiter((len(r) for r in cand_rows), dtype=np.intp, count=nc)
    rows_all = np.concatenate(cand_rows)
    cnt = refs.count[rows_all]
    ref = refs.flat[_ranges(refs.start[rows_all], cnt)]
    g = np.repeat(np.repeat(np.arange(nc), row_n), cnt)
    a = ref[:, 0]
    b = ref[:, 1] + 1.0 if plan else ref[:, 1]
    # A reference interval outside the video fails this trial only (MediScore asserts for all);
    # MediScore lets a zero-length one pass (it is dropped before the sweep), the plan does not.
    out = ((a < lo[g]) | (b > hi[g])) & ((a != b) | plan)
    fail = system_.range_bad[k].copy()
    hit = np.flatnonzero(out)
    if hit.size:
        src = np.repeat(rows_all, cnt)
        gs, firsts = np.unique(g[hit], return_index=True)
        for gi, h in zip(gs.tolist(), hit[firsts].tolist(), strict=False):
            pid = groups[cand_pos[gi]][0]
            fc = system_.probes[pid].frame_count or 0.0
            shown = np.array([a[h], b[h]]) - (np.array([0.0, 1.0]) if plan else 0.0)
            trials[cand_pos[gi]] = TemporalTrial(
                pid,
                "error",
                reason=(
                    f"{mask_name}:{frame.at[int(src[h]), _LINE]} [ProbeFileID={_brief(pid, 60)}] VideoFrame: reference "
                    f"interval {_iv(shown)} of probe {pid} must lie within the video [1, {_fmt(fc)}] (got "
                    f"{_iv(shown)}); "
                    f"trial not scored"
                ),
            )
            fail[gi] = True
    for gi in np.flatnonzero(fail).tolist():
        if trials[cand_pos[gi]] is None:  # the system segments' range error comes after the reference's
            pid = groups[cand_pos[gi]][0]
            trials[cand_pos[gi]] = TemporalTrial(pid, "error", reason=system_.probes[pid].range_error)
    ok = ~fail
    n = int(ok.sum())
    if n == 0:
        return
    renum = np.cumsum(ok) - 1
    keep = ok[g]
    ref_u = _grouped_union(renum[g[keep]], a[keep], b[keep])
    lo, hi = lo[ok], hi[ok]
    collars: tuple[np.ndarray, np.ndarray, np.ndarray] = (np.zeros(0, dtype=np.intp), np.zeros(0), np.zeros(0))
    if collar > 0 and len(ref_u[0]):
        # MediScore's compute_collars: [x - c, x + c] clipped to [lo, hi] around every endpoint of the union.
        xg = np.repeat(ref_u[0], 2)
        x = np.column_stack([ref_u[1], ref_u[2]]).ravel()
        collars = _sorted_union(xg, np.clip(x - collar, lo[xg], hi[xg]), np.clip(x + collar, lo[xg], hi[xg]))
    new_id = np.full(len(system_.lo), -1, dtype=np.intp)
    new_id[k[ok]] = np.arange(n)
    sums = _sweep(
        lo, hi, [_nonzero_g(*ref_u), _select(system_.sys, new_id), _nonzero_g(*collars), _select(system_.sns, new_id)]
    )
    for j, (tn, fn, fp, tp, _) in zip(np.flatnonzero(ok).tolist(), sums.tolist(), strict=False):
        trials[cand_pos[j]] = TemporalTrial(
            groups[cand_pos[j]][0], "scored", mcc=round(mcc(tp, tn, fp, fn), _DECIMALS), tp=tp, tn=tn, fp=fp, fn=fn
        )
