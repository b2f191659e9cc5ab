"""COL rules: required columns per edition and task (RULES.md 2.5), plus the layout builders of the core tests.

``layout_case`` writes a valid index and system output for any edition and
task; the other core test modules (CSV, IDX, plugin, xdist) import it.
"""

from __future__ import annotations

from typing import Any

import pytest
from conftest import Case

IMG_IDX = ["TaskID", "ProbeFileID", "ProbeFileName", "ProbeWidth", "ProbeHeight"]
VID_IDX = IMG_IDX + ["FrameCount"]
SPL_IDX = IMG_IDX + ["DonorFileID", "DonorFileName", "DonorWidth", "DonorHeight"]
EV_IDX = IMG_IDX + ["EventName"]
CAM_IDX = IMG_IDX + ["TrainCamID"]
PROV_IDX = [
    "TaskID",
    "ProvenanceProbeFileID",
    "ProvenanceProbeFileName",
    "ProvenanceProbeWidth",
    "ProvenanceProbeHeight",
]

NC_IMG = ["ProbeFileID", "ConfidenceScore", "OutputProbeMaskFileName", "IsOptOut"]
MFC_IMG = ["ProbeFileID", "ConfidenceScore", "OutputProbeMaskFileName", "ProbeStatus", "ProbeOptOutPixelValue"]
NC_VID = ["ProbeFileID", "ConfidenceScore", "IsOptOut"]
MFC_VID = [
    "ProbeFileID",
    "ConfidenceScore",
    "ProbeStatus",
    "VideoFrameSegments",
    "AudioSampleSegments",
    "VideoFrameOptOutSegments",
]
OMFC_VID = ["ProbeFileID", "ConfidenceScore", "ProbeStatus"]  # D-05
NC_SPL = [
    "ProbeFileID",
    "DonorFileID",
    "ConfidenceScore",
    "OutputProbeMaskFileName",
    "OutputDonorMaskFileName",
    "IsOptOut",
]
MFC_SPL = NC_SPL[:-1] + ["ProbeStatus", "DonorStatus", "ProbeOptOutPixelValue", "DonorOptOutPixelValue"]
EV_OUT = ["ProbeFileID", "EventName", "ConfidenceScore", "ProbeStatus"]
CAM_OUT = [
    "ProbeFileID",
    "TrainCamID",
    "OutputProbeMaskFileName",
    "ConfidenceScore",
    "ProbeStatus",
    "ProbeOptOutPixelValue",
]
NC_PROV = ["ProvenanceProbeFileID", "ConfidenceScore", "ProvenanceOutputFileName", "IsOptOut"]
M18_PROV = ["ProvenanceProbeFileID", "ConfidenceScore", "ProvenanceOutputFileName", "ProvenanceProbeStatus"]
M19_PROV = ["ProvenanceProbeFileID", "ProvenanceOutputFileName", "ProvenanceProbeStatus"]  # D-06

#: trial keys per task kind (composite for splice, event and camera: IDX-01, D-28)
TRIALS: dict[str, list[dict[str, str]]] = {
    "probe": [{"ProbeFileID": p} for p in ("0042", "0043", "0044")],
    "splice": [{"ProbeFileID": p, "DonorFileID": d} for p, d in (("P1", "D1"), ("P1", "D2"), ("P2", "D1"))],
    "event": [{"ProbeFileID": p, "EventName": e} for p, e in (("P1", "E1"), ("P1", "E2"), ("P2", "E1"))],
    "camera": [{"ProbeFileID": p, "TrainCamID": c} for p, c in (("P1", "C1"), ("P1", "C2"), ("P2", "C1"))],
    "prov": [{"ProvenanceProbeFileID": p} for p in ("0042", "0043", "0044")],
}

#: (edition, TaskID of conftest.INDEX_NAMES) -> (index header, output header, trial kind, owning COL rule)
LAYOUTS: dict[tuple[str, str], tuple[list[str], list[str], str, str]] = {
    ("NC2017", "manipulation"): (IMG_IDX, NC_IMG, "probe", "COL-01"),
    ("MFC2018", "manipulation-image"): (IMG_IDX, MFC_IMG, "probe", "COL-02"),
    ("MFC2019", "manipulation-image"): (IMG_IDX, MFC_IMG, "probe", "COL-02"),
    ("OpenMFC2020", "IMDL"): (IMG_IDX, MFC_IMG, "probe", "COL-02"),
    ("OpenMFC2021", "IMDL"): (IMG_IDX, MFC_IMG, "probe", "COL-02"),
    ("NC2017", "manipulation-video"): (VID_IDX, NC_VID, "probe", "COL-05"),
    ("MFC2018", "manipulation-video"): (VID_IDX, MFC_VID, "probe", "COL-06"),
    ("MFC2019", "manipulation-video"): (VID_IDX, MFC_VID, "probe", "COL-06"),
    ("OpenMFC2020", "VMD"): (VID_IDX, OMFC_VID, "probe", "COL-07"),
    ("OpenMFC2020", "VGMD"): (VID_IDX, OMFC_VID, "probe", "COL-07"),
    ("NC2017", "splice"): (SPL_IDX, NC_SPL, "splice", "COL-08"),
    ("MFC2018", "splice"): (SPL_IDX, MFC_SPL, "splice", "COL-08"),
    ("MFC2019", "splice"): (SPL_IDX, MFC_SPL, "splice", "COL-08"),
    ("MFC2018", "eventverification"): (EV_IDX, EV_OUT, "event", "COL-10"),
    ("MFC2019", "eventverification"): (EV_IDX, EV_OUT, "event", "COL-10"),
    ("MFC2018", "camera"): (CAM_IDX, CAM_OUT, "camera", "COL-11"),
    ("MFC2019", "camera"): (CAM_IDX, CAM_OUT, "camera", "COL-11"),
    ("NC2017", "provenancefiltering"): (PROV_IDX, NC_PROV, "prov", "COL-12"),
    ("NC2017", "provenance"): (PROV_IDX, NC_PROV, "prov", "COL-12"),
    ("MFC2018", "provenancefiltering"): (PROV_IDX, M18_PROV, "prov", "COL-12"),
    ("MFC2018", "provenance"): (PROV_IDX, M18_PROV, "prov", "COL-12"),
    ("MFC2019", "provenancefiltering"): (PROV_IDX, M19_PROV, "prov", "COL-13"),
    ("MFC2019", "provenance"): (PROV_IDX, M19_PROV, "prov", "COL-13"),
}

OUT_DEFAULTS = {
    "ConfidenceScore": "0.5",
    "OutputProbeMaskFileName": "",
    "OutputDonorMaskFileName": "",
    "IsOptOut": "N",
    "ProbeStatus": "Processed",
    "DonorStatus": "Processed",
    "ProvenanceProbeStatus": "Processed",
    "ProbeOptOutPixelValue": "",
    "DonorOptOutPixelValue": "",
    "VideoFrameSegments": "[]",
    "AudioSampleSegments": "[]",
    "VideoFrameOptOutSegments": "[]",
}
IDX_DEFAULTS = {
    "ProbeWidth": 640,
    "ProbeHeight": 480,
    "DonorWidth": 320,
    "DonorHeight": 240,
    "FrameCount": 100,
    "ProvenanceProbeWidth": 640,
    "ProvenanceProbeHeight": 480,
}


def _value(col: str, trial: dict[str, str], defaults: dict[str, Any], task: str) -> Any:
    if col in trial:
        return trial[col]
    if col == "TaskID":
        return task
    if col in defaults:
        return defaults[col]
    if col == "ProvenanceOutputFileName":
        return f"jsons/{trial['ProvenanceProbeFileID']}.json"
    if col.endswith("FileName"):  # index file names
        stem = trial.get(col.replace("FileName", "FileID"), trial.get("ProbeFileID", "x"))
        return f"{'world' if col.startswith('Donor') else 'probe'}/{stem}.jpg"
    return ""


def layout_case(
    omfc: Any,
    edition: str = "OpenMFC2020",
    task: str = "IMDL",
    *,
    header: list[str] | None = None,
    trials: list[dict[str, str]] | None = None,
    index_trials: list[dict[str, str]] | None = None,
    **kw: Any,
) -> Case:
    """A valid case of ``edition``/``task`` (three trials), with the header or the system trials changed."""
    index_header, out_header, kind, _ = LAYOUTS[(edition, task)]
    header = header if header is not None else out_header
    trials = trials if trials is not None else TRIALS[kind]
    index_trials = index_trials if index_trials is not None else TRIALS[kind]
    rows = [[_value(c, t, OUT_DEFAULTS, task) for c in header] for t in trials]
    index_rows = [[_value(c, t, IDX_DEFAULTS, task) for c in index_header] for t in index_trials]
    return omfc.case(edition, task, header=header, rows=rows, index_header=index_header, index_rows=index_rows, **kw)


def core_outcomes(res: Any) -> dict[str, str]:
    """Outcome of every collected CSV, COL and IDX item."""
    return {rid: out for rid, (out, _) in res.reports.items() if rid.split("-")[0] in ("CSV", "COL", "IDX")}


def without(header: list[str], *cols: str) -> list[str]:
    return [c for c in header if c not in cols]


# ---------------------------------------------------------------------------- passing, every edition and task


@pytest.mark.parametrize(("edition", "task"), sorted(LAYOUTS), ids=[f"{e}-{t}" for e, t in sorted(LAYOUTS)])
def test_valid_layout_passes_csv_col_idx(omfc, edition, task):
    """The plan's layout passes every CSV/COL/IDX rule, incl. the 3-column OpenMFC VMD (D-05) and MFC2019
    provenance (D-06) files."""
    res = layout_case(omfc, edition, task).run()
    outcomes = core_outcomes(res)
    col_rule = LAYOUTS[(edition, task)][3]
    assert outcomes[col_rule] == "passed", res.text(col_rule)
    assert {f"IDX-0{i}" for i in range(1, 7)} | {f"CSV-0{i}" for i in range(1, 9)} <= set(outcomes)
    assert {rid: out for rid, out in outcomes.items() if out != "passed"} == {}
    assert [rid for rid in outcomes if res.warning(rid)] == []
    assert not {"IDX-07", "IDX-08"} & set(res.reports)  # not_checked: MediScore options


# ---------------------------------------------------------------------------- failing, one per rule

COL_FAILS = [
    pytest.param(
        "NC2017",
        "manipulation",
        without(NC_IMG, "IsOptOut"),
        "COL-01",
        "COL-01: the required column IsOptOut is absent (showing 1)",
        id="COL-01",
    ),
    pytest.param(
        "MFC2019",
        "manipulation-image",
        without(MFC_IMG, "ProbeOptOutPixelValue"),
        "COL-02",
        "COL-02: the required column ProbeOptOutPixelValue is absent (showing 1)",
        id="COL-02",
    ),
    pytest.param(
        "OpenMFC2020",
        "IMDL",
        ["ProbeFileID", "ConfidenceScore", "OutputProbeMaskFileName"],
        "COL-03",
        "COL-03: neither IsOptOut nor ProbeStatus is a column (showing 1)",
        id="COL-03",
    ),
    pytest.param(
        "NC2017",
        "manipulation-video",
        without(NC_VID, "IsOptOut"),
        "COL-05",
        "COL-05: the required column IsOptOut is absent (showing 1)",
        id="COL-05",
    ),
    pytest.param(
        "MFC2019",
        "manipulation-video",
        MFC_VID[:3],
        "COL-06",
        "COL-06: 3 required columns are absent: VideoFrameSegments, AudioSampleSegments, VideoFrameOptOutSegments "
        "(showing 3)",
        id="COL-06",
    ),
    pytest.param(
        "OpenMFC2020",
        "VMD",
        ["ProbeFileID", "ConfidenceScore"],
        "COL-07",
        "COL-07: the required column ProbeStatus is absent (showing 1)",
        id="COL-07",
    ),
    pytest.param(
        "MFC2018",
        "splice",
        without(MFC_SPL, "DonorStatus"),
        "COL-08",  # D-08: fatal, unlike MediScore
        "COL-08: the required column DonorStatus is absent (showing 1)",
        id="COL-08",
    ),
    pytest.param(
        "MFC2019",
        "splice",
        without(MFC_SPL, "DonorOptOutPixelValue"),
        "COL-09",
        "COL-09: ProbeOptOutPixelValue without DonorOptOutPixelValue (showing 1)",
        id="COL-09",
    ),
    pytest.param(
        "MFC2019",
        "eventverification",
        ["ProbeFileID", "EventName", "ConfidenceScore", "IsOptOut"],
        "COL-10",
        "COL-10: the required column ProbeStatus is absent (showing 1)",
        id="COL-10",
    ),
    pytest.param(
        "MFC2018",
        "camera",
        without(CAM_OUT, "TrainCamID"),
        "COL-11",
        "COL-11: the required column TrainCamID is absent (showing 1)",
        id="COL-11",
    ),
    pytest.param(
        "NC2017",
        "provenancefiltering",
        without(NC_PROV, "ConfidenceScore"),
        "COL-12",
        "COL-12: the required column ConfidenceScore is absent (showing 1)",
        id="COL-12",
    ),
    pytest.param(
        "MFC2019",
        "provenance",
        without(M19_PROV, "ProvenanceProbeStatus"),
        "COL-13",
        "COL-13: the required column ProvenanceProbeStatus is absent (showing 1)",
        id="COL-13",
    ),
]


@pytest.mark.parametrize(("edition", "task", "header", "rule_id", "first"), COL_FAILS)
def test_col_rule_fails(omfc, edition, task, header, rule_id, first):
    res = layout_case(omfc, edition, task, header=header).run()
    assert res.outcome(rule_id) == "failed", res.text(rule_id)
    assert res.first_line(rule_id) == first
    assert res.ret == 1


def test_col_names_are_exact(omfc):
    """CSV-02 + COL-02: 'probefileid' is not ProbeFileID (MediScore: "absent"); the finding names what was found."""
    header = ["probefileid"] + MFC_IMG[1:]
    res = layout_case(omfc, header=header).run()
    assert res.first_line("COL-02") == "COL-02: the required column ProbeFileID is absent (showing 1)"
    assert (
        "p-test_1/p-test_1.csv:1 ProbeFileID: the required column ProbeFileID must be present (got 'probefileid')"
        in res.text("COL-02")
    )
    assert res.text("IDX-06") == "IDX-06 skipped: COL-02 failed: key column ProbeFileID is absent"


def test_col04_both_status_columns_warn(omfc):
    """COL-04 is WARN-ONLY in MediScore: a warning, the run still passes."""
    res = layout_case(omfc, "MFC2019", "manipulation-image", header=MFC_IMG + ["IsOptOut"]).run()
    assert res.outcome("COL-04") == "passed"
    assert res.warning("COL-04").splitlines()[0] == "COL-04: both IsOptOut and ProbeStatus are columns (showing 1)"
    assert res.outcome("COL-02") == "passed"


def test_mfc19_provenance_may_carry_a_score(omfc):
    """D-06: ConfidenceScore is optional in the MFC2019 provenance file, and anywhere in it."""
    header = ["ProvenanceProbeFileID", "ConfidenceScore", "ProvenanceOutputFileName", "ProvenanceProbeStatus"]
    res = layout_case(omfc, "MFC2019", "provenancefiltering", header=header).run()
    assert res.outcome("COL-13") == "passed"
    assert res.outcome("CSV-06") == "passed" and res.warning("CSV-06") is None


def test_openmfc_video_keeps_optional_segment_columns(omfc):
    """D-05: the OpenMFC VMD layout accepts the MFC2019 6-column file too (segment columns are optional)."""
    res = layout_case(omfc, "OpenMFC2020", "VMD", header=MFC_VID).run()
    assert res.outcome("COL-07") == "passed"
    assert res.outcome("COL-03") == "passed"


def test_absent_optional_column_blames_no_col_rule(tmp_path):
    """An absent optional column (D-05) is 'nothing to check', not a COL failure; an absent required one names
    the COL rule."""
    from pytest_omfc.editions import Edition, Task
    from pytest_omfc.findings import Unavailable
    from pytest_omfc.submission import NotApplicable, Settings, Submission

    sub = tmp_path / "p-x_1"
    sub.mkdir()
    (sub / "p-x_1.csv").write_text("ProbeFileID|ConfidenceScore\nP1|0.5\n")
    index = tmp_path / "OpenMFC20_Video-VMD-index.csv"
    index.write_text(
        "TaskID|ProbeFileID|ProbeFileName|ProbeWidth|ProbeHeight|FrameCount\nmanipulation|P1|p.mp4|4|4|10\n"
    )
    ctx = Submission(
        Settings(submission=sub, csv=sub / "p-x_1.csv", index=index, edition=Edition.OpenMFC2020, task=Task.VID)
    )
    with pytest.raises(NotApplicable, match="optional column VideoFrameSegments is absent"):
        ctx.column("VideoFrameSegments")
    with pytest.raises(Unavailable) as exc:
        ctx.column("ProbeStatus")
    assert (exc.value.rule_id, ctx.column_rule) == ("COL-07", "COL-07")
