"""COL rules: required columns per edition and task (docs/rules/col.md), plus the layout builders of the core tests.

``layout_case`` writes a valid index and system output for any edition and
task; the other core test modules (CSV, IDX, plugin, xdist) import it.
"""

from __future__ import annotations

from typing import Any

import pytest
from helpers.columns import CAM_OUT, LAYOUTS, M19_PROV, MFC_IMG, MFC_SPL, MFC_VID, NC_IMG, NC_PROV, NC_VID, layout_case


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
        "p-test_1/p-test_1.csv:1 ProbeFileID: the required column ProbeFileID must be present "
        "(got 'probefileid', which differs only in case)" in res.text("COL-02")
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
