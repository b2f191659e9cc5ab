"""``--omfc-findings-json PATH``: every rule item's outcome and findings, the score and gate items, and what
produced the run, as one JSON document (``schemas/findings.FindingsDocument.json``; docs/outputs.md).

The rule items run anywhere (an xdist worker); each report carries its record as a plain dictionary
(``omfc_record``, serialised with the report), and the controller, or the only process, writes the
document once at the end, through the guarded writer every output uses.  Records are built only when
the option is given: a rule item keeps its outcome, and this plugin turns it into the record."""

from __future__ import annotations

import json
import math
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from ..findings import Finding, Severity, shorten_counted
from ..submission import CheckSettings
from .state import task_label
from .writer import ReportWriter

__all__ = ["configure"]

#: the longest value a finding record keeps (longer ones are cut in the middle, their length said)
_VALUE_WIDTH = 1000
_RECORD = "omfc_record"


def configure(config: pytest.Config, settings: CheckSettings, path: Path | None, usage_error: type[Exception]) -> None:
    """Refuse a path the run must not write (as every output); register the writer."""
    if path is None:
        return
    from .scoring import refuse_output

    refuse_output(config, "--omfc-findings-json", path, usage_error)
    config.pluginmanager.register(FindingsWriter(config, settings, path), "omfc-findings-json")


def _finding(f: Finding, default: Severity) -> dict[str, Any]:
    return {
        "message": f.message,
        "severity": (f.severity or default).value,
        "file": f.file,
        "line": f.line,
        "key": None if f.key is None else str(f.key),
        "column": f.column,
        "value": None if f.value is None else shorten_counted(str(f.value), _VALUE_WIDTH),
        "expected": None if f.expected is None else shorten_counted(f.expected, _VALUE_WIDTH),
    }


def rule_record(item: Any) -> dict[str, Any]:
    """The record of a rule item that ran (``item.omfc_outcome``: the Outcome, the rule's severity for the
    edition, the findings limit) or was skipped before running (no outcome)."""
    expid = dict(item.user_properties).get("omfc.expid")
    return record_of(item.rule, item.part, expid, getattr(item, "omfc_outcome", None))


def record_of(rule: Any, part: Any, expid: str | None, got: tuple[Any, Severity, int] | None) -> dict[str, Any]:
    """A rule's record (:class:`pytest_omfc.models.findings.RuleRecord`) from its outcome, the rule's severity for
    the edition and the findings limit; ``got`` None: the rule did not run (skipped before it).  The outcome is
    the item's; the fixture's report (``omfc.report``) derives it from the findings."""
    record: dict[str, Any] = {
        "rule": rule.id,
        "slice": str(part) if part else None,
        "expid": expid,
        "outcome": "skipped",
        "severity": rule.severity.value,
        "headline": None,
        "errors": {"total": 0, "findings": []},
        "warnings": {"total": 0, "findings": []},
        "skipped": None,
    }
    if got is None:
        return record
    out, severity, limit = got
    record["severity"] = severity.value
    record["headline"] = out.headline or None
    record["skipped"] = out.skipped
    record["outcome"] = "skipped" if out.skipped else ("failed" if out.failed else "passed")
    for name, found in (("errors", out.errors), ("warnings", out.warnings)):
        kept = list(found) if limit < 0 else list(found)[:limit]
        record[name] = {"total": found.total, "findings": [_finding(f, severity) for f in kept]}
    return record


def document(config: pytest.Config, settings: CheckSettings, rules: list[dict[str, Any]],
             items: list[dict[str, Any]]) -> dict[str, Any]:  # fmt: skip
    """The findings document of these rule records and score/gate item records."""
    from .. import __version__
    from ..models.findings import FINDINGS_SCHEMA
    from .scoring import run_stamp

    failed = sum(r["outcome"] == "failed" for r in rules)
    counts = {
        "rules": len(rules),
        "passed": sum(r["outcome"] == "passed" for r in rules),
        "failed": failed,
        "skipped": sum(r["outcome"] == "skipped" for r in rules),
        "errors": sum(r["errors"]["total"] for r in rules),
        "warnings": sum(r["warnings"]["total"] for r in rules),
    }
    verdict = "failed" if failed or any(i["outcome"] == "failed" for i in items) else "passed"
    return {
        "schema": FINDINGS_SCHEMA,
        "plugin_version": __version__,
        "submission": settings.submission.name,
        "edition": settings.edition.value,
        "task": task_label(config, settings),
        "verdict": verdict,
        "counts": counts,
        "rules": rules,
        "items": items,
        "run": run_stamp(config),
    }


def _first_line(report: pytest.TestReport) -> str | None:
    if report.passed:
        return None
    longrepr = report.longrepr
    text = str(longrepr[2] if isinstance(longrepr, tuple) else getattr(report, "longreprtext", "") or longrepr)
    return text.removeprefix("Skipped: ").split("\n", 1)[0] or None


class FindingsWriter(ReportWriter):
    """Records every plugin item's report; the controller (or the only process) writes the document."""

    flag, what = "--omfc-findings-json", "findings JSON"

    def __init__(self, config: pytest.Config, settings: CheckSettings, path: Path) -> None:
        super().__init__(config, path)
        self.settings = settings
        self.rules: list[dict[str, Any]] = []
        self.items: list[dict[str, Any]] = []

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
        report = yield
        if hasattr(item, "rule") and (report.when == "call" or (report.when == "setup" and not report.passed)):
            setattr(report, _RECORD, rule_record(item))
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not (report.when == "call" or (report.when == "setup" and not report.passed)):
            return
        record = getattr(report, _RECORD, None)
        if isinstance(record, dict):
            record = {**record, "outcome": report.outcome}
            if report.skipped and record["skipped"] is None:
                record["skipped"] = _first_line(report)
            if report.failed and record["headline"] is None:
                record["headline"] = _first_line(report)
            self.rules.append(record)
            return
        props = dict(report.user_properties)
        if "omfc.score" in props or "omfc.require" in props:
            name = report.nodeid.rsplit("::", 1)[-1]
            item = f"require::{props['omfc.require']}" if "omfc.require" in props else f"score::{name}"
            metrics = None
            if "omfc.score" in props:
                metrics = {
                    k: (None if isinstance(v, float) and math.isnan(v) else v)
                    for k, v in report.user_properties
                    if isinstance(v, (int, float)) and not isinstance(v, bool) and not k.startswith("omfc.")
                }
            self.items.append(
                {
                    "item": item,
                    "expid": props.get("omfc.expid"),
                    "outcome": report.outcome,
                    "message": _first_line(report),
                    "metrics": metrics,
                }
            )

    def text(self) -> str:
        return (
            json.dumps(document(self.config, self.settings, self.rules, self.items), indent=1, ensure_ascii=False)
            + "\n"
        )
