"""STATUS rules: IsOptOut / ProbeStatus / DonorStatus / ProvenanceProbeStatus (docs/rules/status.md)."""

from __future__ import annotations

import pytest

IMG_IDX = ["TaskID", "ProbeFileID", "ProbeFileName", "ProbeWidth", "ProbeHeight"]
MFC_IMG = ["ProbeFileID", "ConfidenceScore", "OutputProbeMaskFileName", "ProbeStatus", "ProbeOptOutPixelValue"]
NC_IMG = ["ProbeFileID", "ConfidenceScore", "OutputProbeMaskFileName", "IsOptOut"]
VID_IDX = IMG_IDX + ["FrameCount"]
MFC_VID = [
    "ProbeFileID",
    "ConfidenceScore",
    "ProbeStatus",
    "VideoFrameSegments",
    "AudioSampleSegments",
    "VideoFrameOptOutSegments",
]
SPL_IDX = IMG_IDX + ["DonorFileID", "DonorFileName", "DonorWidth", "DonorHeight"]
MFC_SPL = [
    "ProbeFileID",
    "DonorFileID",
    "ConfidenceScore",
    "OutputProbeMaskFileName",
    "OutputDonorMaskFileName",
    "ProbeStatus",
    "DonorStatus",
    "ProbeOptOutPixelValue",
    "DonorOptOutPixelValue",
]
EV_IDX = IMG_IDX + ["EventName"]
EV_OUT = ["ProbeFileID", "EventName", "ConfidenceScore", "ProbeStatus"]
PROV_IDX = ["TaskID", "ProvenanceProbeFileID", "ProvenanceProbeFileName"]
M18_PROV = ["ProvenanceProbeFileID", "ConfidenceScore", "ProvenanceOutputFileName", "ProvenanceProbeStatus"]
M19_PROV = ["ProvenanceProbeFileID", "ProvenanceOutputFileName", "ProvenanceProbeStatus"]

MFC_IMG_STATUSES = [
    "Processed",
    "NonProcessed",
    "OptOutAll",
    "OptOutDetection",
    "OptOutLocalization",
    "FailedValidation",
]


def ids(n):
    return [f"T{i}" for i in range(n)]


def image(omfc, edition, statuses, masks=None, header=MFC_IMG):
    """An image-task case (the `manipulation-image` index of MFC, `IMDL` of OpenMFC, `manipulation` of NC2017)."""
    task = {"OpenMFC2020": "IMDL", "NC2017": "manipulation"}.get(edition, "manipulation-image")
    masks = masks or [""] * len(statuses)
    rows = [
        [i, "0", m, st, ""] if header is MFC_IMG else [i, "0", m, st]
        for i, st, m in zip(ids(len(statuses)), statuses, masks, strict=False)
    ]
    return omfc.case(
        edition,
        task,
        header=header,
        rows=rows,
        index_header=IMG_IDX,
        index_rows=[[task, i, f"probe/{i}.jpg", 64, 48] for i in ids(len(statuses))],
    )


def video(omfc, edition, statuses, segments=None):
    segments = segments or [("[]", "[]")] * len(statuses)
    rows = [[i, "0", st, v, a, "[]"] for i, st, (v, a) in zip(ids(len(statuses)), statuses, segments, strict=False)]
    return omfc.case(
        edition,
        "manipulation-video",
        header=MFC_VID,
        rows=rows,
        index_header=VID_IDX,
        index_rows=[["manipulation-video", i, f"probe/{i}.mp4", 64, 48, 100] for i in ids(len(statuses))],
    )


def splice(omfc, probe_status, donor_status, probe_masks=None, donor_masks=None):
    n = len(probe_status)
    pm, dm = probe_masks or [""] * n, donor_masks or [""] * n
    rows = [[i, f"D{i}", "0", pm[k], dm[k], probe_status[k], donor_status[k], "", ""] for k, i in enumerate(ids(n))]
    return omfc.case(
        "MFC2019",
        "splice",
        header=MFC_SPL,
        rows=rows,
        index_header=SPL_IDX,
        index_rows=[["splice", i, f"probe/{i}.jpg", 64, 48, f"D{i}", f"world/D{i}.jpg", 32, 24] for i in ids(n)],
    )


def event(omfc, statuses):
    events = [f"E{k}" for k in range(len(statuses))]
    return omfc.case(
        "MFC2019",
        "eventverification",
        header=EV_OUT,
        rows=[["P1", e, "0", st] for e, st in zip(events, statuses, strict=False)],
        index_header=EV_IDX,
        index_rows=[["eventverification", "P1", "world/P1.jpg", 64, 48, e] for e in events],
    )


# --------------------------------------------------------------------------- STATUS-01


def test_status01_only_y_and_n(omfc):
    """NC17 §5.1.1 lists Y and N; MediScore also takes Detection/Localization/FailedValidation (we follow the plan)."""
    res = image(omfc, "NC2017", ["N", "bar", "Detection", "", "y", "Y"], header=NC_IMG).run()
    assert res.outcome("STATUS-01") == "failed"
    assert res.first_line("STATUS-01") == "STATUS-01: 4 of 6 IsOptOut values are not recognized (showing 4)"
    text = res.text("STATUS-01")
    assert "[T1] IsOptOut='bar': IsOptOut must be one of Y, N (got 'bar')" in text
    assert "(got 'Detection'; MediScore accepts it, but the NC2017 plan allows only Y and N)" in text
    assert "(got an empty field)" in text
    assert "(got 'y'; the values are case-sensitive: Y)" in text


def test_status01_passes(omfc):
    res = image(omfc, "NC2017", ["N", "Y"], header=NC_IMG).run()
    assert res.outcome("STATUS-01") == "passed", res.text("STATUS-01")


# --------------------------------------------------------------------------- STATUS-02 / 03 / 04


def test_status02_rejects_unknown_case_and_blank(omfc):
    res = image(omfc, "MFC2019", ["Processed", "Done", "processed", "", " Processed", "OptOut"]).run()
    assert res.first_line("STATUS-02") == "STATUS-02: 5 of 6 ProbeStatus values are not recognized (showing 5)"
    text = res.text("STATUS-02")
    assert (
        "ProbeStatus must be one of Processed, NonProcessed, OptOutAll, OptOutDetection, OptOutLocalization, "
        "FailedValidation (got 'Done')"
    ) in text
    assert "(got 'processed'; the values are case-sensitive: Processed)" in text
    assert "(got ' Processed' with surrounding white space)" in text


@pytest.mark.parametrize("edition", ["MFC2018", "MFC2019"])
def test_status02_passes_with_the_six_values(omfc, edition):
    res = image(omfc, edition, MFC_IMG_STATUSES).run()
    assert res.outcome("STATUS-02") == "passed", res.text("STATUS-02")


def test_status02_skipped_when_the_file_uses_isoptout(omfc):
    res = image(omfc, "MFC2019", ["N", "Y"], header=NC_IMG).run()
    assert res.outcome("STATUS-02") == "skipped"
    assert res.text("STATUS-02") == "STATUS-02 skipped: COL-02 failed: column ProbeStatus is absent"


@pytest.mark.parametrize("edition", ["MFC2018", "MFC2019"])
def test_status03_video_values(omfc, edition):
    """MFC2019 video has eight values (OptOutTemporal, OptOutSpatial); MFC2018 video shares the layout."""
    good = MFC_IMG_STATUSES + ["OptOutTemporal", "OptOutSpatial"]
    res = video(omfc, edition, good + ["OptOut"]).run()
    assert res.first_line("STATUS-03") == "STATUS-03: 1 of 9 ProbeStatus values are not recognized (showing 1)"
    assert (
        "[T8] ProbeStatus='OptOut': ProbeStatus must be one of Processed, NonProcessed, OptOutAll, "
        "OptOutDetection, OptOutLocalization, OptOutTemporal, OptOutSpatial, FailedValidation (got 'OptOut')"
        in res.text("STATUS-03")
    )


def test_status03_passes(omfc):
    res = video(omfc, "MFC2019", ["Processed", "OptOutTemporal", "OptOutSpatial"]).run()
    assert res.outcome("STATUS-03") == "passed", res.text("STATUS-03")


def test_status04_openmfc_rejects_opt_out(omfc):
    """D-09: OpenMFC has no opt-out statuses, although MediScore accepts them."""
    res = image(omfc, "OpenMFC2020", ["Processed", "OptOutLocalization", "OptOutAll"]).run()
    assert res.first_line("STATUS-04") == "STATUS-04: 2 of 3 ProbeStatus values are not recognized (showing 2)"
    assert (
        "ProbeStatus must be one of Processed, NonProcessed, FailedValidation "
        "(got 'OptOutLocalization'; OpenMFC has no opt-out statuses (D-09))"
    ) in res.text("STATUS-04")


def test_status04_passes(omfc):
    res = image(omfc, "OpenMFC2020", ["Processed", "NonProcessed", "FailedValidation"]).run()
    assert res.outcome("STATUS-04") == "passed", res.text("STATUS-04")


# --------------------------------------------------------------------------- STATUS-05 / 06 / 07


def test_status05_probe_and_donor(omfc):
    """D-23: four donor values; unlike MediScore, checked whether or not masks are checked."""
    res = splice(omfc, ["Processed", "Y", "Processed"], ["Processed", "OptOutAll", ""]).run()
    assert res.first_line("STATUS-05") == (
        "STATUS-05: 1 of 3 ProbeStatus values and 2 of 3 DonorStatus values are not recognized (showing 3)"
    )
    assert (
        "DonorStatus must be one of Processed, NonProcessed, OptOutLocalization, FailedValidation (got 'OptOutAll')"
    ) in res.text("STATUS-05")


def test_status05_passes(omfc):
    res = splice(
        omfc,
        ["Processed", "OptOutAll", "NonProcessed", "FailedValidation"],
        ["Processed", "NonProcessed", "OptOutLocalization", "FailedValidation"],
    ).run()
    assert res.outcome("STATUS-05") == "passed", res.text("STATUS-05")


def test_status06_event_values(omfc):
    res = event(omfc, ["Processed", "OptOutAll", "OptOut"]).run()
    assert res.first_line("STATUS-06") == "STATUS-06: 1 of 3 ProbeStatus values are not recognized (showing 1)"
    assert "(got 'OptOutAll')" in res.text("STATUS-06")


def test_status06_passes(omfc):
    res = event(omfc, ["Processed", "NonProcessed", "OptOut", "FailedValidation"]).run()
    assert res.outcome("STATUS-06") == "passed", res.text("STATUS-06")


@pytest.mark.parametrize("edition,header", [("MFC2018", M18_PROV), ("MFC2019", M19_PROV)])
def test_status07_provenance_values(omfc, edition, header):
    """B-06: MediScore's provenance validator lets 'Bogus' through."""
    rows = [["T0", "0", "", "NonProcessed"], ["T1", "0", "", "Bogus"], ["T2", "0", "", "OptOut"]]
    if header is M19_PROV:
        rows = [[r[0], r[2], r[3]] for r in rows]
    case = omfc.case(
        edition,
        "provenancefiltering",
        header=header,
        rows=rows,
        index_header=PROV_IDX,
        index_rows=[["provenancefiltering", i, f"probe/{i}.jpg"] for i in ids(3)],
    )
    res = case.run()
    assert (
        res.first_line("STATUS-07") == "STATUS-07: 1 of 3 ProvenanceProbeStatus values are not recognized (showing 1)"
    )
    assert (
        "ProvenanceProbeStatus must be one of Processed, NonProcessed, OptOut, FailedValidation (got 'Bogus')"
    ) in res.text("STATUS-07")


def test_status07_passes(omfc):
    case = omfc.case(
        "MFC2019",
        "provenance",
        header=M19_PROV,
        index_header=PROV_IDX,
        rows=[["T0", "", "NonProcessed"], ["T1", "", "OptOut"], ["T2", "", "FailedValidation"]],
        index_rows=[["provenance", i, f"probe/{i}.jpg"] for i in ids(3)],
    )
    res = case.run()
    assert res.outcome("STATUS-07") == "passed", res.text("STATUS-07")


# --------------------------------------------------------------------------- STATUS-08 / 09 / 10 (warnings)


def test_status08_to_10_warn_on_mfc19_image(omfc):
    statuses = ["Processed", "FailedValidation", "OptOutDetection", "OptOutLocalization", "OptOutAll"]
    masks = ["mask/T0.png", "mask/T1.png", "", "mask/T3.png", ""]
    res = image(omfc, "MFC2019", statuses, masks).run()
    for rid in ("STATUS-02", "STATUS-08", "STATUS-09", "STATUS-10"):
        assert res.outcome(rid) == "passed", res.text(rid)
    assert res.warning("STATUS-08").splitlines() == [
        "STATUS-08: 1 FailedValidation row is excused from mask and interval checks and scored as failed (showing 1)",
        "  p-test_1/p-test_1.csv:3 [T1] ProbeStatus='FailedValidation': NIST skips this row's mask checks and "
        "scores the trial as failed (score 0, mask ignored)",
    ]
    assert res.warning("STATUS-09").splitlines() == [
        "STATUS-09: 1 of 1 OptOutDetection rows carry no localization output (showing 1)",
        "  p-test_1/p-test_1.csv:4 [T2] ProbeStatus='OptOutDetection': OptOutDetection means localization only, "
        "so the row should carry a mask (got a blank OutputProbeMaskFileName, which is scored as 'nothing "
        "manipulated')",
    ]
    assert res.warning("STATUS-10").splitlines() == [
        "STATUS-10: 1 row carries localization output its status opts out of (showing 1)",
        "  p-test_1/p-test_1.csv:5 [T3] OutputProbeMaskFileName='mask/T3.png': ProbeStatus=OptOutLocalization opts "
        "out of this output, so OutputProbeMaskFileName should be blank (got 'mask/T3.png', which is not scored)",
    ]


def test_status08_to_10_quiet_on_consistent_rows(omfc):
    res = image(
        omfc,
        "MFC2019",
        ["Processed", "OptOutDetection", "OptOutLocalization", "OptOutAll"],
        ["mask/T0.png", "mask/T1.png", "", ""],
    ).run()
    for rid in ("STATUS-08", "STATUS-09", "STATUS-10"):
        assert res.outcome(rid) == "passed", res.text(rid)
        assert res.warning(rid) is None


def test_status08_and_10_on_splice_donors(omfc):
    res = splice(
        omfc,
        ["Processed", "Processed"],
        ["FailedValidation", "OptOutLocalization"],
        probe_masks=["mask/T0.png", "mask/T1.png"],
        donor_masks=["mask/D0.png", "mask/D1.png"],
    ).run()
    assert res.warning("STATUS-08").splitlines()[1] == (
        "  p-test_1/p-test_1.csv:2 [T0:DT0] DonorStatus='FailedValidation': NIST skips this row's donor mask checks "
        "and scores the trial as failed (score 0, donor mask ignored)"
    )
    assert (
        res.warning("STATUS-10").splitlines()[0]
        == "STATUS-10: 1 row carries localization output its status opts out of (showing 1)"
    )
    assert (
        "DonorStatus=OptOutLocalization opts out of this output, so OutputDonorMaskFileName should be blank"
        in res.warning("STATUS-10")
    )


def test_status09_and_10_on_mfc19_video(omfc):
    res = video(
        omfc,
        "MFC2019",
        ["OptOutDetection", "OptOutTemporal", "OptOutTemporal", "Processed"],
        [("[ ]", "[]"), ("[[1, 5]]", "[]"), ("[]", "[]"), ("[[1,2]]", "[]")],
    ).run()
    assert (
        res.warning("STATUS-09").splitlines()[0]
        == "STATUS-09: 1 of 1 OptOutDetection rows carry no localization output (showing 1)"
    )
    assert "(got VideoFrameSegments=[] and AudioSampleSegments=[] and no mask)" in res.warning("STATUS-09")
    assert res.warning("STATUS-10").splitlines() == [
        "STATUS-10: 1 row carries localization output its status opts out of (showing 1)",
        "  p-test_1/p-test_1.csv:3 [T1] VideoFrameSegments='[[1, 5]]': ProbeStatus=OptOutTemporal opts out of this "
        "output, so VideoFrameSegments should be [] (got '[[1, 5]]', which is not scored)",
    ]


def test_status09_not_applicable_to_events(omfc):
    res = event(omfc, ["Processed", "FailedValidation"]).run()
    assert res.outcome("STATUS-09") == "skipped"
    assert res.text("STATUS-09") == "STATUS-09 skipped: no status of the EV task carries localization output"
    assert "STATUS-08" not in res.reports and "STATUS-10" not in res.reports
