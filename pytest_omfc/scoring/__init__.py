"""Scoring engines of pytest-omfc (pure Python; no pytest imports).

Detection: :func:`score_detection` scores one submission and returns a
:class:`DetectionReport`; see :mod:`pytest_omfc.scoring.detection.engine` for the API,
the result shape and the MediScore-vs-plan conventions.

Each scorer family is a folder (:mod:`.detection`, :mod:`.mask`, :mod:`.provenance`, :mod:`.temporal`,
:mod:`.forgerynet`) with its engine modules, ``options.py`` and ``adapter.py``; :mod:`.families` registers
them in order into :mod:`.registry`.  Shared: :mod:`.merge` (reading and joining the tables, queries),
:mod:`.options` (option parsing), :mod:`.conventions`; the errors are :mod:`pytest_omfc.errors`, the worker
processes :mod:`pytest_omfc.work`.

The names below are imported on first use (PEP 562): the plugin reads the scorer registry at load time
in every pytest run, and importing this package must not import numpy or pandas then.
"""

from __future__ import annotations

from ..lazy import lazy_exports

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
}

__all__ = sorted(_LAZY)
__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
