"""VSEG — video-frame and audio-sample segment lists (docs/rules/vseg.md).

MFC2018/MFC2019 video (COL-06) and, where the optional columns are present,
OpenMFC VMD/VGMD (D-05).  Every cell is parsed once per process into a flat
table of intervals; each rule then checks that table with numpy.

Choices and defects (docs/rules/choices.md, docs/rules/defects.md):

* VSEG-01: JSON is the format; Python literal syntax such as tuples, which
  MediScore reads with ``ast.literal_eval``, is a warning; an empty cell and a
  flat list ``[23, 46]`` are errors.
* VSEG-03 reports reversed intervals as such (not as unreadable: B-07).
* VSEG-04: non-integer endpoints are errors ("integer intervals"); an
  integral float such as ``2.0`` is a warning.
* VSEG-06: audio samples are not bounded by ``FrameCount`` (D-17, B-08).
* VSEG-07: pairwise disjointness of closed intervals in any order (D-18, not
  B-09); touching endpoints overlap unless ``--omfc-allow-touching-segments``;
  ``--omfc-ignore-overlap`` turns the findings into warnings.
* VSEG-10: ``FailedValidation`` rows are excused from every interval check
  (STATUS-08); a file that uses ``IsOptOut`` has no interval checks (VB2).
"""

from __future__ import annotations

import ast
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import arrays
from ..editions import Group, Task
from ..findings import Finding, Report, Severity, Unavailable, plural
from ..models.segments import AUDIO_COLUMNS, FRAME_COLUMNS, SEGMENT_COLUMNS
from ..registry import not_checked, rule
from ..submission import NotApplicable, Settings, Submission
from .vmask import index_values  # vmask registers first: VMASK comes before VSEG in the rule reference

__all__ = ["Segments", "segments_of"]

_GROUPS = {Group.M18, Group.M19, Group.O2X}
_TASKS = {Task.VID}
_REQ = ("CSV-01",)
#: Index columns that may give the audio length in samples (VSEG-06, D-17).
AUDIO_COUNT_COLUMNS: tuple[str, ...] = ("AudioSampleCount", "SampleCount")

_INT = r"\d{1,15}"
_PAIR = rf"\[\s*{_INT}\s*,\s*{_INT}\s*\]"
#: A well-formed cell of non-negative integers: parsed without Python per cell.
_CANONICAL = re.compile(rf"\s*\[\s*(?:{_PAIR}\s*(?:,\s*{_PAIR}\s*)*)?\]\s*")
_DIGITS = re.compile(_INT)


# ---------------------------------------------------------------------------- parsing


@dataclass
class Segments:
    """Every interval of the segment columns, flat, plus the cell-level problems.

    ``pos``/``col``/``elem`` locate an interval (row, column index into
    ``columns``, element index in its list); ``start``/``end`` are float64
    and ``ints`` says both endpoints were written as integers.  Only pairs of
    two finite numbers are in the table (VSEG-02).
    """

    columns: tuple[str, ...]
    excused: np.ndarray  # bool per row: FailedValidation (STATUS-08)
    cells: tuple[np.ndarray, ...]  # raw text per column and row, for messages
    display: str
    lines: np.ndarray
    keys: np.ndarray
    pos: np.ndarray
    col: np.ndarray
    elem: np.ndarray
    start: np.ndarray
    end: np.ndarray
    ints: np.ndarray
    cell_problems: list[tuple[int, int, str, Severity | None]] = field(default_factory=list)  # VSEG-01
    pair_problems: list[tuple[int, int, int, str]] = field(default_factory=list)  # VSEG-02

    def at(self, pos: int, col: int, message: str, severity: Severity | None = None) -> Finding:
        """A finding on cell (row ``pos``, column ``col``), located without pandas look-ups."""
        return Finding(
            message,
            file=self.display,
            line=int(self.lines[pos]),
            key=str(self.keys[pos]),
            column=self.columns[col],
            value=self.cells[col][pos],
            severity=severity,
        )


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number")


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


_FAIL = object()


def _load(text: str) -> Any:
    """JSON value of ``text`` (NaN/Infinity rejected), or ``_FAIL``."""
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return _FAIL


def _parse_slow(text: str) -> tuple[list[Any] | None, str | None, bool]:
    """``(elements, error, python_syntax)`` for a cell that is not plain integer pairs."""
    if not text.strip():
        return None, "must be a JSON list of [start, end] pairs, [] for none (got an empty cell)", False
    value, python = _load(text), False
    if value is _FAIL and "(" in text:  # tuples, the usual Python spelling: cheaper than literal_eval
        value, python = _load(text.replace("(", "[").replace(")", "]")), True
    if value is _FAIL and len(text) < 100_000:
        try:
            value, python = ast.literal_eval(text.strip()), True
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            value = _FAIL
    if value is _FAIL:
        return (
            None,
            f"must be a JSON list of [start, end] pairs, e.g. [[3, 33], [40, 46]] (got {text.strip()[:40]!r})",
            False,
        )
    if not isinstance(value, (list, tuple)):
        return (
            None,
            f"must be a list of [start, end] pairs (got {'null' if value is None else 'a ' + type(value).__name__})",
            python,
        )
    scalars = [v for v in value if not isinstance(v, (list, tuple))]
    if scalars:
        if len(scalars) == len(value):
            return None, f"must be a list of [start, end] pairs (got a flat list; write [{text.strip()}])", python
        return None, f"every element must be a [start, end] pair (got {scalars[0]!r})", python
    return list(value), None, python or isinstance(value, tuple) or any(isinstance(v, tuple) for v in value)


def segments_of(ctx: Submission) -> Segments:
    """The parsed segment columns of the system output (once per process)."""
    return ctx.memo("vseg.segments", lambda: _parse_segments(ctx))


def _parse_segments(ctx: Submission) -> Segments:
    table = ctx.sysout()
    if table.has("IsOptOut") and not table.has("ProbeStatus"):
        raise NotApplicable("the file uses IsOptOut: NC2017-style video rows carry no intervals (VB2)")
    columns = tuple(c for c in SEGMENT_COLUMNS if table.has(c))
    if not columns:
        if ctx.group is Group.O2X:
            raise NotApplicable("no segment columns: OpenMFC VMD/VGMD is detection only (D-05)")
        raise Unavailable(ctx.column_rule, "the segment columns are absent")
    n = len(table)
    excused = ctx.stripped("ProbeStatus") == "FailedValidation" if table.has("ProbeStatus") else np.zeros(n, bool)

    raw_cells: list[np.ndarray] = []
    parts: list[tuple[np.ndarray, ...]] = []
    cell_problems: list[tuple[int, int, str, Severity | None]] = []
    pair_problems: list[tuple[int, int, int, str]] = []
    for ci, name in enumerate(columns):
        text_of = table.column(name)
        raw_cells.append(text_of)
        match = _CANONICAL.fullmatch
        canon = np.fromiter((match(s) is not None for s in text_of), dtype=bool, count=len(text_of))
        if canon.any():
            counts = (
                np.fromiter((s.count(",") + 1 for s in text_of[canon]), dtype=np.int64) // 2
            )  # n pairs: 2n-1 commas
            nums = np.array(_DIGITS.findall(" ".join(text_of[canon])), dtype=np.float64)
            rows = np.repeat(np.flatnonzero(canon), counts)
            first = np.repeat(np.cumsum(counts) - counts, counts)
            parts.append(
                (
                    rows,
                    np.full(len(rows), ci),
                    np.arange(len(rows)) - first,
                    nums[0::2],
                    nums[1::2],
                    np.ones(len(rows), dtype=bool),
                )
            )
        slow_rows, slow_elem, slow_s, slow_e, slow_int = [], [], [], [], []
        for pos in np.flatnonzero(~canon):
            text = text_of[pos]
            elements, error, python = _parse_slow(text)
            if error is not None:
                cell_problems.append((int(pos), ci, error, None))
                continue
            if python:
                cell_problems.append(
                    (
                        int(pos),
                        ci,
                        "should be JSON (got Python literal syntax, e.g. tuples or quotes, "
                        "which MediScore reads with ast.literal_eval)",
                        Severity.WARNING,
                    )
                )
            for k, el in enumerate(elements or []):
                if len(el) != 2 or not all(_is_number(v) for v in el):
                    got = f"{len(el)} values" if len(el) != 2 else "a non-number"
                    msg = f"element {k + 1} must be a [start, end] pair of two numbers (got {list(el)!r}: {got})"
                    pair_problems.append((int(pos), ci, k, msg))
                    continue
                try:
                    s, e = float(el[0]), float(el[1])
                except OverflowError:
                    s = e = math.inf
                if not (math.isfinite(s) and math.isfinite(e)):
                    pair_problems.append(
                        (int(pos), ci, k, f"element {k + 1} must hold finite numbers (got {list(el)!r})")
                    )
                    continue
                slow_rows.append(int(pos))
                slow_elem.append(k)
                slow_s.append(s)
                slow_e.append(e)
                slow_int.append(isinstance(el[0], int) and isinstance(el[1], int))
        if slow_rows:
            parts.append(
                (
                    np.array(slow_rows),
                    np.full(len(slow_rows), ci),
                    np.array(slow_elem),
                    np.array(slow_s, dtype=np.float64),
                    np.array(slow_e, dtype=np.float64),
                    np.array(slow_int, dtype=bool),
                )
            )
    if parts:
        pos_a, col_a, elem_a, s_a, e_a, int_a = (np.concatenate(x) for x in zip(*parts, strict=False))
    else:
        pos_a = col_a = elem_a = np.empty(0, dtype=np.int64)
        s_a = e_a = np.empty(0, dtype=np.float64)
        int_a = np.empty(0, dtype=bool)
    order = np.lexsort((elem_a, col_a, pos_a))
    seg = Segments(
        columns=columns,
        excused=excused,
        cells=tuple(raw_cells),
        display=table.display,
        lines=table.lines,
        keys=ctx.sys_keys,
        pos=pos_a[order].astype(np.int64),
        col=col_a[order].astype(np.int64),
        elem=elem_a[order].astype(np.int64),
        start=s_a[order],
        end=e_a[order],
        ints=int_a[order],
        cell_problems=sorted(cell_problems, key=lambda p: (p[0], p[1])),
        pair_problems=sorted(pair_problems, key=lambda p: (p[0], p[1], p[2])),
    )
    return seg


# ---------------------------------------------------------------------------- helpers


def _num(x: float) -> str:
    x = float(x)
    return str(int(x)) if x.is_integer() and abs(x) < 1e15 else repr(x)


def _iv(s: float, e: float) -> str:
    return f"[{_num(s)}, {_num(e)}]"


def _finding(seg: Segments, i: int | np.integer[Any], message: str, severity: Severity | None = None) -> Finding:
    return seg.at(int(seg.pos[i]), int(seg.col[i]), message, severity)


def _live(seg: Segments) -> np.ndarray:
    """Intervals that are checked: not on a FailedValidation row (VSEG-10)."""
    return ~seg.excused[seg.pos] if len(seg.pos) else np.zeros(0, dtype=bool)


def _count(n: int, noun: str, one: str, many: str) -> str:
    """``1 interval overlaps`` / ``2 intervals overlap``."""
    return f"{plural(n, noun)} {one if n == 1 else many}"


def _unit(column: str) -> str:
    return "sample" if column in AUDIO_COLUMNS else "frame"


# ---------------------------------------------------------------------------- rules


@rule(
    "VSEG-01",
    "Each segment cell is a JSON list of [start, end] pairs ([] for none)",
    groups=_GROUPS,
    tasks=_TASKS,
    requires=_REQ,
)
def vseg_01(ctx: Submission) -> Report:
    """MFC19 §5.1.1; an empty cell and a flat list are errors as in MediScore (V0); tuples warn."""
    seg = segments_of(ctx)
    found = [seg.at(pos, c, msg, sev) for pos, c, msg, sev in seg.cell_problems if not seg.excused[pos]]
    errors = sum(1 for f in found if f.severity is None)
    if errors and errors < len(found):
        return Report(found, headline="segment cells that are not JSON lists of [start, end] pairs")
    if errors:
        return Report(found, headline=f"{plural(errors, 'cell')} cannot be read as a list of [start, end] pairs")
    if not found:
        return Report()
    return Report(found, headline=f"{_count(len(found), 'cell', 'uses', 'use')} Python literal syntax instead of JSON")


@rule("VSEG-02", "Each interval has exactly two numbers", groups=_GROUPS, tasks=_TASKS, requires=_REQ)
def vseg_02(ctx: Submission) -> Report:
    """MFC19 §5.1.1, enforced by MediScore ("The list {} is not a valid interval")."""
    seg = segments_of(ctx)
    found = [seg.at(pos, c, msg) for pos, c, _k, msg in seg.pair_problems if not seg.excused[pos]]
    return Report(
        found, headline=f"{_count(len(found), 'interval', 'is', 'are')} not a pair of two numbers" if found else None
    )


@rule("VSEG-03", "Each interval has start <= end", groups=_GROUPS, tasks=_TASKS, requires=_REQ)
def vseg_03(ctx: Submission) -> Report:
    """MFC19 §5.1.1 ("x_i <= y_i"); reported as a reversed interval, not as unreadable (B-07)."""
    seg = segments_of(ctx)
    bad = np.flatnonzero(_live(seg) & (seg.start > seg.end))
    found = [
        _finding(seg, i, f"interval {seg.elem[i] + 1} must have start <= end (got {_iv(seg.start[i], seg.end[i])})")
        for i in bad
    ]
    if not found:
        return Report()
    return Report(found, headline=_count(len(found), "interval", "ends before it starts", "end before they start"))


@rule("VSEG-04", "Interval endpoints are integers", groups=_GROUPS, tasks=_TASKS, requires=_REQ)
def vseg_04(ctx: Submission) -> Report:
    """MFC19 §3.5.1 defines "integer intervals" (frames from 1); MediScore does not check (``vid_float``)."""
    seg = segments_of(ctx)
    live = _live(seg) & ~seg.ints
    whole = (np.mod(seg.start, 1) == 0) & (np.mod(seg.end, 1) == 0)
    found: list[Finding] = []
    for i in np.flatnonzero(live):
        iv = f"[{float(seg.start[i])!r}, {float(seg.end[i])!r}]"
        if whole[i]:
            found.append(_finding(seg, i, f"endpoints should be written as integers (got {iv})", Severity.WARNING))
        else:
            found.append(
                _finding(seg, i, f"endpoints must be integer {_unit(seg.columns[seg.col[i]])} numbers (got {iv})")
            )
    errors = sum(1 for f in found if f.severity is None)
    if errors and errors < len(found):
        return Report(found, headline="interval endpoints that are not integers")
    if errors:
        return Report(found, headline=f"{_count(errors, 'interval', 'has', 'have')} non-integer endpoints")
    return Report(
        found, headline=f"{_count(len(found), 'interval', 'writes', 'write')} integers as floats" if found else None
    )


@rule("VSEG-05", "Frame intervals lie within [1, FrameCount]", groups=_GROUPS, tasks=_TASKS, requires=_REQ)
def vseg_05(ctx: Submission) -> Report:
    """MFC19 §3.5.1: frames start at 1 and end at the index ``FrameCount`` (MediScore V1).

    The upper bound needs the index ``FrameCount``; without it only the lower
    bound is checked and a warning says so (the videos are never opened).
    """
    seg = segments_of(ctx)
    frame_cols = [k for k, c in enumerate(seg.columns) if c in FRAME_COLUMNS]
    if not frame_cols:
        raise NotApplicable("no frame segment columns")
    sel = _live(seg) & np.isin(seg.col, frame_cols) & (seg.start <= seg.end)
    got = index_values(ctx, "FrameCount")
    fc = got[0][seg.pos] if got is not None else np.full(len(seg.pos), np.nan)
    low = sel & (seg.start < 1)
    high = sel & ~np.isnan(fc) & (seg.end > fc)
    found = []
    for i in np.flatnonzero(low | high):
        bound = f"[1, {_num(fc[i])}]" if not np.isnan(fc[i]) else "[1, FrameCount]"
        found.append(
            _finding(
                seg,
                i,
                f"interval {seg.elem[i] + 1} must lie within the video's frames {bound} "
                f"(got {_iv(seg.start[i], seg.end[i])})",
            )
        )
    n_err = len(found)
    index = ctx.index()
    if got is None:
        if sel.any():
            found.append(
                Finding(
                    "the upper bound end <= FrameCount is not checked: the index has no FrameCount column "
                    "(the videos are not opened)",
                    file=index.display,
                    line=1,
                    severity=Severity.WARNING,
                )
            )
    else:
        known = arrays.isin(ctx.sys_keys, ctx.index_key_set)
        unknown = np.unique(seg.pos[sel & np.isnan(fc) & known[seg.pos]])
        rows_of = ctx.index_row_of() if len(unknown) else {}
        for pos in unknown:
            key = ctx.sys_keys[pos]
            found.append(
                Finding(
                    f"the upper bound is not checked: FrameCount must be a number (got {got[1][pos]!r})",
                    file=index.display,
                    line=index.line_of(rows_of[key]),
                    key=key,
                    column="FrameCount",
                    severity=Severity.WARNING,
                )
            )
    if n_err and n_err < len(found):
        return Report(found, headline="frame intervals outside [1, FrameCount], or not checked against it")
    if n_err:
        return Report(found, headline=f"{_count(n_err, 'frame interval', 'lies', 'lie')} outside [1, FrameCount]")
    return Report(found, headline="frame intervals checked against frame 1 only" if found else None)


@rule(
    "VSEG-06",
    "Audio intervals start at sample 1 (not bounded by FrameCount)",
    groups=_GROUPS,
    tasks=_TASKS,
    requires=_REQ,
)
def vseg_06(ctx: Submission) -> Report:
    """D-17: samples are not frames; only ``start >= 1``, or ``end <=`` a sample-count column of the index.

    MediScore bounds audio by the video FrameCount (B-08, V1 ``[[23,4600]]``): not copied.
    """
    seg = segments_of(ctx)
    audio_cols = [k for k, c in enumerate(seg.columns) if c in AUDIO_COLUMNS]
    if not audio_cols:
        raise NotApplicable("no AudioSampleSegments column")
    sel = _live(seg) & np.isin(seg.col, audio_cols) & (seg.start <= seg.end)
    count_col = next((c for c in AUDIO_COUNT_COLUMNS if ctx.index().has(c)), None)
    got = index_values(ctx, count_col) if count_col else None
    sc = got[0][seg.pos] if got is not None else np.full(len(seg.pos), np.nan)
    bad = sel & ((seg.start < 1) | (~np.isnan(sc) & (seg.end > sc)))
    found = []
    for i in np.flatnonzero(bad):
        bound = f"[1, {_num(sc[i])}] ({count_col})" if not np.isnan(sc[i]) else "sample 1 or later"
        found.append(
            _finding(
                seg, i, f"interval {seg.elem[i] + 1} must lie within {bound} (got {_iv(seg.start[i], seg.end[i])})"
            )
        )
    if not found:
        return Report()
    return Report(found, headline=f"{_count(len(found), 'audio interval', 'lies', 'lie')} outside the audio samples")


def _running_max(values: np.ndarray, run: np.ndarray) -> np.ndarray:
    """The running maximum of ``values`` restarted at each run (``run``: ascending run numbers, one per cell).

    The values are ranked (ints ``0..k-1``) and each run is lifted by ``run * k``, above every earlier run,
    so that one ``maximum.accumulate`` over the whole array never carries a maximum into the next run."""
    distinct, rank = np.unique(values, return_inverse=True)
    lift = run.astype(np.int64) * len(distinct)
    return distinct[np.maximum.accumulate(rank.reshape(-1) + lift) - lift]


@rule(
    "VSEG-07",
    "Intervals of a list are pairwise disjoint (closed intervals, any order)",
    groups=_GROUPS,
    tasks=_TASKS,
    requires=_REQ,
)
def vseg_07(ctx: Submission) -> Report:
    """D-18: symmetric pairwise disjointness, so containment and duplicates are found whatever the order (B-09).

    Closed intervals: ``[1, 10]`` and ``[10, 20]`` share frame 10, which
    MediScore also rejects; ``--omfc-allow-touching-segments`` allows intervals
    to share an endpoint; ``--omfc-ignore-overlap`` makes the findings warnings.
    """
    seg = segments_of(ctx)
    settings = ctx.settings
    allow_touch = isinstance(settings, Settings) and settings.allow_touching_segments
    severity = Severity.WARNING if isinstance(settings, Settings) and settings.ignore_overlap else None
    keep = np.flatnonzero(_live(seg) & (seg.start <= seg.end))
    if not len(keep):
        return Report()
    cell = seg.pos[keep] * len(seg.columns) + seg.col[keep]
    order = np.lexsort((seg.end[keep], seg.start[keep], cell))  # by cell, start, end (stable)
    cell, s, e, where = cell[order], seg.start[keep][order], seg.end[keep][order], keep[order]
    same_cell = np.r_[False, cell[1:] == cell[:-1]]
    run = np.cumsum(~same_cell) - 1  # the cell's run number, ascending
    top = _running_max(e, run)  # the furthest end so far in the cell
    reach = _running_max(np.where(e == top, np.arange(len(e)), -1), run)  # the row that reaches it
    prev_top = np.where(same_cell, np.r_[np.nan, top[:-1]], np.nan)
    prev_reach = np.where(same_cell, np.r_[-1, reach[:-1]], -1)
    dup = same_cell & np.r_[False, (s[1:] == s[:-1]) & (e[1:] == e[:-1])]
    with np.errstate(invalid="ignore"):
        if allow_touch:
            clash = (s < prev_top) | ((s == prev_top) & dup)
        else:
            clash = s <= prev_top
    found = []
    for r in np.flatnonzero(clash):
        partner = r - 1 if dup[r] else int(prev_reach[r])
        i, j = int(where[r]), int(where[partner])
        lo, hi = max(s[r], s[partner]), min(e[r], e[partner])
        unit = _unit(seg.columns[seg.col[i]])
        shared = f"{unit} {_num(lo)}" if lo == hi else f"{unit}s {_num(lo)}-{_num(hi)}"
        a, b = sorted((i, j), key=lambda k: seg.elem[k])
        touch = (
            " (closed intervals: a shared endpoint overlaps; --omfc-allow-touching-segments allows it)"
            if (lo == hi and not allow_touch and (s[r] == e[partner] or e[r] == s[partner]) and not dup[r])
            else ""
        )
        found.append(
            _finding(
                seg,
                b,
                f"interval {seg.elem[b] + 1} {_iv(seg.start[b], seg.end[b])} must not overlap "
                f"interval {seg.elem[a] + 1} {_iv(seg.start[a], seg.end[a])} "
                f"(got shared {shared}){touch}",
                severity,
            )
        )
    found.sort(key=lambda f: (f.line or 0, f.column or ""))
    if not found:
        return Report()
    head = f"{_count(len(found), 'interval', 'overlaps', 'overlap')} another interval in the same list"
    return Report(found, headline=head + (" (--omfc-ignore-overlap)" if severity else ""))


@rule("VSEG-08", "Intervals of a list may come in any order", groups=_GROUPS, tasks=_TASKS, requires=_REQ)
def vseg_08(ctx: Submission) -> Report:
    """The plans are silent and MediScore accepts any order (``vid_unsorted``): nothing can fail here.

    Collected so the report shows the rule was applied; VSEG-07 compares intervals regardless of order.
    """
    segments_of(ctx)
    return Report()


not_checked(
    "VSEG-09",
    "No constraint between the segment columns",
    "the plans set none: VideoFrameSegments may overlap VideoFrameOptOutSegments (MediScore agrees, "
    "vid_cross_column_overlap)",
    groups=_GROUPS,
    tasks=_TASKS,
)


@rule(
    "VSEG-10",
    "Segment cells are validated for every status except FailedValidation",
    groups=_GROUPS,
    tasks=_TASKS,
    severity=Severity.WARNING,
    requires=_REQ,
)
def vseg_10(ctx: Submission) -> Report:
    """STATUS-08: a FailedValidation row is excused from every interval check (MediScore V3).

    Reports, as warnings, the excused rows whose intervals would fail, so the
    participant sees what NIST will score as 0; every other status, including
    NonProcessed and OptOut*, is checked by VSEG-01...07.
    """
    seg = segments_of(ctx)
    if not seg.excused.any():
        return Report()
    rows: set[int] = {p for p, *_ in seg.cell_problems if seg.excused[p]}
    rows |= {p for p, *_ in seg.pair_problems if seg.excused[p]}
    got = index_values(ctx, "FrameCount")
    fc = got[0][seg.pos] if got is not None else np.full(len(seg.pos), np.nan)
    frame = np.isin(seg.col, [k for k, c in enumerate(seg.columns) if c in FRAME_COLUMNS])
    with np.errstate(invalid="ignore"):
        bad = (seg.start > seg.end) | (seg.start < 1) | (np.mod(seg.start, 1) != 0) | (np.mod(seg.end, 1) != 0)
        bad |= frame & (seg.end > fc)
    rows |= {int(p) for p in seg.pos[bad & seg.excused[seg.pos]]}
    found = [
        Finding(
            "FailedValidation excuses this row from the interval checks; NIST scores it as failed (score 0)",
            **ctx.loc(p, "ProbeStatus", "FailedValidation"),
        )
        for p in sorted(rows)
    ]
    return Report(
        found,
        headline=f"{plural(len(found), 'FailedValidation row')} with invalid intervals excused (STATUS-08)"
        if found
        else None,
    )


not_checked(
    "VSEG-11",
    "VideoFrameOptOutSegments lists frames the system opts out of",
    "semantics only: those frames are not scored; their syntax is checked by VSEG-01...07",
    groups={Group.M19},
    tasks=_TASKS,
)
not_checked(
    "VSEG-12",
    "(Contrast) ForgeryNet temporal proposals are not MFC segments",
    "a contrast, not an MFC rule: MFC segments carry no confidence, are 1-based, inclusive and disjoint",
    tasks=_TASKS,
)
