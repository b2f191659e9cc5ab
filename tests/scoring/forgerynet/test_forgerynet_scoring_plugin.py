"""ForgeryNet scoring through the plugin (issue 12): hand-computed numbers in the metrics JSON, options, usage errors.

The engines' own exactness tests (scikit-learn, ActivityNet's algorithm) live in the
``test_forgerynet_metrics_*`` files; here every number is worked out by hand in a comment.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers.forgerynet import Fnet, png_bytes
from helpers.forgerynet_cases import BIN_REF, BIN_SUB, K3_REF, K3_SUB, TL_REF, TL_SUB

# ------------------------------------------------------------------ classification


def test_two_way_acc_and_auc(fnet: Fnet) -> None:
    run = fnet.case("image-classification", reference=BIN_REF, submission=BIN_SUB).run()
    assert run.outcome.outcome("score::forgerynet-classification") == "passed"
    e = run.entry()
    assert e["scorer"] == "forgerynet-classification" and e["classes"] == 2
    # labels 0042:0 b:1 c:1 d:0, scores .2 .9 .4 .6; fake iff >= 0.5: 0042 real (right), b fake (right),
    # c real (wrong), d fake (wrong): recall real 1/2, fake 1/2 -> Acc = 0.5.
    # AUC: fake b .9, c .4 vs real .2, .6: b>.2, b>.6, c>.2, c<.6 -> 3/4.
    assert e["metrics"] == {"Acc": pytest.approx(0.5), "AUC": pytest.approx(0.75)}
    assert [(r["class"], r["n"], r["recall"]) for r in e["per_class"]] == [(0, 2, 0.5), (1, 2, 0.5)]
    assert e["counts"] == {"reference": 4, "rows": 4, "scored": 4}
    props = dict(run.outcome.props["score::forgerynet-classification"])
    assert props["AUC"] == pytest.approx(0.75) and props["count.scored"] == 4
    assert (
        run.metrics is not None
        and run.metrics["edition"] == "ForgeryNet"
        and run.metrics["task"] == "image-classification"
    )


def test_threshold_changes_acc_not_auc(fnet: Fnet) -> None:
    run = fnet.case("image-classification", reference=BIN_REF, submission=BIN_SUB).run("--omfc-threshold", "0.35")
    e = run.entry()
    # fake iff >= 0.35: c (.4) becomes fake (right): recall real 1/2, fake 2/2 -> Acc = 0.75; AUC unchanged
    assert e["metrics"] == {"Acc": pytest.approx(0.75), "AUC": pytest.approx(0.75)}
    assert e["threshold"] == 0.35
    assert run.metrics is not None and run.metrics["options"]["forgerynet"] == {"threshold": 0.35}


def test_three_way_acc_map_auc_acc_binary(fnet: Fnet) -> None:
    run = fnet.case("image-classification", reference=K3_REF, submission=K3_SUB).run("--omfc-classes", "3")
    e = run.entry()
    m = e["metrics"]
    # argmax: a [.6 .3 .1] -> 0 (label 0), b [.2 .5 .3] -> 1 (1), c [.1 .2 .7] -> 2 (2), d [.65 .1 .25] -> 0 (label 2)
    # recalls 1, 1, 1/2 -> Acc = 2.5/3 = 5/6
    assert m["Acc"] == pytest.approx(5 / 6)
    # one-vs-rest AUCs: class 0: a .6 vs .2 .1 .65 -> 2/3; class 1: b .5 vs .3 .2 .1 -> 1;
    # class 2: c .7, d .25 vs a .1, b .3 -> c wins 2, d wins 1 of 2 -> 3/4; mAP = (2/3 + 1 + 3/4)/3 = 29/36
    assert m["mAP"] == pytest.approx(29 / 36)
    assert [r["AUC"] for r in e["per_class"]] == pytest.approx([2 / 3, 1.0, 0.75])
    # fake score P1+P2: a .4, b .8, c .9, d .35; fake b c d vs real a: b, c > .4, d < .4 -> AUC 2/3
    assert m["AUC"] == pytest.approx(2 / 3)
    # fake iff sum >= .5: a real (right), b, c fake (right), d real (wrong): recall real 1, fake 2/3 -> 5/6
    assert m["Acc_binary"] == pytest.approx(5 / 6)


def test_video_classification_accepts_9_classes(fnet: Fnet) -> None:
    header = ["ID", *(f"P{i}" for i in range(9))]
    rows = [["v0", *([0.9] + [0.0125] * 8)], ["v8", *([0.0] * 8 + [1.0])]]
    run = fnet.case(
        "video-classification", reference=(["ID", "Label"], [["v0", 0], ["v8", 8]]), submission=(header, rows)
    ).run("--omfc-classes", "9")
    e = run.entry()
    # both argmaxes right: recall 1 for classes 0 and 8 (the 7 absent classes have no recall) -> Acc 1;
    # fake score: v0 8 * .0125 = .1, v8 1.0 -> AUC 1, Acc_binary 1
    assert (e["metrics"]["Acc"], e["metrics"]["AUC"], e["metrics"]["Acc_binary"]) == (1.0, 1.0, 1.0)
    assert run.outcome.failed() == []


def test_rows_failing_validation_are_left_out_with_a_note(fnet: Fnet) -> None:
    sub = (["ID", "Score"], [["0042", 0.2], ["b", 0.9], ["c", 1.7], ["zz", 0.3], ["d", 0.6]])
    run = fnet.case("image-classification", reference=BIN_REF, submission=sub).run()
    assert run.outcome.failed() == ["FNET-04", "FNET-05"]
    e = run.entry()
    # scored: 0042 (.2, real), b (.9, fake), d (.6, real): Acc = (1/2 + 1)/2 = 0.75; AUC = b above both = 1
    assert e["metrics"] == {"Acc": pytest.approx(0.75), "AUC": pytest.approx(1.0)}
    assert e["counts"] == {"reference": 4, "rows": 5, "scored": 3}
    assert e["notes"][:2] == [
        "left out of scoring: 1 row with an unknown or repeated ID (FNET-04)",
        "left out of scoring: 1 row with a probability outside [0, 1] (FNET-05)",
    ]


def test_an_unusable_file_skips_scoring_naming_the_rule(fnet: Fnet) -> None:
    run = fnet.case("image-classification", reference=BIN_REF, submission="ID,Score\n").run()
    text = run.outcome.text("score::forgerynet-classification")
    assert text.startswith("score::forgerynet-classification skipped: FNET-01 failed: p-test_1/p-test_1.csv")
    assert run.entry()["metrics"] is None and run.entry()["skipped"].startswith("FNET-01 failed")


# ------------------------------------------------------------------ spatial


def test_spatial_metrics_per_image_and_pooled(fnet: Fnet) -> None:
    pred = np.array([[255, 0], [51, 26]], np.uint8)
    gt = np.array([[255, 255], [0, 0]], np.uint8)
    real = np.array([[0, 255]], np.uint8)
    run = fnet.case(
        "spatial",
        reference=(["ID", "Label", "MaskFileName"], [["a", 1, "gt/a.png"], ["r", 0, ""]]),
        submission=(["ID", "Score", "MaskFileName"], [["a", 0.9, "m/a.png"], ["r", 0.1, "m/r.png"]]),
        files={"m/a.png": png_bytes(pred), "m/r.png": png_bytes(real)},
        ref_files={"gt/a.png": png_bytes(gt)},
    ).run()
    assert run.outcome.failed() == []
    e = run.entry()
    m = e["metrics"]
    # image a: pred/255 = 1, 0, .2, .102; gt = 1, 1, 0, 0
    #   >= .1: 1 0 1 1 vs 1 1 0 0 -> 3 mismatches of 4; >= .2 (51/255 is exactly .2): 1 0 1 0 -> 2 of 4
    #   |pred - gt| = 0, 1, .2, .102: <= .01, .05, .1: 1 of 4 each; L1 = (0 + 255 + 51 + 26)/(255*4) = 332/1020
    # image r (real, no reference map: all zero): pred 0, 1 -> mismatch 1 of 2 at both t; diff 1 of 2; L1 255/510
    a = {"IoU@0.1": 3 / 4, "IoU@0.2": 2 / 4, "IoU_diff@0.1": 1 / 4, "L1": 332 / 1020}
    r = {"IoU@0.1": 1 / 2, "IoU@0.2": 1 / 2, "IoU_diff@0.1": 1 / 2, "L1": 1 / 2}
    assert m["IoU@0.1_per_image"] == pytest.approx((a["IoU@0.1"] + r["IoU@0.1"]) / 2)
    assert m["IoU@0.1_pooled"] == pytest.approx((3 + 1) / 6)
    assert m["IoU_agree@0.2_per_image"] == pytest.approx(1 - (a["IoU@0.2"] + r["IoU@0.2"]) / 2)
    assert m["IoU_agree@0.2_pooled"] == pytest.approx(1 - (2 + 1) / 6)
    assert m["IoU_diff@0.01_pooled"] == pytest.approx(2 / 6)
    assert m["IoU_diff@0.1_per_image"] == pytest.approx((1 / 4 + 1 / 2) / 2)
    assert m["L1_per_image"] == pytest.approx((332 / 1020 + 0.5) / 2)
    assert m["L1_pooled"] == pytest.approx((332 + 255) / (255 * 6))
    assert not any(k in m for k in ("IoU@0.1", "L1", "IoU_diff@0.05"))  # never a bare name
    assert [(row["ID"], row["pixels"]) for row in e["per_image"]] == [("a", 4), ("r", 2)]


# ------------------------------------------------------------------ temporal


def test_temporal_ap_and_ar(fnet: Fnet) -> None:
    run = fnet.case("temporal", reference=TL_REF, submission=TL_SUB).run()
    assert run.outcome.failed() == []
    assert run.outcome.outcome("score::forgerynet-temporal") == "passed"
    e = run.entry()
    m = e["metrics"]
    # ground truth: v1 [0,10]; v2 [20,30], [40,50]; v3 real.  npos = 3.
    # ranked: .9 v1 [0,10] (tIoU 1), .85 v3 (no ground truth: FP), .8 v2 [20,28.2] (tIoU 8.2/10 = .82),
    #         .7 v2 [40,45] (tIoU 5/10 = .5, a match at t = .5 since tIoU >= t)
    # t = .5: TP FP TP TP: prec 1 .5 .67 .75, rec 1/3 1/3 2/3 1 -> AP = 1/3 * 1 + 1/3 * .75 + 1/3 * .75 = 5/6
    # t = .55 .. .8: TP FP TP FP -> AP = 1/3 * 1 + 1/3 * 2/3 = 5/9;   t = .85 .. .95: TP FP FP FP -> 1/3
    assert m["AP@0.50"] == pytest.approx(5 / 6)
    assert [m[f"AP@{t:.2f}"] for t in (0.55, 0.6, 0.65, 0.7, 0.75, 0.8)] == pytest.approx([5 / 9] * 6)
    assert [m["AP@0.85"], m["AP@0.90"], m["AP@0.95"]] == pytest.approx([1 / 3] * 3)
    assert m["AP_avg"] == pytest.approx((5 / 6 + 6 * 5 / 9 + 3 / 3) / 10)  # 31/60
    # AR (ActivityNet, K proposals per video on average): V = 2 videos with ground truth, 4 kept predictions
    # (v3's count too): ratio 100*2/4 keeps all; 3 kept in v1, v2 -> pcn[K-1] = K/100 * 200/3.
    # AR@1: pcn .667: v1 gets int(1 * .667) = 0 proposals, v2 int(2 * .667) = 1 ([20,28.2], .82):
    #   recall 1/3 for the 7 thresholds <= .82, 0 above -> 7/30 (the top-1-per-video reading would say 17/30)
    # AR@2: pcn 1.33: v1 1, v2 2 (all): t=.5: 3/3; .55-.8: 2/3; .85-.95: 1/3 -> (1 + 4 + 1)/10 = .6
    assert m["AR@1"] == pytest.approx(7 / 30)
    assert (m["AR@2"], m["AR@5"], m["AR@10"]) == pytest.approx((0.6, 0.6, 0.6))
    assert len(e["per_threshold"]) == 10
    assert e["counts"] == {
        "videos": 3,
        "videos_with_ground_truth": 2,
        "ground_truth_segments": 3,
        "predictions": 4,
        "scored_predictions": 4,
    }


def test_temporal_keeps_the_top_10_and_leaves_out_bad_predictions(fnet: Fnet) -> None:
    # v3 (real) gets 12 predictions: only its 10 best are kept (FNET-12 warns); v2 gets a NaN score (FNET-11)
    sub = {
        "results": {
            "v1": TL_SUB["results"]["v1"],
            "v2": [{"segment": [20, 30], "score": float("nan")}],
            "v3": [{"segment": [i, i + 1], "score": 0.01 * i} for i in range(12)],
        }
    }
    import json

    run = fnet.case("temporal", reference=TL_REF, submission=json.dumps(sub)).run()
    assert run.outcome.failed() == ["FNET-11"]
    e = run.entry()
    # v1's .9 first (TP), then 10 FPs of v3: AP = 1/3 at every t; AR: 1 of 3 ground truths at every t
    assert e["metrics"]["AP_avg"] == pytest.approx(1 / 3)
    assert e["counts"]["scored_predictions"] == 13
    assert "left out of scoring: 1 prediction with a score that is not a finite number (FNET-11)" in e["notes"]
    assert any("beyond the top 10" in n for n in e["notes"])


# ------------------------------------------------------------------ usage errors (exit 4)


@pytest.mark.parametrize(
    ("task", "extra", "message"),
    [
        (
            "image-classification",
            ["--omfc-classes", "9"],
            "--omfc-classes: must be 2, 3 or 16 for image-classification (got '9')",
        ),
        (
            "video-classification",
            ["--omfc-classes", "16"],
            "--omfc-classes: must be 2, 3 or 9 for video-classification (got '16')",
        ),
        (
            "temporal",
            ["--omfc-classes", "3"],
            "--omfc-classes: only for image-classification and video-classification (got task temporal)",
        ),
        (
            "image-classification",
            ["--omfc-threshold", "1.5"],
            "--omfc-threshold: must be a number in [0, 1] (got '1.5')",
        ),
        (
            "image-classification",
            ["--omfc-threshold", "nan"],
            "--omfc-threshold: must be a number in [0, 1] (got 'nan')",
        ),
        ("IMDL", [], "--omfc-task: task IMG is not offered in ForgeryNet"),
    ],
)
def test_bad_combinations_are_usage_errors(fnet: Fnet, task: str, extra: list[str], message: str) -> None:
    ext = "json" if task == "temporal" else "csv"
    fnet.write(f"dataset/ref.{ext}", '{"database": {}}' if ext == "json" else "ID|Label\n")
    (fnet.root / "p-test_1").mkdir()
    res = fnet.pytester.runpytest(
        "--omfc-submission",
        "p-test_1",
        "--omfc-edition",
        "ForgeryNet",
        "--omfc-task",
        task,
        "--omfc-reference",
        f"dataset/ref.{ext}",
        *extra,
        "-p",
        "no:cacheprovider",
    )
    assert res.ret == 4
    assert f"ERROR: {message}" in res.stderr.str()


def test_missing_reference_is_a_usage_error(fnet: Fnet) -> None:
    (fnet.root / "p-test_1").mkdir()
    res = fnet.pytester.runpytest("--omfc-submission", "p-test_1", "--omfc-task", "temporal", "-p", "no:cacheprovider")
    assert res.ret == 4
    res.stderr.fnmatch_lines(["*--omfc-reference: ForgeryNet needs the reference (it lists the IDs to check)*"])


def test_nist_edition_with_a_forgerynet_task_is_a_usage_error(fnet: Fnet) -> None:
    (fnet.root / "p-test_1").mkdir()
    res = fnet.pytester.runpytest(
        "--omfc-submission",
        "p-test_1",
        "--omfc-edition",
        "OpenMFC2020",
        "--omfc-task",
        "spatial",
        "-p",
        "no:cacheprovider",
    )
    assert res.ret == 4
    res.stderr.fnmatch_lines(["*--omfc-task: task spatial is a ForgeryNet task; add --omfc-edition ForgeryNet*"])


def test_reference_is_taken_from_the_current_directory_without_a_dataset(fnet: Fnet) -> None:
    case = fnet.case("image-classification", reference=BIN_REF, submission=BIN_SUB)
    rec = fnet.pytester.inline_run(
        "--omfc-submission",
        str(case.submission),
        "--omfc-task",
        "image-classification",
        "--omfc-reference",
        "dataset/ref.csv",
        "-p",
        "no:cacheprovider",
    )
    assert rec.ret == 0
    passed = [
        r.nodeid.rsplit("::", 1)[-1]
        for r in rec.getreports("pytest_runtest_logreport")
        if r.when == "call" and r.passed
    ]
    assert "forgerynet-classification" in passed and "FNET-04" in passed
