"""Reading ForgeryNet JSON files (ActivityNet results and ground truth) without ever raising.

Why: a result file comes from a participant; a multi-GB file, a duplicated key (json keeps the
last one silently) or a FIFO must become a failing rule naming the file, never an out-of-memory
kill, a hang or a traceback.  Like :mod:`pytest_omfc.scoring.provenance.jsonio`, but at the
bottom layer and returning ``(value, None)`` or ``(None, why)``.  ``NaN``/``Infinity`` are parsed
as floats so the rule on scores (FNET-11) can name the value and its JSON path.  Pipe-separated
files are read with :func:`pytest_omfc.csvio.read_psv`.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from .csvio import size_text
from .paths import mode_kind

__all__ = ["JSON_BYTES_MARGIN", "JSON_BYTES_PER_VIDEO", "json_limit", "read_json"]

#: A result file may hold this much per reference video (a prediction is ~60 bytes: 1000 of them),
JSON_BYTES_PER_VIDEO = 64 * 1024
#: ... plus this margin; a reference is bounded by :data:`NO_REFERENCE_BYTES`.
JSON_BYTES_MARGIN = 1 << 20
NO_REFERENCE_BYTES = 256 << 20


def json_limit(videos: int | None) -> int:
    """The largest result file a reference of ``videos`` videos justifies (None: no usable reference)."""
    return NO_REFERENCE_BYTES if videos is None else JSON_BYTES_PER_VIDEO * videos + JSON_BYTES_MARGIN


class _Duplicate(Exception):
    pass


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _Duplicate(key)
        out[key] = value
    return out


def read_json(path: Path, max_bytes: int = NO_REFERENCE_BYTES) -> tuple[Any, str | None]:
    """``(document, None)``, or ``(None, why)`` with ``why`` a predicate such as "is not valid JSON (...)"."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None, "does not exist"
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc})"
    if not stat.S_ISREG(st.st_mode):
        return None, f"must be a regular file (got {mode_kind(st.st_mode)})"
    if st.st_size > max_bytes:
        return None, f"must be at most {size_text(max_bytes)} (got {size_text(st.st_size)}); not read"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(fd, "rb") as fh:
            raw = fh.read(max_bytes + 1)
    except OSError as exc:
        return None, f"cannot be read ({exc.strerror or exc})"
    if len(raw) > max_bytes:
        return None, f"must be at most {size_text(max_bytes)} (it grew while read); not read"
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return None, f"must be UTF-8 text (got byte 0x{raw[exc.start]:02x} at offset {exc.start})"
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates), None
    except _Duplicate as exc:
        return None, f"must not repeat a key (got {str(exc.args[0])[:80]!r} twice in one object)"
    except json.JSONDecodeError as exc:
        return None, f"must be valid JSON (got {exc.msg} at line {exc.lineno}, column {exc.colno})"
    except RecursionError:
        return None, "must not be nested so deeply (it exceeds the parser's depth)"
