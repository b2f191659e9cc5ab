"""Findings: what a rule reports, and how a report is rendered as text.

A finding carries a location (file, line, trial key, column), the offending
value and a message of the form "must be X (got Y)".  The first line of a
rendered report is the summary that pytest puts into the JUnit ``message``.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from dataclasses import field
from typing import Iterable

__all__ = ["Severity", "Finding", "Report", "Unavailable", "render", "shorten", "plural", "count_is", "collect"]


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True)
class Finding:
    """One violation of a rule at one place."""

    message: str
    file: str | None = None
    line: int | None = None
    key: str | None = None
    column: str | None = None
    value: object = None
    severity: Severity | None = None  # None: the rule's own severity

    def location(self) -> str:
        parts = []
        if self.file:
            parts.append(self.file + (f":{self.line}" if self.line else ""))
        elif self.line:
            parts.append(f"line {self.line}")
        if self.key is not None:
            parts.append(f"[{self.key}]")
        if self.column:
            col = self.column
            if self.value is not None:
                col += f"={shorten(self.value)!r}" if isinstance(self.value, str) else f"={self.value!r}"
            parts.append(col)
        return " ".join(parts)

    def as_text(self) -> str:
        loc = self.location()
        return f"{loc}: {self.message}" if loc else self.message

    def as_dict(self) -> dict[str, object]:
        return {
            "message": self.message,
            "file": self.file,
            "line": self.line,
            "key": self.key,
            "column": self.column,
            "value": None if self.value is None else str(self.value),
            "severity": self.severity.value if self.severity else None,
        }


@dataclass
class Report:
    """What a check returns when it wants to word its own summary.

    ``headline`` is the summary after the rule ID, e.g. "3 of 16000 trials are
    missing from the system output"; without it a generic one is made.
    ``warning_headline`` words the warnings when a report mixes errors and
    warnings (the headline then speaks of the errors only).
    """

    findings: list[Finding] = field(default_factory=list)
    headline: str | None = None
    warning_headline: str | None = None


class Unavailable(Exception):
    """A rule cannot run because something it needs failed another rule.

    ``rule_id`` names the rule whose failure is the cause; the item is skipped
    with this reason.
    """

    def __init__(self, rule_id: str, reason: str) -> None:
        super().__init__(f"{rule_id} failed: {reason}")
        self.rule_id = rule_id
        self.reason = reason


def shorten(value: object, width: int = 60) -> str:
    """Truncate long values in the middle, as pydantic does."""
    text = str(value)
    if len(text) <= width:
        return text
    half = (width - 3) // 2
    return text[:half] + "..." + text[-half:]


def render(rule_id: str, headline: str, findings: list[Finding], limit: int) -> str:
    """Plain-text report: the summary line, up to ``limit`` findings, then the rest counted."""
    shown = findings[:limit] if limit >= 0 else findings
    lines = [f"{rule_id}: {headline} (showing {len(shown)})" if findings else f"{rule_id}: {headline}"]
    lines += ["  " + f.as_text() for f in shown]
    if len(findings) > len(shown):
        lines.append(f"  ... and {len(findings) - len(shown)} more ({len(findings)} in all)")
    return "\n".join(lines)


def plural(n: int, noun: str, nouns: str | None = None) -> str:
    """``1 row``, ``2 rows``; ``nouns`` for irregular plurals (``1 key is``/``2 keys are`` via :func:`count_is`)."""
    return f"{n} {noun}" if n == 1 else f"{n} {nouns or noun + 's'}"


def count_is(n: int, noun: str, nouns: str | None = None) -> str:
    """``1 trial key is`` / ``3 trial keys are``: headlines agree in number."""
    return f"{plural(n, noun, nouns)} {'is' if n == 1 else 'are'}"


def collect(findings: Iterable[Finding] | Report | None) -> Report:
    if findings is None:
        return Report()
    if isinstance(findings, Report):
        return findings
    return Report(findings=list(findings))
