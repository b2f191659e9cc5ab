"""PKG rules: the submission directory's layout (docs/rules/pkg.md; PKG-04...06 are the MASK/VMASK/PROV tests')."""

from __future__ import annotations

import dataclasses

import pytest

IMG_IDX = ["TaskID", "ProbeFileID", "ProbeFileName", "ProbeWidth", "ProbeHeight"]
NC_IMG = ["ProbeFileID", "ConfidenceScore", "OutputProbeMaskFileName", "IsOptOut"]
MFC_IMG = ["ProbeFileID", "ConfidenceScore", "OutputProbeMaskFileName", "ProbeStatus", "ProbeOptOutPixelValue"]
PROV_IDX = ["TaskID", "ProvenanceProbeFileID", "ProvenanceProbeFileName"]
NC_PROV = ["ProvenanceProbeFileID", "ConfidenceScore", "ProvenanceOutputFileName", "IsOptOut"]

#: edition -> the rule that checks the whole directory
LAYOUT_RULE = {"NC2017": "PKG-07", "MFC2019": "PKG-08", "OpenMFC2020": "PKG-09", "MFC2018": "PKG-09"}
EDITIONS = list(LAYOUT_RULE)


def image(omfc, edition, mask="mask/T1.png", **kw):
    """An image-task submission p-test_1/ whose row T1 names ``mask`` (blank: none)."""
    task = {"OpenMFC2020": "IMDL", "NC2017": "manipulation"}.get(edition, "manipulation-image")
    header, row = (
        (NC_IMG, ["T1", "0.5", mask, "N"]) if edition == "NC2017" else (MFC_IMG, ["T1", "0.5", mask, "Processed", ""])
    )
    return omfc.case(
        edition,
        task,
        header=header,
        rows=[row],
        index_header=IMG_IDX,
        index_rows=[[task, "T1", "probe/T1.jpg", 64, 48]],
        **kw,
    )


@pytest.mark.parametrize("edition", EDITIONS)
def test_plan_layout_passes(omfc, edition):
    res = image(omfc, edition, files={"mask/T1.png": b"not checked here"}).run()
    rule = LAYOUT_RULE[edition]
    for rid in ("PKG-01", "PKG-02", "PKG-03", rule):
        assert res.outcome(rid) == "passed", res.text(rid)
    assert res.warning(rule) is None
    assert [r for r in ("PKG-07", "PKG-08", "PKG-09") if r in res.reports] == [rule]


@pytest.mark.parametrize("edition", EDITIONS)
def test_missing_mask_dir_fails_layout_rule(omfc, edition):
    rule = LAYOUT_RULE[edition]
    res = image(omfc, edition).run()
    assert res.outcome(rule) == "failed"
    assert res.first_line(rule) == f"{rule}: p-test_1/ has no mask/ directory but 1 row names a mask (showing 1)"
    assert res.text(rule).splitlines()[1] == (
        "  p-test_1/: the directory must hold mask/ since 1 row names a mask, "
        "e.g. line 2 OutputProbeMaskFileName='mask/T1.png' (got no mask/ directory)"
    )


def test_no_mask_dir_needed_without_mask_references(omfc):
    """OpenMFC masks are optional (D-25): no reference, no mask/ needed."""
    res = image(omfc, "OpenMFC2020", mask="").run()
    assert res.outcome("PKG-09") == "passed", res.text("PKG-09")
    assert res.warning("PKG-09") is None


def test_unexpected_entries_warn(omfc):
    res = image(omfc, "MFC2019", files={"mask/T1.png": b"x", "notes.docx": "x", "old/p-test_0.csv": "x"}).run()
    assert res.outcome("PKG-08") == "passed"
    warning = res.warning("PKG-08").splitlines()
    assert warning[0] == "PKG-08: p-test_1/ holds 2 unexpected entries (showing 2)"
    assert warning[1] == (
        "  p-test_1/: the directory should hold only p-test_1.csv, p-test_1.txt and mask/ (got the file 'notes.docx')"
    )
    assert warning[2].endswith("(got the directory 'old')")


def test_provenance_json_directory_is_expected(omfc):
    res = omfc.case(
        "NC2017",
        "provenancefiltering",
        header=NC_PROV,
        rows=[["P1", "0.5", "jsons/P1.json", "N"]],
        index_header=PROV_IDX,
        index_rows=[["provenancefiltering", "P1", "probe/P1.jpg"]],
        files={"jsons/P1.json": "{}"},
    ).run()
    assert res.outcome("PKG-07") == "passed", res.text("PKG-07")
    assert res.warning("PKG-07") is None


def test_misnamed_csv_fails_pkg01(omfc):
    case = image(omfc, "OpenMFC2020", mask="")
    (case.submission / "p-test_1.csv").rename(case.submission / "p-test_2.csv")
    res = case.run()
    assert res.outcome("CSV-08") == "passed"  # the only CSV is used
    assert (
        res.first_line("PKG-01")
        == "PKG-01: the system output p-test_2.csv is not named after its directory p-test_1/ (showing 1)"
    )
    assert res.text("PKG-01").splitlines()[1] == (
        "  p-test_1/p-test_2.csv: the system output must be named after its directory, p-test_1.csv (got p-test_2.csv)"
    )
    assert res.outcome("PKG-02") == "passed"
    assert (
        res.first_line("PKG-09")
        == "PKG-09: 1 error: p-test_1/ does not have the plan's layout: p-test_1.csv is missing; 1 unexpected entry "
        "(showing 1)"
    )


def test_wrong_extension_fails_pkg02(omfc):
    case = image(omfc, "OpenMFC2020", mask="")
    psv = case.submission / "p-test_1.psv"
    (case.submission / "p-test_1.csv").rename(psv)
    res = dataclasses.replace(case, submission=psv).run()
    assert res.outcome("PKG-01") == "passed"
    assert res.first_line("PKG-02") == "PKG-02: the system output p-test_1.psv does not end in .csv (showing 1)"
    assert res.text("PKG-02").endswith("the system output must have the extension '.csv' (got '.psv')")


def test_directory_with_a_tsv_fails_pkg02_not_csv08(omfc):
    """MediScore's name_test_csv: <ID>/<ID>.tsv and no .csv. The file is read, and its name is PKG-02's finding."""
    case = image(omfc, "OpenMFC2020", mask="")
    (case.submission / "p-test_1.csv").rename(case.submission / "p-test_1.tsv")
    res = case.run()
    assert res.outcome("CSV-08") == "passed"
    assert res.first_line("PKG-02") == "PKG-02: the system output p-test_1.tsv does not end in .csv (showing 1)"
    assert res.outcome("IDX-06") == "passed"  # the content is still validated


def test_missing_description_fails_pkg03_and_skips_desc(omfc):
    res = image(omfc, "MFC2019", mask="", description=None, files={"README.md": "x"}).run()
    assert res.first_line("PKG-03") == "PKG-03: the system description p-test_1.txt is missing (showing 1)"
    assert res.text("PKG-03").endswith(
        "must be the text file p-test_1.txt (got no such file; the directory has README.md)"
    )
    for rid in ("DESC-01", "DESC-03", "DESC-04"):
        assert res.outcome(rid) == "skipped"
        assert res.text(rid) == f"{rid} skipped: PKG-03 failed: the system description p-test_1.txt is missing"
    assert res.ret == 1


def test_description_symlink_outside_fails_pkg03(omfc, tmp_path_factory):
    """Nothing outside the submission is opened (D-24's rule, applied to the description)."""
    outside = tmp_path_factory.mktemp("elsewhere") / "secret.txt"
    outside.write_text("p-test_1\n", encoding="utf-8")
    case = image(omfc, "OpenMFC2020", mask="", description=None)
    (case.submission / "p-test_1.txt").symlink_to(outside)
    res = case.run()
    assert (
        res.first_line("PKG-03")
        == "PKG-03: the system description p-test_1.txt points outside the submission (showing 1)"
    )
    assert res.text("PKG-03").endswith(
        f"must stay inside the submission directory (got a symlink to {outside.resolve()})"
    )
    assert res.outcome("DESC-04") == "skipped"
