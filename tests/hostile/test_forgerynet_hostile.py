"""Hostile ForgeryNet input (issue 12): a failing rule with a clear first line, never a traceback, hang or blow-up."""

from __future__ import annotations

import json
import os
import sys

import numpy as np
import pytest
from helpers.forgerynet import Fnet, png_bytes
from helpers.forgerynet_cases import BIN_REF, SPL_FILES, SPL_REF, SPL_REF_FILES, SPL_SUB, TL_REF, TL_SUB
from helpers.runs import run_capped

BIG_ID = "x" * 1_000_000


def _no_crash(text: str) -> None:
    assert "Traceback" not in text and "INTERNALERROR" not in text and "could not run" not in text, text[:2000]


def test_a_1mb_id_is_an_unknown_id_shown_shortened(fnet: Fnet) -> None:
    sub = (["ID", "Score"], [["0042", 0.2], ["b", 0.9], ["c", 0.4], ["d", 0.6], [BIG_ID, 0.5]])
    run = fnet.case("image-classification", reference=BIN_REF, submission=sub).run()
    assert run.outcome.first_line("FNET-04") == "FNET-04: 1 unknown ID (showing 1)"
    text = run.outcome.text("FNET-04")
    assert len(text) < 2000 and "xxx" in text
    assert run.entry()["counts"]["scored"] == 4


def test_a_1mb_video_id_and_nan_scores_in_json(fnet: Fnet) -> None:
    results = {**TL_SUB["results"], BIG_ID: [{"segment": [0, 1], "score": 0.5}]}
    text = (
        json.dumps({"results": results})
        .replace('"score": 0.9,', '"score": NaN,')
        .replace('"score": 0.8}', '"score": Infinity}')
    )
    run = fnet.case("temporal", reference=TL_REF, submission=text).run()
    assert run.outcome.first_line("FNET-04") == "FNET-04: 1 unknown video in the results (showing 1)"
    assert (
        run.outcome.first_line("FNET-11")
        == "FNET-11: 2 of 5 predictions have a score that is not a finite number (showing 2)"
    )
    assert len(run.outcome.text("FNET-04")) < 2000
    assert run.outcome.outcome("score::forgerynet-temporal") == "passed"


@pytest.mark.parametrize(
    ("content", "first"),
    [
        ("[" * 100_000, "FNET-01: p-test_1/p-test_1.json must be valid JSON (got nesting too deep to parse)"),
        (b"\xff\xfe{\x00}\x00", "FNET-01: p-test_1/p-test_1.json must be UTF-8 JSON text (got byte 0xff at offset 0)"),
        ("[1, 2]", 'FNET-01: p-test_1/p-test_1.json must be an object with a "results" object (got a JSON list)'),
        (
            '{"results": []}',
            'FNET-01: p-test_1/p-test_1.json must be an object with a "results" object (got results as a JSON list)',
        ),
        ("", "FNET-01: p-test_1/p-test_1.json must hold a JSON object (got an empty file)"),
    ],
)
def test_malformed_result_files_fail_fnet01(fnet: Fnet, content: str | bytes, first: str) -> None:
    run = fnet.case("temporal", reference=TL_REF, submission=content).run()
    assert run.outcome.first_line("FNET-01").startswith(first), run.outcome.first_line("FNET-01")
    assert run.outcome.outcome("score::forgerynet-temporal") == "skipped"
    for rule in ("FNET-04", "FNET-09", "FNET-11", "FNET-12"):
        assert run.outcome.text(rule).startswith(f"{rule} skipped: FNET-01 failed:")


def test_a_result_file_larger_than_the_reference_justifies_is_not_read(fnet: Fnet) -> None:
    # 3 reference videos justify 3 * 64 KiB + 1 MiB; a 2 MB file is refused before a byte is parsed
    padding = " " * 2_000_000
    run = fnet.case("temporal", reference=TL_REF, submission=json.dumps(TL_SUB) + padding).run()
    assert run.outcome.first_line("FNET-01").startswith(
        "FNET-01: p-test_1/p-test_1.json must be a JSON file of at most 1.2 MB (got 1.9 MB)"
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_as_result_file_never_blocks(fnet: Fnet) -> None:
    case = fnet.case("temporal", reference=TL_REF, submission=None)
    os.mkfifo(case.submission / "p-test_1.json")
    run = case.run()
    assert run.outcome.first_line("FNET-01").startswith(
        "FNET-01: p-test_1/p-test_1.json must name a regular JSON file (got a FIFO)"
    )


def test_a_mask_symlink_leaving_the_submission_is_never_opened(fnet: Fnet) -> None:
    case = fnet.case(
        "spatial",
        reference=SPL_REF,
        submission=SPL_SUB,
        files={"mask/r.png": SPL_FILES["mask/r.png"]},
        ref_files=SPL_REF_FILES,
    )
    outside = fnet.write("outside.png", png_bytes(np.zeros((4, 6), np.uint8)))
    os.symlink(outside, case.submission / "mask" / "a.png")
    run = case.run()
    assert run.outcome.first_line("FNET-07") == "FNET-07: 1 of 2 masks cannot be used (showing 1)"
    assert "MaskFileName must stay inside the submission directory (got a symlink to" in run.outcome.text("FNET-07")


def test_a_corrupt_png_body_fails_scoring_not_the_run(fnet: Fnet) -> None:
    good = png_bytes(np.full((4, 6), 7, np.uint8))
    idat = good.index(b"IDAT")
    length = int.from_bytes(good[idat - 4 : idat], "big")
    bad = bytearray(good)
    bad[idat + 6 : idat + 4 + length] = b"\x00" * (
        length - 2
    )  # a zlib header, then a broken deflate stream (CRC fixed below)
    import zlib

    bad[idat + 4 + length : idat + 8 + length] = (
        zlib.crc32(bytes(bad[idat : idat + 4 + length])) & 0xFFFFFFFF
    ).to_bytes(4, "big")
    run = fnet.case(
        "spatial",
        reference=SPL_REF,
        submission=SPL_SUB,
        files={**SPL_FILES, "mask/a.png": bytes(bad)},
        ref_files=SPL_REF_FILES,
    ).run()
    assert run.outcome.outcome("FNET-07") == "passed"  # the header is fine
    assert run.outcome.outcome("score::forgerynet-spatial") == "failed"
    text = run.outcome.text("score::forgerynet-spatial")
    # MASK-04's words: the map is read through the rules' inflate (pytest_omfc.png.read_image_data)
    assert text.startswith(
        "score::forgerynet-spatial: 1 mask could not be decoded: a: the mask pixel data must be a valid zlib stream"
    ), text
    assert run.entry()["counts"]["scored"] == 1  # the real image still is


def test_hostile_run_in_a_capped_subprocess_prints_no_traceback(fnet: Fnet) -> None:
    """The console entry point on a malformed JSON, a NaN and a 1 MB key: exit 1, findings, no traceback."""
    results = {BIG_ID: [{"segment": [0, 1], "score": 0.5}], "v1": [{"segment": [3, 1], "score": 0.5}]}
    text = json.dumps({"results": results}).replace("0.5}]}", "NaN}]}")
    case = fnet.case("temporal", reference=TL_REF, submission=text)
    res = run_capped(["-m", "pytest_omfc", *case.args(), "-q"], cwd=fnet.root, timeout=120, cap=2 * 1024**3)
    assert res.ret == 1, res.out[-2000:] + res.err[-2000:]
    _no_crash(res.out + res.err)
    assert "FNET-09: 1 of 2 predictions have a bad segment" in res.out
    assert "FNET-11: 1 of 2 predictions have a score that is not a finite number" in res.out
    assert len(res.out) < 50_000
    assert sys.executable


def test_a_run_writes_nothing_into_the_submission_or_the_dataset(fnet: Fnet) -> None:
    from helpers.runs import snapshot

    case = fnet.case("spatial", reference=SPL_REF, submission=SPL_SUB, files=SPL_FILES, ref_files=SPL_REF_FILES)
    before = snapshot(case.submission, case.reference.parent)
    run = case.run()
    assert run.outcome.failed() == [] and run.entry()["counts"]["scored"] == 2
    assert snapshot(case.submission, case.reference.parent) == before


def test_metrics_json_inside_the_dataset_is_a_usage_error(fnet: Fnet) -> None:
    case = fnet.case("temporal", reference=TL_REF, submission=TL_SUB)
    res = fnet.pytester.runpytest(
        *case.args(), "--omfc-metrics-json", str(case.reference.parent / "m.json"), "-p", "no:cacheprovider"
    )
    assert res.ret == 4
    assert "--omfc-metrics-json: must not point into the dataset directory" in res.stderr.str()
    assert not (case.reference.parent / "m.json").exists()


def test_an_index_is_refused_for_forgerynet(fnet: Fnet) -> None:
    case = fnet.case("temporal", reference=TL_REF, submission=TL_SUB)
    res = fnet.pytester.runpytest(*case.args(), "--omfc-index", str(case.reference), "-p", "no:cacheprovider")
    assert res.ret == 4
    assert "--omfc-index: ForgeryNet takes no index (the reference lists the IDs); drop it" in res.stderr.str()


def test_a_number_past_pythons_digit_limit_is_a_finding(fnet: Fnet) -> None:
    """A 5,000-digit score used to escape the reader as ValueError ("the check could not run")."""
    doc = '{"version": "1", "results": {"v1": [{"segment": [0, 1], "score": ' + "9" * 5000 + "}]}}"
    run = fnet.case("temporal", reference=TL_REF, submission=doc).run()
    assert run.outcome.first_line("FNET-01").startswith(
        "FNET-01: p-test_1/p-test_1.json must be valid JSON (got Exceeds the limit"
    )
