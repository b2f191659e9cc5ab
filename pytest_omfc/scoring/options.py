"""Parsing scorer option values: the helpers every family's ``options.py`` builds its parsers from.

A parser turns the text given on the command line, in an ini file or to ``omfc_score()`` into the value
the engine gets, and raises ``ValueError("must be ... (got ...)")`` out of bounds; the pytest layer
prefixes the flag and makes it a usage error (exit 4).  Light: no numpy or pandas.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["bounded", "flag", "integer", "one_of"]


def bounded(conv: Callable[[Any], Any], ok: Callable[[Any], bool], must: str) -> Callable[[Any], Any]:
    """A :attr:`ScorerOption.parse`: ``conv(text)`` when ``ok``, else ``ValueError("must be <must> (got x)")``.

    An integer out of range reads as a number in the message, anything else as its repr.
    """

    def parse(value: Any) -> Any:
        try:
            out = conv(value)
        except (TypeError, ValueError):
            out = None
        if out is None or not ok(out):
            shown = out if isinstance(out, int) and not isinstance(out, bool) else repr(value)
            raise ValueError(f"must be {must} (got {shown})")
        return out

    return parse


def integer(value: Any) -> int:
    """An integer option's text (surrounding blanks allowed, as ``int`` does)."""
    return int(str(value).strip())


def flag(value: Any) -> bool:
    """A store_true option or its ini value (pytest already parsed the ini ``bool``)."""
    return bool(value)


def one_of(choices: Sequence[str]) -> Callable[[Any], str]:
    """A choice among ``choices``, case and surrounding blanks ignored."""
    return bounded(lambda v: str(v).strip().lower(), lambda v: v in choices, "one of " + ", ".join(choices))
