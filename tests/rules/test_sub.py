"""SUB rules: the submission identifier per edition (docs/rules/sub.md, D-01, D-02)."""

from __future__ import annotations

import pytest

IMG_IDX = ["TaskID", "ProbeFileID", "ProbeFileName", "ProbeWidth", "ProbeHeight"]
NC_IMG = ["ProbeFileID", "ConfidenceScore", "OutputProbeMaskFileName", "IsOptOut"]
MFC_IMG = ["ProbeFileID", "ConfidenceScore", "OutputProbeMaskFileName", "ProbeStatus", "ProbeOptOutPixelValue"]
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

EXPID_RULES = [f"SUB-0{i}" for i in range(1, 9)]
VALID_NC17 = "NIST_NC17_DRYRUN17_Manipulation_ImgOnly_p-baseline_3"


def image(omfc, edition, sub_id):
    """A valid image-task submission named ``sub_id``."""
    task = {"OpenMFC2020": "IMDL", "NC2017": "manipulation"}.get(edition, "manipulation-image")
    header, row = (
        (NC_IMG, ["T1", "0.5", "", "N"]) if edition == "NC2017" else (MFC_IMG, ["T1", "0.5", "", "Processed", ""])
    )
    return omfc.case(
        edition,
        task,
        header=header,
        rows=[row],
        index_header=IMG_IDX,
        index_rows=[[task, "T1", "probe/T1.jpg", 64, 48]],
        sub_id=sub_id,
    )


def event(omfc, sub_id):
    return omfc.case(
        "MFC2018",
        "eventverification",
        header=EV_OUT,
        rows=[["T1", "Concert", "0.5", "Processed"]],
        index_header=EV_IDX,
        index_rows=[["eventverification", "T1", "probe/T1.jpg", 64, 48, "Concert"]],
        sub_id=sub_id,
    )


def camera(omfc, sub_id):
    return omfc.case(
        "MFC2018",
        "camera",
        header=CAM_OUT,
        rows=[["T1", "C1", "", "0.5", "Processed", ""]],
        index_header=CAM_IDX,
        index_rows=[["camera", "T1", "probe/T1.jpg", 64, 48, "C1"]],
        sub_id=sub_id,
    )


# ----------------------------------------------------------------------------- NC2017 / MFC2018 EXPID


@pytest.mark.parametrize(
    "edition, sub_id",
    [
        ("NC2017", VALID_NC17),
        ("NC2017", "nist-lab_NC17_DRYRUN17_manipulation_ImgMeta_c-cnn2_12"),
        ("MFC2018", "NIST_MFC18_Eval_Manipulation_VidMeta_p-baseline_1"),
    ],
)
def test_valid_expid_passes(omfc, edition, sub_id):
    res = image(omfc, edition, sub_id).run()
    for rid in EXPID_RULES:
        assert res.outcome(rid) == "passed", res.text(rid)
    assert "SUB-09" not in res.reports and "SUB-10" not in res.reports


@pytest.mark.parametrize(
    "sub_id, first",
    [
        (
            "fo_o_NC17_DRYRUN17_Manipulation_ImgOnly_p-baseline_3",
            "SUB-01: the EXPID fo_o_NC17_DRYRUN17_Manipulation_ImgOnly_p-baseline_3 has 8 '_'-separated fields, not 7 "
            "(showing 1)",
        ),
        (
            "NIST_NC17_Manipulation_ImgOnly_p-baseline_3",
            "SUB-01: the EXPID NIST_NC17_Manipulation_ImgOnly_p-baseline_3 has 6 '_'-separated fields, not 7 "
            "(showing 1)",
        ),
    ],
)
def test_wrong_field_count_fails_sub01_and_skips_the_fields(omfc, sub_id, first):
    res = image(omfc, "NC2017", sub_id).run()
    assert res.outcome("SUB-01") == "failed"
    assert res.first_line("SUB-01") == first
    for rid in EXPID_RULES[1:]:
        assert res.outcome(rid) == "skipped"
        assert res.text(rid).startswith(f"{rid} skipped: SUB-01 failed: the EXPID {sub_id} has")


def test_double_underscore_hint(omfc):
    res = image(omfc, "NC2017", "foo__NC17_DRYRUN17_Manipulation_ImgOnly_p-baseline_3").run()
    assert (
        "(got 8; TEAM and SYS must not contain '_' and '__' or a '_' at either end makes an empty field)"
        in res.text("SUB-01")
    )


def test_empty_team_fails_sub02(omfc):
    res = image(omfc, "NC2017", "_NC17_DRYRUN17_Manipulation_ImgOnly_p-baseline_3").run()
    assert res.outcome("SUB-01") == "passed"
    assert res.first_line("SUB-02") == "SUB-02: the TEAM field of the EXPID is empty (showing 1)"
    assert res.ret == 1


def test_every_bad_field_fails_its_own_rule(omfc):
    """YEAR, DATA, TASK, CONDITION, SYS and VERSION are each checked (D-01; MediScore checks YEAR and TASK only)."""
    res = image(omfc, "NC2017", "NIST_NC2017__Splice_ImageOnly_baseline_03").run()
    assert res.outcome("SUB-01") == "passed"
    assert res.outcome("SUB-02") == "passed"
    assert res.first_line("SUB-03") == "SUB-03: the YEAR field is 'NC2017', NC2017 needs NC17 (showing 1)"
    assert res.first_line("SUB-04") == "SUB-04: the DATA field of the EXPID is empty (showing 1)"
    assert res.first_line("SUB-05") == "SUB-05: the TASK field 'Splice' does not name the manipulation task (showing 1)"
    assert res.first_line("SUB-06") == "SUB-06: the CONDITION field 'ImageOnly' is not a ConditionID (showing 1)"
    assert res.first_line("SUB-07") == "SUB-07: the SYS part 'baseline' of the EXPID is not a SysID (showing 1)"
    assert res.first_line("SUB-08") == "SUB-08: the VERSION part of the EXPID is '03', not an integer >= 1 (showing 1)"
    text = res.text("SUB-05").splitlines()[1]
    assert text == (
        "  NIST_NC2017__Splice_ImageOnly_baseline_03/ TASK='Splice': "
        "TASK must be Manipulation to match the index NC2017-manipulation-index.csv (got 'Splice')"
    )
    assert "must be one of ImgOnly, VidOnly, ImgMeta, VidMeta (got 'ImageOnly')" in res.text("SUB-06")
    assert "SYS must begin with 'p-' (primary) or 'c-' (contrastive) (got 'baseline')" in res.text("SUB-07")


def test_mfc18_year_is_mfc18(omfc):
    res = image(omfc, "MFC2018", "NIST_NC17_Eval_Manipulation_ImgOnly_p-baseline_1").run()
    assert res.first_line("SUB-03") == "SUB-03: the YEAR field is 'NC17', MFC2018 needs MFC18 (showing 1)"


@pytest.mark.parametrize(
    "make, task, outcome",
    [
        (event, "EventVerification", "passed"),
        (event, "manipulation", "passed"),  # what MediScore's SSD-event validator requires
        (event, "Camera", "failed"),
        (camera, "camera", "passed"),
        (camera, "Manipulation", "passed"),
    ],
)
def test_event_and_camera_task_names(omfc, make, task, outcome):
    res = make(omfc, f"NIST_MFC18_Eval_{task}_ImgOnly_p-baseline_1").run()
    assert res.outcome("SUB-05") == outcome, res.text("SUB-05")
    if outcome == "failed":
        assert (
            res.first_line("SUB-05")
            == "SUB-05: the TASK field 'Camera' does not name the event verification task (showing 1)"
        )


# ----------------------------------------------------------------------------- MFC2019


@pytest.mark.parametrize("sub_id", ["p-baseline_3_splice", "c-cnn2_12", "p-x_1_any text_with_underscores"])
def test_valid_mfc19_subid_passes(omfc, sub_id):
    res = image(omfc, "MFC2019", sub_id).run()
    for rid in ("SUB-07", "SUB-08", "SUB-09"):
        assert res.outcome(rid) == "passed", res.text(rid)
    assert "SUB-01" not in res.reports and "SUB-10" not in res.reports


@pytest.mark.parametrize(
    "sub_id, why, sub07, sub08",
    [
        ("p-baseline_3_", "OPTIONAL is empty, so the '_' after VERSION must be omitted", "passed", "passed"),
        ("baseline_3", "SYS must begin with 'p-' (primary) or 'c-' (contrastive) (got 'baseline')", "failed", "passed"),
        (
            "p-base-line_1",
            "SYS must be 'p-' then letters and digits only (got 'p-base-line' with character '-')",
            "failed",
            "passed",
        ),
        ("p-baseline", "VERSION must follow SYS after '_' (got no '_<VERSION>')", "passed", "failed"),
        ("p-baseline_v2_splice", "VERSION must be an integer >= 1 (got 'v2')", "passed", "failed"),
    ],
)
def test_bad_mfc19_subid_fails_sub09(omfc, sub_id, why, sub07, sub08):
    res = image(omfc, "MFC2019", sub_id).run()
    assert (
        res.first_line("SUB-09") == f"SUB-09: the SubID {sub_id} does not match <SYS>_<VERSION>_[OPTIONAL] (showing 1)"
    )
    assert res.text("SUB-09").endswith(f"e.g. p-baseline_3_splice: {why}")
    assert res.outcome("SUB-07") == sub07
    assert res.outcome("SUB-08") == sub08


def test_mfc19_missing_version_fails_sub08(omfc):
    res = image(omfc, "MFC2019", "p-baseline").run()
    assert (
        res.first_line("SUB-08") == "SUB-08: the VERSION part of the SubID is missing, not an integer >= 1 (showing 1)"
    )


# ----------------------------------------------------------------------------- OpenMFC


@pytest.mark.parametrize("sub_id", ["p-baseline_3_imdl", "MyTeam-run_2"])
def test_valid_openmfc_subid_passes(omfc, sub_id):
    res = image(omfc, "OpenMFC2020", sub_id).run()
    assert res.outcome("SUB-10") == "passed", res.text("SUB-10")
    assert not any(r.startswith("SUB-0") for r in res.reports)


@pytest.mark.parametrize(
    "sub_id, got",
    [
        ("my run+1", "characters a space, '+'"),
        ("équipe_1", "character 'é'"),
        ("run.1", "character '.'"),
    ],
)
def test_special_characters_fail_sub10(omfc, sub_id, got):
    """D-02: only [A-Za-z0-9_-]."""
    res = image(omfc, "OpenMFC2020", sub_id).run()
    assert res.first_line("SUB-10") == f"SUB-10: the SubID {sub_id!r} has a space or special character (showing 1)"
    assert res.text("SUB-10").endswith(f"e.g. p-baseline_3_imdl (got {got})")
