"""Hand-computed cases and hostile inputs for the provenance engine (docs/scoring/provenance.md).

Every dataset is written inside the test: a tiny journal, node/world tables and
system JSONs. Hostile files (oversize, deeply nested, duplicate keys) are scored
in a subprocess under RLIMIT_AS and a timeout, so a regression fails fast
instead of eating the machine.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from pytest_omfc.scoring.merge import ScoringError
from pytest_omfc.scoring.provenance import (
    MAX_JSON_BYTES,
    TrialReason,
    score_filtering,
    score_graph_building,
)

PROBE = "p" * 32
PROBE_FILE = f"world/{PROBE}.jpg"


def _table(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    path.write_text("\n".join("|".join(r) for r in [header, *rows]) + "\n")
    return path


def _dataset(
    tmp: Path,
    journal_nodes: list[tuple[str, str]],
    journal_links: list[tuple[str, str, str]],
    present: list[str],
    systems: list[Any],
    status: list[str] | None = None,
) -> dict[str, Any]:
    """Write index/ref/node/world tables, one journal and the system JSONs.

    ``journal_nodes`` are (id, nodetype); node ``P`` is the probe. ``present``
    lists the non-probe journal ids that have a world file ``world/<id>.jpg``.
    ``systems`` are JSON-able docs, raw ``bytes`` (written as is) or ``None``
    (a blank ProvenanceOutputFileName).
    """
    ids = [n for n, _ in journal_nodes]
    pos = {n: i for i, n in enumerate(ids)}
    journal = {
        "directed": True,
        "nodes": [{"id": n, "nodetype": t, "file": f"{n}.png"} for n, t in journal_nodes],
        "links": [{"source": pos[s], "target": pos[t], "op": op} for s, t, op in journal_links],
    }
    (tmp / "journals").mkdir(exist_ok=True)
    (tmp / "journals" / "j1.json").write_text(json.dumps(journal))
    _table(
        tmp / "index.csv",
        ["TaskID", "ProvenanceProbeFileID", "ProvenanceProbeFileName"],
        [["provenance", PROBE, PROBE_FILE]],
    )
    _table(
        tmp / "ref.csv",
        [
            "TaskID",
            "ProvenanceProbeFileID",
            "ProvenanceProbeFileName",
            "JournalName",
            "JournalFileName",
        ],
        [["provenance", PROBE, PROBE_FILE, "J1", "journals/j1.json"]],
    )
    node_rows = [[PROBE, PROBE, PROBE_FILE, "P"]] + [[PROBE, f"w{n}", f"world/{n}.jpg", n] for n in present]
    _table(
        tmp / "node.csv",
        ["ProvenanceProbeFileID", "WorldFileID", "WorldFileName", "JournalNodeID"],
        node_rows,
    )
    _table(
        tmp / "world.csv",
        ["TaskID", "WorldFileID", "WorldFileName"],
        [["provenance", f"w{n}", f"world/{n}.jpg"] for n in present],
    )
    (tmp / "jsons").mkdir(exist_ok=True)
    sys_rows = []
    for i, doc in enumerate(systems):
        rel = "" if doc is None else f"jsons/s{i}.json"
        if isinstance(doc, bytes):
            (tmp / rel).write_bytes(doc)
        elif doc is not None:
            (tmp / rel).write_text(json.dumps(doc))
        sys_rows.append([PROBE, rel] + ([status[i]] if status else []))
    header = ["ProvenanceProbeFileID", "ProvenanceOutputFileName"] + (["ProvenanceProbeStatus"] if status else [])
    _table(tmp / "sys.csv", header, sys_rows)
    return {
        "index": tmp / "index.csv",
        "reference": tmp / "ref.csv",
        "node": tmp / "node.csv",
        "world": tmp / "world.csv",
        "system": tmp / "sys.csv",
        "ref_dir": tmp,
        "sys_dir": tmp,
    }


def _path(n: str) -> str:
    return PROBE_FILE if n == "P" else f"world/{n}.jpg"


def _graph(nodes: list[str], links: list[tuple[str, str]], conf: float = 1.0) -> dict[str, Any]:
    """A system graph JSON over journal-style names (``P`` is the probe)."""
    at = {n: i for i, n in enumerate(nodes)}
    return {
        "directed": True,
        "nodes": [
            {"id": str(i), "file": _path(n), "fileid": n, "nodeConfidenceScore": conf} for i, n in enumerate(nodes)
        ],
        "links": [
            {
                "source": at[s],
                "target": at[t],
                "relationshipConfidenceScore": 1,
            }
            for s, t in links
        ],
    }


def _trial(res: Any) -> dict[str, Any]:
    assert len(res.trial_scores) == 1, res.reasons
    return res.trial_scores.iloc[0].to_dict()


# ---------------------------------------------------------------- graph building


def test_antiforensic_donor_link_is_removed_and_isolated_node_not_counted(
    tmp_path: Path,
) -> None:
    """4-node journal: A->B, B->P (AntiForensic op), D->P (Donor). docs/scoring/provenance.md#reference-graph steps 1
    and 5.

    The Donor link is dropped because P has an incoming AntiForensic link, so D is
    isolated and not a reference node: Vr={A,B,P}, Er={A->B, B->P}. The system
    also claims D->P: |Vs|=4, |Es|=3, 3 correct nodes, 2 correct links.
    SimNO=6/7, SimLO=4/5, SimNLO=10/12, NodeRecall=1.
    """
    ds = _dataset(
        tmp_path,
        [("A", "base"), ("B", "interim"), ("D", "donor"), ("P", "final")],
        [
            ("A", "B", "PasteSplice"),
            ("B", "P", "AntiForensicExifQuantizationTable"),
            ("D", "P", "Donor"),
        ],
        ["A", "B", "D"],
        [_graph(["A", "B", "D", "P"], [("A", "B"), ("B", "P"), ("D", "P")])],
    )
    row = _trial(score_graph_building(**ds))
    assert (
        row["NumRefNodes"],
        row["NumRefLinks"],
        row["NumCorrectNodes"],
        row["NumCorrectLinks"],
    ) == (3, 2, 3, 2)
    assert row["SimNO"] == round(6 / 7, 12)
    assert row["SimLO"] == round(4 / 5, 12)
    assert row["SimNLO"] == round(10 / 12, 12)
    assert row["NodeRecall"] == 1.0


def test_donor_link_kept_without_antiforensic(tmp_path: Path) -> None:
    """Same journal with an ordinary op on B->P: the Donor link stays, all 4 nodes count."""
    ds = _dataset(
        tmp_path,
        [("A", "base"), ("B", "interim"), ("D", "donor"), ("P", "final")],
        [("A", "B", "PasteSplice"), ("B", "P", "OutputPng"), ("D", "P", "Donor")],
        ["A", "B", "D"],
        [_graph(["A", "B", "D", "P"], [("A", "B"), ("B", "P"), ("D", "P")])],
    )
    row = _trial(score_graph_building(**ds))
    assert (row["NumRefNodes"], row["NumRefLinks"], row["SimNLO"]) == (4, 3, 1.0)


def test_absent_node_is_bypassed(tmp_path: Path) -> None:
    """A->X->P with X absent from the node/world tables reduces to A->P (docs/scoring/provenance.md#reference-graph
    step 3)."""
    ds = _dataset(
        tmp_path,
        [("A", "base"), ("X", "interim"), ("P", "final")],
        [("A", "X", "Blur"), ("X", "P", "OutputJpg")],
        ["A"],
        [_graph(["A", "P"], [("A", "P")])],
    )
    row = _trial(score_graph_building(**ds))
    assert (
        row["NumRefNodes"],
        row["NumRefLinks"],
        row["SimNLO"],
        row["NodeRecall"],
    ) == (2, 1, 1.0, 1.0)


def test_direct_mode_restricts_only_the_reference(tmp_path: Path) -> None:
    """A->P, P->F, A->S: direct keeps A->P (up) and P->F (down) but not the sibling A->S.

    The system's A->S and S stay in the system graph as false alarms:
    Vr=3, Vs=4, Er=2, Es=3 -> SimNO 6/7, SimLO 4/5, NodeRecall 1.
    """
    nodes = [("A", "base"), ("S", "interim"), ("P", "interim"), ("F", "final")]
    links = [("A", "P", "Blur"), ("P", "F", "OutputPng"), ("A", "S", "Crop")]
    sysg = _graph(["A", "S", "P", "F"], [("A", "P"), ("P", "F"), ("A", "S")])
    ds = _dataset(tmp_path, nodes, links, ["A", "S", "F"], [sysg])
    direct = _trial(score_graph_building(**ds, direct=True))
    assert (direct["Direct"], direct["NumRefNodes"], direct["NumRefLinks"]) == (
        True,
        3,
        2,
    )
    assert (direct["NumFalseAlarmNodes"], direct["NumFalseAlarmLinks"]) == (1, 1)
    assert (direct["SimNO"], direct["SimLO"], direct["NodeRecall"]) == (
        round(6 / 7, 12),
        0.8,
        1.0,
    )
    full = _trial(score_graph_building(**ds))
    assert (full["Direct"], full["SimNLO"]) == (False, 1.0)


def test_undirected_matches_reversed_links_once(tmp_path: Path) -> None:
    """Ref A->P, system P->A: directed SimLO 0, undirected 1 (docs/scoring/provenance.md#system-graph-and-matching,
    -u)."""
    ds = _dataset(
        tmp_path,
        [("A", "base"), ("P", "final")],
        [("A", "P", "Blur")],
        ["A"],
        [_graph(["A", "P"], [("P", "A")])],
    )
    assert _trial(score_graph_building(**ds))["SimLO"] == 0.0
    und = score_graph_building(**ds, undirected=True)
    assert _trial(und)["SimLO"] == 1.0
    assert und.link_mapping["Mapping"].tolist() == ["Correct"]


def test_undirected_uses_each_system_link_once(tmp_path: Path) -> None:
    """Ref A->P, B->P vs system P->A: one match, SimLO 2*1/(2+1) = 2/3."""
    ds = _dataset(
        tmp_path,
        [("A", "base"), ("B", "donor"), ("P", "final")],
        [("A", "P", "Blur"), ("B", "P", "Paste")],
        ["A", "B"],
        [_graph(["A", "B", "P"], [("P", "A")])],
    )
    row = _trial(score_graph_building(**ds, undirected=True))
    assert (row["NumCorrectLinks"], row["NumMissingLinks"], row["SimLO"]) == (
        1,
        1,
        round(2 / 3, 12),
    )


def test_system_cycle_is_scored_and_noted(tmp_path: Path) -> None:
    """MediScore aborts without -c; the engine scores it and says so (PROV-15)."""
    ds = _dataset(
        tmp_path,
        [("A", "base"), ("P", "final")],
        [("A", "P", "Blur")],
        ["A"],
        [_graph(["A", "P"], [("A", "P"), ("P", "A")])],
    )
    res = score_graph_building(**ds)
    row = _trial(res)
    assert (row["NumSysLinks"], row["SimLO"]) == (2, round(2 / 3, 12))
    assert [r.reason for r in res.reasons] == ["system graph has a cycle: scored as is (PROV-15)"]


def test_journal_cycle_raises_naming_the_journal(tmp_path: Path) -> None:
    ds = _dataset(
        tmp_path,
        [("A", "base"), ("B", "interim"), ("P", "final")],
        [("A", "B", "Blur"), ("B", "A", "Crop"), ("B", "P", "OutputPng")],
        ["A", "B"],
        [_graph(["A", "P"], [("A", "P")])],
    )
    with pytest.raises(ScoringError) as err:
        score_graph_building(**ds)
    assert str(err.value).startswith("journal journals/j1.json: has a cycle (A -> B -> A)")


def test_empty_system_graph_is_scored_with_reason(tmp_path: Path) -> None:
    ds = _dataset(
        tmp_path,
        [("A", "base"), ("P", "final")],
        [("A", "P", "Blur")],
        ["A"],
        [{"nodes": [], "links": []}],
    )
    res = score_graph_building(**ds)
    row = _trial(res)
    assert (row["SimNO"], row["SimLO"], row["NodeRecall"]) == (0.0, 0.0, 0.0)
    assert res.reasons[0].reason == "system graph is empty: scored as is"


def test_bad_system_inputs_are_per_trial_reasons(tmp_path: Path) -> None:
    """Missing file, malformed JSON, duplicate key, unresolved link index, blank path: 5 reasons, no traceback."""
    good = _graph(["A", "P"], [("A", "P")])
    bad_index = {
        "nodes": good["nodes"],
        "links": [{"source": 0, "target": 7, "relationshipConfidenceScore": 1}],
    }
    ds = _dataset(
        tmp_path,
        [("A", "base"), ("P", "final")],
        [("A", "P", "Blur")],
        ["A"],
        [good, b'{"nodes": [', b'{"nodes": [], "nodes": []}', bad_index, None],
    )
    (tmp_path / "sys.csv").write_text((tmp_path / "sys.csv").read_text() + f"{PROBE}|jsons/missing.json\n")
    res = score_graph_building(**ds)
    assert len(res.trial_scores) == 1 and res.scores.loc[0, "MeanSimNLO"] == 1.0
    msgs = [r.reason for r in res.reasons if not r.scored]
    assert len(msgs) == 5
    assert msgs[0].startswith(f"{tmp_path}/jsons/s1.json: must be valid JSON (got Expecting value at line 1")
    assert (
        msgs[1]
        == f"{tmp_path}/jsons/s2.json: must be valid JSON with unique keys in each object (got the key 'nodes' twice): "
        "trial not scored (PROV-02)"
    )
    assert (
        msgs[2] == "jsons/s3.json: links[0].target must be a node index in [0, 2) (got 7): trial not scored (PROV-02)"
    )
    assert msgs[3] == "ProvenanceOutputFileName is blank (PROV-01): trial not scored (PROV-02)"
    assert msgs[4].startswith(f"{tmp_path}/jsons/missing.json: must name an existing JSON file (got no such file)")


def test_missing_column_is_a_scoring_error(tmp_path: Path) -> None:
    ds = _dataset(
        tmp_path,
        [("A", "base"), ("P", "final")],
        [("A", "P", "Blur")],
        ["A"],
        [_graph(["A", "P"], [])],
    )
    (tmp_path / "ref.csv").write_text("ProvenanceProbeFileID\nx\n")
    with pytest.raises(
        ScoringError,
        match=r"^provenance reference lacks column\(s\) \['JournalName', 'JournalFileName'\]",
    ):
        score_graph_building(**ds)


# ---------------------------------------------------------------- filtering


def _filter_sys(ranked: list[tuple[str, float]]) -> dict[str, Any]:
    return {"nodes": [{"id": str(i), "file": f, "nodeConfidenceScore": s} for i, (f, s) in enumerate(ranked)]}


def _fillers(k: int, score: float) -> list[tuple[str, float]]:
    return [(f"world/fill{score}_{i}.jpg", score) for i in range(k)]


@pytest.mark.parametrize(
    ("rank", "expected"),
    [
        (50, (0.5, 0.5, 0.5, 0.5)),
        (51, (0.0, 0.5, 0.5, 0.5)),
        (300, (0.0, 0.0, 0.0, 0.5)),
        (301, (0.0,) * 4),
    ],
)
def test_filtering_ranks_at_the_n_boundaries(tmp_path: Path, rank: int, expected: tuple[float, ...]) -> None:
    """Reference = probe + W (NumRefNodes 2, probe counted); W at 1-based rank 50/51/300/301."""
    ranked = _fillers(rank - 1, 0.9) + [("world/W.jpg", 0.5)] + _fillers(400 - rank, 0.1)
    ds = _dataset(
        tmp_path,
        [("W", "base"), ("P", "final")],
        [("W", "P", "Blur")],
        ["W"],
        [_filter_sys(ranked)],
    )
    res = score_filtering(**ds)
    row = _trial(res)
    assert row["NumRefNodes"] == 2 and row["NumSysNodes"] == 400
    assert tuple(row[f"NodeRecallAt{n}"] for n in (50, 100, 200, 300)) == expected


@pytest.mark.parametrize(("w_first", "at50"), [(True, 0.5), (False, 0.0)])
def test_filtering_tie_at_the_boundary_keeps_json_order(tmp_path: Path, w_first: bool, at50: float) -> None:
    """49 nodes at 0.9, then W and Z tied at 0.5 for rank 50: the one listed first in the JSON wins."""
    pair = [("world/W.jpg", 0.5), ("world/Z.jpg", 0.5)]
    ranked = _fillers(49, 0.9) + (pair if w_first else pair[::-1]) + _fillers(10, 0.1)
    ds = _dataset(
        tmp_path,
        [("W", "base"), ("P", "final")],
        [("W", "P", "Blur")],
        ["W"],
        [_filter_sys(ranked)],
    )
    for _ in range(3):
        assert _trial(score_filtering(**ds))["NodeRecallAt50"] == at50


def test_filtering_node_types(tmp_path: Path) -> None:
    """Per type: only reference nodes of that type; other system nodes are false alarms; probe only in All."""
    ranked = [("world/W.jpg", 0.9), (PROBE_FILE, 0.8), ("world/D.jpg", 0.1)]
    ds = _dataset(
        tmp_path,
        [("W", "base"), ("D", "donor"), ("P", "final")],
        [("W", "P", "Blur"), ("D", "P", "Donor")],
        ["W", "D"],
        [_filter_sys(ranked)],
    )
    res = score_filtering(**ds, node_types=("all", "donor", "base", "final"))
    t = res.trial_scores.set_index("NodeType")
    assert t.loc["All", "NumRefNodes"] == 3 and t.loc["All", "NodeRecallAt50"] == 1.0
    assert (
        t.loc["donor", "NumCorrectNodesAt50"],
        t.loc["donor", "NumFalseAlarmNodesAt50"],
    ) == (1, 2)
    assert t.loc["final", "NumRefNodes"] == 0 and pd_isna(t.loc["final", "NodeRecallAt50"])
    with pytest.raises(ScoringError, match="^unknown node type"):
        score_filtering(**ds, node_types=("probe",))


def pd_isna(x: Any) -> bool:
    return isinstance(x, float) and math.isnan(x)


def test_filtering_non_numeric_score_is_a_reason(tmp_path: Path) -> None:
    doc = {"nodes": [{"id": "0", "file": "world/W.jpg", "nodeConfidenceScore": "high"}]}
    ds = _dataset(tmp_path, [("W", "base"), ("P", "final")], [("W", "P", "Blur")], ["W"], [doc])
    res = score_filtering(**ds)
    assert res.trial_scores.empty
    assert res.reasons[0].reason == (
        "jsons/s0.json: nodes[0].nodeConfidenceScore must be a finite number (got 'high'): trial not scored (PROV-02)"
    )


# ---------------------------------------------------------------- hostile files, capped


_HOSTILE = textwrap.dedent(
    """
    import resource, sys, json
    resource.setrlimit(resource.RLIMIT_AS, (1_500_000_000, 1_500_000_000))
    from pytest_omfc.scoring.provenance import score_graph_building
    kw = json.loads(sys.argv[1])
    res = score_graph_building(**kw)
    print(len(res.trial_scores))
    for r in res.reasons:
        print(r.reason)
    """
)


def _run_capped(ds: dict[str, Any]) -> list[str]:
    arg = json.dumps({k: str(v) for k, v in ds.items()})
    proc = subprocess.run(
        [sys.executable, "-c", _HOSTILE, arg],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "Traceback" not in proc.stderr
    return proc.stdout.splitlines()


def test_oversize_json_is_not_read(tmp_path: Path) -> None:
    """A sparse file one byte over 64 MiB: a per-trial reason, read never attempted."""
    ds = _dataset(tmp_path, [("A", "base"), ("P", "final")], [("A", "P", "Blur")], ["A"], [b"{}"])
    with (tmp_path / "jsons" / "s0.json").open("wb") as fh:
        fh.truncate(MAX_JSON_BYTES + 1)
    out = _run_capped(ds)
    assert out[0] == "0"
    assert out[1] == (
        f"{tmp_path}/jsons/s0.json: must be a provenance JSON of at most 64 MB (got 64.0 MB): "
        "trial not scored (PROV-02)"
    )


def test_deeply_nested_json_is_a_reason(tmp_path: Path) -> None:
    """1,000,000 nested arrays (2 MB) would raise RecursionError inside json: a reason instead."""
    ds = _dataset(
        tmp_path,
        [("A", "base"), ("P", "final")],
        [("A", "P", "Blur")],
        ["A"],
        [b"[" * 1_000_000 + b"]" * 1_000_000],
    )
    out = _run_capped(ds)
    assert out == [
        "0",
        f"{tmp_path}/jsons/s0.json: must be valid JSON (got nesting too deep to parse): trial not scored (PROV-02)",
    ]


def test_large_graph_scores_fast_under_cap(tmp_path: Path) -> None:
    """A 20,000-node chain journal with every other node absent: reduction stays linear-ish, under the cap."""
    n = 20_000
    names = [f"N{i}" for i in range(n)] + ["P"]
    links = [(names[i], names[i + 1], "Blur") for i in range(n)]
    present = names[:n:2]
    sysg = _graph(
        present + ["P"],
        [(present[i], present[i + 1]) for i in range(len(present) - 1)] + [(present[-1], "P")],
    )
    ds = _dataset(tmp_path, [(x, "interim") for x in names], links, present, [sysg])
    out = _run_capped(ds)
    assert out == ["1"]


def test_escaping_output_path_is_not_opened(tmp_path: Path) -> None:
    """ProvenanceOutputFileName '../outside.json' is refused before any open (D-24)."""
    ds = _dataset(
        tmp_path,
        [("A", "base"), ("P", "final")],
        [("A", "P", "Blur")],
        ["A"],
        [_graph(["A", "P"], [])],
    )
    (tmp_path / "sys.csv").write_text(f"ProvenanceProbeFileID|ProvenanceOutputFileName\n{PROBE}|../outside.json\n")
    res = score_graph_building(**ds)
    assert res.trial_scores.empty
    assert res.reasons[0].reason == (
        "ProvenanceOutputFileName must stay inside the submission directory (got '..' in '../outside.json'): "
        "trial not scored (PROV-02)"
    )


def test_unresolved_node_ids_are_noted(tmp_path: Path) -> None:
    """A node-table JournalNodeID missing from the journal cannot be present: noted, trial still scored."""
    ds = _dataset(
        tmp_path,
        [("A", "base"), ("P", "final")],
        [("A", "P", "Blur")],
        ["A"],
        [_graph(["A", "P"], [("A", "P")])],
    )
    with (tmp_path / "node.csv").open("a") as fh:
        fh.write(f"{PROBE}|wghost|world/ghost.jpg|ghost\n")
    res = score_graph_building(**ds)
    assert _trial(res)["SimNLO"] == 1.0
    assert [(r.reason, r.scored) for r in res.reasons] == [
        (
            "node table JournalNodeID ['ghost'] not in journal journals/j1.json: ignored",
            True,
        )
    ]


def test_all_trials_opted_out_gives_nan_means_not_a_crash(tmp_path: Path) -> None:
    """Every row NonProcessed/OptOut: nothing scored, means NaN, one reason per row
    (docs/scoring/provenance.md#trials)."""
    ds = _dataset(
        tmp_path,
        [("A", "base"), ("P", "final")],
        [("A", "P", "Blur")],
        ["A"],
        [_graph(["A", "P"], [("A", "P")]), _graph(["A", "P"], [])],
        status=["NonProcessed", "OptOut"],
    )
    res = score_graph_building(**ds)
    assert res.trial_scores.empty and pd_isna(res.scores.loc[0, "MeanSimNLO"])
    assert [r.reason for r in res.reasons] == [
        "ProvenanceProbeStatus='NonProcessed': not scored and not in the mean (docs/scoring/provenance.md#trials)",
        "ProvenanceProbeStatus='OptOut': not scored and not in the mean (docs/scoring/provenance.md#trials)",
    ]
    filt = score_filtering(**ds)
    assert filt.trial_scores.empty and filt.scores.empty and len(filt.reasons) == 2


def test_index_probe_without_system_row_is_a_reason(tmp_path: Path) -> None:
    """MediScore needs -t to tolerate a missing row; the engine scores the rest and names the probe."""
    ds = _dataset(
        tmp_path,
        [("A", "base"), ("P", "final")],
        [("A", "P", "Blur")],
        ["A"],
        [_graph(["A", "P"], [("A", "P")])],
    )
    q = "q" * 32
    with (tmp_path / "index.csv").open("a") as fh:
        fh.write(f"provenance|{q}|world/{q}.jpg\n")
    with (tmp_path / "ref.csv").open("a") as fh:
        fh.write(f"provenance|{q}|world/{q}.jpg|J1|journals/j1.json\n")
    res = score_graph_building(**ds)
    assert _trial(res)["SimNLO"] == 1.0
    assert res.reasons == (TrialReason(q, "", "no system output row for this probe: not scored", False),)


# ---------------------------------------------------------------------------- mapping tables gathered by column


@pytest.mark.parametrize(
    "trials",
    [
        [],  # no trial scored
        [(("J", "p1", True, "a.json"), [])],  # a trial without rows
        [
            (("J", "p1", True, "a.json"), [("w1", 0.5, "Correct"), ("w2", "", "Missing")]),
            (("K", "p2", True, "b.json"), []),
            (("K", "p3", True, "c.json"), [("w3", 1.0, "FalseAlarm")]),
        ],
        [(("J", "p1", False, "a.json"), [("w1", 0.25, "Correct"), ("w2", 0.75, "Correct")])],  # floats only
    ],
)
def test_mapping_rows_give_the_frame_of_the_row_tuples(trials: list[Any]) -> None:
    """``_MappingRows`` (a trial's columns once, the rest by column) builds what ``pd.DataFrame(rows)`` of
    the row tuples built before: values and the dtype of every column."""
    from pytest_omfc.scoring.provenance.run import NODE_MAPPING_COLUMNS, _MappingRows

    rows = _MappingRows(NODE_MAPPING_COLUMNS, shared=4)
    tuples = []
    for head, cells in trials:
        rows.trial(*head)
        for cell in cells:
            rows.add(*cell)
            tuples.append(head + cell)
    pd.testing.assert_frame_equal(rows.frame(), pd.DataFrame(tuples, columns=list(NODE_MAPPING_COLUMNS)))


def test_a_journal_is_read_once_and_dropped_after_its_last_trial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Trials naming journals A, B, A: A is read once, kept for its second trial, and no journal is held
    after the last trial that names it."""
    from pytest_omfc.scoring.provenance import run

    trials = pd.DataFrame(
        {
            "ProvenanceProbeFileID": ["p1", "p2", "p3"],
            "ProvenanceOutputFileName": ["o1", "o2", "o3"],
            "JournalName": ["A", "B", "A"],
            "JournalFileName": ["a.json", "b.json", "a.json"],
        }
    )
    reads: list[str] = []
    monkeypatch.setattr(run, "_read", lambda path, max_bytes: reads.append(path.name) or {})
    monkeypatch.setattr(run, "parse_journal", lambda doc, rel, **kw: object())
    monkeypatch.setattr(run, "_unresolved", lambda g, journal: None)
    journals = run._Journals(tmp_path, 1000, links=True)
    held = []
    for _ in run._scorable(trials, journals, {}, []):
        held.append(sorted(journals.cache))
    assert reads == ["a.json", "b.json"]
    assert held == [["a.json"], ["a.json", "b.json"], ["a.json"]]
    assert journals.cache == {}
