"""Provenance graph building: reference graph, system graph, matching (docs/scoring/provenance.md#reference-graph,
docs/scoring/provenance.md#system-graph-and-matching).

Why a module of its own: MediScore aborts the whole run on a cycle in a system
graph unless ``-c`` is given; here a system cycle is only recorded (PROV-15) and
the graph is scored, while a cycle in a *journal* (reference data) is a
:class:`~pytest_omfc.errors.SetupError` naming the journal. Graphs are plain sets of path keys so
that matching is set arithmetic.
"""

from __future__ import annotations

import math
import os
from collections import Counter, defaultdict, deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import chain
from typing import Any, Literal

from pytest_omfc.errors import SetupError

__all__ = [
    "GraphInputError",
    "GraphMatch",
    "Journal",
    "RefGraph",
    "SysGraph",
    "match_graphs",
    "parse_journal",
    "reference_graph",
    "restrict_direct",
    "system_graph",
]

Link = tuple[str, str]
#: ``mediscore`` reproduces MediScore; ``plan`` follows the evaluation plans where docs/scoring/conventions.md says
# they differ.
Convention = Literal["mediscore", "plan"]


class GraphInputError(ValueError):
    """A graph JSON has the wrong shape (missing keys, indexes out of range); per-trial."""


@dataclass(frozen=True)
class Journal:
    """A journal reduced to what scoring needs: node ids, node types, id links."""

    name: str
    node_ids: tuple[str, ...]
    node_types: Mapping[str, str]
    links: frozenset[Link]


@dataclass(frozen=True)
class RefGraph:
    """Reference graph keyed by file path (docs/scoring/provenance.md#reference-graph step 5)."""

    nodes: frozenset[str]
    links: frozenset[Link]


@dataclass(frozen=True)
class SysGraph:
    """System graph keyed by ``file`` (duplicates collapse), with first-seen confidences."""

    nodes: frozenset[str]
    links: frozenset[Link]
    node_confidence: Mapping[str, Any]
    link_confidence: Mapping[Link, Any]
    has_cycle: bool


@dataclass(frozen=True)
class GraphMatch:
    """Counts and similarity scores of one trial (docs/scoring/provenance.md#system-graph-and-matching), unrounded."""

    num_sys_nodes: int
    num_sys_links: int
    num_ref_nodes: int
    num_ref_links: int
    correct_nodes: frozenset[str]
    correct_links: frozenset[Link]
    #: (reference link, system link used for it); differ only in undirected mode.
    link_pairs: tuple[tuple[Link, Link], ...]

    @property
    def num_correct_nodes(self) -> int:
        return len(self.correct_nodes)

    @property
    def num_correct_links(self) -> int:
        return len(self.link_pairs)

    def metrics(self) -> dict[str, float]:
        """SimNLO, SimNO, SimLO, NodeRecall; 0/0 is NaN as in MediScore."""
        cn, cl = self.num_correct_nodes, self.num_correct_links
        vr, vs, er, es = (
            self.num_ref_nodes,
            self.num_sys_nodes,
            self.num_ref_links,
            self.num_sys_links,
        )
        return {
            "SimNLO": _div(2 * (cn + cl), vr + vs + er + es),
            "SimNO": _div(2 * cn, vr + vs),
            "SimLO": _div(2 * cl, er + es),
            "NodeRecall": _div(cn, vr),
        }


def _div(num: float, den: float) -> float:
    return num / den if den else math.nan


def _graph_parts(doc: Any, what: str, need_links: bool) -> tuple[list[Any], list[Any]]:
    """Return (nodes, links) of a node-link JSON, or raise GraphInputError saying what is wrong."""
    if not isinstance(doc, dict):
        raise GraphInputError(f"{what}: top level must be an object (got {type(doc).__name__})")
    nodes = doc.get("nodes")
    if not isinstance(nodes, list):
        raise GraphInputError(f"{what}: 'nodes' must be an array (got {type(nodes).__name__})")
    links = doc.get("links", [] if not need_links else None)
    if not isinstance(links, list):
        raise GraphInputError(f"{what}: 'links' must be an array (got {type(links).__name__})")
    return nodes, links


def _index(link: Any, key: str, n: int, what: str, i: int) -> int:
    """A link end: an int index into ``nodes`` (PROV-09); anything else is a per-trial reason."""
    if not isinstance(link, dict):
        raise GraphInputError(f"{what}: links[{i}] must be an object")
    v = link.get(key)
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < n:
        raise GraphInputError(f"{what}: links[{i}].{key} must be a node index in [0, {n}) (got {v!r})")
    return v


def _ends(links: list[Any], n: int, what: str) -> list[tuple[int, int]]:
    """``(source, target)`` node indexes of every link, checked (PROV-09).

    The fast path reads all pairs at once and checks them in one expression; only
    when something is wrong does :func:`_index` walk the links to name the bad one.
    """
    try:
        ends = [(link["source"], link["target"]) for link in links]
    except (TypeError, KeyError):
        ends = None
    if ends is not None and all(type(s) is int and type(t) is int and 0 <= s < n and 0 <= t < n for s, t in ends):
        return ends
    return [(_index(link, "source", n, what, i), _index(link, "target", n, what, i)) for i, link in enumerate(links)]


def parse_journal(doc: Any, name: str, check_cycles: bool = True, links: bool = True) -> Journal:
    """Journal JSON -> id links, after the AntiForensic donor rule (docs/scoring/provenance.md#reference-graph step 1).

    A link with ``op == "Donor"`` is dropped when its target has an incoming link
    whose ``op`` starts with ``"AntiForensic"``. A cycle raises :class:`SetupError`
    naming the journal, because a journal is reference data and a cyclic one
    makes every trial built on it meaningless.  ``links=False`` (filtering, which
    needs the node types only) neither reads nor checks the links.
    """
    nodes, jlinks = _graph_parts(doc, f"journal {name}", need_links=links)
    try:
        ids: list[str] = [node["id"] for node in nodes]
        ok = all(type(i) is str for i in ids)
    except (TypeError, KeyError):
        ok = False
    if not ok:
        for i, node in enumerate(nodes):
            if not isinstance(node, dict) or type(node.get("id")) is not str:
                raise GraphInputError(f"journal {name}: nodes[{i}] must be an object with a string 'id'")
    types_of = [node.get("nodetype") for node in nodes]
    # the first node of an id gives its type: a reversed comprehension lets the first win
    types: dict[str, str] = {
        i: (nt if type(nt) is str else "") for i, nt in zip(reversed(ids), reversed(types_of), strict=False)
    }
    if not links:
        return Journal(name=name, node_ids=tuple(ids), node_types=types, links=frozenset())
    ends = _ends(jlinks, len(ids), f"journal {name}")
    ops = [link.get("op") for link in jlinks]
    af_targets = {
        ids[t] for (_, t), op in zip(ends, ops, strict=False) if type(op) is str and op.startswith("AntiForensic")
    }
    kept_idx = [(s, t) for (s, t), op in zip(ends, ops, strict=False) if not (op == "Donor" and ids[t] in af_targets)]
    kept = frozenset((ids[s], ids[t]) for s, t in kept_idx)
    unique = len(types) == len(ids)  # node ids unique: their indexes are the graph's nodes
    cyclic = check_cycles and (_has_cycle_idx(len(ids), kept_idx) if unique else _has_cycle(kept))
    cycle = _find_cycle(kept) if cyclic else []
    if cycle:
        raise SetupError(f"journal {name}: has a cycle ({' -> '.join(cycle)}); a journal must be acyclic (PROV-15)")
    return Journal(name=name, node_ids=tuple(ids), node_types=types, links=kept)


def _has_cycle(links: Iterable[Link]) -> bool:
    """Whether path- or id-keyed links have a cycle (numbers the nodes, then :func:`_has_cycle_idx`)."""
    links = list(links)
    code = {v: i for i, v in enumerate(dict.fromkeys(chain.from_iterable(links)))}
    return _has_cycle_idx(len(code), [(code[s], code[t]) for s, t in links])


def _has_cycle_idx(n: int, pairs: list[tuple[int, int]]) -> bool:
    """Whether links between nodes ``0..n-1`` have a cycle: Kahn's algorithm on lists (the per-trial check).

    When every link goes from a lower to a higher number (journals listed parent
    first) that order is topological and the walk is skipped.  :func:`_find_cycle`
    then names a cycle for the message.
    """
    if all(s < t for s, t in pairs):
        return False
    indeg = [0] * n
    out: list[list[int]] = [[] for _ in range(n)]
    for s, t in pairs:
        out[s].append(t)
        indeg[t] += 1
    stack = [v for v in range(n) if not indeg[v]]
    seen = 0
    while stack:
        v = stack.pop()
        seen += 1
        for w in out[v]:
            indeg[w] -= 1
            if not indeg[w]:
                stack.append(w)
    return seen != n


def _find_cycle(links: Iterable[Link]) -> list[str]:
    """Return one cycle as a node list (first node repeated), or [] when acyclic (Kahn)."""
    links = list(links)
    out: dict[str, list[str]] = defaultdict(list)
    indeg: Counter[str] = Counter()
    nodes: set[str] = set()
    for s, t in links:
        out[s].append(t)
        indeg[t] += 1
        nodes.update((s, t))
    queue = deque(v for v in nodes if indeg[v] == 0)
    seen = 0
    while queue:
        v = queue.popleft()
        seen += 1
        for w in out[v]:
            indeg[w] -= 1
            if indeg[w] == 0:
                queue.append(w)
    if seen == len(nodes):
        return []
    left = {v for v in nodes if indeg[v] > 0}
    preds: dict[str, list[str]] = defaultdict(list)
    for s, t in links:
        if s in left and t in left:
            preds[t].append(s)
    # Every node left has a predecessor left (its remaining in-degree), so walking
    # predecessors must revisit a node: that stretch is a cycle.
    v = min(left)
    path: list[str] = []
    pos: dict[str, int] = {}
    while v not in pos:
        pos[v] = len(path)
        path.append(v)
        v = min(preds[v])
    cyc = path[pos[v] :][::-1]
    k = cyc.index(min(cyc))  # start at the smallest id so the message is stable
    cyc = cyc[k:] + cyc[:k]
    return cyc + [cyc[0]]


def _reduce(links: frozenset[Link], present: Mapping[str, str]) -> set[Link]:
    """Transitive bypass of absent nodes (docs/scoring/provenance.md#reference-graph step 3), on id links.

    A present node p gets a link to a present node w when a path p -> ... -> w runs
    through absent nodes only: w is in the "present frontier" of p's absent child,
    computed once per absent node (memoised, iteratively).  Only on a cycle among
    absent nodes (not in a journal that passed the cycle check) does the node-by-node
    bypass of :func:`_bypass` run instead.
    """
    children: dict[str, list[str]] = defaultdict(list)
    for s, t in links:
        children[s].append(t)
    memo: dict[str, set[str]] = {}
    out: set[Link] = set()
    for s, t in links:
        if s not in present:
            continue
        if t in present:
            out.add((s, t))
            continue
        front = memo[t] if t in memo else _frontier(t, children, present, memo)
        if front is None:
            return _bypass(links, present)
        out.update((s, w) for w in front if w != s)
    return out


def _frontier(
    x: str, children: Mapping[str, list[str]], present: Mapping[str, str], memo: dict[str, set[str]]
) -> set[str] | None:
    """Present nodes reachable from absent ``x`` through absent nodes only; None on a cycle.

    An iterative depth-first walk over absent nodes (no recursion limit); ``path``
    holds the nodes of the current walk, so a child on it closes a cycle.
    """
    stack = [(x, iter(children.get(x, ())))]
    path = {x}
    while stack:
        v, it = stack[-1]
        for c in it:
            if c in present or c in memo:
                continue
            if c in path:
                return None
            path.add(c)
            stack.append((c, iter(children.get(c, ()))))
            break
        else:
            acc: set[str] = set()
            for c in children.get(v, ()):
                if c in present:
                    acc.add(c)
                else:
                    acc |= memo[c]
            memo[v] = acc
            path.discard(v)
            stack.pop()
    return memo[x]


def _bypass(links: frozenset[Link], present: Mapping[str, str]) -> set[Link]:
    """Node-by-node transitive bypass (MediScore's reduction), for graphs with a cycle among absent nodes."""
    ins: dict[str, set[str]] = defaultdict(set)
    outs: dict[str, set[str]] = defaultdict(set)
    for s, t in links:
        outs[s].add(t)
        ins[t].add(s)
    absent = sorted({v for link in links for v in link if v not in present})
    for x in absent:
        preds, succs = ins.pop(x, set()), outs.pop(x, set())
        for p in preds:
            outs[p].discard(x)
        for s in succs:
            ins[s].discard(x)
        for p in preds:
            for s in succs:
                if p != s:
                    outs[p].add(s)
                    ins[s].add(p)
    return {(s, t) for s, ts in outs.items() for t in ts}


def _direct(links: set[Link], probe: str) -> set[Link]:
    """Edges reachable upward (in-edges) and downward (out-edges) from the probe (3.2 step 4)."""
    ins: dict[str, list[str]] = defaultdict(list)
    outs: dict[str, list[str]] = defaultdict(list)
    for s, t in links:
        outs[s].append(t)
        ins[t].append(s)
    kept: set[Link] = set()
    for adj, up in ((ins, True), (outs, False)):
        seen = {probe}
        queue = deque([probe])
        while queue:
            v = queue.popleft()
            for w in adj[v]:
                kept.add((w, v) if up else (v, w))
                if w not in seen:
                    seen.add(w)
                    queue.append(w)
    return kept


def reference_graph(
    journal: Journal,
    present: Mapping[str, str],
    probe_path: str,
    direct: bool,
    convention: Convention = "mediscore",
) -> RefGraph:
    """Reference graph of one trial (docs/scoring/provenance.md#reference-graph steps 2-5).

    ``present`` maps journal node id -> file path for the present nodes (world
    files of this probe, plus the probe's own node mapped to the probe path).
    ``mediscore``: the nodes are the endpoints of the remaining links, so an
    isolated present node is not counted (docs/scoring/provenance.md#reference-graph step 5, 7.12).
    ``plan``: every present node counts, linked or not ("all images related to
    the probe ... must be in the graph", MFC2019 plan 2.1.4.4); in direct mode
    the probe and the nodes with a directed path to or from it.
    """
    reduced = _reduce(journal.links, present)
    path_links = {(present[s], present[t]) for s, t in reduced}
    if direct:
        path_links = _direct(path_links, probe_path)
    nodes = {v for link in path_links for v in link}
    if convention == "plan":
        paths = set(present.values())
        nodes |= ({probe_path} & paths) if direct else paths
    return RefGraph(nodes=frozenset(nodes), links=frozenset(path_links))


def restrict_direct(sys: SysGraph, probe_path: str) -> SysGraph:
    """The system graph's direct part (``plan`` convention, MFC2019 plan 2.1.4.4).

    Under the direct graph condition the plan restricts "the node set ... to
    ancestors and descendants of the probe"; MediScore restricts the reference
    only (docs/scoring/conventions.md).  Here the system graph is restricted the same way
    as the reference: the links reached upward and downward from the probe's
    file, their endpoints, and the probe's node itself.
    """
    links = _direct(set(sys.links), probe_path)
    nodes = {v for link in links for v in link} | ({probe_path} & sys.nodes)
    return SysGraph(
        nodes=frozenset(nodes),
        links=frozenset(links),
        node_confidence=sys.node_confidence,
        link_confidence=sys.link_confidence,
        has_cycle=sys.has_cycle,
    )


def system_graph(doc: Any, what: str) -> SysGraph:
    """System graph JSON -> path-keyed sets (docs/scoring/provenance.md#system-graph-and-matching); a cycle is
    recorded, not fatal."""
    nodes, links = _graph_parts(doc, what, need_links=False)
    for i, node in enumerate(nodes):
        if not isinstance(node, dict) or type(node.get("file")) is not str:
            raise GraphInputError(f"{what}: nodes[{i}] must be an object with a string 'file'")
    files: list[str] = [node["file"] for node in nodes]
    # first-seen confidences: a reversed comprehension lets the first node (link) of a key win
    conf: dict[str, Any] = {node["file"]: node.get("nodeConfidenceScore") for node in reversed(nodes)}
    ends = _ends(links, len(files), what)
    lconf: dict[Link, Any] = {
        (files[s], files[t]): link.get("relationshipConfidenceScore")
        for (s, t), link in zip(reversed(ends), reversed(links), strict=False)
    }
    # files unique: node indexes are the graph's nodes; otherwise number the collapsed files
    cyclic = _has_cycle_idx(len(files), ends) if len(conf) == len(files) else _has_cycle(lconf)
    return SysGraph(
        nodes=frozenset(files),
        links=frozenset(lconf),
        node_confidence=conf,
        link_confidence=lconf,
        has_cycle=cyclic,
    )


def match_graphs(ref: RefGraph, sys: SysGraph, undirected: bool) -> GraphMatch:
    """Match nodes by path and links by (source, target) (docs/scoring/provenance.md#system-graph-and-matching).

    Undirected: a reference link (a, b) matches a system (a, b) or (b, a), each
    system link used once; exact matches are taken first, then reversed ones, in
    sorted order, so the count is deterministic.
    """
    pairs: list[tuple[Link, Link]] = [(e, e) for e in sorted(ref.links & sys.links)]
    if undirected:
        used = {e for e, _ in pairs}
        free = set(sys.links) - used
        for a, b in sorted(ref.links - used):
            if (b, a) in free:
                free.discard((b, a))
                pairs.append(((a, b), (b, a)))
    return GraphMatch(
        num_sys_nodes=len(sys.nodes),
        num_sys_links=len(sys.links),
        num_ref_nodes=len(ref.nodes),
        num_ref_links=len(ref.links),
        correct_nodes=ref.nodes & sys.nodes,
        correct_links=frozenset(r for r, _ in pairs),
        link_pairs=tuple(pairs),
    )


def file_id(path: str, known: Mapping[str, str]) -> str:
    """WorldFileID of a path: from the tables when known, else the file's stem (system-only nodes)."""
    return known.get(path) or os.path.splitext(os.path.basename(path))[0]
