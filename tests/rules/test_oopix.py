"""OOPIX rules: opt-out pixel values (docs/rules/oopix.md, D-16)."""

from __future__ import annotations

import pytest
from helpers.masks import IMG_IDX, IMG_OUT, NC_OUT, SPL_IDX, SPL_OUT

VID_OUT = [
    "ProbeFileID",
    "ConfidenceScore",
    "ProbeStatus",
    "VideoFrameSegments",
    "AudioSampleSegments",
    "VideoFrameOptOutSegments",
    "OutputProbeMaskFileName",
    "ProbeOptOutPixelValue",
]


def image(omfc, values, edition="MFC2019"):
    task = "IMDL" if edition.startswith("OpenMFC") else "manipulation-image"
    ids = [f"P{i}" for i in range(len(values))]
    return omfc.case(
        edition,
        task,
        header=IMG_OUT,
        rows=[[i, 0.5, "", "Processed", v] for i, v in zip(ids, values, strict=False)],
        index_header=IMG_IDX,
        index_rows=[[task, i, f"probe/{i}.jpg", 40, 30] for i in ids],
    ).run()


@pytest.mark.parametrize("edition", ["MFC2019", "MFC2018"])
def test_oopix_blank_and_bytes_pass(omfc, edition):
    res = image(omfc, ["", "0", "127", "255", " 12 "], edition)
    for rid in ("OOPIX-01", "OOPIX-02"):
        assert res.outcome(rid) == "passed", res.text(rid)
    assert "OOPIX-03" not in res.reports and "OOPIX-04" not in res.reports


def test_oopix01_non_integer_fails(omfc):
    res = image(omfc, ["12.5", "abc", "7"])
    assert res.first_line("OOPIX-01") == "OOPIX-01: 2 opt-out pixel values are neither blank nor an integer (showing 2)"
    assert "p-test_1.csv:2 [P0] ProbeOptOutPixelValue='12.5': must be blank or an integer (got '12.5')" in res.text(
        "OOPIX-01"
    )
    assert res.outcome("OOPIX-02") == "passed"  # not integers: OOPIX-01's business only


def test_oopix02_out_of_byte_range_fails(omfc):
    """MediScore lets 300 and -1 pass (OOPIX-02); a one-byte mask cannot hold them."""
    res = image(omfc, ["300", "-1", "255"])
    assert res.first_line("OOPIX-02") == "OOPIX-02: 2 opt-out pixel values are outside 0-255 (showing 2)"
    assert "[P0] ProbeOptOutPixelValue='300': must be a one-byte pixel value 0-255 (got 300)" in res.text("OOPIX-02")
    assert res.outcome("OOPIX-01") == "passed"


def test_oopix_splice_donor_column(omfc):
    rows = [
        ["P1", "D1", 0.5, "", "", "Processed", "Processed", "", "1.5"],
        ["P2", "D2", 0.5, "", "", "Processed", "Processed", "12", "256"],
    ]
    res = omfc.case(
        "MFC2019",
        "splice",
        header=SPL_OUT,
        rows=rows,
        index_header=SPL_IDX,
        index_rows=[
            ["splice", p, f"probe/{p}.jpg", 40, 30, d, f"world/{d}.jpg", 20, 10]
            for p, d in (("P1", "D1"), ("P2", "D2"))
        ],
    ).run()
    assert res.first_line("OOPIX-01") == "OOPIX-01: 1 opt-out pixel value is neither blank nor an integer (showing 1)"
    assert "[P1:D1] DonorOptOutPixelValue='1.5'" in res.text("OOPIX-01")
    assert res.first_line("OOPIX-02") == "OOPIX-02: 1 opt-out pixel value is outside 0-255 (showing 1)"
    assert "[P2:D2] DonorOptOutPixelValue='256'" in res.text("OOPIX-02")


def test_oopix_video_column_only_warns(omfc):
    """D-16: MFC2019 video columns 7-8 are optional and not evaluated, so a bad value is a warning."""
    row = ["V1", 0.5, "Processed", "[]", "[]", "[]", "", "300"]
    res = omfc.case(
        "MFC2019",
        "manipulation-video",
        header=VID_OUT,
        rows=[row],
        index_header=IMG_IDX + ["FrameCount"],
        index_rows=[["manipulation-video", "V1", "probe/V1.mp4", 40, 30, 100]],
    ).run()
    assert res.outcome("OOPIX-02") == "passed"
    assert res.warning("OOPIX-02").splitlines()[0] == "OOPIX-02: 1 opt-out pixel value is outside 0-255 (showing 1)"


def test_oopix03_openmfc_value_fails(omfc):
    res = image(omfc, ["", "200", ""], "OpenMFC2020")
    assert res.first_line("OOPIX-03") == "OOPIX-03: 1 of 3 rows give a ProbeOptOutPixelValue (showing 1)"
    assert "[P1] ProbeOptOutPixelValue='200': must be blank for OpenMFC (got '200')" in res.text("OOPIX-03")


def test_oopix03_openmfc_blank_passes(omfc):
    res = image(omfc, ["", "", ""], "OpenMFC2021")
    assert res.outcome("OOPIX-03") == "passed"
    assert "OOPIX-01" not in res.reports  # M18/M19 only


@pytest.mark.parametrize("with_column", [True, False])
def test_oopix04_nc2017_pixel_column(omfc, with_column):
    header = NC_OUT + (["ProbeOptOutPixelValue"] if with_column else [])
    row = ["P1", 0.5, "", "N"] + (["7"] if with_column else [])
    res = omfc.case(
        "NC2017",
        "manipulation",
        header=header,
        rows=[row],
        index_header=IMG_IDX,
        index_rows=[["manipulation", "P1", "probe/P1.jpg", 40, 30]],
        sub_id="NIST_NC17_DRYRUN17_Manipulation_ImgOnly_p-baseline_1",
    ).run()
    assert res.outcome("OOPIX-04") == "passed"  # a warning
    if with_column:
        text = res.warning("OOPIX-04")
        assert text.splitlines()[0] == "OOPIX-04: 1 pixel opt-out column in an NC2017 file (showing 1)"
        assert (
            "NC2017 has no pixel opt-out: the column should be left out (got ProbeOptOutPixelValue with 1 value)"
            in text
        )
    else:
        assert res.warning("OOPIX-04") is None
