"""Backward-compatible facade: scoring's pytest layer is :mod:`pytest_omfc.pytest_glue.scoring`.

``_OPTIONS`` and ``MEDISCORE_FLAGS`` are computed from the scorer registry
(:mod:`pytest_omfc.scoring.registry`): the common scoring options, then each
registered scorer's.
"""

from __future__ import annotations

from typing import Any

from .pytest_glue import scoring as _glue
from .pytest_glue.scoring import (
    ScoreItem,
    ScoringReporter,
    ScoringSettings,
    add_options,
    configure,
    outcomes_for,
    score_items,
)
from .scoring.registry import NotScored
from .scoring.scorers import DETECTION_TASKS, MAX_CI_ITERATIONS

__all__ = [
    "DETECTION_TASKS", "MAX_CI_ITERATIONS", "NotScored", "ScoreItem", "ScoringReporter", "ScoringSettings",
    "add_options", "configure", "outcomes_for", "score_items",
]  # fmt: skip


def __getattr__(name: str) -> Any:
    if name in ("_OPTIONS", "MEDISCORE_FLAGS"):
        return getattr(_glue, name)
    raise AttributeError(name)
