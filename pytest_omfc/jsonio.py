"""Strict, bounded reading of one JSON file, shared by the PROV rules and the provenance scorer.

Why one reader: a provenance JSON comes from a performer (or a hand-edited
journal), and the validator (PROV-02) and the scorer must agree on what is
readable.  A multi-GB file, a FIFO, bytes that are not UTF-8, NaN/Infinity, a
key given twice in one object (Python's json keeps the last value silently;
RFC 8259 §4 says names "SHOULD be unique", so readers disagree), nesting past
the recursion limit or a number past Python's digit limit all become a
:class:`JsonProblem` whose text reads "must ... (got ...)"; nothing else is raised.
The file is never opened unless it is a regular file, and never read past
``max_bytes + 1`` bytes.
"""

from __future__ import annotations

import json
import math
import os
import stat
import sys
from pathlib import Path
from typing import Any

from .findings import shorten
from .paths import mode_kind

__all__ = ["MAX_JSON_BYTES", "JsonProblem", "load_json"]

#: Files larger than this are not read (64 MiB): far above any real graph.
MAX_JSON_BYTES = 64 * 2**20


class JsonProblem(Exception):
    """Why a JSON file cannot be used, in "must ... (got ...)" form; ``missing`` when there is no such file."""

    def __init__(self, why: str, missing: bool = False) -> None:
        super().__init__(why)
        self.why = why
        self.missing = missing


class _NonStandard(ValueError):
    """NaN or Infinity: accepted by Python's json module, but not JSON."""


class _DuplicateKey(ValueError):
    """A key repeated in one object."""


def _reject_constant(name: str) -> Any:
    raise _NonStandard(name)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``dict(pairs)`` in C and a length comparison (called once per object); the loop only names the key."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return obj


class _Overflow(ValueError):
    """A number no double holds (``1e400``, a 400-digit integer): Python's json gives inf or a big int,
    which the scorers cannot use, so the reader refuses it as the rules' finding (PROV-02)."""


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (math.inf, -math.inf):
        raise _Overflow(text)
    return value


def _bounded_int(text: str) -> int:
    digits = len(text) - (text[0] == "-")
    if digits > 308:  # past 1.8e308 (checked exactly only near the edge)
        if digits > 309 or abs(int(text)) > _MAX_DOUBLE_INT:
            raise _Overflow(text)
    return int(text)


_MAX_DOUBLE_INT = int(sys.float_info.max)

#: One decoder for every file (``json.loads`` with hooks builds a new one per call); the second keeps
#: NaN/Infinity as floats, for readers whose own rule names such a value where it stands (FNET-11).
_DECODER = json.JSONDecoder(
    object_pairs_hook=_unique_keys, parse_constant=_reject_constant, parse_float=_finite_float, parse_int=_bounded_int
)
_DECODER_NAN = json.JSONDecoder(object_pairs_hook=_unique_keys)


def _mb(n: int) -> str:
    return f"{n / 2**20:g} MB" if n % 2**20 == 0 else f"{n / 2**20:.1f} MB"


def load_json(
    path: Path, max_bytes: int = MAX_JSON_BYTES, *, what: str = "provenance JSON", allow_nan: bool = False
) -> Any:
    """The parsed document of ``path``; raise :class:`JsonProblem` on any problem (never blocks on a FIFO).

    ``what`` names the file in the size message; ``allow_nan`` parses NaN/Infinity as floats."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise JsonProblem("must name an existing JSON file (got no such file)", missing=True) from None
    except (OSError, ValueError) as exc:
        raise JsonProblem(f"must be a readable file (got {getattr(exc, 'strerror', None) or exc})") from None
    if not stat.S_ISREG(st.st_mode):
        raise JsonProblem(f"must name a regular JSON file (got {mode_kind(st.st_mode)})")
    if st.st_size > max_bytes:
        raise JsonProblem(f"must be a {what} of at most {_mb(max_bytes)} (got {st.st_size / 2**20:.1f} MB)")
    try:
        with open(path, "rb") as fh:
            # the size stat gave, and one byte more to see growth: read(max_bytes + 1) would allocate
            # max_bytes (64 MiB) for every file before shrinking to what it read
            raw = fh.read(st.st_size + 1)
            if len(raw) > st.st_size:  # it grew since the stat: up to the limit, as before
                raw += fh.read(max_bytes + 1 - len(raw))
    except (OSError, ValueError) as exc:
        raise JsonProblem(f"must be a readable file (got {getattr(exc, 'strerror', None) or exc})") from None
    if len(raw) > max_bytes:
        raise JsonProblem(f"must be a {what} of at most {_mb(max_bytes)} (got a file that grew past it)")
    if not raw.strip():
        raise JsonProblem("must hold a JSON object (got an empty file)")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise JsonProblem(f"must be UTF-8 JSON text (got byte 0x{raw[exc.start]:02x} at offset {exc.start})") from None
    try:
        return (_DECODER_NAN if allow_nan else _DECODER).decode(text)
    except json.JSONDecodeError as exc:
        raise JsonProblem(f"must be valid JSON (got {exc.msg} at line {exc.lineno} column {exc.colno})") from None
    except _NonStandard as exc:
        raise JsonProblem(f"must be valid JSON (got the non-standard constant {exc})") from None
    except _Overflow as exc:
        raise JsonProblem(
            f"must be valid JSON with numbers a double can hold (got {shorten(exc.args[0], 40)}, which overflows)"
        ) from None
    except _DuplicateKey as exc:
        raise JsonProblem(
            f"must be valid JSON with unique keys in each object (got the key {shorten(exc.args[0], 40)!r} twice)"
        ) from None
    except RecursionError:
        raise JsonProblem("must be valid JSON (got nesting too deep to parse)") from None
    except ValueError as exc:  # e.g. an integer beyond Python's digit limit
        raise JsonProblem(f"must be valid JSON (got {shorten(exc, 80)})") from None
