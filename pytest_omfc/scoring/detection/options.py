"""The detection scorer's options (docs/scoring/detection.md), declared once.  Light: read at plugin load."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...options import Option, bounded, flag, integer

__all__ = ["DEFAULT_FAR_STOP", "DETECTION_OPTIONS", "MAX_CI_ITERATIONS", "far_stop"]

#: The FAR stop of AUC@FAR and CDR@FAR when none is given: MediScore's 0.1, the plans' 0.05
# (docs/scoring/detection.md#cdr-at-far).
DEFAULT_FAR_STOP: dict[str, float] = {"mediscore": 0.1, "plan": 0.05}

#: Highest ``--omfc-ci-iterations``: 20 times MediScore's fixed 500 (about 5 s on 16,000 trials; the
#: time is linear in it, so an unbounded value never finishes).
MAX_CI_ITERATIONS = 10_000


DETECTION_OPTIONS: tuple[Option, ...] = (
    Option(
        "--omfc-far-stop",
        "omfc_far_stop",
        {
            "metavar": "FAR",
            "help": "FAR of AUC@FAR and CDR@FAR, in [0, 1] (default: MediScore's 0.1; plan convention 0.05)",
        },
        "--farStop",
        None,
        bounded(float, lambda v: 0.0 <= v <= 1.0, "a number in [0, 1]"),
    ),
    Option(
        "--omfc-ci",
        "omfc_ci",
        {
            "action": "store_true",
            "help": "bootstrap confidence intervals of AUC, AUC@FAR and CDR@FAR (MediScore's deterministic bootstrap)",
        },
        "--ci",
        False,
        flag,
    ),
    Option(
        "--omfc-ci-level",
        "omfc_ci_level",
        {"metavar": "LEVEL", "help": "confidence level of the intervals, strictly between 0 and 1 (default 0.9)"},
        "--ciLevel",
        0.9,
        bounded(float, lambda v: 0.0 < v < 1.0, "a number strictly between 0 and 1"),
    ),
    Option(
        "--omfc-ci-iterations",
        "omfc_ci_iterations",
        {"metavar": "N", "help": "bootstrap resamples, 1 to 10000 (default 500, fixed in MediScore)"},
        "(500, fixed)",
        500,
        bounded(integer, lambda v: 1 <= v <= MAX_CI_ITERATIONS, f"an integer from 1 to {MAX_CI_ITERATIONS}"),
    ),
    Option(
        "--omfc-seed",
        "omfc_seed",
        {
            "metavar": "SEED",
            "help": "bootstrap seed of numpy.random.RandomState, 0 to 4294967295 (default 77, which reproduces "
            "MediScore)",
        },
        "(77, fixed)",
        77,
        bounded(integer, lambda v: 0 <= v < 2**32, f"an integer from 0 to {2**32 - 1}"),
    ),
)


def far_stop(opts: Mapping[str, Any], convention: str) -> float:
    """The FAR stop in use: ``--omfc-far-stop``, else the convention's default."""
    far = opts.get("far_stop")
    return float(far) if far is not None else DEFAULT_FAR_STOP[convention]
