"""Operations on a table's text columns, held as numpy object arrays of ``str``.

The rules read the system output and the index through these (not through pandas, whose import alone
costs a small check more than the whole check): a column is an object array of the strings written,
and what the rules need of it is here, each in one place.

:func:`parse_floats` is the one reader of numbers in text columns (ConfidenceScore, probe widths and
heights, ...), used by the rules and the scorers alike, so that they agree on every value.  It accepts
exactly the syntax pandas' ``to_numeric`` accepts -- an optional sign, decimal digits with an optional
point, an optional exponent, or ``inf``/``infinity`` in any case, with surrounding white space -- and
reads every accepted text as Python's ``float`` does: correctly rounded.  (pandas' own reading of long
mantissas may be off in the last bit, and pandas 2.0 reads ``1e400`` as NaN where pandas 3 gives
infinity; here both are the nearest double, and ``1e400`` is infinity.)  Anything else, ``nan`` and
``1_000`` included, is NaN.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Hashable, Iterable, Sequence

import numpy as np

__all__ = ["NUMBER", "parse_floats", "strip", "isin", "first_positions", "duplicated", "joined", "text_array"]

#: A number as pandas' ``to_numeric`` reads one (ASCII digits only; no ``_`` separators, no ``nan``).
NUMBER = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?)")


def text_array(values: Iterable[str]) -> np.ndarray:
    """An object array of the strings (a list of strings is never turned into a fixed-width ``<U`` array)."""
    items = values if isinstance(values, Sequence) else list(values)
    out = np.empty(len(items), dtype=object)
    out[:] = items
    return out


def strip(values: np.ndarray) -> np.ndarray:
    """Each string without its surrounding white space (``str.strip``), as a new object array."""
    return text_array([v.strip() for v in values.tolist()])


def parse_floats(values: np.ndarray | Sequence[str]) -> np.ndarray:
    """float64 of each text (white space around it ignored), NaN where it is not a number (module docstring)."""
    texts = values.tolist() if isinstance(values, np.ndarray) else list(values)
    out = np.full(len(texts), np.nan)
    match = NUMBER.fullmatch
    for i, text in enumerate(texts):
        if isinstance(text, str):
            text = text.strip()
            if match(text) is not None:
                out[i] = float(text)
    return out


def isin(values: np.ndarray, collection: Collection[object]) -> np.ndarray:
    """A bool array: whether each value is in ``collection`` (a set or frozenset for speed)."""
    return np.fromiter((v in collection for v in values.tolist()), dtype=bool, count=len(values))


def first_positions(values: np.ndarray | Sequence[Hashable]) -> np.ndarray:
    """For each value (a string, a tuple of a row's strings), the position of its first occurrence (int64)."""
    items = values.tolist() if isinstance(values, np.ndarray) else values
    first: dict[Hashable, int] = {}
    return np.fromiter((first.setdefault(v, i) for i, v in enumerate(items)), dtype=np.int64, count=len(items))


def duplicated(values: np.ndarray | Sequence[Hashable]) -> np.ndarray:
    """A bool array: whether each value occurred before (the first occurrence is not duplicated)."""
    return first_positions(values) != np.arange(len(values))


def joined(columns: Sequence[np.ndarray], sep: str = ":") -> np.ndarray:
    """The strings of several columns joined row by row with ``sep`` (one column: that column)."""
    if len(columns) == 1:
        return columns[0]
    return text_array([sep.join(parts) for parts in zip(*(c.tolist() for c in columns), strict=True)])
