"""The scorer registry: every scorer the plugin knows, as data (like :mod:`pytest_omfc.registry` for rules).

A :class:`Scorer` names the tasks it applies to, the reference columns that
switch it on, its own command-line options (with MediScore's equivalent, for
the docs) and ``run``: a pure function of the parsed inputs
(:class:`ScoringInput`) returning one :class:`ScoreResult` or
:class:`NotScored` per item position (one per query, or one).  The pytest
layer (:mod:`pytest_omfc.pytest_glue.scoring`) turns every applicable scorer
and position into an item ``<sub>::score::<name>[q1]``, records the result's
``user_properties``, writes its metrics-JSON entry (with ``"scorer": name``)
and prints one summary table per scorer.  Nothing here imports pytest.

Adding a scorer: a family folder ``scoring/<family>/`` (engine modules, ``options.py``, and
``adapter.py`` with one ``register(Scorer(...))``) and one line in :mod:`.families`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..editions import Task
from ..findings import Unavailable, tame
from ..options import Option

if TYPE_CHECKING:  # csvio imports pandas: this module is read at plugin load (option declarations)
    from ..csvio import Table
    from .paired import TrialData

__all__ = [
    "SCORERS",
    "NotScored",
    "ScoreResult",
    "Scorer",
    "ScoringInput",
    "Tally",
    "common_errors",
    "not_scored",
    "nothing_scored",
    "reference_columns",
    "register",
    "scorers_for",
]


@dataclass(frozen=True)
class NotScored:
    """Why one result could not be computed; ``fail`` for set-up errors the user must fix."""

    reason: str
    fail: bool = False

    def __post_init__(self) -> None:
        # Engine messages quote reference and system values (trial keys, query text): tame them
        # like every rule message, so a 1 MB key or a U+2028 never reaches the terminal or the XML raw.
        object.__setattr__(self, "reason", tame(self.reason))


@dataclass(frozen=True)
class Tally:
    """What a result scored: ``scored`` of ``targets`` (in ``unit``) and why the rest was not.

    ``reasons``: (description, count) of the unscored ones, most frequent first; a description reads
    after a count ("20 have no reference mask ...").  A result that scored nothing never passes
    (:func:`nothing_scored`): it fails when there were targets, and is not scored when there were none.
    """

    unit: str
    targets: int
    scored: int
    reasons: tuple[tuple[str, int], ...] = ()

    def text(self) -> str:
        """``0 of 20 targets scored: 20 have ...; 1 has ...``."""
        head = f"{self.scored} of {self.targets} {self.unit} scored"
        why = "; ".join(f"{n} {d}" for d, n in self.reasons if n)
        return f"{head}: {why}" if why else head

    def as_dict(self) -> dict[str, Any]:
        return {
            "unit": self.unit,
            "targets": self.targets,
            "scored": self.scored,
            "not_scored": {d: n for d, n in self.reasons},
        }


@dataclass(frozen=True)
class ScoreResult:
    """One computed result, in builtin types (it crosses xdist and lands in JSON and JUnit).

    ``entry``: the metrics-JSON entry (the pytest layer adds ``"scorer"`` first);
    ``properties``: the item's ``user_properties`` after ``omfc.score``/``query``/``query_kind``;
    ``failure``: set when some trials could not be scored (the item fails naming them; the numbers stay).
    """

    entry: dict[str, Any]
    properties: list[tuple[str, Any]] = field(default_factory=list)
    failure: str | None = None  # the result is computed, but the item fails with this (e.g. unscorable masks)
    tally: Tally | None = None  # what it scored, when the scorer counts targets (mask, provenance, temporal, ...)

    def __post_init__(self) -> None:
        if self.tally is not None:
            self.entry.setdefault("scored", self.tally.as_dict())
        if self.failure is not None:
            object.__setattr__(self, "failure", tame(self.failure))


Outcome = ScoreResult | NotScored


def common_errors(exc: Unavailable) -> NotScored:
    """A submission that cannot be scored: skip naming the rule that makes it so."""
    return NotScored(f"{exc.rule_id} failed: {exc.reason}")


def not_scored(exc: Exception) -> NotScored:
    """An engine's refusal as an outcome: the error's class decides fail or skip (:func:`.errors.fails`);
    an exception outside the hierarchy fails."""
    from ..errors import ScoringError, fails

    return NotScored(str(exc), fail=not isinstance(exc, ScoringError) or fails(exc))


def nothing_scored(outcome: Outcome) -> Outcome:
    """No score item passes on nothing: a result whose tally scored 0 of N > 0 targets fails saying why
    (counted by reason); one with no target at all is not scored.  Other outcomes are returned as they are."""
    if not isinstance(outcome, ScoreResult) or outcome.tally is None or outcome.tally.scored:
        return outcome
    tally = outcome.tally
    if tally.targets == 0:
        return NotScored(f"nothing to score: no {tally.unit.removesuffix('s')} selected")
    failure = tally.text() if outcome.failure is None else f"{tally.text()}. {outcome.failure}"
    return ScoreResult(outcome.entry, outcome.properties, failure, tally)


@dataclass(frozen=True)
class ScoringInput:
    """What every scorer gets: the parsed submission and the scoring set-up (no pytest objects)."""

    system: Table | None  # the parsed system output (strings), with file/line lookups; None for ForgeryNet
    index: Any  # pandas.DataFrame of the index (strings)
    column_rule: str  # the COL rule owning the system output's layout (named when a column is absent)
    reference: Path
    task: Task
    submission: Path  # system masks are resolved inside it
    dataset_root: Path | None  # reference masks are resolved inside it
    queries: tuple[tuple[str, str], ...]  # (query, kind) in the order given; kind q, qm or qp
    query_partition: str | None
    optout: bool
    convention: str
    jobs: int
    options: Mapping[str, Any]  # this scorer's own options, parsed (Option.key -> value)
    parsed: Any = None  # ForgeryNet: the ForgeryNetSubmission, which parsed and validated the files
    index_table: Table | None = None  # the index as read (file name and physical lines, for messages)
    #: ``progress(done, total)`` for long work inside the item (the pytest layer draws a bar on a
    #: terminal, or passes None); an engine calls it as it goes, in units of ``Scorer.progress_unit``.
    progress: Callable[[int, int], None] | None = None
    #: ``rejected()``: absolute path -> "MASK-04: ..." of the system files that a rule fails with an error
    #: (computed by the rule layer on first call); such files are not scored, so rules and scorers agree.
    rejected: Callable[[], Mapping[str, str]] | None = None

    @property
    def table(self) -> Table:
        """The system output of a NIST edition (the ForgeryNet scorers read ``parsed`` instead)."""
        if self.system is None:
            raise TypeError("this scorer reads a NIST system output table, and none was parsed")
        return self.system

    @property
    def positions(self) -> int:
        return max(1, len(self.queries))

    @property
    def selective(self) -> bool:
        """Whether a query selects trials: ``"*"`` (MediScore's "all", docs/scoring/temporal.md#definition) alone does
        not,
        so scorers that take no query (provenance, ForgeryNet) accept it."""
        return len(self.queries) > 1 or any(q.strip() != "*" for q, _ in self.queries)

    @property
    def kind(self) -> str:
        return self.queries[0][1] if self.queries else "all"


@dataclass(frozen=True)
class Scorer:
    """A scorer as data: what it scores and how (its presentation is its view, :mod:`pytest_omfc.report.views`).

    * ``tasks``: plugin task -> the engine's task name (e.g. IMG -> "manipulation");
    * ``switch_columns``: reference columns of which one must be present (empty: always on);
    * ``run(inp) -> [outcome per position]``: raises nothing on bad input (the pytest layer still
      turns an unexpected exception into failed items, never an INTERNALERROR);
    * ``null_keys``: the entry keys a not-scored result carries as null (beside ``skipped``);
    * ``metrics``: the names of its numeric results (the metrics JSON's ``metrics`` keys), known before
      scoring so that ``--omfc-require`` can refuse an unknown name up front (exit 4) and list the valid ones.
    * ``progress_unit``: what ``ScoringInput.progress`` counts (shown beside the bar, e.g. "masks").
    """

    name: str
    title: str
    tasks: Mapping[Task, str]
    run: Callable[[ScoringInput], Sequence[Outcome]]
    switch_columns: tuple[str, ...] = ()
    options: tuple[Option, ...] = ()
    null_keys: tuple[str, ...] = ("metrics",)  # entry keys set to null when a result is not scored
    metrics: tuple[str, ...] = ()  # the metric names of its results (metrics-JSON keys), for gates and the fixture
    progress_unit: str = "steps"
    #: a metrics-JSON entry's trials and how each headline metric is computed from them (paired comparisons and
    #: intervals, docs/scoring/comparison.md), given the document's options; None: the scorer has no trial unit
    trials: Callable[[Mapping[str, Any], Mapping[str, Any]], TrialData | None] | None = None
    #: metrics of which less is better (errors, distances): which side of a difference is worse
    lower_is_better: tuple[str, ...] = ()
    #: the metrics a leaderboard ranks by default (``pytest-omfc leaderboard``)
    headline: tuple[str, ...] = ()

    def applies(self, task: Task, reference_columns: Sequence[str] | None) -> bool:
        """True for a task it scores, when the reference names one of its switch columns."""
        if task not in self.tasks:
            return False
        if not self.switch_columns:
            return True
        return reference_columns is not None and any(c in reference_columns for c in self.switch_columns)


#: Every registered scorer by name, in registration order (the order of items, JSON results and tables).
SCORERS: dict[str, Scorer] = {}


def register(scorer: Scorer) -> Scorer:
    """Add a scorer; a name or an option flag used twice is a programming error."""
    if scorer.name in SCORERS:
        raise ValueError(f"scorer {scorer.name!r} registered twice")
    taken = {o.flag: o for s in SCORERS.values() for o in s.options}
    clash = [o.flag for o in scorer.options if o.flag in taken and taken[o.flag] is not o]  # one Option may be shared
    if clash:
        raise ValueError(f"scorer {scorer.name!r}: option(s) {clash} already registered")
    SCORERS[scorer.name] = scorer
    return scorer


def reference_columns(path: Path, limit: int = 1 << 20) -> tuple[str, ...]:
    """The reference's header names (its first line, at most ``limit`` bytes): they switch scorers on."""
    try:
        with path.open("rb") as fh:
            head = fh.readline(limit)
    except OSError:
        return ()
    text = head.decode("utf-8-sig", errors="replace").strip()
    return tuple(c.strip().strip('"') for c in text.split("|")) if text else ()


def scorers_for(task: Task, reference_columns: Sequence[str] | None, only: Sequence[str] | None = None) -> list[Scorer]:
    """The scorers that apply to a task and reference (restricted to ``only`` when given)."""
    return [s for s in SCORERS.values() if (only is None or s.name in only) and s.applies(task, reference_columns)]
