"""Pytest nodes of the rules: the submission collector, one item per rule, the warnings reporter."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .. import rules as _rules  # noqa: F401  (registers every rule)
from ..findings import render
from ..registry import Part, Rule, rules_for
from . import scoring as _scoring
from .compat import FSCollector, TerminalRepr, failure_repr, skip_here
from .state import EXTRA_ITEMS_KEY, SETTINGS_KEY, submission_for

__all__ = ["OmfcReporter", "RuleFailed", "RuleItem", "SubmissionDir", "failure_repr"]


# ---------------------------------------------------------------------------- nodes


class SubmissionDir(FSCollector):
    """The submission directory; its children are rule items, never its files.

    Not a :class:`pytest.Directory`: pytest imports the ``conftest.py`` of every
    Directory it collects (running a participant's code and possibly writing
    ``__pycache__`` into the submission); nothing in a submission may run.
    """

    def collect(self) -> Iterator[pytest.Item]:
        settings = self.config.stash[SETTINGS_KEY]
        assert settings is not None
        slices = settings.slices
        for rule in rules_for(settings.edition.group, settings.task, archive=settings.archive is not None):
            parts: list[Part | None] = [Part(i, slices) for i in range(slices)] if rule.sliced else [None]
            for part in parts:
                name = f"{settings.submission.name}::{rule.id}" + (f"[{part}]" if part else "")
                yield RuleItem.from_parent(self, name=name, rule=rule, part=part)
        yield from _scoring.score_items(self, settings.submission.name, settings.task)
        for make in self.config.stash.get(EXTRA_ITEMS_KEY, []):
            yield from make(self)


class RuleFailed(Exception):
    """A rule found errors; ``args[0]`` is the rendered report."""


class RuleItem(pytest.Item):
    """One RULES.md rule checked on one submission (or one slice of its rows).

    Passed: no error finding.  Failed: an error finding, reported as the
    headline (the JUnit ``message``) then the findings.  Skipped: a rule it
    needs failed, named in the reason.  Warnings never fail the item; they go
    to ``user_properties`` (``omfc.warning``, JUnit ``<properties>``), to a
    report section and to the end-of-run summary.

    JUnit: pytest writes a testcase's ``<properties>`` for ``junit_family``
    xunit1 and xunit2 alike (only the ``record_property`` fixture warns about
    xunit2, and it is not used here), so the default family is kept.  The
    xunit2 schema itself has no testcase properties: for a strict consumer, use
    ``-o junit_family=xunit1``.
    """

    def __init__(self, *, rule: Rule, part: Part | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rule = rule
        self.part = part
        self.add_marker("omfc")
        self.user_properties.append(("omfc.rule", rule.id))

    def runtest(self) -> None:
        sub = submission_for(self.config)
        out = sub.outcome(self.rule, self.part)
        limit = sub.settings.max_findings
        self.user_properties.append(("omfc.severity", self.rule.severity_for(sub.group).value))
        # every rule testcase says how many error findings it has (0 when it passed or was skipped):
        # portals read one shape
        self.user_properties.append(("omfc.findings", out.errors.total if out.failed else 0))
        if out.skipped:
            self.user_properties.append(("omfc.skipped", out.skipped))
            # reported at the item's location (the system output), not at this line of the plugin
            raise skip_here(f"{self.rule.id} skipped: {out.skipped}")
        if out.warnings:
            head = out.warning_headline or _headline(out.headline, out.warnings, out.findings, warn=True)
            text = render(self.rule.id, head, out.warnings, limit)
            self.user_properties.append(("omfc.warning", text))
            self.add_report_section("call", "omfc warning", text)
        if out.failed:
            if out.crashed:
                raise RuleFailed(f"{self.rule.id}: {out.headline}")
            head = out.headline if out.warning_headline else _headline(out.headline, out.errors, out.findings)
            raise RuleFailed(render(self.rule.id, head, out.errors, limit))

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> TerminalRepr:
        if isinstance(excinfo.value, RuleFailed):
            text = str(excinfo.value.args[0])
        else:
            text = f"{self.rule.id}: the check could not run: {excinfo.exconly()}"
        return failure_repr(self.reportinfo()[0], text)

    def reportinfo(self) -> tuple[Path, int, str]:
        settings = self.config.stash[SETTINGS_KEY]
        path = settings.csv if settings and settings.csv else self.path
        return path, 0, f"[omfc] {self.name}: {self.rule.title}"


def _headline(headline: str, shown: list[Any], all_findings: list[Any], warn: bool = False) -> str:
    """The rule's headline, unless it was worded for a mix of errors and warnings."""
    n = getattr(shown, "total", len(shown))  # FindingList: kept findings, counted in all
    if n == getattr(all_findings, "total", len(all_findings)):
        return headline
    kind = "warning" if warn else "error"
    return f"{n} {kind}{'s' if n != 1 else ''}: {headline}"


# ---------------------------------------------------------------------------- reporting


class OmfcReporter:
    """Gathers warning texts from reports and prints them after the run.

    Registered once per process; under xdist the controller receives the
    workers' reports (with their ``user_properties``), so it prints for all.
    """

    def __init__(self) -> None:
        self.warnings: dict[str, str] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "call":
            return
        for name, value in report.user_properties:
            if name == "omfc.warning":
                self.warnings[report.nodeid] = str(value)

    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
        if hasattr(config, "workerinput") or not self.warnings:
            return
        terminalreporter.section("omfc warnings (they do not fail the run)", sep="=", yellow=True)
        for text in sorted(self.warnings.values()):
            terminalreporter.line(text)
