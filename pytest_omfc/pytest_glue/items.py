"""Pytest nodes of the rules: the submission collector, one item per rule, the warnings reporter."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from .. import rules as _rules  # noqa: F401  (registers every rule)
from ..findings import render
from ..registry import Part, Rule, package_rules, rules_for, summed_warnings
from ..report.page import RuleRow, expid_verdicts
from . import scoring as _scoring
from .compat import FSCollector, TerminalRepr, failure_repr, skip_here
from .state import EXTRA_ITEMS_KEY, OMFC_MARK, SETTINGS_KEY, node_text, submission_for

if TYPE_CHECKING:
    from ..submission import CheckSettings

__all__ = ["OmfcReporter", "PackageDir", "RuleFailed", "RuleItem", "SubmissionDir", "failure_repr"]


#: The rule IDs of the session's items after deselection, computed once (:meth:`RuleItem.runtest`).
_PLANNED = pytest.StashKey[frozenset[str]]()


# ---------------------------------------------------------------------------- nodes


class SubmissionDir(FSCollector):
    """The submission directory; its children are rule items, never its files.

    Not a :class:`pytest.Directory`: pytest imports the ``conftest.py`` of every
    Directory it collects (running a participant's code and possibly writing
    ``__pycache__`` into the submission); nothing in a submission may run.

    An EXPID of an NC2017 package is one too, below its :class:`PackageDir`: its items are named
    ``<package>/<EXPID>::<RULE>`` (JUnit classname ``<package>.<EXPID>``) and the archive rules are the
    package's.
    """

    def __init__(self, *, settings: CheckSettings | None = None, packaged: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        found = settings or self.config.stash[SETTINGS_KEY]
        assert found is not None
        self.settings: CheckSettings = found
        self.packaged = packaged

    def collect(self) -> Iterator[pytest.Item]:
        settings = self.settings
        slices = settings.slices
        prefix = "" if self.packaged else f"{node_text(settings.submission.name)}::"
        archive = settings.archive is not None and not self.packaged
        for rule in rules_for(settings.edition.group, settings.task, archive=archive):
            parts: list[Part | None] = [Part(i, slices) for i in range(slices)] if rule.sliced else [None]
            for part in parts:
                name = f"{prefix}{rule.id}" + (f"[{part}]" if part else "")
                yield RuleItem.from_parent(self, name=name, rule=rule, part=part)
        yield from _scoring.score_items(self, settings, prefix)
        if self.packaged:
            return
        for make in self.config.stash.get(EXTRA_ITEMS_KEY, []):
            yield from make(self)


class PackageDir(FSCollector):
    """An NC2017 package folder: its own rules (PKG-10; ARC-* for an upload), ``<package>::<RULE>``, then
    one :class:`SubmissionDir` per EXPID (never its files: as :class:`SubmissionDir`)."""

    def collect(self) -> Iterator[pytest.Item | pytest.Collector]:
        from ..package import PackageSettings

        settings = self.config.stash[SETTINGS_KEY]
        assert isinstance(settings, PackageSettings)
        for rule in package_rules(settings.edition.group, archive=settings.archive is not None):
            yield RuleItem.from_parent(self, name=rule.id, rule=rule)
        for member in settings.members:
            name = node_text(member.submission.name)
            yield SubmissionDir.from_parent(
                self, path=member.submission, nodeid=f"{self.nodeid}/{name}", settings=member, packaged=True
            )


#: The slice of a sliced rule's item in its node ID (``...::MASK-08[2/4]``).
_SLICE = re.compile(r"\[\d+/\d+\]$")


class RuleFailed(Exception):
    """A rule found errors; ``args[0]`` is the rendered report."""


class RuleItem(pytest.Item):
    """One rule checked on one submission (or one slice of its rows).

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
        self.add_marker(OMFC_MARK)
        self.user_properties.append(("omfc.rule", rule.id))
        where = self.parent
        if isinstance(where, PackageDir) or (isinstance(where, SubmissionDir) and where.packaged):
            # in an NC2017 package: which EXPID (or the package itself) this rule checks
            self.user_properties.append(("omfc.expid", self.settings.submission.name))

    @property
    def settings(self) -> CheckSettings:
        """The settings of what this rule checks: its submission (or EXPID), or its package."""
        if isinstance(self.parent, SubmissionDir):
            return self.parent.settings
        settings = self.config.stash[SETTINGS_KEY]
        assert settings is not None
        return settings

    def runtest(self) -> None:
        sub = submission_for(self.config, self.settings)
        if sub.planned is None and not hasattr(self.config, "workerinput"):  # the items left after deselection
            planned = self.config.stash.get(_PLANNED, None)
            if planned is None:  # once per session, not once per EXPID of a package (that was quadratic)
                planned = frozenset(i.rule.id for i in self.session.items if isinstance(i, RuleItem))
                self.config.stash[_PLANNED] = planned
            sub.planned = planned
        out = sub.outcome(self.rule, self.part)
        limit = sub.settings.max_findings
        severity = self.rule.severity_for(sub.group)
        self.omfc_outcome = (out, severity, limit)  # for --omfc-findings-json (findings_json.rule_record)
        self.user_properties.append(("omfc.severity", severity.value))
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
            self.user_properties.append(("omfc.warnings", out.warnings.total))
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

    @property
    def junit_name(self) -> str:
        """The JUnit testcase name: the rule ID, with the slice (``MASK-04[1/4]``) (:mod:`.junit`)."""
        return self.rule.id + (f"[{self.part}]" if self.part else "")

    def reportinfo(self) -> tuple[Path, int, str]:
        settings = self.settings
        path = settings.csv if settings.csv else self.path
        where = dict(self.user_properties).get("omfc.expid")
        name = f"{node_text(str(where))}::{self.name}" if where else self.name
        return path, 0, f"[omfc] {name}: {self.rule.title}"


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
        self.warnings: dict[str, tuple[str, str, int]] = {}  # nodeid -> (rule ID, text, number of warnings)
        self.places: dict[str, list[RuleRow]] = {}  # in an NC2017 package: EXPID -> its rules' outcomes
        self.failed_scores: dict[str, list[str]] = {}  # ... and its failed score items

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not (report.when == "call" or (report.when == "setup" and not report.passed)):
            return
        props = dict(report.user_properties)
        if "omfc.warning" in props:
            count = int(str(props.get("omfc.warnings", 1)))
            self.warnings[report.nodeid] = (str(props.get("omfc.rule", "")), str(props["omfc.warning"]), count)
        if "omfc.expid" in props and "omfc.score" in props and report.failed:
            self.failed_scores.setdefault(str(props["omfc.expid"]), []).append(f"score::{props['omfc.score']}")
        elif "omfc.expid" in props and "omfc.rule" in props:
            where = str(props["omfc.expid"])
            status = "warning" if report.passed and "omfc.warning" in props else report.outcome
            self.places.setdefault(where, []).append(
                RuleRow(
                    str(props.get("omfc.rule", "")),
                    "",
                    "",
                    "",
                    status,
                    warning=str(props.get("omfc.warning", "")),
                    where=where,
                )
            )

    def pytest_terminal_summary(self, terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
        if hasattr(config, "workerinput"):
            return
        if self.places:
            terminalreporter.section("omfc package: the verdict of each EXPID", sep="=")
            rows = [row for rows in self.places.values() for row in rows]
            for where, ok, text in expid_verdicts(rows, self.failed_scores):
                failed = sorted({r.rule for r in self.places[where] if r.status == "failed"})
                failed += self.failed_scores.get(where, [])
                detail = f" ({', '.join(failed)})" if failed else ""
                terminalreporter.line(f"{node_text(where)}: {text}{detail}", green=ok, red=not ok)
        if not self.warnings:
            return
        terminalreporter.section("omfc warnings (they do not fail the run)", sep="=", yellow=True)
        settings = config.stash.get(SETTINGS_KEY, None)
        limit = settings.max_findings if settings is not None else -1
        slices: dict[tuple[str, str], list[tuple[str, int]]] = {}  # a sliced rule's items summed: one report
        for nodeid, (rule_id, text, count) in sorted(self.warnings.items()):
            slices.setdefault((_SLICE.sub("", nodeid), rule_id), []).append((text, count))
        texts = [summed_warnings(rule_id, parts, limit) for (_, rule_id), parts in slices.items()]
        for text in sorted(texts):
            terminalreporter.line(text)
