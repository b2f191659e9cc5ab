"""The column operations the rules read tables with (pytest_omfc/arrays.py), against pandas, which they replace.

:func:`parse_floats` is the one reader of numbers in the text columns, for the rules and the scorers: it must
accept exactly what ``pandas.to_numeric`` accepts (hypothesis, on the lowest pandas the project declares too:
these are ``compat`` tests) and read it correctly rounded, as Python's ``float`` does.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from pytest_omfc import arrays

pytestmark = pytest.mark.compat

#: Texts near a number: digits, signs, points, exponents, the infinities, white space and what is not ASCII.
NEARLY = st.one_of(
    st.from_regex(r"\A[ \t]?[+-]?[0-9]{0,22}\.?[0-9]{0,22}(?:[eE][+-]?[0-9]{1,3})?[ \t]?\Z"),
    st.text(alphabet="0123456789.eE+-_ \t\xa0iInNfFtyaxX\u0661,", max_size=12),
    st.sampled_from(["inf", "-inf", "+Infinity", "INF", "iNfInItY", "nan", "NaN", "-nan", "infinit", "1_0"]),
)


def _far(text: str) -> bool:
    """A written exponent beyond the doubles' range (pandas 2.0 refuses it whatever the mantissa)."""
    _, _, exponent = text.lower().partition("e")
    return bool(exponent) and abs(int(exponent)) > 290


def _pandas(texts: list[str]) -> np.ndarray:
    return pd.to_numeric(pd.Series(texts, dtype=object), errors="coerce").to_numpy(dtype=np.float64)


@settings(max_examples=400, deadline=None)
@given(st.lists(NEARLY, min_size=1, max_size=20))
@example(["1e400", "-1e400", "1e-400"])
@example(["0.1234567890123456789", "+6.e+27", "47e73"])  # pandas reads these one bit off; float() does not
@example(["+0E650", "1e-330", "0.0000001e-300"])  # pandas 2.0: NaN
def test_parse_floats_accepts_what_pandas_accepts_and_reads_it_correctly_rounded(texts: list[str]) -> None:
    texts = [t.strip() for t in texts]  # every caller reads stripped text (Submission.stripped)
    mine, theirs = arrays.parse_floats(arrays.text_array(texts)), _pandas(texts)
    for text, a, b in zip(texts, mine.tolist(), theirs.tolist(), strict=True):
        if math.isnan(a):
            assert math.isnan(b), f"{text!r}: pandas reads {b!r}, parse_floats NaN"
            continue
        assert a == float(text), text  # correctly rounded (pandas' own reading may be a bit off)
        if math.isinf(a) or (a == 0 and any(c in "123456789" for c in text.lower().split("e")[0])) or _far(text):
            continue  # out of range: pandas 2.0 gives NaN (also for 0e650), pandas 3 the value float() gives
        assert not math.isnan(b), f"{text!r}: parse_floats reads {a!r}, pandas NaN"
        assume(a == 0 or 1e-300 < abs(a) < 1e300)
        assert a == pytest.approx(b, rel=1e-14, abs=0), text


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("0.5", 0.5),
        ("+.5", 0.5),
        ("1.", 1.0),
        (" 1e3\t", 1000.0),
        ("-Infinity", -math.inf),
        ("1e400", math.inf),  # pandas 2.0 reads NaN: the value is infinite, and SCORE-01 says so
        ("0042", 42.0),
        ("nan", math.nan),  # not a number, whatever float() says
        ("1_000", math.nan),  # float() takes digit separators, pandas does not
        ("\u0661", math.nan),  # float() takes Arabic-Indic digits, pandas does not
        ("1e", math.nan),
        (".", math.nan),
        ("", math.nan),
        ("0x10", math.nan),
    ],
)
def test_parse_floats_by_hand(text: str, value: float) -> None:
    got = float(arrays.parse_floats([text])[0])
    assert got == value or (math.isnan(value) and math.isnan(got))


def test_parse_floats_of_an_object_array_and_of_non_strings() -> None:
    values = np.array(["1", None, 2.5, "x"], dtype=object)
    assert np.array_equal(arrays.parse_floats(values), [1.0, np.nan, np.nan, np.nan], equal_nan=True)
    assert arrays.parse_floats([]).shape == (0,)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", "", " a", "0042", "42"]), max_size=30))
def test_positions_and_duplicates_as_pandas(values: list[str]) -> None:
    col = arrays.text_array(values)
    series = pd.Series(values, dtype=object)
    assert arrays.duplicated(col).tolist() == series.duplicated(keep="first").tolist()
    first = arrays.first_positions(col)
    assert [values[i] for i in first] == values and all(first[i] <= i for i in range(len(values)))
    assert arrays.isin(col, {"a", "42"}).tolist() == series.isin(["a", "42"]).tolist()
    assert arrays.strip(col).tolist() == series.str.strip().tolist()


def test_rows_as_tuples_and_joined_keys() -> None:
    rows = [("a", "1"), ("a", "2"), ("a", "1")]
    assert arrays.duplicated(rows).tolist() == [False, False, True]
    a, b = arrays.text_array(["p1", "p2"]), arrays.text_array(["c1", "c2"])
    assert arrays.joined([a, b]).tolist() == ["p1:c1", "p2:c2"]
    assert arrays.joined([a]) is a


def test_a_text_array_holds_strings_as_objects() -> None:
    col = arrays.text_array(["a", "bb"])
    assert col.dtype == object and col.tolist() == ["a", "bb"]
    assert arrays.text_array(iter(["x"])).tolist() == ["x"]


def test_rows_select_take_and_iterate_keeping_their_first_positions() -> None:
    rows = arrays.Rows({"fid": np.array([5, 7, 5, 9]), "name": arrays.text_array(["a", "b", "c", "d"])})
    assert len(rows) == 4 and not rows.empty and rows.index.tolist() == [0, 1, 2, 3]
    assert rows.keep(np.ones(4, bool)) is rows  # nothing dropped: the same rows, no copy
    kept = rows.keep(np.array([False, True, True, True]))
    assert kept["name"].tolist() == ["b", "c", "d"] and kept.index.tolist() == [1, 2, 3]
    assert kept.take(np.array([2, 0])).index.tolist() == [3, 1]  # positions of the first rows, not of kept
    assert rows.first_of("fid")["name"].tolist() == ["a", "b", "d"]
    row = next(rows.tuples())
    assert (row.fid, row.name) == (5, "a") and type(row.fid) is int  # plain Python values
    none = rows.keep(np.zeros(4, bool))
    assert none.empty and list(none.tuples()) == [] and none["fid"].shape == (0,)
