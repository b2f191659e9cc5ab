"""The ForgeryNet benchmark's own files, read as they are published (the image and video lists, predictions).

* **Image lists** (``image_list.txt``, ``val_list``...): one image per line,
  ``<image> <binary_cls_label> <triple_cls_label> <16cls_label>``, whitespace-separated, no header.
* **Video lists** (``video_list.txt``): one video per line,
  ``<n> <video> [<start frame> <frame count> <fake/real>] x n <binary> <triple> <n-way>``, the flag
  written ``1``/``0`` (the benchmark's lists) or ``fake``/``real`` (its readme), one way per file, e.g.
  ``3 val_video_release/4/7f89/718e/video.mp4 0 10 0 10 35 1 45 30 0 1 2 4``: frames 0-9 real,
  10-44 fake, 45-74 real; labels 1 (fake), 2, 4.  Segments are a start frame and a length in frames;
  the list gives no duration (the segments need not cover the video: a 91-frame video may list 73).
* **Plain predictions**: what a model prints, one item per line, ``<name> <score>`` or
  ``<name> <p0> ... <pk-1>``, whitespace-separated, with or without a header line.

``--omfc-classes`` picks the label level of a list: 2 the binary label, 3 the triple one, 16 (images)
or 9 (videos) the n-way one.  Each list is recognised by its content (:func:`sniff`), never by its
name.  Every problem is a :class:`~pytest_omfc.findings.Finding` naming the file, line and value;
nothing here raises on bad input.  A line is at most :data:`MAX_LINE` characters and a video at most
:data:`MAX_SEGMENTS` segments, so a hostile line costs bounded memory.

**One definition of a line** for every reader here (the whole-file fast paths and the line-by-line reader):
a line ends at ``\n`` (a ``\r`` just before it is dropped, as is a UTF-8 byte-order mark at the start of
the file); its fields are separated by spaces and tabs only.  A line holding any other character that some
reader would take for white space or a line end (no-break space, vertical tab, form feed, U+2003, a lone
``\r``...) or a control character is a finding naming the line and the character (:data:`NOT_A_BLANK`),
whichever reader the file takes: Python's ``str.split`` cuts at a no-break space where pandas' parser does
not, and pandas ends a line at a lone ``\r`` where ``str.split("\n")`` does not, so such a character
would otherwise decide a verdict by which reader ran.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from ..csvio import BOM, Limits, ParseResult, Table, read_text
from ..findings import Finding, Severity

if TYPE_CHECKING:  # pandas is imported where a ForgeryNet file is read
    import pandas as pd

__all__ = [
    "INTEGER",
    "MAX_LINE",
    "MAX_SEGMENTS",
    "NOT_A_BLANK",
    "LEVELS",
    "LazyDict",
    "ParsedList",
    "level_of",
    "read_image_list",
    "read_plain_predictions",
    "read_video_info",
    "read_video_list",
    "sniff",
]

#: longest line read as a list entry (characters); a longer one is a finding, never split
MAX_LINE = 1 << 20
#: most segments one video may list
MAX_SEGMENTS = 100_000
#: label columns of a list line, in order: binary, triple, n-way (16 for images, 9 for videos)
LEVELS = ("binary", "triple", "n-way")

Kind = Literal["json", "psv", "image-list", "video-list"]
#: An integer label as every reader takes it: ASCII digits (``\d`` would take '٢' as 2, as int() does).
INTEGER = r"[+-]?[0-9]+"
_INT = re.compile(INTEGER + r"\Z")
#: A field after a blank that is not an ASCII integer ('1.0', '1e0', '٢'): pandas' int64 parse would take some
#: of them, so such a text goes to the line-by-line reader (a leading blank before a name sends it there too).
_NOT_INT_FIELD = re.compile(r"[ \t][+-]?[0-9]*[^0-9\s]")
#: A character no line may hold: every character ``str.isspace`` is true for but space, tab and newline (so also
#: ``\r``, which pandas takes for a line end), every other C0 or C1 control character, and the zero-width
#: no-break space.  With none of them in a text, every reader here cuts its lines and fields at the same places.
NOT_A_BLANK = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]")


def level_of(classes: int) -> int:
    """The label column ``--omfc-classes`` picks: 2 -> binary (0), 3 -> triple (1), anything else n-way (2)."""
    return {2: 0, 3: 1}.get(classes, 2)


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line
    return ""


def sniff(head: str) -> Kind:
    """What a reference is, from its first non-blank line: JSON, pipe-separated, an image or a video list."""
    line = _first_line(head).lstrip("\ufeff")
    if line.lstrip().startswith(("{", "[")):
        return "json"
    if "|" in line:
        return "psv"
    tokens = line.split()
    if len(tokens) >= 5 and _INT.match(tokens[0]) and all(_INT.match(t) for t in tokens[-3:]):
        n = int(tokens[0])
        if 0 <= n <= MAX_SEGMENTS and len(tokens) == 2 + 3 * n + 3:
            return "video-list"
    if len(tokens) >= 4 and all(_INT.match(t) for t in tokens[-3:]):
        return "image-list"
    return "psv"


@dataclass
class ParsedList:
    """A list, parsed: IDs in file order (valid lines only) with their line, label and fake segments."""

    ids: list[str] = field(default_factory=list)
    lines: MutableMapping[str, int] = field(default_factory=dict)  # a LazyDict from the whole-file readers
    labels: MutableMapping[str, int] = field(default_factory=dict)
    segments: dict[str, list[tuple[float, float]]] = field(default_factory=dict)  # fake segments, frames
    problems: list[Finding] = field(default_factory=list)
    fatal: str | None = None
    #: the labels in the order of ``ids`` (the whole-file readers give it, so that nobody maps them back)
    label_array: np.ndarray | None = None


class LazyDict(MutableMapping[str, Any]):
    """A mapping filled from ``keys`` and ``values`` on first use: a million-line list's line numbers and labels
    cost nothing until something reads them (a finding naming a line, a label looked up by ID).  Not a ``dict``
    subclass on purpose: C code that reads a dict's storage directly (``json.dumps``) would see it empty;
    a mapping it does not know it refuses instead.  ``dict(m)`` gives a plain dict."""

    __slots__ = ("_data", "_pending")

    def __init__(self, keys: list[str], values: Any) -> None:
        self._data: dict[str, Any] = {}
        self._pending: tuple[list[str], Any] | None = (keys, values)

    def _filled(self) -> dict[str, Any]:
        if self._pending is not None:
            keys, values = self._pending
            self._pending = None
            self._data = dict(zip(keys, values, strict=True))
        return self._data

    def __getitem__(self, key: str) -> Any:
        return self._filled()[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self._filled()[key] = value

    def __delitem__(self, key: str) -> None:
        del self._filled()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._filled())

    def __len__(self) -> int:
        return len(self._filled())

    def __contains__(self, key: object) -> bool:
        return key in self._filled()

    def get(self, key: str, default: Any = None) -> Any:
        return self._filled().get(key, default)

    def __repr__(self) -> str:
        return f"LazyDict({self._filled()!r})"


def _text(path: Path, display: str, limits: Limits | None) -> tuple[str | None, str | None, list[Finding]]:
    """The file's text, or the reason it cannot be read (the CSV reader's checks: regular file, size, UTF-8)."""
    res = ParseResult(table=None, display=display)
    text = read_text(path, display, limits, res)
    if text is None:
        found = [f for issues in res.issues.values() for f in issues]
        return None, res.fatal[1] if res.fatal else f"{display} cannot be read", found
    return _lines_text(text), None, []


def _lines_text(text: str) -> str:
    """The text as every reader here reads it: no byte-order mark at the start, ``\r\n`` as ``\n``."""
    text = text.removeprefix(BOM)
    return text.replace("\r\n", "\n") if "\r" in text else text


_PRINTABLE = bytes(range(32, 127))


def _clean(text: str) -> bool:
    """True when no line breaks the line definition (too long, or a character of :data:`NOT_A_BLANK`): only
    then may a whole-file fast path read the text; otherwise the line-by-line reader names each bad line.
    An ASCII text (the benchmark's lists) is checked on its bytes with numpy, any other with the pattern.
    Line lengths are checked on the UTF-8 bytes (at least as long as the characters; a line that is longer in
    bytes only is left to the line-by-line reader, which counts characters)."""
    if text.isascii():
        data = text.encode("ascii")
        controls = data.translate(None, _PRINTABLE)  # what is left: the control bytes
        if controls.count(b"\n") + controls.count(b"\t") != len(controls):
            return False
        raw = np.frombuffer(data, dtype=np.uint8)
    elif NOT_A_BLANK.search(text) is not None:
        return False
    else:
        raw = np.frombuffer(text.encode("utf-8", "surrogateescape"), dtype=np.uint8)
    if raw.size <= MAX_LINE:
        return True
    ends = np.r_[-1, np.flatnonzero(raw == 10), raw.size]
    return int(np.diff(ends).max()) <= MAX_LINE + 1


def _not_a_blank(line: str) -> str | None:
    """What is wrong with a line holding a character of :data:`NOT_A_BLANK`, or None."""
    hit = NOT_A_BLANK.search(line)
    if hit is None:
        return None
    ch = hit.group()
    name = unicodedata.name(ch, "")
    what = f"U+{ord(ch):04X} {name}" if name else f"U+{ord(ch):04X}, a control character,"
    return (
        "a line must separate its fields with spaces or tabs only and hold no other white space or control "
        f"character (got {what} at column {hit.start() + 1})"
    )


def _records(text: str, display: str, report: Callable[[Finding], object]) -> Iterator[tuple[int, str, list[str]]]:
    """``(line number, line, fields)`` of every non-blank line; a line over :data:`MAX_LINE` characters is
    ``report``-ed as a finding, in line order, and never split."""
    for no, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        if len(line) > MAX_LINE:
            report(Finding(f"a line must be at most {MAX_LINE} characters (got {len(line)})", file=display, line=no))
            continue
        bad = _not_a_blank(line)
        if bad is not None:
            report(Finding(bad, file=display, line=no, value=line.strip()[:200]))
            continue
        yield no, line, line.split()


def _label_problem(value: str, k: int, level: str) -> str | None:
    if not _INT.match(value):
        return f"the {level} label must be an integer from 0 to {k - 1} (got {value!r})"
    if not 0 <= int(value) < k:
        return f"the {level} label must be from 0 to {k - 1} (got {value})"
    return None


def _finish(out: ParsedList, display: str, rid: str, line: int, label: int) -> bool:
    """Keep a name's line and label; a name seen before is a finding naming its first line (False)."""
    first = out.lines.get(rid)
    if first is not None:
        out.problems.append(
            Finding(
                f"each name must appear once (got it again; first on line {first})",
                file=display,
                line=line,
                key=rid,
                value=rid,
            )
        )
        return False
    out.ids.append(rid)
    out.lines[rid] = line
    out.labels[rid] = label
    return True


def _fields(text: str, width: int, numbers: str | None = None) -> pd.DataFrame | None:
    """Every line as exactly ``width`` whitespace-separated fields, read by pandas' C parser (a million
    lines in about a second), or None when any line is blank, longer or shorter, or quoted, or when a
    field after the first is not of the dtype ``numbers`` ("int64", "float64"): then the caller reads
    line by line, to name each bad line."""
    import csv
    import io

    import pandas as pd

    if not text.strip() or '"' in text:
        return None
    if numbers == "int64" and _NOT_INT_FIELD.search(text):
        return None
    lines = text.count("\n") + (0 if text.endswith("\n") else 1)
    dtypes: dict[int, Any] = {i: (numbers or object) for i in range(1, width)}
    dtypes.update({0: object, width: object})
    try:
        df = pd.read_csv(
            io.StringIO(text),
            sep=r"\s+",
            header=None,
            names=list(range(width + 1)),
            dtype=dtypes,
            engine="c",
            keep_default_na=False,
            na_values=[],
            quoting=csv.QUOTE_NONE,
            skip_blank_lines=False,
        )
    except (ValueError, TypeError, OverflowError, pd.errors.ParserError):  # a bad field, too many fields
        return None
    if len(df) != lines or (df[width].to_numpy(dtype=object) != "").any():
        return None  # a blank line, or a line with more fields
    if df[width - 1].dtype == object and (df[width - 1].to_numpy(dtype=object) == "").any():
        return None  # a line with fewer fields (a missing number fails the dtype instead)
    return df.drop(columns=[width])


def _single_spaced(text: str, width: int) -> list[str] | None:
    """The fields of every line, when every line is exactly ``width`` fields separated by single blanks and
    ends with ``\n`` (how the benchmark writes its lists): one ``str.split`` of the whole text, the shape
    checked on the bytes with numpy.  None for anything else (another whitespace character, a run of blanks,
    a blank or short or long line, a line over :data:`MAX_LINE`, no final newline): the general reader
    decides.  With blanks and newlines the only whitespace, ``str.split`` cuts exactly at them, so exactly
    ``width - 1`` blanks on every line means exactly ``width`` non-empty fields on every line."""
    if not text.endswith("\n") or not text.isascii():  # (str.split also cuts at Unicode blanks)
        return None
    raw = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    if np.count_nonzero(raw < 32) != text.count("\n"):  # tab, CR, VT, FF, FS..US: whitespace to str.split
        return None
    ends = np.flatnonzero(raw == 10)
    blanks = np.flatnonzero(raw == 32)
    per_line = np.diff(np.searchsorted(blanks, ends), prepend=0)
    if (per_line != width - 1).any() or np.diff(ends, prepend=-1).max() > MAX_LINE + 1:
        return None
    starts = np.r_[0, ends[:-1] + 1]
    if raw[starts].min() == 32 or raw[ends - 1].min() == 32 or (np.diff(blanks) == 1).any():
        return None  # a leading or trailing blank, or two in a row: an empty field
    return text.split()


def _image_list_fast(text: str, classes: int) -> ParsedList | None:
    """The whole list at once when every line is well formed (else None: read line by line).  A list written
    as the benchmark writes it (single blanks) is split in one call; any other layout goes through pandas'
    C parser.  Line numbers and labels by ID are filled on first use (:class:`LazyDict`)."""
    level = level_of(classes)
    fields = _single_spaced(text, 4)
    if fields is not None:
        ids = fields[0::4]
        tokens = fields[1 + level :: 4]
        if not "".join(tokens).isdigit() or max(map(len, tokens)) > 18:
            return None  # a sign, a non-digit, a huge number: the line-by-line reader decides and names it
        labels = np.fromiter(map(int, tokens), dtype=np.int64, count=len(ids))
    else:
        df = _fields(text, 4, "int64")
        if df is None:
            return None
        ids = df[0].tolist()
        labels = df[1 + level].to_numpy(dtype=np.int64)
    if labels.min(initial=0) < 0 or labels.max(initial=0) >= classes:
        return None
    if len(set(ids)) != len(ids):  # a repeated name: the line-by-line reader names both lines
        return None
    out = ParsedList(ids=ids, label_array=labels)
    out.labels = LazyDict(ids, labels.tolist())
    out.lines = LazyDict(ids, range(1, len(ids) + 1))
    return out


def read_image_list(path: Path, display: str, classes: int, limits: Limits | None = None) -> ParsedList:
    """An image list at the level ``classes`` picks: each line ``<image> <binary> <triple> <16-way>``."""
    out = ParsedList()
    text, fatal, found = _text(path, display, limits)
    if text is None:
        out.fatal, out.problems = fatal, found
        return out
    fast = _image_list_fast(text, classes) if _clean(text) else None
    if fast is not None:
        return fast
    level = level_of(classes)
    what = f"<image> <binary> <triple> <16-way> (--omfc-classes {classes} reads the {LEVELS[level]} label)"
    for no, line, tokens in _records(text, display, out.problems.append):
        if len(tokens) != 4:
            hint = ": a name with spaces?" if len(tokens) > 4 else ": a truncated line?"
            out.problems.append(
                Finding(
                    f"each line must be {what}: 4 fields (got {len(tokens)}{hint})",
                    file=display,
                    line=no,
                    value=line.strip()[:200],
                )
            )
            continue
        bad = _label_problem(tokens[1 + level], classes, LEVELS[level])
        if bad is not None:
            out.problems.append(Finding(bad, file=display, line=no, key=tokens[0], value=tokens[1 + level]))
            continue
        _finish(out, display, tokens[0], no, int(tokens[1 + level]))
    if not out.ids and out.fatal is None:
        out.fatal = f"{display} holds no usable line"
    return out


#: A segment's flag as a video list may spell it: the benchmark's lists write 0/1, its readme ``<fake/real>``.
_FLAGS = {"0": (False, "digits"), "1": (True, "digits"), "real": (False, "words"), "fake": (True, "words")}


def _video_line(tokens: list[str], classes: int, level: int) -> tuple[list[tuple[float, float]], int, str | None] | str:
    """The fake segments (start, end) in frames, the label and the flags' spelling (``digits``, ``words``, None
    without segments) of a video line, or what is wrong with it.  A line mixing both spellings is wrong."""
    if not _INT.match(tokens[0]) or int(tokens[0]) < 0:
        return f"must start with the number of segments (got {tokens[0]!r})"
    n = int(tokens[0])
    if n > MAX_SEGMENTS:
        return f"must list at most {MAX_SEGMENTS} segments (got a count of {n})"
    want = 2 + 3 * n + 3
    if len(tokens) != want:
        return (
            f"must have {want} fields for {n} segment{'s' if n != 1 else ''} (count, name, 3 per segment, "
            f"3 labels; got {len(tokens)}: a segment count that disagrees with the segments, a name with spaces "
            "or a truncated line?)"
        )
    fakes: list[tuple[float, float]] = []
    spelling: str | None = None
    for i in range(n):
        start, length, flag = tokens[2 + 3 * i : 5 + 3 * i]
        known = _FLAGS.get(flag.lower())
        if not (_INT.match(start) and _INT.match(length) and known is not None):
            return (
                f"segment {i + 1} must be <start frame> <frame count> <0 or real | 1 or fake> "
                f"(got {start} {length} {flag})"
            )
        if int(start) < 0 or int(length) < 0:
            return f"segment {i + 1} must have a start and a frame count of 0 or more (got {start} {length})"
        fake, spelled = known
        if spelling is not None and spelled != spelling:
            return f"must spell every segment's flag one way, 0/1 or real/fake (got both; segment {i + 1}: {flag})"
        spelling = spelled
        if fake:
            fakes.append((float(start), float(int(start) + int(length))))
    bad = _label_problem(tokens[-3 + level], classes, LEVELS[level])
    if bad is not None:
        return bad
    return fakes, int(tokens[-3 + level]), spelling


def read_video_list(path: Path, display: str, classes: int, limits: Limits | None = None) -> ParsedList:
    """A video list at the level ``classes`` picks, with each video's fake segments in frames.

    A segment ``<start> <count> 1`` covers frames ``start .. start + count - 1``, i.e. the continuous
    interval ``[start, start + count)`` of frame time: its ActivityNet segment is ``[start, start + count]``
    (two adjacent segments share an end point, as ActivityNet's do), in frames.
    """
    out = ParsedList()
    text, fatal, found = _text(path, display, limits)
    if text is None:
        out.fatal, out.problems = fatal, found
        return out
    level = level_of(classes)
    spelling: tuple[str, int] | None = None  # the flags' spelling of the file: its first line with segments
    for no, line, tokens in _records(text, display, out.problems.append):
        got = (
            _video_line(tokens, classes, level)
            if len(tokens) >= 5
            else f"must have at least 5 fields (got {len(tokens)}: a truncated line?)"
        )
        if isinstance(got, str):
            out.problems.append(
                Finding(
                    f"each video line {got}",
                    file=display,
                    line=no,
                    key=tokens[1] if len(tokens) > 1 else None,
                    value=line.strip()[:200],
                )
            )
            continue
        fakes, label, spelled = got
        if spelled is not None and spelling is None:
            spelling = (spelled, no)
        elif spelled is not None and spelling is not None and spelled != spelling[0]:
            out.problems.append(
                Finding(
                    f"every segment's flag should be spelled one way in a list, 0/1 or real/fake (got {spelled} "
                    f"here, {spelling[0]} on line {spelling[1]}; the line is read)",
                    severity=Severity.WARNING,
                    file=display,
                    line=no,
                    key=tokens[1],
                )
            )
        if _finish(out, display, tokens[1], no, label):
            out.segments[tokens[1]] = fakes
    if not out.ids and out.fatal is None:
        out.fatal = f"{display} holds no usable line"
    return out


def read_video_info(path: Path, display: str, videos: set[str]) -> tuple[dict[str, float], list[Finding]]:
    """``--omfc-video-info``: ``<video> <frame count>`` per line (an optional header line), the durations in
    frames of the reference's videos; a bad line, a repeated video or a video the reference does not list is
    a finding.  A reference video without a line has no known duration (FNET-10 then does not apply)."""
    frames: dict[str, float] = {}
    problems: list[Finding] = []
    text, fatal, found = _text(path, display, None)
    if text is None:
        return frames, found or [Finding(fatal or f"{display} cannot be read", file=display)]
    for no, line, tokens in _records(text, display, problems.append):
        if not frames and not problems and len(tokens) == 2 and not _INT.match(tokens[1]):
            continue  # a header such as "video frames"
        if len(tokens) != 2 or not _INT.match(tokens[1]) or int(tokens[1]) < 0:
            problems.append(
                Finding(
                    "each video-info line must be <video> <frame count>, a count of 0 or more "
                    f"(got {line.strip()[:200]!r})",
                    file=display,
                    line=no,
                )
            )
        elif tokens[0] in frames:
            problems.append(Finding("each video must be given once", file=display, line=no, key=tokens[0]))
        elif tokens[0] not in videos:
            problems.append(
                Finding(
                    "must name a video of the reference (got one it does not list)",
                    file=display,
                    line=no,
                    key=tokens[0],
                )
            )
        else:
            frames[tokens[0]] = float(int(tokens[1]))
    return frames, problems


def is_plain(head: str) -> bool:
    """A prediction file in the plain per-line form: its first non-blank line is two or more fields separated
    by white space, with no ``|``, ``,`` or ``;`` (a comma-separated file stays the CSV reader's: it names
    the separator), and it is not JSON."""
    line = _first_line(head)
    return len(line.split()) >= 2 and not any(c in line for c in "|,;") and not line.lstrip().startswith(("{", "["))


def read_plain_predictions(path: Path, display: str, columns: list[str], limits: Limits | None) -> ParseResult:
    """``<name> <score>`` or ``<name> <p0> ... <pk-1>`` lines as the table ``ID|<columns>`` the FNET rules read.

    An optional first line whose values are not numbers is a header.  A line with another number of
    fields is a CSV-03 finding naming it (a name with spaces, a truncated last line); its row is left out.
    """
    import pandas as pd

    res = ParseResult(table=None, display=display)
    text = read_text(path, display, limits, res)
    if text is None:
        return res
    text = _lines_text(text)
    width = 1 + len(columns)
    head_line = _first_line(text)
    header = bool(head_line.strip()) and not any(_number(t) for t in head_line.split()[1:])
    body_text = text.split("\n", 1)[1] if header and "\n" in text and not text.startswith("\n") else text
    # a header line that is the whole text, or a line that breaks the line definition: line by line
    whole = (body_text is not text or not header) and _clean(text)
    fields = _single_spaced(body_text, width) if whole else None  # the layout a model prints: one split
    if fields is not None:
        table = pd.DataFrame(
            {name: np.array(fields[i::width], dtype=object) for i, name in enumerate(["ID", *columns])}
        )
    else:
        df = _fields(body_text, width) if whole else None  # fields as written
        table = None
        if df is not None:
            table = pd.DataFrame({"ID": df[0].to_numpy(dtype=object)})
            for i, c in enumerate(columns, start=1):
                table[c] = df[i].to_numpy(dtype=object)
    if table is not None:
        start = 2 if header else 1
        res.table = Table.from_frame(path, display, ["ID", *columns], table, np.arange(start, start + len(table)), 1)
        return res
    ids: list[str] = []
    values: list[list[str]] = []
    lines: list[int] = []
    header_line = 0
    for no, line, tokens in _records(text, display, lambda finding: res.add("CSV-03", finding)):
        if not ids and not header_line and not any(_number(t) for t in tokens[1:]):
            header_line = no  # "image score", "name p0 p1 p2": a header
            continue
        if len(tokens) != width:
            hint = ": a name with spaces?" if len(tokens) > width else ": a truncated line?"
            if len(tokens) == width + 1 and all(_INT.match(t) for t in tokens[-2:]):
                hint = (
                    ": <class> <label>, as a test log writes (PyDeepFakeDet, M2TR)? the file must hold the "
                    "probabilities, not the predicted class"
                )
            res.add(
                "CSV-03",
                Finding(
                    f"each line must be <name> {' '.join(c.lower() for c in columns)}: {width} fields "
                    f"(got {len(tokens)}{hint})",
                    file=display,
                    line=no,
                    value=line.strip()[:200],
                ),
            )
            continue
        ids.append(tokens[0])
        values.append(tokens[1:])
        lines.append(no)
    df = pd.DataFrame(values, columns=columns, dtype=object) if values else pd.DataFrame(columns=columns, dtype=object)
    df.insert(0, "ID", pd.Series(ids, dtype=object))
    res.table = Table.from_frame(
        path, display, ["ID", *columns], df, np.asarray(lines, dtype=np.int64), header_line or 1
    )
    return res


def _number(token: str) -> bool:
    try:
        float(token)
    except ValueError:
        return False
    return True
