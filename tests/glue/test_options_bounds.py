"""Integer and number options out of their bounds are usage errors (exit 4, one line), never a silent change.

``--omfc-slices 0`` used to collect no MASK-08 item (a broken mask passed) and ``--omfc-slices 2000000``
never finished collecting; ``--omfc-ci-iterations 2000000`` never finished scoring.  Every case runs in a
subprocess with an address-space limit and a timeout, so a regression fails fast instead of eating the
machine.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers.examples import EXAMPLES
from helpers.runs import run_capped

EXAMPLE_SUB = EXAMPLES / "submissions" / "imdl" / "p-baseline_3_imdl"
EXAMPLE_DATASET = EXAMPLES / "datasets" / "OpenMFC2020"
INDEX_REL = "OpenMFC2020/indexes/OpenMFC20_Image-IMDL-index.csv"
REF_REL = "reference/IMDL/OpenMFC20_Image-IMDL-ref.csv"


def example_copy(root: Path) -> tuple[Path, Path]:
    """A copy of the valid IMDL example and its dataset under ``root`` (the repository is never run on)."""
    sub = shutil.copytree(EXAMPLE_SUB, root / EXAMPLE_SUB.name)
    shutil.copytree(EXAMPLE_DATASET, root / "OpenMFC2020")
    return Path(sub), root / INDEX_REL


BOUNDS = [
    pytest.param(
        ["--omfc-slices", "0"], "ERROR: --omfc-slices: must be an integer from 1 to 64 (got 0)", id="slices-0"
    ),
    pytest.param(
        ["--omfc-slices", "-3"], "ERROR: --omfc-slices: must be an integer from 1 to 64 (got -3)", id="slices-negative"
    ),
    pytest.param(
        ["--omfc-slices", "2000000"],
        "ERROR: --omfc-slices: must be an integer from 1 to 64 (got 2000000)",
        id="slices-huge",
    ),
    pytest.param(
        ["--omfc-slices", "two"], "ERROR: --omfc-slices: must be an integer from 1 to 64 (got 'two')", id="slices-text"
    ),
    pytest.param(
        ["--omfc-jobs", "-1"], "ERROR: --omfc-jobs: must be an integer from 0 to 64 (got -1)", id="jobs-negative"
    ),
    pytest.param(
        ["--omfc-jobs", "100000"], "ERROR: --omfc-jobs: must be an integer from 0 to 64 (got 100000)", id="jobs-huge"
    ),
    pytest.param(
        ["--omfc-max-findings", "-2"],
        "ERROR: --omfc-max-findings: must be an integer from -1 to 1000 (got -2)",
        id="max-findings-negative",
    ),
    pytest.param(
        ["--omfc-max-findings", "10000000"],
        "ERROR: --omfc-max-findings: must be an integer from -1 to 1000 (got 10000000)",
        id="max-findings-huge",
    ),
    pytest.param(
        ["--omfc-reference", REF_REL, "--omfc-ci", "--omfc-ci-iterations", "2000000"],
        "ERROR: --omfc-ci-iterations: must be an integer from 1 to 10000 (got 2000000)",
        id="ci-iterations-huge",
    ),
    pytest.param(
        ["--omfc-reference", REF_REL, "--omfc-ci", "--omfc-ci-iterations", "-5"],
        "ERROR: --omfc-ci-iterations: must be an integer from 1 to 10000 (got -5)",
        id="ci-iterations-negative",
    ),
    pytest.param(
        ["--omfc-reference", REF_REL, "--omfc-seed", "-1"],
        "ERROR: --omfc-seed: must be an integer from 0 to 4294967295 (got -1)",
        id="seed-negative",
    ),
    pytest.param(
        ["--omfc-reference", REF_REL, "--omfc-seed", str(2**32)],
        "ERROR: --omfc-seed: must be an integer from 0 to 4294967295 (got 4294967296)",
        id="seed-huge",
    ),
    pytest.param(
        ["--omfc-reference", REF_REL, "--omfc-far-stop", "nan"],
        "ERROR: --omfc-far-stop: must be a number in [0, 1] (got 'nan')",
        id="far-stop-nan",
    ),
    pytest.param(
        ["--omfc-reference", REF_REL, "--omfc-far-stop=-inf"],
        "ERROR: --omfc-far-stop: must be a number in [0, 1] (got '-inf')",
        id="far-stop-inf",
    ),
    pytest.param(
        ["--omfc-reference", REF_REL, "--omfc-ci-level", "nan"],
        "ERROR: --omfc-ci-level: must be a number strictly between 0 and 1 (got 'nan')",
        id="ci-level-nan",
    ),
]


@pytest.mark.parametrize(("extra", "line"), BOUNDS)
def test_out_of_bounds_values_are_usage_errors(tmp_path, extra, line):
    """Plain pytest form: exit 4 and exactly one line naming the flag, the bounds and the value."""
    sub, index = example_copy(tmp_path)
    res = run_capped(
        [
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--omfc-submission",
            str(sub),
            "--omfc-index",
            str(index),
            "--omfc-dataset",
            str(tmp_path / "OpenMFC2020"),
            *extra,
        ],
        cwd=tmp_path,
    )
    assert res.ret == pytest.ExitCode.USAGE_ERROR, (res.ret, res.out[-2000:], res.err[-2000:])
    assert res.errlines == [line]


def test_bounds_hold_for_ini_settings_too(tmp_path):
    """The same check on the ini value (``omfc_slices = 0`` in the operator's own ini)."""
    sub, index = example_copy(tmp_path)
    tmp_path.joinpath("pytest.ini").write_text("[pytest]\nomfc_slices = 0\n")
    res = run_capped(
        ["-m", "pytest", "-p", "no:cacheprovider", "--omfc-submission", str(sub), "--omfc-index", str(index)],
        cwd=tmp_path,
    )
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    assert res.errlines == ["ERROR: --omfc-slices: must be an integer from 1 to 64 (got 0)"]


def test_bounds_through_the_entry_point(tmp_path):
    """``pytest-omfc`` passes the value on as ``--omfc-slices=0``; the plugin refuses it the same way."""
    sub, index = example_copy(tmp_path)
    res = run_capped(
        ["-m", "pytest_omfc", "--omfc-submission", str(sub), "--omfc-index", str(index), "--omfc-slices", "0"],
        cwd=tmp_path,
    )
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    assert res.errlines == ["ERROR: --omfc-slices: must be an integer from 1 to 64 (got 0)"]


@pytest.mark.parametrize(
    ("extra", "items"), [(["--omfc-slices", "1"], 1), (["--omfc-slices", "64"], 64)], ids=["1", "64"]
)
def test_bounds_themselves_are_accepted(omfc, extra, items):
    """1 and 64 slices: MASK-04 and MASK-08 are collected that many times each and the valid case passes."""
    from helpers.columns import layout_case

    res = layout_case(omfc).run(*extra)
    assert res.ret == 0
    for rule_id in ("MASK-04", "MASK-08"):
        assert len([r for r in res.reports if r.startswith(f"{rule_id}[")]) == items


@pytest.mark.parametrize("text", ["1e308", "inf", "0", "-25", "1001"])
def test_fps_has_a_bound(text: str) -> None:
    """--omfc-fps 1e308 passed the rules and the scorer failed with a bare ValueError (segment times overflowed)."""
    from pytest_omfc.scoring.families import option

    with pytest.raises(ValueError, match=r"must be a number of frames per second in \(0, 1000\]"):
        option("omfc_fps").parse(text)
    assert option("omfc_fps").parse("29.97") == 29.97
