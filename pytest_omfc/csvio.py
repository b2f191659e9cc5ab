"""Reading pipe-separated files without ever raising on bad input.

MediScore reads with pandas and crashes or silently reshapes on ragged,
blank-line or binary input (CSV-03, B-04).  Here a file is read once
into a table of strings (``0042`` stays ``0042``, IDX-01/B-12) with the
physical line number of every record, and every dialect problem becomes a
finding under its CSV rule instead of an exception.

Decisions where the rule reference (docs/rules/csv.md) leaves the verdict open (see :func:`read_psv`):

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

Hostile files (a sparse 12 GiB tail, millions of junk records or blank lines)
must not cost memory or time in proportion to the file: memory follows the
index.  :func:`limits_for` bounds the system output by the index it answers:

* at most :data:`BYTES_PER_TRIAL` (4 KiB) per index trial plus
  :data:`BYTES_MARGIN` (1 MiB).  A real row is ~100 bytes; 4 KiB on average
  leaves room for long mask paths (two of them in splice rows) and MFC2019
  video interval lists (VideoFrameSegments and friends): the bound is on the
  whole file, so a few rows may be far longer.  A larger file fails CSV-03
  naming its size, checked with ``fstat`` before a byte is read;
* at most :data:`RECORDS_PER_TRIAL` (2) records per index trial plus
  :data:`RECORDS_MARGIN` (1000) -- a submission has one record per trial
  (IDX-02/IDX-04).  Past that, CSV-03 fails at the first record too many and
  nothing more is parsed (the lines are counted, not split);
* without a usable index (CSV-07 fails), :data:`NO_INDEX_BYTES` and
  :data:`NO_INDEX_RECORDS`.

Findings are kept up to :data:`pytest_omfc.findings.KEEP_FINDINGS` per rule
and severity and counted beyond (blank lines are counted from line numbers,
never listed).  Only regular files are opened, without blocking (a FIFO would
block forever): anything else fails CSV-08 "is not a regular file".
"""

from __future__ import annotations

import csv
import functools
import os
import re
import stat
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

import numpy as np

from .findings import KEEP_FINDINGS, Dropped, Finding, Severity, plural, shorten
from .paths import mode_kind

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["Table", "ParseResult", "Limits", "limits_for", "read_psv", "read_text", "size_text"]

BOM = "\ufeff"
_SEPARATORS = {",": "comma-separated", "\t": "tab-separated", ";": "semicolon-separated"}
#: A non-blank physical line (line ends: CRLF, CR, LF -- not U+2028, U+0085, \f ...).  It starts
#: only at a line start (the lookbehind), so blank runs are skipped in C, in linear time (a blank
#: line's run is given back once, blank by blank, and cannot match: still linear).
_RECORD = re.compile(r"(?<![^\r\n])[^\S\r\n]*\S[^\r\n]*")
_NON_BLANK_BYTES = re.compile(rb"\S")
#: Bytes that are not UTF-8, as decoded with ``surrogateescape``.
_BAD_BYTE = re.compile("[\udc80-\udcff]")

BYTES_PER_TRIAL = 4096
BYTES_MARGIN = 1 << 20
RECORDS_PER_TRIAL = 2
RECORDS_MARGIN = 1000
NO_INDEX_BYTES = 64 << 20
NO_INDEX_RECORDS = 1_000_000


@dataclass(frozen=True)
class Limits:
    """How large a system output the index can justify (see the module docstring)."""

    max_bytes: int
    max_records: int
    basis: str  # "an index of 3 trials"
    rule: str  # "4 KiB per trial + 1 MiB"


def limits_for(trials: int | None) -> Limits:
    """The bounds for an index of ``trials`` rows (None: the index could not be read)."""
    if trials is None:
        return Limits(NO_INDEX_BYTES, NO_INDEX_RECORDS, "a submission without a usable index", "a fixed bound")
    return Limits(
        BYTES_PER_TRIAL * trials + BYTES_MARGIN,
        RECORDS_PER_TRIAL * trials + RECORDS_MARGIN,
        f"an index of {plural(trials, 'trial')}",
        f"{BYTES_PER_TRIAL // 1024} KiB per trial + {BYTES_MARGIN >> 20} MiB",
    )


def size_text(n: int) -> str:
    """``1.0 MiB``, ``12 GiB``: sizes in messages."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            v = n / (1 << shift)
            return f"{v:.1f} {unit}" if v < 10 else f"{v:.0f} {unit}"
    return plural(n, "byte")


@dataclass
class Table:
    """A parsed pipe-separated file: header, columns of strings, line numbers.

    ``columns`` maps each kept column name (the first of duplicates) to an object array of the values as
    written; :attr:`df` is the same table as a pandas DataFrame, made on first use (the rules read the
    columns; pandas is imported only by what needs a frame: the scorers, the ``omfc`` fixture)."""

    path: Path
    display: str
    header: list[str]
    columns: dict[str, np.ndarray]
    lines: np.ndarray  # physical 1-based line number of each row
    header_line: int = 1  # physical line of the header (blank lines may come first)

    def __len__(self) -> int:
        return len(self.lines)

    def has(self, column: str) -> bool:
        return column in self.columns

    def column(self, name: str) -> np.ndarray:
        """The values of column ``name`` as written (object array of str); KeyError when it is absent."""
        return self.columns[name]

    def line_of(self, pos: int) -> int:
        return int(self.lines[pos])

    @functools.cached_property
    def df(self) -> pd.DataFrame:
        """The table as a DataFrame of ``object`` columns (imports pandas)."""
        import pandas as pd

        return pd.DataFrame(
            {name: pd.Series(values, dtype=object) for name, values in self.columns.items()},
            columns=list(self.columns),
            dtype=object,
        )

    @classmethod
    def from_frame(
        cls, path: Path, display: str, header: list[str], df: pd.DataFrame, lines: np.ndarray, header_line: int = 1
    ) -> Table:
        """A table of a DataFrame's columns (readers that build a frame: the ForgeryNet lists)."""
        columns = {str(c): df[c].to_numpy(dtype=object) for c in df.columns}
        table = cls(path, display, header, columns, lines, header_line)
        table.__dict__["df"] = df
        return table


@dataclass
class ParseResult:
    """A table (or None when the file cannot be read as a table) and the problems seen.

    ``fatal`` is ``(rule ID, reason)`` when there is no table; the reason is a
    sentence about the file, ``"p-x/p-x.csv is not '|'-separated"``, used both as
    the failing rule's headline and in the skip message of the rules that need
    the table.  ``issues`` keeps at most ``KEEP_FINDINGS`` findings per rule and
    severity; ``dropped`` counts the others and ``kinds`` counts every finding
    by (kind, severity), kept or not, for the headlines.
    """

    table: Table | None
    issues: dict[str, list[Finding]] = field(default_factory=dict)
    fatal: tuple[str, str] | None = None
    display: str = ""
    dropped: dict[str, Dropped] = field(default_factory=dict)
    kinds: dict[str, Counter[tuple[str, Severity | None]]] = field(default_factory=dict)
    _held: Counter[tuple[str, Severity | None]] = field(default_factory=Counter, repr=False)

    def kept(self, rule_id: str, severity: Severity | None) -> int:
        """How many findings of ``rule_id`` with this severity are kept."""
        return self._held[(rule_id, severity)]

    def room(self, rule_id: str, severity: Severity | None) -> bool:
        """Whether another finding of this rule and severity would be kept (else build none: count)."""
        return self._held[(rule_id, severity)] < KEEP_FINDINGS

    def add(self, rule_id: str, finding: Finding, kind: str = "") -> None:
        """Keep the finding, or only count it once ``KEEP_FINDINGS`` of its severity are kept."""
        self._tally(rule_id)[(kind, finding.severity)] += 1
        held = self._held[(rule_id, finding.severity)]
        if held < KEEP_FINDINGS:
            self.issues.setdefault(rule_id, []).append(finding)
            self._held[(rule_id, finding.severity)] = held + 1
        else:
            self.count(rule_id, finding.severity, 1)

    def count(self, rule_id: str, severity: Severity | None, n: int, kind: str | None = None) -> None:
        """``n`` findings that are not kept (``kind`` given: not yet tallied either)."""
        drop = self.dropped.get(rule_id)
        if drop is None:
            drop = self.dropped[rule_id] = {}
        drop[severity] = drop.get(severity, 0) + n
        if kind is not None:
            self._tally(rule_id)[(kind, severity)] += n

    def _tally(self, rule_id: str) -> Counter[tuple[str, Severity | None]]:
        tally = self.kinds.get(rule_id)
        if tally is None:
            tally = self.kinds[rule_id] = Counter()
        return tally

    def fail(self, rule_id: str, predicate: str, finding: Finding | None = None) -> ParseResult:
        """Give up on the table: ``rule_id`` failed (the file ``predicate``) and nothing else can be read."""
        self.fatal = (rule_id, f"{self.display} {predicate}")
        if finding is not None:  # first, and always kept: it says why the file was given up
            self._tally(rule_id)[("fatal", finding.severity)] += 1
            self.issues.setdefault(rule_id, []).insert(0, finding)
        return self


def read_psv(path: Path, display: str, *, strip_values: bool = False, limits: Limits | None = None) -> ParseResult:
    """Read a ``|``-separated file; never raises, never blocks, never reads past ``limits``.

    Findings are filed under CSV-01 (separator), CSV-02 (header), CSV-03
    (encoding, records, blank lines, size), CSV-04 (quoting); CSV-08 when the
    file cannot be read at all or is not a regular file.  ``strip_values``
    strips white space from every cell (used for NIST's own index files, whose
    quoting is also accepted).
    """
    result = ParseResult(table=None, display=display)
    text = _load(path, display, limits, result)
    if text is None:
        return result
    try:
        return _parse(text, path, display, strip_values, limits, result)
    except Exception as exc:  # noqa: BLE001  a reader bug must not become a traceback in every rule
        result.table = None
        return result.fail(
            "CSV-03", f"cannot be parsed ({type(exc).__name__}: {exc}; please report this as a pytest-omfc bug)"
        )


def read_text(path: Path, display: str, limits: Limits | None, result: ParseResult) -> str | None:
    """The text of a file read as :func:`read_psv` reads it (regular files only, non-blocking, bounded by
    ``limits``, UTF-8 with bad bytes kept as surrogates), or None with the reason filed in ``result``: for
    readers of other line formats (the ForgeryNet lists)."""
    return _load(path, display, limits, result)


def _read_bounded(fh: BinaryIO, size: int, max_bytes: int) -> bytes:
    """At most ``max_bytes + 1`` bytes, asking for the file's size (plus one), not the bound: ``read(n)``
    allocates ``n`` bytes up front, and a 4 GiB bound failed a 38 MB file under an address-space limit.  A file
    that grew after the ``stat`` is read on in 1 MiB chunks up to the bound."""
    raw = fh.read(min(size, max_bytes) + 1)
    while len(raw) <= max_bytes:
        chunk = fh.read(min(1 << 20, max_bytes + 1 - len(raw)))
        if not chunk:
            break
        raw += chunk
    return raw


def _load(path: Path, display: str, limits: Limits | None, result: ParseResult) -> str | None:
    """The file's text (bad bytes as surrogates), or None with the fatal finding filed.

    Only a regular file is opened, with O_NONBLOCK (a FIFO swapped in after the
    ``stat`` cannot block either), and at most ``limits.max_bytes + 1`` bytes are read.
    """
    try:
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode):
            _not_regular(result, display, mode)
            return None
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        result.fail("CSV-08", f"cannot be read ({exc.strerror or exc})")
        return None
    try:
        with os.fdopen(fd, "rb") as fh:
            st = os.fstat(fh.fileno())
            if not stat.S_ISREG(st.st_mode):
                _not_regular(result, display, st.st_mode)
                return None
            if limits is not None and st.st_size > limits.max_bytes:
                _too_big(result, display, limits, st.st_size)
                return None
            raw = _read_bounded(fh, st.st_size, limits.max_bytes) if limits is not None else fh.read()
    except OSError as exc:
        result.fail("CSV-08", f"cannot be read ({exc.strerror or exc})")
        return None
    if limits is not None and len(raw) > limits.max_bytes:  # it grew while we looked
        _too_big(result, display, limits, len(raw))
        return None
    if not _NON_BLANK_BYTES.search(raw):
        result.fail(
            "CSV-02",
            "is empty",
            Finding(
                "the file must start with a header line (got an empty file)"
                if not raw
                else "the file must start with a header line (got only white space)",
                file=display,
            ),
        )
        return None
    if raw[:2] in (b"\xff\xfe", b"\xfe\xff"):
        result.fail(
            "CSV-03",
            "is not UTF-8 text",
            Finding("must be UTF-8 text (got a UTF-16 byte-order mark)", file=display, line=1),
        )
        return None
    nul = raw.find(b"\x00")
    if nul >= 0:
        result.fail(
            "CSV-03",
            "is not a text file",
            Finding(
                f"must be UTF-8 text (got binary data: a NUL byte at offset {nul})",
                file=display,
                line=raw.count(b"\n", 0, nul) + 1,
            ),
        )
        return None
    return raw.decode("utf-8", errors="surrogateescape")


def _not_regular(result: ParseResult, display: str, mode: int) -> None:
    kind = mode_kind(mode)
    result.fail(
        "CSV-08",
        f"is not a regular file (got {kind})",
        Finding(f"the file must be a regular file (got {kind}; it was not opened)", file=display),
    )
    return None


def _too_big(result: ParseResult, display: str, limits: Limits, size: int) -> None:
    result.fail(
        "CSV-03",
        f"is {size_text(size)}, more than {limits.basis} can justify (at most {size_text(limits.max_bytes)})",
        Finding(
            f"the system output must be at most {limits.max_bytes} bytes for {limits.basis} "
            f"({limits.rule}; got {size} bytes; the file was not read)",
            file=display,
        ),
    )
    return None


def _ends(text: str, start: int, stop: int) -> int:
    """Line ends (CRLF, CR, LF) in ``text[start:stop]``, counted in C."""
    return text.count("\n", start, stop) + text.count("\r", start, stop) - text.count("\r\n", start, stop)


def _parse(
    text: str, path: Path, display: str, strip_values: bool, limits: Limits | None, result: ParseResult
) -> ParseResult:
    bad_bytes = _BAD_BYTE.search(text) is not None
    if text.startswith(BOM):
        text = text[1:]
        result.add(
            "CSV-02",
            Finding(
                "the header must start with the first column name (got a UTF-8 byte-order mark, "
                "which MediScore reads as part of that name)",
                file=display,
                line=1,
            ),
        )

    pos, line_no, last = 0, 1, 0  # line_no: the physical line at pos; last: the previous record's line
    header: list[str] | None = None
    keep: list[int] = []
    header_line_no = 0
    rows: list[list[str]] = []
    lines: list[int] = []
    max_records = limits.max_records if limits is not None else None
    for m in _RECORD.finditer(text):
        start = m.start()
        line_no += _ends(text, pos, start)
        pos = start
        if line_no - last > 1:
            _blank_lines(result, display, last + 1, line_no - 1)
        last = line_no
        ln = m.group(0)
        if bad_bytes and _BAD_BYTE.search(ln):
            ln = _bad_bytes(ln, display, line_no, result)
        if header is None:
            if "|" not in ln:
                seps = [s for s in _SEPARATORS if s in ln]
                got = f"a {_SEPARATORS[seps[0]]} header" if seps else "a header without '|'"
                return result.fail(
                    "CSV-01",
                    "is not '|'-separated",
                    Finding(
                        f"fields must be separated by '|' (got {got} {shorten(ln, 80)!r})", file=display, line=line_no
                    ),
                )
            rec = _split(ln, display, line_no, result, quotes_allowed=strip_values)
            header = [h.strip() for h in rec] if strip_values else rec
            keep = _check_header(header, display, line_no, result)
            header_line_no = line_no
            continue
        if max_records is not None and len(rows) >= max_records:
            assert limits is not None
            total = line_no - 1 + _ends(text, pos, len(text)) + (0 if text.endswith(("\r", "\n")) else 1)
            return result.fail(
                "CSV-03",
                f"has more records than {limits.basis} can justify (at most {max_records})",
                Finding(
                    f"the system output must have at most {max_records} records for {limits.basis} "
                    f"({RECORDS_PER_TRIAL} per trial + {RECORDS_MARGIN}; got record {max_records + 1} here, "
                    f"{total} lines in all; the rest was not parsed)",
                    file=display,
                    line=line_no,
                ),
            )
        rec = _split(ln, display, line_no, result, quotes_allowed=strip_values)
        if len(rec) != len(header):
            rec = _fit(rec, len(header), display, line_no, result)
        rows.append([v.strip() for v in rec] if strip_values else rec)
        lines.append(line_no)

    if header is None:
        return result.fail(
            "CSV-02", "is empty", Finding("the file must start with a header line (got only white space)", file=display)
        )
    total = line_no - 1 + _ends(text, pos, len(text)) + (0 if text.endswith(("\r", "\n")) else 1)
    if total > last:
        _blank_lines(result, display, last + 1, total)
    width = len(header)
    cols = [header[i] for i in keep]
    data = np.array(rows, dtype=object).reshape(len(rows), width) if rows else np.empty((0, width), dtype=object)
    result.table = Table(
        path=path,
        display=display,
        header=header,
        columns={name: data[:, i].copy() for name, i in zip(cols, keep, strict=True)},
        lines=np.asarray(lines, dtype=np.int64),
        header_line=header_line_no,
    )
    return result


def _blank_lines(result: ParseResult, display: str, first: int, last: int) -> None:
    """CSV-03 warnings for the blank lines ``first..last``: kept up to the cap, then only counted."""
    n = last - first + 1
    room = max(0, KEEP_FINDINGS - result.kept("CSV-03", Severity.WARNING))
    for no in range(first, first + min(n, room)):
        result.add(
            "CSV-03",
            Finding(
                "a blank line should not be there (records are consecutive; MediScore's splice validator crashes "
                "on it)",
                file=display,
                line=no,
                severity=Severity.WARNING,
            ),
            kind="blank",
        )
    if n > room:
        result.count("CSV-03", Severity.WARNING, n - room, kind="blank")


def _bad_bytes(line: str, display: str, no: int, result: ParseResult) -> str:
    """One CSV-03 error for a line with bytes that are not UTF-8; the line with U+FFFD for them."""
    m = _BAD_BYTE.search(line)
    assert m is not None
    column = len(line[: m.start()].encode("utf-8", errors="surrogateescape")) + 1
    result.add(
        "CSV-03",
        Finding(
            f"must be UTF-8 text (got byte 0x{ord(m.group(0)) - 0xDC00:02x} at column {column})", file=display, line=no
        ),
        kind="utf8",
    )
    return _BAD_BYTE.sub("\ufffd", line)


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
            result.add(
                "CSV-04",
                Finding(
                    f"field values should not be quoted (got {shorten(quoted[0], 40)}"
                    f"{' and ' + plural(len(quoted) - 1, 'more quoted field') if len(quoted) > 1 else ''})",
                    file=display,
                    line=no,
                    severity=Severity.WARNING,
                ),
            )
    return fields


def _check_header(header: list[str], display: str, line: int, result: ParseResult) -> list[int]:
    """CSV-02 findings on the names; the positions of the columns to keep (first of duplicates).

    Past ``KEEP_FINDINGS`` errors no message is built, they are only counted:
    a header of a million ``|`` costs a quick loop, not a million findings.
    """
    seen: set[str] = set()
    keep: list[int] = []
    uncounted = 0  # errors past the cap

    def error(message: str, pos: int) -> None:
        nonlocal uncounted
        if result.room("CSV-02", None):
            result.add("CSV-02", Finding(message, file=display, line=line, column=f"column {pos + 1}"))
        else:
            uncounted += 1

    last = len(header) - 1
    for pos, name in enumerate(header):
        if uncounted and pos != last and name in seen:  # the cap is reached: count, build nothing
            uncounted += 1 + (name == "")
            continue
        if name == "":
            if pos == last:
                result.add(
                    "CSV-02",
                    Finding(
                        "column names must not be empty (got a '|' at the end of the header)",
                        file=display,
                        line=line,
                        column=f"column {pos + 1}",
                        severity=Severity.WARNING,
                    ),
                )
            else:
                hint = ": a pandas row index? write the file with to_csv(..., index=False)" if pos == 0 else ""
                error(f"column names must not be empty (got an empty name in column {pos + 1}{hint})", pos)
        elif name != name.strip():
            error(
                f"column names must be exact (got {shorten(name, 60)!r} with surrounding white space; "
                "MediScore reports the column as absent)",
                pos,
            )
        if name in seen:
            error(f"column names must be unique (got {shorten(name, 60)!r} twice)", pos)
            continue
        seen.add(name)
        keep.append(pos)
    if uncounted:
        result.count("CSV-02", None, uncounted, kind="")
    return keep


def _fit(rec: list[str], width: int, display: str, line: int, result: ParseResult) -> list[str]:
    """A record cut or padded to the header's width, with its CSV-03 finding."""
    n = len(rec)
    if n > width:
        extra = rec[width:]
        if all(x.strip() == "" for x in extra):
            result.add(
                "CSV-03",
                Finding(
                    f"a record should have {width} fields like the header (got {n}: a trailing '|', ignored)",
                    file=display,
                    line=line,
                    severity=Severity.WARNING,
                ),
                kind="trailing",
            )
        else:
            result.add(
                "CSV-03",
                Finding(
                    f"a record must have {width} fields like the header (got {n}, extra "
                    f"{[shorten(x, 20) for x in extra[:3]]!r})",
                    file=display,
                    line=line,
                ),
                kind="width",
            )
        return rec[:width]
    result.add(
        "CSV-03",
        Finding(f"a record must have {width} fields like the header (got {n})", file=display, line=line),
        kind="width",
    )
    return rec + [""] * (width - n)
