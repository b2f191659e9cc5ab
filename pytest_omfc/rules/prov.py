"""PROV — provenance filtering and graph-building JSON (docs/rules/prov.md), and PKG-06.

Every row of a provenance system output names one JSON file by
``ProvenanceOutputFileName``, relative to the CSV's directory (PKG-06).  The
files are read once per process, on first use, by :func:`prov_data`: each is
opened only when its reference stays inside the submission, parsed, validated
against the task's schema (generated from :mod:`pytest_omfc.models.provenance`)
and reduced to a small :class:`Facts` record (:mod:`pytest_omfc.provfacts`, which
pool workers import without pandas or the rules); the PROV items only render those
facts.  Nothing of a bad file raises: it becomes a finding of PROV-02.

Resolutions followed: D-19 (a blank or missing JSON is an error unless the row
is excused), D-20 (``fileid`` required, ``file``/``fileid`` as in the index),
D-21 (filtered-list sizes; the probe is among the results).  MediScore defects
not copied: B-05 (its ``-t`` flag is ignored, so a graph is checked with the
filtering schema; here the schema always follows the task, PROV-05) and its
crashes on missing or malformed JSON (PROV-02).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .. import arrays
from ..csvio import read_psv
from ..editions import EditionTaskError, Group, Task, parse_task
from ..findings import Finding, Report, Severity, Unavailable, plural
from ..paths import resolve_inside
from ..provfacts import Facts, Tally, read_many
from ..registry import not_checked, rule
from ..submission import NotApplicable, Submission
from ..work.pool import map_slices

__all__ = ["Entry", "Facts", "ProvData", "Tally", "prov_data"]

N17, M18, M19 = Group.N17, Group.M18, Group.M19
PF, PG = Task.PF, Task.PG
REF = "ProvenanceOutputFileName"
#: ~2-5 ms per file: a pool process (``--omfc-jobs``) pays off from a few hundred files on.
MIN_FILES_PER_JOB = 250
#: Status values whose row needs no JSON (PROV-17, D-19).
EXCUSED: dict[Group, frozenset[str]] = {
    N17: frozenset({"Y"}),
    M18: frozenset({"NonProcessed", "OptOut"}),
    M19: frozenset({"NonProcessed", "OptOut"}),
}
SCHEMA_NAME = {PF: "provenance filtering", PG: "provenance graph-building"}


# --------------------------------------------------------------------------- per-row entries (the files: provfacts)


@dataclass
class Entry:
    """One system-output row and what became of its JSON reference."""

    pos: int
    key: str
    ref: str
    excused: bool
    path: Path | None = None  # safe, resolved inside the CSV directory
    unsafe: str | None = None  # PKG-06: why the reference was not followed
    problem: str | None = None  # PROV-02: why the JSON could not be used
    missing: bool = False
    display: str = ""
    facts: Facts | None = None

    @property
    def blank(self) -> bool:
        return self.ref.strip() == ""


@dataclass
class ProvData:
    """All JSON facts of one submission, shared by the PROV items of a process."""

    entries: list[Entry]
    world: dict[str, str] | None  # WorldFileID -> WorldFileName, None without a world index
    world_source: str

    @property
    def checked(self) -> list[Entry]:
        """Entries whose JSON was parsed into an object."""
        return [e for e in self.entries if e.facts is not None]


def prov_data(ctx: Submission) -> ProvData:
    """The submission's JSON facts, built on first use and kept for the process."""
    return ctx.memo("prov.data", lambda: _build(ctx))


def _build(ctx: Submission) -> ProvData:
    refs = ctx.column(REF)
    keys = ctx.sys_keys
    excused = _excused(ctx)
    root = ctx.settings.csv.parent if ctx.settings.csv else ctx.dir
    probes = _probe_names(ctx)
    world, world_source = _world_index(ctx)
    known = {**(world or {}), **probes}  # file ID -> NIST path
    by_name = {name: fid for fid, name in known.items()}

    entries = [Entry(pos=i, key=str(keys[i]), ref=str(refs[i]), excused=bool(excused[i])) for i in range(len(refs))]
    todo: dict[tuple[Path, str], list[Entry]] = {}  # a file is read once per probe that names it
    for e in entries:
        if not e.blank:
            e.path, e.unsafe = resolve_inside(root, e.ref)
        if e.path is not None:
            e.display = ctx.display(e.path)
            todo.setdefault((e.path, e.key), []).append(e)
    items = [(str(path), key, probes.get(key)) for path, key in todo]
    read = functools.partial(read_many, task=ctx.task, known=known, by_name=by_name, have_world=world is not None)
    results = map_slices(read, items, ctx.settings.jobs, min_per_job=MIN_FILES_PER_JOB)
    for same, (facts, problem, missing) in zip(todo.values(), results, strict=False):
        for e in same:
            e.facts, e.problem, e.missing = facts, problem, missing
    return ProvData(entries=entries, world=world, world_source=world_source)


def _excused(ctx: Submission) -> np.ndarray:
    """Rows whose status excuses the JSON (D-19): NonProcessed/OptOut, or IsOptOut=Y in NC2017."""
    n = len(ctx.sysout())
    try:
        status = ctx.stripped(ctx.status_name)
    except Unavailable:  # no status column: no row is excused (COL-12/13 report it)
        return np.zeros(n, dtype=bool)
    return arrays.isin(status, EXCUSED.get(ctx.group, frozenset()))


def _probe_names(ctx: Submission) -> dict[str, str]:
    """ProvenanceProbeFileID -> ProvenanceProbeFileName of the task index ({} when unreadable)."""
    try:
        table = ctx.index()
    except Unavailable:
        return {}
    if not table.has("ProvenanceProbeFileName"):
        return {}
    ids, names = table.column("ProvenanceProbeFileID").tolist(), table.column("ProvenanceProbeFileName").tolist()
    return dict(zip(ids, names, strict=True))


def _world_index(ctx: Submission) -> tuple[dict[str, str] | None, str]:
    """WorldFileID -> WorldFileName from ``<dataset>-*world*.csv`` beside the task index, if any."""
    index = ctx.index_file
    prefix = index.name.split("-", 1)[0]
    try:
        candidates = sorted(
            p
            for p in index.parent.iterdir()
            if p.is_file()
            and p.suffix.lower() == ".csv"
            and "world" in p.name.lower()
            and p.name.lower().startswith(prefix.lower() + "-")
        )
    except OSError:
        candidates = []
    world: dict[str, str] = {}
    used = []
    for path in candidates:
        table = read_psv(path, path.name, strip_values=True).table
        if table is None or not (table.has("WorldFileID") and table.has("WorldFileName")):
            continue
        world.update(zip(table.column("WorldFileID").tolist(), table.column("WorldFileName").tolist(), strict=True))
        used.append(path.name)
    if used:
        return world, ", ".join(used)
    return None, f"no {prefix}-*world*.csv with WorldFileID and WorldFileName beside {index.name}"


# --------------------------------------------------------------------------- rendering


def _checked(ctx: Submission) -> tuple[ProvData, list[Entry]]:
    data = prov_data(ctx)
    entries = data.checked
    if not entries:
        raise NotApplicable("no JSON file could be read to check (see PROV-01 and PROV-02)")
    return data, entries


def _file_finding(e: Entry, tally: Tally, unit: str, **kw: Any) -> Finding:
    """One finding for a JSON file: its first problem, and how many more of the same kind it has."""
    note = tally.note
    if tally.count > 1:
        note += f"; {tally.count - 1} more {unit}{'s' if tally.count > 2 else ''} like it in this file"
    return Finding(note, file=e.display, key=e.key, column=tally.where, value=tally.value, **kw)


def _of(k: int, n: int, noun: str, verbs: tuple[str, str]) -> str:
    """'1 of 3 JSON files does ...' / '2 of 3 JSON files do ...'."""
    return f"{k} of {plural(n, noun)} {verbs[0] if k == 1 else verbs[1]}"


def _tally_report(ctx: Submission, pick: Callable[[Facts], Tally], unit: str, verbs: tuple[str, str]) -> Report:
    """One finding per JSON file with problems; headline '<n> <unit>s in <k> of <N> JSON files <verb ...>'."""
    _, entries = _checked(ctx)
    found = []
    places = 0
    for e in entries:
        assert e.facts is not None
        tally = pick(e.facts)
        if tally.count:
            places += tally.count
            found.append(_file_finding(e, tally, unit))
    if not found:
        return Report()
    verb = verbs[0] if places == 1 else verbs[1]
    return Report(
        found, headline=f"{plural(places, unit)} in {len(found)} of {plural(len(entries), 'JSON file')} {verb}"
    )


# --------------------------------------------------------------------------- PKG-06, PROV-01, PROV-02

_ALL_PROV = {N17, M18, M19}
#: The rules that come from the NC2017/MFC2019 plans.  MFC2018 has no plan of its own here, and it sits between
#: the two: its submissions get the same content checks as warnings (:data:`_M18_WARN`), so a graph that would
#: fail NC2017 and MFC2019 does not pass MFC2018 without a word, nor is it rejected by a rule no plan of it states.
_PLAN_PROV = {N17, M18, M19}
_M18_WARN = {M18: Severity.WARNING}


@rule(
    "PKG-06",
    "JSONs are referenced relative to the CSV directory and stay inside the submission",
    groups=_ALL_PROV,
    tasks={PF, PG},
)
def pkg_06(ctx: Submission) -> Report:
    """PKG-06: ``ProvenanceOutputFileName`` is joined to the CSV's directory (as MediScore does).

    Unlike MediScore, an absolute path, a ``..`` step or a symlink leading out
    of the submission is an error and the file is never opened (D-24 applied
    to JSONs).  The ``jsons/`` directory of the examples is not required.
    """
    data = prov_data(ctx)
    named = [e for e in data.entries if not e.blank]
    found = [Finding(e.unsafe, **ctx.loc(e.pos, REF, e.ref)) for e in named if e.unsafe]
    if not found:
        return Report()
    return Report(
        found,
        headline=_of(
            len(found),
            len(named),
            "JSON reference",
            ("leaves the submission directory", "leave the submission directory"),
        ),
    )


@rule("PROV-01", "One JSON file per probe, named by ProvenanceOutputFileName", groups=_ALL_PROV, tasks={PF, PG})
def prov_01(ctx: Submission) -> Report:
    """PROV-01 (D-19): a blank reference is an error unless the row is excused (PROV-17).

    MediScore skips a blank ``ProvenanceOutputFileName`` silently and passes.
    Two probes naming the same file also break "each probe has its own JSON".
    """
    data = prov_data(ctx)
    excuse = "IsOptOut=Y" if ctx.group is N17 else "NonProcessed or OptOut"
    blank = [
        Finding(
            f"must name the probe's JSON file (got a blank name; only {excuse} rows may omit it)",
            **ctx.loc(e.pos, REF, e.ref),
        )
        for e in data.entries
        if e.blank and not e.excused
    ]
    first: dict[Path, Entry] = {}
    shared = []
    for e in data.entries:
        if e.path is None:
            continue
        other = first.setdefault(e.path, e)
        if other is not e and other.key != e.key:
            line = ctx.sysout().line_of(other.pos)
            shared.append(
                Finding(
                    f"each probe must have its own JSON file (got the file of {other.key} on line {line})",
                    **ctx.loc(e.pos, REF, e.ref),
                )
            )
    n = len(data.entries)
    parts = []
    if blank:
        parts.append(_of(len(blank), n, "probe", ("has no JSON file", "have no JSON file")))
    if shared:
        parts.append(
            _of(len(shared), n, "probe", ("shares another probe's JSON file", "share another probe's JSON file"))
        )
    return Report(blank + shared, headline="; ".join(parts) or None)


@rule("PROV-02", "The referenced JSON exists and parses as a JSON object", groups=_ALL_PROV, tasks={PF, PG})
def prov_02(ctx: Submission) -> Report:
    """PROV-02: missing, empty, non-UTF-8, malformed or non-object JSON is reported (MediScore crashes).

    A key repeated in one object is malformed here: Python's json (and so MediScore) keeps the last value
    silently, other readers the first.

    An excused row whose JSON is missing is left to PROV-17 (D-19); unsafe
    references are PKG-06's and are never opened.
    """
    data = prov_data(ctx)
    named = [e for e in data.entries if e.path is not None and not (e.missing and e.excused)]
    found = [Finding(e.problem, **ctx.loc(e.pos, REF, e.ref)) for e in named if e.problem]
    if not found:
        return Report()
    return Report(
        found,
        headline=_of(
            len(found),
            len(named),
            "referenced JSON file",
            ("is missing or not a JSON object", "are missing or not JSON objects"),
        ),
    )


# --------------------------------------------------------------------------- PROV-03, 04, 05: schemas


def _schema_report(ctx: Submission) -> Report:
    _, entries = _checked(ctx)
    name = SCHEMA_NAME[ctx.task]
    found = []
    for e in entries:
        assert e.facts is not None
        t = e.facts.schema
        if t.count:
            more = f"; {plural(t.count - 1, 'more error')} in this file" if t.count > 1 else ""
            found.append(
                Finding(
                    f"must match the {name} schema (got: {t.note}{more})",
                    file=e.display,
                    key=e.key,
                    column=t.where,
                    value=t.value,
                )
            )
    if not found:
        return Report()
    return Report(
        found,
        headline=_of(
            len(found),
            len(entries),
            "JSON file",
            (f"does not match the {name} schema", f"do not match the {name} schema"),
        ),
    )


@rule("PROV-03", "Filtering JSON conforms to the filtering schema (MediScore SchF 1.2)", groups=_ALL_PROV, tasks={PF})
def prov_03(ctx: Submission) -> Report:
    """PROV-03: jsonschema (draft 4) against the schema of ``ProvenanceFiltering``, as MediScore ENFORCES."""
    return _schema_report(ctx)


@rule(
    "PROV-04",
    "Graph JSON conforms to the graph-building schema: links required, scored (SchG 1.2)",
    groups=_ALL_PROV,
    tasks={PG},
)
def prov_04(ctx: Submission) -> Report:
    """PROV-04: jsonschema (draft 4) against the schema of ``ProvenanceGraph``, as MediScore ENFORCES.

    ``links: []`` passes, as in MediScore.
    """
    return _schema_report(ctx)


@rule(
    "PROV-05",
    "The schema follows the task: graph schema for provenance, filtering schema otherwise",
    groups=_ALL_PROV,
    tasks={PF, PG},
)
def prov_05(ctx: Submission) -> Report:
    """PROV-05: the task, not a stray flag, picks the schema (B-05: MediScore's ``-t`` is ignored).

    In the graph task every JSON is checked against the graph schema, so a
    filtering result fails the rule it breaks: PROV-04 when ``links`` is
    missing, PROV-10 when a link lacks ``relationshipConfidenceScore``
    (MediScore with ``-t provenance`` passes both).  PROV-05 reports a JSON
    only when it passes the filtering schema and fails the graph schema for
    neither of those reasons (none can today: SchG is SchF plus those two).
    The task comes from ``--omfc-task`` or the index; a warning says when the
    index TaskID or the EXPID's TASK field names the other task, since the
    JSONs are then checked against the schema of the task given.
    """
    found = []
    entries: list[Entry] = []
    if ctx.task is PG:
        try:
            _, entries = _checked(ctx)
        except NotApplicable:
            entries = []
        for e in entries:
            f = e.facts
            assert f is not None
            if f.schema.count and f.filtering_ok and f.has_links and not f.conf.count:
                found.append(
                    Finding(
                        f"must be a provenance graph, as the task is provenance (got a filtering result: "
                        f"{f.schema.note})",
                        file=e.display,
                        key=e.key,
                        column=f.schema.where,
                    )
                )
    found += _task_sources(ctx)
    errors = [f for f in found if f.severity is None]
    if errors:
        head = _of(
            len(errors),
            len(entries),
            "JSON file",
            ("is a filtering result, not a provenance graph", "are filtering results, not provenance graphs"),
        )
    elif found:
        head = f"the task is {_task_name(ctx.task)}, but another source names a different task"
    else:
        head = None
    return Report(found, headline=head)


def _task_name(task: Task) -> str:
    return "provenance" if task is PG else "provenancefiltering"


def _task_sources(ctx: Submission) -> list[Finding]:
    """Warnings where the index TaskID or the EXPID's TASK field names the other provenance task."""
    out = []
    schema = SCHEMA_NAME[ctx.task]
    try:
        table = ctx.index()
    except Unavailable:
        table = None
    if table is not None and table.has("TaskID"):
        values = table.column("TaskID")
        for value in dict.fromkeys(values.tolist()):  # each value once, in file order
            try:
                task = parse_task(value)
            except EditionTaskError:
                continue
            if task in (PF, PG) and task is not ctx.task:
                pos = int(np.flatnonzero(values == value)[0])
                out.append(
                    Finding(
                        f"the index TaskID should name the task checked: the JSONs are checked against the "
                        f"{schema} schema (got {value!r})",
                        file=table.display,
                        line=table.line_of(pos),
                        column="TaskID",
                        value=value,
                        severity=Severity.WARNING,
                    )
                )
    fields = ctx.sub_id.split("_")
    if ctx.group in (N17, M18) and len(fields) == 7:
        name = fields[3].lower()
        if name in ("provenance", "provenancefiltering") and parse_task(name) is not ctx.task:
            out.append(
                Finding(
                    f"the EXPID's TASK field should name the task checked: the JSONs are checked against the "
                    f"{schema} schema (got {fields[3]!r})",
                    file=ctx.sub_id,
                    column="TASK",
                    value=fields[3],
                    severity=Severity.WARNING,
                )
            )
    return out


# --------------------------------------------------------------------------- PROV-06..10: nodes and links


@rule("PROV-06", "Every node carries a fileid (D-20)", groups=_PLAN_PROV, tasks={PF, PG}, severity_by_group=_M18_WARN)
def prov_06(ctx: Submission) -> Report:
    """PROV-06: id, file and nodeConfidenceScore are the schema's (PROV-03/04); ``fileid`` is "must" in the plans.

    MediScore's schema leaves ``fileid`` optional; D-20 requires it.
    """
    return _tally_report(ctx, lambda f: f.fileid, "node", ("lacks a fileid", "lack a fileid"))


@rule(
    "PROV-07",
    "Node file and fileid are as in the NIST index",
    groups=_PLAN_PROV,
    tasks={PF, PG},
    severity_by_group=_M18_WARN,
)
def prov_07(ctx: Submission) -> Report:
    """PROV-07 (D-20): ``file`` is the index path, ``fileid`` the index ID.

    Checked against the task index (ProvenanceProbeFileID/-FileName) and, when
    one lies beside it, the world index (``<dataset>-*world*.csv`` with
    WorldFileID/WorldFileName).  Without a world index, world nodes can only be
    checked for a relative NIST-style path; a warning says so.
    """
    data, _ = _checked(ctx)
    report = _tally_report(
        ctx, lambda f: f.index, "node", ("does not match the NIST index", "do not match the NIST index")
    )
    if data.world is None:
        report.findings.append(
            Finding(
                f"world-file nodes should be checked against a world index (got {data.world_source}): "
                "only probe nodes and path forms were checked",
                severity=Severity.WARNING,
            )
        )
        if report.headline is None:
            report.headline = "world-file nodes were not checked: no world index"
    return report


@rule(
    "PROV-08", "Node ids are unique within a JSON file", groups=_PLAN_PROV, tasks={PF, PG}, severity_by_group=_M18_WARN
)
def prov_08(ctx: Submission) -> Report:
    """PROV-08: ``id`` "identifies the node" (App. C), so it is unique in its file; MediScore passes duplicates."""
    return _tally_report(ctx, lambda f: f.dup_ids, "node", ("repeats an id", "repeat an id"))


@rule(
    "PROV-09",
    "Link source and target are integer indexes into nodes, in range",
    groups=_PLAN_PROV,
    tasks={PF, PG},
    severity_by_group=_M18_WARN,
)
def prov_09(ctx: Submission) -> Report:
    """PROV-09: the schema asks only for numbers; the scorer indexes ``nodes`` by them and crashes.

    Out-of-range, negative (Python would wrap them) and fractional or ``1.0``
    indexes are errors; string indexes also fail the schema.
    """
    return _tally_report(ctx, lambda f: f.links, "link end", ("is not a node index", "are not node indexes"))


@rule(
    "PROV-10",
    "Every graph link has a numeric relationshipConfidenceScore",
    groups=_PLAN_PROV,
    tasks={PG},
    severity_by_group=_M18_WARN,
)
def prov_10(ctx: Submission) -> Report:
    """PROV-10: "must" (App. C); SchG requires it too, so PROV-04 fails with it, this rule names the links."""
    return _tally_report(
        ctx,
        lambda f: f.conf,
        "link",
        ("lacks a numeric relationshipConfidenceScore", "lack a numeric relationshipConfidenceScore"),
    )


# --------------------------------------------------------------------------- PROV-11..13: filtering lists


def _size_report(ctx: Submission, most: int, fewest: int, fewest_word: str) -> Report:
    """Error above ``most`` nodes, warning below ``fewest`` (D-21)."""
    _, entries = _checked(ctx)
    over, under = [], []
    for e in entries:
        assert e.facts is not None
        n = e.facts.n_nodes
        if n is None:
            continue
        if n > most:
            over.append(
                Finding(
                    f"must hold at most {most} filtered results (got {n} nodes)",
                    file=e.display,
                    key=e.key,
                    column="nodes",
                )
            )
        elif n < fewest:
            under.append(
                Finding(
                    f"should hold {fewest_word} filtered results including the probe (got {n})",
                    file=e.display,
                    key=e.key,
                    column="nodes",
                    severity=Severity.WARNING,
                )
            )
    parts = []
    if over:
        parts.append(
            _of(
                len(over),
                len(entries),
                "filtering JSON file",
                (f"holds more than {most} results", f"hold more than {most} results"),
            )
        )
    if under:
        parts.append(
            _of(
                len(under),
                len(entries),
                "filtering JSON file",
                (f"holds fewer than {fewest} results", f"hold fewer than {fewest} results"),
            )
        )
    return Report(over + under, headline="; ".join(parts) or None)


@rule("PROV-11", "NC2017 filtering JSON holds 200 filtered results (D-21)", groups={N17}, tasks={PF})
def prov_11(ctx: Submission) -> Report:
    """PROV-11 (D-21): more than 200 is an error, fewer a warning ("should contain 200", NC17 App. C)."""
    return _size_report(ctx, 200, 200, "200")


@rule("PROV-12", "MFC2019 filtering JSON holds up to 500 filtered results (D-21)", groups={M19}, tasks={PF})
def prov_12(ctx: Submission) -> Report:
    """PROV-12 (D-21): more than 500 is an error ("must contain 500"); fewer than 300 (recall at n = 300) a warning."""
    return _size_report(ctx, 500, 300, "at least 300 (up to 500)")


@rule(
    "PROV-13",
    "The probe itself is among the filtered results",
    groups=_PLAN_PROV,
    tasks={PF},
    severity_by_group={N17: Severity.WARNING, **_M18_WARN},
)
def prov_13(ctx: Submission) -> Report:
    """PROV-13 (D-21): MFC19 "must contain 500 filtered results including the probe itself" (error);
    NC17 says "should" (warning).  A node is the probe when its fileid is the ProvenanceProbeFileID
    or its file the ProvenanceProbeFileName.  None of MediScore's test JSONs contains the probe.
    """
    _, entries = _checked(ctx)
    probes = _probe_names(ctx)
    found = []
    for e in entries:
        assert e.facts is not None
        if e.facts.n_nodes is not None and not e.facts.probe_found:
            name = f" or file {probes[e.key]}" if e.key in probes else ""
            found.append(
                Finding(
                    f"must include the probe itself: a node with fileid {e.key}{name} "
                    f"(got none among {plural(e.facts.n_nodes, 'node')})",
                    file=e.display,
                    key=e.key,
                    column="nodes",
                )
            )
    if not found:
        return Report()
    return Report(
        found,
        headline=_of(
            len(found), len(entries), "filtering JSON file", ("does not include the probe", "do not include the probe")
        ),
    )


# --------------------------------------------------------------------------- PROV-14..16: graphs


@rule(
    "PROV-14",
    "The graph JSON holds only the provenance graph's nodes (light check: nodes on no link)",
    groups=_PLAN_PROV,
    tasks={PG},
    severity=Severity.WARNING,
)
def prov_14(ctx: Submission) -> Report:
    """PROV-14: which nodes belong to the graph is only known from the reference; a graph of several
    nodes where some are on no link looks like a filtering list, so it is reported as a warning.
    """
    _, entries = _checked(ctx)
    found = [
        Finding(
            f"should hold only the nodes of the provenance graph (got {e.facts.unlinked} of "
            f"{e.facts.n_nodes} nodes on no link)",
            file=e.display,
            key=e.key,
            column="nodes",
        )
        for e in entries
        if e.facts is not None and e.facts.unlinked
    ]
    if not found:
        return Report()
    return Report(
        found,
        headline=_of(len(found), len(entries), "graph JSON file", ("holds nodes on no link", "hold nodes on no link")),
    )


@rule(
    "PROV-15",
    "The provenance graph has no cycles or self-loops",
    groups=_PLAN_PROV,
    tasks={PG},
    severity=Severity.WARNING,
)
def prov_15(ctx: Submission) -> Report:
    """PROV-15: a phylogeny is acyclic (implied); MediScore's validator passes cycles, its scorer aborts.

    A warning, one per file: the first self-loop, else one cycle (links read as source -> target).
    """
    _, entries = _checked(ctx)
    found = []
    for e in entries:
        f = e.facts
        assert f is not None
        if f.self_loops.count:
            found.append(_file_finding(e, f.self_loops, "self-loop"))
        elif f.cycle:
            found.append(
                Finding(
                    f"must be acyclic (got the cycle {' -> '.join(f.cycle)})", file=e.display, key=e.key, column="links"
                )
            )
    if not found:
        return Report()
    return Report(
        found, headline=_of(len(found), len(entries), "graph JSON file", ("contains a cycle", "contain a cycle"))
    )


not_checked(
    "PROV-16",
    "Oracle-filter variants build the graph only from the NIST-provided collection",
    "which collection a system used is a protocol matter: the JSON cannot show it",
    groups=_PLAN_PROV,
    tasks={PG},
)


# --------------------------------------------------------------------------- PROV-17, PROV-18


@rule(
    "PROV-17", "NonProcessed or OptOut rows need no JSON", groups={M18, M19}, tasks={PF, PG}, severity=Severity.WARNING
)
def prov_17(ctx: Submission) -> Report:
    """PROV-17 (D-19): excused rows may leave ``ProvenanceOutputFileName`` blank (PROV-01/02 skip them).

    MediScore excuses them only with ``--optOut`` and crashes otherwise.  This
    item warns when an excused row names a JSON that does not exist: leave it
    blank instead.  NC2017's IsOptOut=Y is excused the same way in PROV-01/02.
    """
    data = prov_data(ctx)
    excused = [e for e in data.entries if e.excused]
    found = [
        Finding(
            "an excused row should leave the name blank (got a JSON file that does not exist)",
            **ctx.loc(e.pos, REF, e.ref),
        )
        for e in excused
        if e.missing
    ]
    if not found:
        return Report()
    return Report(
        found,
        headline=_of(
            len(found),
            len(excused),
            "NonProcessed/OptOut row",
            ("names a JSON file that does not exist", "name a JSON file that does not exist"),
        ),
    )


@rule("PROV-18", "Index correspondence (IDX-02...IDX-06)", groups=_ALL_PROV, tasks={PF, PG}, requires=("IDX-06",))
def prov_18(ctx: Submission) -> Report:
    """PROV-18: covered by IDX-02...IDX-06, which report the rows; this item adds no findings of its own
    and is skipped, naming IDX-06, when the one-to-one correspondence fails.
    """
    return Report(headline="the system output corresponds one-to-one with the index (IDX-06)")


# --------------------------------------------------------------------------- the scorer's view of the same files


def rejected_jsons(ctx: Submission) -> dict[str, str]:
    """Every system JSON that PROV-02, -03 or -04 fails with an error, as ``{absolute path: "PROV-0x: ..."}``.

    The provenance scorer does not score these trials (their reason names the rule), so a JSON the rules
    find unreadable or off-schema is never scored, and one they accept is read by the same strict reader
    (:mod:`..jsonio`).
    Rules that do not apply to the edition, or are warnings there, do not reject a file.
    """
    from ..registry import REGISTRY

    try:
        data = prov_data(ctx)
    except Unavailable:
        return {}

    def error(rid: str) -> bool:
        rule = REGISTRY[rid]
        return rule.applies(ctx.group, ctx.task) and rule.severity_for(ctx.group) is Severity.ERROR

    # The rules that decide whether the file can be read as MediScore reads it: PROV-02 (JSON) and the
    # schema MediScore enforces (PROV-03/04).  The plans' node-data rules (PROV-06 fileid, PROV-07 index
    # names, PROV-08 unique ids, PROV-09/10 links) fail validation but do not stop MediScore-compatible
    # scoring: MediScore's own test graphs carry no fileid, and the scorer names a link it cannot resolve.
    # Only the rules that decide whether the file reads as MediScore reads it (PROV-02, the schema it
    # enforces).  The plans' node-data rules (PROV-06..10) fail validation but do not stop MediScore-compatible
    # scoring: MediScore's own test graphs carry no fileid, and the scorer names a link it cannot resolve.
    schema = "PROV-03" if ctx.task is PF else "PROV-04"
    check_json, check_schema = error("PROV-02"), error(schema)
    out: dict[str, str] = {}
    for e in data.entries:
        if e.path is None or e.excused:
            continue
        if e.problem is not None:
            if check_json:
                out[os.path.abspath(e.path)] = f"PROV-02: {e.display} {e.problem}"
        elif check_schema and e.facts is not None and e.facts.schema.count:
            t = e.facts.schema
            out[os.path.abspath(e.path)] = f"{schema}: {e.display} {t.where}: {t.note}"
    return out
