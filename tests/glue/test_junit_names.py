"""JUnit testcase names a portal can predict on every supported pytest (pytest_glue/junit.py): ``name`` is the
rule ID, the scorer (and query) or the gate text, ``classname`` the node ID before it, whatever brackets the
submission folder's name or a gate holds.  pytest 9.2 parses ``[`` in a node ID's names as parameters and named
such testcases ``SUB-10]`` and ``detection[all]:AUC>=0.7]``; these tests failed so before the plugin set the
names itself.  ``compat`` marks them for the compatibility job of ``.ci/run`` (every Python, the lowest pytest).
"""

from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from helpers.examples import EXAMPLES
from helpers.runs import run_capped

pytestmark = pytest.mark.compat

DATASET = EXAMPLES / "datasets/OpenMFC2020"
INDEX = DATASET / "indexes/OpenMFC20_Image-IMDL-index.csv"
REFERENCE = DATASET / "reference/IMDL/OpenMFC20_Image-IMDL-ref.csv"
SUB_ID = "p-baseline_3_imdl"
RULE_NAME = re.compile(r"[A-Z]+-\d+(\[\d+/\d+\])?")
GATES = ["detection[all]:AUC>=0", "detection : EER <= 1"]


def _submission(root: Path, folder: str) -> Path:
    """The bundled valid submission copied under ``root/folder`` (its files keep the SubID's name)."""
    target = root / folder
    shutil.copytree(EXAMPLES / "submissions/imdl" / SUB_ID, target)
    return target


def _testcases(xml: Path) -> list[tuple[str, str]]:
    return [(c.get("classname", ""), c.get("name", "")) for c in ET.parse(xml).iter("testcase")]


def _run(tmp_path: Path, folder: str, entry: str) -> list[tuple[str, str]]:
    """The testcases (classname, name) of a scored run with two gates on the submission copied to ``folder``."""
    root = tmp_path / entry / folder.replace("[", "(").replace("]", ")")
    sub = _submission(root, folder)
    xml = root / "out.xml"
    args = ["-m", entry, "--omfc-submission", str(sub), "--omfc-index", str(INDEX), "--omfc-reference", str(REFERENCE)]
    args += [*(f"--omfc-require={g}" for g in GATES), f"--junitxml={xml}"]
    if entry == "pytest":  # plain pytest, configured by an empty ini of its own
        (root / "empty.ini").write_text("[pytest]\n", encoding="utf-8")
        args += ["-p", "no:cacheprovider", "-c", str(root / "empty.ini"), "--rootdir", str(root)]
    run = run_capped(args, cwd=root, timeout=120)
    assert run.ret == (0 if folder == SUB_ID else 1), run.out + run.err  # renamed: the SUB and PKG rules fail
    return _testcases(xml)


@pytest.mark.parametrize("entry", ["pytest", "pytest_omfc"])
@pytest.mark.parametrize("folder", ["runs[2]", "p-baseline_3_imdl]x[", "a[1]b[2]::c"])
def test_testcase_names_do_not_depend_on_the_folder_name(tmp_path: Path, folder: str, entry: str) -> None:
    plain = _run(tmp_path, SUB_ID, entry)
    rules = [name for classname, name in plain if classname == f"{SUB_ID}.{SUB_ID}"]
    assert "SUB-10" in rules and all(RULE_NAME.fullmatch(name) for name in rules), rules
    scores = [name for classname, name in plain if classname == f"{SUB_ID}.{SUB_ID}.score"]
    assert scores == ["detection", "mask"]
    gates = [name for classname, name in plain if classname == f"{SUB_ID}.{SUB_ID}.require"]
    assert gates == ["detection[all]:AUC>=0", "detection:EER<=1"]
    assert len(plain) == len(rules) + len(scores) + len(gates)
    renamed = _run(tmp_path, folder, entry)
    dotted = folder.replace("::", ".")
    assert renamed == [(classname.replace(SUB_ID, dotted), name) for classname, name in plain]
