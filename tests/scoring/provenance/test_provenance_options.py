"""Provenance scoring through the plugin: the issue-11 "done when" cases that test_provenance_scoring_plugin.py
does not already hold (reduction of an absent node with several parents and children, filtering ranks on both
sides of every n, bad graphs), each with hand-computed numbers read from the metrics JSON.

Datasets come from test_provenance_scoring_plugin.ProvCase (one probe ``P``, journal nodes ``world/<id>.jpg``).
"""

from __future__ import annotations

from typing import Any

import pytest
from helpers.provenance import FULL, PROBE, ProvCase, _file, graph


def _warnings(res: Any) -> list[str]:
    return [v for k, v in res.props["provenance"] if k == "omfc.warning"]


def test_absent_node_with_two_parents_and_two_children_is_bypassed(omfc: Any) -> None:
    """A->X, B->X, X->P, X->Q with X absent (no node-table row): bypass gives A->P, A->Q, B->P, B->Q.
    Vr = {A,B,P,Q} (4), Er = 4.  The system has the 4 nodes and A->P, B->P, A->Q (3 links, all correct):
    SimNO = 2*4/(4+4) = 1, SimLO = 2*3/(4+3) = 6/7, SimNLO = 2*(4+3)/(4+4+4+3) = 14/15, NodeRecall = 4/4."""
    journal = [("A", "base"), ("B", "donor"), ("X", "interim"), ("P", "final"), ("Q", "final")]
    links = [("A", "X", "Blur"), ("B", "X", "Donor"), ("X", "P", "Crop"), ("X", "Q", "OutputPng")]
    c = ProvCase(
        omfc,
        "provenance",
        graph(["A", "B", "P", "Q"], [("A", "P"), ("B", "P"), ("A", "Q")]),
        journal=journal,
        links=links,
        present=["A", "B", "Q"],
    )
    res, doc = c.json()
    assert res.outcome("provenance") == "passed", res.text("provenance")
    [entry] = doc["results"]
    assert entry["metrics"] == {
        "MeanSimNLO": pytest.approx(14 / 15),
        "MeanSimNO": 1.0,
        "MeanSimLO": pytest.approx(6 / 7),
        "MeanNodeRecall": 1.0,
    }
    t = entry["per_trial"][0]
    assert (t["NumRefNodes"], t["NumRefLinks"], t["NumMissingLinks"]) == (4, 4, 1)


def _ranked_at(rank: int) -> dict[str, Any]:
    """A filtering JSON of 310 nodes: P, A, B first, D at 1-based ``rank``, fillers elsewhere (distinct scores)."""
    names = ["P", "A", "B"] + [f"f{i}" for i in range(306)]
    names.insert(rank - 1, "D")
    return {
        "nodes": [
            {
                "id": str(i),
                "file": f"world/{n}.jpg" if n.startswith("f") else _file(n),
                "fileid": n,
                "nodeConfidenceScore": 1000 - i,
            }
            for i, n in enumerate(names)
        ]
    }


@pytest.mark.parametrize("rank", [50, 51, 100, 101, 200, 201, 300, 301])
def test_filtering_rank_on_each_side_of_n(omfc: Any, rank: int) -> None:
    """Reference {P, A, B, D}; P, A, B are ranks 1-3, donor D at ``rank``: D counts for @n iff rank <= n.
    donor: NodeRecallAt{n} = [rank <= n]; overall: (3 + [rank <= n]) / 4, e.g. rank 51: @50 = 3/4, @100 = 1."""
    c = ProvCase(omfc, "provenancefiltering", _ranked_at(rank))
    res, doc = c.json("--omfc-node-type", "all")
    assert res.outcome("provenance") == "passed", res.text("provenance")
    by_type = {e["node_type"]: e["metrics"] for e in doc["results"]}
    ns = (50, 100, 200, 300)
    assert by_type["donor"] == {f"NodeRecallAt{n}": float(rank <= n) for n in ns}
    assert by_type["all"] == {f"NodeRecallAt{n}": (3 + (rank <= n)) / 4 for n in ns}
    assert by_type["base"] == {f"NodeRecallAt{n}": 1.0 for n in ns}  # A at rank 2


def test_unresolved_system_link_index_fails_naming_trial_and_link(omfc: Any) -> None:
    """A link whose target is not an index into nodes (PROV-09): the trial is not scored, no traceback."""
    doc = graph(["A", "B", "D", "P"], [("A", "B")])
    doc["links"][0]["target"] = 7
    res = ProvCase(omfc, "provenance", doc).run()
    assert res.outcome("provenance") == "failed"
    assert res.first_line("provenance") == (
        f"score::provenance: 0 of 1 trials scored. 1 trial(s) could not be scored (trial {PROBE} 'jsons/s0.json': "
        "jsons/s0.json: "
        "links[0].target must be a node index in [0, 4) (got 7): trial not scored (PROV-02))"
    )
    assert "Traceback" not in res.text("provenance")


def test_node_table_id_missing_from_the_journal_is_a_warning(omfc: Any) -> None:
    """A node-table JournalNodeID the journal lacks is ignored with a warning; the numbers stay (SimNLO 10/12)."""
    c = ProvCase(omfc, "provenance", FULL)
    with c.node.open("a") as fh:
        fh.write(f"{PROBE}|wG|world/G.jpg|G\n")
    res, doc = c.json()
    assert res.outcome("provenance") == "passed", res.text("provenance")
    assert doc["results"][0]["metrics"]["MeanSimNLO"] == pytest.approx(10 / 12)
    want = (
        f"trial {PROBE}: node table JournalNodeID ['G'] not in journal reference/provenance/journals/j1.json: ignored"
    )
    assert _warnings(res) == [want]


def test_empty_system_graph_scores_zero_with_a_warning(omfc: Any) -> None:
    """No nodes, no links: Vs = Es = 0 against Vr = 3, Er = 2: SimNO = 0/3 = 0, SimLO = 0/2 = 0, NodeRecall 0."""
    res, doc = ProvCase(omfc, "provenance", {"directed": True, "nodes": [], "links": []}).json()
    assert res.outcome("provenance") == "passed", res.text("provenance")
    assert doc["results"][0]["metrics"] == {
        "MeanSimNLO": 0.0,
        "MeanSimNO": 0.0,
        "MeanSimLO": 0.0,
        "MeanNodeRecall": 0.0,
    }
    assert _warnings(res) == [f"trial {PROBE}: system graph is empty: scored as is"]


def test_empty_filtering_list_scores_zero_with_a_warning(omfc: Any) -> None:
    res, doc = ProvCase(omfc, "provenancefiltering", {"nodes": []}).json()
    assert res.outcome("provenance") == "passed", res.text("provenance")
    assert doc["results"][0]["metrics"]["NodeRecallAt300"] == 0.0
    assert _warnings(res) == [f"trial {PROBE}: system output has no nodes: scored as is"]


def test_missing_filtering_json_fails_naming_the_trial(omfc: Any) -> None:
    res, doc = ProvCase(omfc, "provenancefiltering", None).json()
    assert res.outcome("provenance") == "failed"
    first = res.first_line("provenance")
    assert first.startswith(
        f"score::provenance: 0 of 1 trials scored. 1 trial(s) could not be scored (trial {PROBE} 'jsons/s0.json': "
    ), first
    # the rules' verdict (PROV-02) reaches the scorer: the trial is not scored, naming the rule (issue 17)
    assert "'jsons/s0.json': PROV-02: p-test_1/jsons/s0.json must name an existing JSON file" in first, first
    assert first.endswith("trial not scored)") and "Traceback" not in res.text("provenance")
    assert doc["results"][0]["not_scored"][0]["ProvenanceProbeFileID"] == PROBE
