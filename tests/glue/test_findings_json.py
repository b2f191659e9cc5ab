"""``--omfc-findings-json``: the run's rule outcomes and findings, scores and gates, as one document that validates
against ``schemas/findings.FindingsDocument.json``; the same under pytest-xdist; per EXPID for a package; bounded
by ``--omfc-max-findings``; refused where the run must not write, as every output."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from helpers.detection import make
from helpers.paths import REPO

EXAMPLES = REPO / "examples"
SCHEMA = json.loads((REPO / "schemas" / "findings.FindingsDocument.json").read_text(encoding="utf-8"))
BAD_STATUS = EXAMPLES / "submissions" / "imdl" / "p-baseline_3_bad-status"
INDEX = EXAMPLES / "datasets" / "OpenMFC2020" / "indexes" / "OpenMFC20_Image-IMDL-index.csv"


def _doc(path: Path) -> dict[str, Any]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    jsonschema.validate(doc, SCHEMA)
    return doc


def _key(record: dict[str, Any]) -> tuple[Any, ...]:
    return (record["expid"] or "", record["rule"], record["slice"] or "")


def test_a_failing_check_is_written_whole_and_the_same_under_xdist(pytester: pytest.Pytester) -> None:
    one, two = pytester.path / "one.json", pytester.path / "two.json"
    base = ["--omfc-submission", str(BAD_STATUS), "--omfc-index", str(INDEX), "-p", "no:cacheprovider"]
    assert pytester.runpytest(*base, "--omfc-findings-json", str(one)).ret == 1
    assert pytester.runpytest_subprocess(*base, "--omfc-findings-json", str(two), "-n", "2").ret == 1
    a, b = _doc(one), _doc(two)
    assert (a["verdict"], a["counts"]["failed"], a["counts"]["errors"]) == ("failed", 1, 2)
    (status,) = [r for r in a["rules"] if r["outcome"] == "failed"]
    assert status["rule"] == "STATUS-04" and status["severity"] == "error"
    assert [(f["line"], f["key"], f["column"], f["value"]) for f in status["errors"]["findings"]] == [
        (3, "OpenMFC2020_0102", "ProbeStatus", "processed"),
        (5, "OpenMFC2020_0104", "ProbeStatus", "OptOutAll"),
    ]
    # the value the rule wanted, as a field of its own (not only inside the message)
    assert {f["expected"] for f in status["errors"]["findings"]} == {"one of Processed, NonProcessed, FailedValidation"}
    strip = [{k: v for k, v in r.items()} for r in a["rules"]]
    assert sorted(strip, key=_key) == sorted(b["rules"], key=_key)  # the workers' records reach the controller
    assert a["run"]["inputs"] and a["counts"] == b["counts"]


def test_scores_and_gates_are_items_and_findings_are_bounded(omfc: Any) -> None:
    s = make(omfc, score={"0005": "high", "0006": "nan"})
    out = s.root / "out" / "f.json"
    s.run("--omfc-findings-json", str(out), "--omfc-require", "AUC>=0.9", "--omfc-max-findings", "1")
    doc = _doc(out)
    (score01,) = [r for r in doc["rules"] if r["rule"] == "SCORE-01"]
    assert score01["outcome"] == "failed" and score01["errors"]["total"] == 2
    assert len(score01["errors"]["findings"]) == 1  # --omfc-max-findings, as the terminal
    assert score01["errors"]["findings"][0]["expected"] == "a finite real number"
    items = {i["item"]: i for i in doc["items"]}
    assert items["score::detection"]["outcome"] == "skipped" and not items["score::detection"]["metrics"]
    assert items["require::AUC>=0.9"]["outcome"] == "failed" and "AUC" in items["require::AUC>=0.9"]["message"]


def test_a_package_names_each_expid(pytester: pytest.Pytester) -> None:
    pkg = "NIST_NC17_DRYRUN17_5"
    shutil.copytree(EXAMPLES / "submissions" / "nc2017" / pkg, pytester.path / pkg)
    shutil.copytree(EXAMPLES / "datasets" / "NC2017", pytester.path / "NC2017")
    out = pytester.path / "f.json"
    pytester.inline_run("--omfc-submission", pkg, "--omfc-dataset", "NC2017", "-p", "no:cacheprovider",
                        "--omfc-findings-json", str(out))  # fmt: skip
    doc = _doc(out)
    expids = {r["expid"] for r in doc["rules"]}
    assert pkg in expids and len(expids) >= 3  # the package's own rules and each EXPID's


@pytest.mark.parametrize("where", ["submission", "fifo", "directory"])
def test_refused_where_the_run_must_not_write(pytester: pytest.Pytester, where: str) -> None:
    sub = pytester.path / BAD_STATUS.name
    shutil.copytree(BAD_STATUS, sub)
    target = {"submission": sub / "f.json", "fifo": pytester.path / "fifo", "directory": pytester.path}[where]
    if where == "fifo":
        os.mkfifo(target)
    res = pytester.runpytest(
        "--omfc-submission", str(sub), "--omfc-index", str(INDEX), "-p", "no:cacheprovider",
        "--omfc-findings-json", str(target),
    )  # fmt: skip
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    assert any(line.startswith("ERROR: --omfc-findings-json: ") for line in res.stderr.lines), res.stderr.lines
    assert sorted(p.name for p in sub.iterdir()) == sorted(p.name for p in BAD_STATUS.iterdir())


def test_a_scored_run_lists_each_score_item_with_its_metrics(omfc: Any) -> None:
    s = make(omfc)
    out = s.root / "out" / "f.json"
    s.run("--omfc-findings-json", str(out))
    items = {i["item"]: i for i in _doc(out)["items"]}
    detection = items["score::detection"]
    assert detection["outcome"] == "passed" and detection["metrics"]["AUC"] == 0.8125
    assert detection["metrics"]["count.targets"] == 4


def test_control_and_bidi_characters_are_stored_as_they_are(omfc: Any) -> None:
    """A hostile value is kept as it is in the JSON (which escapes it); the terminal shows it escaped."""
    hostile = "Pro\u202ecessed\x1b[2J"
    s = make(omfc, status={"0005": hostile})
    out = s.root / "out" / "f.json"
    res = s.run("--omfc-findings-json", str(out))
    raw = out.read_text(encoding="utf-8")
    assert "\x1b" not in raw and "\\u001b" in raw and "\\u202e" in raw  # escaped by JSON, not by us
    (status,) = [r for r in _doc(out)["rules"] if r["outcome"] == "failed" and r["rule"].startswith("STATUS")]
    (finding,) = status["errors"]["findings"]
    assert finding["value"] == hostile and finding["expected"].startswith("one of Processed")
    shown = res.text(status["rule"])  # the report the terminal and JUnit show: escaped
    assert "\x1b" not in shown and "\\x1b" in shown and "\\u202e" in shown
