"""IDX rules: one-to-one correspondence with the index (docs/rules/idx.md, D-07, D-28, B-01, B-02, B-12)."""

from __future__ import annotations

import pytest
from helpers.columns import TRIALS, layout_case

IDX_HEADER = ["TaskID", "ProbeFileID", "ProbeFileName", "ProbeWidth", "ProbeHeight"]
OUT_HEADER = ["ProbeFileID", "ConfidenceScore", "OutputProbeMaskFileName", "ProbeStatus", "ProbeOptOutPixelValue"]
IDX_RULES = [f"IDX-0{i}" for i in range(1, 7)]


def index_rows(ids):
    return [["IMDL", i, f"probe/{i}.jpg", 640, 480] for i in ids]


def out_rows(ids):
    return [[i, 0.5, "", "Processed", ""] for i in ids]


def make(omfc, sys_ids, idx_ids=("0042", "0043", "0044"), rows=None):
    return omfc.case(
        "OpenMFC2020",
        "IMDL",
        header=OUT_HEADER,
        rows=rows or out_rows(sys_ids),
        index_header=IDX_HEADER,
        index_rows=index_rows(idx_ids),
    )


def test_valid_passes_all_idx(omfc):
    """Row order is free; '0042' matches '0042' (B-12: IDs stay strings)."""
    res = make(omfc, ["0044", "0042", "0043"]).run()
    for rid in IDX_RULES:
        assert res.outcome(rid) == "passed", res.text(rid)
    assert res.ret == 0


def test_whitespace_key_fails_idx01(omfc):
    res = make(omfc, ["0042 ", "0043", "0044"]).run()
    assert res.first_line("IDX-01") == "IDX-01: 1 trial key is not exact (showing 1)"
    assert res.text("IDX-01").splitlines()[1] == (
        "  p-test_1/p-test_1.csv:2 [0042 ] ProbeFileID='0042 ': ProbeFileID must match the index exactly "
        "(got surrounding white space; it matches the index once stripped)"
    )


def test_empty_key_fails_idx01(omfc):
    res = make(omfc, ["", "0043", "0044"]).run()
    assert res.first_line("IDX-01") == "IDX-01: 1 trial key is not exact (showing 1)"
    assert "ProbeFileID='': ProbeFileID must not be empty" in res.text("IDX-01")


def test_row_count_fails_idx02(omfc):
    res = make(omfc, ["0042", "0043", "0044", "0045"]).run()
    assert res.first_line("IDX-02") == "IDX-02: 4 data rows, the index has 3 (showing 1)"
    assert res.text("IDX-02").splitlines()[1] == (
        "  p-test_1/p-test_1.csv: the system output must have 3 data rows like the index (got 4)"
    )


def test_extra_trial_fails_idx03(omfc):
    res = make(omfc, ["0042", "0043", "0099"]).run()
    assert res.first_line("IDX-03") == "IDX-03: 1 of 3 system trials does not exist in the index (showing 1)"
    assert (
        "p-test_1/p-test_1.csv:4 [0099] ProbeFileID='0099': the trial must exist in the index (it does not)"
        in res.text("IDX-03")
    )


def test_leading_zeros_are_kept(omfc):
    """B-12: 0042 must not become 42, nor 42 match 0042."""
    res = make(omfc, ["42", "0043", "0044"]).run()
    assert res.outcome("IDX-03") == "failed"
    assert "ProbeFileID='42'" in res.text("IDX-03")
    assert res.first_line("IDX-04") == "IDX-04: 1 of 3 trials is missing from the system output (showing 1)"


def test_missing_trial_fails_idx04_and_idx06(omfc):
    res = make(omfc, ["0042"]).run()
    assert res.first_line("IDX-04") == "IDX-04: 2 of 3 trials are missing from the system output (showing 2)"
    assert res.first_line("IDX-06") == "IDX-06: 2 of 3 trials are missing from the system output (showing 2)"
    assert res.text("IDX-04").splitlines()[1] == (
        "  OpenMFC20_Image-IMDL-index.csv:3 [0043]: the index trial must appear in the system output (it does not)"
    )
    assert res.ret == 1


def test_duplicate_key_fails_idx05(omfc):
    """A repeated key with other values is caught too (MediScore: identical rows only; DSD: nothing, B-02)."""
    rows = out_rows(["0042", "0043", "0044"]) + [["0042", 0.9, "", "Processed", ""], ["0043", 0.5, "", "Processed", ""]]
    res = make(omfc, None, rows=rows).run()
    assert res.first_line("IDX-05") == "IDX-05: 2 rows repeat a trial key (showing 2)"
    lines = res.text("IDX-05").splitlines()
    assert lines[1] == (
        "  p-test_1/p-test_1.csv:5 [0042] ProbeFileID='0042': the trial key must appear once "
        "(got it again, with different values; first on line 2)"
    )
    assert lines[2].endswith("(got it again, the whole row is repeated; first on line 3)")
    assert res.first_line("IDX-02") == "IDX-02: 5 data rows, the index has 3 (showing 1)"


def test_duplicate_standing_in_for_missing_fails_idx06(omfc):
    """MediScore's img_dup_id_diff passes (B-01): P1 twice, P2 missing; the row count matches."""
    res = make(omfc, ["0042", "0042", "0044"]).run()
    assert res.outcome("IDX-02") == "passed"
    assert res.first_line("IDX-06") == (
        "IDX-06: the system output does not match the index one-to-one: 1 of 3 trials is missing from the "
        "system output; 1 trial key is repeated (showing 2)"
    )
    assert res.outcome("IDX-05") == "failed"


# ---------------------------------------------------------------------------- composite keys (IDX-01, D-28)

COMPOSITE = [
    # DSD's dsd_dup_pair passes in MediScore (B-02): a duplicated pair stands in for a missing one
    pytest.param(
        "MFC2019",
        "splice",
        [TRIALS["splice"][0], TRIALS["splice"][0], TRIALS["splice"][2]],
        "IDX-06: the system output does not match the index one-to-one: 1 of 3 trials is missing from the "
        "system output; 1 trial key is repeated (showing 2)",
        "[P1:D2]",
        id="splice-dup-pair",
    ),
    # ev_missing_event: (P1,E1) twice, (P1,E2) missing -- SSD-event passes it (B-01)
    pytest.param(
        "MFC2019",
        "eventverification",
        [TRIALS["event"][0], TRIALS["event"][0], TRIALS["event"][2]],
        "IDX-06: the system output does not match the index one-to-one: 1 of 3 trials is missing from the "
        "system output; 1 trial key is repeated (showing 2)",
        "[P1:E2]",
        id="event-missing",
    ),
    pytest.param(
        "MFC2018",
        "camera",
        [TRIALS["camera"][0], TRIALS["camera"][1], {"ProbeFileID": "P2", "TrainCamID": "C9"}],
        "IDX-06: the system output does not match the index one-to-one: 1 of 3 trials is missing from the "
        "system output; 1 system trial is not in the index (showing 2)",
        "[P2:C9] ProbeFileID+TrainCamID='P2:C9'",
        id="camera-extra",
    ),
    pytest.param(
        "NC2017",
        "provenance",
        TRIALS["prov"][:2],
        "IDX-06: 1 of 3 trials is missing from the system output (showing 1)",
        "[0044]",
        id="provenance-missing",
    ),
]


@pytest.mark.parametrize(("edition", "task", "trials", "first", "text"), COMPOSITE)
def test_composite_keys_fail_idx06(omfc, edition, task, trials, first, text):
    res = layout_case(omfc, edition, task, trials=trials).run()
    assert res.first_line("IDX-06") == first
    assert text in res.text("IDX-06")


def test_same_probe_other_donor_is_a_different_trial(omfc):
    """D-28: (P1, D2) is not (P1, D1); MediScore's DSD reports "The pair (P1,D9) does not exist"."""
    trials = [TRIALS["splice"][0], {"ProbeFileID": "P1", "DonorFileID": "D9"}, TRIALS["splice"][2]]
    res = layout_case(omfc, "NC2017", "splice", trials=trials).run()
    assert res.first_line("IDX-03") == "IDX-03: 1 of 3 system trials does not exist in the index (showing 1)"
    assert "p-test_1/p-test_1.csv:3 [P1:D9] ProbeFileID+DonorFileID='P1:D9'" in res.text("IDX-03")


def test_index_shared_while_unchanged(tmp_path):
    """The EXPIDs of a package read one index: it is parsed once per process while the file is unchanged, and
    read again when it changes (what IDX and the mask sizes derive from it follows the new file)."""
    import os

    from pytest_omfc.editions import Edition, Task
    from pytest_omfc.rules.mask import _index_dims, mask_facts
    from pytest_omfc.submission import Settings, Submission

    index = tmp_path / "OpenMFC20-IMDL-index.csv"
    header = "|".join(IDX_HEADER) + "\n"
    index.write_text(header + "IMDL|0042|probe/0042.jpg|640|480\n")
    subs = []
    for name in ("p-x_1", "p-x_2", "p-x_3"):
        sub = tmp_path / name
        (sub / "mask").mkdir(parents=True)
        (sub / f"{name}.csv").write_text(
            "|".join(OUT_HEADER) + "\n0042|0.5|mask/a.png|Processed|\n"  # the PNG need not exist for the sizes
        )
        subs.append(sub)

    def submission(sub):
        return Submission(
            Settings(
                submission=sub, csv=sub / f"{sub.name}.csv", index=index, edition=Edition.OpenMFC2020, task=Task.IMG
            )
        )

    first, second = submission(subs[0]), submission(subs[1])
    assert first.index_parse is second.index_parse
    assert first.index_key_set is second.index_key_set == frozenset({"0042"})
    assert [v.tolist() for v in _index_dims(first, mask_facts(first), "probe")] == [[640.0], [480.0]]

    index.write_text(header + "IMDL|0042|probe/0042.jpg|320|240\nIMDL|0043|probe/0043.jpg|1|1\n")
    os.utime(index, ns=(1, 1))  # a new version whatever the clock's resolution
    third = submission(subs[2])
    assert third.index_parse is not first.index_parse
    assert third.index_key_set == frozenset({"0042", "0043"})
    assert [v.tolist() for v in _index_dims(third, mask_facts(third), "probe")] == [[320.0], [240.0]]
    # a submission that read the old version keeps it: its findings and sizes stay consistent
    assert first.index_key_set == frozenset({"0042"})
