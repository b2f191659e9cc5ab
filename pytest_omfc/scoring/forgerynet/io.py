"""Reading ForgeryNet JSON files (ActivityNet results and ground truth) without ever raising.

Why: a result file comes from a participant; a multi-GB file, a duplicated key (json keeps the
last one silently) or a FIFO must become a failing rule naming the file, never an out-of-memory
kill, a hang or a traceback.  It is :mod:`pytest_omfc.jsonio`'s reader, returning ``(value, None)`` or
``(None, why)``.  ``NaN``/``Infinity`` are parsed
as floats so the rule on scores (FNET-11) can name the value and its JSON path.  Pipe-separated
files are read with :func:`pytest_omfc.csvio.read_psv`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...jsonio import JsonProblem, load_json

__all__ = ["JSON_BYTES_MARGIN", "JSON_BYTES_PER_VIDEO", "json_limit", "read_json"]

#: A result file may hold this much per reference video (a prediction is ~60 bytes: 1000 of them),
JSON_BYTES_PER_VIDEO = 64 * 1024
#: ... plus this margin; a reference is bounded by :data:`NO_REFERENCE_BYTES`.
JSON_BYTES_MARGIN = 1 << 20
NO_REFERENCE_BYTES = 256 << 20


def json_limit(videos: int | None) -> int:
    """The largest result file a reference of ``videos`` videos justifies (None: no usable reference)."""
    return NO_REFERENCE_BYTES if videos is None else JSON_BYTES_PER_VIDEO * videos + JSON_BYTES_MARGIN


def read_json(path: Path, max_bytes: int = NO_REFERENCE_BYTES) -> tuple[Any, str | None]:
    """``(document, None)``, or ``(None, why)`` with ``why`` a predicate such as "must be valid JSON (...)".

    The strict reader the PROV rules use (:func:`pytest_omfc.jsonio.load_json`), with NaN/Infinity kept."""
    try:
        return load_json(path, max_bytes, what="JSON file", allow_nan=True), None
    except JsonProblem as exc:
        return None, "does not exist" if exc.missing else exc.why
