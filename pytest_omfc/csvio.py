"""Reading pipe-separated files without ever raising on bad input.

MediScore reads with pandas and crashes or silently reshapes on ragged,
blank-line or binary input (RULES.md CSV-03, B-04).  Here a file is read once
into a table of strings (``0042`` stays ``0042``, IDX-01/B-12) with the
physical line number of every record, and every dialect problem becomes a
finding under its CSV rule instead of an exception.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from dataclasses import field
from pathlib import Path

import numpy as np
import pandas as pd

from .findings import Finding
from .findings import Severity

__all__ = ["Table", "ParseResult", "read_psv"]

BOM = "\ufeff"


@dataclass
class Table:
    """A parsed pipe-separated file: header, rows as strings, line numbers."""

    path: Path
    display: str
    header: list[str]
    df: pd.DataFrame
    lines: np.ndarray  # physical 1-based line number of each row

    def __len__(self) -> int:
        return len(self.df)

    def has(self, column: str) -> bool:
        return column in self.df.columns

    def line_of(self, pos: int) -> int:
        return int(self.lines[pos])


@dataclass
class ParseResult:
    """A table (or None when the file cannot be read as a table) and the problems seen."""

    table: Table | None
    issues: dict[str, list[Finding]] = field(default_factory=dict)
    fatal: tuple[str, str] | None = None  # (rule ID, reason) when table is None

    def add(self, rule_id: str, finding: Finding) -> None:
        self.issues.setdefault(rule_id, []).append(finding)


def read_psv(path: Path, display: str, *, strip_values: bool = False) -> ParseResult:
    """Read a ``|``-separated file.

    Findings are filed under CSV-01 (separator), CSV-02 (header), CSV-03
    (encoding, records, blank lines), CSV-04 (quoting).  ``strip_values``
    strips white space from every cell (used for NIST's own index files).
    """
    result = ParseResult(table=None)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        result.fatal = ("CSV-08", f"{display} cannot be read: {exc.strerror or exc}")
        return result
    if not raw.strip():
        result.fatal = ("CSV-02", f"{display} is empty: the first record must be a header line")
        result.add("CSV-02", Finding("file is empty: the first record must be a header line", file=display))
        return result
    nul = raw.find(b"\x00")
    if nul >= 0:
        msg = f"must be UTF-8 text (got binary data: a NUL byte at offset {nul})"
        result.fatal = ("CSV-03", f"{display} is not a text file")
        result.add("CSV-03", Finding(msg, file=display))
        return result
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        msg = f"must be UTF-8 text (got byte 0x{raw[exc.start]:02x} at offset {exc.start})"
        result.fatal = ("CSV-03", f"{display} is not UTF-8 text")
        result.add("CSV-03", Finding(msg, file=display, line=line))
        return result
    if text.startswith(BOM):
        text = text[1:]
        result.add(
            "CSV-02",
            Finding(
                "header must start with the first column name (got a UTF-8 byte-order mark, "
                "which MediScore reads as part of the first name)",
                file=display,
                line=1,
            ),
        )

    physical = text.splitlines()
    numbered = [(i + 1, ln) for i, ln in enumerate(physical) if ln.strip() != ""]
    blank = [i + 1 for i, ln in enumerate(physical) if ln.strip() == "" and i + 1 < len(physical) + 1]
    # a single trailing newline produces no entry in splitlines(); any blank line is a real one
    for ln in blank:
        result.add(
            "CSV-03",
            Finding("blank line (records must be consecutive; MediScore's splice validator crashes on it)",
                    file=display, line=ln, severity=Severity.WARNING),
        )
    if not numbered:
        result.fatal = ("CSV-02", f"{display} has no header line")
        result.add("CSV-02", Finding("no header line", file=display))
        return result

    header_line_no, header_text = numbered[0]
    if "|" not in header_text:
        sep = "," if "," in header_text else ("\t" if "\t" in header_text else ";" if ";" in header_text else None)
        got = {",": "comma-separated", "\t": "tab-separated", ";": "semicolon-separated"}.get(sep or "", "a single column")
        result.fatal = ("CSV-01", f"{display} is not '|'-separated")
        result.add(
            "CSV-01",
            Finding(f"fields must be separated by '|' (got {got} header {header_text[:80]!r})",
                    file=display, line=header_line_no),
        )
        return result

    quoted_lines: list[int] = []
    records = list(csv.reader((ln for _, ln in numbered), delimiter="|", quotechar='"', strict=False))
    for (ln, raw_line) in numbered:
        if '"' in raw_line:
            quoted_lines.append(ln)
    header = [h.strip() if strip_values else h for h in records[0]]
    for pos, name in enumerate(header):
        if name != name.strip():
            result.add(
                "CSV-02",
                Finding(f"column name must be exact (got {name!r} with surrounding white space)",
                        file=display, line=header_line_no, column=f"column {pos + 1}"),
            )
    width = len(header)
    rows: list[list[str]] = []
    lines: list[int] = []
    for (ln, _), rec in zip(numbered[1:], records[1:]):
        if len(rec) > width:
            extra = rec[width:]
            if all(x.strip() == "" for x in extra):
                result.add("CSV-03", Finding(
                    f"record has {len(rec)} fields, header has {width} (trailing empty field ignored)",
                    file=display, line=ln, severity=Severity.WARNING))
            else:
                result.add("CSV-03", Finding(
                    f"record must have {width} fields like the header (got {len(rec)}: extra {extra[:3]!r})",
                    file=display, line=ln))
            rec = rec[:width]
        elif len(rec) < width:
            result.add("CSV-03", Finding(
                f"record must have {width} fields like the header (got {len(rec)})",
                file=display, line=ln))
            rec = rec + [""] * (width - len(rec))
        if strip_values:
            rec = [v.strip() for v in rec]
        rows.append(rec)
        lines.append(ln)
    if quoted_lines and not strip_values:
        result.add("CSV-04", Finding(
            f"field values should not be quoted (got '\"' on {len(quoted_lines)} line(s), first line {quoted_lines[0]})",
            file=display, line=quoted_lines[0], severity=Severity.WARNING))
    # duplicate column names: pandas would rename them; keep the first, report under CSV-02
    seen: set[str] = set()
    keep: list[int] = []
    for i, name in enumerate(header):
        if name in seen:
            result.add("CSV-02", Finding(f"column names must be unique (got {name!r} twice)",
                                         file=display, line=header_line_no, column=name))
            continue
        seen.add(name)
        keep.append(i)
    cols = [header[i] for i in keep]
    data = np.array(rows, dtype=object).reshape(len(rows), width)[:, keep] if rows else np.empty((0, len(keep)), dtype=object)
    df = pd.DataFrame(data, columns=cols, dtype=object)
    result.table = Table(path=path, display=display, header=header, df=df, lines=np.asarray(lines, dtype=np.int64))
    return result
