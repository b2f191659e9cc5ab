"""The ForgeryNet scorers' options, declared once.  Light: read at plugin load."""

from __future__ import annotations

import math
from typing import Any

from ...options import Option, bounded

__all__ = ["MAX_MAP_PIXELS", "THRESHOLD", "too_many_pixels"]


def _threshold(value: Any) -> float:
    return float(str(value).strip())


#: The most pixels of one map a rule lets through and the scorer decodes: the mask scorer's bound
#: (scoring/mask/io.py MAX_PIXELS, which imports Pillow; tests/scoring/forgerynet/test_forgerynet_official_files.py
#: keeps the two equal).
MAX_MAP_PIXELS = 160_000_000


def too_many_pixels(width: int, height: int) -> str | None:
    """Why a map of this size is not decoded ("must ... (got ...)"), or None: one message for the FNET rules'
    header pass and the scorer, which refuse the same maps."""
    if width * height <= MAX_MAP_PIXELS:
        return None
    return f"must be at most {MAX_MAP_PIXELS:,} pixels, as every mask the scorers decode (got {width}x{height})"


THRESHOLD = Option(
    "--omfc-threshold",
    "omfc_threshold",
    {
        "metavar": "T",
        "help": "ForgeryNet classification: fake iff Score (or P1+...+P<k-1>) >= T, a number in [0, 1] (default 0.5)",
    },
    "",
    0.5,
    bounded(_threshold, lambda v: math.isfinite(v) and 0.0 <= v <= 1.0, "a number in [0, 1]"),
    "threshold",
)
