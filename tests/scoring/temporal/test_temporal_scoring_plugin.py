"""Video temporal localization scoring through the plugin (issue 11; docs/scoring/temporal.md#definition,
docs/scoring/conventions.md).

The hand-computable case: two probes of 101 frames (MediScore's continuous range [1, 101], length 100).
v1's journal has PasteFrames [21, 41] and Blur [61, 81]; its system output is [[21, 41]]:
TP 20, FN 20, FP 0, TN 60, MCC = 1200 / sqrt(20*40*60*80) = sqrt(3/8).  v2's journal has Blur [11, 31]
and its system output is empty: MCC 0 (zero denominator, docs/scoring/temporal.md#definition).  The query
``Operation == 'PasteFrames'`` keeps v1 with only [21, 41] as reference: MCC 1.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.runs import psv, run_untouched
from helpers.temporal import ITEM, REF_DIR, REF_NAME, SQRT_3_8, VideoCase, mcc, props


def test_hand_computed_case_end_to_end(omfc: Any) -> None:
    """Default query '*': mean of sqrt(3/8) and 0, in user_properties and in the metrics JSON with per_trial."""
    res, doc = VideoCase(omfc).json()
    assert res.outcome(ITEM) == "passed", res.text(ITEM)
    p = props(res, ITEM)
    assert p["omfc.score"] == "temporal"
    assert p["MCC"] == pytest.approx(SQRT_3_8 / 2, abs=1e-12)
    assert (p["count.trials"], p["count.scored"]) == (2, 2)
    (entry,) = [r for r in doc["results"] if r["scorer"] == "temporal"]
    assert entry["query"] is None and entry["query_kind"] == "all"
    assert entry["metrics"] == {"MCC": pytest.approx(SQRT_3_8 / 2, abs=1e-12)}
    rows = {r["ProbeFileID"]: r for r in entry["per_trial"]}
    assert rows["v1"]["MCC"] == pytest.approx(SQRT_3_8, abs=1e-12)
    assert (rows["v1"]["TP"], rows["v1"]["FN"], rows["v1"]["FP"], rows["v1"]["TN"]) == (20, 20, 0, 60)
    assert rows["v2"]["MCC"] == 0.0
    assert doc["options"]["temporal"]["collar"] == 0


def test_temporal_item_collected_beside_detection(omfc: Any) -> None:
    """Without --omfc-score the VID task gets its temporal item as well (the registry applies it to VID)."""
    res = VideoCase(omfc).run(only=False)
    assert res.outcome(ITEM) == "passed", res.text(ITEM)
    assert "detection" in res.reports


def test_collar(omfc: Any) -> None:
    """Collar 2 around 21, 41, 61, 81 (each [x-2, x+2]): v1 TP 16, FN 16, FP 0, TN 100 - 16 - 32 = 52."""
    res = VideoCase(omfc).run("--omfc-collar", "2")
    assert props(res, ITEM)["MCC"] == pytest.approx(round(mcc(16, 52, 0, 16), 12) / 2, abs=1e-12)


def test_collar_out_of_bounds_is_a_usage_error(omfc: Any) -> None:
    case = VideoCase(omfc)
    res = omfc.pytester.runpytest_subprocess(
        *case.case.args,
        "-p",
        "no:cacheprovider",
        "--omfc-reference",
        str(case.reference),
        "--omfc-collar",
        "-1",
        timeout=120,
    )
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    assert "ERROR: --omfc-collar: must be an integer from 0 to 1000000000 (got -1)" in res.stderr.lines


def test_query_selects_one_operation(omfc: Any) -> None:
    """'*' and PasteFrames give one item each; PasteFrames keeps v1 with reference [21, 41] only: MCC 1."""
    res = VideoCase(omfc).run("--omfc-query", "*", "--omfc-query", "Operation == 'PasteFrames'")
    assert props(res, f"{ITEM}[q1]")["MCC"] == pytest.approx(SQRT_3_8 / 2, abs=1e-12)
    p = props(res, f"{ITEM}[q2]")
    assert (p["MCC"], p["count.trials"], p["query"]) == (1.0, 1, "Operation == 'PasteFrames'")


def test_query_unknown_column_fails_its_item_only(omfc: Any) -> None:
    res = VideoCase(omfc).run("--omfc-query", "*", "--omfc-query", "NoSuchColumn == 'x'")
    assert res.outcome(f"{ITEM}[q1]") == "passed"
    assert res.outcome(f"{ITEM}[q2]") == "failed"
    assert res.first_line(f"{ITEM}[q2]").startswith("score::temporal: query \"NoSuchColumn == 'x'\": ")


def test_video_optout_segments_and_switch(omfc: Any) -> None:
    """v1 opts out [61, 81] (its FN): TP 20, TN 60 -> MCC 1; --omfc-no-video-optout gives sqrt(3/8) again."""
    case = VideoCase(omfc, sys_rows={"v1": ["Processed", "[[21, 41]]", "[]", "[[61, 81]]"]})
    assert props(case.run(), ITEM)["MCC"] == pytest.approx(0.5, abs=1e-12)
    assert props(case.run("--omfc-no-video-optout"), ITEM)["MCC"] == pytest.approx(SQRT_3_8 / 2, abs=1e-12)


def test_status_filter_and_switch(omfc: Any) -> None:
    """v2 OptOutTemporal is dropped by default (mean = v1 alone); --omfc-no-optout-filter scores it (MCC 0)."""
    case = VideoCase(omfc, sys_rows={"v2": ["OptOutTemporal", "[]", "[]", "[]"]})
    p = props(case.run(), ITEM)
    assert (p["MCC"], p["count.scored"], p["count.opted_out"]) == (pytest.approx(SQRT_3_8, abs=1e-12), 1, 1)
    p = props(case.run("--omfc-no-optout-filter"), ITEM)
    assert (p["MCC"], p["count.scored"]) == (pytest.approx(SQRT_3_8 / 2, abs=1e-12), 2)


def test_plan_convention_counts_frames_inclusively(omfc: Any) -> None:
    """Plan: [a, b] covers frames a..b, the video 101 frames: v1 TP 21, FN 21, FP 0, TN 59."""
    res = VideoCase(omfc).run("--omfc-convention", "plan")
    assert props(res, ITEM)["MCC"] == pytest.approx(round(mcc(21, 59, 0, 21), 12) / 2, abs=1e-12)


def test_plan_convention_does_not_truncate(omfc: Any) -> None:
    """A system interval past the last frame is cut by MediScore; under plan it fails the trial, named."""
    case = VideoCase(omfc, sys_rows={"v2": ["Processed", "[[90, 150]]", "[]", "[]"]})
    assert case.run().outcome(ITEM) == "passed"
    res = case.run("--omfc-convention", "plan")
    assert res.outcome(ITEM) == "failed"
    assert res.first_line(ITEM) == (
        "score::temporal: 1 of 2 trial(s) could not be scored: p-test_1/p-test_1.csv:3 [ProbeFileID=v2] "
        "VideoFrameSegments: system interval "
        "[90, 150] must lie within the video [1, 101] (truncation is off) (got [90, 150]); trial not scored"
    )
    assert props(res, ITEM)["MCC"] == pytest.approx(round(mcc(21, 59, 0, 21), 12), abs=1e-12)  # v1 alone


def test_bad_segments_fail_the_item_naming_probe_and_line(omfc: Any) -> None:
    res = VideoCase(omfc, sys_rows={"v2": ["Processed", "[[1,", "[]", "[]"]}).run()
    assert res.outcome(ITEM) == "failed"
    assert res.first_line(ITEM) == (
        "score::temporal: 1 of 2 trial(s) could not be scored: p-test_1/p-test_1.csv:3 [ProbeFileID=v2] "
        "VideoFrameSegments='[[1,': must be a JSON list of [start, end] pairs (got text that is not JSON)"
    )
    assert props(res, ITEM)["MCC"] == pytest.approx(SQRT_3_8, abs=1e-12)  # v1 still scored


def test_reference_interval_outside_the_video_fails_that_trial(omfc: Any) -> None:
    case = VideoCase(omfc, ops=[("v1", "PasteFrames", "[[21, 41]]"), ("v2", "Blur", "[[90, 200]]")])
    res = case.run()
    assert res.outcome(ITEM) == "failed"
    assert res.first_line(ITEM).startswith(
        "score::temporal: 1 of 2 trial(s) could not be scored: MFC2019-manipulation-video-ref-journalmask.csv:3 "
        "[ProbeFileID=v2] VideoFrame: reference interval [90, 200] of probe v2 must lie within the video [1, 101]"
    )


def test_missing_journal_tables_skip_and_given_paths_work(omfc: Any) -> None:
    case = VideoCase(omfc, beside=False)
    res = case.run()
    assert res.outcome(ITEM) == "skipped"
    assert res.first_line(ITEM).startswith("score::temporal skipped: journal table(s) not found: ")
    res = case.run("--omfc-journal-mask", str(case.mask), "--omfc-probe-journal-join", str(case.join))
    assert props(res, ITEM)["MCC"] == pytest.approx(SQRT_3_8 / 2, abs=1e-12)
    res = case.run("--omfc-journal-mask", str(case.root / "nope.csv"), "--omfc-probe-journal-join", str(case.join))
    assert res.outcome(ITEM) == "failed"


def test_missing_segment_column_skips_naming_the_column_rule(omfc: Any) -> None:
    header = ["ProbeFileID", "ConfidenceScore", "ProbeStatus"]
    case = VideoCase(omfc)
    case.case.submission.joinpath("p-test_1.csv").write_text(
        psv(header, [["v1", 0.5, "Processed"], ["v2", 0.5, "Processed"]])
    )
    res = case.run()
    assert res.outcome(ITEM) == "skipped"
    assert "failed: column VideoFrameSegments is absent" in res.first_line(ITEM)


# ---------------------------------------------------------------------- MediScore conformance
# (docs/scoring/temporal.md#checked-against-mediscore)

TS_NAME = Path("videoTemporalLocalizationScorerTests")


def test_mediscore_checkfile_means(omfc: Any, conformance: Path) -> None:
    """MediScore's ``-c 5 --query "*" "Operation == 'PasteFrames'"``: scores.csv 0.384672767869 and 0.603811913734."""
    ts = conformance / TS_NAME
    if not (ts / "checkfiles/test_1_0/scores.csv").is_file():
        pytest.skip(f"MediScore conformance data not found: {ts}")
    # Copy under MFC2019 names (edition inference); the originals are only read.
    names = {
        "test_case_1_videotemploc-index.csv": "dataset/indexes/MFC2019-manipulation-video-index.csv",
        "test_case_1_videotemploc-ref.csv": f"{REF_DIR}/{REF_NAME}.csv",
        "test_case_1_videotemploc-ref-probejournaljoin.csv": f"{REF_DIR}/{REF_NAME}-probejournaljoin.csv",
        "test_case_1_videotemploc-ref-journalmask.csv": f"{REF_DIR}/{REF_NAME}-journalmask.csv",
        "test_case_1_system_output.csv": "p-vtl_1/p-vtl_1.csv",
    }
    for src, dst in names.items():
        (omfc.root / dst).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ts / src, omfc.root / dst)
    expected = {
        int(r.split("|")[0]): float(r.split("|")[1])
        for r in (ts / "checkfiles/test_1_0/scores.csv").read_text().splitlines()[1:]
        if r.strip()
    }
    res = run_untouched(
        omfc.pytester,
        omfc.root / "p-vtl_1",
        omfc.root / "dataset/indexes/MFC2019-manipulation-video-index.csv",
        "--omfc-reference",
        str(omfc.root / f"{REF_DIR}/{REF_NAME}.csv"),
        "--omfc-score",
        "temporal",
        "--omfc-collar",
        "5",
        "--omfc-query",
        "*",
        "--omfc-query",
        "Operation == 'PasteFrames'",
    )
    for pos in (0, 1):
        item = f"temporal[q{pos + 1}]"
        assert res.outcome(item) == "passed", res.text(item)
        assert props(res, item)["MCC"] == pytest.approx(expected[pos], abs=1e-9)


# ---------------------------------------------------------------------- hostile sizes, in a capped subprocess

CAP_BYTES = 1_500_000_000
CAP_SECONDS = 120


def _limit() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (CAP_BYTES, CAP_BYTES))


def run_capped(case: VideoCase, *extra: str) -> subprocess.CompletedProcess[str]:
    """Only the temporal item (``-k temporal``), under RLIMIT_AS and a timeout: a regression fails fast."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    args = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "no:cacheprovider",
        "-rA",
        "--rootdir",
        str(case.root),
        *case.case.args,
        "--omfc-reference",
        str(case.reference),
        "--omfc-score",
        "temporal",
        "-k",
        "temporal",
        *extra,
    ]
    return subprocess.run(
        args,
        check=False,
        cwd=case.root,
        env=env,
        capture_output=True,
        text=True,
        timeout=CAP_SECONDS,
        preexec_fn=_limit,
    )


def _no_crash(proc: subprocess.CompletedProcess[str]) -> str:
    both = proc.stdout + proc.stderr
    assert "Traceback" not in both and "INTERNALERROR" not in both, both[-3000:]
    return proc.stdout


def test_hostile_frame_count_costs_its_intervals_not_its_frames(omfc: Any) -> None:
    """FrameCount 10^12 and a system interval [21, 10^12]: scored exactly, no per-frame array (capped at 1.5 GB).

    v1: TP 40 (both reference intervals), FP 10^12 - 21 - 40, FN 0, TN 20 ([1, 21]); v2: MCC 0.
    """
    big = 10**12
    case = VideoCase(omfc, frame_count=big, sys_rows={"v1": ["Processed", f"[[21, {big}]]", "[]", "[]"]})
    out = _no_crash(run_capped(case, "--omfc-metrics-json", str(case.root / "out/m.json")))
    assert "1 passed" in out, out[-3000:]
    got = json.loads((case.root / "out/m.json").read_text())["results"][0]["metrics"]["MCC"]
    assert got == pytest.approx(round(mcc(40, 20, big - 61, 0), 12) / 2, rel=1e-9)


def test_hostile_segment_count_is_refused_before_parsing(omfc: Any) -> None:
    """200,000 intervals in one cell: the CSV bound (CSV-03) refuses the file before any JSON parse; skip, fast."""
    many = "[" + ", ".join(f"[{2 * k + 1}, {2 * k + 2}]" for k in range(200_000)) + "]"
    case = VideoCase(omfc, frame_count=10**6, sys_rows={"v2": ["Processed", many, "[]", "[]"]})
    out = _no_crash(run_capped(case))
    line = next(ln for ln in out.splitlines() if ln.startswith("SKIPPED"))
    assert line.split(": ", 1)[1].startswith("score::temporal skipped: CSV-03 failed: p-test_1/p-test_1.csv is 3.3 MiB")
