"""The parsed submission, shared by every rule of a run.

One :class:`Submission` exists per process (per xdist worker): it reads the
system output, the index and the description at most once, on first use, and
caches every rule outcome so that a rule's prerequisites are evaluated once.
Nothing here keeps file handles open, and nothing writes anywhere.
"""

from __future__ import annotations

import functools
import os
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, TypeVar, cast

import numpy as np

from . import arrays
from .archive import ArchiveReport
from .csvio import Limits, ParseResult, Table, limits_for, read_psv
from .editions import Edition, Group, Task
from .findings import (
    DEFAULT_MAX_FINDINGS,
    HEADLINE_WIDTH,
    Dropped,
    Finding,
    FindingList,
    Report,
    Severity,
    Unavailable,
    collect,
    plural,
    tame,
)
from .models.columns import INDEX_KEYS, LAYOUTS, Layout
from .paths import resolve_inside
from .registry import REGISTRY, Part, Rule

T = TypeVar("T")

#: Words a blank field is mistaken for ("no mask", "no value"), compared without case (:meth:`Submission.placeholders`).
PLACEHOLDERS = frozenset({"nan", "none", "null", "na", "n/a", "-"})

__all__ = ["CheckSettings", "Checked", "Settings", "Submission", "Outcome", "NotApplicable", "COLUMN_RULE"]


class NotApplicable(Exception):
    """The rule has nothing to check in this submission (the item is skipped with the reason)."""


#: The COL rule that owns the column layout of each edition group and task.
COLUMN_RULE: dict[tuple[Group, Task], str] = {
    (Group.N17, Task.IMG): "COL-01",
    (Group.M18, Task.IMG): "COL-02",
    (Group.M19, Task.IMG): "COL-02",
    (Group.O2X, Task.IMG): "COL-02",
    (Group.N17, Task.VID): "COL-05",
    (Group.M18, Task.VID): "COL-06",
    (Group.M19, Task.VID): "COL-06",
    (Group.O2X, Task.VID): "COL-07",
    (Group.N17, Task.SPL): "COL-08",
    (Group.M18, Task.SPL): "COL-08",
    (Group.M19, Task.SPL): "COL-08",
    (Group.M18, Task.EV): "COL-10",
    (Group.M19, Task.EV): "COL-10",
    (Group.M18, Task.CAM): "COL-11",
    (Group.M19, Task.CAM): "COL-11",
    (Group.N17, Task.PF): "COL-12",
    (Group.N17, Task.PG): "COL-12",
    (Group.M18, Task.PF): "COL-12",
    (Group.M18, Task.PG): "COL-12",
    (Group.M19, Task.PF): "COL-13",
    (Group.M19, Task.PG): "COL-13",
}


@dataclass(frozen=True, kw_only=True)
class CheckSettings:
    """Everything a process needs to rebuild the same :class:`Submission` (xdist-safe: plain data), resolved
    once from the options (:mod:`pytest_omfc.options`).  An edition's settings add what it needs:
    :class:`Settings` (the NIST editions) and ``ForgeryNetSettings``."""

    submission: Path  # the submission directory <ID>/
    csv: Path | None  # the system output file, None when none was found (CSV-08)
    edition: Edition
    task: Task
    dataset_root: Path | None = None
    max_findings: int = DEFAULT_MAX_FINDINGS  # --omfc-max-findings
    slices: int = 4  # --omfc-slices: items per file-heavy rule
    jobs: int = 0  # --omfc-jobs: processes within one item (0: one per CPU)
    dask: str | None = None  # --omfc-dask: where a large check inflates its masks (MASK-04), else local processes
    archive: ArchiveReport | None = None  # the archive the submission came in (ARC rules), unpacked privately
    shown_from: Path | None = None  # paths in findings are relative to this (default: the submission's parent)
    #: an NC2017 package (``pytest_omfc.package.PackageSettings``): its EXPIDs are each checked as a submission
    is_package: ClassVar[bool] = False

    @property
    def listing(self) -> tuple[str, Path]:
        """What lists the trials to check, named: the NIST task index, or ForgeryNet's reference."""
        raise NotImplementedError


@dataclass(frozen=True, kw_only=True)
class Settings(CheckSettings):
    """The settings of a NIST edition's check: the task index lists the trials."""

    index: Path
    allow_touching_segments: bool = False  # --omfc-allow-touching-segments (VSEG-07)
    ignore_overlap: bool = False  # --omfc-ignore-overlap (VSEG-07)

    @property
    def listing(self) -> tuple[str, Path]:
        return "index", self.index


@dataclass
class Outcome:
    """The result of one rule on one submission (or one slice of it).

    ``findings`` holds the kept findings (at most ``KEEP_FINDINGS`` per
    severity); ``dropped`` counts the others, so ``errors.total`` and
    ``warnings.total`` are the true counts.  Texts are tamed (escaped and
    shortened, see :mod:`pytest_omfc.findings`) when the outcome is made.
    """

    rule: Rule
    findings: list[Finding] = field(default_factory=list)
    headline: str = ""
    skipped: str | None = None  # reason, when the rule could not run
    crashed: str | None = None
    warning_headline: str = ""  # the warnings' own summary when errors and warnings mix
    dropped: Dropped = field(default_factory=dict)

    def _of(self, sev: Severity) -> FindingList:
        kept = [f for f in self.findings if (f.severity or self.rule.severity) is sev]
        more = sum(n for s, n in self.dropped.items() if (s or self.rule.severity) is sev)
        return FindingList(kept, len(kept) + more)

    # made once: an outcome is complete when Checked.outcome returns it, and ``failed`` is asked by every rule
    # that requires this one and by the item (a package of 1,000 EXPIDs asked it a quarter of a million times)
    @functools.cached_property
    def errors(self) -> FindingList:
        return self._of(Severity.ERROR)

    @functools.cached_property
    def warnings(self) -> FindingList:
        return self._of(Severity.WARNING)

    @property
    def failed(self) -> bool:
        return self.errors.total > 0 or self.crashed is not None


class Checked:
    """What rules run on: a folder with its settings, and the outcomes of the rules run on it (each once).

    :class:`Submission` (one ``<ID>/``) is one; an NC2017 package's own rules (PKG-07 and, for an upload,
    ARC) run on ``pytest_omfc.package.Package``."""

    def __init__(self, settings: CheckSettings) -> None:
        self.settings = settings
        self.edition = settings.edition
        self.group = settings.edition.group
        self.task = settings.task
        self.dir = settings.submission
        self.sub_id = settings.submission.name
        self._outcomes: dict[tuple[str, Part | None], Outcome] = {}
        self._memo: dict[str, Any] = {}
        #: the IDs of the rules this run will run in this process (None: not known, as through the API); a
        #: rule family may start work for a later rule of the set early (MASK-04's inflating)
        self.planned: frozenset[str] | None = None
        self._closers: list[Callable[[], None]] = []

    def on_close(self, close: Callable[[], None]) -> None:
        """Have :meth:`close` call ``close``: work a rule family started and a later rule takes in."""
        self._closers.append(close)

    def close(self) -> None:
        """Stop what the rule families left running (MASK-04's early pool when MASK-04 never ran: a run that
        stopped at its first failure, ``-x``); the pytest glue calls it when the run ends."""
        closers, self._closers = self._closers, []
        for close in closers:
            close()

    def memo(self, key: str, build: Callable[[], T]) -> T:
        """What ``build()`` gives, computed once per process and submission under ``key``: the one cache the
        rule families share (mask facts, HDF5 summaries, the description, provenance facts, segments).
        A ``build`` that raises stores nothing (the next caller tries again and gets the same error)."""
        if key not in self._memo:
            self._memo[key] = build()
        return cast(T, self._memo[key])

    def display(self, path: Path) -> str:
        """A path as shown in findings: relative to the submission's parent (a package's parent for its EXPIDs),
        else as given; for an uploaded archive, the member (``x.tar:x/mask/a.png``)."""
        try:
            rel = str(path.relative_to(self.settings.shown_from or self.dir.parent))
        except ValueError:
            return str(path)
        archive = self.settings.archive
        return rel if archive is None else f"{archive.archive}:{rel}"

    # ------------------------------------------------------------------ evaluation

    def outcome(self, rule: Rule, part: Part | None = None) -> Outcome:
        """Run ``rule`` once (per slice) and cache it; prerequisites are evaluated first."""
        cache_key = (rule.id, part)
        if cache_key in self._outcomes:
            return self._outcomes[cache_key]
        out = Outcome(rule=rule)
        try:
            for dep_id in rule.requires:
                dep = REGISTRY.get(dep_id)
                if dep is None or not dep.applies(self.group, self.task):
                    continue
                dep_out = self.outcome(dep)
                if dep_out.failed:
                    raise Unavailable(dep.id, dep_out.headline)
            assert rule.check is not None
            result = rule.check(self, part) if rule.sliced else rule.check(self)
            report: Report = collect(result)
            sev = rule.severity_for(self.group)
            findings, dropped = report.findings, dict(report.dropped)
            if sev is not rule.severity:
                findings = [f if f.severity else _with_severity(f, sev) for f in findings]
                if None in dropped:
                    dropped[sev] = dropped.get(sev, 0) + dropped.pop(None)
            out.findings = FindingList(findings, report.total)
            out.dropped = dropped
            out.headline = tame(report.headline or _default_headline(rule, report.total), HEADLINE_WIDTH)
            out.warning_headline = tame(report.warning_headline or "", HEADLINE_WIDTH)
        except Unavailable as exc:
            out.skipped = tame(f"{exc.rule_id} failed: {exc.reason}", HEADLINE_WIDTH)
            out.headline = out.skipped
        except NotApplicable as exc:
            out.skipped = tame(exc, HEADLINE_WIDTH)
            out.headline = out.skipped
        except Exception as exc:  # a bug in a check must not become a traceback or INTERNALERROR
            last = traceback.extract_tb(exc.__traceback__)[-1]
            out.crashed = tame(
                f"{type(exc).__name__}: {exc} (at {Path(last.filename).name}:{last.lineno})", HEADLINE_WIDTH
            )
            out.headline = tame(
                f"the check could not run: {out.crashed}; please report this as a pytest-omfc bug", HEADLINE_WIDTH
            )
        self._outcomes[cache_key] = out
        return out


class Submission(Checked):
    """Lazily parsed submission + index, shared by all rule items of a process."""

    # ------------------------------------------------------------------ layout

    @functools.cached_property
    def layout(self) -> Layout:
        return LAYOUTS[(self.group, self.task)]

    @property
    def column_rule(self) -> str:
        return COLUMN_RULE[(self.group, self.task)]

    @property
    def keys(self) -> tuple[str, ...]:
        return INDEX_KEYS[self.task]

    # ------------------------------------------------------------------ files

    @functools.cached_property
    def sysout_path(self) -> Path | None:
        """The system output: the one found at start-up, else ``<ID>/<ID>.csv`` if it exists in any
        form (a FIFO, a broken symlink: CSV-08 says what it is), else None (missing)."""
        if self.settings.csv is not None:
            return self.settings.csv
        exact = self.dir / f"{self.sub_id}.csv"
        return exact if os.path.lexists(exact) else None

    @functools.cached_property
    def sysout_unsafe(self) -> str | None:
        """Why the system output may not be opened (a symlink leaving the submission, PKG-01), or None."""
        path = self.sysout_path
        if path is None or path.parent != self.dir:
            return None
        return resolve_inside(self.dir, path.name)[1]

    @functools.cached_property
    def sysout_limits(self) -> Limits:
        """How large a system output the index justifies (see :mod:`pytest_omfc.csvio`)."""
        table = self.index_parse.table
        return limits_for(len(table) if table is not None else None)

    @functools.cached_property
    def sysout_parse(self) -> ParseResult:
        """The system output, parsed once; never opened when it leaves the submission or is not a
        regular file, never read when it is larger than the index justifies."""
        path = self.sysout_path
        if path is None:
            return ParseResult(table=None, display=f"{self.sub_id}/{self.sub_id}.csv").fail("CSV-08", "is missing")
        display = self.display(path)
        if self.sysout_unsafe:
            return ParseResult(table=None, display=display).fail("PKG-01", "points outside the submission")
        return read_psv(path, display, limits=self.sysout_limits)

    def sysout(self) -> Table:
        """The system output table; raises :class:`Unavailable` naming the rule that failed."""
        res = self.sysout_parse
        if res.table is None:
            assert res.fatal is not None
            raise Unavailable(*res.fatal)
        return res.table

    @property
    def index_file(self) -> Path:
        """The NIST task index (a ForgeryNet submission has none: its reference lists the IDs)."""
        if not isinstance(self.settings, Settings):
            raise TypeError(f"{self.edition.value} has no task index")
        return self.settings.index

    @functools.cached_property
    def index_parse(self) -> ParseResult:
        return _shared_index(self.index_file).parsed

    def index(self) -> Table:
        res = self.index_parse
        if res.table is None:
            assert res.fatal is not None
            raise Unavailable("CSV-07", res.fatal[1])
        table = res.table
        missing = [c for c in self.keys if not table.has(c)]
        if missing:
            raise Unavailable("CSV-07", self.index_lacks(missing))
        return table

    def index_lacks(self, missing: list[str]) -> str:
        """CSV-07's headline (and the skip reason of its dependants) for missing index key columns."""
        plural_s = "s" if len(missing) > 1 else ""
        return f"the index {self.index_file.name} lacks the key column{plural_s} {', '.join(missing)}"

    def stripped(self, name: str) -> np.ndarray:
        """A system-output column as text without its surrounding white space, made once per column (the
        scores, statuses and pixel values are read so by several rules).  As :meth:`column` when absent."""
        key = f"stripped:{name}"
        if key not in self._memo:
            self._memo[key] = arrays.strip(self.column(name))
        return cast(np.ndarray, self._memo[key])

    def placeholders(self, name: str) -> np.ndarray:
        """Rows whose ``name`` field looks blank but is not empty: white space only, or a word for "nothing"
        (:data:`PLACEHOLDERS`, any case).  MediScore reads such a field as text: a mask file named ``None``
        (CSV-05 warns, MASK-01 fails the mask)."""
        key = f"placeholders:{name}"
        if key not in self._memo:
            raw = self.column(name)
            text = self.stripped(name)
            words = np.fromiter((t.lower() in PLACEHOLDERS for t in text.tolist()), dtype=bool, count=len(text))
            self._memo[key] = ((text == "") & (raw != "")) | words
        return cast(np.ndarray, self._memo[key])

    def column(self, name: str) -> np.ndarray:
        """A system-output column: the values as written (an object array of str).

        An absent required column raises :class:`Unavailable` naming the layout's
        COL rule (which fails); an absent optional one (D-05, D-25) raises
        :class:`NotApplicable`, so no rule blames a COL rule that passed.
        """
        table = self.sysout()
        if not table.has(name):
            if name in self.layout.required:
                raise Unavailable(self.column_rule, f"column {name} is absent")
            raise NotApplicable(f"the optional column {name} is absent")
        return table.column(name)

    def has_column(self, name: str) -> bool:
        try:
            return self.sysout().has(name)
        except Unavailable:
            return False

    @functools.cached_property
    def description_path(self) -> Path:
        return self.dir / f"{self.sub_id}.txt"

    # ------------------------------------------------------------------ derived columns

    def key_series(self, table: Table) -> np.ndarray:
        """The trial key of each row, composite keys joined with ':' as MediScore does (IDX-01)."""
        cols = [c for c in self.keys]
        for c in cols:
            if not table.has(c):
                raise Unavailable(self.column_rule, f"key column {c} is absent")
        return arrays.joined([table.column(c) for c in cols])

    @functools.cached_property
    def sys_keys(self) -> np.ndarray:
        return self.key_series(self.sysout())

    @functools.cached_property
    def index_keys(self) -> np.ndarray:
        return self.index_memo(("keys", *self.keys), lambda: self.key_series(self.index()))

    @functools.cached_property
    def index_key_set(self) -> frozenset[str]:
        """The index's trial keys as a set (IDX-03 and the segment rules look system keys up in it)."""
        return self.index_memo(("key set", *self.keys), lambda: frozenset(self.index_keys.tolist()))

    def index_memo(self, key: tuple[str, ...], build: Callable[[], T]) -> T:
        """What ``build()`` derives from the index alone (``key`` names it, with the key columns it depends on),
        made once per process for every submission reading the same index file (the EXPIDs of a package)."""
        shared = _shared_index(self.index_file)
        if self.index_parse is not shared.parsed:  # the file changed since this submission read it
            return build()
        if key not in shared.derived:
            shared.derived[key] = build()
        return cast(T, shared.derived[key])

    @functools.cached_property
    def scores(self) -> np.ndarray:
        """ConfidenceScore as float64; NaN where the text is not a number (SCORE-01)."""
        return arrays.parse_floats(self.stripped("ConfidenceScore"))

    @property
    def status_name(self) -> str:
        """The status column in use: the layout's, or IsOptOut when the file carries it."""
        return self.layout.status

    def status(self) -> np.ndarray:
        return self.column(self.status_name)

    def loc(
        self, pos: int, column: str | None = None, value: Any = None, *, table: Table | None = None
    ) -> dict[str, Any]:
        """Keyword arguments of a :class:`Finding` at row ``pos`` of the system output."""
        table = table or self.sysout()
        key = self.sys_keys[pos] if table is self.sysout() else None
        return {"file": table.display, "line": table.line_of(pos), "key": key, "column": column, "value": value}

    def index_row_of(self) -> dict[str, int]:
        """Trial key -> row position in the index (first occurrence), made once per index file."""
        return self.index_memo(
            ("row of", *self.keys), lambda: {k: i for i, k in reversed(list(enumerate(self.index_keys.tolist())))}
        )

    @functools.cached_property
    def index_rows(self) -> np.ndarray:
        """For each system-output row, the index row of its trial (the first, where the index repeats it); -1 where
        the index lacks the trial."""
        rows, keys = self.index_row_of(), self.sys_keys.tolist()
        return np.fromiter((rows.get(k, -1) for k in keys), dtype=np.int64, count=len(keys))

    def index_at(self, values: np.ndarray, missing: Any) -> np.ndarray:
        """``values`` (one per index row: a column, or what is derived from it) at each system-output row's trial,
        ``missing`` where the index lacks the trial."""
        at = self.index_rows
        if not len(values):
            return np.full(len(at), missing, dtype=values.dtype)
        return np.where(at >= 0, values[np.clip(at, 0, None)], missing)


@dataclass
class _Index:
    """A task index parsed once per process (:func:`_shared_index`), with what is derived from it alone (trial
    keys, their set, probe sizes: :meth:`Submission.index_memo`)."""

    parsed: ParseResult
    derived: dict[tuple[str, ...], Any] = field(default_factory=dict)


#: Indexes read in this process, by path and file version: the EXPIDs of an NC2017 package share one or two
#: indexes, and a package of 1,000 EXPIDs parsed each a thousand times.  A few are kept (a portal's process
#: checks submissions of one or two evaluations); a changed file is read again.
_INDEXES: dict[tuple[str, int, int, int, int], _Index] = {}
_INDEXES_KEPT = 4


def _shared_index(path: Path) -> _Index:
    """The index at ``path`` parsed (:func:`read_psv`, values stripped), shared by the submissions of a process
    while the file is unchanged (same device, inode, size and modification time)."""
    try:
        st = os.stat(path)
    except OSError:  # read_psv says why it cannot be read; nothing to share
        return _Index(read_psv(path, path.name, strip_values=True))
    key = (str(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    found = _INDEXES.get(key)
    if found is None:
        if len(_INDEXES) >= _INDEXES_KEPT:
            _INDEXES.clear()
        found = _INDEXES[key] = _Index(read_psv(path, path.name, strip_values=True))
    return found


def _with_severity(f: Finding, sev: Severity) -> Finding:
    from dataclasses import replace

    return replace(f, severity=sev)


def _default_headline(rule: Rule, total: int) -> str:
    if not total:
        return f"passed: {rule.title}"
    return f"{plural(total, 'problem')}: {rule.title}"
