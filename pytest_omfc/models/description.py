"""The system description file ``<ID>/<ID>.txt`` (DESC-01...04).

The plans (NC17, MFC19 and OMFC App. A-a) give the sections by number and
name, but the numbering differs between editions (OpenMFC has no OptOut
section, D-12), so a section is recognised by its *name* in a heading: a
line that starts with the name, optionally after markup or numbering
(``## 2.``, ``Section 2:``, ``(2)``, ``II.``, ``**``), or "Section N <name>"
anywhere (the plans' own run-in style).  A word in running text is no heading.

Plain classes: a check imports no pydantic.  The JSON Schema ``description.SystemDescription`` comes
from the model of the same name in :mod:`pytest_omfc.models.documents`, which lists the same fields.
"""

from __future__ import annotations

import codecs
import errno
import functools
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

__all__ = [
    "SystemDescription",
    "Section",
    "SECTIONS_NC17_MFC19",
    "SECTIONS_OPENMFC",
    "OPT_OUT_WORDS",
    "read_description",
    "DescriptionText",
    "MAX_BYTES",
]

#: Read at most this much of the description: a description is a few KiB, so a larger file is
#: reported (DESC-01/DESC-02, a warning) and only its head is checked.
MAX_BYTES = 64 * 1024


@dataclass(frozen=True, kw_only=True)
class Section:
    """A section of the plan's A-a and the pattern that recognises its heading name."""

    name: str
    pattern: str


_PLURAL = r"(?:s|\s*\(s\))?"
_IDENT = Section(
    name="Experiment or Submission Identifier(s)",
    pattern=rf"(?:(?:experiment|submission|system)\s+)?identifier{_PLURAL}|(?:exp|sub)[\s-]*id{_PLURAL}",
)
_SYSTEM = Section(name="System Description", pattern=r"system\s+description")
_OPTOUT = Section(name="OptOut Criteria", pattern=r"opt[\s_-]*out(?:\s+criteria)?")
_HARDWARE = Section(
    name="System Hardware Description and Runtime Computation",
    pattern=r"(?:system\s+)?hardware(?:\s+description)?(?:\s+(?:and|&)\s+run[\s-]*time(?:\s+computation)?)?"
    r"|run[\s-]*time(?:\s+computation)?|computation",
)
_TRAINING = Section(
    name="Training Data and Knowledge Sources",
    pattern=r"training(?:\s+data)?(?:\s+(?:and|&)\s+knowledge\s+sources?)?|knowledge\s+sources?",
)
_REFS = Section(name="References", pattern=r"references?|bibliography|citations?")

#: NC17 A-a and MFC19 A-a: six sections (DESC-01).
SECTIONS_NC17_MFC19: tuple[Section, ...] = (_IDENT, _SYSTEM, _OPTOUT, _HARDWARE, _TRAINING, _REFS)
#: OMFC A-a: five sections, no OptOut section (DESC-02, D-12).
SECTIONS_OPENMFC: tuple[Section, ...] = (_IDENT, _SYSTEM, _HARDWARE, _TRAINING, _REFS)

#: Markup or numbering that may precede a heading name at the start of a line.  Each token
#: must end in punctuation or before white space, and no two runs of blanks are adjacent, so a
#: line is split into tokens one way only: backtracking gives back at most one run at a time and
#: stays linear in the line's length (no catastrophic backtracking on long runs of digits, '#' or
#: blanks).  Plain quantifiers, not possessive ones (``*+``, Python 3.11+): the patterns match the
#: same text either way (tests/rules/test_desc_patterns.py compares them).
_MARKUP = r"[#*>=_\-\u2022|]+(?![#*>=_\-\u2022|])"
_ENUM = r"\(?(?:(?:section|part|appendix)[ \t]*)?(?:\d+|[ivx]+|[a-f])(?:[.:)\]\-\u2013\u2014]|(?=[ \t]))"
_PREFIX = rf"[ \t]*(?:(?:{_MARKUP}|{_ENUM})[ \t]*)*"
#: Words that say how trials were opted out or not processed (DESC-03).
OPT_OUT_WORDS = re.compile(
    r"\bopt(?:s|ed|ing)?\b|\bopt[\s_-]*outs?\b|\boptout|non[\s_-]*processed|not[\s_-]+processed|unprocessed",
    re.I,
)
_NOTHING = re.compile(r"^(?:none|n/?a|nothing|no|not applicable|-+)?$", re.I)


@functools.cache
def _heading_re(pattern: str) -> re.Pattern[str]:
    line_start = rf"^{_PREFIX}(?:{pattern})(?![A-Za-z0-9])"
    # one run of blanks, then punctuation and a second run only after it: never two adjacent runs
    run_in = rf"\bsection[ \t]*\d+[ \t]*(?:[.:)\-\u2013\u2014][ \t]*)?(?:{pattern})(?![A-Za-z0-9])"
    return re.compile(rf"{line_start}|{run_in}", re.I | re.M)


@dataclass
class SystemDescription:
    """The text of a system description and which of the plan's sections it has (by heading name)."""

    heading_patterns: ClassVar[tuple[Section, ...]] = SECTIONS_NC17_MFC19
    text: str
    sections_found: list[str] = field(default_factory=list)
    #: section name -> (start, end) of its first heading in ``text``
    _headings: dict[str, tuple[int, int]] = field(default_factory=dict, repr=False)

    @classmethod
    def parse(cls, text: str, sections: tuple[Section, ...] = SECTIONS_NC17_MFC19) -> SystemDescription:
        headings: dict[str, tuple[int, int]] = {}
        for section in sections:
            m = _heading_re(section.pattern).search(text)
            if m:
                headings[section.name] = (m.start(), m.end())
        out = cls(text=text, sections_found=list(headings))
        out._headings = headings
        return out

    def missing(self, sections: tuple[Section, ...]) -> list[str]:
        return [s.name for s in sections if s.name not in self.sections_found]

    def body(self, name: str) -> str | None:
        """The text after a section's heading up to the next recognised heading; None if absent."""
        if name not in self._headings:
            return None
        _, end = self._headings[name]
        starts = sorted(s for s, _ in self._headings.values() if s >= end)
        stop = starts[0] if starts else len(self.text)
        return self.text[end:stop].strip(" \t\r\n:.-\u2013\u2014")

    def prose(self) -> str:
        """The text without its headings' names (what the description says, not its titles)."""
        out, pos = [], 0
        for start, end in sorted(self._headings.values()):
            if start >= pos:
                out.append(self.text[pos:start])
                pos = end
        out.append(self.text[pos:])
        return "".join(out)

    @staticmethod
    def says_nothing(body: str) -> bool:
        """A body such as "none", "N/A" or nothing at all."""
        return bool(_NOTHING.match(re.sub(r"[\s.:;,!]+", " ", body).strip()))


@dataclass(frozen=True)
class DescriptionText:
    """The head of a description file: its text (None when it is not text), why it is not clean
    UTF-8 text (or None), its size in bytes, and whether only the first :data:`MAX_BYTES` were read."""

    text: str | None
    problem: str | None
    size: int = 0
    truncated: bool = False


def _kind(mode: int) -> str:
    """A non-regular file's kind, for messages."""
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "a special file"


def _read_head(path: Path) -> tuple[bytes, int]:
    """At most ``MAX_BYTES + 1`` bytes of a *regular* file, and its size; OSError otherwise.

    Opened with ``O_NONBLOCK`` and checked with ``fstat`` on the open descriptor, so a FIFO
    (whose ``open`` blocks until a writer comes) or a file swapped for one after a ``stat``
    never stalls the run; a huge file is never read whole.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, f"must be a regular file (got {_kind(st.st_mode)})")
        chunks, left = [], MAX_BYTES + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 16))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks), st.st_size
    finally:
        os.close(fd)


def read_description(path: Path) -> DescriptionText:
    """The description's head as text, and why it is not UTF-8 text (or None); never raises or blocks.

    A non-regular file (a FIFO, a device) is never opened for reading; at most
    :data:`MAX_BYTES` are read.  Bytes that are not UTF-8 are replaced so the
    other checks still run; UTF-16 (a BOM) is decoded; binary data (NUL bytes)
    gives no text.
    """
    try:
        mode = path.stat().st_mode
        if not stat.S_ISREG(mode):  # do not even open it: opening a FIFO blocks (O_NONBLOCK is a second guard)
            return DescriptionText(None, f"must be a regular file (got {_kind(mode)})")
        raw, size = _read_head(path)
    except OSError as exc:
        return DescriptionText(None, f"must be readable (got {exc.strerror or exc})")
    truncated = len(raw) > MAX_BYTES
    raw = raw[:MAX_BYTES]

    def out(text: str | None, problem: str | None) -> DescriptionText:
        return DescriptionText(text, problem, size, truncated)

    if raw.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return out(raw.decode("utf-16", errors="replace"), "must be UTF-8 text (got UTF-16)")
    nul = raw.find(b"\x00")
    if nul >= 0:
        return out(None, f"must be UTF-8 text (got binary data: a NUL byte at offset {nul})")
    try:
        return out(raw.decode("utf-8-sig"), None)
    except UnicodeDecodeError as exc:
        if truncated and exc.start >= len(raw) - 3:  # cut inside a character
            return out(raw[: exc.start].decode("utf-8-sig", errors="replace"), None)
        byte, line = raw[exc.start], raw.count(b"\n", 0, exc.start) + 1
        return out(
            raw.decode("utf-8-sig", errors="replace"),
            f"must be UTF-8 text (got byte 0x{byte:02x} on line {line}, offset {exc.start})",
        )
