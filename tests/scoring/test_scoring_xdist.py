"""Scoring under pytest-xdist: the controller alone writes the metrics JSON and the plots, once, in query order.

Workers score the items they run and ship each result on its report; an audit
hook (``sys.addaudithook``, "open" and "os.mkdir" events) in every worker
records any write into the output directory, so the test sees a worker write
however it would be made.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers.detection import make
from helpers.xdist import WATCH_CONFTEST

QUERIES = ["Collection==['A']", "Collection==['B']", "IsTarget==['Y']", "Purpose==['remove'] or IsTarget==['N']"]


def test_controller_writes_json_and_plots_once(omfc: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    s = make(omfc)
    out_dir, log = s.root / "out", s.root / "log"
    log.mkdir()
    monkeypatch.setenv("OMFC_WATCH", str(out_dir))
    monkeypatch.setenv("OMFC_LOG", str(log))
    omfc.write("conftest.py", WATCH_CONFTEST)
    js = out_dir / "metrics.json"
    args = [a for q in QUERIES for a in ("--omfc-query", q)]
    res = s.case.pytester.runpytest_subprocess(
        *s.args(*args, "--omfc-metrics-json", str(js), "--omfc-plots", str(out_dir / "plots")), "-n", "2"
    )
    res.stdout.fnmatch_lines(["*omfc detection scores*", "*q1*2*2*0.7500*", "*omfc: wrote metrics JSON:*"])
    assert sorted(p.name for p in log.iterdir()) == ["gw0.txt", "gw1.txt"]  # both workers were watched
    assert [p.read_text() for p in sorted(log.iterdir())] == ["", ""]  # and neither wrote
    doc = json.loads(js.read_text(encoding="utf-8"))
    assert [r["query"] for r in doc["results"]] == QUERIES
    assert [r["metrics"] and r["metrics"]["AUC"] for r in doc["results"]] == [0.75, 1.0, None, 0.75]
    assert doc["results"][2]["skipped"].endswith(
        "no non-target trials (targets=4, non-targets=0); AUC and EER are undefined"
    )
    assert sorted(p.name for p in (out_dir / "plots").iterdir()) == ["det.png", "det.svg", "roc.png", "roc.svg"]
