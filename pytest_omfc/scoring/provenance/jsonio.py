"""Bounded, strict JSON reading for journals and system graphs: the scorer's face of :mod:`pytest_omfc.jsonio`.

Why: a provenance JSON comes from a performer (or a hand-edited journal); a
multi-GB file or a duplicated key must become a per-trial reason, never an
out-of-memory kill or a silently overwritten value.  The reading itself is the
one the PROV rules use (:func:`pytest_omfc.jsonio.load_json`), so the validator
and the scorer agree on what is readable; here the reason is prefixed with the
file's path, as the scorer's per-trial reasons are.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pytest_omfc.jsonio import MAX_JSON_BYTES, JsonProblem, load_json

__all__ = ["MAX_JSON_BYTES", "JsonReadError", "read_json"]


class JsonReadError(Exception):
    """A JSON file cannot be used; the message names the file and the reason."""


def read_json(path: Path, max_bytes: int = MAX_JSON_BYTES) -> Any:
    """Parse ``path``; raise :class:`JsonReadError` ("<path>: must ... (got ...)") on any problem."""
    try:
        return load_json(path, max_bytes)
    except JsonProblem as exc:
        raise JsonReadError(f"{path}: {exc.why}") from None
