"""Findings: what a rule reports, and how a report is rendered as text.

A finding carries a location (file, line, trial key, column), the offending
value and a message of the form "must be X (got Y)".  The first line of a
rendered report is the summary that pytest puts into the JUnit ``message``.

Hostile values are tamed here, centrally, so that no rule can forget it:

* Every text that reaches the output (locations, messages, headlines, skip
  reasons) goes through :func:`tame`: control characters (U+0000-U+001F,
  U+007F-U+009F, including U+0085 NEL and ESC), the line and paragraph
  separators U+2028/U+2029 and the bidi overrides U+202A-U+202E and
  U+2066-U+2069 are escaped (``\x1b``, ``\u2028``), so one finding is one line
  and a value cannot rewrite the terminal.  Values and trial keys in a location
  are shortened to :data:`VALUE_WIDTH`, and in any other text a run of more than
  :data:`LONG_TOKEN` non-blank characters (a 1 MB trial key quoted in a message)
  to :data:`RUN_WIDTH`, in the middle, with its length:
  ``'OpenMFC...0001' (1000000 characters)``.
* A headline is at most :data:`HEADLINE_WIDTH` characters, a finding's message
  :data:`MESSAGE_WIDTH`, and, as a last resort, no rendered line is longer than
  :data:`LINE_WIDTH`.
* A report keeps at most :data:`KEEP_FINDINGS` findings per severity and counts
  the others (``--omfc-max-findings -1`` shows the kept ones; the last line says
  ``... and N more (M in all)``).  Memory then follows the index, not the number
  of problems a file can hold.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

__all__ = [
    "Severity",
    "Finding",
    "FindingList",
    "Report",
    "Unavailable",
    "render",
    "shorten",
    "quote",
    "tame",
    "plural",
    "count_is",
    "collect",
    "KEEP_FINDINGS",
    "LINE_WIDTH",
]

#: Findings kept per rule and severity; the rest are only counted (the hard cap behind ``--omfc-max-findings -1``).
KEEP_FINDINGS = 1000
#: Width of a quoted value (and of a trial key) in a location.
VALUE_WIDTH = 60
#: The longest non-blank run left whole in any output text (long absolute paths pass), and its shortened width.
LONG_TOKEN = 240
RUN_WIDTH = 120
HEADLINE_WIDTH = 500
MESSAGE_WIDTH = 800
#: No rendered line (headline, finding) is longer than this.
LINE_WIDTH = 1000

#: Invisible characters that change how text around them reads: bidi marks, embeddings, overrides and
#: isolates (U+061C, U+200E/F, U+202A-E, U+2066-9: "Trojan Source"), zero-width and joiner characters
#: (U+200B-D, U+2060-4, U+FEFF, U+180E), invisible format characters (U+00AD, U+206A-F, U+FFF9-B),
#: line and paragraph separators, and the tag characters (U+E0000-7F, invisible "ASCII smuggling").
INVISIBLE = frozenset(
    [
        0x00AD,
        0x061C,
        0x180E,
        *range(0x200B, 0x2010),
        0x2028,
        0x2029,
        *range(0x202A, 0x202F),
        *range(0x2060, 0x2065),
        *range(0x2066, 0x2070),
        0xFEFF,
        *range(0xFFF9, 0xFFFC),
        *range(0xE0000, 0xE0080),
    ]
)
_CONTROLS = [*range(0x00, 0x20), *range(0x7F, 0xA0)]
_NAMED = {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}


def _code(c: int) -> str:
    return _NAMED.get(c, f"\\x{c:02x}" if c < 0x100 else (f"\\u{c:04x}" if c < 0x10000 else f"\\U{c:08x}"))


_ESCAPES = {c: _code(c) for c in (*_CONTROLS, *INVISIBLE)}
#: For multi-line display (HTML ``<pre>``): the same, but line breaks and tabs kept.
_ESCAPES_MULTILINE = {c: e for c, e in _ESCAPES.items() if c not in (0x09, 0x0A)}
_LONG_RUN = re.compile(rf"\S{{{LONG_TOKEN + 1},}}")


#: Findings shown per failing rule unless ``--omfc-max-findings`` says otherwise.
DEFAULT_MAX_FINDINGS = 20


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
    #: what the rule wanted, as text ("one of Processed, NonProcessed", "[0, 1]"), where the rule states a value
    expected: str | None = None

    def location(self) -> str:
        """``file:line [key] column='value'``, every part escaped and shortened (see the module docstring)."""
        parts = []
        if self.file:
            parts.append(escape(shorten_counted(self.file, 2 * VALUE_WIDTH)) + (f":{self.line}" if self.line else ""))
        elif self.line:
            parts.append(f"line {self.line}")
        if self.key is not None:
            parts.append(f"[{escape(shorten_counted(str(self.key)))}]")
        if self.column:
            col = escape(shorten_counted(self.column))
            if self.value is not None:
                col += (
                    f"={escape(quote(self.value))}"
                    if isinstance(self.value, str)
                    else f"={escape(shorten_counted(repr(self.value)))}"
                )
            parts.append(col)
        return " ".join(parts)

    def as_text(self) -> str:
        loc = self.location()
        msg = tame(self.message, MESSAGE_WIDTH)
        return f"{loc}: {msg}" if loc else msg

    def as_dict(self) -> dict[str, object]:
        return {
            "message": self.message,
            "file": self.file,
            "line": self.line,
            "key": self.key,
            "column": self.column,
            "value": None if self.value is None else str(self.value),
            "severity": self.severity.value if self.severity else None,
            "expected": self.expected,
        }


class FindingList(list[Finding]):
    """Findings as kept, with ``total``: how many there were in all (the rest were only counted)."""

    def __init__(self, kept: Iterable[Finding] = (), total: int | None = None) -> None:
        super().__init__(kept)
        self.total = len(self) if total is None else max(total, len(self))


#: Dropped findings are counted per class: a finding's own severity, None for "the rule's".
Dropped = dict[Severity | None, int]


@dataclass
class Report:
    """What a check returns when it wants to word its own summary.

    ``headline`` is the summary after the rule ID, e.g. "3 of 16000 trials are
    missing from the system output"; without it a generic one is made.
    ``warning_headline`` words the warnings when a report mixes errors and
    warnings (the headline then speaks of the errors only).  At most
    :data:`KEEP_FINDINGS` findings of each severity are kept; ``dropped``
    counts the others (a check may also pass counts of findings it never built).
    """

    findings: list[Finding] = field(default_factory=list)
    headline: str | None = None
    warning_headline: str | None = None
    dropped: Dropped = field(default_factory=dict)

    def __post_init__(self) -> None:
        if len(self.findings) <= KEEP_FINDINGS:
            return
        kept: list[Finding] = []
        seen: dict[Severity | None, int] = {}
        dropped = dict(self.dropped)
        for f in self.findings:
            n = seen.get(f.severity, 0)
            if n < KEEP_FINDINGS:
                kept.append(f)
                seen[f.severity] = n + 1
            else:
                dropped[f.severity] = dropped.get(f.severity, 0) + 1
        self.findings, self.dropped = kept, dropped

    @property
    def total(self) -> int:
        return len(self.findings) + sum(self.dropped.values())


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


def shorten_counted(text: str, width: int = VALUE_WIDTH) -> str:
    """:func:`shorten`, saying how long the text was: ``OpenMFC...0001 (1000000 characters)``."""
    return text if len(text) <= width else f"{shorten(text, width)} ({len(text)} characters)"


def quote(value: object, width: int = VALUE_WIDTH) -> str:
    """A value as quoted in a message: ``'0042'``, or ``'OpenMFC...0001' (1000000 characters)``."""
    text = str(value)
    short = repr(shorten(text, width))
    return short if len(text) <= width else f"{short} ({len(text)} characters)"


def escape(text: str) -> str:
    """Control, line-separator, bidi and zero-width characters as escapes (``\\x1b``, ``\\u2028``, ``\\u202e``)."""
    return text.translate(_ESCAPES)


def reveal(text: str) -> str:
    """:func:`escape` for text shown on several lines (the HTML report): tabs and line breaks kept.

    The one function every presentation of submission or dataset text goes through besides the
    terminal's :func:`tame`: the HTML report's ``_e`` and the plots' SVG labels."""
    return text.translate(_ESCAPES_MULTILINE)


def tame(text: object, width: int = LINE_WIDTH) -> str:
    """Text safe to print on one line: escaped, long runs shortened, at most ``width`` characters."""
    out = escape(str(text))
    if len(out) > LONG_TOKEN:
        out = _LONG_RUN.sub(lambda m: shorten_counted(m.group(0), RUN_WIDTH), out)
    return out if len(out) <= width else shorten_counted(out, width - 30)


def render(rule_id: str, headline: str, findings: list[Finding], limit: int) -> str:
    """Plain-text report: the summary line, up to ``limit`` findings, then the rest counted.

    ``findings`` may be a :class:`FindingList` whose ``total`` counts findings
    that were not kept; every line is tamed (see the module docstring).
    """
    total = getattr(findings, "total", len(findings))
    shown = findings[:limit] if limit >= 0 else findings
    head = tame(headline, HEADLINE_WIDTH)
    lines = [f"{rule_id}: {head} (showing {len(shown)})" if total else f"{rule_id}: {head}"]
    lines += ["  " + f.as_text() for f in shown]
    if total > len(shown):
        lines.append(f"  ... and {total - len(shown)} more ({total} in all)")
    return "\n".join(line if len(line) <= LINE_WIDTH else shorten_counted(line, LINE_WIDTH - 30) for line in lines)


def sum_slices(rule_id: str, parts: list[tuple[str, int]], limit: int, headline: str | None = None) -> str:
    """One report of a sliced rule's items (each slice rendered by :func:`render`, with its finding count):
    the findings together, counted together, under ``headline`` (the rule's wording for the total; else
    "N warnings").  So two slices' "1 mask is entirely black" read "2 masks are entirely black"."""
    if len(parts) == 1:
        return parts[0][0]
    total = sum(n for _, n in parts)
    lines = [
        line
        for text, _ in parts
        for line in text.splitlines()[1:]
        if not (line.startswith("  ... and ") and line.endswith(" in all)"))
    ]
    shown = lines[:limit] if limit >= 0 else lines
    head = tame(headline or plural(total, "warning"), HEADLINE_WIDTH)
    out = [f"{rule_id}: {head} (showing {len(shown)})", *shown]
    if total > len(shown):
        out.append(f"  ... and {total - len(shown)} more ({total} in all)")
    return "\n".join(out)


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
