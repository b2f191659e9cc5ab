"""Reading pipe-separated files without ever raising on bad input.

MediScore reads with pandas and crashes or silently reshapes on ragged,
blank-line or binary input (RULES.md CSV-03, B-04).  Here a file is read once
into a table of strings (``0042`` stays ``0042``, IDX-01/B-12) with the
physical line number of every record, and every dialect problem becomes a
finding under its CSV rule instead of an exception.

Decisions where RULES.md leaves the verdict open (see :func:`read_psv`):

* CSV-01 (error, fatal): a header without ``|`` -- the file is not read further (D-11).
* CSV-02 (error): a UTF-8 byte-order mark (MediScore reads it as part of the
  first column name), names with surrounding white space (MediScore: "absent"),
  empty or duplicate names.  The BOM is skipped and parsing continues.  A
  trailing empty name (a ``|`` ending every line) is only a warning.
* CSV-03 (error): NUL bytes or a UTF-16 file (fatal: not text); bytes that are
  not UTF-8 (parsing continues with U+FFFD); a record with more or fewer fields
  than the header (MediScore pads short rows silently and shifts long ones; a
  short row is still an error here because the missing value cannot be told
  apart).  Warnings: blank lines (MediScore's splice validator crashes on them,
  B-04, but they carry no data) and a trailing empty extra field (DSD ignores it).
  CRLF and CR line ends pass (MediScore tolerates them).
* CSV-04 (warning, "should"): quoted fields; the quotes are removed as pandas does.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

import numpy as np
import pandas as pd

from .findings import Finding
from .findings import Severity
from .findings import plural
from .findings import shorten

__all__ = ["Table", "ParseResult", "read_psv"]

BOM = "\ufeff"
_LINE_END = re.compile(r"\r\n|\r|\n")  # not str.splitlines(): it also splits on U+2028, U+0085, \f, ...
_LINE_END_BYTES = re.compile(rb"\r\n|\r|\n")
_SEPARATORS = {",": "comma-separated", "\t": "tab-separated", ";": "semicolon-separated"}


@dataclass
class Table:
    """A parsed pipe-separated file: header, rows as strings, line numbers."""

    path: Path
    display: str
    header: list[str]
    df: pd.DataFrame
    lines: np.ndarray  # physical 1-based line number of each row
    header_line: int = 1  # physical line of the header (blank lines may come first)

    def __len__(self) -> int:
        return len(self.df)

    def has(self, column: str) -> bool:
        return column in self.df.columns

    def line_of(self, pos: int) -> int:
        return int(self.lines[pos])


@dataclass
class ParseResult:
    """A table (or None when the file cannot be read as a table) and the problems seen.

    ``fatal`` is ``(rule ID, reason)`` when there is no table; the reason is a
    sentence about the file, ``"p-x/p-x.csv is not '|'-separated"``, used both as
    the failing rule's headline and in the skip message of the rules that need
    the table.
    """

    table: Table | None
    issues: dict[str, list[Finding]] = field(default_factory=dict)
    fatal: tuple[str, str] | None = None
    display: str = ""

    def add(self, rule_id: str, finding: Finding) -> None:
        self.issues.setdefault(rule_id, []).append(finding)

    def fail(self, rule_id: str, predicate: str, finding: Finding | None = None) -> ParseResult:
        """Give up on the table: ``rule_id`` failed (the file ``predicate``) and nothing else can be read."""
        self.fatal = (rule_id, f"{self.display} {predicate}")
        if finding is not None:
            self.add(rule_id, finding)
        return self


def read_psv(path: Path, display: str, *, strip_values: bool = False) -> ParseResult:
    """Read a ``|``-separated file; never raises.

    Findings are filed under CSV-01 (separator), CSV-02 (header), CSV-03
    (encoding, records, blank lines), CSV-04 (quoting); CSV-08 when the file
    cannot be read at all.  ``strip_values`` strips white space from every
    cell (used for NIST's own index files, whose quoting is also accepted).
    """
    result = ParseResult(table=None, display=display)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return result.fail("CSV-08", f"cannot be read ({exc.strerror or exc})")
    try:
        return _parse(raw, path, display, strip_values, result)
    except Exception as exc:  # noqa: BLE001  a reader bug must not become a traceback in every rule
        return result.fail("CSV-03", f"cannot be parsed ({type(exc).__name__}: {exc}; please report this as a pytest-omfc bug)")


def _parse(raw: bytes, path: Path, display: str, strip_values: bool, result: ParseResult) -> ParseResult:
    if not raw.strip():
        return result.fail("CSV-02", "is empty", Finding("the file must start with a header line (got an empty file)", file=display))
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        return result.fail("CSV-03", "is not UTF-8 text",
                           Finding("must be UTF-8 text (got a UTF-16 byte-order mark)", file=display, line=1))
    nul = raw.find(b"\x00")
    if nul >= 0:
        return result.fail("CSV-03", "is not a text file",
                           Finding(f"must be UTF-8 text (got binary data: a NUL byte at offset {nul})",
                                   file=display, line=raw[:nul].count(b"\n") + 1))
    text = _decode(raw, display, result)
    if text.startswith(BOM):
        text = text[1:]
        result.add("CSV-02", Finding(
            "the header must start with the first column name (got a UTF-8 byte-order mark, "
            "which MediScore reads as part of that name)", file=display, line=1))

    physical = _LINE_END.split(text)
    if physical and physical[-1] == "":
        physical.pop()  # the newline that ends the last record
    numbered: list[tuple[int, str]] = []
    for i, ln in enumerate(physical, start=1):
        if ln.strip():
            numbered.append((i, ln))
        else:
            result.add("CSV-03", Finding(
                "a blank line should not be there (records are consecutive; MediScore's splice validator crashes on it)",
                file=display, line=i, severity=Severity.WARNING))

    if not numbered:
        return result.fail("CSV-02", "is empty", Finding("the file must start with a header line (got only white space)", file=display))
    header_line_no, header_text = numbered[0]
    if "|" not in header_text:
        seps = [s for s in _SEPARATORS if s in header_text]
        got = f"a {_SEPARATORS[seps[0]]} header" if seps else "a header without '|'"
        return result.fail("CSV-01", "is not '|'-separated", Finding(
            f"fields must be separated by '|' (got {got} {shorten(header_text, 80)!r})",
            file=display, line=header_line_no))

    records = [_split(ln, display, no, result, quotes_allowed=strip_values) for no, ln in numbered]
    header = [h.strip() for h in records[0]] if strip_values else records[0]
    keep = _check_header(header, display, header_line_no, result)
    width = len(header)
    rows: list[list[str]] = []
    lines: list[int] = []
    for (ln, _), rec in zip(numbered[1:], records[1:]):
        if len(rec) != width:
            rec = _fit(rec, width, display, ln, result)
        rows.append([v.strip() for v in rec] if strip_values else rec)
        lines.append(ln)
    cols = [header[i] for i in keep]
    data = np.array(rows, dtype=object).reshape(len(rows), width)[:, keep] if rows else np.empty((0, len(keep)), dtype=object)
    df = pd.DataFrame(data, columns=cols, dtype=object)
    result.table = Table(path=path, display=display, header=header, df=df,
                         lines=np.asarray(lines, dtype=np.int64), header_line=header_line_no)
    return result


def _decode(raw: bytes, display: str, result: ParseResult) -> str:
    """UTF-8 text; undecodable bytes become U+FFFD, one CSV-03 error per line that has them."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    for no, line in enumerate(_LINE_END_BYTES.split(raw), start=1):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError as exc:
            result.add("CSV-03", Finding(
                f"must be UTF-8 text (got byte 0x{line[exc.start]:02x} at column {exc.start + 1})",
                file=display, line=no))
    return raw.decode("utf-8", errors="replace")


def _split(line: str, display: str, no: int, result: ParseResult, *, quotes_allowed: bool) -> list[str]:
    """One record's fields; standard ``"..."`` quoting is removed (CSV-04 warns about it)."""
    if '"' not in line:
        return line.split("|")
    try:
        fields = next(csv.reader([line], delimiter="|", quotechar='"', strict=False))
    except csv.Error:  # a field beyond csv's size limit: split, and unquote whole fields only
        fields = [f[1:-1].replace('""', '"') if len(f) > 1 and f[0] == f[-1] == '"' else f for f in line.split("|")]
    if not quotes_allowed:
        quoted = [f for f in line.split("|") if f.lstrip().startswith('"')]
        if quoted:
            result.add("CSV-04", Finding(
                f"field values should not be quoted (got {shorten(quoted[0], 40)}"
                f"{' and ' + plural(len(quoted) - 1, 'more quoted field') if len(quoted) > 1 else ''})",
                file=display, line=no, severity=Severity.WARNING))
    return fields


def _check_header(header: list[str], display: str, line: int, result: ParseResult) -> list[int]:
    """CSV-02 findings on the names; the positions of the columns to keep (first of duplicates)."""
    seen: set[str] = set()
    keep: list[int] = []
    for pos, name in enumerate(header):
        where = f"column {pos + 1}"
        if name == "":
            last = pos == len(header) - 1
            result.add("CSV-02", Finding(
                "column names must not be empty" + (" (got a '|' at the end of the header)" if last else f" (got an empty name in {where})"),
                file=display, line=line, column=where, severity=Severity.WARNING if last else None))
        elif name != name.strip():
            result.add("CSV-02", Finding(
                f"column names must be exact (got {name!r} with surrounding white space; MediScore reports the column as absent)",
                file=display, line=line, column=where))
        if name in seen:
            result.add("CSV-02", Finding(f"column names must be unique (got {name!r} twice)",
                                         file=display, line=line, column=where))
            continue
        seen.add(name)
        keep.append(pos)
    return keep


def _fit(rec: list[str], width: int, display: str, line: int, result: ParseResult) -> list[str]:
    """A record cut or padded to the header's width, with its CSV-03 finding."""
    n = len(rec)
    if n > width:
        extra = rec[width:]
        if all(x.strip() == "" for x in extra):
            result.add("CSV-03", Finding(
                f"a record should have {width} fields like the header (got {n}: a trailing '|', ignored)",
                file=display, line=line, severity=Severity.WARNING))
        else:
            result.add("CSV-03", Finding(
                f"a record must have {width} fields like the header (got {n}, extra {[shorten(x, 20) for x in extra[:3]]!r})",
                file=display, line=line))
        return rec[:width]
    result.add("CSV-03", Finding(f"a record must have {width} fields like the header (got {n})", file=display, line=line))
    return rec + [""] * (width - n)
