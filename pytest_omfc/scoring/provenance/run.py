"""Whole-run provenance scoring (docs/scoring/provenance.md) from tables and system JSONs.

Why: MediScore's two scorers abort the whole run on the first unreadable JSON
or system cycle. Here each trial that cannot be scored gets a
:class:`TrialReason` and the rest of the run is scored; only reference-side
faults that invalidate the run (a missing column, a cyclic journal) raise
:class:`ScoringError`. Tables are pipe-separated string tables (``read_table``)
or DataFrames; paths inside them are relative to ``ref_dir`` / ``sys_dir``.
"""

from __future__ import annotations

import math
import numbers
import os
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias

import pandas as pd

from pytest_omfc.errors import SetupError
from pytest_omfc.jsonio import MAX_JSON_BYTES, JsonProblem, load_json
from pytest_omfc.paths import resolve_inside
from pytest_omfc.scoring.merge import as_frame, require
from pytest_omfc.scoring.provenance.filtering import (
    NODE_RECALL_NS,
    NODE_TYPES,
    filter_trials,
    rank_system_nodes,
)
from pytest_omfc.scoring.provenance.graph import (
    Convention,
    GraphInputError,
    Journal,
    file_id,
    match_graphs,
    parse_journal,
    reference_graph,
    restrict_direct,
    system_graph,
)

__all__ = [
    "FILTERING_SCORE_COLUMNS",
    "FILTERING_TRIAL_COLUMNS",
    "GRAPH_SCORE_COLUMNS",
    "GRAPH_TRIAL_COLUMNS",
    "FilteringResult",
    "GraphBuildingResult",
    "TrialReason",
    "score_filtering",
    "score_graph_building",
]

Table: TypeAlias = str | Path | pd.DataFrame

#: Statuses that are scored; every other row is dropped, not scored as 0 (docs/scoring/provenance.md#trials,
# docs/scoring/conventions.md).
SCORED_STATUSES = frozenset({"Processed", "N"})

GRAPH_TRIAL_COLUMNS: tuple[str, ...] = (
    "JournalName",
    "ProvenanceProbeFileID",
    "Direct",
    "ProvenanceOutputFileName",
    "NumSysNodes",
    "NumSysLinks",
    "NumRefNodes",
    "NumRefLinks",
    "NumCorrectNodes",
    "NumMissingNodes",
    "NumFalseAlarmNodes",
    "NumCorrectLinks",
    "NumMissingLinks",
    "NumFalseAlarmLinks",
    "SimNLO",
    "SimNO",
    "SimLO",
    "NodeRecall",
)
GRAPH_SCORE_COLUMNS: tuple[str, ...] = (
    "Direct",
    "MeanSimNLO",
    "MeanSimNO",
    "MeanSimLO",
    "MeanNodeRecall",
)
NODE_MAPPING_COLUMNS: tuple[str, ...] = (
    "JournalName",
    "ProvenanceProbeFileID",
    "Direct",
    "ProvenanceOutputFileName",
    "WorldFileID",
    "NodeConfidence",
    "Mapping",
)
LINK_MAPPING_COLUMNS: tuple[str, ...] = (
    "JournalName",
    "ProvenanceProbeFileID",
    "Direct",
    "ProvenanceOutputFileName",
    "SourceWorldFileID",
    "TargetWorldFileID",
    "LinkConfidence",
    "Mapping",
)
FILTERING_TRIAL_COLUMNS: tuple[str, ...] = (
    (
        "JournalName",
        "ProvenanceProbeFileID",
        "ProvenanceOutputFileName",
        "NumSysNodes",
        "NumRefNodes",
        "NodeType",
    )
    + tuple(f"Num{kind}NodesAt{n}" for n in NODE_RECALL_NS for kind in ("Correct", "Missing", "FalseAlarm"))
    + tuple(f"NodeRecallAt{n}" for n in NODE_RECALL_NS)
)
FILTERING_SCORE_COLUMNS: tuple[str, ...] = ("NodeType",) + tuple(f"NodeRecallAt{n}" for n in NODE_RECALL_NS)
FILTERING_MAPPING_COLUMNS: tuple[str, ...] = (
    "JournalName",
    "ProvenanceProbeFileID",
    "ProvenanceOutputFileName",
    "Measure",
    "WorldFileID",
    "NodeConfidence",
    "Mapping",
    "NodeType",
)


class _MappingRows:
    """A mapping table as it is gathered: each trial's own columns once with its row count, the varying
    columns as one list each, holding objects the trial already has (the graphs' file IDs and confidences).

    A tuple per row (with its own copies of the shared columns' references) cost several times the
    pointer per varying cell held here until :meth:`frame` builds the same DataFrame
    (``benchmarks/score_provenance.py --only-whole`` prints the peaks).
    """

    def __init__(self, columns: Sequence[str], shared: int) -> None:
        self.columns = list(columns)
        self.shared = shared  # the first ``shared`` columns: one value per trial
        self.heads: list[tuple[Any, ...]] = []
        self.counts: list[int] = []
        self.cells: list[list[Any]] = [[] for _ in self.columns[shared:]]

    def trial(self, *head: Any) -> None:
        """The next rows belong to the trial of ``head`` (the shared columns)."""
        self.heads.append(head)
        self.counts.append(0)

    def add(self, *values: Any) -> None:
        for cells, value in zip(self.cells, values, strict=True):
            cells.append(value)
        self.counts[-1] += 1

    def frame(self) -> pd.DataFrame:
        """The table, as ``pd.DataFrame(rows, columns=...)`` of the row tuples gives it (dtypes inferred per
        column from lists).  Called once, at the end: the gathered lists go to the frame and this object
        keeps none of them, so they are freed with the frame's construction."""
        if not any(self.counts):  # no row: object columns, as from an empty list of rows
            return pd.DataFrame([], columns=self.columns)
        data: dict[str, Any] = {}
        for j, name in enumerate(self.columns[: self.shared]):
            data[name] = [h[j] for h, n in zip(self.heads, self.counts, strict=True) for _ in range(n)]
        for name, cells in zip(self.columns[self.shared :], self.cells, strict=True):
            data[name] = cells
        self.cells = []
        return pd.DataFrame(data, columns=self.columns)


@dataclass(frozen=True)
class TrialReason:
    """Why a trial was not scored (``scored=False``) or what to know about its score."""

    probe_id: str
    output_file: str
    reason: str
    scored: bool
    opted_out: bool = False  # not scored by the system's own status (docs/scoring/provenance.md#trials): not a failure


@dataclass(frozen=True, eq=False)
class GraphBuildingResult:
    """Graph-building result with MediScore's scores.csv / trial_scores.csv / mapping columns."""

    scores: pd.DataFrame
    trial_scores: pd.DataFrame
    node_mapping: pd.DataFrame
    link_mapping: pd.DataFrame
    reasons: tuple[TrialReason, ...]


@dataclass(frozen=True, eq=False)
class FilteringResult:
    """Filtering result with MediScore's scores.csv / trial_scores.csv / node_mapping columns."""

    scores: pd.DataFrame
    trial_scores: pd.DataFrame
    node_mapping: pd.DataFrame
    reasons: tuple[TrialReason, ...]


_frame, _require = as_frame, require  # set-up tables: a problem is a SetupError (the item fails)


def _trials(index: pd.DataFrame, ref: pd.DataFrame, system: pd.DataFrame) -> tuple[pd.DataFrame, list[TrialReason]]:
    """Index x reference x kept system rows (docs/scoring/provenance.md#trials); dropped rows get a reason."""
    _require(index, ["ProvenanceProbeFileID", "ProvenanceProbeFileName"], "provenance index")
    _require(
        ref,
        ["ProvenanceProbeFileID", "JournalName", "JournalFileName"],
        "provenance reference",
    )
    _require(
        system,
        ["ProvenanceProbeFileID", "ProvenanceOutputFileName"],
        "provenance system output",
    )
    reasons: list[TrialReason] = []
    all_probes = set(system["ProvenanceProbeFileID"])
    status_cols = [c for c in ("IsOptOut", "ProvenanceProbeStatus") if c in system.columns]
    if status_cols:
        keep = system[status_cols].isin(SCORED_STATUSES).any(axis=1)
        for _, row in system[~keep].iterrows():
            status = ", ".join(f"{c}={row[c]!r}" for c in status_cols)
            reasons.append(
                TrialReason(
                    row["ProvenanceProbeFileID"],
                    row["ProvenanceOutputFileName"],
                    f"{status}: not scored and not in the mean (docs/scoring/provenance.md#trials)",
                    False,
                    opted_out=True,
                )
            )
        system = system[keep]
    left = index[["ProvenanceProbeFileID", "ProvenanceProbeFileName"]].merge(
        ref[["ProvenanceProbeFileID", "JournalName", "JournalFileName"]],
        on="ProvenanceProbeFileID",
    )
    sys_cols = ["ProvenanceProbeFileID", "ProvenanceOutputFileName"]
    unknown = system[~system["ProvenanceProbeFileID"].isin(left["ProvenanceProbeFileID"])]
    for _, row in unknown.iterrows():
        reasons.append(
            TrialReason(
                row["ProvenanceProbeFileID"],
                row["ProvenanceOutputFileName"],
                "ProvenanceProbeFileID is not in the index joined with the reference: not scored",
                False,
            )
        )
    unanswered = left[~left["ProvenanceProbeFileID"].isin(all_probes)]
    for pid in unanswered["ProvenanceProbeFileID"]:
        reasons.append(TrialReason(pid, "", "no system output row for this probe: not scored", False))
    trials = left.merge(system[sys_cols], on="ProvenanceProbeFileID", how="inner")
    return trials.reset_index(drop=True), reasons


class _Journals:
    """Journal cache: each journal file is read and checked once per run, and kept until the last trial
    that names it (:func:`_scorable` drops it then; kept to the end, every journal of a run stayed in memory).

    Graph building reads the links and refuses a cycle; filtering (``links=False``)
    needs the node types only.
    """

    def __init__(self, ref_dir: Path, max_bytes: int, links: bool) -> None:
        self.ref_dir, self.max_bytes, self.links = ref_dir, max_bytes, links
        self.cache: dict[str, Journal | str] = {}

    def get(self, rel: str) -> Journal | str:
        """The parsed journal, or a reason string; a cyclic journal raises ScoringError."""
        if rel not in self.cache:
            try:
                doc = _read(self.ref_dir / rel, self.max_bytes)
                self.cache[rel] = parse_journal(doc, rel, check_cycles=self.links, links=self.links)
            except (JsonProblem, GraphInputError) as exc:
                self.cache[rel] = f"journal {exc}" if isinstance(exc, JsonProblem) else str(exc)
        return self.cache[rel]

    def drop(self, rel: str) -> None:
        """No trial needs ``rel`` any more."""
        self.cache.pop(rel, None)


#: One node-table row of a probe: (WorldFileID, WorldFileName, JournalNodeID).
NodeRow: TypeAlias = tuple[str, str, str]


def _node_groups(node: pd.DataFrame) -> dict[str, list[NodeRow]]:
    """Node-table rows per probe, as plain lists built in one pass (per-trial pandas work was the cost)."""
    _require(
        node,
        ["ProvenanceProbeFileID", "WorldFileID", "WorldFileName", "JournalNodeID"],
        "provenance node table",
    )
    groups: dict[str, list[NodeRow]] = {}
    cols = (node[c].tolist() for c in ("ProvenanceProbeFileID", "WorldFileID", "WorldFileName", "JournalNodeID"))
    for pid, wid, wname, jid in zip(*cols, strict=True):
        groups.setdefault(pid, []).append((wid, wname, jid))
    return groups


class RejectedByRule(JsonProblem):
    """A PROV rule fails this JSON (the text names it): the trial is not scored, as the rules say."""


def _read(path: Path, max_bytes: int) -> Any:
    """The one JSON reader of the package (:func:`pytest_omfc.jsonio.load_json`, as the PROV rules read), its
    problem named with the file as the per-trial reasons are: ``<path>: must ... (got ...)``."""
    try:
        return load_json(path, max_bytes)
    except JsonProblem as exc:
        raise JsonProblem(f"{path}: {exc.why}", exc.missing) from None


def _read_system(sys_dir: Path, rel: str, max_bytes: int, rejected: Mapping[str, str] | None = None) -> Any:
    if not rel.strip():
        raise JsonProblem("ProvenanceOutputFileName is blank (PROV-01)")
    path, why = resolve_inside(sys_dir, rel)
    if path is None:
        raise JsonProblem(f"ProvenanceOutputFileName {why}")
    if rejected and os.path.abspath(path) in rejected:
        raise RejectedByRule(rejected[os.path.abspath(path)])
    return _read(path, max_bytes)


def _unread(pid: str, out: str, exc: Exception) -> TrialReason:
    """The reason of a trial whose JSON was not used: the rule that rejected it, or PROV-02's."""
    if isinstance(exc, RejectedByRule):
        return TrialReason(pid, out, f"{exc}: trial not scored", False)
    return TrialReason(pid, out, f"{exc}: trial not scored (PROV-02)", False)


def _unresolved(g: list[NodeRow] | None, journal: Journal) -> str | None:
    """A note naming node-table JournalNodeIDs the journal lacks (they cannot be present nodes)."""
    if g is None:
        return None
    bad = sorted({jid for _, _, jid in g} - journal.node_types.keys())
    if not bad:
        return None
    more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
    return f"node table JournalNodeID {bad[:5]}{more} not in journal {journal.name}: ignored"


def _scorable(
    trials: pd.DataFrame,
    journals: _Journals,
    groups: dict[str, list[NodeRow]],
    reasons: list[TrialReason],
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[tuple[Any, str, str, str, Journal, list[NodeRow] | None]]:
    """Each trial whose journal can be read, with its node-table rows: ``(row, probe, output, journal
    name, journal, rows)``.  Both scorers share this: an unreadable journal is the trial's reason
    (not scored), node ids the journal lacks a note (scored).  ``progress(k, n)`` is told after the
    k-th of the n trials is done (``(0, n)`` first): the caller may draw it."""
    total = len(trials)
    if progress is not None:
        progress(0, total)
    to_come = Counter(trials["JournalFileName"].tolist()) if total else Counter()  # trials per journal
    for k, t in enumerate(trials.itertuples(index=False), 1):
        pid, out = t.ProvenanceProbeFileID, t.ProvenanceOutputFileName
        journal = journals.get(t.JournalFileName)
        if isinstance(journal, str):
            reasons.append(TrialReason(pid, out, journal, False))
        else:
            g = groups.get(pid)
            note = _unresolved(g, journal)
            if note:
                reasons.append(TrialReason(pid, out, note, True))
            yield t, pid, out, t.JournalName, journal, g
        to_come[t.JournalFileName] -= 1
        if to_come[t.JournalFileName] <= 0:
            journals.drop(t.JournalFileName)
        if progress is not None:
            progress(k, total)


def _check_convention(convention: str) -> None:
    if convention not in ("mediscore", "plan"):
        raise SetupError(f"unknown convention {convention!r}; use 'mediscore' or 'plan'")


def _fmt_conf(v: Any) -> Any:
    return "" if v is None else v


def _file_ids(known: Mapping[str, str]) -> Callable[[str], str]:
    """:func:`.graph.file_id` for one trial, each path's ID made once (a node named by several rows and
    links shares one string)."""
    made: dict[str, str] = {}

    def name(path: str) -> str:
        got = made.get(path)
        if got is None:
            got = made[path] = file_id(path, known)
        return got

    return name


def score_graph_building(
    index: Table,
    reference: Table,
    node: Table,
    world: Table,
    system: Table,
    ref_dir: str | Path,
    sys_dir: str | Path,
    *,
    direct: bool = False,
    undirected: bool = False,
    convention: Convention = "mediscore",
    mappings: bool = True,
    max_json_bytes: int = MAX_JSON_BYTES,
    progress: Callable[[int, int], None] | None = None,
    rejected: Mapping[str, str] | None = None,
) -> GraphBuildingResult:
    """Score a graph-building run (docs/scoring/provenance.md), as MediScore's ``-d``/``-u``/``-c`` allow.

    Present nodes are the probe's node.csv rows whose WorldFileID is in world.csv,
    plus the probe's own row (WorldFileID == ProvenanceProbeFileID), keyed by the
    index's ProvenanceProbeFileName. A system cycle is scored and noted.
    ``convention="plan"`` counts isolated present nodes and, in direct mode,
    restricts the system graph too (docs/scoring/conventions.md; :func:`.graph.reference_graph`,
    :func:`.graph.restrict_direct`).  ``mappings=False`` leaves the node and link
    mapping tables empty (they cost as much as the scores; the plugin builds them
    only for ``--omfc-provenance-mappings``).
    """
    _check_convention(convention)
    idx, ref = (
        _frame(index, "provenance index"),
        _frame(reference, "provenance reference"),
    )
    nodes, wld = _frame(node, "provenance node table"), _frame(world, "world index")
    sysdf = _frame(system, "provenance system output")
    _require(wld, ["WorldFileID"], "world index")
    trials, reasons = _trials(idx, ref, sysdf)
    groups = _node_groups(nodes)
    world_ids = set(wld["WorldFileID"].tolist())
    journals = _Journals(Path(ref_dir), max_json_bytes, links=True)
    sys_dir = Path(sys_dir)
    rows: list[dict[str, Any]] = []
    raw: list[dict[str, float]] = []
    nmap = _MappingRows(NODE_MAPPING_COLUMNS, shared=4)
    lmap = _MappingRows(LINK_MAPPING_COLUMNS, shared=4)
    for t, pid, out, jname, journal, g in _scorable(trials, journals, groups, reasons, progress):
        present: dict[str, str] = {}
        ids: dict[str, str] = {t.ProvenanceProbeFileName: pid}
        if g is not None:
            for wid, wname, jid in g:
                if wid == pid:
                    present[jid] = t.ProvenanceProbeFileName
                elif wid in world_ids:
                    present.setdefault(jid, wname)
                    if mappings:
                        ids.setdefault(wname, wid)
        if not any(v == t.ProvenanceProbeFileName for v in present.values()):
            reasons.append(
                TrialReason(
                    pid,
                    out,
                    "the node table has no row for the probe itself "
                    "(WorldFileID == ProvenanceProbeFileID); probe node absent",
                    True,
                )
            )
        try:
            sg = system_graph(_read_system(sys_dir, out, max_json_bytes, rejected), out)
        except (JsonProblem, GraphInputError) as exc:
            reasons.append(_unread(pid, out, exc))
            continue
        rg = reference_graph(journal, present, t.ProvenanceProbeFileName, direct, convention)
        if direct and convention == "plan":
            sg = restrict_direct(sg, t.ProvenanceProbeFileName)
        if sg.has_cycle:
            reasons.append(TrialReason(pid, out, "system graph has a cycle: scored as is (PROV-15)", True))
        if not sg.nodes:
            reasons.append(TrialReason(pid, out, "system graph is empty: scored as is", True))
        if not rg.nodes:
            reasons.append(
                TrialReason(
                    pid,
                    out,
                    "reference graph is empty after reduction: scores are NaN",
                    True,
                )
            )
        m = match_graphs(rg, sg, undirected)
        met = m.metrics()
        raw.append(met)
        rows.append(
            {
                "JournalName": jname,
                "ProvenanceProbeFileID": pid,
                "Direct": direct,
                "ProvenanceOutputFileName": out,
                "NumSysNodes": m.num_sys_nodes,
                "NumSysLinks": m.num_sys_links,
                "NumRefNodes": m.num_ref_nodes,
                "NumRefLinks": m.num_ref_links,
                "NumCorrectNodes": m.num_correct_nodes,
                "NumMissingNodes": m.num_ref_nodes - m.num_correct_nodes,
                "NumFalseAlarmNodes": m.num_sys_nodes - m.num_correct_nodes,
                "NumCorrectLinks": m.num_correct_links,
                "NumMissingLinks": m.num_ref_links - m.num_correct_links,
                "NumFalseAlarmLinks": m.num_sys_links - m.num_correct_links,
                **{k: round(v, 12) for k, v in met.items()},
            }
        )
        if not mappings:
            continue
        nmap.trial(jname, pid, direct, out)
        lmap.trial(jname, pid, direct, out)
        name = _file_ids(ids)
        for f in sorted(rg.nodes | sg.nodes):
            kind = "Correct" if f in m.correct_nodes else ("Missing" if f in rg.nodes else "FalseAlarm")
            nmap.add(name(f), _fmt_conf(sg.node_confidence.get(f)), kind)
        used_sys = {s for _, s in m.link_pairs}
        for r_link, s_link in m.link_pairs:
            lmap.add(name(r_link[0]), name(r_link[1]), _fmt_conf(sg.link_confidence.get(s_link)), "Correct")
        for a, b in sorted(rg.links - m.correct_links):
            lmap.add(name(a), name(b), "", "Missing")
        for a, b in sorted(sg.links - used_sys):
            lmap.add(name(a), name(b), _fmt_conf(sg.link_confidence.get((a, b))), "FalseAlarm")
    trial_scores = pd.DataFrame(rows, columns=list(GRAPH_TRIAL_COLUMNS))
    means = pd.DataFrame(raw, columns=["SimNLO", "SimNO", "SimLO", "NodeRecall"]).mean(skipna=True)
    scores = pd.DataFrame(
        [
            {
                "Direct": direct,
                **{f"Mean{k}": round(float(v), 12) for k, v in means.items()},
            }
        ],
        columns=list(GRAPH_SCORE_COLUMNS),
    )
    return GraphBuildingResult(
        scores=scores,
        trial_scores=trial_scores,
        node_mapping=nmap.frame(),
        link_mapping=lmap.frame(),
        reasons=tuple(reasons),
    )


def _finite(v: Any) -> bool:
    """A real number (not a bool) that is finite as a float; an int past float range is not (no OverflowError)."""
    if type(v) is float:
        return math.isfinite(v)
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        return False
    try:
        return math.isfinite(float(v))
    except (OverflowError, ValueError):
        return False


def _sys_nodes(doc: Any, what: str) -> tuple[list[str], list[float], dict[str, Any]]:
    """Files and numeric confidences of a filtering JSON; a bad node is a per-trial reason."""
    if not isinstance(doc, dict) or not isinstance(doc.get("nodes"), list):
        raise GraphInputError(f"{what}: must be an object with a 'nodes' array")
    nodes = doc["nodes"]
    try:  # fast path: every node an object with a string file and a finite int/float score
        files: list[str] = [n["file"] for n in nodes]
        raw = [n.get("nodeConfidenceScore") for n in nodes]
        if all(type(f) is str for f in files) and all(type(v) is float or type(v) is int for v in raw):
            scores = [float(v) for v in raw]
            if all(map(math.isfinite, scores)):
                conf = {f: v for f, v in zip(reversed(files), reversed(raw), strict=False)}  # first node of a file wins
                return files, scores, conf
    except (TypeError, KeyError, AttributeError, OverflowError):
        pass
    files, scores, conf = [], [], {}
    for i, n in enumerate(nodes):
        if not isinstance(n, dict) or type(n.get("file")) is not str:
            raise GraphInputError(f"{what}: nodes[{i}] must be an object with a string 'file'")
        s = n.get("nodeConfidenceScore")
        if not _finite(s):
            raise GraphInputError(f"{what}: nodes[{i}].nodeConfidenceScore must be a finite number (got {s!r})")
        files.append(n["file"])
        scores.append(float(s))  # type: ignore[arg-type]  # _finite: a real number
        conf.setdefault(n["file"], s)
    return files, scores, conf


def score_filtering(
    index: Table,
    reference: Table,
    node: Table,
    world: Table,
    system: Table,
    ref_dir: str | Path,
    sys_dir: str | Path,
    *,
    node_types: Sequence[str] = ("all",),
    convention: Convention = "mediscore",
    mappings: bool = True,
    max_json_bytes: int = MAX_JSON_BYTES,
    progress: Callable[[int, int], None] | None = None,
    rejected: Mapping[str, str] | None = None,
) -> FilteringResult:
    """Score a filtering run (docs/scoring/provenance.md#filtering): NodeRecallAt50/100/200/300 per node type.

    ``node_types`` lists ``all`` (every reference node, probe included) and/or
    journal node types; MediScore's ``--nodetype all`` is
    ``("all", "donor", "base", "final", "interim")``. Ties in
    ``nodeConfidenceScore`` keep JSON order (see :mod:`.filtering`).
    ``convention="plan"``: the probe is not a reference node (recall over its
    ancestors and descendants, NC2017 plan 2.1.3); its own entry in the system
    list keeps its rank and is no false alarm (docs/scoring/conventions.md).
    ``mappings=False`` leaves the node mapping table empty.
    """
    _check_convention(convention)
    bad = [nt for nt in node_types if nt != "all" and nt not in NODE_TYPES]
    if bad:
        raise SetupError(f"unknown node type(s) {bad}: use all, {', '.join(NODE_TYPES)}")
    idx, ref = (
        _frame(index, "provenance index"),
        _frame(reference, "provenance reference"),
    )
    nodes, wld = _frame(node, "provenance node table"), _frame(world, "world index")
    sysdf = _frame(system, "provenance system output")
    _require(wld, ["WorldFileID", "WorldFileName"], "world index")
    trials, reasons = _trials(idx, ref, sysdf)
    groups = _node_groups(nodes)
    world_pairs = set(zip(wld["WorldFileID"].tolist(), wld["WorldFileName"].tolist(), strict=True))
    journals = _Journals(Path(ref_dir), max_json_bytes, links=False)
    sys_dir = Path(sys_dir)
    rows: list[dict[str, Any]] = []
    nmap = _MappingRows(FILTERING_MAPPING_COLUMNS, shared=3)
    measures = {n: f"NodeRecallAt{n}" for n in NODE_RECALL_NS}
    for t, pid, out, jname, journal, g in _scorable(trials, journals, groups, reasons, progress):
        ref_files: list[str] = []
        ref_types: list[str] = []
        ids: dict[str, str] = {t.ProvenanceProbeFileName: pid}
        if g is not None:
            for wid, wname, jid in g:
                if (wid, wname) in world_pairs and jid in journal.node_types:
                    ref_files.append(wname)
                    ref_types.append(journal.node_types[jid])
                    ids.setdefault(wname, wid)
        plan = convention == "plan"
        if not plan:
            ref_files.append(t.ProvenanceProbeFileName)
            ref_types.append("probe")
        exclude = {t.ProvenanceProbeFileName} if plan else set()
        try:
            files, scores, conf = _sys_nodes(_read_system(sys_dir, out, max_json_bytes, rejected), out)
        except (JsonProblem, GraphInputError) as exc:
            reasons.append(_unread(pid, out, exc))
            continue
        if not files:
            reasons.append(TrialReason(pid, out, "system output has no nodes: scored as is", True))
        ranked = rank_system_nodes(files, scores)
        type_of = dict(zip(ref_files, ref_types, strict=True))
        for nt, ft in zip(
            node_types, filter_trials(ref_files, ref_types, ranked, node_types, exclude=exclude), strict=True
        ):
            rows.append(
                {
                    "JournalName": jname,
                    "ProvenanceProbeFileID": pid,
                    "ProvenanceOutputFileName": out,
                    **ft.row(),
                }
            )
            if nt != "all" or not mappings:
                continue
            nmap.trial(jname, pid, out)
            name = _file_ids(ids)
            for n in NODE_RECALL_NS:
                top = set(ranked[:n])
                for f in dict.fromkeys(ref_files + ranked[:n]):
                    if f in exclude:
                        continue
                    kind = "Correct" if f in top and f in type_of else ("Missing" if f in type_of else "FalseAlarm")
                    nmap.add(measures[n], name(f), _fmt_conf(conf.get(f)) if f in top else "", kind, type_of.get(f, ""))
    trial_scores = pd.DataFrame(rows, columns=list(FILTERING_TRIAL_COLUMNS))
    recall_cols = [f"NodeRecallAt{n}" for n in NODE_RECALL_NS]
    if trial_scores.empty:
        scores = pd.DataFrame(columns=list(FILTERING_SCORE_COLUMNS))
    else:
        scores = (
            trial_scores.groupby("NodeType", sort=True)[recall_cols].mean().reset_index()[list(FILTERING_SCORE_COLUMNS)]
        )
    return FilteringResult(
        scores=scores,
        trial_scores=trial_scores,
        node_mapping=nmap.frame(),
        reasons=tuple(reasons),
    )
