"""Mask scoring through the plugin (issue 10): ``<sub>::score::mask`` beside detection, options, outputs, bad input.

Masks are 16x16; the reference's GT is the 8x8 square at rows/columns 4..11 (64 pixels).  The "shifted"
system mask is that square moved 2 pixels down and right: with no kernels (eks = dks = ntdks = 0) its
optimum threshold 0 gives TP 36, FP 28, FN 28, TN 164, so MCC = (36*164 - 28*28) / (64*192) = 5/12;
the "perfect" mask gives MCC 1; a white (missing) mask MCC 0 (docs/scoring/masks.md#metrics-at-one-threshold,
docs/scoring/masks.md#special-cases).  Options are
checked against the engine (:func:`score_masks`) called directly on the same files with the same
option, and against the default, so that each option is shown to reach the engine.
"""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers.mask_scoring import NOKERN, REF, REF_REL, SHIFTED, MaskCase, png_bytes, props
from helpers.runs import psv
from PIL import Image

from pytest_omfc.scoring.mask.run import score_masks

GREY = np.full((16, 16), 255, dtype=np.uint8)  # a soft mask: 3 levels, so thresholds matter
GREY[4:12, 4:12] = 100
GREY[6:14, 6:14] = 0


# ---------------------------------------------------------------------------- items and numbers


def test_mask_item_runs_beside_detection_with_hand_computed_mcc(omfc: Any) -> None:
    c = MaskCase(omfc, {"0001": REF, "0002": SHIFTED, "0003": None})
    res = c.run(*NOKERN)
    assert res.outcome("detection") == "passed", res.text("detection")
    assert res.outcome("mask") == "passed", res.text("mask")
    p = props(res, "mask")
    assert p["omfc.score"] == "mask" and p["query_kind"] == "all"
    assert p["OptimumMCC"] == pytest.approx((1 + 5 / 12 + 0) / 3, abs=1e-12)
    assert (p["totalTrials"], p["ScoreableTrials"], p["count.not_scored"]) == (4, 3, 0)
    assert math.isnan(p["MaximumMCC"])  # no --omfc-sbin: MediScore prints nothing
    assert all(type(v) in (str, int, float) for _, v in res.props["mask"])


def test_metrics_json_has_a_mask_entry_with_per_probe_rows(omfc: Any) -> None:
    c = MaskCase(omfc, {"0001": REF, "0002": SHIFTED})
    doc = c.json(*NOKERN)
    det, mask = doc["results"]
    assert (det["scorer"], mask["scorer"]) == ("detection", "mask")
    assert list(mask) == [
        "scorer",
        "query",
        "query_kind",
        "notes",
        "reference_column",
        "metrics",
        "stddev",
        "per_probe",
        "scored",
    ]
    assert mask["metrics"]["OptimumMCC"] == pytest.approx((1 + 5 / 12) / 2, abs=1e-12)
    assert mask["metrics"]["MaximumMCC"] is None and mask["metrics"]["OptimumThreshold"] == 0
    assert mask["stddev"]["OptimumMCC"] == pytest.approx(np.std([1, 5 / 12], ddof=1), abs=1e-12)
    rows = {r["ProbeFileID"]: r for r in mask["per_probe"]}
    assert rows["0002"]["OptimumMCC"] == pytest.approx(5 / 12, abs=1e-12)
    assert (rows["0002"]["OptimumPixelTP"], rows["0002"]["OptimumPixelFP"], rows["0002"]["OptimumPixelFN"]) == (
        36,
        28,
        28,
    )
    assert rows["0002"]["Scored"] == "Y" and rows["0002"]["PixelN"] == 256
    assert doc["options"]["mask"] == {
        "kernel": "box",
        "eks": 0,
        "dks": 0,
        "ntdks": 0,
        "sbin": None,
        "nspx": -1,
        "pppns": False,
        "jpeg2000": "auto",
    }


def test_summary_shows_a_mask_table(omfc: Any) -> None:
    c = MaskCase(omfc, {"0001": REF, "0002": SHIFTED})
    out = c.case.pytester.runpytest(
        *c.case.args, "-p", "no:cacheprovider", "--omfc-reference", str(c.reference), *NOKERN
    )
    out.stdout.fnmatch_lines(
        [
            "omfc: scoring masks against * (kernel box, eks 0, dks 0, ntdks 0 (0 for splice), sbin none, nspx -1, "
            "jpeg2000 auto)",
            "omfc detection scores*",
            "omfc mask scores*",
            "*result*trials*scored*MCC*NMM*BWL1*GWL1*AUC*F1*IoU*",
            "*all*3*2*0.7083*",
            "omfc: masks: Optimum metrics; convention mediscore, kernel box*",
        ]
    )


def test_score_selects_one_scorer(omfc: Any) -> None:
    c = MaskCase(omfc, {"0001": REF})
    only_mask = c.run("--omfc-score", "mask", *NOKERN)
    assert "mask" in only_mask.reports and "detection" not in only_mask.reports
    only_det = c.run("--omfc-score", "detection")
    assert "detection" in only_det.reports and "mask" not in only_det.reports


def test_queries_make_one_mask_item_each(omfc: Any) -> None:
    c = MaskCase(omfc, {"0001": REF, "0002": REF, "0003": SHIFTED})
    res = c.run(*NOKERN, "--omfc-query", "Collection=='A'", "--omfc-query", "Collection=='B'")
    assert props(res, "mask[q1]")["OptimumMCC"] == 1.0
    assert props(res, "mask[q2]")["OptimumMCC"] == pytest.approx(5 / 12, abs=1e-12)
    assert props(res, "mask[q2]")["query"] == "Collection=='B'"


@pytest.mark.parametrize(
    ("args", "kw", "metric"),
    [
        (["--omfc-erode-kernel-size", "3", "--omfc-dilate-kernel-size", "0"], {"eks": 3, "dks": 0}, "OptimumMCC"),
        (["--omfc-erode-kernel-size", "0", "--omfc-dilate-kernel-size", "3"], {"eks": 0, "dks": 3}, "OptimumMCC"),
        (
            ["--omfc-kernel", "disc", "--omfc-erode-kernel-size", "5", "--omfc-dilate-kernel-size", "5"],
            {"kernel": "disc", "eks": 5, "dks": 5},
            "OptimumMCC",
        ),
        (
            ["--omfc-kernel", "diamond", "--omfc-erode-kernel-size", "5", "--omfc-dilate-kernel-size", "5"],
            {"kernel": "diamond", "eks": 5, "dks": 5},
            "OptimumMCC",
        ),
        (
            ["--omfc-kernel", "line", "--omfc-erode-kernel-size", "5", "--omfc-dilate-kernel-size", "5"],
            {"kernel": "line", "eks": 5, "dks": 5},
            "OptimumMCC",
        ),
        (
            ["--omfc-kernel", "gaussian", "--omfc-erode-kernel-size", "5", "--omfc-dilate-kernel-size", "5"],
            {"kernel": "gaussian", "eks": 5, "dks": 5},
            "OptimumMCC",
        ),
        (["--omfc-sbin", "50"], {"sbin": 50}, "ActualMCC"),
        (["--omfc-sbin", "150"], {"sbin": 150}, "MaximumMCC"),
        (["--omfc-no-score-pixel", "100"], {"nspx": 100}, "OptimumMCC"),
    ],
)
def test_each_option_reaches_the_engine(omfc: Any, args: list[str], kw: dict[str, Any], metric: str) -> None:
    c = MaskCase(omfc, {"0001": GREY, "0002": SHIFTED})
    base = {"eks": 0, "dks": 0, "ntdks": 0}
    res = c.run(*NOKERN, *args)
    assert res.outcome("mask") == "passed", res.text("mask")
    got = props(res, "mask")[metric]
    want = c.engine(**{**base, **kw}).results[0].aggregate[metric]
    assert got == pytest.approx(want, abs=1e-12)
    default = c.engine(**base).results[0].aggregate[metric]
    assert default is None or got != pytest.approx(default, abs=1e-9), "the option changed nothing"


def test_grey_mask_hand_computed_actual_threshold(omfc: Any) -> None:
    """GREY at sbin 50: black (0) pixels only, i.e. the shifted square: MCC 5/12 for that probe."""
    c = MaskCase(omfc, {"0001": GREY})
    p = props(c.run(*NOKERN, "--omfc-sbin", "50"), "mask")
    assert p["ActualMCC"] == pytest.approx(5 / 12, abs=1e-12) and p["ActualThreshold"] == 50
    # the optimum threshold 100 keeps the union of both squares (92 pixels): TP 64, FP 28, FN 0, TN 164
    assert p["OptimumMCC"] == pytest.approx(64 * 164 / math.sqrt(92 * 64 * 192 * 164), abs=1e-12)


def test_per_probe_pixel_no_score_and_optout(omfc: Any) -> None:
    c = MaskCase(omfc, {"0001": GREY, "0002": SHIFTED}, pixel={"0001": "100", "0002": "255"})
    res = c.run(*NOKERN, "--omfc-per-probe-pixel-no-score")
    want = c.engine(eks=0, dks=0, ntdks=0, pppns=True).results[0].aggregate["OptimumMCC"]
    assert props(res, "mask")["OptimumMCC"] == pytest.approx(want, abs=1e-12)
    assert want != pytest.approx(c.engine(eks=0, dks=0, ntdks=0).results[0].aggregate["OptimumMCC"], abs=1e-9)


def test_per_probe_csv_is_pipe_separated(omfc: Any, tmp_path: Path) -> None:
    c = MaskCase(omfc, {"0001": REF, "0002": SHIFTED})
    out = c.root / "out" / "perprobe.csv"
    res = c.run(*NOKERN, "--omfc-per-probe-csv", str(out))
    assert res.outcome("mask") == "passed"
    lines = out.read_text(encoding="utf-8").splitlines()
    header = lines[0].split("|")
    assert header[0] == "ProbeFileID" and "OptimumMCC" in header and len(lines) == 3
    row = dict(zip(header, lines[2].split("|"), strict=False))
    assert row["ProbeFileID"] == "0002" and float(row["OptimumMCC"]) == pytest.approx(5 / 12, abs=1e-12)


# ---------------------------------------------------------------------------- usage errors


@pytest.mark.parametrize(
    ("args", "first"),
    [
        (
            ["--omfc-erode-kernel-size", "4"],
            "--omfc-erode-kernel-size: must be 0 or an odd integer from 1 to 101 (got 4)",
        ),
        (
            ["--omfc-dilate-kernel-size", "1001"],
            "--omfc-dilate-kernel-size: must be 0 or an odd integer from 1 to 101 (got 1001)",
        ),
        (
            ["--omfc-nonselected-dilate-kernel-size", "x"],
            "--omfc-nonselected-dilate-kernel-size: must be 0 or an odd integer from 1 to 101 (got 'x')",
        ),
        (["--omfc-sbin", "256"], "--omfc-sbin: must be an integer from -1 to 255 (-10: none) (got 256)"),
        (["--omfc-no-score-pixel", "-2"], "--omfc-no-score-pixel: must be an integer from -1 to 255 (got -2)"),
    ],
)
def test_number_options_are_bounded(omfc: Any, args: list[str], first: str) -> None:
    c = MaskCase(omfc, {"0001": REF})
    out = c.case.pytester.runpytest(*c.case.args, "-p", "no:cacheprovider", "--omfc-reference", str(c.reference), *args)
    assert out.ret == 4
    assert f"ERROR: {first}" in out.stderr.str()


def test_per_probe_csv_refused_inside_the_submission(omfc: Any) -> None:
    c = MaskCase(omfc, {"0001": REF})
    bad = c.case.submission / "perprobe.csv"
    out = c.case.pytester.runpytest(
        *c.case.args, "-p", "no:cacheprovider", "--omfc-reference", str(c.reference), "--omfc-per-probe-csv", str(bad)
    )
    assert out.ret == 4 and "--omfc-per-probe-csv: must not point into the submission directory" in out.stderr.str()
    assert not bad.exists()


# ---------------------------------------------------------------------------- bad input


WRONG_SIZE = np.zeros((8, 8), dtype=np.uint8)


@pytest.mark.parametrize(
    ("systems", "extra_ref", "reason"),
    [
        ({"0001": REF, "0002": WRONG_SIZE}, None, "0002: "),
        ({"0001": REF, "0002": b"not a png at all"}, None, "0002: "),
        ({"0001": REF, "0002": png_bytes(REF)[:60]}, None, "0002: "),
        ({"0001": REF, "0002": REF}, {"0002": "reference/mask/absent.png"}, "0002: "),
    ],
)
def test_a_bad_mask_fails_the_item_naming_the_probe(
    omfc: Any, systems: dict[str, Any], extra_ref: Any, reason: str
) -> None:
    c = MaskCase(omfc, systems, extra_ref=extra_ref)
    res = c.run(*NOKERN)
    assert res.outcome("mask") == "failed"
    first = res.first_line("mask")
    assert first.startswith("score::mask: 1 mask(s) could not be scored (0002: "), first
    assert "Traceback" not in res.text("mask")
    assert props(res, "mask")["count.not_scored"] == 1
    assert res.outcome("detection") == "passed"


def test_reference_without_mask_column_collects_no_mask_item(omfc: Any) -> None:
    c = MaskCase(omfc, {"0001": REF})
    text = c.reference.read_text().replace("ProbeMaskFileName", "Other")
    c.reference.write_text(text)
    res = c.run()
    assert "detection" in res.reports and "mask" not in res.reports


def test_system_output_without_mask_column_skips_naming_the_column_rule(omfc: Any) -> None:
    c = MaskCase(omfc, {"0001": REF})
    csv = c.case.submission / f"{c.case.submission.name}.csv"
    csv.write_text(
        psv(["ProbeFileID", "ConfidenceScore", "ProbeStatus"], [["0001", 0.9, "Processed"], ["0009", 0.1, "Processed"]])
    )
    res = c.run()
    assert res.outcome("mask") == "skipped"
    assert res.text("mask").startswith("score::mask skipped: COL-02 failed: column OutputProbeMaskFileName is absent")


def test_qm_without_journal_fails_with_the_reason(omfc: Any) -> None:
    c = MaskCase(omfc, {"0001": REF})
    res = c.run("--omfc-query-manipulation", "Purpose==['add']")
    assert res.outcome("mask[qm1]") == "failed"
    assert res.first_line("mask[qm1]").startswith("score::mask: "), res.text("mask[qm1]")
    assert "Traceback" not in res.text("mask[qm1]")


def test_wrong_size_message_as_the_readme_quotes_it(omfc: Any) -> None:
    c = MaskCase(omfc, {"0001": REF, "0002": WRONG_SIZE})
    first = c.run(*NOKERN).first_line("mask")
    # MASK-06 fails the file, so the scorer names the rule's verdict (issue 17: rules and scorer agree)
    assert first == (
        "score::mask: 1 mask(s) could not be scored (0002: MASK-06: mask/0002.png is 8x8, probe is "
        "16x16: must be 16x16 (got 8x8))"
    ), first


# ---------------------------------------------------------------------------- splice, xdist, ini


def test_splice_item_holds_probe_and_donor_metrics(omfc: Any) -> None:
    """docs/scoring/masks.md#splice: one item per query with p- and d-prefixed aggregates (ntdks is always 0)."""
    files = {"mask/P1.png": png_bytes(REF), "mask/D1.png": png_bytes(SHIFTED)}
    case = omfc.case(
        "MFC2019",
        "splice",
        header=[
            "ProbeFileID",
            "DonorFileID",
            "ConfidenceScore",
            "OutputProbeMaskFileName",
            "OutputDonorMaskFileName",
            "ProbeStatus",
            "DonorStatus",
        ],
        rows=[
            ["P1", "D1", 0.9, "mask/P1.png", "mask/D1.png", "Processed", "Processed"],
            ["P2", "D2", 0.1, "", "", "Processed", "Processed"],
        ],
        index_header=[
            "TaskID",
            "ProbeFileID",
            "ProbeFileName",
            "ProbeWidth",
            "ProbeHeight",
            "DonorFileID",
            "DonorFileName",
            "DonorWidth",
            "DonorHeight",
        ],
        index_rows=[
            ["splice", p, f"probe/{p}.jpg", 16, 16, d, f"world/{d}.jpg", 16, 16]
            for p, d in (("P1", "D1"), ("P2", "D2"))
        ],
        files=files,
    )
    omfc.write("dataset/reference/mask/P1.png", png_bytes(REF))
    omfc.write("dataset/reference/mask/D1.png", png_bytes(REF))
    ref = omfc.write(
        "dataset/reference/MFC2019-splice-ref.csv",
        psv(
            [
                "TaskID",
                "ProbeFileID",
                "ProbeFileName",
                "DonorFileID",
                "DonorFileName",
                "IsTarget",
                "BinaryProbeMaskFileName",
                "DonorMaskFileName",
            ],
            [
                [
                    "splice",
                    "P1",
                    "probe/P1.jpg",
                    "D1",
                    "world/D1.jpg",
                    "Y",
                    "reference/mask/P1.png",
                    "reference/mask/D1.png",
                ],
                ["splice", "P2", "probe/P2.jpg", "D2", "world/D2.jpg", "N", "", ""],
            ],
        ),
    )
    res = case.run("--omfc-reference", str(ref), "--omfc-erode-kernel-size", "0", "--omfc-dilate-kernel-size", "0")
    assert res.outcome("mask") == "passed", res.text("mask")
    assert "mask[" not in "".join(res.reports)  # one item for probe and donor
    p = props(res, "mask")
    want = (
        score_masks(
            case.index,
            ref,
            case.submission / f"{case.submission.name}.csv",
            task="splice",
            ref_dir=omfc.root / "dataset",
            eks=0,
            dks=0,
        )
        .results[0]
        .aggregate
    )
    assert p["pOptimumMCC"] == 1.0 == want["pOptimumMCC"]
    assert p["dOptimumMCC"] == pytest.approx(want["dOptimumMCC"], abs=1e-12) and p["dOptimumMCC"] < 1.0
    assert (p["totalTrials"], p["ScoreableProbeTrials"], p["ScoreableDonorTrials"]) == (
        2,
        2,
        2,
    )  # MediScore: total - unscored


def test_xdist_controller_writes_the_mask_entry(omfc: Any) -> None:
    pytest.importorskip("xdist")
    c = MaskCase(omfc, {"0001": REF, "0002": SHIFTED})
    path = c.root / "out" / "metrics.json"
    out = c.case.pytester.runpytest(
        *c.case.args,
        "-p",
        "no:cacheprovider",
        "--omfc-reference",
        str(c.reference),
        "--omfc-metrics-json",
        str(path),
        "-n",
        "2",
        *NOKERN,
    )
    assert out.ret == 0, out.stdout.str()[-2000:]
    doc = json.loads(path.read_text(encoding="utf-8"))
    mask = next(r for r in doc["results"] if r["scorer"] == "mask")
    assert mask["metrics"]["OptimumMCC"] == pytest.approx((1 + 5 / 12) / 2, abs=1e-12)
    out.stdout.fnmatch_lines(["omfc mask scores*"])


def test_mask_options_are_ini_settings(omfc: Any) -> None:
    c = MaskCase(omfc, {"0001": GREY})
    res = c.run(*NOKERN, "-o", "omfc_sbin=50", "-o", "omfc_kernel=disc")
    p = props(res, "mask")
    assert p["ActualMCC"] == pytest.approx(5 / 12, abs=1e-12) and p["ActualThreshold"] == 50
    assert json.loads(json.dumps(c.json(*NOKERN, "-o", "omfc_kernel=disc")["options"]["mask"]))["kernel"] == "disc"
    bad = c.case.pytester.runpytest(
        *c.case.args, "-p", "no:cacheprovider", "--omfc-reference", str(c.reference), "-o", "omfc_erode_kernel_size=2"
    )
    assert (
        bad.ret == 4
        and "--omfc-erode-kernel-size: must be 0 or an odd integer from 1 to 101 (got 2)" in bad.stderr.str()
    )


# ---------------------------------------------------------------------------- bombs, in a capped child

_CHILD = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1_500_000_000, 1_500_000_000))
import pytest
sys.exit(pytest.main(sys.argv[1:]))
"""


def _header_bomb(width: int, height: int) -> bytes:
    """A grey PNG declaring ``width x height`` pixels with a 20-byte IDAT (inflating it would need GBs)."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(bytes(64))) + chunk(b"IEND", b"")


def _run_capped(c: MaskCase, *extra: str) -> tuple[Any, float]:
    import os
    import subprocess
    import sys
    import time

    env = dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    t0 = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            _CHILD,
            *c.case.args,
            "-p",
            "pytest_omfc.plugin",
            "-p",
            "no:cacheprovider",
            "--omfc-reference",
            str(c.reference),
            "--omfc-jobs",
            "1",
            "-q",
            "-k",
            "score",
            *extra,
        ],
        cwd=c.root,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return proc, time.perf_counter() - t0


def test_system_mask_header_bomb_fails_the_item_without_inflating(omfc: Any) -> None:
    """A 100000x100000 system mask (10 GB of pixels) names the probe; the run stays under 1.5 GB and 60 s."""
    c = MaskCase(omfc, {"0001": REF, "0002": _header_bomb(100_000, 100_000)})
    proc, elapsed = _run_capped(c, *NOKERN)
    out = proc.stdout + proc.stderr
    assert "INTERNALERROR" not in out and "Traceback" not in out and "MemoryError" not in out, out[-3000:]
    assert "score::mask: 1 mask(s) could not be scored (0002: " in proc.stdout, out[-3000:]
    assert proc.returncode == 1 and elapsed < 30, (proc.returncode, elapsed)


def test_kernel_size_bomb_is_a_usage_error(omfc: Any) -> None:
    """An erosion kernel of 100001 (10**10 cells; the engine would build and apply it) is refused up front."""
    c = MaskCase(omfc, {"0001": REF})
    proc, elapsed = _run_capped(c, "--omfc-erode-kernel-size", "100001")
    assert proc.returncode == 4, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "ERROR: --omfc-erode-kernel-size: must be 0 or an odd integer from 1 to 101 (got 100001)" in proc.stderr
    assert elapsed < 30


def test_jpeg2000_yes_without_bit_plane_column_fails_naming_it(omfc: Any) -> None:
    """--omfc-jpeg2000 reaches the engine: 'yes' needs ProbeBitPlaneMaskFileName
    (docs/scoring/masks.md#ground-truth)."""
    c = MaskCase(omfc, {"0001": REF})
    res = c.run(*NOKERN, "--omfc-jpeg2000", "yes")
    assert res.outcome("mask") == "failed"
    assert res.first_line("mask") == "score::mask: jpeg2000='yes' needs the reference column ProbeBitPlaneMaskFileName"
    assert c.run(*NOKERN, "--omfc-jpeg2000", "no").outcome("mask") == "passed"


# ---------------------------------------------------------------------------- conventions, opt-out, partitions


def test_plan_convention_scores_a_missing_mask_mcc_minus_one(omfc: Any) -> None:
    """MASK-01 / docs/scoring/conventions.md: the plans score a missing mask -1; MediScore 0."""
    c = MaskCase(omfc, {"0001": REF, "0002": None})
    assert props(c.run(*NOKERN), "mask")["OptimumMCC"] == pytest.approx(0.5, abs=1e-12)
    assert props(c.run(*NOKERN, "--omfc-convention", "plan"), "mask")["OptimumMCC"] == pytest.approx(0.0, abs=1e-12)


def test_optout_removes_opted_out_trials_from_mask_scoring(omfc: Any) -> None:
    """docs/scoring/masks.md#trial-selection step 2: OptOutLocalization is counted in the bookkeeping, and removed
    with --omfc-optout."""
    c = MaskCase(omfc, {"0001": REF, "0002": SHIFTED})
    csv = c.case.submission / f"{c.case.submission.name}.csv"
    csv.write_text(
        csv.read_text().replace("0002|0.9|mask/0002.png|Processed", "0002|0.9|mask/0002.png|OptOutLocalization")
    )
    kept = props(c.run(*NOKERN), "mask")
    assert (kept["totalOptOut"], kept["ScoreableTrials"]) == (1, 2)
    assert kept["OptimumMCC"] == pytest.approx((1 + 5 / 12) / 2, abs=1e-12)
    out = props(c.run(*NOKERN, "--omfc-optout"), "mask")
    assert (out["totalOptOut"], out["ScoreableTrials"], out["OptimumMCC"]) == (1, 1, 1.0)


def test_query_partition_gives_one_mask_item_per_partition(omfc: Any) -> None:
    c = MaskCase(omfc, {"0001": REF, "0002": REF, "0003": SHIFTED})
    res = c.run(*NOKERN, "--omfc-query-partition", "Collection==['A','B']")
    assert props(res, "mask[qp1]")["OptimumMCC"] == 1.0
    assert props(res, "mask[qp2]")["OptimumMCC"] == pytest.approx(5 / 12, abs=1e-12)


def test_dask_local_cluster_gives_the_local_result(omfc: Any) -> None:
    """Issue 10 scale-out through the plugin: ``--omfc-dask local`` (a real two-worker LocalCluster, in a
    subprocess) writes the same mask entry, per-probe rows included, as local processes."""
    if importlib.util.find_spec("distributed") is None:  # not imported here: only the subprocesses need it
        pytest.skip("needs dask.distributed: pip install 'pytest-omfc[dask]'")
    grey = np.where(SHIFTED == 0, 40, 200).astype(np.uint8)
    c = MaskCase(omfc, {"0001": REF, "0002": SHIFTED, "0003": grey, "0004": None})
    docs = {}
    for name, extra in (("local", ["--omfc-jobs", "2"]), ("dask", ["--omfc-jobs", "2", "--omfc-dask", "local"])):
        path = c.root / "out" / f"{name}.json"
        res = c.case.pytester.runpytest_subprocess(
            *c.case.args,
            "-p",
            "no:cacheprovider",
            "--omfc-reference",
            str(c.reference),
            "--omfc-metrics-json",
            str(path),
            "--omfc-sbin",
            "100",
            *extra,
            timeout=180,
        )
        assert res.ret == 0, res.stdout.str()[-3000:]
        assert ("on the dask.distributed cluster local)" in res.stdout.str()) is (name == "dask")
        docs[name] = json.loads(path.read_text(encoding="utf-8"))
    local, dask = ([r for r in d["results"] if r["scorer"] == "mask"] for d in (docs["local"], docs["dask"]))
    assert len(local) == 1 and local[0]["per_probe"] and local == dask
    assert local[0]["metrics"]["ActualThreshold"] == 100


def test_unreachable_dask_scheduler_fails_the_mask_item_naming_it(omfc: Any) -> None:
    """The address reaches the engine: a closed port on this machine fails the item with the address, no traceback."""
    if importlib.util.find_spec("distributed") is None:
        pytest.skip("needs dask.distributed: pip install 'pytest-omfc[dask]'")
    c = MaskCase(omfc, {"0001": REF, "0002": SHIFTED})
    res = c.case.pytester.runpytest_subprocess(
        *c.case.args,
        "-p",
        "no:cacheprovider",
        "--omfc-reference",
        str(c.reference),
        "--omfc-dask",
        "tcp://127.0.0.1:9",
        "-rf",
        timeout=180,
    )
    out = res.stdout.str()
    assert res.ret == 1 and "cannot connect to the scheduler at 'tcp://127.0.0.1:9'" in out, out[-3000:]
    assert "Traceback" not in out and "INTERNALERROR" not in out


def _bitplane_reference(c: MaskCase, omfc: Any) -> None:
    """Replace the PNG reference by a JPEG 2000 bit-plane one with its journal tables
    (docs/scoring/masks.md#ground-truth).

    Bit plane 1 marks the 8x8 GT of REF (a Paste); bit plane 3 marks the 3x3 bottom-right corner (a
    Blur).  The journal lists both; without -qm both are evaluated (GT), with -qm Paste the Blur's
    plane is listed but not evaluated, i.e. a distraction (no-score).
    """
    planes = np.zeros((16, 16), dtype=np.uint8)
    planes[4:12, 4:12] |= 1
    planes[13:16, 13:16] |= 4
    buf = __import__("io").BytesIO()
    Image.fromarray(planes, "L").save(buf, format="JPEG2000")
    omfc.write("dataset/reference/mask/0001.bpm.jp2", buf.getvalue())
    header = [
        "TaskID",
        "ProbeFileID",
        "ProbeFileName",
        "IsTarget",
        "ProbeBitPlaneMaskFileName",
        "JournalName",
        "Collection",
    ]
    rows = [
        ["IMDL", "0001", "probe/0001.jpg", "Y", "reference/mask/0001.bpm.jp2", "j1", "A"],
        ["IMDL", "0009", "probe/0009.jpg", "N", "", "", "B"],
    ]
    c.reference = omfc.write(f"dataset/{REF_REL}", psv(header, rows))
    stem = REF_REL.removesuffix(".csv")
    omfc.write(
        f"dataset/{stem}-probejournaljoin.csv",
        psv(
            ["ProbeFileID", "JournalName", "StartNodeID", "EndNodeID", "Sequence"],
            [["0001", "j1", "n1", "n2", 1], ["0001", "j1", "n2", "n3", 2]],
        ),
    )
    omfc.write(
        f"dataset/{stem}-journalmask.csv",
        psv(
            ["JournalName", "StartNodeID", "EndNodeID", "Operation", "Purpose", "BitPlane"],
            [["j1", "n1", "n2", "PasteSplice", "add", 1], ["j1", "n2", "n3", "Blur", "remove", 3]],
        ),
    )


def test_jpeg2000_bit_plane_reference_hand_computed(omfc: Any) -> None:
    """Bit planes through the plugin: GT = the pixels of the evaluated planes; -qm turns a listed plane that is
    not evaluated into no-score.  System mask SHIFTED (black [6:14]^2):
    * no query, both planes are GT (73 px): TP 36+1 (the corner pixel 13,13), FP 27, FN 28+8, TN 156;
    * -qm PasteSplice: GT is the 8x8 square; the Blur's 9 corner pixels (1 FP, 8 TN) are no-score:
      TP 36, FP 27, FN 28, TN 156."""

    def mcc(tp: int, fp: int, fn: int, tn: int) -> float:
        return (tp * tn - fp * fn) / math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))

    c = MaskCase(omfc, {"0001": SHIFTED})
    _bitplane_reference(c, omfc)
    both = c.json(*NOKERN)
    whole = next(r for r in both["results"] if r["scorer"] == "mask")
    row = whole["per_probe"][0]
    assert (row["OptimumPixelTP"], row["OptimumPixelFP"], row["OptimumPixelFN"], row["OptimumPixelTN"]) == (
        37,
        27,
        36,
        156,
    )
    assert whole["metrics"]["OptimumMCC"] == pytest.approx(mcc(37, 27, 36, 156), abs=1e-12)
    assert both["options"]["mask"]["jpeg2000"] == "auto"
    res = c.run(*NOKERN, "--omfc-query-manipulation", "Operation==['PasteSplice']")
    rid = next(r for r in res.reports if r.startswith("mask"))
    assert res.outcome(rid) == "passed", res.text(rid)
    assert props(res, rid)["OptimumMCC"] == pytest.approx(mcc(36, 27, 28, 156), abs=1e-12)
    no = c.run(*NOKERN, "--omfc-jpeg2000", "no")
    assert (no.outcome("mask"), no.first_line("mask")) == (
        "failed",
        (
            "score::mask: reference lacks column(s) ['ProbeMaskFileName']; it has ['TaskID', 'ProbeFileID', "
            "'ProbeFileName', 'IsTarget', 'ProbeBitPlaneMaskFileName', 'JournalName', 'Collection']"
        ),
    )


@pytest.mark.parametrize(
    ("kernel", "ring"),
    [
        ("box", 100 - 36),  # dilated 10x10 minus eroded 6x6
        ("gaussian", 100 - 36),  # equals box below size 19 (docs/scoring/masks.md#no-score-zones)
        ("diamond", 96 - 36),  # a 3x3 cross: the dilated square loses its 4 corners
        ("disc", 96 - 36),  # MORPH_ELLIPSE of size 3 is the same cross
        ("line", 94 - 36),  # the 45-degree diagonal: squares shifted by -1, 0, +1 (64 + 15 + 15) minus their overlap
    ],
)
def test_each_kernel_hand_computed_no_score_ring(omfc: Any, kernel: str, ring: int) -> None:
    """The boundary no-score ring (BNS) of the 8x8 GT in a 16x16 mask, eks = dks = 3, for each kernel shape;
    a perfect system mask then scores MCC 1 on the 256 - ring scored pixels."""
    c = MaskCase(omfc, {"0001": REF})
    doc = c.json(
        "--omfc-kernel",
        kernel,
        "--omfc-erode-kernel-size",
        "3",
        "--omfc-dilate-kernel-size",
        "3",
        "--omfc-nonselected-dilate-kernel-size",
        "0",
    )
    row = next(r for r in doc["results"] if r["scorer"] == "mask")["per_probe"][0]
    assert (row["PixelBNS"], row["PixelN"], row["OptimumMCC"]) == (ring, 256 - ring, 1.0)


def test_when_the_rules_rejected_files_cannot_be_known_the_score_fails_naming_why(
    omfc: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bridge from the rules to the scorer (runner.rules_rejected): an error while computing the files the
    rules reject fails the score naming it; the scorer never goes on scoring files the rules may reject."""
    from pytest_omfc.rules import mask as mask_rules

    def broken(ctx: Any) -> dict[str, str]:
        raise RuntimeError("the MASK rules broke")

    monkeypatch.setattr(mask_rules, "rejected_masks", broken)
    res = MaskCase(omfc, {"0001": REF, "0002": SHIFTED}).run("--omfc-jobs", "1")
    assert res.outcome("mask") == "failed"
    assert "scoring could not run: RuntimeError: the MASK rules broke" in res.first_line("mask")
