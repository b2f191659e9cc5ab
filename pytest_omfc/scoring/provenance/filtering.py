"""Provenance filtering: NodeRecallAt50/100/200/300 (METRICS.md 3.4).

Why own code: MediScore sorts system nodes with pandas' unstable quicksort, so
with tied ``nodeConfidenceScore`` values the top-n set (and the recall) depends
on the sort algorithm. The tie rule here is documented and stable: descending
score, ties kept in the order the nodes appear in the system JSON (a stable
sort), so two runs on the same file always give the same result.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "NODE_RECALL_NS",
    "NODE_TYPES",
    "FilteringTrial",
    "filter_trial",
    "rank_system_nodes",
]

#: The four cut-offs MediScore reports together (METRICS.md 3.4, 7.12).
NODE_RECALL_NS: tuple[int, ...] = (50, 100, 200, 300)
#: Journal node types scorable with ``--nodetype``; the probe's own type is ``probe``.
NODE_TYPES: tuple[str, ...] = ("donor", "base", "final", "interim")


@dataclass(frozen=True)
class FilteringTrial:
    """Counts of one trial for one node type; recall rounded to 12 decimals as MediScore."""

    node_type: str
    num_sys_nodes: int
    num_ref_nodes: int
    correct: tuple[int, ...]
    missing: tuple[int, ...]
    false_alarm: tuple[int, ...]

    def recalls(self) -> tuple[float, ...]:
        """NodeRecallAt{n} = Correct/NumRefNodes, ``round(x, 12)``; NaN without reference nodes."""
        return tuple(
            round(c / self.num_ref_nodes, 12) if self.num_ref_nodes else math.nan
            for c in self.correct
        )

    def row(self) -> dict[str, object]:
        """MediScore's trial_scores.csv columns from NumSysNodes on."""
        out: dict[str, object] = {
            "NumSysNodes": self.num_sys_nodes,
            "NumRefNodes": self.num_ref_nodes,
            "NodeType": "All" if self.node_type == "all" else self.node_type,
        }
        for n, c, m, f in zip(
            NODE_RECALL_NS, self.correct, self.missing, self.false_alarm, strict=True
        ):
            out[f"NumCorrectNodesAt{n}"] = c
            out[f"NumMissingNodesAt{n}"] = m
            out[f"NumFalseAlarmNodesAt{n}"] = f
        for n, r in zip(NODE_RECALL_NS, self.recalls(), strict=True):
            out[f"NodeRecallAt{n}"] = r
        return out


def rank_system_nodes(files: Sequence[str], scores: Sequence[float]) -> list[str]:
    """System files by descending score; ties keep JSON order (stable mergesort: the tie rule)."""
    order = np.argsort(-np.asarray(scores, dtype=float), kind="stable")
    return [files[i] for i in order]


def filter_trial(
    ref_files: Sequence[str],
    ref_types: Sequence[str],
    ranked_sys_files: Sequence[str],
    node_type: str = "all",
    ns: Sequence[int] = NODE_RECALL_NS,
    exclude: Collection[str] = (),
) -> FilteringTrial:
    """Outer-join semantics of MediScore (reference rows x top-n system rows on the file path).

    ``ref_files``/``ref_types`` include the probe (type ``probe``), which is counted
    in ``NumRefNodes`` for ``all`` (METRICS.md 3.4). For a node type, only reference
    nodes of that type are kept; system nodes of other types become false alarms.
    Duplicate rows multiply as in a pandas merge.  ``exclude`` names system files
    that keep their rank but are neither reference nor false alarm (the probe's
    own entry under the ``plan`` convention, METRICS.md 7.12).
    """
    ref = Counter(
        f
        for f, t in zip(ref_files, ref_types, strict=True)
        if node_type == "all" or t == node_type
    )
    num_ref = sum(ref.values())
    correct: list[int] = []
    missing: list[int] = []
    fa: list[int] = []
    for n in ns:
        top = Counter(ranked_sys_files[:n])
        c = sum(k * top[f] for f, k in ref.items() if f in top)
        correct.append(c)
        missing.append(sum(k for f, k in ref.items() if f not in top))
        fa.append(sum(k for f, k in top.items() if f not in ref and f not in exclude))
    return FilteringTrial(
        node_type=node_type,
        num_sys_nodes=len(ranked_sys_files),
        num_ref_nodes=num_ref,
        correct=tuple(correct),
        missing=tuple(missing),
        false_alarm=tuple(fa),
    )
