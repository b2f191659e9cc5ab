"""Builders shared by the tests, from test_provenance_scoring_plugin.py."""

from __future__ import annotations

import json
from typing import Any

from helpers.runs import psv

PROBE = "a" * 32


PROBE_FILE = f"probe/{PROBE}.jpg"


IDX_HEADER = [
    "TaskID",
    "ProvenanceProbeFileID",
    "ProvenanceProbeFileName",
    "ProvenanceProbeWidth",
    "ProvenanceProbeHeight",
]


OUT_HEADER = [
    "ProvenanceProbeFileID",
    "ProvenanceOutputFileName",
    "ProvenanceProbeStatus",
]


REF_HEADER = [
    "TaskID",
    "ProvenanceProbeFileID",
    "ProvenanceProbeFileName",
    "JournalName",
    "JournalFileName",
]


REF_REL = "reference/provenance/MFC2019-provenance-ref.csv"


JOURNAL = [("A", "base"), ("B", "interim"), ("D", "donor"), ("P", "final")]


JLINKS = [
    ("A", "B", "PasteSplice"),
    ("B", "P", "AntiForensicExifQuantizationTable"),
    ("D", "P", "Donor"),
]


def _file(n: str) -> str:
    return PROBE_FILE if n == "P" else f"world/{n}.jpg"


def graph(nodes: list[str], links: list[tuple[str, str]], conf: dict[str, float] | None = None) -> dict[str, Any]:
    """A system graph JSON over journal-style names (``P`` is the probe)."""
    at = {n: i for i, n in enumerate(nodes)}
    return {
        "directed": True,
        "nodes": [
            {
                "id": str(i),
                "file": _file(n),
                "fileid": PROBE if n == "P" else f"w{n}",
                "nodeConfidenceScore": (conf or {}).get(n, 1.0),
            }
            for i, n in enumerate(nodes)
        ],
        "links": [{"source": at[s], "target": at[t], "relationshipConfidenceScore": 1} for s, t in links],
    }


class ProvCase:
    """A provenance dataset (journal, reference, node, world) and a submission with one system JSON."""

    def __init__(
        self,
        omfc: Any,
        task: str,
        system: dict[str, Any] | bytes | None,
        *,
        journal: list[tuple[str, str]] = JOURNAL,
        links: list[tuple[str, str, str]] = JLINKS,
        present: list[str] | None = None,
        cyclic_journal: bool = False,
    ) -> None:
        present = [n for n, _ in journal if n != "P"] if present is None else present
        ids = [n for n, _ in journal]
        doc: dict[str, Any] = {
            "directed": True,
            "nodes": [{"id": n, "nodetype": t, "file": f"{n}.png"} for n, t in journal],
            "links": [{"source": ids.index(s), "target": ids.index(t), "op": op} for s, t, op in links],
        }
        if cyclic_journal:
            doc["links"].append({"source": ids.index("P"), "target": ids.index("A"), "op": "Blur"})
        omfc.write("dataset/reference/provenance/journals/j1.json", json.dumps(doc))
        self.reference = omfc.write(
            f"dataset/{REF_REL}",
            psv(
                REF_HEADER,
                [
                    [
                        task,
                        PROBE,
                        PROBE_FILE,
                        "J1",
                        "reference/provenance/journals/j1.json",
                    ]
                ],
            ),
        )
        node_rows = [[PROBE, PROBE, PROBE_FILE, "P"]] + [[PROBE, f"w{n}", _file(n), n] for n in present]
        self.node = omfc.write(
            "dataset/reference/provenance/MFC2019-provenance-node.csv",
            psv(["ProvenanceProbeFileID", "WorldFileID", "WorldFileName", "JournalNodeID"], node_rows),
        )
        self.world = omfc.write(
            "dataset/reference/provenance/MFC2019-provenance-world.csv",
            psv(["TaskID", "WorldFileID", "WorldFileName"], [[task, f"w{n}", _file(n)] for n in present]),
        )
        files: dict[str, str | bytes] = {}
        if isinstance(system, bytes):
            files["jsons/s0.json"] = system
        elif system is not None:
            files["jsons/s0.json"] = json.dumps(system)
        self.case = omfc.case(
            "MFC2019",
            task,
            header=OUT_HEADER,
            rows=[[PROBE, "jsons/s0.json", "Processed"]],
            index_header=IDX_HEADER,
            index_rows=[[task, PROBE, PROBE_FILE, 64, 64]],
            files=files,
        )
        self.root = omfc.root

    @property
    def args(self) -> list[str]:
        return [
            *self.case.args,
            "-p",
            "no:cacheprovider",
            "--omfc-reference",
            str(self.reference),
        ]

    def run(self, *extra: str) -> Any:
        return self.case.run("--omfc-reference", str(self.reference), *extra)

    def json(self, *extra: str) -> tuple[Any, dict[str, Any]]:
        path = self.root / "out" / "metrics.json"
        res = self.run("--omfc-metrics-json", str(path), *extra)
        return res, json.loads(path.read_text())


FULL = graph(["A", "B", "D", "P"], [("A", "B"), ("B", "P"), ("D", "P")])


def _ranked(d_rank: int) -> dict[str, Any]:
    """A filtering JSON: P, A, B first, 60 fillers, D at 1-based rank ``d_rank`` (all scores distinct)."""
    names = ["P", "A", "B"] + [f"f{i}" for i in range(60)]
    names.insert(d_rank - 1, "D")
    return {
        "nodes": [
            {
                "id": str(i),
                "file": _file(n) if not n.startswith("f") else f"world/{n}.jpg",
                "nodeConfidenceScore": 1000 - i,
            }
            for i, n in enumerate(names)
        ]
    }
