"""Scoring engines of pytest-omfc (pure Python; no pytest imports).

Detection: :func:`score_detection` scores one submission and returns a
:class:`DetectionReport`; see :mod:`pytest_omfc.scoring.detection` for the API,
the result shape and the MediScore-vs-plan conventions.

The names below are imported on first use (PEP 562): the plugin reads the
scorer registry (:mod:`.registry`, :mod:`.scorers`) at load time in every
pytest run, and importing this package must not import numpy or pandas then.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .detection import (
        CONVENTION_DIFFERENCES,
        METRIC_COLUMNS,
        DetectionReport,
        DetectionResult,
        RocCurve,
        convention_table,
        roc_curve,
        score_detection,
        score_trials,
    )
    from .merge import TASK_KEYS, JournalTables, ScoringError, find_journal_tables, merge_trials
    from .plots import write_det_plot, write_plots, write_roc_plot

#: Public name -> the submodule that defines it.
_LAZY: dict[str, str] = {
    **dict.fromkeys(
        (
            "CONVENTION_DIFFERENCES",
            "METRIC_COLUMNS",
            "DetectionReport",
            "DetectionResult",
            "RocCurve",
            "convention_table",
            "roc_curve",
            "score_detection",
            "score_trials",
        ),
        "detection",
    ),
    **dict.fromkeys(("TASK_KEYS", "JournalTables", "ScoringError", "find_journal_tables", "merge_trials"), "merge"),
    **dict.fromkeys(("write_det_plot", "write_plots", "write_roc_plot"), "plots"),
}

__all__ = [
    "CONVENTION_DIFFERENCES",
    "METRIC_COLUMNS",
    "TASK_KEYS",
    "DetectionReport",
    "DetectionResult",
    "JournalTables",
    "RocCurve",
    "ScoringError",
    "convention_table",
    "find_journal_tables",
    "merge_trials",
    "roc_curve",
    "score_detection",
    "score_trials",
    "write_det_plot",
    "write_plots",
    "write_roc_plot",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
