"""The heading, opt-out and record patterns use plain quantifiers (Python 3.10 has no possessive ones) and must
match exactly what the possessive forms they replace matched: hypothesis compares both on text built from the
characters the patterns care about (Python 3.11+, where the possessive forms compile).  A hang guard checks
that the worst inputs for backtracking stay fast on every Python (a bound far above their time, not a speed
claim)."""

from __future__ import annotations

import re
import sys
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pytest_omfc import csvio
from pytest_omfc.models import description as d

pytestmark = pytest.mark.compat

#: The forms these patterns had before Python 3.10 was supported (possessive runs).
_MARKUP = r"[#*>=_\-\u2022|]++(?![#*>=_\-\u2022|])"
_ENUM = r"\(?(?:(?:section|part|appendix)[ \t]*+)?(?:\d++|[ivx]++|[a-f])(?:[.:)\]\-\u2013\u2014]|(?=[ \t]))"
_PREFIX = rf"[ \t]*+(?:(?:{_MARKUP}|{_ENUM})[ \t]*+)*"
_OPT_OUT = r"\bopt(?:s|ed|ing)?\b|\bopt[\s_-]*+outs?\b|\boptout|non[\s_-]*+processed|not[\s_-]++processed|unprocessed"
_RECORD = r"(?<![^\r\n])[^\S\r\n]*+\S[^\r\n]*"


def _possessive_heading(pattern: str) -> re.Pattern[str]:
    line_start = rf"^{_PREFIX}(?:{pattern})(?![A-Za-z0-9])"
    run_in = rf"\bsection[ \t]*+\d++[ \t]*+[.:)\-\u2013\u2014]?[ \t]*+(?:{pattern})(?![A-Za-z0-9])"
    return re.compile(rf"{line_start}|{run_in}", re.I | re.M)


PIECES = [" ", "  ", "\t", "\n", "\r\n", "\r", "1", "12", "i", "iv", "a", "(", ")", ".", ":", "-", "\u2013", "#", "##",
          "*", "|", "_", "=", ">", "\u2022", "section", "Section ", "part", "appendix", "opt", "out", "outs", "-out",
          "non", "not", "processed", "un", "System Description", "References", "Hardware", "training data",
          "x", "\u00a0", "\u2028"]  # fmt: skip
TEXT = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
SECTIONS = d.SECTIONS_NC17_MFC19 + d.SECTIONS_OPENMFC


@pytest.mark.skipif(sys.version_info < (3, 11), reason="possessive quantifiers compile from Python 3.11 on")
@settings(max_examples=400, deadline=None)
@given(text=TEXT)
def test_the_patterns_match_what_the_possessive_forms_matched(text: str) -> None:
    for section in SECTIONS:
        new, old = d._heading_re(section.pattern).search(text), _possessive_heading(section.pattern).search(text)
        assert (new and new.span()) == (old and old.span()), section.name
    spans = [m.span() for m in d.OPT_OUT_WORDS.finditer(text)]
    assert spans == [m.span() for m in re.finditer(_OPT_OUT, text, re.I)]
    assert [m.span() for m in csvio._RECORD.finditer(text)] == [m.span() for m in re.finditer(_RECORD, text)]


@pytest.mark.parametrize(
    "text",
    [
        "section 1" + " " * 200_000 + "x",
        "section 1" + " \t" * 100_000 + ". x",
        "1 " * 100_000 + "x",
        "#" * 200_000 + " x",
        "opt" + " " * 200_000 + "x",
        "non" + "-" * 200_000 + "x",
        " " * 200_000 + "\n" + "\t" * 200_000,
    ],
)
def test_worst_cases_for_backtracking_do_not_hang(text: str) -> None:
    start = time.monotonic()
    for section in SECTIONS:
        d._heading_re(section.pattern).search(text)
    d.OPT_OUT_WORDS.search(text)
    list(csvio._RECORD.finditer(text))
    assert time.monotonic() - start < 20
