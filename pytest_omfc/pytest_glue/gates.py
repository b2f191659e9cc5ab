"""Metric gates: ``--omfc-require "AUC>=0.80"`` (repeatable; ini ``omfc_require``, one per line).

Grammar (blanks around the parts are ignored)::

    gate   := [scorer ["[" result "]"] ":"] metric (op bound | "not worse")
    scorer := a scorer of this run (detection, mask, provenance, temporal, ...)
    result := a result label: all, q1, qm2, qp3 (as in the item names), or a provenance node type
    op     := ">=" | ">" | "<=" | "<" | "=="
    bound  := number | "baseline" [("+" | "-") number]
    number := a float ("0.8", ".8", "1e-3")

A bound of ``baseline`` is the value of the same metric and result in ``--omfc-baseline``'s run
(``"AUC>=baseline-0.01"``: the AUC may drop by 0.01 at most).  ``not worse`` fails when the run is
significantly worse than the baseline: when the whole interval of the paired difference (at
``--omfc-ci-level``, docs/scoring/comparison.md) lies on the worse side, a one-sided test at
``(1 - level) / 2``; which side is worse is the scorer's (higher is better but for errors and distances:
EER, BWL1, GWL1...).  Both need ``--omfc-baseline``, and their messages quote the value, the baseline,
the difference, its interval and the p-value.

The scorer may be left out when the metric name belongs to one scorer of the
run; without a result label every result of the scorer (every query) must
meet the bound.  Each gate is an item ``<sub>::require::<gate>`` that fails
with the measured value, the bound and the result ("AUC must be >= 0.8 (got
0.7312, detection, query all)") and fails with the reason when the result was
not scored.  A malformed gate, an unknown or ambiguous metric, or a scorer or
result that this run does not have is a usage error (exit 4) naming the valid
ones, before anything runs: the metric names are the scorers'
:attr:`~pytest_omfc.scoring.registry.Scorer.metrics`.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ..findings import shorten
from .compat import TerminalRepr, failure_repr
from .scoring import SCORING_KEY, ScoringSettings, outcomes_for
from .state import EXTRA_ITEMS_KEY, OMFC_MARK, SETTINGS_KEY, given, node_text

__all__ = ["GATES_KEY", "Gate", "GateItem", "configure", "evaluate", "parse_gate"]

GATES_KEY = pytest.StashKey["tuple[Gate, ...]"]()

OPERATORS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    ">": operator.gt,
    "<=": operator.le,
    "<": operator.lt,
    "==": operator.eq,
}

#: The parts' shapes, matched one part at a time (each pattern is one character class, so matching is
#: linear: the old one-piece regex backtracked for seconds on "detection[" + 3,000 blanks).
_SCORER = re.compile(r"[A-Za-z][\w-]*")
_METRIC = re.compile(r"[A-Za-z][\w@.]*")
_BOUND = re.compile(r"[^\s<>=!]+")
SYNTAX = (
    "must be [scorer[result]:]metric OP bound with OP one of >=, >, <=, <, == and bound a number or "
    "baseline[+-number], or [scorer[result]:]metric not worse "
    '(e.g. "AUC>=0.8", "mask:OptimumMCC>0.3", "detection[q1]:EER<=0.2", "AUC>=baseline-0.01", "AUC not worse")'
)


@dataclass(frozen=True)
class Gate:
    """One ``--omfc-require`` expression, its scorer resolved."""

    text: str  # as given, blanks removed (the item name)
    metric: str
    op: str
    bound: float  # the number; with ``relative``, what is added to the baseline's value
    scorer: str | None = None
    label: str | None = None
    relative: bool = False  # the bound is the baseline's value (+ bound); op "not worse": a one-sided test

    def where(self) -> str:
        return f"{self.scorer}" + (f"[{self.label}]" if self.label else "")


NOT_WORSE = "not worse"
_BASELINE = re.compile(r"baseline(?:([+-])(.+))?", re.IGNORECASE)


def parse_gate(text: str) -> Gate:
    """The gate's parts; :class:`ValueError` with :data:`SYNTAX` when it does not parse.

    A hand-written split, linear in the length of the text: the operator is the first of ``<``, ``>``,
    ``=``; left of it an optional ``scorer[label]:`` and the metric, right of it the bound.
    """
    bad = ValueError(f"{shorten(text, 120)!r} is not a gate: {SYNTAX}")
    words = text.split()
    if len(words) >= 3 and [w.lower() for w in words[-2:]] == ["not", "worse"]:
        target = "".join(words[:-2])
        scorer, label, metric = _target(target, bad)
        return Gate(f"{target} {NOT_WORSE}", metric, NOT_WORSE, 0.0, scorer, label, relative=True)
    at = next((i for i, ch in enumerate(text) if ch in "<>="), -1)
    if at < 0:
        raise bad
    left, right = text[:at], text[at:]
    op = right[:2] if right[:2] in (">=", "<=", "==") else right[:1]
    if op not in OPERATORS:
        raise bad
    bound_text = "".join(right[len(op) :].split())  # "baseline - 0.01" reads as "baseline-0.01"
    scorer, label, metric = _target(left, bad)
    if not _BOUND.fullmatch(bound_text):
        raise bad
    relative = _BASELINE.fullmatch(bound_text)
    if relative is not None:
        sign, number = relative.groups()
        bound_text = f"{sign}{number}" if sign else "0"
    try:
        bound = float(bound_text)
    except ValueError:
        raise ValueError(f"{shorten(text, 120)!r}: the bound must be a number (got {bound_text!r})") from None
    if math.isnan(bound) or (math.isinf(bound) and relative is not None):
        raise ValueError(f"{shorten(text, 120)!r}: the bound must be a number (got {bound_text!r})")
    return Gate(re.sub(r"\s+", "", text), metric, op, bound, scorer, label, relative=relative is not None)


def _target(left: str, bad: ValueError) -> tuple[str | None, str | None, str]:
    """``[scorer[label]:]metric``: the scorer, the result label and the metric."""
    head, colon, metric = left.rpartition(":")
    metric = metric.strip()
    scorer = label = None
    if colon:
        name, bracket, rest = head.partition("[")
        scorer = name.strip()
        if bracket:
            rest = rest.rstrip()
            if not rest.endswith("]") or "[" in rest or "]" in rest[:-1]:
                raise bad
            label = rest[:-1].strip() or None
            if label is None:
                raise bad
        if not _SCORER.fullmatch(scorer):
            raise bad
    if not _METRIC.fullmatch(metric):
        raise bad
    return scorer, label, metric


def _metric_list(settings: ScoringSettings) -> str:
    from ..scoring.registry import SCORERS

    return (
        "; ".join(f"{name}: {', '.join(SCORERS[name].metrics) or '(none declared)'}" for name in settings.scorers)
        or "none"
    )


def resolve(gate: Gate, settings: ScoringSettings, task: str, reference: str) -> Gate:
    """The gate with its scorer; :class:`ValueError` naming the valid scorers, metrics or results."""
    from ..scoring.registry import SCORERS
    from ..scoring.results import labels_for

    running = settings.scorers
    if gate.scorer is not None:
        if gate.scorer not in running:
            why = (
                f"is not scored in this run (task {task}, reference {reference})"
                if gate.scorer in SCORERS
                else "is not a scorer"
            )
            raise ValueError(f"{gate.text!r}: {gate.scorer} {why}; scored: {', '.join(running) or 'none'}")
        names = SCORERS[gate.scorer].metrics
        if gate.metric not in names:
            raise ValueError(f"{gate.text!r}: unknown metric {gate.metric} of {gate.scorer}; valid: {', '.join(names)}")
        scorer = gate.scorer
    else:
        owners = [s for s in running if gate.metric in SCORERS[s].metrics]
        if not owners:
            raise ValueError(f"{gate.text!r}: unknown metric {gate.metric}; valid: {_metric_list(settings)}")
        if len(owners) > 1:
            choices = " or ".join(f"{s}:{gate.metric}" for s in owners)
            raise ValueError(
                f"{gate.text!r}: {gate.metric} is a metric of {' and '.join(owners)}: name the scorer ({choices})"
            )
        scorer = owners[0]
    if gate.label is not None:
        node_types = settings.options_for(scorer).get("node_types") or ()
        valid = [*labels_for(settings.queries), *(str(t) for t in node_types)]
        if gate.label not in valid:
            raise ValueError(
                f"{gate.text!r}: {scorer} has no result {gate.label!r}; valid: {', '.join(dict.fromkeys(valid))}"
            )
    return Gate(gate.text, gate.metric, gate.op, gate.bound, scorer, gate.label, gate.relative)


def configure(config: pytest.Config, usage_error: type[Exception]) -> tuple[Gate, ...]:
    """Parse and resolve every gate up front; a bad one is ``usage_error`` (exit 4)."""
    required, _ = given(config, "omfc_require")
    texts = [str(t) for t in (required or []) if str(t).strip()]
    if not texts:
        return ()
    settings = config.stash.get(SCORING_KEY, None)
    if settings is None:
        raise usage_error("--omfc-require: needs --omfc-reference PATH (nothing is scored without a reference)")
    sub = config.stash[SETTINGS_KEY]
    assert sub is not None
    if sub.is_package:  # each EXPID has its own task and scores: a gate names one
        raise usage_error(
            f"--omfc-require: {sub.submission.name} is an NC2017 package; gate one EXPID at a time "
            "(--omfc-submission <package>/<EXPID>)"
        )
    gates: list[Gate] = []
    for text in texts:
        try:
            gate = resolve(parse_gate(text), settings, sub.task.value, settings.reference.name)
        except ValueError as exc:
            raise usage_error(f"--omfc-require: {exc}") from None
        if gate.relative and settings.baseline is None:
            raise usage_error(f"--omfc-require: {gate.text!r} compares with a baseline: give --omfc-baseline PATH")
        gates.append(gate)
    config.stash[GATES_KEY] = tuple(gates)
    config.stash.setdefault(EXTRA_ITEMS_KEY, []).append(gate_items)
    return config.stash[GATES_KEY]


def gate_items(parent: pytest.Collector) -> Iterator[pytest.Item]:
    """One item per gate, ``<sub>::require::<gate>``, after the score items."""
    sub = parent.config.stash[SETTINGS_KEY]
    assert sub is not None
    for gate in parent.config.stash.get(GATES_KEY, ()):
        yield GateItem.from_parent(parent, name=f"{node_text(sub.submission.name)}::require::{gate.text}", gate=gate)


# ---------------------------------------------------------------------------- evaluation


def _shown(v: Any) -> str:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    return str(v) if isinstance(v, int) else f"{v:.6g}"


def _signed(v: Any) -> str:
    return _shown(v) if not isinstance(v, (int, float)) or isinstance(v, bool) or math.isnan(v) else f"{v:+.6g}"


def _compared(config: pytest.Config, result: Any, metric: str) -> dict[str, Any] | str:
    """The comparison of ``metric`` of ``result`` with the baseline's (a record of ``comparison``, with the
    level), or why there is none (:func:`.scoring.compared_result`: computed once per process and shared with
    the metrics JSON)."""
    from .scoring import compared_result

    got = compared_result(config, dict(result.entry))
    if got is None:
        return f"{result.where} has no trials to pair"
    if "skipped" in got:
        return str(got["skipped"])
    record = got["metrics"].get(metric)
    if record is None:
        return f"{metric} is not compared for {result.where}"
    return dict(record, level=got["paired"]["level"])


def _against_baseline(config: pytest.Config, gate: Gate, r: Any) -> str | None:
    """The failure of a relative gate on one result, or None."""
    from ..comparison import scorer_of
    from ..scoring.registry import SCORERS

    c = _compared(config, r, gate.metric)
    if isinstance(c, str):
        return f"{gate.metric} cannot be compared with the baseline: {c}"
    level = float(c["level"])
    said = (
        f"value {_shown(c['value'])}, baseline {_shown(c['baseline'])}, difference {_signed(c['difference'])}, "
        f"{level:.0%} interval [{_signed(c['ci_low'])}, {_signed(c['ci_high'])}], p {_shown(c['p_value'])} "
        f"({c['test']}, {c['trials']} trials), {r.where}"
    )
    if gate.op == NOT_WORSE:
        if c.get("skipped") or c["ci_low"] is None or c["ci_high"] is None:
            return f"{gate.metric} cannot be compared with the baseline: {c.get('skipped') or 'no interval'}"
        lower = gate.metric in scorer_of(r.entry, SCORERS).lower_is_better  # provenance-graph: provenance's
        worse = c["ci_low"] > 0 if lower else c["ci_high"] < 0
        if worse:
            return f"{gate.metric} is worse than the baseline ({said})"
        return None
    value, base = c["value"], c["baseline"]
    if not isinstance(value, (int, float)) or not isinstance(base, (int, float)):
        return f"{gate.metric} cannot be checked against the baseline: {said}"
    bound = base + gate.bound
    if not OPERATORS[gate.op](float(value), bound):
        offset = f"{gate.bound:+g}" if gate.bound else ""
        return f"{gate.metric} must be {gate.op} baseline{offset} = {bound:.6g} ({said})"
    return None


def evaluate(gate: Gate, results: list[Any]) -> tuple[list[str], list[tuple[str, Any]]]:
    """(failure lines, user_properties) of a gate over the selected results (:class:`~..scoring.results.Result`)."""
    failures: list[str] = []
    props: list[tuple[str, Any]] = []
    must = f"{gate.metric} must be {gate.op} {gate.bound:g}"
    for r in results:
        if not r.scored:
            failures.append(f"{gate.metric} cannot be checked: {r.where} was not scored: {r.skipped}")
            continue
        if gate.metric not in r.metrics:
            failures.append(
                f"{gate.metric} cannot be checked: {r.where} has no such metric (it has: {', '.join(r.metric_names())})"
            )
            continue
        value = r.get(gate.metric)
        props.append((f"omfc.{r.scorer}" + ("" if r.label == "all" else f"[{r.label}]") + f":{gate.metric}", value))
        number = value if isinstance(value, (int, float)) and not isinstance(value, bool) else math.nan
        if math.isnan(number) or not OPERATORS[gate.op](float(number), gate.bound):
            failures.append(f"{must} (got {_shown(value)}, {r.where})")
    if not results:
        failures.append(f"{gate.metric} cannot be checked: {gate.where()} has no result")
    return failures, props


class GateFailed(Exception):
    """A gate is not met; ``args[0]`` is the text (first line: the summary)."""


class GateItem(pytest.Item):
    """One ``--omfc-require`` gate on the scores of this run (shares the score items' cache)."""

    def __init__(self, *, gate: Gate, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.gate = gate
        self.add_marker(OMFC_MARK)

    @property
    def junit_name(self) -> str:
        """The JUnit testcase name: the gate as given, blanks removed (:mod:`.junit`)."""
        return self.gate.text

    def runtest(self) -> None:
        from ..scoring.results import build_scores

        settings = self.config.stash[SCORING_KEY]
        assert settings is not None and self.gate.scorer is not None
        self.user_properties.append(("omfc.require", self.gate.text))
        scores = build_scores({self.gate.scorer: outcomes_for(self.config, self.gate.scorer)}, settings.queries)
        results = [r for r in scores[self.gate.scorer] if self.gate.label is None or r.label == self.gate.label]
        if self.gate.relative:
            failures = [f for r in results if (f := self._relative(r)) is not None]
            props: list[tuple[str, Any]] = []
            if not results:
                failures.append(f"{self.gate.metric} cannot be checked: {self.gate.where()} has no result")
        else:
            failures, props = evaluate(self.gate, results)
        self.user_properties += props
        if failures:
            head = (
                failures[0]
                if len(failures) == 1
                else (f"{self.gate.text}: {len(failures)} of {len(results)} results miss it")
            )
            raise GateFailed("\n".join([head, *failures]) if len(failures) > 1 else head)

    def _relative(self, r: Any) -> str | None:
        if not r.scored:
            return f"{self.gate.metric} cannot be checked: {r.where} was not scored: {r.skipped}"
        return _against_baseline(self.config, self.gate, r)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> TerminalRepr:
        text = (
            str(excinfo.value.args[0])
            if isinstance(excinfo.value, GateFailed)
            else (f"require::{self.gate.text}: the gate could not be checked: {excinfo.exconly()}")
        )
        return failure_repr(self.reportinfo()[0], text)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        settings = self.config.stash[SCORING_KEY]
        return (settings.reference if settings else self.path), None, f"[omfc] {self.name}"
