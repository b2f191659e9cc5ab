"""VSEG rules: video-frame and audio-sample segment lists (docs/rules/vseg.md, D-05, D-17, D-18; B-07/B-08/B-09)."""

from __future__ import annotations

import math
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_omfc.models.documents import IntervalList
from pytest_omfc.models.segments import first_overlap

IDX_HEADER = ["TaskID", "ProbeFileID", "ProbeFileName", "ProbeWidth", "ProbeHeight", "FrameCount"]
OUT_HEADER = [
    "ProbeFileID",
    "ConfidenceScore",
    "ProbeStatus",
    "VideoFrameSegments",
    "AudioSampleSegments",
    "VideoFrameOptOutSegments",
]
VSEG_ITEMS = ("VSEG-01", "VSEG-02", "VSEG-03", "VSEG-04", "VSEG-05", "VSEG-06", "VSEG-07", "VSEG-08", "VSEG-10")


def make(
    omfc,
    rows,
    *,
    edition="MFC2019",
    task="manipulation-video",
    frame_count=100,
    index_header=IDX_HEADER,
    header=OUT_HEADER,
    extra=(),
):
    """One index trial per row (v1, v2, ...); ``rows`` are (status, frames, audio, opt-out) cells."""
    ids = [f"v{i + 1}" for i in range(len(rows))]
    index_rows = [
        ["manipulation-video", i, f"probe/{i}.mp4", 320, 240, frame_count, *extra][: len(index_header)] for i in ids
    ]
    out_rows = [[i, 0.5, *cells][: len(header)] for i, cells in zip(ids, rows, strict=False)]
    return omfc.case(edition, task, header=header, rows=out_rows, index_header=index_header, index_rows=index_rows)


def ok(status="Processed", frames="[]", audio="[]", optout="[]"):
    return [status, frames, audio, optout]


def test_valid_lists_pass_every_vseg(omfc):
    """VSEG-08 any order; D-17 audio beyond FrameCount; [[90,100]] reaches FrameCount exactly; '[ ]' is empty."""
    res = make(
        omfc,
        [
            ok(frames="[[1, 10], [20, 30]]", audio="[[1,4000]]", optout="[[11,19]]"),
            ok("OptOutSpatial", frames="[[50,60],[1,10]]", audio="[ ]", optout="[[90,100]]"),
            ok("NonProcessed"),
        ],
    ).run()
    for rid in VSEG_ITEMS:
        assert res.outcome(rid) == "passed", res.text(rid)
        assert res.warning(rid) is None, res.warning(rid)
    for rid in ("VSEG-09", "VSEG-11", "VSEG-12"):  # not_checked: listed, never collected
        assert rid not in res.reports


def test_vseg01_unreadable_cells(omfc):
    """Empty cell, flat list (V0), broken JSON, JSON null and NaN are errors; other rules skip those cells."""
    res = make(
        omfc, [ok(frames=""), ok(audio="[23,46]"), ok(optout="[[1,2]"), ok(frames="null"), ok(frames="[[1, NaN]]")]
    ).run()
    assert res.outcome("VSEG-01") == "failed"
    assert res.first_line("VSEG-01") == "VSEG-01: 5 cells cannot be read as a list of [start, end] pairs (showing 5)"
    text = res.text("VSEG-01")
    assert (
        "[v1] VideoFrameSegments='': must be a JSON list of [start, end] pairs, [] for none (got an empty cell)" in text
    )
    assert (
        "[v2] AudioSampleSegments='[23,46]': must be a list of [start, end] pairs (got a flat list; write [[23,46]])"
        in text
    )
    assert "[v3] VideoFrameOptOutSegments='[[1,2]': must be a JSON list of [start, end] pairs" in text
    assert "[v4] VideoFrameSegments='null': must be a list of [start, end] pairs (got null)" in text
    assert res.outcome("VSEG-02") == "passed"


def test_vseg01_python_tuples_warn(omfc):
    """MediScore reads cells with ast.literal_eval: tuples are accepted there, so only a warning; still validated."""
    res = make(omfc, [ok(frames="[(1, 10)]"), ok(frames="((0, 5),)")]).run()
    assert res.outcome("VSEG-01") == "passed"
    assert (
        res.warning("VSEG-01").splitlines()[0]
        == "VSEG-01: 2 cells use Python literal syntax instead of JSON (showing 2)"
    )
    assert res.first_line("VSEG-05") == "VSEG-05: 1 frame interval lies outside [1, FrameCount] (showing 1)"


def test_vseg02_not_a_pair(omfc):
    res = make(
        omfc,
        [
            ok(frames="[[1,10,20]]"),
            ok(frames='[[1,"a"]]'),
            ok(audio="[[]]"),
            ok(frames="[[1, 1e999]]"),
            ok(frames="[[1, true]]"),
        ],
    ).run()
    assert res.outcome("VSEG-02") == "failed"
    assert res.first_line("VSEG-02") == "VSEG-02: 5 intervals are not a pair of two numbers (showing 5)"
    text = res.text("VSEG-02")
    assert "element 1 must be a [start, end] pair of two numbers (got [1, 10, 20]: 3 values)" in text
    assert "element 1 must hold finite numbers (got [1, inf])" in text
    assert "(got [1, True]: a non-number)" in text
    assert res.outcome("VSEG-01") == "passed"


@pytest.mark.parametrize("edition", ["MFC2018", "MFC2019"])
def test_vseg03_reversed_is_not_unreadable(omfc, edition):
    """B-07: MediScore reports [[30,20]] as unreadable; here it is VSEG-03 and VSEG-01 passes."""
    res = make(omfc, [ok(frames="[[30,20]]"), ok(frames="[[20,30]]")], edition=edition).run()
    assert res.first_line("VSEG-03") == "VSEG-03: 1 interval ends before it starts (showing 1)"
    assert "[v1] VideoFrameSegments='[[30,20]]': interval 1 must have start <= end (got [30, 20])" in res.text(
        "VSEG-03"
    )
    assert res.outcome("VSEG-01") == "passed"


def test_vseg04_integer_endpoints(omfc):
    """MFC19 §3.5.1 "integer intervals": 1.5 is an error (MediScore passes it, vid_float); 2.0 is a warning."""
    res = make(omfc, [ok(frames="[[1.5,2.5]]"), ok(audio="[[2.0, 3.0]]")]).run()
    assert res.outcome("VSEG-04") == "failed"
    assert res.first_line("VSEG-04") == "VSEG-04: 1 error: interval endpoints that are not integers (showing 1)"
    assert "endpoints must be integer frame numbers (got [1.5, 2.5])" in res.text("VSEG-04")
    assert (
        res.warning("VSEG-04").splitlines()[0]
        == "VSEG-04: 1 warning: interval endpoints that are not integers (showing 1)"
    )
    assert "endpoints should be written as integers (got [2.0, 3.0])" in res.warning("VSEG-04")


def test_vseg04_integral_floats_only_warn(omfc):
    res = make(omfc, [ok(frames="[[2.0, 3.0]]")]).run()
    assert res.outcome("VSEG-04") == "passed"
    assert res.warning("VSEG-04").splitlines()[0] == "VSEG-04: 1 interval writes integers as floats (showing 1)"


def test_vseg05_frame_bounds(omfc):
    """Frame 0 (vid_frame0) and FrameCount + 1 (vid_eof_101) in both frame columns; [[90,100]] passes."""
    res = make(omfc, [ok(frames="[[0,5]]"), ok(frames="[[90,100]]", optout="[[90,101]]")]).run()
    assert res.outcome("VSEG-05") == "failed"
    assert res.first_line("VSEG-05") == "VSEG-05: 2 frame intervals lie outside [1, FrameCount] (showing 2)"
    text = res.text("VSEG-05")
    assert (
        "[v1] VideoFrameSegments='[[0,5]]': interval 1 must lie within the video's frames [1, 100] (got [0, 5])" in text
    )
    assert (
        "[v2] VideoFrameOptOutSegments='[[90,101]]': interval 1 must lie within the video's frames [1, 100] (got "
        "[90, 101])" in text
    )


def test_vseg05_without_framecount_checks_frame_1_and_warns(omfc):
    """No FrameCount column: the videos are not opened; the upper bound is skipped with a warning."""
    header = IDX_HEADER[:-1]
    res = make(omfc, [ok(frames="[[1,5000]]")], index_header=header).run()
    assert res.outcome("VSEG-05") == "passed"
    assert res.warning("VSEG-05").splitlines()[0] == "VSEG-05: frame intervals checked against frame 1 only (showing 1)"
    assert "the index has no FrameCount column (the videos are not opened)" in res.warning("VSEG-05")
    res = make(omfc, [ok(frames="[[0,5000]]")], index_header=header).run()
    assert (
        res.first_line("VSEG-05")
        == "VSEG-05: 1 error: frame intervals outside [1, FrameCount], or not checked against it (showing 1)"
    )
    assert "must lie within the video's frames [1, FrameCount] (got [0, 5000])" in res.text("VSEG-05")


def test_vseg06_audio_bounds(omfc):
    """D-17/B-08: audio is not bounded by FrameCount (4600 > 100 passes) but starts at sample 1."""
    res = make(omfc, [ok(audio="[[0,5]]"), ok(audio="[[23,4600]]")]).run()
    assert res.outcome("VSEG-06") == "failed"
    assert res.first_line("VSEG-06") == "VSEG-06: 1 audio interval lies outside the audio samples (showing 1)"
    assert "[v1] AudioSampleSegments='[[0,5]]': interval 1 must lie within sample 1 or later (got [0, 5])" in res.text(
        "VSEG-06"
    )
    assert "[v2]" not in res.text("VSEG-06")


def test_vseg06_bounded_by_a_sample_count_column(omfc):
    header = IDX_HEADER + ["AudioSampleCount"]
    res = make(omfc, [ok(audio="[[1,4000]]"), ok(audio="[[1,4001]]")], index_header=header, extra=(4000,)).run()
    assert res.first_line("VSEG-06") == "VSEG-06: 1 audio interval lies outside the audio samples (showing 1)"
    assert (
        "[v2] AudioSampleSegments='[[1,4001]]': interval 1 must lie within [1, 4000] (AudioSampleCount) (got [1, 4001])"
        in res.text("VSEG-06")
    )


OVERLAPS = [
    ("[[23,46],[39,40]]", "interval 2 [39, 40] must not overlap interval 1 [23, 46] (got shared frames 39-40)"),  # V2
    ("[[10,20],[1,100]]", "interval 2 [1, 100] must not overlap interval 1 [10, 20] (got shared frames 10-20)"),  # B-09
    ("[[1,100],[10,20]]", "interval 2 [10, 20] must not overlap interval 1 [1, 100] (got shared frames 10-20)"),
    ("[[10,10],[1,20]]", "interval 2 [1, 20] must not overlap interval 1 [10, 10] (got shared frame 10)"),  # B-09
    ("[[10,10],[10,10]]", "interval 2 [10, 10] must not overlap interval 1 [10, 10] (got shared frame 10)"),  # B-09
    (
        "[[1,10],[10,20]]",
        "interval 2 [10, 20] must not overlap interval 1 [1, 10] (got shared frame 10) "
        "(closed intervals: a shared endpoint overlaps; --omfc-allow-touching-segments allows it)",
    ),
]


def test_vseg07_overlap_in_either_order(omfc):
    """D-18: symmetric pairwise test; containment and duplicate singular frames are found whatever the order (B-09)."""
    res = make(omfc, [ok(frames=cell) for cell, _ in OVERLAPS]).run()
    assert res.outcome("VSEG-07") == "failed"
    assert res.first_line("VSEG-07") == "VSEG-07: 6 intervals overlap another interval in the same list (showing 6)"
    text = res.text("VSEG-07")
    for n, (cell, message) in enumerate(OVERLAPS, start=1):
        assert f"[v{n}] VideoFrameSegments={cell!r}: {message}" in text


def test_vseg07_allow_touching(omfc):
    """With the option a shared endpoint is fine, but a duplicate or an inner singular frame still overlaps."""
    rows = [
        ok(frames="[[1,10],[10,20]]"),
        ok(frames="[[1,10],[10,10]]"),
        ok(frames="[[10,10],[10,10]]"),
        ok(frames="[[1,20],[10,10]]"),
    ]
    res = make(omfc, rows).run("--omfc-allow-touching-segments")
    assert res.first_line("VSEG-07") == "VSEG-07: 2 intervals overlap another interval in the same list (showing 2)"
    text = res.text("VSEG-07")
    assert "[v1]" not in text and "[v2]" not in text
    assert (
        "[v3] VideoFrameSegments='[[10,10],[10,10]]'" in text and "[v4] VideoFrameSegments='[[1,20],[10,10]]'" in text
    )


def test_vseg07_ignore_overlap_warns(omfc):
    """MediScore's --ignore_overlap (V2.1): the overlap is reported as a warning and the item passes."""
    res = make(omfc, [ok(audio="[[23,46],[39,40]]")]).run("--omfc-ignore-overlap")
    assert res.outcome("VSEG-07") == "passed"
    assert (
        res.warning("VSEG-07").splitlines()[0]
        == "VSEG-07: 1 interval overlaps another interval in the same list (--omfc-ignore-overlap) (showing 1)"
    )
    assert "(got shared samples 39-40)" in res.warning("VSEG-07")


def test_vseg10_failed_validation_is_excused(omfc):
    """STATUS-08/V3: FailedValidation rows skip every interval check (warned); NonProcessed rows do not."""
    res = make(omfc, [ok("FailedValidation", frames="[[0,500]]", audio=""), ok("NonProcessed", frames="[[0,5]]")]).run()
    assert res.outcome("VSEG-01") == "passed"
    assert res.first_line("VSEG-05") == "VSEG-05: 1 frame interval lies outside [1, FrameCount] (showing 1)"
    assert "[v2]" in res.text("VSEG-05") and "[v1]" not in res.text("VSEG-05")
    assert res.outcome("VSEG-10") == "passed"
    warning = res.warning("VSEG-10")
    assert (
        warning.splitlines()[0]
        == "VSEG-10: 1 FailedValidation row with invalid intervals excused (STATUS-08) (showing 1)"
    )
    assert "[v1] ProbeStatus='FailedValidation': FailedValidation excuses this row from the interval checks" in warning


def test_isoptout_file_skips_interval_checks(omfc):
    """VB2: a video file with IsOptOut carries no intervals; the VSEG items skip and say why."""
    res = make(omfc, [["N"], ["Y"]], header=["ProbeFileID", "ConfidenceScore", "IsOptOut"]).run()
    assert res.outcome("VSEG-01") == "skipped"
    assert (
        res.first_line("VSEG-01")
        == "VSEG-01 skipped: the file uses IsOptOut: NC2017-style video rows carry no intervals (VB2)"
    )


def test_openmfc_segments_only_when_present(omfc):
    """D-05: OpenMFC VMD is detection only; segment columns, when present, are validated."""
    res = make(omfc, [["Processed"]], edition="OpenMFC2020", task="VMD", header=OUT_HEADER[:3]).run()
    assert res.first_line("VSEG-01") == "VSEG-01 skipped: no segment columns: OpenMFC VMD/VGMD is detection only (D-05)"
    res = make(omfc, [["Processed", "[1,10]"]], edition="OpenMFC2020", task="VMD", header=OUT_HEADER[:4]).run()
    assert res.first_line("VSEG-01") == "VSEG-01: 1 cell cannot be read as a list of [start, end] pairs (showing 1)"


# ---------------------------------------------------------------------------- model and speed (no pytester)


@pytest.mark.parametrize(
    "cell, valid",
    [
        ("[[3, 33], [40, 46]]", True),
        ("[]", True),
        ("[[50,60],[1,10]]", True),
        ("[[30,20]]", False),
        ("[[1,10],[10,20]]", False),
        ("[[10,20],[1,100]]", False),
        ("[[0,5]]", False),
        ("[[1.5,2]]", False),
        ("[23,46]", False),
        ("[[1,2,3]]", False),
    ],
)
def test_interval_list_model_agrees_with_the_rules(cell, valid):
    """The schema model ``segments.IntervalList`` accepts exactly what VSEG-01...07 accept (bounds aside)."""
    try:
        IntervalList.model_validate_json(cell)
    except ValueError:
        assert not valid
    else:
        assert valid


def test_first_overlap_is_order_independent():
    assert first_overlap([(10, 20), (1, 100)]) == (0, 1)
    assert first_overlap([(1, 10), (10, 10)], allow_touching=True) is None
    assert first_overlap([(10, 10), (10, 10)], allow_touching=True) == (0, 1)
    assert first_overlap([(50, 60), (1, 10), (11, 49)]) is None


def _big_submission(tmp_path, name, cells, n=16_000):
    from pytest_omfc.editions import Edition, Task
    from pytest_omfc.submission import Settings

    sub = tmp_path / name
    sub.mkdir()
    index = tmp_path / "MFC2019-manipulation-video-index.csv"
    index.write_text(
        "TaskID|ProbeFileID|ProbeFileName|ProbeWidth|ProbeHeight|FrameCount\n"
        + "".join(f"manipulation-video|v{i}|probe/v{i}.mp4|320|240|1000\n" for i in range(n))
    )
    k = len(cells)
    (sub / f"{name}.csv").write_text(
        "|".join(OUT_HEADER)
        + "\n"
        + "".join(f"v{i}|0.5|Processed|{cells[i % k]}|{cells[(i + 1) % k]}|{cells[(i + 2) % k]}\n" for i in range(n))
    )
    return Settings(submission=sub, csv=sub / f"{name}.csv", index=index, edition=Edition.MFC2019, task=Task.VID)


def _run_vseg(settings):
    """All VSEG outcomes on a fresh Submission, and the CPU time they took (the CSV is read beforehand)."""
    from pytest_omfc.registry import REGISTRY
    from pytest_omfc.submission import Submission

    ctx = Submission(settings)
    ctx.sysout(), ctx.index(), ctx.sys_keys, ctx.index_keys  # reading the files is not part of VSEG
    t0 = time.process_time()
    outcomes = {rid: ctx.outcome(REGISTRY[rid]) for rid in VSEG_ITEMS}
    return outcomes, time.process_time() - t0


def test_16000_rows_take_well_under_a_second(tmp_path):
    """16,000 valid rows, about 48,000 intervals: CPU time (best of 3, robust to a busy machine) under 1 s."""
    settings = _big_submission(
        tmp_path,
        "p-speed_1",
        ["[[1, 10], [20, 30], [40, 50]]", "[]", "[[5,5]]", "[[900, 1000]]", "[[1,2],[4,5]]", "[[1,10],[15,16]]"],
    )
    best = math.inf
    for _ in range(3):
        outcomes, cpu = _run_vseg(settings)
        assert all(not o.failed and o.skipped is None and not o.findings for o in outcomes.values()), outcomes
        best = min(best, cpu)
    assert best < 1.0, f"VSEG checks took {best:.2f} s of CPU on 16000 rows"


def test_16000_rows_with_many_problems(tmp_path):
    """Thousands of findings (tuples, overlaps, out of bounds) are still found exactly and quickly."""
    cells = [
        "[[1, 10], [20, 30], [40, 50]]",
        "[]",
        "[[5,5]]",
        "[[900, 1000]]",
        "[(1, 2)]",
        "[[1,10],[5,6]]",
        "[[0,1001]]",
    ]
    outcomes, cpu = _run_vseg(_big_submission(tmp_path, "p-bad_1", cells))
    assert all(o.crashed is None and o.skipped is None for o in outcomes.values()), outcomes
    assert outcomes["VSEG-07"].errors.total == sum(1 for i in range(16_000) if i % 7 in (3, 4, 5))  # [[1,10],[5,6]]
    assert outcomes["VSEG-01"].warnings.total == sum(1 for i in range(16_000) if i % 7 in (2, 3, 4))  # [(1, 2)]
    assert outcomes["VSEG-05"].errors.total == sum(
        1 for i in range(16_000) if i % 7 in (4, 6)
    )  # [[0,1001]] in a frame column
    assert cpu < 3.0, f"VSEG checks took {cpu:.2f} s of CPU"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.sampled_from([-math.inf, 1.0, 2.5, 7.0, 40.0, math.inf])), max_size=40))
def test_vseg07_running_maximum_restarts_in_each_cell(rows: list[tuple[int, float]]) -> None:
    """VSEG-07's overlap pass takes the furthest end so far per cell in one numpy pass (no pandas groupby): the
    same numbers as pandas' ``groupby(...).cummax()`` over cells in ascending order."""
    import numpy as np
    import pandas as pd

    from pytest_omfc.rules.vseg import _running_max

    rows.sort(key=lambda r: r[0])  # the pass runs over intervals sorted by cell
    cells = np.array([c for c, _ in rows], dtype=np.int64)
    values = np.array([v for _, v in rows], dtype=np.float64)
    run = np.cumsum(np.r_[True, cells[1:] != cells[:-1]]) - 1 if len(rows) else cells
    want = pd.Series(values).groupby(cells).cummax().to_numpy()
    assert _running_max(values, run).tolist() == want.tolist()
