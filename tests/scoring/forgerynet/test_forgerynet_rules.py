"""FNET-01..12 (issue 12): each rule fails on a broken submission (first line asserted) and passes on a valid one."""

from __future__ import annotations

import json

import numpy as np
import pytest
from helpers.forgerynet import Fnet, FnetRun, png_bytes
from helpers.forgerynet_cases import (
    BIN_REF,
    BIN_SUB,
    GT,
    K3_REF,
    K3_SUB,
    SPL_FILES,
    SPL_REF,
    SPL_REF_FILES,
    SPL_SUB,
    TL_REF,
    TL_SUB,
)

pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")


def _bin(fnet: Fnet, sub: object = BIN_SUB, ref: object = BIN_REF, **kw: object) -> FnetRun:
    return fnet.case("image-classification", reference=ref, submission=sub).run(*kw.get("args", ()))  # type: ignore[arg-type]


def _k3(fnet: Fnet, sub: object = K3_SUB, ref: object = K3_REF) -> FnetRun:
    return fnet.case("image-classification", reference=ref, submission=sub).run("--omfc-classes", "3")


def _spl(fnet: Fnet, sub: object = SPL_SUB, files: dict | None = None, ref: object = SPL_REF) -> FnetRun:
    return fnet.case(
        "spatial", reference=ref, submission=sub, files={**SPL_FILES, **(files or {})}, ref_files=SPL_REF_FILES
    ).run()


def _tl(fnet: Fnet, sub: object = TL_SUB, ref: object = TL_REF) -> FnetRun:
    return fnet.case("temporal", reference=ref, submission=sub).run()


def _first(run: FnetRun, rule: str) -> str:
    return run.outcome.first_line(rule)


# ------------------------------------------------------------------ valid submissions


@pytest.mark.parametrize("make", [_bin, _k3, _spl, _tl], ids=["2-way", "3-way", "spatial", "temporal"])
def test_valid_submissions_pass_every_rule(fnet: Fnet, make) -> None:
    run = make(fnet)
    res = run.outcome
    assert res.failed() == [], {r: res.first_line(r) for r in res.failed()}
    assert all(res.warning(r) is None for r in res.reports), {r: res.warning(r) for r in res.reports}
    rules = {r for r in res.reports if r.startswith("FNET-")}
    expected = {
        "2-way": {"FNET-01", "FNET-02", "FNET-03", "FNET-04", "FNET-05", "FNET-06"},
        "3-way": {"FNET-01", "FNET-02", "FNET-03", "FNET-04", "FNET-05", "FNET-06"},
        "spatial": {"FNET-01", "FNET-02", "FNET-03", "FNET-04", "FNET-05", "FNET-07", "FNET-08"},
        "temporal": {"FNET-01", "FNET-02", "FNET-04", "FNET-09", "FNET-10", "FNET-11", "FNET-12"},
    }
    assert rules in expected.values()
    assert res.ret == 0


# ------------------------------------------------------------------ FNET-01


def test_fnet01_fails_on_a_comma_separated_file(fnet: Fnet) -> None:
    run = _bin(fnet, sub="ID,Score\n0042,0.2\n")
    assert _first(run, "FNET-01").startswith("FNET-01: p-test_1/p-test_1.csv is not '|'-separated")
    assert run.outcome.outcome("FNET-04") == "skipped"
    assert run.outcome.text("FNET-04").startswith("FNET-04 skipped: FNET-01 failed: p-test_1/p-test_1.csv")


def test_fnet01_fails_on_a_missing_file(fnet: Fnet) -> None:
    run = _bin(fnet, sub=None)
    assert _first(run, "FNET-01") == "FNET-01: p-test_1/p-test_1.csv is missing (showing 1)"


def test_fnet01_fails_on_malformed_json(fnet: Fnet) -> None:
    run = _tl(fnet, sub='{"results": {"v1": [}')
    assert _first(run, "FNET-01").startswith(
        "FNET-01: p-test_1/p-test_1.json must be valid JSON (got Expecting value at line 1"
    )
    assert run.outcome.outcome("score::forgerynet-temporal") == "skipped"


def test_fnet01_fails_on_a_duplicated_video_key(fnet: Fnet) -> None:
    run = _tl(fnet, sub='{"results": {"v1": [], "v1": []}}')
    assert _first(run, "FNET-01") == (
        "FNET-01: p-test_1/p-test_1.json must be valid JSON with unique keys in each object (got the key 'v1' twice) "
        "(showing 1)"
    )


def test_fnet01_fails_on_results_that_are_not_lists(fnet: Fnet) -> None:
    run = _tl(fnet, sub={"results": {**TL_SUB["results"], "v3": {"segment": [1, 2]}}})
    assert _first(run, "FNET-01") == "FNET-01: 1 entry of the results are not prediction lists/objects (showing 1)"
    assert 'results["v3"]' in run.outcome.text("FNET-01")
    assert "must be a list of predictions (got a JSON dict)" in run.outcome.text("FNET-01")


def test_fnet01_fails_without_results(fnet: Fnet) -> None:
    run = _tl(fnet, sub={"version": "1.3"})
    assert _first(run, "FNET-01").startswith(
        'FNET-01: p-test_1/p-test_1.json must be an object with a "results" object (got no results key)'
    )


# ------------------------------------------------------------------ FNET-02


def test_fnet02_fails_on_a_repeated_reference_id_and_a_bad_label(fnet: Fnet) -> None:
    ref = (["ID", "Label"], [["0042", 0], ["0042", 1], ["b", 2], ["c", 1], ["d", 0]])
    run = _bin(fnet, ref=ref)
    assert _first(run, "FNET-02") == "FNET-02: 2 problems in the reference dataset/ref.csv (showing 2)"
    text = run.outcome.text("FNET-02")
    assert (
        "dataset/ref.csv:3 [0042] ID='0042': each reference ID must appear once (got it again; first on line 2)" in text
    )
    assert "dataset/ref.csv:4 [b] Label='2': Label must be an integer from 0 to 1 (got '2')" in text


def test_fnet02_fails_on_a_json_reference_without_database(fnet: Fnet) -> None:
    run = _tl(fnet, ref={"taxonomy": []})
    assert _first(run, "FNET-02").startswith(
        'FNET-02: the reference dataset/ref.json must be an object with a "database" object'
    )
    assert run.outcome.text("FNET-10").startswith("FNET-10 skipped: FNET-02 failed:")


def test_fnet02_fails_on_a_reversed_ground_truth_segment(fnet: Fnet) -> None:
    ref = json.loads(json.dumps(TL_REF))
    ref["database"]["v2"]["annotations"][1]["segment"] = [50, 40]
    run = _tl(fnet, ref=ref)
    assert _first(run, "FNET-02") == "FNET-02: 1 problem in the reference dataset/ref.json (showing 1)"
    assert 'database["v2"].annotations[1].segment' in run.outcome.text("FNET-02")


# ------------------------------------------------------------------ FNET-03


def test_fnet03_fails_when_the_probability_columns_do_not_match_classes(fnet: Fnet) -> None:
    run = fnet.case("image-classification", reference=K3_REF, submission=K3_SUB).run("--omfc-classes", "16")
    first = _first(run, "FNET-03")
    assert first.startswith(
        "FNET-03: the header must be ID|P0|P1|P2|P4|P5|P6|P7|P8|P9|P10|P11|P12|P13|P14|P15".replace("P2|", "P2|P3|")
    )
    assert "3 probability columns found, 16 expected" in run.outcome.text("FNET-03")
    assert run.outcome.outcome("score::forgerynet-classification") == "skipped"


def test_fnet03_fails_on_a_spatial_file_without_masks(fnet: Fnet) -> None:
    run = _spl(fnet, sub=(["ID", "Score"], [["a", 0.9], ["r", 0.1]]))
    assert _first(run, "FNET-03") == "FNET-03: the header must be ID|Score|MaskFileName (got ID|Score) (showing 1)"


# ------------------------------------------------------------------ FNET-04


def test_fnet04_fails_on_missing_unknown_and_repeated_ids(fnet: Fnet) -> None:
    sub = (["ID", "Score"], [["42", 0.2], ["b", 0.9], ["b", 0.8], ["c", 0.4]])
    run = _bin(fnet, sub=sub)
    assert _first(run, "FNET-04") == (
        "FNET-04: 2 of 4 reference IDs are missing; 1 unknown ID: every unknown ID is a reference ID without its "
        "leading zeros (e.g. '42' for '0042'): leading zeros were dropped (a spreadsheet or a number parse reads "
        "such IDs as numbers); key the results as the reference does; 1 ID repeated (showing 4)"
    )
    text = run.outcome.text("FNET-04")
    assert (
        "p-test_1/p-test_1.csv:2 [42] ID='42': ID must be one of the 4 reference IDs of dataset/ref.csv (got an "
        "unknown ID)" in text
    )
    assert "p-test_1/p-test_1.csv:4 [b] ID='b': ID must appear once (got it again; first on line 3)" in text
    assert (
        "dataset/ref.csv:2 [0042] ID='0042': the reference ID must have a row in p-test_1/p-test_1.csv (got none)"
        in text
    )


def test_fnet04_fails_on_an_unknown_video(fnet: Fnet) -> None:
    run = _tl(fnet, sub={"results": {**TL_SUB["results"], "v9": []}})
    assert _first(run, "FNET-04") == "FNET-04: 1 unknown video in the results (showing 1)"
    assert 'results["v9"]' in run.outcome.text("FNET-04")


def test_fnet04_warns_on_an_omitted_video(fnet: Fnet) -> None:
    run = _tl(fnet, sub={"results": {"v1": TL_SUB["results"]["v1"]}})
    assert run.outcome.outcome("FNET-04") == "passed"
    warning = run.outcome.warning("FNET-04") or ""
    assert warning.startswith("FNET-04: 2 of 3 reference videos are not in the results (they count as misses)")


# ------------------------------------------------------------------ FNET-05 / FNET-06


def test_fnet05_fails_on_probabilities_outside_0_1(fnet: Fnet) -> None:
    sub = (["ID", "Score"], [["0042", "NaN"], ["b", 1.7], ["c", "high"], ["d", 0.6]])
    run = _bin(fnet, sub=sub)
    assert (
        _first(run, "FNET-05")
        == "FNET-05: 3 of 4 rows have a probability that is not a finite number in [0, 1] (showing 3)"
    )
    assert (
        "p-test_1/p-test_1.csv:3 [b] Score='1.7': Score must be a probability, a finite number in [0, 1] (got '1.7')"
        in run.outcome.text("FNET-05")
    )


def test_fnet06_warns_when_k_way_probabilities_do_not_sum_to_1(fnet: Fnet) -> None:
    sub = (K3_SUB[0], [*K3_SUB[1][:3], ["d", 0.6, 0.1, 0.2]])
    run = _k3(fnet, sub=sub)
    assert run.outcome.outcome("FNET-06") == "passed"
    warning = run.outcome.warning("FNET-06") or ""
    assert warning.startswith("FNET-06: 1 of 4 rows have probabilities that do not sum to 1")
    assert "p-test_1/p-test_1.csv:5 [d] P0+...+P2='0.9': P0+...+P2 should be 1 within 1e-06 (got 0.9)" in warning


def test_fnet06_accepts_a_rounding_error_below_1e_6(fnet: Fnet) -> None:
    sub = (K3_SUB[0], [*K3_SUB[1][:3], ["d", 0.65, 0.1, 0.2500005]])
    run = _k3(fnet, sub=sub)
    assert run.outcome.outcome("FNET-06") == "passed" and run.outcome.warning("FNET-06") is None


def test_fnet06_boundary_is_decimal_exactly_1e_6(fnet: Fnet) -> None:
    """0.650001 + 0.1 + 0.25 is 1.000001 in decimal, "within 1e-6", though float64 makes it 1.0000010000000001;
    0.6500011 (1.0000011) is past it."""
    on = _k3(fnet, sub=(K3_SUB[0], [*K3_SUB[1][:3], ["d", "0.650001", "0.1", "0.25"]]))
    assert on.outcome.warning("FNET-06") is None
    past = _k3(fnet, sub=(K3_SUB[0], [*K3_SUB[1][:3], ["d", "0.6500011", "0.1", "0.25"]]))
    assert "should be 1 within 1e-06 (got 1.0000011)" in (past.outcome.warning("FNET-06") or "")


def test_fnet06_is_skipped_for_2_way(fnet: Fnet) -> None:
    run = _bin(fnet)
    assert (
        run.outcome.text("FNET-06")
        == "FNET-06 skipped: 2-way classification has one Score column: there is no sum to check"
    )


# ------------------------------------------------------------------ FNET-07 / FNET-08


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("mask/a.png", None, "MaskFileName must name an existing file (it does not exist)"),
        ("mask/a.png", b"\xff\xd8\xff\xe0 JFIF not a png", "MaskFileName must be a PNG file (got JPEG data)"),
        (
            "mask/a.png",
            png_bytes(np.zeros((4, 6, 3), np.uint8), "RGB"),
            "MaskFileName must be a grey (mode L, 8-bit) or 1-bit PNG (got RGB colour, 3 channels, 8-bit)",
        ),
        ("../escape.png", None, "MaskFileName must stay inside the submission directory (got '..' in '../escape.png')"),
    ],
)
def test_fnet07_fails_on_unusable_masks(fnet: Fnet, name: str, content: bytes | None, message: str) -> None:
    files = {"mask/a.png": content} if content is not None else {}
    if content is None and name == "mask/a.png":
        files = {}
    sub = (SPL_SUB[0], [["a", 0.9, name], SPL_SUB[1][1]])
    case = fnet.case(
        "spatial",
        reference=SPL_REF,
        submission=sub,
        files={"mask/r.png": SPL_FILES["mask/r.png"], **files},
        ref_files=SPL_REF_FILES,
    )
    if name.startswith(".."):
        fnet.write("escape.png", png_bytes(GT))
    run = case.run()
    assert _first(run, "FNET-07") == "FNET-07: 1 of 2 masks cannot be used (showing 1)"
    text = run.outcome.text("FNET-07")
    assert f"p-test_1/p-test_1.csv:2 [a] MaskFileName='{name}': " in text
    assert message.split(" (got")[0] in text, text
    # the image is left out of scoring with a note; the real one is still scored, but a score of real images
    # only never passes (it passed before, having scored nothing that matters)
    assert run.outcome.outcome("score::forgerynet-spatial") == "failed"
    assert "0 of 1 fake images scored: only real images were" in run.outcome.text("score::forgerynet-spatial")
    assert run.entry()["counts"]["scored"] == 1


def test_fnet08_fails_on_a_mask_of_the_wrong_size(fnet: Fnet) -> None:
    run = _spl(fnet, files={"mask/a.png": png_bytes(np.zeros((6, 4), np.uint8))})
    assert _first(run, "FNET-08") == "FNET-08: 1 of 2 masks have the wrong size (showing 1)"
    assert "MaskFileName must be 6x4 like the reference map (got 4x6)" in run.outcome.text("FNET-08")


# ------------------------------------------------------------------ FNET-09..12


def _with(video: str, *entries: object) -> dict:
    return {"results": {**TL_SUB["results"], video: list(entries)}}


def test_fnet09_fails_on_bad_segments(fnet: Fnet) -> None:
    sub = _with(
        "v2",
        {"segment": [30, 20], "score": 0.8},
        {"segment": [40], "score": 0.7},
        {"segment": ["a", 2], "score": 0.1},
        {"score": 0.2},
    )
    run = _tl(fnet, sub=sub)
    assert _first(run, "FNET-09") == "FNET-09: 4 of 6 predictions have a bad segment (showing 4)"
    text = run.outcome.text("FNET-09")
    assert (
        "p-test_1/p-test_1.json [v2] results[\"v2\"][0].segment='[30, 20]': "
        "segment must have start < end (got [30, 20])" in text
    )
    assert "segment must be [start, end], two numbers (got a list of 1)" in text
    assert """results["v2"][3].segment='null': segment is missing""" in text


def test_fnet10_fails_on_a_segment_past_the_duration(fnet: Fnet) -> None:
    run = _tl(fnet, sub=_with("v1", {"segment": [15, 25], "score": 0.9}))
    assert _first(run, "FNET-10") == "FNET-10: 1 of 4 predictions leave the video's duration (showing 1)"
    assert "segment must lie inside [0, 20], the video's duration (got [15, 25])" in run.outcome.text("FNET-10")


def test_fnet10_passes_without_a_duration(fnet: Fnet) -> None:
    run = _tl(fnet, sub=_with("v2", {"segment": [20, 1000], "score": 0.8}))
    assert run.outcome.outcome("FNET-10") == "passed"


def test_fnet11_fails_on_scores_that_are_not_finite(fnet: Fnet) -> None:
    sub = json.dumps(_with("v2", {"segment": [20, 30], "score": 0.8}, {"segment": [40, 45], "score": "high"})).replace(
        "0.8", "NaN", 1
    )
    run = _tl(fnet, sub=sub)
    assert _first(run, "FNET-11") == "FNET-11: 2 of 4 predictions have a score that is not a finite number (showing 2)"
    text = run.outcome.text("FNET-11")
    assert "score must be a finite number (got nan)" in text
    assert """results["v2"][1].score='"high"': score must be a number (got a JSON str)""" in text


def test_fnet12_warns_on_more_than_10_predictions(fnet: Fnet) -> None:
    many = [{"segment": [i, i + 1], "score": 0.5} for i in range(11)]
    run = _tl(fnet, sub=_with("v3", *many))
    assert run.outcome.outcome("FNET-12") == "passed"
    warning = run.outcome.warning("FNET-12") or ""
    assert warning.startswith("FNET-12: 1 video have more than 10 predictions; only the top 10 of each are scored")
    assert "should have at most 10 predictions (got 11): only the 10 highest-scored are scored" in warning


def test_fnet12_accepts_exactly_10(fnet: Fnet) -> None:
    run = _tl(fnet, sub=_with("v3", *[{"segment": [i, i + 1], "score": 0.5} for i in range(10)]))
    assert run.outcome.outcome("FNET-12") == "passed" and run.outcome.warning("FNET-12") is None


@pytest.mark.parametrize("label", ["1.0", "1e0", "\u0661", " +1x"])
def test_fnet02_reads_a_reference_label_as_the_predictions_and_lists_do(fnet: Fnet, label: str) -> None:
    """One integer for every ForgeryNet reader (ASCII digits): the reference took '1.0', '1e0' and an
    Arabic-Indic one as 1 where the predictions and the lists refuse them."""
    ref = (["ID", "Label"], [["a", 0], ["b", label], ["c", 1], ["d", 0]])
    run = _bin(fnet, ref=ref)
    assert run.outcome.outcome("FNET-02") == "failed"
    assert "Label must be an integer from 0 to 1" in run.outcome.text("FNET-02")
