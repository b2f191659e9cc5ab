"""A submission folder's name is the participant's to choose (issue 17).

``[`` made pytest read the folder as a parametrized test ("path cannot contain [] parametrization",
exit 4; under ``-n 2`` exit 5 with no message), ``::`` as a node separator ("file or directory not
found"), and ``a::b.csv`` passed for a Windows drive path (PKG-01 "absolute path").  Every such name
now gets the SUB/PKG findings it deserves, with the same exit code and the same items with and
without xdist.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from helpers.paths import REPO

EXAMPLES = REPO / "examples"
VALID = EXAMPLES / "submissions" / "imdl" / "p-baseline_3_imdl"
INDEX = EXAMPLES / "datasets" / "OpenMFC2020" / "indexes" / "OpenMFC20_Image-IMDL-index.csv"

NAMES = {
    "bracket": "p-baseline_3_x[1]",
    "closing": "p-baseline_3_x]",
    "colons": "p-baseline::3_x",
    "space": "p-baseline_3_with space",
    "non-ascii": "p-baseline_3_été",
    "255 chars": "p-baseline_3_" + "x" * 242,
}


def _copy(tmp: Path, name: str) -> Path:
    sub = tmp / name
    shutil.copytree(VALID, sub)
    for ext in ("csv", "txt"):
        try:
            (sub / f"{VALID.name}.{ext}").rename(sub / f"{name}.{ext}")
        except OSError:  # 255 + ".csv" is past the file system's name limit: the file keeps its name
            pass
    return sub


def _run(tmp: Path, sub: Path, *extra: str) -> tuple[int, dict[str, str], str]:
    xml = tmp / f"junit{len(extra)}.xml"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(tmp),
            "--omfc-submission",
            str(sub),
            "--omfc-index",
            str(INDEX),
            "--junitxml",
            str(xml),
            *extra,
        ],
        cwd=tmp,
        capture_output=True,
        text=True,
        timeout=300,
    )
    outcomes: dict[str, str] = {}
    if xml.exists():
        for case in ET.parse(xml).iter("testcase"):
            kind = next((c.tag for c in case if c.tag in ("failure", "error", "skipped")), "passed")
            outcomes[f"{case.get('classname')}::{case.get('name')}"] = kind
    return proc.returncode, outcomes, proc.stdout + proc.stderr


@pytest.mark.parametrize("name", list(NAMES.values()), ids=list(NAMES))
def test_a_hostile_folder_name_gets_findings_the_same_with_and_without_xdist(tmp_path: Path, name: str) -> None:
    sub = _copy(tmp_path, name)
    ret, alone, out = _run(tmp_path, sub)
    assert ret == 1, out[-3000:]  # SUB-10 (or SUB-01, PKG-01): rules fail, not a usage error
    assert "INTERNALERROR" not in out and "Traceback" not in out
    failed = {k.rsplit("::", 1)[-1] for k, v in alone.items() if v == "failure"}
    assert failed & {"SUB-01", "SUB-10", "PKG-01"}, sorted(failed)
    assert len(alone) >= 40  # every rule item was collected
    ret2, spread, out2 = _run(tmp_path, sub, "-n", "2")
    assert (ret2, spread) == (ret, alone), out2[-3000:]


def test_a_colon_name_is_not_a_windows_drive(tmp_path: Path) -> None:
    """``p-baseline::3_x.csv`` was "absolute path" to PKG-01 (``p:`` read as a drive letter)."""
    sub = _copy(tmp_path, NAMES["colons"])
    _, outcomes, out = _run(tmp_path, sub)
    assert next(v for k, v in outcomes.items() if k.endswith("::PKG-01")) == "passed", out[-3000:]
