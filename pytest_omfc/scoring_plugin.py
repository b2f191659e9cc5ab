"""Scoring as test items: ``--omfc-reference`` turns it on.

One :class:`ScoreItem` per result table (one when no query is given, else one
per ``--omfc-query``/``--omfc-query-manipulation`` or per partition of
``--omfc-query-partition``).  The scoring itself runs once per process
(:func:`report_for`); each item picks its result, records every metric as a
``user_properties`` entry (builtin types, so they reach JUnit ``<properties>``
and survive xdist) and hands the full result to the controller on its report.
The controller (or the only process) writes ``--omfc-metrics-json`` and the
plots once, and prints a summary table.
"""

from __future__ import annotations

import io
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from typing import Iterator

import numpy as np
import pytest

from .editions import Task
from .findings import Unavailable
from .scoring import DetectionReport
from .scoring import DetectionResult
from .scoring import RocCurve
from .scoring import ScoringError
from .scoring import score_detection
from .scoring import write_plots
from .scoring.merge import partition_query

__all__ = ["ScoringSettings", "ScoreItem", "add_options", "configure", "score_items"]

SCORING_KEY = pytest.StashKey["ScoringSettings | None"]()
REPORT_KEY = pytest.StashKey["DetectionReport | ScoringError | Unavailable"]()

#: Tasks scored by the detection scorer, with MediScore's task name (METRICS.md 1.12).
DETECTION_TASKS: dict[Task, str] = {
    Task.IMG: "manipulation",
    Task.VID: "manipulation",
    Task.SPL: "splice",
    Task.EV: "eventverification",
    Task.CAM: "camera",
}

_OPTIONS: list[tuple[str, str, dict[str, Any]]] = [
    ("--omfc-reference", "omfc_reference", {"metavar": "PATH", "help": "reference file (absolute, or relative to the dataset root); turns scoring on"}),
    ("--omfc-metrics-json", "omfc_metrics_json", {"metavar": "PATH", "help": "write the metrics as JSON here (once, by the xdist controller)"}),
    ("--omfc-plots", "omfc_plots", {"metavar": "DIR", "help": "write ROC and DET plots (PNG and SVG) into DIR"}),
    ("--omfc-far-stop", "omfc_far_stop", {"metavar": "FAR", "help": "FAR for partial AUC and CDR@FAR (default: MediScore's 0.1; plan convention 0.05)"}),
    ("--omfc-ci", "omfc_ci", {"action": "store_true", "help": "bootstrap confidence intervals (MediScore's deterministic bootstrap)"}),
    ("--omfc-ci-level", "omfc_ci_level", {"metavar": "LEVEL", "help": "confidence level of the intervals (default 0.9)"}),
    ("--omfc-ci-iterations", "omfc_ci_iterations", {"metavar": "N", "help": "bootstrap iterations (default 500)"}),
    ("--omfc-seed", "omfc_seed", {"metavar": "SEED", "help": "bootstrap seed (default 77, MediScore's)"}),
    ("--omfc-optout", "omfc_optout", {"action": "store_true", "help": "score only trials not opted out, as MediScore's --optOut"}),
    ("--omfc-query", "omfc_query", {"action": "append", "metavar": "QUERY", "help": "pandas query over reference columns (MediScore -q); repeatable, one result per query"}),
    ("--omfc-query-partition", "omfc_query_partition", {"metavar": "QUERY", "help": "partition query (MediScore -qp): one result per partition"}),
    ("--omfc-query-manipulation", "omfc_query_manipulation", {"action": "append", "metavar": "QUERY", "help": "query over reference and journal columns (MediScore -qm); repeatable"}),
    ("--omfc-convention", "omfc_convention", {"choices": ["mediscore", "plan"], "help": "mediscore (default: the portal's numbers) or plan (the evaluation plans' definitions)"}),
]


def add_options(parser: pytest.Parser) -> None:
    group = parser.getgroup("omfc")
    for flag, ini, kw in _OPTIONS:
        group.addoption(flag, dest=ini, default=None, **kw)
        kind = "bool" if kw.get("action") == "store_true" else ("linelist" if kw.get("action") == "append" else None)
        parser.addini(ini, kw["help"], type=kind, default=False if kind == "bool" else ([] if kind == "linelist" else None))


@dataclass(frozen=True)
class ScoringSettings:
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

    def as_dict(self) -> dict[str, Any]:
        return {
            "far_stop": self.far_stop, "ci": self.ci, "ci_level": self.ci_level, "ci_iterations": self.iterations,
            "seed": self.seed, "optout": self.optout, "convention": self.convention,
            "queries": [q for q, _ in self.queries], "query_kind": self.queries[0][1] if self.queries else "all",
        }  # fmt: skip


def _get(config: pytest.Config, name: str) -> tuple[Any, Path]:
    value = config.getoption(name)
    if value not in (None, False, []):
        return value, config.invocation_params.dir
    ini = config.getini(name)
    base = config.inipath.parent if config.inipath else config.rootpath
    return (ini if ini not in ("", [], False, None) else None), base


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

    def num(name: str, conv: Any, default: Any) -> Any:
        value, _ = _get(config, name)
        if value is None:
            return default
        try:
            return conv(value)
        except (TypeError, ValueError):
            raise usage_error(f"--{name.replace('_', '-')}: bad value {value!r}") from None

    queries: list[tuple[str, str]] = []
    q, _ = _get(config, "omfc_query")
    qm, _ = _get(config, "omfc_query_manipulation")
    qp, _ = _get(config, "omfc_query_partition")
    given = [flag for flag, v in (("--omfc-query", q), ("--omfc-query-manipulation", qm), ("--omfc-query-partition", qp)) if v]
    if len(given) > 1:
        raise usage_error(f"{' and '.join(given)} are mutually exclusive (as MediScore's -q, -qm and -qp)")
    queries += [(str(x), "q") for x in (q or [])]
    queries += [(str(x), "qm") for x in (qm or [])]
    if qp:
        queries += [(part, "qp") for part in partition_query(str(qp))]
    convention, _ = _get(config, "omfc_convention")
    metrics_json, mj_base = _get(config, "omfc_metrics_json")
    plots, pl_base = _get(config, "omfc_plots")
    settings = ScoringSettings(
        reference=ref,
        metrics_json=_as_path(metrics_json, mj_base),
        plots=_as_path(plots, pl_base),
        far_stop=num("omfc_far_stop", float, None),
        ci=bool(_get(config, "omfc_ci")[0]),
        ci_level=num("omfc_ci_level", float, 0.9),
        iterations=num("omfc_ci_iterations", int, 500),
        seed=num("omfc_seed", int, 77),
        optout=bool(_get(config, "omfc_optout")[0]),
        queries=tuple(queries),
        convention=str(convention or "mediscore"),
        query_partition=str(qp) if qp else None,
    )
    if settings.convention not in ("mediscore", "plan"):
        raise usage_error(f"--omfc-convention: must be mediscore or plan (got {settings.convention!r})")
    config.stash[SCORING_KEY] = settings
    config.pluginmanager.register(ScoringReporter(config, settings), "omfc-scoring-reporter")
    return settings


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


def report_for(config: pytest.Config) -> DetectionReport:
    """Score once per process; raise the cached error for every item when scoring cannot run."""
    cached = config.stash.get(REPORT_KEY, None)
    if cached is None:
        from .plugin import submission_for

        settings = config.stash[SCORING_KEY]
        assert settings is not None
        sub = submission_for(config)
        try:
            system = sub.sysout().df  # parsed once, shared with the rules
            index = sub.index().df
            by_kind: dict[str, Any] = {}
            if settings.queries:
                kind = settings.queries[0][1]
                if kind == "qp":
                    by_kind["query_partition"] = settings.query_partition
                else:
                    by_kind["query" if kind == "q" else "query_manipulation"] = [q for q, _ in settings.queries]
            cached = score_detection(
                index, settings.reference, system, task=DETECTION_TASKS[sub.task], optout=settings.optout,
                far_stop=settings.far_stop, ci=settings.ci, ci_level=settings.ci_level,
                n_bootstrap=settings.iterations, seed=settings.seed, convention=settings.convention,  # type: ignore[arg-type]
                **by_kind,
            )  # fmt: skip
        except (ScoringError, Unavailable) as exc:
            cached = exc
        config.stash[REPORT_KEY] = cached
    if isinstance(cached, Exception):
        raise cached
    return cached


class ScoreFailed(Exception):
    """Scoring was asked for something it cannot do (e.g. a query that does not parse)."""


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
        try:
            report = report_for(self.config)
        except Unavailable as exc:
            self.omfc_result = _skipped_entry(query, kind, f"{exc.rule_id} failed: {exc.reason}")
            pytest.skip(f"scoring skipped: {exc.rule_id} failed: {exc.reason}")
        except ScoringError as exc:
            msg = str(exc)
            self.omfc_result = _skipped_entry(query, kind, msg)
            if msg.startswith("query "):
                raise ScoreFailed(f"score::detection: {msg}") from None
            pytest.skip(f"scoring skipped: {msg}")
        result = report.results[self.position]
        data = result.to_dict()
        for name, value in data["metrics"].items():
            self.user_properties.append((name, math.nan if value is None else float(value)))
        for name, value in data["counts"].items():
            self.user_properties.append((f"count.{name}", int(value)))
        self.omfc_result = data

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if isinstance(excinfo.value, ScoreFailed):
            return str(excinfo.value)
        return f"score::detection: scoring could not run: {excinfo.exconly()}"

    def reportinfo(self) -> tuple[Path, int | None, str]:
        settings = self.config.stash[SCORING_KEY]
        return (settings.reference if settings else self.path), None, f"[omfc] {self.name}"


def _skipped_entry(query: str | None, kind: str, reason: str) -> dict[str, Any]:
    return {"query": query, "query_kind": kind, "skipped": reason, "metrics": None, "counts": None, "roc": None}


class ScoringReporter:
    """Controller-side (or single-process) writer of the metrics JSON, plots and summary table."""

    def __init__(self, config: pytest.Config, settings: ScoringSettings) -> None:
        self.config = config
        self.settings = settings
        self.results: dict[int, dict[str, Any]] = {}

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

    def _is_writer(self) -> bool:
        return not hasattr(self.config, "workerinput")

    def document(self) -> dict[str, Any]:
        from . import __version__
        from .plugin import SETTINGS_KEY

        sub = self.config.stash[SETTINGS_KEY]
        assert sub is not None
        return {
            "plugin_version": __version__,
            "edition": sub.edition.value,
            "task": sub.task.value,
            "submission": sub.submission.name,
            "reference": str(self.settings.reference),
            "options": self.settings.as_dict(),
            "results": [self.results[i] for i in sorted(self.results)],
        }

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if not self._is_writer():
            return
        if self.settings.metrics_json is not None:
            self.settings.metrics_json.parent.mkdir(parents=True, exist_ok=True)
            text = json.dumps(self.document(), indent=2, allow_nan=False, default=_json_default)
            self.settings.metrics_json.write_text(text + "\n", encoding="utf-8")
        if self.settings.plots is not None:
            scored = [_result_from_dict(r) for _, r in sorted(self.results.items()) if r.get("metrics") is not None]
            if scored:
                from .plugin import SETTINGS_KEY

                sub = self.config.stash[SETTINGS_KEY]
                title = f"{sub.submission.name} ({sub.edition.value} {sub.task.value})" if sub else "Detection"
                write_plots(scored, self.settings.plots, title=title)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self._is_writer() or not self.results:
            return
        from rich.console import Console
        from rich.table import Table

        from rich import box

        table = Table(title="omfc detection scores", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
        for col in ("query", "T#", "NT#", "AUC", "EER", "AUC@FAR", "CDR@FAR", "TRR", "AUC CI"):
            if col == "query":
                table.add_column(col, overflow="fold", min_width=24)
            else:
                table.add_column(col, justify="right", no_wrap=True)
        for _, r in sorted(self.results.items()):
            label = r["query"] or "all trials"
            if r.get("metrics") is None:
                table.add_row(label, "", "", "", "", "", "", "", f"not scored: {r.get('skipped', '')}")
                continue
            m, c = r["metrics"], r["counts"]
            ci = f"{_fmt(m.get('AUC_CI_LOWER'))}-{_fmt(m.get('AUC_CI_UPPER'))}" if self.settings.ci else "-"
            table.add_row(label, str(c.get("targets", "")), str(c.get("nontargets", "")), _fmt(m.get("AUC")), _fmt(m.get("EER")),
                          _fmt(m.get("AUC@FAR")), _fmt(m.get("CDR@FAR")), _fmt(m.get("TRR")), ci)
        buf = io.StringIO()
        Console(file=buf, width=max(80, terminalreporter._tw.fullwidth), force_terminal=terminalreporter.hasmarkup).print(table)
        terminalreporter.write_line("")
        terminalreporter.write(buf.getvalue())


def _fmt(v: Any) -> str:
    return "NaN" if v is None else f"{float(v):.4f}"


def _json_default(obj: Any) -> Any:
    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating,)):
        return None if not np.isfinite(obj) else float(obj)
    return str(obj)


def _result_from_dict(d: dict[str, Any]) -> DetectionResult:
    roc = d["roc"]
    arr = {k: np.array([np.nan if v is None else v for v in roc[k]], dtype=float) for k in ("fpr", "tpr", "thresholds")}
    counts = d["counts"]
    curve = RocCurve(fpr=arr["fpr"], tpr=arr["tpr"], thresholds=arr["thresholds"],
                     n_targets=int(counts.get("targets", 0)), n_nontargets=int(counts.get("nontargets", 0)))
    return DetectionResult(query=d["query"], query_kind=d["query_kind"], sys_response=d.get("sys_response", "all"),
                           metrics=d["metrics"], counts=counts, roc=curve)
