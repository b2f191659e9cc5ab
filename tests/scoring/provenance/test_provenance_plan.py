"""``--omfc-convention plan`` for provenance scoring (docs/scoring/conventions.md; conventions.py's provenance rows).

Each switched point is checked twice: at engine level (the pure functions of
``pytest_omfc.scoring.provenance``) and once through the plugin, where the
metrics JSON shows the other number.  ``mediscore`` stays the default; its
numbers are the ones of test_provenance_scoring_plugin.py (and the checkfiles).

The datasets are those of test_provenance_scoring_plugin.py: journal A->B
(PasteSplice), B->P (AntiForensic...), D->P (Donor, voided by the AntiForensic
link into P), all four nodes present.
"""

from __future__ import annotations

from typing import Any

import pytest
from helpers.provenance import FULL, ProvCase, _ranked, graph

from pytest_omfc.scoring.provenance import filter_trial, reference_graph, system_graph
from pytest_omfc.scoring.provenance.graph import (
    match_graphs,
    parse_journal,
    restrict_direct,
)


def _journal(nodes: list[str], links: list[tuple[str, str, str]]) -> Any:
    ids = list(nodes)
    doc = {
        "nodes": [{"id": n, "nodetype": "interim"} for n in ids],
        "links": [{"source": ids.index(s), "target": ids.index(t), "op": op} for s, t, op in links],
    }
    return parse_journal(doc, "j.json")


def _sys(nodes: list[str], links: list[tuple[str, str]]) -> Any:
    return system_graph(
        {
            "nodes": [{"file": n} for n in nodes],
            "links": [{"source": nodes.index(s), "target": nodes.index(t)} for s, t in links],
        },
        "s.json",
    )


# ---------------------------------------------------------------- engine level


def test_isolated_present_nodes_count_only_under_plan() -> None:
    """Donor D loses its only link (AntiForensic into P): MediScore Vr = {A,B,P}; plan Vr = {A,B,D,P}."""
    j = _journal(["A", "B", "D", "P"], [("A", "B", "PasteSplice"), ("B", "P", "AntiForensicCrop"), ("D", "P", "Donor")])
    present = {n: n for n in "ABDP"}
    ms = reference_graph(j, present, "P", direct=False)
    plan = reference_graph(j, present, "P", direct=False, convention="plan")
    assert ms.nodes == {"A", "B", "P"} and plan.nodes == {"A", "B", "D", "P"}
    assert ms.links == plan.links == {("A", "B"), ("B", "P")}


def test_siblings_of_an_absent_root_count_under_plan() -> None:
    """X (absent) -> B, X -> P: bypassing X leaves no link, so MediScore's Vr is empty (scores NaN); plan {B, P}."""
    j = _journal(["X", "B", "P"], [("X", "B", "Crop"), ("X", "P", "Blur")])
    present = {"B": "B", "P": "P"}
    assert reference_graph(j, present, "P", direct=False).nodes == frozenset()
    plan = reference_graph(j, present, "P", direct=False, convention="plan")
    assert plan.nodes == {"B", "P"} and plan.links == frozenset()
    # the system claims B and P, no link: plan SimNO = 2*2/(2+2) = 1, SimLO = 0/0 = NaN,
    # SimNLO = 2*(2+0)/(2+2+0+0) = 1
    m = match_graphs(plan, _sys(["B", "P"], []), undirected=False).metrics()
    assert m["SimNO"] == 1.0 and m["SimNLO"] == 1.0 and m["SimLO"] != m["SimLO"]


def test_direct_plan_counts_the_probe_and_its_directed_relatives_only() -> None:
    """A->P, P->F, A->S: direct keeps A->P, P->F; plan adds no isolated node but the probe; S is not counted."""
    j = _journal(["A", "S", "P", "F"], [("A", "P", "Blur"), ("P", "F", "OutputPng"), ("A", "S", "Crop")])
    present = {n: n for n in "ASPF"}
    for conv in ("mediscore", "plan"):
        rg = reference_graph(j, present, "P", direct=True, convention=conv)  # type: ignore[arg-type]
        assert rg.nodes == {"A", "P", "F"} and rg.links == {("A", "P"), ("P", "F")}
    lone = _journal(["P", "Q"], [])  # a probe without any link
    assert reference_graph(lone, {"P": "P", "Q": "Q"}, "P", direct=True, convention="plan").nodes == {"P"}
    assert reference_graph(lone, {"P": "P", "Q": "Q"}, "P", direct=False, convention="plan").nodes == {"P", "Q"}


def test_restrict_direct_keeps_the_system_probe_paths() -> None:
    """System A->P, P->F, A->S, X->S: from P up A->P, down P->F; S and X and their links go."""
    sg = _sys(["A", "S", "P", "F", "X"], [("A", "P"), ("P", "F"), ("A", "S"), ("X", "S")])
    d = restrict_direct(sg, "P")
    assert d.nodes == {"A", "P", "F"} and d.links == {("A", "P"), ("P", "F")}
    # MediScore's direct scores against the whole system graph: Vr=3, Er=2, Vs=5, Es=4 ->
    # SimNO = 2*3/(3+5) = 0.75; plan: Vs=3, Es=2 -> SimNO = SimLO = 1
    rg = reference_graph(
        _journal(["A", "P", "F"], [("A", "P", "Blur"), ("P", "F", "Crop")]), {n: n for n in "APF"}, "P", True
    )
    assert match_graphs(rg, sg, False).metrics()["SimNO"] == 0.75
    assert match_graphs(rg, d, False).metrics() == {"SimNLO": 1.0, "SimNO": 1.0, "SimLO": 1.0, "NodeRecall": 1.0}
    assert restrict_direct(_sys(["A", "B"], [("A", "B")]), "P").nodes == frozenset()  # no probe: empty


def test_filter_trial_exclude_keeps_rank_and_is_no_false_alarm() -> None:
    """Ranked P, A, f1, B: at n=2 MediScore (ref A,B,P) has 2 correct of 3; plan (ref A,B, P excluded) 1 of 2."""
    ranked = ["P", "A", "f1", "B"]
    ms = filter_trial(["A", "B", "P"], ["base", "donor", "probe"], ranked, ns=(2, 4))
    plan = filter_trial(["A", "B"], ["base", "donor"], ranked, ns=(2, 4), exclude={"P"})
    assert (ms.num_ref_nodes, ms.correct, ms.false_alarm) == (3, (2, 3), (0, 1))
    assert (plan.num_ref_nodes, plan.correct, plan.false_alarm) == (2, (1, 2), (0, 1))
    assert plan.recalls() == (0.5, 1.0) and ms.recalls() == (round(2 / 3, 12), 1.0)


# ---------------------------------------------------------------- through the plugin


def test_plan_counts_the_isolated_donor_in_the_metrics_json(omfc: Any) -> None:
    """Vr = {A,B,D,P} (4), Er = 2, Vs = 4, Es = 3, 4 nodes and 2 links correct:
    SimNO = 2*4/(4+4) = 1, SimLO = 2*2/(2+3) = 0.8, SimNLO = 2*(4+2)/(4+4+2+3) = 12/13, NodeRecall = 4/4.
    MediScore (default): Vr = 3: SimNO 6/7, SimNLO 10/12."""
    c = ProvCase(omfc, "provenance", FULL)
    _, doc = c.json()
    assert doc["results"][0]["metrics"]["MeanSimNO"] == pytest.approx(6 / 7)
    res, doc = c.json("--omfc-convention", "plan")
    assert res.outcome("provenance") == "passed", res.text("provenance")
    [entry] = doc["results"]
    assert entry["metrics"] == {
        "MeanSimNLO": pytest.approx(12 / 13),
        "MeanSimNO": 1.0,
        "MeanSimLO": 0.8,
        "MeanNodeRecall": 1.0,
    }
    assert entry["per_trial"][0]["NumRefNodes"] == 4 and entry["per_trial"][0]["NumFalseAlarmNodes"] == 0


def test_plan_direct_restricts_the_system_graph_in_the_metrics_json(omfc: Any) -> None:
    """Journal A->P, P->F, A->S; system the same.  Direct, MediScore: Vr=3, Er=2 vs Vs=4, Es=3:
    SimNO = 2*3/(3+4) = 6/7, SimLO = 2*2/(2+3) = 0.8.  Plan: the system is cut to A->P, P->F (Vs=3, Es=2): all 1."""
    nodes = [("A", "base"), ("S", "interim"), ("P", "interim"), ("F", "final")]
    links = [("A", "P", "Blur"), ("P", "F", "OutputPng"), ("A", "S", "Crop")]
    c = ProvCase(
        omfc,
        "provenance",
        graph(["A", "S", "P", "F"], [("A", "P"), ("P", "F"), ("A", "S")]),
        journal=nodes,
        links=links,
    )
    _, doc = c.json("--omfc-provenance-direct")
    assert doc["results"][0]["metrics"]["MeanSimNO"] == pytest.approx(6 / 7)
    _, doc = c.json("--omfc-provenance-direct", "--omfc-convention", "plan")
    [entry] = doc["results"]
    assert entry["metrics"] == {"MeanSimNLO": 1.0, "MeanSimNO": 1.0, "MeanSimLO": 1.0, "MeanNodeRecall": 1.0}
    t = entry["per_trial"][0]
    assert (t["NumSysNodes"], t["NumSysLinks"], t["Direct"]) == (3, 2, True)


def test_plan_filtering_leaves_out_the_probe(omfc: Any) -> None:
    """Ranked P, A, B, 47 fillers, ..., D at rank 55.  MediScore: ref {P,A,B,D}, @50 = 3/4.
    Plan: ref {A,B,D}, @50 = 2/3 (D is 55th), @100 = 3/3; the probe is no false alarm: FA@50 = 50-3 = 47.
    Per node type (donor) the same in both: @50 = 0, @100 = 1."""
    c = ProvCase(omfc, "provenancefiltering", _ranked(55))
    _, doc = c.json("--omfc-node-type", "all")
    assert doc["results"][0]["metrics"]["NodeRecallAt50"] == 0.75
    res, doc = c.json("--omfc-node-type", "all", "--omfc-convention", "plan")
    assert res.outcome("provenance") == "passed", res.text("provenance")
    overall, donor = doc["results"][0], doc["results"][1]
    assert overall["metrics"] == {
        "NodeRecallAt50": round(2 / 3, 12),
        "NodeRecallAt100": 1.0,
        "NodeRecallAt200": 1.0,
        "NodeRecallAt300": 1.0,
    }
    t = overall["per_trial"][0]
    assert (t["NumRefNodes"], t["NumCorrectNodesAt50"], t["NumFalseAlarmNodesAt50"]) == (3, 2, 47)
    assert donor["node_type"] == "donor" and (
        donor["metrics"]["NodeRecallAt50"],
        donor["metrics"]["NodeRecallAt100"],
    ) == (0.0, 1.0)
