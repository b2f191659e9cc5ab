"""Engine-level checks of the faster provenance paths (benchmarks/score_provenance.py): same results as before.

* the reduction by memoised present frontiers equals MediScore's node-by-node bypass on random DAGs;
* the integer cycle check agrees with the cycle finder (duplicate files, self-loops);
* filtering counts from one pass over the ranked list equal a direct count, duplicates included;
* mapping tables are built only when asked, and the scores do not depend on it;
* a confidence that is an integer past float range, or a number past the digit limit, is a per-trial reason.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from pytest_omfc.jsonio import JsonProblem, load_json
from pytest_omfc.scoring.provenance import (
    filter_trial,
    score_filtering,
    score_graph_building,
)
from pytest_omfc.scoring.provenance.graph import (
    _bypass,
    _find_cycle,
    _has_cycle,
    _reduce,
)


def _random_dag(rng: random.Random) -> tuple[frozenset[tuple[str, str]], dict[str, str]]:
    n = rng.randint(1, 30)
    nodes = [f"n{i}" for i in range(n)]
    links = {
        (nodes[a], nodes[b])
        for a, b in (sorted(rng.sample(range(n), 2)) for _ in range(rng.randint(0, 3 * n)) if n > 1)
    }
    present = {v: f"world/{v}.jpg" for v in nodes if rng.random() < 0.5}
    return frozenset(links), present


def test_reduce_equals_the_node_by_node_bypass_on_random_dags() -> None:
    rng = random.Random(11)
    for _ in range(500):
        links, present = _random_dag(rng)
        assert _reduce(links, present) == _bypass(links, present), (sorted(links), sorted(present))


def test_reduce_by_hand_and_with_a_cycle_among_absent_nodes() -> None:
    """A->x, B->x, x->y, y->P, y->Q (x, y absent): A->P, A->Q, B->P, B->Q.  With y->x too (a cycle), the
    bypass runs instead and gives the same present links."""
    present = {v: v for v in "ABPQ"}
    dag = frozenset({("A", "x"), ("B", "x"), ("x", "y"), ("y", "P"), ("y", "Q")})
    want = {("A", "P"), ("A", "Q"), ("B", "P"), ("B", "Q")}
    assert _reduce(dag, present) == want
    assert {link for link in _reduce(dag | {("y", "x")}, present) if link[0] in present and link[1] in present} == want


@pytest.mark.parametrize(
    ("links", "cyclic"),
    [
        ([("a", "b"), ("b", "c")], False),
        ([("c", "b"), ("b", "a")], False),  # listed child first: the walk runs
        ([("a", "b"), ("b", "c"), ("c", "a")], True),
        ([("a", "a")], True),
        ([], False),
    ],
)
def test_has_cycle_agrees_with_find_cycle(links: list[tuple[str, str]], cyclic: bool) -> None:
    assert _has_cycle(links) is cyclic
    assert bool(_find_cycle(links)) is cyclic


def test_filter_trial_counts_equal_a_direct_count_with_duplicates() -> None:
    """Random ranked lists with repeated files: Correct/Missing/FalseAlarm as pandas' outer merge counts them."""
    rng = random.Random(3)
    for _ in range(300):
        pool = [f"f{i}" for i in range(12)]
        ranked = [rng.choice(pool) for _ in range(rng.randint(0, 20))]
        ref = [rng.choice(pool) for _ in range(rng.randint(0, 6))]
        ns = (1, 3, 7, 25)
        got = filter_trial(ref, ["base"] * len(ref), ranked, ns=ns)
        k = Counter(ref)
        for j, n in enumerate(ns):
            top = Counter(ranked[:n])
            assert got.correct[j] == sum(c * top[f] for f, c in k.items())
            assert got.missing[j] == sum(c for f, c in k.items() if not top[f])
            assert got.false_alarm[j] == sum(c for f, c in top.items() if f not in k)


def _dataset(tmp: Path, system: dict[str, object] | str) -> dict[str, object]:
    """Journal A->P, B->P; all present; one system JSON."""
    (tmp / "j.json").write_text(
        json.dumps(
            {
                "nodes": [{"id": n, "nodetype": t} for n, t in (("A", "base"), ("B", "donor"), ("P", "final"))],
                "links": [{"source": 0, "target": 2, "op": "Blur"}, {"source": 1, "target": 2, "op": "Donor"}],
            }
        )
    )
    (tmp / "s.json").write_text(system if isinstance(system, str) else json.dumps(system))
    rows = {
        "index.csv": "ProvenanceProbeFileID|ProvenanceProbeFileName\np|world/P.jpg\n",
        "ref.csv": "ProvenanceProbeFileID|JournalName|JournalFileName\np|J|j.json\n",
        "node.csv": (
            "ProvenanceProbeFileID|WorldFileID|WorldFileName|JournalNodeID\n"
            "p|p|world/P.jpg|P\np|a|world/A.jpg|A\np|b|world/B.jpg|B\n"
        ),
        "world.csv": "WorldFileID|WorldFileName\na|world/A.jpg\nb|world/B.jpg\n",
        "sys.csv": "ProvenanceProbeFileID|ProvenanceOutputFileName\np|s.json\n",
    }
    for name, text in rows.items():
        (tmp / name).write_text(text)
    return {
        "index": tmp / "index.csv",
        "reference": tmp / "ref.csv",
        "node": tmp / "node.csv",
        "world": tmp / "world.csv",
        "system": tmp / "sys.csv",
        "ref_dir": tmp,
        "sys_dir": tmp,
    }


SYS = {
    "nodes": [{"file": f"world/{n}.jpg", "nodeConfidenceScore": c} for n, c in (("P", 0.9), ("A", 0.5), ("X", 0.4))],
    "links": [{"source": 1, "target": 0}, {"source": 2, "target": 0}],
}


def test_mappings_only_when_asked_and_scores_unchanged(tmp_path: Path) -> None:
    """Vr = {A,B,P}, Er = 2; system {P,A,X}, A->P, X->P: SimNO = 2*2/6, SimLO = 2*1/4 (both ways)."""
    ds = _dataset(tmp_path, SYS)
    full, lean = score_graph_building(**ds), score_graph_building(**ds, mappings=False)
    assert lean.node_mapping.empty and lean.link_mapping.empty
    assert len(full.node_mapping) == 4 and len(full.link_mapping) == 3  # A, B, P, X; A->P, B->P, X->P
    assert full.trial_scores.equals(lean.trial_scores) and full.scores.equals(lean.scores)
    assert (lean.scores["MeanSimNO"][0], lean.scores["MeanSimLO"][0]) == (round(4 / 6, 12), 0.5)
    f_full, f_lean = score_filtering(**ds), score_filtering(**ds, mappings=False)
    assert f_lean.node_mapping.empty and not f_full.node_mapping.empty
    assert f_full.trial_scores.equals(f_lean.trial_scores)


@pytest.mark.parametrize(
    ("score", "first"),
    [
        # an int past float range: the shared reader refuses it, so PROV-02 names it too (issue 17)
        ("1" + "0" * 400, "s.json: must be valid JSON with numbers a double can hold (got 1000"),
        (
            "1" + "0" * 5000,
            "s.json: must be valid JSON with numbers a double can hold (got 1000",
        ),  # past the digit limit too
    ],
)
def test_huge_numbers_are_reasons_not_tracebacks(tmp_path: Path, score: str, first: str) -> None:
    text = json.dumps(SYS).replace("0.9", score, 1)
    res = score_filtering(**_dataset(tmp_path, text))
    [reason] = [r for r in res.reasons if not r.scored]
    assert first in reason.reason, reason.reason
    if len(score) > 4300:
        with pytest.raises(JsonProblem):
            load_json(tmp_path / "s.json")
