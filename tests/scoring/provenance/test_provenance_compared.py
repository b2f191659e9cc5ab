"""Provenance runs compared trial by trial (docs/scoring/comparison.md): graph building's Mean* metrics are the
means of each trial's values, and a run compared with itself differs by nothing."""

from __future__ import annotations

import shutil
from typing import Any

from helpers.provenance import FULL, ProvCase, graph


def test_a_provenance_graph_run_compared_with_itself_and_with_another(omfc: Any) -> None:
    c = ProvCase(omfc, "provenance", FULL)
    _, base_doc = c.json()
    base = c.root / "baseline.json"
    shutil.copy(c.root / "out" / "metrics.json", base)
    _, same = c.json("--omfc-baseline", str(base))
    (entry,) = same["results"]
    assert sorted(entry["comparison"]) == ["MeanNodeRecall", "MeanSimLO", "MeanSimNLO", "MeanSimNO"]
    assert {m: (r["difference"], r["p_value"], r["trials"]) for m, r in entry["comparison"].items()} == dict.fromkeys(
        entry["comparison"], (0.0, 1.0, 1)
    )
    worse = ProvCase(omfc, "provenance", graph(["A", "P"], [("A", "P")]))
    _, doc = worse.json("--omfc-baseline", str(base))
    (entry,) = doc["results"]
    recall = entry["comparison"]["MeanNodeRecall"]
    assert recall["difference"] < 0
    assert (
        recall["difference"]
        == entry["per_trial"][0]["NodeRecall"] - base_doc["results"][0]["per_trial"][0]["NodeRecall"]
    )


def test_a_gate_on_a_difference_reads_provenance_graph_results(omfc: Any) -> None:
    """The entries name themselves provenance-graph: the gate finds their family's worse side and compares."""
    c = ProvCase(omfc, "provenance", FULL)
    c.json()
    base = c.root / "baseline.json"
    shutil.copy(c.root / "out" / "metrics.json", base)
    res = c.run("--omfc-baseline", str(base), "--omfc-require", "provenance:MeanSimNLO not worse")
    assert res.outcome("provenance:MeanSimNLO not worse") == "passed", res.text("provenance:MeanSimNLO not worse")
