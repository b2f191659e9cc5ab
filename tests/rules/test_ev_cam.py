"""EV and CAM rules: event and camera verification (docs/rules/ev.md, D-22)."""

from __future__ import annotations

import pytest

IMG_IDX = ["TaskID", "ProbeFileID", "ProbeFileName", "ProbeWidth", "ProbeHeight"]
EV_IDX = IMG_IDX + ["EventName"]
EV_OUT = ["ProbeFileID", "EventName", "ConfidenceScore", "ProbeStatus"]
CAM_IDX = IMG_IDX + ["TrainCamID"]
CAM_OUT = [
    "ProbeFileID",
    "TrainCamID",
    "OutputProbeMaskFileName",
    "ConfidenceScore",
    "ProbeStatus",
    "ProbeOptOutPixelValue",
]
EVENTS = ["Hurricane_Sandy", "Hurricane_Ike", "oshkosh2011"]


def event(omfc, pairs, edition="MFC2019", header=EV_OUT, extra=()):
    """System rows for (probe, event) pairs; the index has P1 and P2, each with the three EVENTS."""
    rows = [[p, e, "0.5", "Processed", *extra] for p, e in pairs]
    return omfc.case(
        edition,
        "eventverification",
        header=header,
        rows=rows,
        index_header=EV_IDX,
        index_rows=[["eventverification", p, f"world/{p}.jpg", 64, 48, e] for p in ("P1", "P2") for e in EVENTS],
    )


ALL_PAIRS = [(p, e) for p in ("P1", "P2") for e in EVENTS]


def camera(omfc, cams, edition="MFC2019", description="default"):
    """System rows T0..Tn with the given TrainCamIDs; the index gives CAM-A to T0 and T1, CAM-B to T2."""
    index_cams = ["CAM-A_primary_image", "CAM-A_primary_image", "CAM-B_primary_video"]
    rows = [[f"T{i}", c, "", "0.5", "Processed", ""] for i, c in enumerate(cams)]
    return omfc.case(
        edition,
        "camera",
        header=CAM_OUT,
        rows=rows,
        index_header=CAM_IDX,
        description=description,
        index_rows=[["camera", f"T{i}", f"probe/T{i}.jpg", 64, 48, c] for i, c in enumerate(index_cams)],
    )


CONDITION = """\
1. Submission Identifier(s): {sub_id}
2. System Description: a camera fingerprint system. Train-test condition: training Multimedia, testing Image.
3. OptOut Criteria: none
4. System Hardware Description and Runtime Computation: 2 CPU cores, 1 minute.
5. Training Data and Knowledge Sources: none.
6. References: none.
"""


# --------------------------------------------------------------------------- EV-01


def test_ev01_probe_rows_differ_from_index_events(omfc):
    pairs = [
        ("P1", "Hurricane_Ike"),
        ("P1", "Foo_bar"),
        ("P1", "oshkosh2011"),
        ("P2", "Hurricane_Sandy"),
        ("P2", "Hurricane_Ike"),
    ]
    res = event(omfc, pairs).run()
    assert res.outcome("EV-01") == "failed"
    assert res.text("EV-01").splitlines() == [
        "EV-01: 2 of 2 probes do not have one row per event of the index (showing 2)",
        "  p-test_1/p-test_1.csv:2 [P1] EventName: probe P1 must have 3 rows, one per event of the index "
        "(got 3; missing Hurricane_Sandy; not in the index: Foo_bar)",
        "  p-test_1/p-test_1.csv:5 [P2] EventName: probe P2 must have 3 rows, one per event of the index "
        "(got 2; missing oshkosh2011)",
    ]


def test_ev01_repeated_and_unknown_probe(omfc):
    res = event(omfc, [*ALL_PAIRS, ("P1", "Hurricane_Ike"), ("P9", "Hurricane_Ike")], edition="MFC2018").run()
    assert res.first_line("EV-01") == "EV-01: 2 of 3 probes do not have one row per event of the index (showing 2)"
    text = res.text("EV-01")
    assert "probe P1 must have 3 rows, one per event of the index (got 4; repeated: Hurricane_Ike (2 times))" in text
    assert "probe P9 must have no rows: it is not in the index (got 1)" in text


@pytest.mark.parametrize("edition", ["MFC2018", "MFC2019"])
def test_ev01_and_ev02_pass(omfc, edition):
    res = event(omfc, list(reversed(ALL_PAIRS)), edition=edition).run()
    for rid in ("EV-01", "EV-02"):
        assert res.outcome(rid) == "passed", res.text(rid)
        assert res.warning(rid) is None


# --------------------------------------------------------------------------- EV-02


def test_ev02_warns_on_masks(omfc):
    masks = ["", "mask/a.png", " ", "", "", "mask/b.png"]
    case = omfc.case(
        "MFC2019",
        "eventverification",
        header=EV_OUT + ["OutputProbeMaskFileName"],
        index_header=EV_IDX,
        rows=[[p, e, "0.5", "Processed", m] for (p, e), m in zip(ALL_PAIRS, masks, strict=False)],
        index_rows=[["eventverification", p, f"world/{p}.jpg", 64, 48, e] for p, e in ALL_PAIRS],
    )
    res = case.run()
    assert res.outcome("EV-02") == "passed"
    assert res.warning("EV-02").splitlines()[:2] == [
        "EV-02: 2 mask values are given, which event verification ignores (showing 2)",
        "  p-test_1/p-test_1.csv:3 [P1:Hurricane_Ike] OutputProbeMaskFileName='mask/a.png': event verification "
        "takes no masks, so this value is ignored (got 'mask/a.png')",
    ]


# --------------------------------------------------------------------------- CAM-01


def test_cam01_train_cam_must_match_the_index(omfc):
    res = camera(omfc, ["CAM-A_primary_image", "CAM-B_primary_video", "cam-b_primary_video"]).run()
    assert res.outcome("CAM-01") == "failed"
    assert res.text("CAM-01").splitlines() == [
        "CAM-01: 2 of 3 rows have a TrainCamID the index does not give for their probe (showing 2)",
        "  p-test_1/p-test_1.csv:3 [T1:CAM-B_primary_video] TrainCamID='CAM-B_primary_video': TrainCamID must be "
        "CAM-A_primary_image, the index's value for this probe (got 'CAM-B_primary_video')",
        "  p-test_1/p-test_1.csv:4 [T2:cam-b_primary_video] TrainCamID='cam-b_primary_video': TrainCamID must be "
        "CAM-B_primary_video, the index's value for this probe (got 'cam-b_primary_video')",
    ]


@pytest.mark.parametrize("edition", ["MFC2018", "MFC2019"])
def test_cam01_passes(omfc, edition):
    res = camera(omfc, ["CAM-A_primary_image", "CAM-A_primary_image", "CAM-B_primary_video"], edition=edition).run()
    assert res.outcome("CAM-01") == "passed", res.text("CAM-01")


# --------------------------------------------------------------------------- CAM-02


def test_cam02_warns_without_train_test_condition(omfc):
    """D-22: the condition "must be indicated"; the SubID has no field, so the description must say it."""
    res = camera(omfc, ["CAM-A_primary_image", "CAM-A_primary_image", "CAM-B_primary_video"]).run()
    assert res.outcome("CAM-02") == "passed"
    assert res.warning("CAM-02").splitlines() == [
        "CAM-02: the system description does not state the camera train-test condition (showing 1)",
        "  p-test_1/p-test_1.txt: the camera train-test condition must be indicated, e.g. 'Train-test condition: "
        "training Image, testing Video' (got no mention of the training set (Image, Video or Multimedia) nor the "
        "testing set (Image or Video))",
    ]


def test_cam02_passes_with_condition(omfc):
    res = camera(
        omfc,
        ["CAM-A_primary_image", "CAM-A_primary_image", "CAM-B_primary_video"],
        description=CONDITION.format(sub_id="p-test_1"),
    ).run()
    assert res.outcome("CAM-02") == "passed"
    assert res.warning("CAM-02") is None


def test_cam02_skipped_without_description(omfc):
    res = camera(omfc, ["CAM-A_primary_image"] * 2 + ["CAM-B_primary_video"], description=None).run()
    assert res.outcome("CAM-02") == "skipped"
    assert res.text("CAM-02").startswith("CAM-02 skipped: PKG-03 failed: ")


def test_cam02_not_collected_for_mfc2018(omfc):
    res = camera(omfc, ["CAM-A_primary_image"] * 2 + ["CAM-B_primary_video"], edition="MFC2018").run()
    assert "CAM-02" not in res.reports
    assert res.outcome("CAM-01") == "passed"
