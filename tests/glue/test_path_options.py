"""A relative path option means the same under ``pytest`` and ``pytest-omfc`` (issue 17).

``--omfc-probe-journal-join``, ``--omfc-journal-mask``, ``--omfc-provenance-node`` and
``--omfc-world-index`` were resolved against pytest-omfc's private temporary directory (the item
failed naming it) and against the working directory under plain pytest (it passed).  Each is now
resolved once, by :func:`pytest_omfc.paths.resolve_input` (the dataset root, then the working
directory), and each test runs the same command line both ways, from the same directory.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from helpers.provenance import FULL, ProvCase
from helpers.temporal import VideoCase

from pytest_omfc.paths import resolve_input


def _both_ways(root: Path, args: list[str], item: str) -> dict[str, tuple[int, str]]:
    """(exit code, outcome of ``item``) under plain pytest and under pytest-omfc, both run in ``root``."""
    out: dict[str, tuple[int, str]] = {}
    runners = {
        "pytest": [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--rootdir", str(root)],
        "pytest-omfc": [sys.executable, "-m", "pytest_omfc"],
    }
    for name, cmd in runners.items():
        xml = root / f"{name}.xml"
        proc = subprocess.run(
            [*cmd, *args, "--junitxml", str(xml)], cwd=root, capture_output=True, text=True, timeout=300
        )
        outcome = "absent"
        if xml.exists():
            for case in ET.parse(xml).iter("testcase"):
                if case.get("name") == item.split("::")[-1] and case.get("classname", "").endswith(".score"):
                    outcome = next((c.tag for c in case if c.tag in ("failure", "error", "skipped")), "passed")
        out[name] = (proc.returncode, outcome if outcome != "failure" else f"failure: {proc.stdout[-1500:]}")
    return out


@pytest.mark.parametrize("flag", ["--omfc-probe-journal-join", "--omfc-journal-mask"])
def test_relative_journal_table_from_the_working_directory(omfc: Any, flag: str) -> None:
    case = VideoCase(omfc, beside=False)  # tables under ./elsewhere/, not beside the reference
    given = {"--omfc-probe-journal-join": case.join, "--omfc-journal-mask": case.mask}
    other = [a for f, p in given.items() if f != flag for a in (f, str(p))]  # the other one absolute
    args = [
        *case.case.args,
        "--omfc-reference",
        str(case.reference),
        "--omfc-score",
        "temporal",
        flag,
        str(given[flag].relative_to(case.root)),
        *other,
    ]
    got = _both_ways(case.root, args, "score::temporal")
    assert got == {"pytest": (0, "passed"), "pytest-omfc": (0, "passed")}, got


@pytest.mark.parametrize("flag", ["--omfc-provenance-node", "--omfc-world-index"])
def test_relative_provenance_table_from_the_working_directory(omfc: Any, flag: str) -> None:
    case = ProvCase(omfc, "provenance", FULL)
    table = case.node if flag == "--omfc-provenance-node" else case.world
    moved = case.root / "tables" / table.name
    moved.parent.mkdir()
    shutil.move(table, moved)  # no longer beside the reference: only the option finds it
    args = [*case.case.args, "--omfc-reference", str(case.reference), flag, "tables/" + moved.name]
    if flag == "--omfc-provenance-node":
        args += ["--omfc-world-index", str(case.world)]
    got = _both_ways(case.root, args, "score::provenance")
    assert got["pytest"] == got["pytest-omfc"] and got["pytest"][1] == "passed", got


def test_resolve_input_prefers_the_dataset_root_then_the_base(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "cwd").mkdir()
    (tmp_path / "data" / "a.csv").write_text("x")
    (tmp_path / "cwd" / "a.csv").write_text("x")
    (tmp_path / "cwd" / "b.csv").write_text("x")
    assert resolve_input("a.csv", tmp_path / "cwd", tmp_path / "data") == tmp_path / "data" / "a.csv"
    assert resolve_input("b.csv", tmp_path / "cwd", tmp_path / "data") == tmp_path / "cwd" / "b.csv"
    assert resolve_input("c.csv", tmp_path / "cwd", tmp_path / "data") == tmp_path / "cwd" / "c.csv"  # absent: the base
    assert resolve_input(str(tmp_path / "x"), tmp_path / "cwd", None) == tmp_path / "x"
