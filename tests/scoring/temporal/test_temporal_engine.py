"""Video temporal localization engine (docs/scoring/temporal.md#definition, docs/scoring/conventions.md):
hand-computed cases and hostile input.

Every number is computed by hand in the docstring of its test (continuous coordinates: the length
of ``[a, b]`` is ``b - a``; pieces inside a collar or an opt-out segment are ignored).  Hostile
cases (huge videos, huge or nested cells) run in a subprocess under RLIMIT_AS and a timeout, so
a regression fails fast instead of eating the machine.
"""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from helpers.paths import REPO
from helpers.runs import PEAK_MB

from pytest_omfc.scoring.merge import ScoringError
from pytest_omfc.scoring.temporal.engine import (
    TemporalReport,
    TemporalTrial,
    interval_union,
    parse_segments,
    score_temporal,
)

JOIN = "ProbeFileID|JournalName|StartNodeID|EndNodeID\n"
MASK = "JournalName|StartNodeID|EndNodeID|Operation|VideoFrame\n"
SYS = "ProbeFileID|ConfidenceScore|ProbeStatus|VideoFrameSegments|AudioSampleSegments|VideoFrameOptOutSegments\n"


def _write(
    tmp: Path, probes: dict[str, int], ops: list[tuple[str, str, str]], sys_rows: list[tuple[str, str, str, str]]
) -> dict[str, Path]:
    """Tables for probes {id: FrameCount}, ops (probe, Operation, VideoFrame), sys (probe, status, segs, optout)."""
    files = {
        "index": "TaskID|ProbeFileID|FrameCount\n" + "".join(f"manipulation|{p}|{fc}\n" for p, fc in probes.items()),
        "journal_join": JOIN + "".join(f"{p}|j{p}|n{i}|n{i + 1}\n" for i, (p, _, _) in enumerate(ops)),
        "journal_mask": MASK + "".join(f"j{p}|n{i}|n{i + 1}|{op}|{vf}\n" for i, (p, op, vf) in enumerate(ops)),
        "system": SYS + "".join(f"{p}|0.5|{st}|{segs}|[]|{oo}\n" for p, st, segs, oo in sys_rows),
    }
    out = {}
    for name, text in files.items():
        out[name] = tmp / f"{name}.csv"
        out[name].write_text(text)
    return out


def _score(paths: dict[str, Path], **kw: object) -> TemporalReport:
    return score_temporal(
        paths["index"],
        None,
        paths["system"],
        journal_join=paths["journal_join"],
        journal_mask=paths["journal_mask"],
        **kw,
    )  # type: ignore[arg-type]


def _one(report: TemporalReport, q: int = 0) -> TemporalTrial:
    (trial,) = report.results[q].trials
    return trial


def _mcc(tp: float, tn: float, fp: float, fn: float) -> float:
    return (tp * tn - fp * fn) / math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))


# --------------------------------------------------------------------------- hand-computed cases


def test_collar_overlapping_optout_segment(tmp_path: Path) -> None:
    """FC 100, ref [20,40], sys [30,60], collar 5 -> collars [15,25], [35,45]; SNS [35,50] overrides the collar.

    [1,15] TN 14 | [15,25] collar | [25,30] FN 5 | [30,35] TP 5 | [35,50] SNS | [50,60] FP 10 | [60,100] TN 40.
    Without video opt-out: [35,45] collar, [45,50] FP 5 -> TP 5, TN 54, FP 15, FN 5.
    """
    p = _write(
        tmp_path, {"v": 100}, [("v", "PasteFrames", "[[20,40]]")], [("v", "Processed", "[[30,60]]", "[[35,50]]")]
    )
    t = _one(_score(p, collar=5))
    assert (t.tp, t.tn, t.fp, t.fn) == (5.0, 54.0, 10.0, 5.0)
    assert t.mcc == pytest.approx(_mcc(5, 54, 10, 5), abs=1e-12)
    t = _one(_score(p, collar=5, video_optout=False))
    assert (t.tp, t.tn, t.fp, t.fn) == (5.0, 54.0, 15.0, 5.0)
    assert t.mcc == pytest.approx(_mcc(5, 54, 15, 5), abs=1e-12)


def test_zero_length_reference_interval(tmp_path: Path) -> None:
    """A zero-length [50,50] is no reference, but (as in MediScore) its endpoints still get collars.

    ref [50,50] u [60,70], sys [60,70], collar 2, FC 100: [1,48] TN 47 | [48,52] collar | [52,58] TN 6 |
    [58,62] collar | [62,68] TP 6 | [68,72] collar | [72,100] TN 28 -> TP 6, TN 81, MCC 1.
    Alone, [50,50] leaves an empty reference: MCC 0 (docs/scoring/temporal.md#definition), not an error.
    Plan convention (inclusive frames): [50,50] is frame 50, one frame of reference.
    """
    p = _write(
        tmp_path,
        {"v": 100},
        [("v", "PasteFrames", "[[50,50]]"), ("v", "Clone", "[[60,70]]")],
        [("v", "Processed", "[[60,70]]", "[]")],
    )
    t = _one(_score(p, collar=2))
    assert (t.tp, t.tn, t.fp, t.fn, t.mcc) == (6.0, 81.0, 0.0, 0.0, 1.0)
    t = _one(_score(p, query="Operation == 'PasteFrames'"))
    assert (t.status, t.tp, t.fn, t.fp, t.mcc) == ("scored", 0.0, 0.0, 10.0, 0.0)
    # plan: ref frames 50 and 60..70 = [50,51) u [60,71); sys [60,71); video [1,101): TP 11, FN 1, TN 88.
    t = _one(_score(p, convention="plan"))
    assert (t.tp, t.tn, t.fp, t.fn) == (11.0, 88.0, 0.0, 1.0)
    assert t.mcc == pytest.approx(_mcc(11, 88, 0, 1), abs=1e-12)


def test_touching_intervals_merge_before_collars(tmp_path: Path) -> None:
    """[10,20] and [20,30] (two operations) touch: one reference [10,30], so no collar at 20.

    sys [10,30], collar 2, FC 100: [1,8] TN 7 | [8,12] collar | [12,28] TP 16 | [28,32] collar | [32,100] TN 68.
    """
    p = _write(
        tmp_path,
        {"v": 100},
        [("v", "PasteFrames", "[[10,20]]"), ("v", "Clone", "[[30, 20]]")],
        [("v", "Processed", "[[10,20],[20,30]]", "[]")],
    )
    t = _one(_score(p, collar=2))
    assert (t.tp, t.tn, t.fp, t.fn, t.mcc) == (16.0, 75.0, 0.0, 0.0, 1.0)
    assert interval_union(np.array([[20.0, 30.0], [10.0, 20.0], [40.0, 40.0]])).tolist() == [[10, 30], [40, 40]]


def test_query_selects_one_operation(tmp_path: Path) -> None:
    """Probe a: PasteFrames [10,20], Blur [50,60]; sys [10,20]; probe b: Blur only; FC 100 for both.

    "*": a has ref [10,20] u [50,60]: TP 10, FN 10, TN 79 (b: ref [5,15], sys empty: MCC 0).
    "Operation == 'PasteFrames'": only probe a, ref [10,20]; the Blur frames count as negatives: TP 10, TN 89.
    """
    p = _write(
        tmp_path,
        {"a": 100, "b": 100},
        [("a", "PasteFrames", "[[10,20]]"), ("a", "Blur", "[[50,60]]"), ("b", "Blur", "[[5,15]]")],
        [("a", "Processed", "[[10,20]]", "[]"), ("b", "Processed", "[]", "[]")],
    )
    r = _score(p, query=["*", "Operation == 'PasteFrames'"])
    all_, paste = r.results
    assert [(t.probe, t.tp, t.tn, t.fn) for t in all_.trials] == [("a", 10.0, 79.0, 10.0), ("b", 0.0, 89.0, 10.0)]
    assert all_.mcc == pytest.approx(round((round(_mcc(10, 79, 0, 10), 12) + 0.0) / 2, 12), abs=1e-15)
    assert (all_.kind, paste.kind) == ("all", "q")
    assert [(t.probe, t.tp, t.tn, t.mcc) for t in paste.trials] == [("a", 10.0, 89.0, 1.0)]
    assert paste.metrics == {"MCC": 1.0}


def test_non_processed_probe_skipped(tmp_path: Path) -> None:
    """A NonProcessed probe is dropped from scoring and from the mean, unless optout_filter=False."""
    p = _write(
        tmp_path,
        {"a": 100, "b": 100},
        [("a", "Clone", "[[10,20]]"), ("b", "Clone", "[[10,20]]")],
        [("a", "Processed", "[[10,20]]", "[]"), ("b", "NonProcessed", "[[60,70]]", "[]")],
    )
    res = _score(p).results[0]
    assert [(t.probe, t.status) for t in res.trials] == [("a", "scored"), ("b", "opted_out")]
    assert res.trials[1].reason == "opted out ('NonProcessed' is not Processed)"
    assert res.mcc == 1.0 and not res.failed
    res = _score(p, optout_filter=False).results[0]
    # b: ref [10,20], sys [60,70]: TP 0, FN 10, FP 10, TN 79 -> MCC (0 - 100)/sqrt(10*10*89*89) = -10/89.
    assert res.trials[1].mcc == pytest.approx(round(-10 / 89, 12), abs=1e-15)
    assert res.mcc == pytest.approx(round((1.0 + round(-10 / 89, 12)) / 2, 12), abs=1e-15)


def test_truncation_mediscore_default_and_plan_only_when_asked(tmp_path: Path) -> None:
    """sys [90,150] on FC 100: MediScore truncates always -> [90,100]; plan refuses unless truncate=True.

    ref [90,100]: MediScore TP 10, TN 89 (MCC 1). Plan (inclusive, video [1,101)): truncated [90,101), TP 11.
    """
    p = _write(tmp_path, {"v": 100}, [("v", "Clone", "[[90,100]]")], [("v", "Processed", "[[90,150],[120,130]]", "[]")])
    t = _one(_score(p))
    assert (t.tp, t.tn, t.mcc) == (10.0, 89.0, 1.0)
    t = _one(_score(p, convention="plan"))
    assert t.status == "error"
    assert t.reason == (
        "system.csv:2 [ProbeFileID=v] VideoFrameSegments: system interval [90, 150] must lie within the video "
        "[1, 100] (truncation is off) (got [90, 150]); trial not scored"
    )
    t = _one(_score(p, convention="plan", truncate=True))
    assert (t.tp, t.tn, t.mcc) == (11.0, 89.0, 1.0)


# --------------------------------------------------------------------------- bad input: per-trial reasons


def test_reference_outside_video_fails_that_trial_only(tmp_path: Path) -> None:
    """MediScore asserts and aborts every probe; here only the trial fails, naming probe and interval."""
    p = _write(
        tmp_path,
        {"a": 100, "b": 100},
        [("a", "Clone", "[[90,120]]"), ("b", "Clone", "[[10,20]]")],
        [("a", "Processed", "[[90,100]]", "[]"), ("b", "Processed", "[[10,20]]", "[]")],
    )
    res = _score(p).results[0]
    bad, good = res.trials
    assert bad.status == "error"
    assert bad.reason == (
        "journal_mask.csv:2 [ProbeFileID=a] VideoFrame: reference interval [90, 120] of probe a "
        "must lie within the video [1, 100] (got [90, 120]); trial not scored"
    )
    assert (good.status, good.mcc) == ("scored", 1.0)
    assert res.mcc == 1.0 and res.failed == (bad,)


@pytest.mark.parametrize(
    ("cell", "message"),
    [
        ("[[1,2]", "must be a JSON list of [start, end] pairs (got text that is not JSON)"),
        ("__import__('os')", "must be a JSON list of [start, end] pairs (got text that is not JSON)"),
        ('{"a": 1}', "must be a JSON list of [start, end] pairs (got a JSON dict)"),
        ("[[1,2,3]]", "must be a list of [start, end] number pairs (got element [1, 2, 3])"),
        ('[[1,"2"]]', "must be a list of [start, end] number pairs (got element [1, '2'])"),
        ("[[1,NaN]]", "must hold finite numbers (got NaN or Infinity)"),
        ("[[1,1" + "0" * 400 + "]]", "must hold finite numbers (got an integer too large for a float)"),
    ],
    ids=["unclosed", "python-call", "object", "triple", "string", "nan", "huge-int"],
)
def test_system_segments_not_json_are_a_trial_reason(tmp_path: Path, cell: str, message: str) -> None:
    p = _write(
        tmp_path,
        {"a": 100, "b": 100},
        [("a", "Clone", "[[10,20]]"), ("b", "Clone", "[[10,20]]")],
        [("a", "Processed", cell, "[]"), ("b", "Processed", "[[10,20]]", "[]")],
    )
    bad, good = _score(p).results[0].trials
    assert bad.status == "error" and bad.reason is not None
    assert bad.reason.startswith("system.csv:2 [ProbeFileID=a] VideoFrameSegments=")
    assert bad.reason.endswith(": " + message)
    assert (good.status, good.mcc) == ("scored", 1.0)


def test_journal_video_frame_not_json_names_file_and_line(tmp_path: Path) -> None:
    p = _write(
        tmp_path,
        {"a": 100},
        [("a", "Clone", "[[10,20]]"), ("a", "Blur", "[(30, 40)]")],
        [("a", "Processed", "[[10,20]]", "[]")],
    )
    t = _one(_score(p))
    assert t.reason == (
        "journal_mask.csv:3 [ProbeFileID=a] VideoFrame='[(30, 40)]': must be a JSON list of "
        "[start, end] pairs (got text that is not JSON)"
    )
    # a query that does not select the bad operation scores the probe
    assert _one(_score(p, query="Operation == 'Clone'")).mcc == 1.0


def test_duplicate_or_missing_system_row_and_bad_query(tmp_path: Path) -> None:
    p = _write(
        tmp_path,
        {"a": 100, "b": 100},
        [("a", "Clone", "[[10,20]]"), ("b", "Clone", "[[10,20]]")],
        [("a", "Processed", "[[10,20]]", "[]"), ("a", "Processed", "[]", "[]")],
    )
    r = _score(p, query=["*", "NoSuchColumn == 1"])
    a, b = r.results[0].trials
    assert a.reason == "system.csv:2, 3 [ProbeFileID=a]: the probe must have one system output row (got 2)"
    assert b.reason == "system.csv [ProbeFileID=b]: the probe must have a system output row (got none)"
    assert math.isnan(r.results[0].mcc)
    assert r.results[1].error is not None
    assert r.results[1].error.startswith("query 'NoSuchColumn == 1' (q) cannot be evaluated")
    assert r.results[1].error.endswith("unknown column(s) ['NoSuchColumn']")


def test_unusable_tables_raise_scoring_error(tmp_path: Path) -> None:
    p = _write(tmp_path, {"a": 100}, [("a", "Clone", "[[10,20]]")], [("a", "Processed", "[]", "[]")])
    with pytest.raises(ScoringError, match=r"^collar must be an integer >= 0 \(got -1\)$"):
        _score(p, collar=-1)
    p["journal_mask"].write_text("JournalName|StartNodeID|EndNodeID|Operation\n")
    with pytest.raises(ScoringError, match=r"^journal mask table lacks column\(s\) \['VideoFrame'\]"):
        _score(p)


# --------------------------------------------------------------------------- hostile: bounded time and memory

_RUNNER = """
import resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, ({cap}, {cap}))
sys.path.insert(0, {root!r})
import numpy as np
from pytest_omfc.scoring.temporal import parse_segments, score_temporal
t0 = time.perf_counter()
{body}
print("elapsed", time.perf_counter() - t0)
{peak}
print("maxrss_kb", peak_mb() * 1024)
"""


def _bounded(body: str, cap: int = 1_500_000_000, timeout: float = 60) -> str:
    """Run ``body`` in a subprocess under RLIMIT_AS ``cap`` and ``timeout``; return its stdout."""
    root = str(REPO)
    code = _RUNNER.format(cap=cap, root=root, body=textwrap.dedent(body), peak=PEAK_MB)
    done = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_billion_frame_video_costs_its_intervals_not_its_frames(tmp_path: Path) -> None:
    """FrameCount 2e9 (a per-frame bool array would need 2 GB): ref [1e9, 1.5e9], sys [1.2e9, 1.8e9], collar 5.

    TP 3e8 - 5 (collar at 1.5e9), FN 2e8 - 5 (collar at 1e9), FP 3e8 - 5, TN 1.2e9 - 1 - 5 (collar at 1e9).
    """
    p = _write(
        tmp_path,
        {"v": 2_000_000_000},
        [("v", "Clone", "[[1000000000,1500000000]]")],
        [("v", "Processed", "[[1200000000,1800000000]]", "[]")],
    )
    out = _bounded(
        f"""
        p = { ({k: str(v) for k, v in p.items()})!r}
        r = score_temporal(p["index"], None, p["system"], journal_join=p["journal_join"],
                           journal_mask=p["journal_mask"], collar=5)
        t = r.results[0].trials[0]
        print("counts", t.tp, t.fn, t.fp, t.tn)
    """,
        timeout=30,
    )
    assert "counts 299999995.0 199999995.0 299999995.0 1199999994.0" in out


def test_huge_and_nested_cells_are_refused_bounded() -> None:
    """100,001 intervals and 100,000 nested brackets: refused with a reason, no RecursionError, < 1.5 GB."""
    out = _bounded(
        """
        from pytest_omfc.scoring.temporal import SegmentError
        for cell in ("[" + ",".join(["[1,2]"] * 100001) + "]", "[" * 100000 + "]" * 100000, "[" * 10**7):
            try:
                parse_segments(cell)
            except SegmentError as exc:
                print("refused", str(exc))
        print("ok", len(parse_segments("[" + ",".join(["[1,2]"] * 100000) + "]")))
    """,
        timeout=30,
    )
    assert "refused must hold at most 100000 intervals (got 100001)" in out
    assert "refused must be a JSON list of [start, end] pairs (got text that is not JSON)" in out
    assert "refused must hold at most 100000 intervals (got 10000000 characters)" in out
    assert "ok 100000" in out


def test_parse_segments_uses_json_not_eval() -> None:
    assert parse_segments(" [[5, 1], [2.5, 3]] ").tolist() == [[1.0, 5.0], [2.5, 3.0]]
    assert parse_segments("").shape == (0, 2) and parse_segments("[]").shape == (0, 2)
    with pytest.raises(ValueError, match="not JSON"):
        parse_segments("[(1, 2)]")
    with pytest.raises(ValueError, match=r"got element True"):
        parse_segments("[true]")
