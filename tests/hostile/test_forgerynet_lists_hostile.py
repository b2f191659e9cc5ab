"""Hostile lines in the benchmark's own list and prediction formats: the readers never raise, and the whole-file
fast path (pandas' C parser) gives exactly what the line-by-line reader gives."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pytest_omfc.forgerynet import lists

NAME = st.from_regex(r"[A-Za-z0-9_/.\-]{1,30}", fullmatch=True)
#: characters some reader takes for white space or a line end and another does not (lists.NOT_A_BLANK)
HOSTILE_BLANK = st.sampled_from(["\xa0", "\x0b", "\x0c", "\r", "\x1c", "\x1f", "\x85", "\u2003", "\u3000", "\ufeff"])
LABEL = st.integers(-2, 20).map(str) | st.sampled_from(["x", "1.0", "", "+1", "007"])
IMAGE_LINE = st.one_of(
    st.tuples(NAME, st.integers(0, 1), st.integers(0, 2), st.integers(0, 15)).map(lambda t: " ".join(map(str, t))),
    st.tuples(NAME, LABEL, LABEL, LABEL).map(" ".join),
    st.lists(NAME, min_size=0, max_size=6).map(" ".join),
    st.sampled_from(["", "   ", '"quoted name" 1 1 1', "a\tb 1 1 1", "name 1 1 1 extra"]),
    # whitespace str.split cuts at but a byte check might not: the single-blank path must leave these alone
    st.tuples(NAME, st.sampled_from(["  ", "\t", " \x0b", "\x1c", "\u2003", "\xa0", " \r"]), st.integers(0, 1)).map(
        lambda t: f"{t[0]}{t[1]}{t[2]} {t[2]} {t[2]}"
    ),
    st.tuples(NAME, st.integers(0, 1)).map(lambda t: f" {t[0]} {t[1]} {t[1]} {t[1]} "),
    # ... and inside a name, where pandas keeps one field that str.split cuts in two (or ends the line at '\r')
    st.tuples(NAME, HOSTILE_BLANK, NAME, st.integers(0, 1)).map(lambda t: f"{t[0]}{t[1]}{t[2]} {t[3]} {t[3]} {t[3]}"),
)
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _slow(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lists, "_image_list_fast", lambda *a: None)
    monkeypatch.setattr(lists, "_fields", lambda *a: None)
    monkeypatch.setattr(lists, "_single_spaced", lambda *a: None)


@SETTINGS
@given(lines=st.lists(IMAGE_LINE, max_size=12), classes=st.sampled_from([2, 3, 16]), newline=st.booleans())
@example(lines=["Jme 0 1 10", "z 1.0 8 0"], classes=2, newline=True)  # pandas' int64 parse took '1.0' as 1
@example(lines=["a 1e0 1 1", "b 0 0 0"], classes=2, newline=False)
@example(lines=["a \u0661 1 1", "b 0 0 0"], classes=2, newline=True)  # Arabic-Indic 1: int() takes it
@example(lines=["a\xa0b 1 1 1", "c 0 0 0"], classes=2, newline=True)  # one field to pandas, two to str.split
@example(lines=["a\xa0b 1 1 1", "", "c 0 0 0"], classes=2, newline=True)  # (a blank line chose the reader)
@example(lines=["a\rb 1 1 1", "c 0 0 0"], classes=2, newline=True)  # a line end to pandas only
@example(lines=["\ufeffa 1 1 1\r", "c 0 0 0\r"], classes=2, newline=True)  # BOM and CRLF: read by every reader
def test_image_lists_fast_and_line_by_line_agree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lines: list[str], classes: int, newline: bool
) -> None:
    """Three readers, one answer: the single-blank split (the benchmark's own layout), pandas' C parser (any
    other layout read whole) and the line-by-line reader (which names each bad line)."""
    path = tmp_path / "image_list.txt"
    path.write_text("\n".join(lines) + ("\n" if newline else ""), encoding="utf-8")
    fast = lists.read_image_list(path, "image_list.txt", classes)
    with monkeypatch.context() as m:
        m.setattr(lists, "_single_spaced", lambda *a: None)
        parsed = lists.read_image_list(path, "image_list.txt", classes)
    with monkeypatch.context() as m:
        _slow(m)
        slow = lists.read_image_list(path, "image_list.txt", classes)
    for got in (fast, parsed):
        assert (got.ids, got.labels, got.lines, got.fatal) == (slow.ids, slow.labels, slow.lines, slow.fatal)
        assert [(f.line, f.message) for f in got.problems] == [(f.line, f.message) for f in slow.problems]
        if got.label_array is not None:
            assert got.label_array.tolist() == [slow.labels[i] for i in slow.ids]
    assert all(0 <= v < classes for v in fast.labels.values())


def test_the_single_blank_path_reads_the_benchmarks_layout_and_nothing_else(tmp_path: Path) -> None:
    """The benchmark's layout takes the one-split path (no pandas); a tab anywhere sends the file to the
    general readers, with the same result."""
    path = tmp_path / "image_list.txt"
    path.write_text("a/x.jpg 1 2 7\nb/y.jpg 0 0 0\n")
    assert lists._single_spaced(path.read_text(), 4) == ["a/x.jpg", "1", "2", "7", "b/y.jpg", "0", "0", "0"]
    for text in ("a/x.jpg 1 2 7\tb 0 0 0\n", "a/x.jpg 1 2 7", "a/x.jpg  1 2 7\n", "a/x.jpg 1 2\n", "é 1 1 1\n"):
        assert lists._single_spaced(text, 4) is None, text
    got = lists.read_image_list(path, "image_list.txt", 16)
    assert (got.ids, dict(got.labels), dict(got.lines)) == (
        ["a/x.jpg", "b/y.jpg"],
        {"a/x.jpg": 7, "b/y.jpg": 0},
        {"a/x.jpg": 1, "b/y.jpg": 2},
    )
    assert isinstance(got.labels, lists.LazyDict) and got.label_array is not None


def test_a_lazy_dict_reads_as_the_dict_it_stands_for() -> None:
    d = lists.LazyDict(["a", "b"], [1, 2])
    assert len(d) == 2 and d["a"] == 1 and "b" in d and d.get("c") is None and list(d) == ["a", "b"]
    assert d == {"a": 1, "b": 2} and {"a": 1, "b": 2} == d and dict(d.items()) == {"a": 1, "b": 2}
    d["c"] = 3
    assert dict(d) == {"a": 1, "b": 2, "c": 3}
    import json

    untouched = lists.LazyDict(["x"], [5])
    assert json.dumps(dict(untouched)) == '{"x": 5}'
    with pytest.raises(TypeError):  # never an empty "{}" for a mapping that was not filled yet
        json.dumps(lists.LazyDict(["x"], [5]))


def test_not_a_blank_is_every_white_space_but_the_separators() -> None:
    """The line definition's forbidden set holds every character ``str.isspace`` is true for except space, tab
    and newline, every C0/C1 control character except tab and newline, and the zero-width no-break space (a
    byte-order mark anywhere but at the start of the file, where every reader drops it)."""
    for code in range(0x110000):
        ch = chr(code)
        should = (ch.isspace() or unicodedata.category(ch) == "Cc" or ch == "\ufeff") and ch not in " \t\n"
        assert bool(lists.NOT_A_BLANK.fullmatch(ch)) == should, hex(code)


def test_a_hostile_blank_is_a_finding_naming_line_and_character(tmp_path: Path) -> None:
    path = tmp_path / "image_list.txt"
    path.write_text("\ufeffa 1 1 1\r\nb\xa0c 0 0 0\r\nd\x0be 1 1 1\nf 0 0 0\n", encoding="utf-8", newline="")
    got = lists.read_image_list(path, "image_list.txt", 2)
    assert got.ids == ["a", "f"]
    assert [(f.line, f.message.split("(got ")[1]) for f in got.problems] == [
        (2, "U+00A0 NO-BREAK SPACE at column 2)"),
        (3, "U+000B, a control character, at column 2)"),
    ]


def test_the_line_limit_holds_in_every_reader(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A line over MAX_LINE characters is a finding naming it whichever reader the file would take (pandas'
    parser read it whole)."""
    monkeypatch.setattr(lists, "MAX_LINE", 64)
    path = tmp_path / "image_list.txt"
    path.write_text("a  1 1 1\n" + "b" * 80 + "  1 1 1\n" + "c  0 0 0\n" * 20)  # double blanks: no one-split path
    got = lists.read_image_list(path, "image_list.txt", 2)
    assert "b" * 80 not in got.ids and len(got.ids) == 2 - 1 + 1
    assert [(f.line, f.message) for f in got.problems][:1] == [(2, "a line must be at most 64 characters (got 87)")]


SCORE = st.floats(0, 1).map(lambda v: f"{v:.6g}") | st.sampled_from(["nan", "inf", "-1", "x", "1e400", ""])


@SETTINGS
@given(
    rows=st.lists(st.tuples(NAME | st.tuples(NAME, HOSTILE_BLANK, NAME).map("".join), SCORE, SCORE), max_size=10),
    header=st.booleans(),
    width=st.sampled_from([1, 2]),
)
def test_plain_predictions_fast_and_line_by_line_agree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rows: list[tuple[str, str, str]], header: bool, width: int
) -> None:
    columns = ["Score"] if width == 1 else ["P0", "P1"]
    text = ("name " + " ".join(c.lower() for c in columns) + "\n" if header else "") + "".join(
        " ".join([n, *vals[:width]]) + "\n" for n, *vals in rows
    )
    path = tmp_path / "preds.txt"
    path.write_text(text)
    fast = lists.read_plain_predictions(path, "preds.txt", columns, None)
    with monkeypatch.context() as m:
        m.setattr(lists, "_single_spaced", lambda *a: None)
        parsed = lists.read_plain_predictions(path, "preds.txt", columns, None)
    with monkeypatch.context() as m:
        _slow(m)
        slow = lists.read_plain_predictions(path, "preds.txt", columns, None)
    for got in (fast, parsed):
        assert (got.table is None) == (slow.table is None)
        if got.table is None or slow.table is None:
            return
        assert got.table.df["ID"].tolist() == slow.table.df["ID"].tolist()
        assert got.table.lines.tolist() == slow.table.lines.tolist()
        for c in columns:
            a = pd.to_numeric(got.table.df[c], errors="coerce").to_numpy(dtype=float)
            b = pd.to_numeric(slow.table.df[c], errors="coerce").to_numpy(dtype=float)
            assert np.array_equal(a, b, equal_nan=True)
            assert got.table.df[c].tolist() == slow.table.df[c].tolist()  # values as written (FNET-05 names them)


@SETTINGS
@given(
    count=st.integers(-1, 5),
    triples=st.lists(st.tuples(st.integers(-3, 99), st.integers(-3, 99), st.integers(-1, 2)), max_size=6),
    labels=st.tuples(LABEL, LABEL, LABEL),
    name=NAME | st.just("my video.mp4"),
)
def test_video_lines_never_raise(
    tmp_path: Path, count: int, triples: list[tuple[int, int, int]], labels: tuple[str, str, str], name: str
) -> None:
    line = " ".join([str(count), name, *(" ".join(map(str, t)) for t in triples), *labels])
    path = tmp_path / "video_list.txt"
    path.write_text(line)
    for classes in (2, 3, 9):
        parsed = lists.read_video_list(path, "video_list.txt", classes)
        assert len(parsed.ids) + len(parsed.problems) == 1
        for segs in parsed.segments.values():
            assert all(0 <= s <= e for s, e in segs)
