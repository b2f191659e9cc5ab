"""The ForgeryNet scorers' options, declared once.  Light: read at plugin load."""

from __future__ import annotations

import math
from typing import Any

from ...options import Option, bounded

__all__ = ["THRESHOLD"]


def _threshold(value: Any) -> float:
    return float(str(value).strip())


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
