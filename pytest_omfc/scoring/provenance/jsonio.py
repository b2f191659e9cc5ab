"""Bounded, strict JSON reading for journals and system graphs.

Why: a provenance JSON comes from a performer (or a hand-edited journal); a
multi-GB file or a duplicated key must become a per-trial reason, never an
out-of-memory kill or a silently overwritten value. Only the stdlib ``json``
module is used, with ``object_pairs_hook`` refusing duplicate keys.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

__all__ = ["MAX_JSON_BYTES", "JsonReadError", "read_json"]

#: Files larger than this are not read (64 MiB): far above any real graph.
MAX_JSON_BYTES = 64 * 1024 * 1024


class JsonReadError(Exception):
    """A JSON file cannot be used; the message names the file and the reason."""


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """Build a dict, refusing a key given twice (json would keep the last).

    ``dict(pairs)`` in C and a length comparison; the Python loop runs only to
    name the key of an object that has a duplicate (it is called per object).
    """
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise JsonReadError(f"duplicate key {key!r}")
            seen.add(key)
    return out


def read_json(path: Path, max_bytes: int = MAX_JSON_BYTES) -> Any:
    """Parse ``path`` after checking its size; raise :class:`JsonReadError` on any problem."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise JsonReadError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(st.st_mode):
        raise JsonReadError(f"{path}: is not a regular file")
    size = st.st_size
    if size > max_bytes:
        raise JsonReadError(
            f"{path}: is {size} bytes, over the {max_bytes}-byte limit; not read"
        )
    try:
        with path.open("rb") as fh:
            raw = fh.read(max_bytes + 1)
    except OSError as exc:
        raise JsonReadError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if len(raw) > max_bytes:
        raise JsonReadError(
            f"{path}: grew over the {max_bytes}-byte limit while read; not read"
        )
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise JsonReadError(f"{path}: is not UTF-8 (byte {exc.start})") from None
    try:
        return _DECODER.decode(text)
    except JsonReadError as exc:
        raise JsonReadError(f"{path}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise JsonReadError(
            f"{path}:{exc.lineno}: malformed JSON ({exc.msg})"
        ) from None
    except RecursionError:
        raise JsonReadError(f"{path}: nested too deeply") from None
    except ValueError as exc:  # e.g. an integer past Python's 4300-digit conversion limit
        raise JsonReadError(f"{path}: malformed JSON ({exc})") from None


def _refuse_constant(name: str) -> Any:
    """NaN/Infinity are not JSON; a score of NaN would poison every mean."""
    raise JsonReadError(f"non-standard constant {name}")


#: One decoder for every file (``json.loads`` with hooks builds a new one per call).
_DECODER = json.JSONDecoder(object_pairs_hook=_no_duplicates, parse_constant=_refuse_constant)
