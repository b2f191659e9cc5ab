"""Provenance scoring through the plugin (issue 11): ``<sub>::score::provenance``, options, outputs, bad input.

Every dataset is written inside the test (MFC2019 layout): one journal, the node table and the world
index beside the reference, system JSONs in the submission.  The graph-building case is the 4-node
journal A->B (PasteSplice), B->P (AntiForensic...), D->P (Donor) of docs/scoring/provenance.md#reference-graph: the
Donor link is
dropped (P has an incoming AntiForensic link), so D is isolated: Vr={A,B,P}, Er={A->B, B->P}.  The
system claims all 4 nodes and the 3 links: SimNO = 2*3/(3+4) = 6/7, SimLO = 2*2/(2+3) = 4/5,
SimNLO = 2*(3+2)/(3+4+2+3) = 10/12, NodeRecall = 3/3 = 1.
"""

from __future__ import annotations

import json
import math
import os
import resource
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from helpers.provenance import FULL, PROBE, ProvCase, _ranked, graph
from helpers.runs import psv


def props(res: Any, item: str = "provenance") -> dict[str, Any]:
    return dict(res.props[item])


# ---------------------------------------------------------------- graph building


def test_graph_building_hand_computed_numbers(omfc: Any) -> None:
    """The AntiForensic donor case end to end: user_properties, metrics JSON, per-trial columns, summary."""
    c = ProvCase(omfc, "provenance", FULL)
    res, doc = c.json()
    assert res.outcome("provenance") == "passed", res.text("provenance")
    p = props(res)
    assert (p["MeanSimNO"], p["MeanSimLO"], p["MeanNodeRecall"]) == (
        pytest.approx(6 / 7),
        pytest.approx(0.8),
        1.0,
    )
    assert p["MeanSimNLO"] == pytest.approx(10 / 12) and p["count.trials"] == 1
    [entry] = doc["results"]
    assert entry["scorer"] == "provenance-graph" and entry["query"] is None
    assert entry["metrics"]["MeanSimNLO"] == pytest.approx(10 / 12)
    [trial] = entry["per_trial"]
    assert (
        trial["JournalName"],
        trial["NumRefNodes"],
        trial["NumRefLinks"],
        trial["NumSysNodes"],
    ) == ("J1", 3, 2, 4)
    assert (
        trial["NumFalseAlarmNodes"],
        trial["NumFalseAlarmLinks"],
        trial["Direct"],
    ) == (1, 1, False)
    assert "mapping" not in trial
    assert doc["options"]["provenance"]["direct"] is False
    out = c.case.pytester.runpytest(*c.args)
    out.stdout.fnmatch_lines(["*omfc provenance scores*", "*graph*1*0.8333*0.8571*0.8000*1.0000*"])


def test_mappings_option_writes_node_and_link_mapping_tables_beside_the_metrics_json(omfc: Any) -> None:
    c = ProvCase(omfc, "provenance", FULL)
    out = c.root / "out"
    res = c.case.pytester.runpytest(
        *c.args, "--omfc-metrics-json", str(out / "metrics.json"), "--omfc-provenance-mappings"
    )
    assert res.ret == 0
    doc = json.loads((out / "metrics.json").read_text())
    entry = doc["results"][0]
    assert entry["tables"] == {"node_mapping": "metrics.node_mapping.csv", "link_mapping": "metrics.link_mapping.csv"}
    assert all("mapping" not in trial for trial in entry["per_trial"])  # no JSON record per mapping row
    node = pd.read_csv(out / "metrics.node_mapping.csv", sep="|", dtype=str)
    link = pd.read_csv(out / "metrics.link_mapping.csv", sep="|", dtype=str)
    assert set(node.columns) >= {"ProvenanceProbeFileID", "ProvenanceOutputFileName", "WorldFileID", "Mapping"}
    assert set(zip(node["WorldFileID"], node["Mapping"], strict=True)) == {
        ("wA", "Correct"),
        ("wB", "Correct"),
        (PROBE, "Correct"),
        ("wD", "FalseAlarm"),
    }
    links = sorted(zip(link["SourceWorldFileID"], link["TargetWorldFileID"], link["Mapping"], strict=True))
    assert links == [
        ("wA", "wB", "Correct"),
        ("wB", PROBE, "Correct"),
        ("wD", PROBE, "FalseAlarm"),
    ]
    res.stdout.fnmatch_lines([f"*node_mapping table: {out / 'metrics.node_mapping.csv'}*"])


def test_mappings_need_the_metrics_json(omfc: Any) -> None:
    c = ProvCase(omfc, "provenance", FULL)
    res = c.case.pytester.runpytest(*c.args, "--omfc-provenance-mappings")
    assert res.ret == 4
    res.stderr.fnmatch_lines(["*--omfc-provenance-mappings: must be given with --omfc-metrics-json*"])


def test_undirected_option(omfc: Any) -> None:
    """System reverses A->B: directed 1 of Er=2 links correct, SimLO = 2*1/(2+3) = 0.4; undirected 0.8."""
    c = ProvCase(
        omfc,
        "provenance",
        graph(["A", "B", "D", "P"], [("B", "A"), ("B", "P"), ("D", "P")]),
    )
    assert props(c.run())["MeanSimLO"] == pytest.approx(0.4)
    res, doc = c.json("--omfc-provenance-undirected")
    assert props(res)["MeanSimLO"] == pytest.approx(0.8)
    assert doc["results"][0]["undirected"] is True


def test_direct_option(omfc: Any) -> None:
    """A->P, P->F, A->S: direct keeps A->P and P->F only: Vr=3, Er=2 against Vs=4, Es=3 -> SimNO 6/7, SimLO 0.8."""
    nodes = [("A", "base"), ("S", "interim"), ("P", "interim"), ("F", "final")]
    links = [("A", "P", "Blur"), ("P", "F", "OutputPng"), ("A", "S", "Crop")]
    c = ProvCase(
        omfc,
        "provenance",
        graph(["A", "S", "P", "F"], [("A", "P"), ("P", "F"), ("A", "S")]),
        journal=nodes,
        links=links,
    )
    assert props(c.run())["MeanSimNLO"] == 1.0
    res, doc = c.json("--omfc-provenance-direct")
    p = props(res)
    assert (p["MeanSimNO"], p["MeanSimLO"]) == (
        pytest.approx(6 / 7),
        pytest.approx(0.8),
    )
    assert doc["results"][0]["per_trial"][0]["Direct"] is True


def test_system_cycle_is_scored_with_a_prov15_warning(omfc: Any) -> None:
    c = ProvCase(
        omfc,
        "provenance",
        graph(["A", "B", "D", "P"], [("A", "B"), ("B", "P"), ("P", "A")]),
    )
    res = c.run()
    assert res.outcome("provenance") == "passed"
    warnings = [v for k, v in res.props["provenance"] if k == "omfc.warning"]
    assert warnings == [f"trial {PROBE}: system graph has a cycle: scored as is (PROV-15)"]


def test_journal_cycle_fails_naming_the_journal(omfc: Any) -> None:
    c = ProvCase(omfc, "provenance", FULL, cyclic_journal=True)
    res = c.run()
    assert res.outcome("provenance") == "failed"
    first = res.first_line("provenance")
    assert first.startswith("score::provenance: ") and "j1.json" in first and "cycle" in first, first
    assert "Traceback" not in res.text("provenance")


def test_missing_system_json_fails_naming_the_trial(omfc: Any) -> None:
    c = ProvCase(omfc, "provenance", None)
    res = c.run()
    assert res.outcome("provenance") == "failed"
    first = res.first_line("provenance")
    assert first.startswith(
        f"score::provenance: 0 of 1 trials scored. 1 trial(s) could not be scored (trial {PROBE} 'jsons/s0.json': "
    ), first
    assert "PROV-02" in first


def test_malformed_system_json_fails_naming_the_trial(omfc: Any) -> None:
    c = ProvCase(omfc, "provenance", b'{"nodes": [}')
    res = c.run()
    first = res.first_line("provenance")
    assert res.outcome("provenance") == "failed" and f"trial {PROBE} 'jsons/s0.json'" in first, first


def test_node_table_option_and_missing_table(omfc: Any) -> None:
    """The node table is found by name beside the reference; elsewhere it needs --omfc-provenance-node."""
    c = ProvCase(omfc, "provenance", FULL)
    moved = c.node.rename(c.root / "elsewhere-node.csv")
    res = c.run()
    assert res.outcome("provenance") == "failed"
    assert res.first_line("provenance").startswith("score::provenance: provenance node table not found: ")
    assert "--omfc-provenance-node" in res.first_line("provenance")
    assert props(c.run("--omfc-provenance-node", str(moved)))["MeanSimNLO"] == pytest.approx(10 / 12)


def test_world_index_option(omfc: Any) -> None:
    """Without B in the world index B is absent and bypassed: Vr={A,P}, Er={A->P}; the system's B is a false alarm."""
    c = ProvCase(omfc, "provenance", FULL)
    other = omfc.write(
        "w2.csv",
        psv(
            ["TaskID", "WorldFileID", "WorldFileName"],
            [["provenance", "wA", "world/A.jpg"]],
        ),
    )
    p = props(c.run("--omfc-world-index", str(other)))
    assert p["MeanNodeRecall"] == 1.0 and p["MeanSimNO"] == pytest.approx(2 * 2 / (2 + 4))


def test_score_option_selects_provenance_and_a_query_fails(omfc: Any) -> None:
    c = ProvCase(omfc, "provenance", FULL)
    res = c.run("--omfc-score", "provenance")
    assert res.outcome("provenance") == "passed"
    res = c.run("--omfc-query", "JournalName=='J1'")
    assert res.outcome("provenance[q1]") == "failed"
    assert res.first_line("provenance[q1]").startswith("score::provenance: provenance scoring takes no query")
    # a lone "*" is MediScore's "all" (docs/scoring/temporal.md#definition): the same numbers as without a query
    plain = props(c.run())
    star = c.run("--omfc-query", "*")
    assert star.outcome("provenance[q1]") == "passed"
    assert props(star, "provenance[q1]")["MeanSimNLO"] == plain["MeanSimNLO"]


# ---------------------------------------------------------------- filtering


def test_filtering_node_types_end_to_end(omfc: Any) -> None:
    """Ref nodes A(base), B(interim), D(donor), probe; D at rank 55: donor R@50 0, R@100 1; overall R@50 3/4."""
    c = ProvCase(omfc, "provenancefiltering", _ranked(55))
    res, doc = c.json()
    assert res.outcome("provenance") == "passed", res.text("provenance")
    [entry] = doc["results"]
    assert (entry["scorer"], entry["node_type"]) == ("provenance-filtering", "all")
    assert entry["metrics"] == {
        "NodeRecallAt50": 0.75,
        "NodeRecallAt100": 1.0,
        "NodeRecallAt200": 1.0,
        "NodeRecallAt300": 1.0,
    }
    assert entry["per_trial"][0]["NumRefNodes"] == 4 and entry["per_trial"][0]["NumSysNodes"] == 64
    res, doc = c.json("--omfc-node-type", "donor", "--omfc-node-type", "base")
    assert [e["node_type"] for e in doc["results"]] == ["donor", "base"]
    assert (
        doc["results"][0]["metrics"]["NodeRecallAt50"] == 0.0 and doc["results"][0]["metrics"]["NodeRecallAt100"] == 1.0
    )
    p = props(res)
    assert (p["donor.NodeRecallAt50"], p["base.NodeRecallAt50"]) == (0.0, 1.0)
    _, doc = c.json("--omfc-node-type", "all")
    assert [e["node_type"] for e in doc["results"]] == [
        "all",
        "donor",
        "base",
        "final",
        "interim",
    ]
    final = doc["results"][3]["metrics"]["NodeRecallAt50"]
    assert final is None  # no final reference node besides the probe (counted only in the overall result)


def test_filtering_mappings_and_bad_node_type(omfc: Any) -> None:
    c = ProvCase(omfc, "provenancefiltering", _ranked(55))
    _, doc = c.json("--omfc-provenance-mappings")
    assert doc["results"][0]["tables"] == {"node_mapping": "metrics.node_mapping.csv"}
    nodes = pd.read_csv(c.root / "out" / "metrics.node_mapping.csv", sep="|", dtype=str)
    at50 = nodes[(nodes["Measure"] == "NodeRecallAt50") & (nodes["WorldFileID"] == "wD")]
    assert set(at50["Mapping"]) == {"Missing"}
    out = c.case.pytester.runpytest(*c.args, "--omfc-node-type", "probe")
    assert out.ret == 4
    out.stderr.fnmatch_lines(["*--omfc-node-type: invalid choice: 'probe'*"])


# ---------------------------------------------------------------- hostile input


def test_oversize_sparse_system_json_fails_fast_without_memory(omfc: Any, tmp_path: Path) -> None:
    """A 4 GB (sparse) system JSON: the trial fails naming it, under a 3 GB address-space cap and 120 s."""
    c = ProvCase(omfc, "provenance", b"{}")
    big = c.case.submission / "jsons" / "s0.json"
    with big.open("r+b") as fh:
        fh.truncate(4 << 30)
    junit = tmp_path / "j.xml"

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (3_000_000_000, 3_000_000_000))

    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", *c.args, "--rootdir", str(c.root), f"--junitxml={junit}", "-q"],
        check=False,
        cwd=c.root,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=cap,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert time.monotonic() - start < 120
    assert "INTERNALERROR" not in proc.stdout + proc.stderr and "MemoryError" not in proc.stdout
    cases = {c.get("name", ""): c for c in ET.fromstring(junit.read_text()).iter("testcase")}
    case = cases["provenance"]  # JUnit names the item by its last "::" part
    failure = case.find("failure")
    assert failure is not None
    first = (failure.text or failure.get("message") or "").splitlines()[0]
    assert first.startswith(
        f"score::provenance: 0 of 1 trials scored. 1 trial(s) could not be scored (trial {PROBE} 'jsons/s0.json': "
    ), first
    assert "must be a provenance JSON of at most 64 MB (got 4096.0 MB)" in first


# ---------------------------------------------------------------- conformance


def _conformance_run(
    pytester: pytest.Pytester, ts: Path, system_index: str, task: str, *extra: str
) -> list[dict[str, Any]]:
    """Copy a MediScore system index and its JSONs into a submission; score it in place against test_case_2."""
    sub = pytester.path / "p-conf_1"
    system = ts / system_index
    sub.mkdir()
    (sub / "p-conf_1.csv").write_text(system.read_text())
    for line in system.read_text().splitlines()[1:]:
        rel = line.split("|")[1]
        (sub / rel).parent.mkdir(parents=True, exist_ok=True)
        (sub / rel).write_bytes((ts / rel).read_bytes())
    (sub / "p-conf_1.txt").write_text("x\n")
    out = pytester.path / "m.json"
    rec = pytester.inline_run(
        "--omfc-submission",
        str(sub),
        "--omfc-index",
        str(ts / "test_case_2-provenancegraphbuilding-index.csv"),
        "--omfc-task",
        task,
        "--omfc-edition",
        "MFC2019",
        "--rootdir",
        str(pytester.path),
        "--omfc-reference",
        str(ts / "test_case_2-provenance-ref.csv"),
        "-p",
        "no:cacheprovider",
        "--omfc-world-index",
        str(ts / "test_case_2-provenancegraphbuilding-world.csv"),
        "--omfc-metrics-json",
        str(out),
        *extra,
    )
    reps = rec.getreports("pytest_runtest_logreport")
    rep = next(r for r in reps if r.when == "call" and r.nodeid.endswith("score::provenance"))
    assert rep.passed, rep.longrepr
    results: list[dict[str, Any]] = json.loads(out.read_text())["results"]
    return results


def _checkfile(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        pytest.skip(f"checkfile missing: {path}")
    head, *rows = [line.split("|") for line in path.read_text().splitlines() if line]
    return [dict(zip(head, r, strict=True)) for r in rows]


def test_conformance_test_2_1_through_the_plugin(pytester: pytest.Pytester, conformance: Path) -> None:
    """MediScore's test_2_1 (checkfiles/test_2_1/scores.csv: MeanSimNLO 0.545454545455) through the plugin."""
    ts = conformance / "provenanceScorerTests"
    [want] = _checkfile(ts / "checkfiles" / "test_2_1" / "scores.csv")
    [entry] = _conformance_run(pytester, ts, "test_case_2-system_output_1_index.csv", "provenance")
    for k in ("MeanSimNLO", "MeanSimNO", "MeanSimLO", "MeanNodeRecall"):
        assert math.isclose(entry["metrics"][k], float(want[k]), abs_tol=1e-9), (
            k,
            entry["metrics"][k],
            want[k],
        )


def test_conformance_filtering_test_1_b_through_the_plugin(pytester: pytest.Pytester, conformance: Path) -> None:
    """MediScore's filtering_test_1_b (--nodetype all; interim NodeRecallAt50 0.454545454545) through the plugin."""
    ts = conformance / "provenanceScorerTests"
    want = {r["NodeType"].lower(): r for r in _checkfile(ts / "checkfiles" / "filtering_test_1_b" / "scores.csv")}
    got = _conformance_run(
        pytester,
        ts,
        "test_case_2-filtering-system_output_1_index.csv",
        "provenancefiltering",
        "--omfc-node-type",
        "all",
    )
    assert [e["node_type"] for e in got] == ["all", "donor", "base", "final", "interim"]
    for e in got:
        for k, v in e["metrics"].items():
            assert math.isclose(v, float(want[e["node_type"]][k]), abs_tol=1e-9), (
                e["node_type"],
                k,
                v,
            )


def test_a_side_table_never_overwrites_a_file_the_run_reads(tmp_path: Path) -> None:
    """The up-front guard knows a single submission's table names; an EXPID's (``<stem>-<EXPID>.<name>.csv``)
    are known when written: one that is a file the run reads (or a link to one) is not written, and the
    run's errors say so."""
    from pytest_omfc.pytest_glue.scoring import _side_tables

    metrics = tmp_path / "out" / "m.json"
    metrics.parent.mkdir()
    read = tmp_path / "world.csv"
    read.write_text("WorldFileID|WorldFileName\n")
    (metrics.parent / "m-NIST_NC17_X_Provenance_ImgOnly_p-a_1.node_mapping.csv").symlink_to(read)
    entry = {"scorer": "provenance-graph", "tables": {"node_mapping": "a,b\n", "link_mapping": "c,d\n"}}
    doc = {"package": "P", "expids": [{"submission": "NIST_NC17_X_Provenance_ImgOnly_p-a_1", "results": [entry]}]}
    written: list[str] = []
    errors: list[str] = []
    out = _side_tables(doc, metrics, written, errors, [], [read])
    assert read.read_text() == "WorldFileID|WorldFileName\n"
    link = metrics.parent / "m-NIST_NC17_X_Provenance_ImgOnly_p-a_1.node_mapping.csv"
    assert errors == [
        f"--omfc-metrics-json: the node_mapping table must not be a symbolic link (got {link}, a link to {read})"
    ]
    (result,) = out["expids"][0]["results"]
    assert result["tables"] == {"link_mapping": "m-NIST_NC17_X_Provenance_ImgOnly_p-a_1.link_mapping.csv"}
    assert (metrics.parent / "m-NIST_NC17_X_Provenance_ImgOnly_p-a_1.link_mapping.csv").read_text() == "c,d\n"
