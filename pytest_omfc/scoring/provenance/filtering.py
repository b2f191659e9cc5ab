"""Provenance filtering: NodeRecallAt50/100/200/300 (docs/scoring/provenance.md#filtering).

Why own code: MediScore sorts system nodes with pandas' unstable quicksort, so
with tied ``nodeConfidenceScore`` values the top-n set (and the recall) depends
on the sort algorithm. The tie rule here is documented and stable: descending
score, ties kept in the order the nodes appear in the system JSON (a stable
sort), so two runs on the same file always give the same result.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from itertools import compress, repeat
from operator import mul, not_

import numpy as np

__all__ = [
    "MEDISCORE_ALL_NODE_TYPES",
    "NODE_RECALL_NS",
    "NODE_TYPES",
    "FilteringTrial",
    "filter_trial",
    "filter_trials",
    "rank_system_nodes",
    "top_counts",
]

#: The four cut-offs MediScore reports together (docs/scoring/provenance.md#filtering, docs/scoring/conventions.md).
NODE_RECALL_NS: tuple[int, ...] = (50, 100, 200, 300)
#: Journal node types scorable with ``--nodetype``; the probe's own type is ``probe``.
NODE_TYPES: tuple[str, ...] = ("donor", "base", "final", "interim")
#: MediScore's ``--nodetype all``: the overall result plus one per journal node type.
MEDISCORE_ALL_NODE_TYPES: tuple[str, ...] = ("all", *NODE_TYPES)


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
        return tuple(round(c / self.num_ref_nodes, 12) if self.num_ref_nodes else math.nan for c in self.correct)

    def row(self) -> dict[str, object]:
        """MediScore's trial_scores.csv columns from NumSysNodes on."""
        out: dict[str, object] = {
            "NumSysNodes": self.num_sys_nodes,
            "NumRefNodes": self.num_ref_nodes,
            "NodeType": "All" if self.node_type == "all" else self.node_type,
        }
        for n, c, m, f in zip(NODE_RECALL_NS, self.correct, self.missing, self.false_alarm, strict=True):
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


def top_counts(
    ranked_sys_files: Sequence[str], files: Collection[str], ns: Sequence[int] = NODE_RECALL_NS
) -> dict[str, tuple[int, ...]]:
    """How many times each of ``files`` is among the top n of the ranked list, for every n.

    One pass over the list collects the 0-based ranks of the wanted files; the top n
    then holds ``bisect(ranks, n)`` copies.  Files never ranked are left out (0 everywhere).
    Computed once per trial and shared by every node type.
    """
    wanted = set(files)
    ranks: dict[str, list[int]] = {}
    for i, f in enumerate(ranked_sys_files):
        if f in wanted:
            ranks.setdefault(f, []).append(i)
    return {f: tuple(bisect_left(r, n) for n in ns) for f, r in ranks.items()}


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
    in ``NumRefNodes`` for ``all`` (docs/scoring/provenance.md#filtering). For a node type, only reference
    nodes of that type are kept; system nodes of other types become false alarms.
    Duplicate rows multiply as in a pandas merge.  ``exclude`` names system files
    that keep their rank but are neither reference nor false alarm (the probe's
    own entry under the ``plan`` convention, docs/scoring/conventions.md).
    """
    return filter_trials(ref_files, ref_types, ranked_sys_files, (node_type,), ns, exclude)[0]


def filter_trials(
    ref_files: Sequence[str],
    ref_types: Sequence[str],
    ranked_sys_files: Sequence[str],
    node_types: Sequence[str],
    ns: Sequence[int] = NODE_RECALL_NS,
    exclude: Collection[str] = (),
) -> list[FilteringTrial]:
    """:func:`filter_trial` for several node types of one trial: the ranked list is read once."""
    counts = top_counts(ranked_sys_files, {*ref_files, *exclude}, ns)
    every: Counter[str] = Counter(ref_files)
    by_type: dict[str, Counter[str]] = {}
    for f, t in zip(ref_files, ref_types, strict=True):
        by_type.setdefault(t, Counter())[f] += 1
    return [
        _count(nt, every if nt == "all" else by_type.get(nt, Counter()), len(ranked_sys_files), counts, ns, exclude)
        for nt in node_types
    ]


def _count(
    node_type: str,
    ref: Counter[str],
    total: int,
    counts: Mapping[str, tuple[int, ...]],
    ns: Sequence[int],
    exclude: Collection[str],
) -> FilteringTrial:
    """Correct / Missing / FalseAlarm at every n from the per-file top-n counts (``top_counts``)."""
    zero = (0,) * len(ns)
    ks = list(ref.values())
    cols = list(zip(*map(counts.get, ref, repeat(zero)), strict=True)) or [()] * len(ns)
    others = [counts.get(f, zero) for f in exclude if f not in ref]
    inside = [sum(col) + sum(o[j] for o in others) for j, col in enumerate(cols)]
    return FilteringTrial(
        node_type=node_type,
        num_sys_nodes=total,
        num_ref_nodes=sum(ks),
        correct=tuple(sum(map(mul, ks, col)) for col in cols),
        missing=tuple(sum(compress(ks, map(not_, col))) for col in cols),
        false_alarm=tuple(min(n, total) - w for n, w in zip(ns, inside, strict=True)),
    )
