"""What real participant writers get nearly right, named precisely: the CSV one folder too deep, a pandas row
index written as an empty first column, a header that differs only in case."""

from __future__ import annotations

from typing import Any

from helpers.columns import layout_case


def test_csv08_names_the_system_output_found_one_folder_too_deep(omfc: Any) -> None:
    case = layout_case(omfc)
    csv = case.submission / "p-test_1.csv"
    (case.submission / "out").mkdir()
    csv.rename(case.submission / "out" / "p-test_1.csv")
    res = case.run()
    assert res.outcome("CSV-08") == "failed"
    assert "p-test_1/out/p-test_1.csv is one folder too deep: move it to p-test_1/p-test_1.csv" in res.text("CSV-08")


def test_csv02_recognises_a_pandas_row_index(omfc: Any) -> None:
    case = layout_case(omfc)
    csv = case.submission / "p-test_1.csv"
    lines = csv.read_text().splitlines()
    csv.write_text("\n".join(["|" + lines[0], *(f"{i}|{line}" for i, line in enumerate(lines[1:]))]) + "\n")
    res = case.run()
    assert "a pandas row index? write the file with to_csv(..., index=False)" in res.text("CSV-02")


def test_col02_says_a_header_differs_only_in_case(omfc: Any) -> None:
    case = layout_case(omfc)
    csv = case.submission / "p-test_1.csv"
    csv.write_text(csv.read_text().replace("OutputProbeMaskFileName", "OutputProbeMaskFilename", 1))
    res = case.run()
    assert "(got 'OutputProbeMaskFilename', which differs only in case)" in res.text("COL-02")
