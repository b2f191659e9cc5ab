"""Scoring as test items: ``--omfc-reference`` turns it on.

One :class:`ScoreItem` per result table (one when no query is given, else one
per ``--omfc-query``/``--omfc-query-manipulation`` or per partition of
``--omfc-query-partition``).  The scoring itself runs once per process
(:func:`outcomes_for`); each item picks its result, records every metric as a
``user_properties`` entry (builtin types, so they reach JUnit ``<properties>``
and survive xdist) and hands the full result to the controller on its report.
The controller (or the only process) writes ``--omfc-metrics-json`` and the
plots once, and prints a summary table.

Scoring depends only on what its numbers depend on: a parseable system output
with the score and key columns, the index and the reference.  Naming,
description, mask... rules may fail; the scores are still computed.

Outcome of an item (documented in the README, section Scoring):

* passed: the result was computed;
* skipped: the submission cannot be scored (the rule that makes it unscorable is
  named, e.g. CSV-01, COL-02, SCORE-01), or the metric is undefined for the
  selected trials (no target or no non-target trial);
* failed: the scoring set-up given on the command line is wrong (a query that
  does not parse or names an unknown column, a reference or journal table that
  is unreadable, lacks a column or does not match the index), or the engine
  itself broke.  These are the user's to fix, so they must not pass silently.
"""

from __future__ import annotations

import io
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from typing import Iterator

import numpy as np
import pandas as pd
import pytest

from .editions import Task
from .findings import Unavailable
from .findings import tame
from .scoring import TASK_KEYS
from .scoring import DetectionResult
from .scoring import RocCurve
from .scoring import ScoringError
from .scoring import score_detection
from .scoring import write_plots
from .scoring.merge import SCORE_COLUMN
from .scoring.merge import partition_query

__all__ = ["ScoringSettings", "ScoreItem", "NotScored", "add_options", "configure", "score_items", "outcomes_for"]

SCORING_KEY = pytest.StashKey["ScoringSettings | None"]()
OUTCOMES_KEY = pytest.StashKey["list[DetectionResult | NotScored]"]()

#: Tasks scored by the detection scorer, with MediScore's task name (METRICS.md 1.12).
DETECTION_TASKS: dict[Task, str] = {
    Task.IMG: "manipulation",
    Task.VID: "manipulation",
    Task.SPL: "splice",
    Task.EV: "eventverification",
    Task.CAM: "camera",
}

DEFAULT_FAR_STOP = {"mediscore": 0.1, "plan": 0.05}  # METRICS.md 1.4 and 7.6

#: Highest ``--omfc-ci-iterations``: 20 times MediScore's fixed 500 (about 5 s on 16,000 trials; the
#: time is linear in it, so an unbounded value never finishes).
MAX_CI_ITERATIONS = 10_000

_OPTIONS: list[tuple[str, str, dict[str, Any]]] = [
    ("--omfc-reference", "omfc_reference", {"metavar": "PATH", "help": "reference <DataSet>-<TaskID>-ref.csv (absolute, or relative to the dataset root); turns scoring on"}),
    ("--omfc-metrics-json", "omfc_metrics_json", {"metavar": "PATH", "help": "write every result as JSON here (once, by the xdist controller)"}),
    ("--omfc-plots", "omfc_plots", {"metavar": "DIR", "help": "write roc.png, roc.svg, det.png, det.svg into DIR: one curve per result, AUC and trial counts in the legend"}),
    ("--omfc-far-stop", "omfc_far_stop", {"metavar": "FAR", "help": "FAR of AUC@FAR and CDR@FAR, in [0, 1] (default: MediScore's 0.1; plan convention 0.05)"}),
    ("--omfc-ci", "omfc_ci", {"action": "store_true", "help": "bootstrap confidence intervals of AUC, AUC@FAR and CDR@FAR (MediScore's deterministic bootstrap)"}),
    ("--omfc-ci-level", "omfc_ci_level", {"metavar": "LEVEL", "help": "confidence level of the intervals, strictly between 0 and 1 (default 0.9)"}),
    ("--omfc-ci-iterations", "omfc_ci_iterations", {"metavar": "N", "help": "bootstrap resamples, 1 to 10000 (default 500, fixed in MediScore)"}),
    ("--omfc-seed", "omfc_seed", {"metavar": "SEED", "help": "bootstrap seed of numpy.random.RandomState, 0 to 4294967295 (default 77, which reproduces MediScore)"}),
    ("--omfc-optout", "omfc_optout", {"action": "store_true", "help": "score only trials whose IsOptOut/ProbeStatus says detection was done (METRICS.md 1.2)"}),
    ("--omfc-query", "omfc_query", {"action": "append", "metavar": "QUERY", "help": "pandas query over index, reference and journal columns; repeatable, one result per query"}),
    ("--omfc-query-partition", "omfc_query_partition", {"metavar": "QUERY", "help": "Name==['a','b'] & ... expanded into one result per combination (crashes in MediScore)"}),
    ("--omfc-query-manipulation", "omfc_query_manipulation", {"action": "append", "metavar": "QUERY", "help": "keeps targets with at least one matching journal operation and every non-target; repeatable"}),
    ("--omfc-convention", "omfc_convention", {"choices": ["mediscore", "plan"], "help": "mediscore (default: the portal's numbers) or plan (the evaluation plans' definitions)"}),
]

#: The MediScore DetectionScorer.py option each of ours stands for (README table; a test keeps it complete).
MEDISCORE_FLAGS: dict[str, str] = {
    "--omfc-reference": "-r",
    "--omfc-metrics-json": "-o (CSV)",
    "--omfc-plots": "--plotType",
    "--omfc-far-stop": "--farStop",
    "--omfc-ci": "--ci",
    "--omfc-ci-level": "--ciLevel",
    "--omfc-ci-iterations": "(500, fixed)",
    "--omfc-seed": "(77, fixed)",
    "--omfc-optout": "--optOut",
    "--omfc-query": "-q",
    "--omfc-query-partition": "-qp",
    "--omfc-query-manipulation": "-qm",
    "--omfc-convention": "",
}


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("omfc")
    for flag, ini, kw in _OPTIONS:
        group.addoption(flag, dest=ini, default=None, **kw)
        kind = "bool" if kw.get("action") == "store_true" else ("linelist" if kw.get("action") == "append" else None)
        parser.addini(ini, kw["help"], type=kind, default=False if kind == "bool" else ([] if kind == "linelist" else None))


@dataclass(frozen=True)
class ScoringSettings:
    """Scoring options as plain data (every xdist worker rebuilds the same from the command line)."""

    reference: Path
    metrics_json: Path | None
    plots: Path | None
    far_stop: float | None
    ci: bool
    ci_level: float
    iterations: int
    seed: int
    optout: bool
    queries: tuple[tuple[str, str], ...]  # (query, kind) in the order given
    convention: str
    query_partition: str | None
    query_error: str | None = None  # a -qp that cannot be expanded: its items fail with this

    @property
    def positions(self) -> int:
        return max(1, len(self.queries))

    def as_dict(self) -> dict[str, Any]:
        return {
            "far_stop": self.far_stop if self.far_stop is not None else DEFAULT_FAR_STOP[self.convention],
            "ci": self.ci, "ci_level": self.ci_level, "ci_iterations": self.iterations,
            "seed": self.seed, "optout": self.optout, "convention": self.convention,
            "query_kind": self.queries[0][1] if self.queries else "all",
            "queries": [q for q, _ in self.queries], "query_partition": self.query_partition,
        }  # fmt: skip


def _get(config: pytest.Config, name: str) -> tuple[Any, Path]:
    value = config.getoption(name)
    if value not in (None, False, []):
        return value, config.invocation_params.dir
    ini = config.getini(name)
    base = config.inipath.parent if config.inipath else config.rootpath
    return (ini if ini not in ("", [], False, None) else None), base


def _int(value: Any) -> int:
    """An integer option's text (surrounding blanks allowed, as ``int`` does)."""
    return int(str(value).strip())


def _as_path(value: Any, base: Path) -> Path | None:
    if value is None:
        return None
    p = Path(str(value)).expanduser()
    return (p if p.is_absolute() else base / p).resolve()


def configure(config: pytest.Config, dataset_root: Path | None, usage_error: type[Exception]) -> ScoringSettings | None:
    """Read the scoring options; None when no reference is given (nothing changes then)."""
    ref_value, ref_base = _get(config, "omfc_reference")
    if ref_value is None:
        config.stash[SCORING_KEY] = None
        return None
    ref = Path(str(ref_value)).expanduser()
    if not ref.is_absolute():
        cands = ([dataset_root / ref] if dataset_root else []) + [ref_base / ref]
        ref = next((c for c in cands if c.is_file()), cands[0]).resolve()
    if not ref.is_file():
        raise usage_error(f"--omfc-reference: no such file: {ref} (a relative path is taken from the dataset root)")

    def num(name: str, conv: Any, default: Any, ok: Any, must: str) -> Any:
        value, _ = _get(config, name)
        if value is None:
            return default
        try:
            out = conv(value)
        except (TypeError, ValueError):
            out = None
        if out is None or not ok(out):
            shown = out if isinstance(out, int) else repr(value)  # an integer out of range reads as a number
            raise usage_error(f"--{name.replace('_', '-')}: must be {must} (got {shown})")
        return out

    q, _ = _get(config, "omfc_query")
    qm, _ = _get(config, "omfc_query_manipulation")
    qp, _ = _get(config, "omfc_query_partition")
    given = [flag for flag, v in (("--omfc-query", q), ("--omfc-query-manipulation", qm), ("--omfc-query-partition", qp)) if v]
    if len(given) > 1:
        raise usage_error(f"{' and '.join(given)} are mutually exclusive (as MediScore's -q, -qm and -qp)")
    queries = [(str(x), "q") for x in (q or [])] + [(str(x), "qm") for x in (qm or [])]
    query_error = None
    if qp:
        try:
            queries += [(part, "qp") for part in partition_query(str(qp))]
        except ScoringError as exc:  # fails its item (a query the user must fix), never INTERNALERROR
            queries, query_error = [(str(qp), "qp")], str(exc)
    convention, _ = _get(config, "omfc_convention")
    if str(convention or "mediscore") not in DEFAULT_FAR_STOP:
        raise usage_error(f"--omfc-convention: must be mediscore or plan (got {convention!r})")
    metrics_json, mj_base = _get(config, "omfc_metrics_json")
    plots, pl_base = _get(config, "omfc_plots")
    settings = ScoringSettings(
        reference=ref,
        metrics_json=_as_path(metrics_json, mj_base),
        plots=_as_path(plots, pl_base),
        far_stop=num("omfc_far_stop", float, None, lambda v: 0.0 <= v <= 1.0, "a number in [0, 1]"),
        ci=bool(_get(config, "omfc_ci")[0]),
        ci_level=num("omfc_ci_level", float, 0.9, lambda v: 0.0 < v < 1.0, "a number strictly between 0 and 1"),
        iterations=num("omfc_ci_iterations", _int, 500, lambda v: 1 <= v <= MAX_CI_ITERATIONS,
                       f"an integer from 1 to {MAX_CI_ITERATIONS}"),
        seed=num("omfc_seed", _int, 77, lambda v: 0 <= v < 2**32, f"an integer from 0 to {2**32 - 1}"),
        optout=bool(_get(config, "omfc_optout")[0]),
        queries=tuple(queries),
        convention=str(convention or "mediscore"),
        query_partition=str(qp) if qp else None,
        query_error=query_error,
    )
    _guard_outputs(config, settings, dataset_root, usage_error)
    config.stash[SCORING_KEY] = settings
    config.pluginmanager.register(ScoringReporter(config, settings), "omfc-scoring-reporter")
    return settings


def _guard_outputs(config: pytest.Config, settings: ScoringSettings, dataset_root: Path | None, usage_error: type[Exception]) -> None:
    """Never write into the submission or the dataset: refuse such output paths up front."""
    from .plugin import SETTINGS_KEY

    sub = config.stash.get(SETTINGS_KEY, None)
    guarded = [p.resolve() for p in ((sub.submission if sub else None), dataset_root) if p is not None]
    for flag, path in (("--omfc-metrics-json", settings.metrics_json), ("--omfc-plots", settings.plots)):
        if path is None:
            continue
        inside = next((g for g in guarded if path == g or path.is_relative_to(g)), None)
        if inside is not None:
            raise usage_error(f"{flag}: must not point into the submission or dataset directory {inside} (got {path})")
        if flag == "--omfc-metrics-json" and path.is_dir():
            raise usage_error(f"{flag}: must be a file path (got the directory {path})")


def score_items(parent: pytest.Collector, sub_name: str, task: Task) -> Iterator[pytest.Item]:
    """The scoring items of a submission (none without ``--omfc-reference`` or for provenance)."""
    settings = parent.config.stash.get(SCORING_KEY, None)
    if settings is None or task not in DETECTION_TASKS:
        return
    if not settings.queries:
        yield ScoreItem.from_parent(parent, name=f"{sub_name}::score::detection", position=0)
        return
    for i, (_query, kind) in enumerate(settings.queries):
        yield ScoreItem.from_parent(parent, name=f"{sub_name}::score::detection[{kind}{i + 1}]", position=i)


# ---------------------------------------------------------------------------- scoring


@dataclass(frozen=True)
class NotScored:
    """Why one result could not be computed; ``fail`` for set-up errors the user must fix."""

    reason: str
    fail: bool = False

    def __post_init__(self) -> None:
        # Engine messages quote reference and system values (trial keys, query text): tame them
        # like every rule message, so a 1 MB key or a U+2028 never reaches the terminal or the XML raw.
        object.__setattr__(self, "reason", tame(self.reason))


#: ScoringError texts caused by the scoring set-up (command line, reference, journal tables), not by the
#: submission: they fail the item. Everything else the engine refuses is the submission's and skips.
_SETUP_ERROR = re.compile(
    r"^(query|partition query|empty partition query|reference|index and reference|cannot merge reference"
    r"|cannot merge trials with the index|journal|cannot parse (reference|probe-journal|journal)"
    r"|(probe-journal join|journal mask) table)"
)


def _is_query_error(msg: str) -> bool:
    return msg.startswith(("query ", "partition query", "empty partition query"))


def outcomes_for(config: pytest.Config) -> list[DetectionResult | NotScored]:
    """Score once per process; one entry per item position."""
    cached = config.stash.get(OUTCOMES_KEY, None)
    if cached is None:
        settings = config.stash[SCORING_KEY]
        assert settings is not None
        try:
            cached = _score_all(config, settings)
        except Exception as exc:  # an engine bug must fail the items, not crash the run
            cached = [NotScored(f"scoring could not run: {type(exc).__name__}: {exc}", fail=True)] * settings.positions
        config.stash[OUTCOMES_KEY] = cached
    return cached


def _score_all(config: pytest.Config, settings: ScoringSettings) -> list[DetectionResult | NotScored]:
    from .plugin import submission_for

    n = settings.positions
    if settings.query_error:
        return [NotScored(settings.query_error, fail=True)] * n
    sub = submission_for(config)
    task = DETECTION_TASKS[sub.task]
    try:
        system, index = _inputs(sub, task)
    except Unavailable as exc:
        return [NotScored(f"{exc.rule_id} failed: {exc.reason}")] * n
    kind = settings.queries[0][1] if settings.queries else "all"
    common: dict[str, Any] = dict(
        task=task, optout=settings.optout, far_stop=settings.far_stop, ci=settings.ci, ci_level=settings.ci_level,
        n_bootstrap=settings.iterations, seed=settings.seed, convention=settings.convention, strict=False,
    )  # fmt: skip

    def run(queries: list[str]) -> list[DetectionResult]:
        by_kind: dict[str, Any] = {}
        if kind == "qp":
            by_kind["query_partition"] = settings.query_partition
        elif kind in ("q", "qm"):
            by_kind["query" if kind == "q" else "query_manipulation"] = queries
        return score_detection(index, settings.reference, system, **common, **by_kind).results

    try:
        results: list[DetectionResult | NotScored] = list(run([q for q, _ in settings.queries]))
    except ScoringError as exc:
        msg = str(exc)
        if not (_is_query_error(msg) and kind in ("q", "qm") and n > 1):
            return [_not_scored(msg, settings, kind)] * n
        results = []  # one bad query must not hide the others: score each alone
        for query, _ in settings.queries:
            try:
                results += run([query])
            except ScoringError as one:
                results.append(_not_scored(str(one), settings, kind))
    return [r if isinstance(r, NotScored) else _defined(r) for r in results]


def _inputs(sub: Any, task: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """System output and index frames; :class:`Unavailable` names the rule that makes them unscorable."""
    table = sub.sysout()  # CSV-01..08 when the file cannot be read as a table
    index = sub.index()  # CSV-07
    for col in (SCORE_COLUMN, *TASK_KEYS[task]):
        if not table.has(col):
            raise Unavailable(sub.column_rule, f"column {col} is absent")
    text = table.df[SCORE_COLUMN].astype(str).str.strip()
    number = pd.to_numeric(text.where(text != "", None), errors="coerce")
    bad = np.flatnonzero((number.isna() & (text != "") & (text.str.lower() != "nan")).to_numpy())
    if bad.size:
        pos = int(bad[0])
        raise Unavailable(
            "SCORE-01",
            f"{bad.size} ConfidenceScore value(s) are not numbers "
            f"(first {table.display}:{table.line_of(pos)}: {text.iloc[pos]!r})",
        )
    return table.df, index.df


def _not_scored(msg: str, settings: ScoringSettings, kind: str) -> NotScored:
    if kind == "qm" and _is_query_error(msg) and "unknown column" in msg:
        stem = settings.reference.with_suffix("")
        join, mask = (stem.parent / f"{stem.name}-{s}.csv" for s in ("probejournaljoin", "journalmask"))
        if not (join.is_file() and mask.is_file()):
            msg += f" (no journal tables {join.name} and {mask.name} beside the reference)"
    return NotScored(msg, fail=bool(_SETUP_ERROR.match(msg)))


def _defined(r: DetectionResult) -> DetectionResult | NotScored:
    """AUC and EER need both classes (METRICS.md 1.4, 1.5): skip instead of printing NaN as MediScore does."""
    t, nt = int(r.counts.get("targets", 0)), int(r.counts.get("nontargets", 0))
    if t and nt:
        return r
    what = "no trials" if t + nt == 0 else ("no target trials" if t == 0 else "no non-target trials")
    where = "all trials" if r.query is None else f"{r.query_kind} query {r.query!r}"
    return NotScored(f"{where}: {what} (targets={t}, non-targets={nt}); AUC and EER are undefined")


# ---------------------------------------------------------------------------- items


class ScoreFailed(Exception):
    """The scoring set-up is wrong (e.g. a query that does not parse); ``args[0]`` is the text."""


class ScoreItem(pytest.Item):
    """One result table of the detection scorer."""

    def __init__(self, *, position: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.position = position
        self.add_marker("omfc")

    def runtest(self) -> None:
        settings = self.config.stash[SCORING_KEY]
        assert settings is not None
        query, kind = settings.queries[self.position] if settings.queries else (None, "all")
        self.user_properties += [("omfc.score", "detection"), ("query", query or ""), ("query_kind", kind)]
        outcome = outcomes_for(self.config)[self.position]
        if isinstance(outcome, NotScored):
            self.omfc_result = _unscored_entry(query, kind, outcome.reason)
            self.user_properties.append(("omfc.skipped" if not outcome.fail else "omfc.error", outcome.reason))
            if outcome.fail:
                raise ScoreFailed(f"score::detection: {outcome.reason}")
            pytest.skip(f"score::detection skipped: {outcome.reason}")
        data = outcome.to_dict()
        self.user_properties.append(("SYS_RESPONSE", outcome.sys_response))
        for name, value in data["metrics"].items():
            self.user_properties.append((name, math.nan if value is None else float(value)))
        for name, value in data["counts"].items():
            self.user_properties.append((f"count.{name}", int(value)))
        self.omfc_result = {k: data[k] for k in ("query", "query_kind", "metrics", "counts", "roc")}

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ScoreFailed):
            return str(excinfo.value.args[0])
        return f"score::detection: scoring could not run: {excinfo.exconly()}"

    def reportinfo(self) -> tuple[Path, int | None, str]:
        settings = self.config.stash[SCORING_KEY]
        return (settings.reference if settings else self.path), None, f"[omfc] {self.name}"


def _unscored_entry(query: str | None, kind: str, reason: str) -> dict[str, Any]:
    return {"query": query, "query_kind": kind, "metrics": None, "counts": None, "roc": None, "skipped": reason}


# ---------------------------------------------------------------------------- reporting


class ScoringReporter:
    """Controller-side (or single-process) writer of the metrics JSON, plots and summary table."""

    def __init__(self, config: pytest.Config, settings: ScoringSettings) -> None:
        self.config = config
        self.settings = settings
        self.results: dict[int, dict[str, Any]] = {}
        self.written: list[str] = []
        self.errors: list[str] = []

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
        """Carry the result dict on the report (builtin types: it crosses xdist; JUnit ignores it)."""
        rep = yield
        if call.when == "call" and isinstance(item, ScoreItem) and hasattr(item, "omfc_result"):
            rep.omfc_result = item.omfc_result
            rep.omfc_position = item.position
        return rep

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        result = getattr(report, "omfc_result", None)
        if report.when == "call" and result is not None:
            self.results[int(getattr(report, "omfc_position", 0))] = result

    def pytest_report_header(self, config: pytest.Config) -> list[str]:
        """Say what is scored, or why nothing is (provenance has no detection scoring)."""
        from .plugin import SETTINGS_KEY

        sub = config.stash.get(SETTINGS_KEY, None)
        if sub is not None and sub.task not in DETECTION_TASKS:
            return [f"omfc: --omfc-reference ignored: task {sub.task.value} has no detection scoring"]
        far = self.settings.as_dict()["far_stop"]
        return [f"omfc: scoring detection against {self.settings.reference} "
                f"(convention {self.settings.convention}, FAR stop {far:g})"]

    def _is_writer(self) -> bool:
        return not hasattr(self.config, "workerinput")

    def _labels(self) -> tuple[str, str, str]:
        """Submission name, edition and the human TaskID (as the index names it, e.g. IMDL or manipulation)."""
        from .plugin import SETTINGS_KEY

        sub = self.config.stash[SETTINGS_KEY]
        assert sub is not None
        task = self.config.getoption("omfc_task") or None
        if task is None:
            m = re.match(r"^[^-]+-(?P<task>.+?)-index[^.]*\.csv$", sub.index.name, re.I)
            task = m.group("task") if m else DETECTION_TASKS.get(sub.task, sub.task.value)
        return sub.submission.name, sub.edition.value, str(task)

    def document(self) -> dict[str, Any]:
        """The metrics JSON (shape in the README, section Metrics JSON)."""
        from . import __version__

        name, edition, task = self._labels()
        return {
            "plugin_version": __version__,
            "edition": edition,
            "task": task,
            "submission": name,
            "reference": str(self.settings.reference),
            "options": self.settings.as_dict(),
            "results": [self.results[i] for i in sorted(self.results)],
        }

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if not self._is_writer():
            return
        path = self.settings.metrics_json
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                text = json.dumps(self.document(), indent=2, allow_nan=False, default=_json_default)
                path.write_text(text + "\n", encoding="utf-8")
                self.written.append(f"metrics JSON: {path}")
            except (OSError, ValueError) as exc:
                self.errors.append(f"--omfc-metrics-json: cannot write {path}: {exc}")
        scored = [_result_from_dict(r) for _, r in sorted(self.results.items()) if r.get("metrics") is not None]
        if self.settings.plots is not None and scored:
            name, edition, task = self._labels()
            try:
                paths = write_plots(scored, self.settings.plots, title=f"{name} ({edition} {task})")
                self.written.append(f"plots: {', '.join(p.name for p in paths)} in {self.settings.plots}")
            except (OSError, ValueError) as exc:
                self.errors.append(f"--omfc-plots: cannot write into {self.settings.plots}: {exc}")
        if self.errors and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self._is_writer() or not (self.results or self.errors):
            return
        from rich import box
        from rich.console import Console
        from rich.table import Table

        table = Table(title="omfc detection scores", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False, padding=(0, 1), collapse_padding=True)
        cols = ["T#", "NT#", "AUC", "EER", "AUC@FAR", "CDR@FAR", "TRR"] + (["AUC CI"] if self.settings.ci else [])
        table.add_column("result", no_wrap=True)
        for col in cols:
            table.add_column(col, justify="right", no_wrap=True)
        notes: list[str] = []
        for pos, r in sorted(self.results.items()):
            label = "all" if r["query"] is None else f"{r['query_kind']}{pos + 1}"
            if r["query"] is not None:
                notes.append(f"  {label}: {r['query']}")
            if r.get("metrics") is None:
                notes.append(f"  {label} not scored: {r.get('skipped', '')}")
                table.add_row(label, *(["-"] * len(cols)))
                continue
            m, c = r["metrics"], r["counts"]
            row = [str(c["targets"]), str(c["nontargets"])] + [_fmt(m.get(k)) for k in ("AUC", "EER", "AUC@FAR", "CDR@FAR", "TRR")]
            if self.settings.ci:
                row.append(f"{_fmt(m.get('AUC_CI_LOWER'))}-{_fmt(m.get('AUC_CI_UPPER'))}")
            table.add_row(label, *row)
        buf = io.StringIO()
        Console(file=buf, width=max(80, terminalreporter._tw.fullwidth), force_terminal=terminalreporter.hasmarkup).print(table)
        terminalreporter.write_line("")
        if self.results:
            terminalreporter.write(buf.getvalue())
        far = self.settings.as_dict()["far_stop"]
        terminalreporter.write_line(f"omfc: convention {self.settings.convention}, FAR stop {far:g}" + (", opt-out" if self.settings.optout else ""))
        for line in notes + [f"omfc: wrote {w}" for w in self.written]:
            terminalreporter.write_line(line)
        for line in self.errors:
            terminalreporter.write_line(f"omfc: ERROR {line}", red=True, bold=True)


def _fmt(v: Any) -> str:
    return "NaN" if v is None else f"{float(v):.4f}"


def _json_default(obj: Any) -> Any:
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating,)):
        return None if not np.isfinite(obj) else float(obj)
    return str(obj)


def _result_from_dict(d: dict[str, Any]) -> DetectionResult:
    """Rebuild a result from its report dict (the controller has no engine objects under xdist)."""
    roc = d["roc"]
    arr = {k: np.array([np.nan if v is None else v for v in roc[k]], dtype=float) for k in ("fpr", "tpr", "thresholds")}
    counts = d["counts"]
    curve = RocCurve(fpr=arr["fpr"], tpr=arr["tpr"], thresholds=arr["thresholds"],
                     n_targets=int(counts.get("targets", 0)), n_nontargets=int(counts.get("nontargets", 0)))
    return DetectionResult(query=d["query"], query_kind=d["query_kind"], sys_response=d.get("sys_response", "all"),
                           metrics=d["metrics"], counts=counts, roc=curve)
