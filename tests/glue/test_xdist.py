"""pytest-xdist: ``-n 2`` gives the same verdicts as a single process, and each worker parses once."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from helpers.columns import layout_case
from helpers.plugin import COUNTER

IDS = ["0042", "0043", "0044", "0045"]


def verdicts(path: Path) -> dict[str, tuple[str, str, bool]]:
    """Rule ID -> (outcome, message, has a warning) from a JUnit XML file."""
    out: dict[str, tuple[str, str, bool]] = {}
    for tc in ET.parse(path).getroot().iter("testcase"):
        outcome, message = "passed", ""
        for tag in ("failure", "error", "skipped"):
            node = tc.find(tag)
            if node is not None:
                outcome, message = (
                    {"failure": "failed", "error": "error", "skipped": "skipped"}[tag],
                    node.get("message", ""),
                )
        warned = any(p.get("name") == "omfc.warning" for p in tc.iter("property"))
        out[tc.get("name", "")] = (outcome, message, warned)
    return out


def test_xdist_gives_the_same_verdicts(omfc, pytester):
    """Failures, skips, passes, their messages and the warnings are the same with and without -n 2."""
    # a duplicated key, a missing trial, a ragged row, quoted values, a placeholder mask name
    trials = [{"ProbeFileID": i} for i in ("0042", "0042", "0043")]
    case = layout_case(omfc, trials=trials, index_trials=[{"ProbeFileID": i} for i in IDS])
    csv = case.submission / "p-test_1.csv"
    text = csv.read_text().replace("0043|0.5||", '"0043"|0.5|NaN|', 1) + "0044|0.5\n"
    csv.write_text(text)
    pytester.makeconftest(COUNTER)

    single = pytester.runpytest_subprocess(
        *case.args, "-p", "no:cacheprovider", f"--junitxml={pytester.path / 'one.xml'}"
    )
    assert sorted(json.loads(pytester.path.joinpath("calls-main.json").read_text())) == [
        "OpenMFC20_Image-IMDL-index.csv",
        "p-test_1.csv",
    ]
    parallel = pytester.runpytest_subprocess(
        *case.args, "-p", "no:cacheprovider", "-n", "2", f"--junitxml={pytester.path / 'two.xml'}"
    )
    assert single.ret == parallel.ret == 1
    one, two = verdicts(pytester.path / "one.xml"), verdicts(pytester.path / "two.xml")
    assert one == two
    assert one["IDX-06"][0] == "failed" and one["IDX-06"][1].startswith("IDX-06: the system output does not match")
    assert one["CSV-03"] == ("failed", "CSV-03: 1 record has the wrong number of fields (showing 1)", False)
    assert one["CSV-04"] == ("passed", "", True) and one["CSV-05"] == ("passed", "", True)
    assert {o for o, _, _ in one.values()} >= {"passed", "failed"}
    for out in (single, parallel):
        out = out.stdout.str() + out.stderr.str()
        assert "Traceback" not in out and "INTERNALERROR" not in out

    # one parse of the system output and one of the index per worker; the controller parses nothing
    counts = {p.name: json.loads(p.read_text()) for p in pytester.path.glob("calls-gw*.json")}
    assert sorted(counts) == ["calls-gw0.json", "calls-gw1.json"]
    for calls in counts.values():
        assert len(calls) == len(set(calls)) and set(calls) <= {"OpenMFC20_Image-IMDL-index.csv", "p-test_1.csv"}, calls
    assert any(counts.values())
    # now written by the -n 2 controller
    assert json.loads(pytester.path.joinpath("calls-main.json").read_text()) == []
