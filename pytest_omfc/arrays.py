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

import collections
import functools
import itertools
import re
from collections.abc import Collection, Hashable, Iterable, Iterator, Sequence
from typing import Any

import numpy as np

__all__ = ["NUMBER", "Rows", "parse_floats", "strip", "isin", "first_positions", "duplicated", "joined", "text_array"]

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


@functools.lru_cache(maxsize=64)
def _row_type(names: tuple[str, ...]) -> type[tuple[Any, ...]]:
    """One named-tuple class per column set (made once: a class costs far more than a row)."""
    return collections.namedtuple("Row", names)


class Rows:
    """Rows of equal-length columns, with the position of each in the rows it was selected from first (``index``):
    the few frame operations the mask rules need (select, take, the first of each value, iterate as named
    tuples), without pandas.  A selection shares nothing it could change: the columns are never written to."""

    __slots__ = ("columns", "index")

    def __init__(self, columns: dict[str, np.ndarray], index: np.ndarray | None = None) -> None:
        self.columns = columns
        n = len(next(iter(columns.values()))) if columns else 0
        self.index = np.arange(n) if index is None else index

    def __len__(self) -> int:
        return len(self.index)

    @property
    def empty(self) -> bool:
        return len(self.index) == 0

    def __getitem__(self, name: str) -> np.ndarray:
        return self.columns[name]

    def keep(self, mask: np.ndarray) -> Rows:
        """The rows where ``mask`` is true (these rows themselves when it is true everywhere)."""
        if mask.all():
            return self
        return Rows({name: values[mask] for name, values in self.columns.items()}, self.index[mask])

    def take(self, positions: np.ndarray) -> Rows:
        """The rows at ``positions`` (0-based, in this selection)."""
        return Rows({name: values[positions] for name, values in self.columns.items()}, self.index[positions])

    def first_of(self, name: str) -> Rows:
        """The first row of each value of column ``name``."""
        return self.keep(~duplicated(self.columns[name]))

    def tuples(self) -> Iterator[Any]:
        """Each row as a named tuple of plain Python values (``row.name``, ``row.pos``)."""
        if self.empty:
            return iter(())
        make = _row_type(tuple(self.columns))
        return itertools.starmap(make, zip(*(values.tolist() for values in self.columns.values()), strict=True))
