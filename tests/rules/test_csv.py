"""CSV rules: the file dialect (docs/rules/csv.md) and bad input that must never crash.

Verdicts where the plans leave them open are documented in pytest_omfc/csvio.py:
a BOM is a CSV-02 error but parsing continues; CRLF passes; a blank line is a
CSV-03 warning; quoted values are a CSV-04 warning; bytes that are not UTF-8
are a CSV-03 error and parsing continues.
"""

from __future__ import annotations

from typing import Any

import pytest
from helpers.columns import IMG_IDX, layout_case
from helpers.runs import psv

H = "ProbeFileID|ConfidenceScore|OutputProbeMaskFileName|ProbeStatus|ProbeOptOutPixelValue"
R = ["0042|0.5||Processed|", "0043|0.5||Processed|", "0044|0.5||Processed|"]
CSV = "p-test_1/p-test_1.csv"


def lines(*records: str, end: str = "\n") -> bytes:
    return "".join(r + end for r in records).encode()


def quoted(record: str) -> str:
    return "|".join(f'"{v}"' for v in record.split("|"))


def run_csv(omfc: Any, data: bytes, *extra: str) -> Any:
    return layout_case(omfc, csv_text=data).run(*extra)


# (id, file bytes, {rule: (outcome, exact first line)}, {rule: exact first line of the warning})
BAD_INPUT = [
    ("crlf", lines(H, *R, end="\r\n"), {"CSV-03": ("passed", ""), "IDX-06": ("passed", "")}, {}),
    ("cr-only", lines(H, *R, end="\r"), {"CSV-03": ("passed", ""), "IDX-06": ("passed", "")}, {}),
    ("no-final-newline", lines(H, *R)[:-1], {"CSV-03": ("passed", ""), "IDX-06": ("passed", "")}, {}),
    (
        "empty",
        b"",
        {
            "CSV-02": ("failed", f"CSV-02: {CSV} is empty (showing 1)"),
            "CSV-01": ("skipped", f"CSV-01 skipped: CSV-02 failed: {CSV} is empty"),
            "IDX-06": ("skipped", f"IDX-06 skipped: CSV-02 failed: {CSV} is empty"),
        },
        {},
    ),
    ("white-space-only", b" \n\n\t\n", {"CSV-02": ("failed", f"CSV-02: {CSV} is empty (showing 1)")}, {}),
    (
        "binary",
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
        {
            "CSV-03": ("failed", f"CSV-03: {CSV} is not a text file (showing 1)"),
            "COL-02": ("skipped", f"COL-02 skipped: CSV-03 failed: {CSV} is not a text file"),
            "IDX-06": ("skipped", f"IDX-06 skipped: CSV-03 failed: {CSV} is not a text file"),
        },
        {},
    ),
    (
        "utf-16",
        (H + "\n" + "\n".join(R) + "\n").encode("utf-16"),
        {"CSV-03": ("failed", f"CSV-03: {CSV} is not UTF-8 text (showing 1)")},
        {},
    ),
    (
        "latin-1",
        lines(H, R[0], "0043|0.5|caf\xe9|Processed|", R[2]).replace(b"caf\xc3\xa9", b"caf\xe9"),
        {"CSV-03": ("failed", "CSV-03: 1 line is not UTF-8 text (showing 1)"), "IDX-06": ("passed", "")},
        {},
    ),
    (
        "comma-separated",
        lines(*(r.replace("|", ",") for r in (H, *R))),
        {
            "CSV-01": ("failed", f"CSV-01: {CSV} is not '|'-separated (showing 1)"),
            "CSV-02": ("skipped", f"CSV-02 skipped: CSV-01 failed: {CSV} is not '|'-separated"),
            "IDX-06": ("skipped", f"IDX-06 skipped: CSV-01 failed: {CSV} is not '|'-separated"),
        },
        {},
    ),
    (
        "tab-separated",
        lines(*(r.replace("|", "\t") for r in (H, *R))),
        {"CSV-01": ("failed", f"CSV-01: {CSV} is not '|'-separated (showing 1)")},
        {},
    ),
    (
        "ragged",
        lines(H, R[0], R[1] + "|x", "0044|0.5|"),
        {
            "CSV-03": ("failed", "CSV-03: 2 records have the wrong number of fields (showing 2)"),
            "IDX-06": ("passed", ""),
        },
        {},
    ),
    (
        "trailing-pipe-row",
        lines(H, R[0] + "|", *R[1:]),
        {"CSV-03": ("passed", "")},
        {"CSV-03": "CSV-03: 1 record ends with an extra '|' (showing 1)"},
    ),
    (
        "trailing-pipe-everywhere",
        lines(*(r + "|" for r in (H, *R))),
        {"CSV-02": ("passed", ""), "CSV-06": ("passed", "")},
        {"CSV-02": "CSV-02: 1 problem with the header line (showing 1)"},
    ),
    (
        "blank-lines",
        lines(H, R[0], "", R[1], R[2], "  "),
        {"CSV-03": ("passed", ""), "IDX-02": ("passed", "")},
        {"CSV-03": "CSV-03: 2 blank lines (showing 2)"},
    ),
    (
        "ragged-and-blank",
        lines(H, R[0], "", R[1], "0044|0.5"),
        {"CSV-03": ("failed", "CSV-03: 1 record has the wrong number of fields (showing 1)")},
        {"CSV-03": "CSV-03: 1 blank line (showing 1)"},
    ),
    (
        "quoted",
        lines(*(quoted(r) for r in (H, *R))),
        {"CSV-04": ("passed", ""), "COL-02": ("passed", ""), "IDX-06": ("passed", "")},
        {"CSV-04": "CSV-04: 4 lines have quoted fields (MediScore strips standard quoting) (showing 4)"},
    ),
    (
        "unbalanced-quote",
        lines(H, '0042|"0.5||Processed|', *R[1:]),
        {"CSV-03": ("failed", "CSV-03: 1 record has the wrong number of fields (showing 1)"), "IDX-06": ("passed", "")},
        {"CSV-04": "CSV-04: 1 line has quoted fields (MediScore strips standard quoting) (showing 1)"},
    ),
    (
        "bom",
        b"\xef\xbb\xbf" + lines(H, *R),
        {
            "CSV-02": ("failed", "CSV-02: 1 problem with the header line (showing 1)"),
            "COL-02": ("passed", ""),
            "IDX-06": ("passed", ""),
        },
        {},
    ),
    (
        "header-space",
        lines(H.replace("ProbeFileID", "ProbeFileID "), *R),
        {
            "CSV-02": ("failed", "CSV-02: 1 problem with the header line (showing 1)"),
            "COL-02": ("failed", "COL-02: the required column ProbeFileID is absent (showing 1)"),
        },
        {},
    ),
    (
        "duplicate-column",
        lines(H + "|ProbeStatus", *(r + "|x" for r in R)),
        {"CSV-02": ("failed", "CSV-02: 1 problem with the header line (showing 1)"), "IDX-06": ("passed", "")},
        {},
    ),
    (
        "line-separator-in-a-value",
        lines(H, "0042|0.5||Processed\u2028|", *R[1:]),
        {"CSV-03": ("passed", ""), "IDX-02": ("passed", "")},
        {},
    ),
    (
        "huge-quoted-field",
        lines(H, '0042|0.5|"' + "m" * 200_000 + '"|Processed|', *R[1:]),
        {"CSV-03": ("passed", ""), "IDX-06": ("passed", "")},
        {"CSV-04": "CSV-04: 1 line has quoted fields (MediScore strips standard quoting) (showing 1)"},
    ),
    ("leading-zeros", lines(H, *R), {"IDX-06": ("passed", ""), "IDX-01": ("passed", "")}, {}),
]


@pytest.mark.parametrize(("data", "expect", "warns"), [pytest.param(d, e, w, id=i) for i, d, e, w in BAD_INPUT])
def test_bad_input_becomes_findings(omfc, data, expect, warns):
    res = run_csv(omfc, data)
    for rule_id, (outcome, first) in expect.items():
        assert res.outcome(rule_id) == outcome, res.text(rule_id)
        assert res.first_line(rule_id) == first
    for rule_id, first in warns.items():
        assert (res.warning(rule_id) or "").splitlines()[0] == first
    quiet = set(expect) - set(warns)
    assert [r for r in quiet if res.warning(r)] == []


def test_findings_name_file_line_and_value(omfc):
    res = run_csv(omfc, lines(H, R[0], R[1] + "|x", "0044|0.5|"))
    assert res.text("CSV-03").splitlines()[1:] == [
        f"  {CSV}:3: a record must have 5 fields like the header (got 6, extra ['x'])",
        f"  {CSV}:4: a record must have 5 fields like the header (got 3)",
    ]
    res = run_csv(omfc, lines(*(r.replace("|", ",") for r in (H, *R))))
    assert res.text("CSV-01").splitlines()[1] == (
        f"  {CSV}:1: fields must be separated by '|' (got a comma-separated header "
        "'ProbeFileID,ConfidenceScore,OutputProb...Name,ProbeStatus,ProbeOptOutPixelValue')"
    )


BAD_SUBPROCESS = [
    pytest.param(d, id=i) for i, d, *_ in BAD_INPUT if i in ("empty", "binary", "comma-separated", "ragged")
]


@pytest.mark.parametrize("data", BAD_SUBPROCESS)
def test_bad_input_never_crashes_pytest(omfc, pytester, data):
    """In a real process: a failing rule and exit code 1, never a traceback or INTERNALERROR."""
    case = layout_case(omfc, csv_text=data)
    result = pytester.runpytest_subprocess(*case.args, "-p", "no:cacheprovider")
    out = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in out and "INTERNALERROR" not in out
    assert result.ret == 1
    result.stdout.fnmatch_lines(["FAILED *::CSV-0[123] - CSV-0[123]: *"])


# ---------------------------------------------------------------------------- one failing, one passing per rule


def test_csv08_missing_system_output(omfc):
    case = layout_case(omfc)
    case.submission.joinpath("p-test_1.csv").unlink()
    res = case.run()
    assert res.first_line("CSV-08") == f"CSV-08: {CSV} is missing (showing 1)"
    assert (
        res.text("CSV-08").splitlines()[1]
        == "  p-test_1/: the system output p-test_1/p-test_1.csv must exist (got p-test_1.txt)"
    )
    assert res.text("CSV-01") == f"CSV-01 skipped: CSV-08 failed: {CSV} is missing"
    assert res.text("IDX-06") == f"IDX-06 skipped: CSV-08 failed: {CSV} is missing"
    assert res.ret == 1


def test_csv05_placeholder_instead_of_empty_warns(omfc):
    res = run_csv(omfc, lines(H, "0042|0.5|NaN|Processed|", "0043|0.5| |Processed|", R[2]))
    assert res.outcome("CSV-05") == "passed"
    assert res.warning("CSV-05").splitlines() == [
        "CSV-05: 2 fields hold a placeholder instead of being empty (showing 2)",
        f"  {CSV}:2 [0042] OutputProbeMaskFileName='NaN': a blank OutputProbeMaskFileName should be an empty field "
        "(got a placeholder)",
        f"  {CSV}:3 [0043] OutputProbeMaskFileName=' ': a blank OutputProbeMaskFileName should be an empty field (got "
        "a placeholder)",
    ]


def test_csv06_extra_and_reordered_columns_warn(omfc):
    """MediScore checks neither (img_extra_col, img_reordered_cols pass); the VRM says "must": a warning."""
    header = "ConfidenceScore|ProbeFileID|OutputProbeMaskFileName|ProbeStatus|ProbeOptOutPixelValue|Foo"
    rows = ["0.5|0042||Processed||x", "0.5|0043||Processed||x", "0.5|0044||Processed||x"]
    res = run_csv(omfc, lines(header, *rows))
    assert res.outcome("CSV-06") == "passed"
    assert (
        res.warning("CSV-06").splitlines()[0] == "CSV-06: 1 extra column and the columns are out of order (showing 2)"
    )
    assert res.outcome("IDX-06") == "passed" and res.ret == 0


def test_csv07_index_extension_and_separator(omfc, pytester):
    """MediScore ENFORCES the .csv extension; an index that is not a '|' table makes the IDX rules skip."""
    case = layout_case(omfc)
    txt = case.index.with_suffix(".txt")
    txt.write_text(case.index.read_text())
    rec = pytester.inline_run(
        "--omfc-submission",
        str(case.submission),
        "--omfc-index",
        str(txt),
        "--omfc-edition",
        "OpenMFC2020",
        "--omfc-task",
        "IMDL",
        "-p",
        "no:cacheprovider",
    )
    failed = {r.nodeid.rsplit("::", 1)[-1]: r for r in rec.getreports("pytest_runtest_logreport") if r.failed}
    assert list(failed) == ["CSV-07"]
    assert str(failed["CSV-07"].longrepr).splitlines()[0] == (
        "CSV-07: the index OpenMFC20_Image-IMDL-index.txt does not have the extension .csv (showing 1)"
    )

    case.index.write_text(psv([",".join(IMG_IDX)], [["IMDL,0042,p.jpg,1,1"]]))
    res = case.run()
    assert res.first_line("CSV-07") == "CSV-07: OpenMFC20_Image-IMDL-index.csv is not '|'-separated (showing 1)"
    assert res.text("IDX-06") == "IDX-06 skipped: CSV-07 failed: OpenMFC20_Image-IMDL-index.csv is not '|'-separated"

    case.index.write_text(psv(["TaskID", "FileID"], [["IMDL", "0042"]]))
    res = case.run()
    assert (
        res.first_line("CSV-07")
        == "CSV-07: the index OpenMFC20_Image-IMDL-index.csv lacks the key column ProbeFileID (showing 1)"
    )
    assert (
        res.text("IDX-04")
        == "IDX-04 skipped: CSV-07 failed: the index OpenMFC20_Image-IMDL-index.csv lacks the key column ProbeFileID"
    )


def test_csv_rules_pass_on_a_plain_file(omfc):
    res = run_csv(omfc, lines(H, *R))
    for rule_id in [f"CSV-0{i}" for i in range(1, 9)]:
        assert res.outcome(rule_id) == "passed", res.text(rule_id)
        assert res.warning(rule_id) is None
    assert res.ret == 0
