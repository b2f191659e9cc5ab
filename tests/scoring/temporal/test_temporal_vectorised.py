"""The batched temporal engine equals the per-probe implementation it replaced (issue 11 follow-up).

``score_temporal`` now scores every probe of a query with one sweep over all probes' boundary
events.  The per-probe path it replaced is kept below (``_old_trial``: unions, plan shift,
truncation, range checks, collars and :func:`confusion_counts` on one probe, as in the previous
``_score_probe``), and both score a few hundred random probes per configuration, including the edge
cases: zero-length reference intervals, collars overlapping opt-out segments, intervals past the
last frame (MediScore truncation vs the plan), empty system output, probes without reference
intervals, non-integer endpoints (so float rounding would show), unordered pairs, out-of-range and
unparsable cells, opted-out probes.  TP, TN, FP, FN and MCC must be equal exactly (==), the
statuses equal and the reasons equal as strings.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pytest

from pytest_omfc.scoring.temporal.engine import (
    SegmentError,
    TemporalTrial,
    confusion_counts,
    interval_union,
    mcc,
    parse_segments,
    score_temporal,
)

OPS = ("PasteFrames", "Clone", "Blur")
_EMPTY = np.empty((0, 2), dtype=float)


@dataclass
class _Case:
    """One random probe as the tables hold it."""

    pid: str
    fc: str
    rows: list[tuple[str, str]]  # (Operation, VideoFrame cell) in journal order
    status: str
    sys: str
    sns: str


def _number(rng: np.random.Generator, lo: int, hi: int) -> float | int:
    """An endpoint: mostly an integer, sometimes a half or a decimal whose float sums round."""
    x = int(rng.integers(lo, hi + 1))
    r = rng.random()
    return x + 0.5 if r < 0.1 else round(x + 0.1 * int(rng.integers(1, 10)), 1) if r < 0.2 else x


def _intervals(rng: np.random.Generator, fc: int, n: int, *, past: float, before: float) -> list[list[float | int]]:
    out: list[list[float | int]] = []
    for _ in range(n):
        r = rng.random()
        a = out[-1][1] if out and r < 0.15 else _number(rng, 1, max(1, fc - 1))  # touching the previous
        b = a if r > 0.9 else min(fc, a + _number(rng, 1, max(2, fc // 4)))  # zero-length
        if rng.random() < past:
            b = fc + _number(rng, 1, 20)  # past the last frame
        if rng.random() < before:
            a = _number(rng, -5, 0)  # before the first frame
        out.append([b, a] if rng.random() < 0.1 else [a, b])  # unordered pairs are sorted
    return out


def _cases(seed: int, n: int) -> list[_Case]:
    rng = np.random.default_rng(seed)
    cases = []
    for i in range(n):
        fc = int(rng.integers(1, 150)) if rng.random() > 0.05 else 1
        rows = []
        for _ in range(int(rng.integers(1, 4))):
            k = int(rng.integers(0, 6))
            cell = json.dumps(_intervals(rng, fc, k, past=0.01, before=0.01)) if k else rng.choice(["[]", ""])
            if rng.random() < 0.01:
                cell = "[[1, 2]"  # not JSON
            rows.append((str(rng.choice(OPS)), str(cell)))
        sys_cell = json.dumps(_intervals(rng, fc, int(rng.integers(0, 6)), past=0.1, before=0.01))
        if rng.random() < 0.01:
            sys_cell = '[[1, "2"]]'
        sns_cell = "[]"
        if rng.random() < 0.4:  # opt-out segments, often on a reference boundary (inside its collar)
            ref = [iv for _, c in rows if c.startswith("[[") and c.endswith("]]") for iv in json.loads(c)]
            pts = [float(x) for iv in ref for x in iv] or [float(fc) / 2]
            sns = [[p - int(rng.integers(0, 4)), p + int(rng.integers(0, 4))] for p in rng.choice(pts, 2)]
            sns_cell = json.dumps(sns + _intervals(rng, fc, int(rng.integers(0, 2)), past=0.05, before=0.0))
        status = "Processed" if rng.random() < 0.92 else str(rng.choice(["OptOutTemporal", "NonProcessed"]))
        fc_text = str(fc) if rng.random() > 0.01 else "x"
        cases.append(_Case(f"v{i:04d}", fc_text, rows, status, sys_cell, sns_cell))
    return cases


def _tables(cases: list[_Case]) -> dict[str, pd.DataFrame]:
    join, mask = [], []
    for c in cases:
        for k, (op, cell) in enumerate(c.rows):
            join.append([c.pid, f"j{c.pid}", f"n{k}", f"n{k + 1}"])
            mask.append([f"j{c.pid}", f"n{k}", f"n{k + 1}", op, cell])
    return {
        "index": pd.DataFrame(
            [["manipulation-video", c.pid, c.fc] for c in cases], columns=["TaskID", "ProbeFileID", "FrameCount"]
        ),
        "journal_join": pd.DataFrame(join, columns=["ProbeFileID", "JournalName", "StartNodeID", "EndNodeID"]),
        "journal_mask": pd.DataFrame(
            mask, columns=["JournalName", "StartNodeID", "EndNodeID", "Operation", "VideoFrame"]
        ),
        "system": pd.DataFrame(
            [[c.pid, "0.5", c.status, c.sys, "[]", c.sns] for c in cases],
            columns=[
                "ProbeFileID",
                "ConfidenceScore",
                "ProbeStatus",
                "VideoFrameSegments",
                "AudioSampleSegments",
                "VideoFrameOptOutSegments",
            ],
        ),
    }


# --------------------------------------------------------------------------- the previous per-probe path


def _brief(value: str, width: int = 40) -> str:
    text = value.encode("unicode_escape").decode("ascii")
    return text if len(text) <= width else f"{text[: width - 3]}..."


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _iv(a: np.ndarray) -> str:
    return f"[{_fmt(a[0])}, {_fmt(a[1])}]"


def _truncate(union: np.ndarray, last: float) -> np.ndarray:
    if union.size == 0:
        return union
    kept = union[union[:, 0] < last]
    return np.column_stack([kept[:, 0], np.minimum(kept[:, 1], last)])


def _collars(ref_union: np.ndarray, collar: float, lo: float, hi: float) -> np.ndarray:
    if collar <= 0 or ref_union.size == 0:
        return _EMPTY
    x = np.sort(ref_union.ravel())
    return np.clip(np.column_stack([x - collar, x + collar]), lo, hi)


def _nonzero(union: np.ndarray) -> np.ndarray:
    return union[union[:, 0] != union[:, 1]] if union.size else union


def _old_trial(
    c: _Case,
    first_line: int,
    sys_line: int,
    ops: set[str] | None,
    *,
    collar: int,
    plan: bool,
    truncate: bool,
    video_optout: bool,
) -> TemporalTrial | None:
    """The previous engine's result for one probe (None: the query selects none of its rows)."""
    rows = [(first_line + k, cell) for k, (op, cell) in enumerate(c.rows) if ops is None or op in ops]
    if not rows:
        return None
    tag = f"[ProbeFileID={c.pid}]"
    try:
        fc = float(c.fc)
    except ValueError:
        return TemporalTrial(
            c.pid,
            "error",
            reason=f"index:{int(c.pid[1:]) + 2} {tag} FrameCount={c.fc!r}: "
            f"FrameCount must be a number >= 1 (got {c.fc!r})",
        )
    if c.status != "Processed":
        return TemporalTrial(c.pid, "opted_out", reason=f"opted out ({c.status!r} is not Processed)")
    arrays = {}
    for col, cell in (("VideoFrameSegments", c.sys), ("VideoFrameOptOutSegments", c.sns))[: 1 + video_optout]:
        try:
            arrays[col] = interval_union(parse_segments(cell))
        except SegmentError as exc:
            return TemporalTrial(c.pid, "error", reason=f"system output:{sys_line} {tag} {col}={_brief(cell)!r}: {exc}")
    sys, sns = arrays["VideoFrameSegments"], arrays.get("VideoFrameOptOutSegments", _EMPTY)
    parts, part_lines = [], []
    for line, cell in rows:
        try:
            arr = parse_segments(cell)
        except SegmentError as exc:
            return TemporalTrial(
                c.pid, "error", reason=f"journal mask table:{line} {tag} VideoFrame={_brief(cell)!r}: {exc}"
            )
        parts.append(arr)
        part_lines += [line] * len(arr)
    ref_raw = np.concatenate(parts)
    if plan:
        ref_raw, sys, sns = (a + np.array([0.0, 1.0]) if a.size else a for a in (ref_raw, sys, sns))
        sys, sns = interval_union(sys), interval_union(sns)
    lo, hi = 1.0, fc + 1.0 if plan else fc
    if ref_raw.size:
        out = ((ref_raw[:, 0] < lo) | (ref_raw[:, 1] > hi)) & ((ref_raw[:, 0] != ref_raw[:, 1]) | plan)
        if out.any():
            at = int(np.flatnonzero(out)[0])
            first = ref_raw[at] - (np.array([0.0, 1.0]) if plan else 0.0)
            return TemporalTrial(
                c.pid,
                "error",
                reason=(
                    f"journal mask table:{part_lines[at]} {tag} VideoFrame: reference interval {_iv(first)} of probe "
                    f"{c.pid} must lie within the video [1, {_fmt(fc)}] (got {_iv(first)}); trial not scored"
                ),
            )
    ref = interval_union(ref_raw)
    if truncate:
        sys, sns = _truncate(sys, hi), _truncate(sns, hi)
    for name, arr in (("VideoFrameSegments", sys), ("VideoFrameOptOutSegments", sns)):
        nz = _nonzero(arr)
        bad = (nz[:, 0] < lo) | (nz[:, 1] > hi) if nz.size else np.zeros(0, dtype=bool)
        if bad.any():
            first = nz[np.flatnonzero(bad)[0]] - (np.array([0.0, 1.0]) if plan else 0.0)
            hint = "" if truncate else " (truncation is off)"
            return TemporalTrial(
                c.pid,
                "error",
                reason=(
                    f"system output:{sys_line} {tag} {name}: system interval {_iv(first)} must lie within the video "
                    f"[1, {_fmt(fc)}]{hint} (got {_iv(first)}); trial not scored"
                ),
            )
    collars = interval_union(_collars(ref, float(collar), lo, hi))
    tp, tn, fp, fn = confusion_counts(ref, sys, lo, hi, collars=collars, sns=sns)
    return TemporalTrial(c.pid, "scored", mcc=round(mcc(tp, tn, fp, fn), 12), tp=tp, tn=tn, fp=fp, fn=fn)


def _old_report(cases: list[_Case], ops: set[str] | None, **kw: object) -> list[TemporalTrial]:
    out, line = [], 2
    for i, c in enumerate(cases):
        t = _old_trial(c, line, i + 2, ops, **kw)  # type: ignore[arg-type]
        line += len(c.rows)
        if t is not None:
            out.append(t)
    return out


# --------------------------------------------------------------------------- tests


CASES = _cases(seed=11, n=300)
TABLES = _tables(CASES)


@pytest.mark.parametrize("collar", [0, 2, 5])
@pytest.mark.parametrize(("convention", "truncate"), [("mediscore", None), ("plan", None), ("plan", True)])
@pytest.mark.parametrize("video_optout", [True, False])
def test_batched_engine_equals_per_probe_path(
    collar: int, convention: str, truncate: bool | None, video_optout: bool
) -> None:
    report = score_temporal(
        TABLES["index"],
        None,
        TABLES["system"],
        journal_join=TABLES["journal_join"],
        journal_mask=TABLES["journal_mask"],
        query=["*", "Operation == 'Clone'"],
        collar=collar,
        convention=convention,
        truncate=truncate,
        video_optout=video_optout,
    )  # type: ignore[arg-type]
    plan = convention == "plan"
    for result, ops in zip(report.results, (None, {"Clone"}), strict=True):
        want = _old_report(
            CASES, ops, collar=collar, plan=plan, truncate=bool(truncate) or not plan, video_optout=video_optout
        )
        assert result.error is None
        assert [t.probe for t in result.trials] == [t.probe for t in want]
        for got, exp in zip(result.trials, want, strict=True):
            assert got == exp, (got, exp)  # status, reason, TP, TN, FP, FN and MCC, exactly
        scored = [t.mcc for t in want if t.status == "scored"]
        assert result.mcc == round(float(np.mean(scored)), 12)


def test_random_cases_cover_the_edge_cases() -> None:
    """The comparison above is only as good as its cases: each edge case occurs in them."""
    trials = _old_report(CASES, None, collar=5, plan=False, truncate=True, video_optout=True)
    plan = _old_report(CASES, None, collar=5, plan=True, truncate=False, video_optout=True)
    status = [t.status for t in trials]
    assert status.count("scored") > 200 and "opted_out" in status
    reasons = [t.reason or "" for t in trials + plan]
    for fragment in (
        "reference interval",
        "system interval",
        "(truncation is off)",
        "FrameCount=",
        "VideoFrame='[[1, 2]'",
        "VideoFrameSegments='[[1, \"2\"]]'",
    ):
        assert any(fragment in r for r in reasons), fragment
    no_ref = [c for c in CASES if all(cell in ("", "[]") for _, cell in c.rows)]
    zero = [
        c
        for c in CASES
        if any(
            iv[0] == iv[1]
            for _, cell in c.rows
            if cell.startswith("[[") and cell.endswith("]]")
            for iv in json.loads(cell)
        )
    ]
    empty_sys = [c for c in CASES if c.sys == "[]"]
    halves = [c for c in CASES if ".5" in c.sys or ".1" in c.sys]
    assert min(len(no_ref), len(zero), len(empty_sys), len(halves)) >= 5


def test_collar_inside_optout_segment_by_hand() -> None:
    """A hand-computed case through both paths: FC 100, ref [20, 40], sys [25, 50], opt-out [38, 45], collar 3.

    Collars [17, 23] and [37, 43]; no-score = [17, 23] + [37, 45].  Scored range [1, 100] minus 14.
    TP = [25, 37] = 12; FN = [23, 25] = 2; FP = [45, 50] = 5; TN = 99 - 14 - 12 - 2 - 5 = 66.
    MCC = (12*66 - 5*2) / sqrt(17 * 14 * 71 * 68) = 782 / sqrt(1149064).
    """
    case = _Case("v0000", "100", [("Clone", "[[20, 40]]")], "Processed", "[[25, 50]]", "[[38, 45]]")
    t = tables = _tables([case])
    report = score_temporal(
        tables["index"],
        None,
        tables["system"],
        journal_join=t["journal_join"],
        journal_mask=t["journal_mask"],
        collar=3,
    )
    (got,) = report.results[0].trials
    assert (got.tp, got.fn, got.fp, got.tn) == (12.0, 2.0, 5.0, 66.0)
    assert got.mcc == round(782 / (17 * 14 * 71 * 68) ** 0.5, 12)
    assert got == _old_report([case], None, collar=3, plan=False, truncate=True, video_optout=True)[0]


def test_adjacent_float_cut_points_classified_as_the_midpoint_test_does() -> None:
    """Collars around 10.6 and 16.6 (collar 3) end at 13.6 and start at 13.600000000000001: a piece one
    float wide.  The per-probe path classifies each piece by its midpoint, which here rounds onto the
    upper end, so the piece takes the state beyond it; the sweep must do the same (TP stays 0.0 rather
    than 1.8e-15, which would move the MCC from 0 to 8.8e-09)."""
    case = _Case(
        "v0000",
        "29",
        [
            ("Clone", "[[14.5, 14.5], [10.6, 16.6]]"),
            ("Clone", "[]"),
            ("Blur", "[[22, 23.5], [3, 8], [28, 29], [20, 23.5], [26, 27]]"),
        ],
        "Processed",
        "[[10.5, 17.4], [17.4, 20.4], [20.4, 42], [29, 42], [9, 13]]",
        "[]",
    )
    tables = _tables([case])
    for query, mcc_want in (("*", 0.0), ("Operation == 'Clone'", 0.0)):
        report = score_temporal(
            tables["index"],
            None,
            tables["system"],
            journal_join=tables["journal_join"],
            journal_mask=tables["journal_mask"],
            query=query,
            collar=3,
        )
        (got,) = report.results[0].trials
        ops = None if query == "*" else {"Clone"}
        assert got == _old_report([case], ops, collar=3, plan=False, truncate=True, video_optout=True)[0]
        assert (got.tp, got.fn, got.mcc) == (0.0, 0.0, mcc_want)


def test_segment_cells_parsed_in_small_chunks_give_the_same_trials(monkeypatch: pytest.MonkeyPatch) -> None:
    """Cells are converted a chunk of pairs at a time; chunks of 3 pairs (bad cells at their edges too)
    must give what the per-probe path gives."""
    import pytest_omfc.scoring.temporal.engine as engine

    monkeypatch.setattr(engine, "_CHUNK_PAIRS", 3)
    report = score_temporal(
        TABLES["index"],
        None,
        TABLES["system"],
        journal_join=TABLES["journal_join"],
        journal_mask=TABLES["journal_mask"],
        collar=2,
    )
    want = _old_report(CASES, None, collar=2, plan=False, truncate=True, video_optout=True)
    assert list(report.results[0].trials) == want


@pytest.mark.parametrize("groups", [50, 40_000])  # probe numbers within 16 bits (radix sort), and beyond
def test_event_order_is_lexsort_order(groups: int) -> None:
    """The sweep's stable (probe, position) order equals ``np.lexsort``, ties kept in input order."""
    from pytest_omfc.scoring.temporal.engine import _order

    rng = np.random.default_rng(groups)
    g = rng.integers(0, groups, 5_000)
    pos = rng.integers(0, 30, 5_000) / 2.0
    assert np.array_equal(_order(g, pos), np.lexsort((pos, g)))
    assert _order(np.zeros(0, dtype=np.intp), np.zeros(0)).size == 0
