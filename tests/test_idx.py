"""IDX rules: one-to-one correspondence with the index (RULES.md 2.6)."""

from __future__ import annotations

IDX_HEADER = ["TaskID", "ProbeFileID", "ProbeFileName", "ProbeWidth", "ProbeHeight"]
OUT_HEADER = ["ProbeFileID", "ConfidenceScore", "OutputProbeMaskFileName", "ProbeStatus", "ProbeOptOutPixelValue"]


def index_rows(ids):
    return [["IMDL", i, f"probe/{i}.jpg", 640, 480] for i in ids]


def out_rows(ids):
    return [[i, 0.5, "", "Processed", ""] for i in ids]


def make(omfc, sys_ids, idx_ids=("0042", "0043", "0044")):
    return omfc.case("OpenMFC2020", "IMDL", header=OUT_HEADER, rows=out_rows(sys_ids),
                     index_header=IDX_HEADER, index_rows=index_rows(idx_ids))


def test_valid_passes_all_idx(omfc):
    res = make(omfc, ["0044", "0042", "0043"]).run()
    for rid in ("IDX-01", "IDX-02", "IDX-03", "IDX-04", "IDX-05", "IDX-06"):
        assert res.outcome(rid) == "passed", res.text(rid)
    assert res.ret == 0


def test_missing_trial_fails_idx04_and_idx06(omfc):
    res = make(omfc, ["0042"]).run()
    assert res.first_line("IDX-04") == "IDX-04: 2 of 3 trials are missing from the system output (showing 2)"
    assert res.first_line("IDX-06") == "IDX-06: 2 of 3 trials are missing from the system output (showing 2)"
    assert "[0043]" in res.text("IDX-04")
    assert res.ret == 1


def test_leading_zeros_are_kept(omfc):
    """B-12: 0042 must not become 42."""
    res = make(omfc, ["42", "0043", "0044"]).run()
    assert res.outcome("IDX-03") == "failed"
    assert "ProbeFileID='42'" in res.text("IDX-03")


def test_duplicate_key_fails_idx05(omfc):
    res = make(omfc, ["0042", "0042", "0043", "0044"]).run()
    assert res.first_line("IDX-05") == "IDX-05: 1 row(s) repeat a trial key (showing 1)"
    assert res.first_line("IDX-02") == "IDX-02: 4 data rows, the index has 3 (showing 1)"


def test_whitespace_key_fails_idx01(omfc):
    res = make(omfc, ["0042 ", "0043", "0044"]).run()
    assert res.outcome("IDX-01") == "failed"
    assert "matches the index once stripped" in res.text("IDX-01")
