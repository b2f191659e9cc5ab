"""Temporal scoring through the plugin: the "done when" cases of issue 11 that the engine tests
(tests/scoring/temporal/test_temporal_engine.py) cover but
tests/scoring/temporal/test_temporal_scoring_plugin.py did not, the
index file named in a FrameCount reason, and ``--omfc-query "*"`` shared by detection and temporal.

Continuous frame coordinates (docs/scoring/temporal.md#definition): the video of FrameCount 100 is [1, 100], length 99;
[a, b] has length b - a; pieces inside a collar or an opt-out (SNS) segment are not scored.  Only v1
has journal operations in these cases, so it is the only trial and the query's MCC is v1's.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import pytest
from helpers.temporal import ITEM, SQRT_3_8, VideoCase, mcc, props

from pytest_omfc.scoring.merge import select_query


def v1_only(omfc: Any, ref: list[tuple[str, str]], sys_segments: str, optout: str = "[]") -> VideoCase:
    """FrameCount 100; v1's journal operations ``ref`` (Operation, VideoFrame); v2 has none (no trial)."""
    return VideoCase(
        omfc,
        frame_count=100,
        ops=[("v1", op, frames) for op, frames in ref],
        sys_rows={"v1": ["Processed", sys_segments, "[]", optout]},
    )


def per_trial(doc: dict[str, Any], query: str | None = None) -> dict[str, Any]:
    (entry,) = [e for e in doc["results"] if e["scorer"] == "temporal" and e["query"] == query]
    (row,) = entry["per_trial"]
    return dict(row)


def test_collar_overlapping_an_optout_segment(omfc: Any) -> None:
    """Reference [20, 40], system [30, 60], opt-out [35, 50], collar 5: collars [15, 25] and [35, 45].

    The collar [35, 45] lies inside the opt-out [35, 50]: the overlap is not scored once, not removed twice.
    [1, 15] TN 14 | [15, 25] collar | [25, 30] FN 5 | [30, 35] TP 5 | [35, 50] SNS | [50, 60] FP 10 | [60, 100] TN 40
    -> TP 5, TN 54, FP 10, FN 5 (sum 74 = 99 - 10 collar - 15 SNS); MCC = (5*54 - 10*5) / sqrt(15*10*64*59).
    --omfc-no-video-optout: [35, 45] collar, [45, 50] FP 5 -> FP 15 (sum 79 = 99 - 20 collars).
    """
    case = v1_only(omfc, [("PasteFrames", "[[20, 40]]")], "[[30, 60]]", "[[35, 50]]")
    res, doc = case.json("--omfc-collar", "5")
    assert res.outcome(ITEM) == "passed", res.text(ITEM)
    assert props(res, ITEM)["MCC"] == pytest.approx(round(mcc(5, 54, 10, 5), 12), abs=1e-12)
    row = per_trial(doc)
    assert (row["TP"], row["TN"], row["FP"], row["FN"]) == (5, 54, 10, 5)

    res, doc = case.json("--omfc-collar", "5", "--omfc-no-video-optout")
    assert props(res, ITEM)["MCC"] == pytest.approx(round(mcc(5, 54, 15, 5), 12), abs=1e-12)
    row = per_trial(doc)
    assert (row["TP"], row["TN"], row["FP"], row["FN"]) == (5, 54, 15, 5)
    assert doc["options"]["temporal"]["no_video_optout"] is True


def test_zero_length_reference_interval_and_two_queries(omfc: Any) -> None:
    """PasteFrames [50, 50] (zero length) and Clone [60, 70]; system [60, 70]; collar 2; FrameCount 100.

    q1 "*": [50, 50] is no reference but its endpoints get collars (as MediScore):
      [1, 48] TN 47 | [48, 52] collar | [52, 58] TN 6 | [58, 62] collar | [62, 68] TP 6 | [68, 72] collar
      | [72, 100] TN 28 -> TP 6, TN 81, FP 0, FN 0: MCC 1.
    q2 PasteFrames only: the reference is empty, only the collar [48, 52]; the system's [60, 70] is FP 10,
      TN 99 - 4 - 10 = 85, TP = FN = 0: the denominator is 0, MCC 0 (docs/scoring/temporal.md#definition), scored, not
      an error.
    """
    case = v1_only(omfc, [("PasteFrames", "[[50, 50]]"), ("Clone", "[[60, 70]]")], "[[60, 70]]")
    q2 = "Operation == 'PasteFrames'"
    res, doc = case.json("--omfc-collar", "2", "--omfc-query", "*", "--omfc-query", q2)
    assert (props(res, f"{ITEM}[q1]")["MCC"], props(res, f"{ITEM}[q2]")["MCC"]) == (1.0, 0.0)
    row = per_trial(doc, "*")
    assert (row["TP"], row["TN"], row["FP"], row["FN"]) == (6, 81, 0, 0)
    row = per_trial(doc, q2)
    assert (row["status"], row["TP"], row["TN"], row["FP"], row["FN"]) == ("scored", 0, 85, 10, 0)


def test_zero_length_reference_interval_is_one_frame_under_plan(omfc: Any) -> None:
    """Plan convention, no collar: [50, 50] is frame 50, i.e. [50, 51); [60, 70] is [60, 71); video [1, 101).

    Reference 1 + 11 = 12 frames, system [60, 71) 11: TP 11, FN 1, FP 0, TN 100 - 12 = 88.
    """
    case = v1_only(omfc, [("PasteFrames", "[[50, 50]]"), ("Clone", "[[60, 70]]")], "[[60, 70]]")
    res, doc = case.json("--omfc-convention", "plan")
    assert props(res, ITEM)["MCC"] == pytest.approx(round(mcc(11, 88, 0, 1), 12), abs=1e-12)
    row = per_trial(doc)
    assert (row["TP"], row["TN"], row["FP"], row["FN"]) == (11, 88, 0, 1)


def test_frame_count_reason_names_the_index_file_and_line(omfc: Any) -> None:
    """v1's FrameCount 'x' fails its trial; the reason names the index by its basename and its physical line.

    Two comment-free blank lines before the header push v1's row to line 4 (row position 0 + 2 would say 2).
    v2 is still scored: MCC 0 (empty system output), so the item keeps MCC 0 and fails naming v1.
    """
    case = VideoCase(omfc)
    text = case.case.index.read_text().replace("|101\n", "|x\n", 1)
    case.case.index.write_text("\n\n" + text)
    res, doc = case.json()
    assert res.outcome(ITEM) == "failed"
    expected = (
        "MFC2019-manipulation-video-index.csv:4 [ProbeFileID=v1] FrameCount='x': "
        "FrameCount must be a number >= 1 (got 'x')"
    )
    assert res.first_line(ITEM) == f"score::temporal: 1 of 2 trial(s) could not be scored: {expected}"
    (entry,) = [e for e in doc["results"] if e["scorer"] == "temporal"]
    rows = {r["ProbeFileID"]: r for r in entry["per_trial"]}
    assert (rows["v1"]["status"], rows["v1"]["reason"]) == ("error", expected)
    assert rows["v2"]["MCC"] == 0.0


def _detection_case(omfc: Any) -> VideoCase:
    """v1 a target scored 0.9, v2 a non-target scored 0.2: detection AUC 1 (the one pair is ordered right)."""
    case = VideoCase(omfc)
    ref = case.reference.read_text().replace("|v2|probe/v2.mp4|Y|", "|v2|probe/v2.mp4|N|")
    case.reference.write_text(ref)
    sysout = case.case.submission / "p-test_1.csv"
    sysout.write_text(sysout.read_text().replace("v1|0.5|", "v1|0.9|").replace("v2|0.5|", "v2|0.2|"))
    return case


def test_query_star_means_all_trials_for_detection_and_temporal(omfc: Any) -> None:
    """``--omfc-query "*"`` (MediScore's VTL "all") with a reference that switches on detection and temporal.

    Detection: the same numbers as without a query (AUC 1, 1 target, 1 non-target), labelled query '*'.
    Temporal: v1 sqrt(3/8), v2 0 -> mean sqrt(3/8) / 2, as without a query.
    """
    case = _detection_case(omfc)
    plain = case.run(only=False)
    star = case.run("--omfc-query", "*", only=False)
    assert star.outcome("detection[q1]") == "passed", star.text("detection[q1]")
    assert star.outcome(f"{ITEM}[q1]") == "passed", star.text(f"{ITEM}[q1]")
    p = props(star, "detection[q1]")
    assert (p["query"], p["AUC"], p["count.targets"], p["count.nontargets"]) == ("*", 1.0, 1, 1)
    base = props(plain, "detection")
    assert {k: v for k, v in p.items() if k.startswith(("AUC", "EER", "count."))} == {
        k: v for k, v in base.items() if k.startswith(("AUC", "EER", "count."))
    }
    assert props(star, f"{ITEM}[q1]")["MCC"] == pytest.approx(SQRT_3_8 / 2, abs=1e-12)


def test_query_star_beside_a_real_query(omfc: Any) -> None:
    """ "*" and "ProbeFileID == 'v1'": detection q2 keeps only the target, so AUC is undefined and q2 skips
    (naming the query); q1 is unaffected.  Temporal q2 scores v1 alone: sqrt(3/8)."""
    case = _detection_case(omfc)
    res = case.run("--omfc-query", "*", "--omfc-query", "ProbeFileID == 'v1'", only=False)
    assert props(res, "detection[q1]")["AUC"] == 1.0
    assert res.outcome("detection[q2]") == "skipped"
    assert res.first_line("detection[q2]").startswith(
        "score::detection skipped: q query \"ProbeFileID == 'v1'\": no non-target trials"
    )
    assert props(res, f"{ITEM}[q2]")["MCC"] == pytest.approx(SQRT_3_8, abs=1e-12)


@pytest.mark.parametrize("kind", ["q", "qm", "qp"])
def test_select_query_star_keeps_every_trial_once(kind: str) -> None:
    """A JT-merged frame has one row per (trial, operation): "*" gives each trial once, in order, for every kind."""
    frame = pd.DataFrame(
        {
            "ProbeFileID": ["a", "a", "b", "c"],
            "IsTarget": ["Y", "Y", "N", "Y"],
            "Operation": ["Blur", "Clone", "", "Blur"],
        }
    )
    got = select_query(frame, " * ", kind, ["ProbeFileID"])  # type: ignore[arg-type]
    assert got["ProbeFileID"].tolist() == ["a", "b", "c"]
    assert got["Operation"].tolist() == ["Blur", "", "Blur"]


def test_query_star_means_all_trials_for_mask_scoring(omfc: Any) -> None:
    """Mask scoring reads "*" alike: 0001 perfect (MCC 1), 0002 shifted by 2 pixels (MCC 5/12, see
    tests/scoring/mask/test_mask_scoring_plugin.py), no kernels: OptimumMCC (1 + 5/12) / 2 with and without "*"."""
    from helpers.mask_scoring import NOKERN, REF, SHIFTED, MaskCase

    case = MaskCase(omfc, {"0001": REF, "0002": SHIFTED})
    res = case.run(*NOKERN, "--omfc-query", "*")
    assert res.outcome("mask[q1]") == "passed", res.text("mask[q1]")
    assert props(res, "mask[q1]")["OptimumMCC"] == pytest.approx((1 + 5 / 12) / 2, abs=1e-12)
    assert props(case.run(*NOKERN), "mask")["OptimumMCC"] == props(res, "mask[q1]")["OptimumMCC"]
    assert res.outcome("detection[q1]") == "passed", res.text("detection[q1]")
