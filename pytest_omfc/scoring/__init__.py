"""Scoring engines of pytest-omfc (pure Python; no pytest imports).

Detection: :func:`score_detection` scores one submission and returns a
:class:`DetectionReport`; see :mod:`pytest_omfc.scoring.detection` for the API,
the result shape and the MediScore-vs-plan conventions.
"""

from __future__ import annotations

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
