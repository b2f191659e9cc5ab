"""SCORE rules: ConfidenceScore (docs/rules/score.md, D-03, D-04, D-06)."""

from __future__ import annotations

import pytest

IMG_IDX = ["TaskID", "ProbeFileID", "ProbeFileName", "ProbeWidth", "ProbeHeight"]
MFC_IMG = ["ProbeFileID", "ConfidenceScore", "OutputProbeMaskFileName", "ProbeStatus", "ProbeOptOutPixelValue"]
NC_IMG = ["ProbeFileID", "ConfidenceScore", "OutputProbeMaskFileName", "IsOptOut"]
SPL_IDX = IMG_IDX + ["DonorFileID", "DonorFileName", "DonorWidth", "DonorHeight"]
NC_SPL = [
    "ProbeFileID",
    "DonorFileID",
    "ConfidenceScore",
    "OutputProbeMaskFileName",
    "OutputDonorMaskFileName",
    "IsOptOut",
]
PROV_IDX = ["TaskID", "ProvenanceProbeFileID", "ProvenanceProbeFileName"]
M19_PROV = ["ProvenanceProbeFileID", "ProvenanceOutputFileName", "ProvenanceProbeStatus"]
EV_IDX = IMG_IDX + ["EventName"]
EV_OUT = ["ProbeFileID", "EventName", "ConfidenceScore", "ProbeStatus"]

#: edition, task id -> (index header, output header, index row, output row); `{id}` and `{s}` are filled in.
LAYOUTS = {
    ("OpenMFC2020", "IMDL"): (
        IMG_IDX,
        MFC_IMG,
        ["IMDL", "{id}", "probe/{id}.jpg", 64, 48],
        ["{id}", "{s}", "", "{st}", ""],
    ),
    ("MFC2019", "manipulation-image"): (
        IMG_IDX,
        MFC_IMG,
        ["manipulation-image", "{id}", "probe/{id}.jpg", 64, 48],
        ["{id}", "{s}", "", "{st}", ""],
    ),
    ("NC2017", "manipulation"): (
        IMG_IDX,
        NC_IMG,
        ["manipulation", "{id}", "probe/{id}.jpg", 64, 48],
        ["{id}", "{s}", "", "{st}"],
    ),
    ("NC2017", "splice"): (
        SPL_IDX,
        NC_SPL,
        ["splice", "{id}", "probe/{id}.jpg", 64, 48, "D{id}", "world/D{id}.jpg", 32, 24],
        ["{id}", "D{id}", "{s}", "", "", "{st}"],
    ),
    ("MFC2019", "provenancefiltering"): (
        PROV_IDX,
        M19_PROV + ["ConfidenceScore"],
        ["provenancefiltering", "{id}", "probe/{id}.jpg"],
        ["{id}", "", "{st}", "{s}"],
    ),
    ("MFC2019", "eventverification"): (
        EV_IDX,
        EV_OUT,
        ["eventverification", "P1", "world/P1.jpg", 64, 48, "{id}"],
        ["P1", "{id}", "{s}", "{st}"],
    ),
}
DEFAULT_STATUS = {"NC2017": "N", "MFC2019": "Processed", "OpenMFC2020": "Processed"}


def _fill(template, i, score, status):
    return [v.format(id=f"T{i}", s=score, st=status) if isinstance(v, str) else v for v in template]


def make(omfc, edition, task, scores, statuses=None):
    """One trial per score; statuses default to the edition's 'processed' value."""
    idx_h, out_h, idx_t, out_t = LAYOUTS[(edition, task)]
    statuses = statuses or [DEFAULT_STATUS[edition]] * len(scores)
    if edition == "MFC2019" and task == "provenancefiltering":
        statuses = [s if s != "Processed" else "NonProcessed" for s in statuses]  # no JSON needed
    return omfc.case(
        edition,
        task,
        header=out_h,
        index_header=idx_h,
        rows=[_fill(out_t, i, s, st) for i, (s, st) in enumerate(zip(scores, statuses, strict=False))],
        index_rows=[_fill(idx_t, i, "", "") for i in range(len(scores))],
    )


# --------------------------------------------------------------------------- SCORE-01


BAD_SCORES = ["0.5", "nan", "inf", "high", "", "1e400", "-inf", "1_0", "\u0661"]


@pytest.mark.parametrize(
    "edition,task", [("OpenMFC2020", "IMDL"), ("NC2017", "splice"), ("MFC2019", "provenancefiltering")]
)
def test_score01_rejects_nan_inf_text_empty_overflow(omfc, edition, task):
    """D-03: a finite real in every edition (MediScore's SSD lets nan and inf pass); D-06: numeric when present."""
    res = make(omfc, edition, task, BAD_SCORES).run()
    assert res.outcome("SCORE-01") == "failed"
    assert res.first_line("SCORE-01") == "SCORE-01: 8 of 9 scores are not finite real numbers (showing 8)"
    text = res.text("SCORE-01")
    for got in (
        "(got 'nan', which is not a number)",
        "(got 'inf', an infinite value)",
        "(got 'high')",
        "(got an empty field)",
        "(got '1e400', which overflows to infinity)",
        "(got '-inf', an infinite value)",
        "(got '1_0')",  # Python's float() reads 10, pandas and MediScore not a number (arrays.parse_floats)
        "(got '\u0661')",  # an Arabic-Indic one: a digit to float(), not to pandas
    ):
        assert got in text
    assert "ConfidenceScore must be a finite real number" in text
    key = "T1:DT1" if task == "splice" else "T1"  # composite trial key of IDX-01
    assert f"p-test_1/p-test_1.csv:3 [{key}] ConfidenceScore='nan': " in text  # file, line, key, column, value


def test_score01_and_score03_pass_on_valid_m19(omfc):
    res = make(omfc, "MFC2019", "manipulation-image", ["0", "0.25", "1", "1e-3"]).run()
    for rid in ("SCORE-01", "SCORE-03", "SCORE-04", "SCORE-07"):
        assert res.outcome(rid) == "passed", res.text(rid)
        assert res.warning(rid) is None


def test_score01_optional_in_m19_provenance(omfc):
    """D-06: MFC2019 provenance has no ConfidenceScore; the score rules have nothing to check."""
    case = omfc.case(
        "MFC2019",
        "provenancefiltering",
        header=M19_PROV,
        rows=[["T0", "", "NonProcessed"]],
        index_header=PROV_IDX,
        index_rows=[["provenancefiltering", "T0", "probe/T0.jpg"]],
    )
    res = case.run()
    assert res.outcome("SCORE-01") == "skipped"
    assert res.text("SCORE-01") == (
        "SCORE-01 skipped: ConfidenceScore is optional in MFC2019 provenance output and absent (D-06)"
    )
    assert res.outcome("SCORE-04") == "skipped"


# --------------------------------------------------------------------------- SCORE-02 / SCORE-06 (NC2017)


def test_score02_warns_on_constant_scores(omfc):
    res = make(omfc, "NC2017", "manipulation", ["0.5", "0.5", "0.5", "0.1"], ["N", "N", "N", "Y"]).run()
    assert res.outcome("SCORE-02") == "passed"
    warning = res.warning("SCORE-02")
    assert warning is not None
    assert warning.splitlines()[0] == "SCORE-02: all 3 processed trials have the same score 0.5 (showing 1)"
    assert "should vary across processed trials" in warning


def test_score02_and_score06_pass_on_any_reals(omfc):
    """SCORE-02: any real number is fine in NC2017 (no [0, 1] range: SCORE-03 is not collected)."""
    res = make(
        omfc, "NC2017", "manipulation", ["6749", "-3.5", "398077", "-10", "-10"], ["N", "N", "N", "Y", "Y"]
    ).run()
    for rid in ("SCORE-01", "SCORE-02", "SCORE-06"):
        assert res.outcome(rid) == "passed", res.text(rid)
        assert res.warning(rid) is None
    assert "SCORE-03" not in res.reports


@pytest.mark.parametrize("task", ["manipulation", "splice"])
def test_score06_fails_on_varied_or_high_opt_out_scores(omfc, task):
    """NC17 §2.1.1.2: the opted-out score "must be a constant value less than the values of all the
    processed trials": an error, although most NC2017 rules say "should"."""
    res = make(omfc, "NC2017", task, ["0.2", "0.9", "0.1", "0.5"], ["N", "N", "Y", "Y"]).run()
    assert res.outcome("SCORE-06") == "failed"
    text = res.text("SCORE-06")
    assert text.splitlines()[0] == (
        "SCORE-06: opted-out trials have 2 different scores; 1 of 2 opted-out trials "
        "score at least the lowest processed score 0.2 (showing 2)"
    )
    assert "(got 2 different scores: 0.1, 0.5)" in text
    assert ":5 [T3" in text
    assert (
        "ConfidenceScore='0.5': an opted-out trial's score must be lower than every processed trial's "
        "(got 0.5; the lowest processed score is 0.2)" in text
    )


# --------------------------------------------------------------------------- SCORE-03


def test_score03_rejects_out_of_range_in_openmfc(omfc):
    res = make(omfc, "OpenMFC2020", "IMDL", ["1.5", "-0.1", "0.7", "6749"]).run()
    assert res.outcome("SCORE-01") == "passed"
    assert res.first_line("SCORE-03") == "SCORE-03: 3 of 4 scores are outside [0, 1] (showing 3)"
    assert "ConfidenceScore must be in [0, 1] (got 6749)" in res.text("SCORE-03")


def test_score03_skipped_when_score01_fails(omfc):
    res = make(omfc, "MFC2019", "manipulation-image", ["high", "2"]).run()
    assert res.outcome("SCORE-03") == "skipped"
    assert res.text("SCORE-03").startswith("SCORE-03 skipped: SCORE-01 failed: 1 of 2 scores are not finite")


# --------------------------------------------------------------------------- SCORE-04 / SCORE-05 / SCORE-07


@pytest.mark.parametrize(
    "task,statuses",
    [
        ("manipulation-image", ["Processed", "NonProcessed", "OptOutDetection", "OptOutAll", "OptOutLocalization"]),
        ("eventverification", ["Processed", "NonProcessed", "OptOut", "OptOut", "Processed"]),
    ],
)
def test_score04_nonzero_score_for_opted_out_m19(omfc, task, statuses):
    """D-04: MFC19 §2.2 "must be 0"; MediScore's own valid_ev breaks it."""
    res = make(omfc, "MFC2019", task, ["0.9", "0.2", "0.4", "0", "0.3"], statuses).run()
    assert res.outcome("SCORE-04") == "failed"
    assert (
        res.first_line("SCORE-04")
        == "SCORE-04: 2 of 3 non-processed or opted-out trials have a non-zero score (showing 2)"
    )
    assert f"ConfidenceScore must be 0 for ProbeStatus={statuses[2]} (got 0.4)" in res.text("SCORE-04")


def test_score04_passes_with_zero_scores(omfc):
    res = make(omfc, "MFC2019", "eventverification", ["0.9", "0", "0.0"], ["Processed", "NonProcessed", "OptOut"]).run()
    assert res.outcome("SCORE-04") == "passed", res.text("SCORE-04")


def test_score05_nonprocessed_nonzero_in_openmfc(omfc):
    res = make(omfc, "OpenMFC2020", "IMDL", ["0.9", "0.3", "0"], ["Processed", "NonProcessed", "NonProcessed"]).run()
    assert res.first_line("SCORE-05") == "SCORE-05: 1 of 2 NonProcessed trials have a non-zero score (showing 1)"
    assert "ConfidenceScore must be 0 for ProbeStatus=NonProcessed (got 0.3)" in res.text("SCORE-05")
    assert "SCORE-04" not in res.reports  # MFC2019 only


def test_score05_and_score07_pass(omfc):
    res = make(omfc, "OpenMFC2020", "IMDL", ["0.9", "0", "0"], ["Processed", "NonProcessed", "FailedValidation"]).run()
    for rid in ("SCORE-05", "SCORE-07"):
        assert res.outcome(rid) == "passed", res.text(rid)
        assert res.warning(rid) is None


def test_score07_warns_on_failed_validation_scores(omfc):
    res = make(
        omfc,
        "MFC2019",
        "manipulation-image",
        ["0.9", "0.6", "0"],
        ["Processed", "FailedValidation", "FailedValidation"],
    ).run()
    assert res.outcome("SCORE-07") == "passed"
    warning = res.warning("SCORE-07")
    assert (
        warning.splitlines()[0]
        == "SCORE-07: 1 FailedValidation trial with a non-zero score will be scored 0 by NIST (showing 1)"
    )
    assert (
        "[T1] ConfidenceScore='0.6': NIST scores a FailedValidation trial as 0, so this score is replaced (got 0.6)"
        in warning
    )
