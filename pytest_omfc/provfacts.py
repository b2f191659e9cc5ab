"""What the PROV rules learn from one provenance JSON file: read, validated and reduced to :class:`Facts`.

The half of the PROV rules that runs in pool workers (:func:`read_many`, ``--omfc-jobs``): it imports no
pandas and no rule, so that a worker of a large provenance check starts with the JSON reader
(:func:`pytest_omfc.jsonio.load_json`, shared with the scorer), the task's schema
(:mod:`pytest_omfc.models.provenance`) and this module only.  The rules themselves
(:mod:`pytest_omfc.rules.prov`) render the facts.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .editions import Task
from .findings import plural, shorten
from .jsonio import MAX_JSON_BYTES, JsonProblem, load_json

if TYPE_CHECKING:
    from pydantic import BaseModel

    from .models.provenance import SchemaError

__all__ = ["MAX_BYTES", "Facts", "Tally", "find_cycle", "read_many"]

PF, PG = Task.PF, Task.PG
#: A provenance JSON of 500 nodes is ~100 KB; anything this large is not one (and would stall the run).
MAX_BYTES = MAX_JSON_BYTES
_MISSING = object()


@dataclass
class Tally:
    """How many places in one JSON break a rule, and the first of them."""

    count: int = 0
    where: str = ""  # JSON location of the first, e.g. nodes[3].fileid
    note: str = ""  # "must ... (got ...)"
    value: Any = None

    def add(self, where: str, note: str, value: Any = None) -> None:
        if self.count == 0:
            self.where, self.note, self.value = where, note, value
        self.count += 1


@dataclass
class Facts:
    """What the PROV rules need to know about one parsed JSON object (kept small on purpose)."""

    n_nodes: int | None  # None when ``nodes`` is not an array
    schema: Tally = field(default_factory=Tally)  # against the task's schema (PROV-03/04)
    filtering_ok: bool = True  # passes the filtering schema (PROV-05 in the graph task)
    has_links: bool = False
    fileid: Tally = field(default_factory=Tally)  # PROV-06
    index: Tally = field(default_factory=Tally)  # PROV-07
    dup_ids: Tally = field(default_factory=Tally)  # PROV-08
    links: Tally = field(default_factory=Tally)  # PROV-09
    conf: Tally = field(default_factory=Tally)  # PROV-10
    probe_found: bool = False  # PROV-13
    unlinked: int = 0  # PROV-14: nodes on no link
    self_loops: Tally = field(default_factory=Tally)  # PROV-15
    cycle: list[str] | None = None  # PROV-15: node labels along one cycle


def read_many(
    items: list[tuple[str, str, str | None]],
    *,
    task: Task,
    known: dict[str, str],
    by_name: dict[str, str],
    have_world: bool,
) -> list[tuple[Facts | None, str | None, bool]]:
    """Read and analyse ``(path, key, probe file)`` items; runs in a pool process for large submissions."""
    out: list[tuple[Facts | None, str | None, bool]] = []
    for path, key, probe_file in items:
        doc, problem, missing = _load(Path(path))
        facts = _analyse(doc, task, key, probe_file, known, by_name, have_world) if doc is not None else None
        out.append((facts, problem, missing))
    return out


# --------------------------------------------------------------------------- reading one file


def _load(path: Path) -> tuple[Any, str | None, bool]:
    """``(object, None, False)`` or ``(None, why, missing)``; never raises, never blocks on a FIFO.

    The strict, bounded reading is :func:`pytest_omfc.jsonio.load_json`, shared with the scorer.
    """
    try:
        doc = load_json(path, MAX_BYTES)
    except JsonProblem as exc:
        return None, exc.why, exc.missing
    if not isinstance(doc, dict):
        return None, f"must hold a JSON object with a nodes array (got {_json_kind(doc)})", False
    return doc, None, False


def _json_kind(value: Any) -> str:
    if isinstance(value, list):
        return f"a list of {plural(len(value), 'item')}"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return "a number"
    return "null" if value is None else type(value).__name__


def _show(value: Any) -> str:
    """A JSON value as it appears in the file, shortened."""
    try:
        return shorten(json.dumps(value), 40)
    except (TypeError, ValueError):
        return shorten(repr(value), 40)


def _scalar(value: Any) -> Any:
    return value if isinstance(value, (str, int, float)) else None


# --------------------------------------------------------------------------- analysing one object


def _schema_model(task: Task) -> type[BaseModel]:
    """PROV-05: the graph schema for ``provenance``, the filtering schema otherwise (B-05 not copied)."""
    from .models.provenance import ProvenanceFiltering, ProvenanceGraph  # jsonschema: only for PF/PG checks

    return ProvenanceGraph if task is PG else ProvenanceFiltering


def _where(path: Any) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


def _err_order(err: SchemaError) -> tuple[Any, ...]:
    return tuple((0, p, "") if isinstance(p, int) else (1, 0, str(p)) for p in err.path)


def _nist_path_problem(file: str) -> str | None:
    """Why ``file`` cannot be a path of a NIST index (relative, '/'-separated, no '..')."""
    if not file.strip():
        return "an empty path"
    if file.startswith("/") or (len(file) > 1 and file[1] == ":"):
        return f"the absolute path {file!r}"
    if "\\" in file:
        return f"{file!r} with backslashes"
    parts = file.split("/")
    if ".." in parts or "." in parts:
        return f"{file!r} with '.' or '..' steps"
    return None


def _analyse(
    doc: dict[str, Any],
    task: Task,
    key: str,
    probe_file: str | None,
    known: dict[str, str],
    by_name: dict[str, str],
    have_world: bool,
) -> Facts:
    nodes = doc.get("nodes")
    node_list = nodes if isinstance(nodes, list) else None
    n = len(node_list) if node_list is not None else None
    facts = Facts(n_nodes=n)

    from .models.provenance import ProvenanceFiltering, validator_for

    errors = sorted(validator_for(_schema_model(task)).iter_errors(doc), key=_err_order)
    for err in errors:
        facts.schema.add(_where(err.path), shorten(err.message, 160), _scalar(err.instance))
    if errors and task is PG:
        facts.filtering_ok = validator_for(ProvenanceFiltering).is_valid(doc)

    def label(i: int) -> str:
        node = node_list[i] if node_list is not None else None
        return node["id"] if isinstance(node, dict) and isinstance(node.get("id"), str) else f"nodes[{i}]"

    seen_ids: dict[str, int] = {}
    for i, node in enumerate(node_list or []):
        if not isinstance(node, dict):
            continue
        nid, file, fid = node.get("id"), node.get("file"), node.get("fileid", _MISSING)
        if fid is _MISSING:
            facts.fileid.add(f"nodes[{i}]", "every node must carry a fileid, the NIST file ID (got none)")
        elif isinstance(fid, str) and not fid.strip():
            facts.fileid.add(
                f"nodes[{i}].fileid", "every node must carry a fileid, the NIST file ID (got an empty one)", fid
            )
        if isinstance(nid, str):
            if nid in seen_ids:
                facts.dup_ids.add(
                    f"nodes[{i}].id",
                    f"node ids must be unique in the file (got {nid!r} again, first at nodes[{seen_ids[nid]}])",
                    nid,
                )
            else:
                seen_ids[nid] = i
        fid_s = fid if isinstance(fid, str) and fid.strip() else None
        file_s = file if isinstance(file, str) else None
        _check_index(facts.index, i, file_s, fid_s, known, by_name, have_world)
        if (fid_s is not None and fid_s == key) or (probe_file is not None and file_s == probe_file):
            facts.probe_found = True

    links = doc.get("links")
    facts.has_links = isinstance(links, list)
    edges: list[tuple[int, int, int]] = []
    for j, link in enumerate(links if isinstance(links, list) else []):
        if not isinstance(link, dict):
            continue
        ends: list[int] = []
        for end in ("source", "target"):
            if end not in link or n is None:
                continue
            v = link[end]
            if isinstance(v, bool) or not isinstance(v, int):
                facts.links.add(
                    f"links[{j}].{end}", f"must be an integer index into nodes (got {_show(v)})", _scalar(v)
                )
            elif not 0 <= v < n:
                span = f"0..{n - 1}" if n else "nothing (nodes is empty)"
                facts.links.add(f"links[{j}].{end}", f"must be a node index in {span} (got {v})", v)
            else:
                ends.append(v)
        if len(ends) == 2:
            edges.append((ends[0], ends[1], j))
        conf = link.get("relationshipConfidenceScore", _MISSING)
        if conf is _MISSING:
            facts.conf.add(f"links[{j}]", "every link must carry a relationshipConfidenceScore (got none)")
        elif isinstance(conf, bool) or not isinstance(conf, (int, float)):
            facts.conf.add(
                f"links[{j}].relationshipConfidenceScore", f"must be a number (got {_show(conf)})", _scalar(conf)
            )

    if n:
        on_link = {s for s, _, _ in edges} | {t for _, t, _ in edges}
        facts.unlinked = n - len(on_link) if n > 1 else 0
        for s, t, j in edges:
            if s == t:
                facts.self_loops.add(f"links[{j}]", f"must not link a node to itself (got {label(s)} -> {label(s)})")
        cycle = find_cycle(n, [(s, t) for s, t, _ in edges if s != t])
        if cycle is not None:
            shown = [label(i) for i in cycle]
            facts.cycle = shown if len(shown) <= 8 else shown[:4] + ["..."] + shown[-3:]
    return facts


def _check_index(
    tally: Tally,
    i: int,
    file: str | None,
    fid: str | None,
    known: dict[str, str],
    by_name: dict[str, str],
    have_world: bool,
) -> None:
    """PROV-07 for one node: ``file`` and ``fileid`` as the NIST index gives them (D-20)."""
    if fid is not None and file is not None and known.get(fid) == file:
        return  # the common case: both as in the index
    if file is not None:
        bad = _nist_path_problem(file)
        if bad:
            tally.add(
                f"nodes[{i}].file",
                f"must be the file's path as in the NIST index, e.g. world/<name>.jpg (got {bad})",
                file,
            )
            return
    if fid is not None and fid in known:
        if file is not None and file != known[fid]:
            tally.add(
                f"nodes[{i}].file", f"must be {known[fid]!r}, the index path of fileid {fid!r} (got {file!r})", file
            )
        return
    if file is not None and file in by_name:
        if fid is not None:
            tally.add(f"nodes[{i}].fileid", f"must be {by_name[file]!r}, the index ID of {file!r} (got {fid!r})", fid)
        return
    if have_world:
        if fid is not None:
            tally.add(
                f"nodes[{i}].fileid",
                f"must be a WorldFileID or ProvenanceProbeFileID of the index (got {fid!r}, in neither)",
                fid,
            )
        elif file is not None:
            tally.add(
                f"nodes[{i}].file",
                f"must be a WorldFileName or ProvenanceProbeFileName of the index (got {file!r}, in neither)",
                file,
            )


def find_cycle(n: int, edges: list[tuple[int, int]]) -> list[int] | None:
    """One directed cycle as node indexes (first == last), or None; iterative DFS."""
    adj: list[list[int]] = [[] for _ in range(n)]
    for s, t in edges:
        adj[s].append(t)
    color = [0] * n  # 0 new, 1 on the stack, 2 done
    parent = [-1] * n
    for start in range(n):
        if color[start]:
            continue
        color[start] = 1
        stack = [(start, iter(adj[start]))]
        while stack:
            v, it = stack[-1]
            for w in it:
                if color[w] == 0:
                    color[w], parent[w] = 1, v
                    stack.append((w, iter(adj[w])))
                    break
                if color[w] == 1:
                    path = [v]
                    while path[-1] != w:
                        path.append(parent[path[-1]])
                    return path[::-1] + [w]
            else:
                color[v] = 2
                stack.pop()
    return None
