"""Messages stay one bounded line whatever a submission holds (issue "Hostile submissions": honest verdicts).

Taming is central (pytest_omfc/findings.py: Finding.location/as_text, render;
pytest_omfc/submission.py: Outcome headlines and skip reasons), so every rule
family gets it: a 1 MB trial key is shortened with its length, control,
line-separator and bidi-override characters are escaped, and no output line
is longer than LINE_WIDTH.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from helpers.columns import layout_case
from helpers.hostile import HEADER, run_capped

from pytest_omfc.findings import LINE_WIDTH, Finding, FindingList, quote, render, tame

CSV = "p-test_1/p-test_1.csv"
BIG = "OpenMFC" + "0" * 999_990 + "001"  # a 1,000,000-character trial key
EVIL = "k\u2028e\u2029y\x85\x1b[2J\u202eX\u2066"  # line separators, NEL, an ANSI escape, bidi overrides
EVIL_SHOWN = "k\\u2028e\\u2029y\\x85\\x1b[2J\\u202eX\\u2066"
RAW = ("\u2028", "\u2029", "\x85", "\x1b", "\u202e", "\u2066")
BIG_SHOWN = "OpenMFC000000000000000000000...0000000000000000000000000001 (1000000 characters)"


def _texts(xml: str) -> list[str]:
    """Every text and attribute value of a JUnit file, as a consumer reads them."""
    root = ET.fromstring(xml)
    return [t for el in root.iter() for t in (el.text or "", *el.attrib.values())]


def test_hostile_keys_are_shortened_and_escaped_in_every_family(omfc):
    """A 1 MB key and a key with U+2028/U+0085/ESC/bidi, each on a row that breaks an IDX, a SCORE, a STATUS
    and a MASK rule: findings show them shortened and escaped; the terminal and JUnit lines stay short
    (before: a 1,000,186-character line, a 6 MB JUnit file, U+2028 and U+0085 printed raw)."""
    rows = [f"{key}|2.5|missing-{n}.png|Bogus{EVIL}|" for n, key in enumerate([BIG, EVIL])]
    data = (
        HEADER
        + "".join(
            f"{r}\n" for r in ["0042|0.5||Processed|", "0043|0.5||Processed|", "0044|0.5||Processed|", *rows]
        ).encode()
    )
    case = layout_case(omfc)
    (case.submission / "p-test_1.csv").write_bytes(data)
    res = run_capped(case.pytester.path, *case.args)
    reports = res.junit()
    first = {rid: reports[rid][1] for rid in ("IDX-03", "SCORE-03", "STATUS-04", "MASK-03")}
    assert first == {
        "IDX-03": "IDX-03: 2 of 5 system trials do not exist in the index (showing 2)",
        "SCORE-03": "SCORE-03: 2 of 5 scores are outside [0, 1] (showing 2)",
        "STATUS-04": "STATUS-04: 2 of 5 ProbeStatus values are not recognized (showing 2)",
        "MASK-03": "MASK-03: 2 of 2 referenced masks do not exist (showing 2)",
    }
    idx = reports["IDX-03"][2].splitlines()
    assert idx[1] == (
        f"  {CSV}:5 [{BIG_SHOWN}] ProbeFileID='{BIG_SHOWN.replace(' (', chr(39) + ' (', 1)}: "
        "the trial must exist in the index (it does not)"
    )
    assert (
        idx[2]
        == f"  {CSV}:6 [{EVIL_SHOWN}] ProbeFileID='{EVIL_SHOWN}': the trial must exist in the index (it does not)"
    )
    assert reports["SCORE-03"][2].splitlines()[2] == (
        f"  {CSV}:6 [{EVIL_SHOWN}] ConfidenceScore='2.5': ConfidenceScore must be in [0, 1] (got 2.5)"
    )
    assert (
        reports["STATUS-04"][2]
        .splitlines()[2]
        .startswith(f"  {CSV}:6 [{EVIL_SHOWN}] ProbeStatus='Bogus{EVIL_SHOWN}': ")
    )
    assert (
        reports["MASK-03"][2]
        .splitlines()[1]
        .startswith(f"  {CSV}:5 [{BIG_SHOWN}] OutputProbeMaskFileName='missing-0.png'")
    )
    for where, text in (("terminal", res.out), ("JUnit file", res.xml)):
        assert not [c for c in RAW if c in text], f"raw control characters in the {where}"
    assert max(map(len, res.out.splitlines())) < 2000
    assert max(len(line) for t in _texts(res.xml) for line in t.splitlines()) < 2000
    assert len(res.xml) < 100_000


def test_tame_escapes_and_shortens() -> None:
    """The central helper: escapes, shortens long runs with their length, caps the width."""
    assert (
        tame("a\tb\nc\rd\x1b[0m\x7f\x9b\u2028\u2029\u202a\u2069")
        == "a\\tb\\nc\\rd\\x1b[0m\\x7f\\x9b\\u2028\\u2029\\u202a\\u2069"
    )
    assert tame("plain text, 'quoted' é 中文") == "plain text, 'quoted' é 中文"
    assert tame(f"(got {BIG!r})") == f"(got 'OpenMFC{'0' * 50}...{'0' * 55}1') (1000003 characters)"
    assert tame("/" + "long/path" * 26) == "/" + "long/path" * 26  # 235 characters: paths stay whole
    assert tame("NUL\x00 DEL\x7f") == "NUL\\x00 DEL\\x7f"
    assert len(tame("word " * 100_000, 500)) <= 500
    assert quote("0042") == "'0042'"
    assert quote(BIG) == f"'{BIG_SHOWN.replace(' (', chr(39) + ' (', 1)}"


def test_render_caps_every_line_and_counts_the_total() -> None:
    """render(): a line is never longer than LINE_WIDTH, and a FindingList's total is what is counted."""
    long_message = "must be short (got " + " ".join(["word"] * 10_000) + ")"
    found = FindingList([Finding(long_message, file="f.csv", line=2, key=BIG, column="c", value=EVIL)], total=5)
    text = render("X-01", "head\u2028line " * 1000, found, 20)
    lines = text.splitlines()
    assert len(lines) == 3
    assert max(map(len, lines)) <= LINE_WIDTH
    assert lines[0].startswith("X-01: head\\u2028line head\\u2028line") and lines[0].endswith("(showing 1)")
    assert lines[2] == "  ... and 4 more (5 in all)"
    assert not [c for c in RAW if c in text]
