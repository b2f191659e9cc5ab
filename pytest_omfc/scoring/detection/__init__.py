"""Detection scoring (docs/scoring/detection.md): MediScore's DetectionScorer, vectorised; no pytest.

* :mod:`.engine`: ``score_detection`` -> ``DetectionReport`` (one submission, every query and task),
  ``score_trials`` -> ``DetectionResult`` (one set of trials), ``roc_curve``, the conventions table;
* :mod:`.curves`: the ROC/DET points from score counts;
* :mod:`.bootstrap`: MediScore's deterministic bootstrap confidence intervals;
* :mod:`.options`: the family's options, declared once;
* :mod:`.adapter`: from a :class:`~pytest_omfc.scoring.registry.ScoringInput` to results, and the
  registration (imported by :mod:`pytest_omfc.scoring.families`).
"""

from __future__ import annotations

from ...lazy import lazy_exports

#: Public name -> the module of this family that defines it (imported on first use).
_EXPORTS: dict[str, str] = dict.fromkeys(
    (
        "CONVENTION_DIFFERENCES",
        "CI_COLUMNS",
        "METRIC_COLUMNS",
        "ConventionDifference",
        "DetectionReport",
        "DetectionResult",
        "RocCurve",
        "convention_table",
        "detection_result",
        "roc_curve",
        "score_detection",
        "score_trials",
    ),
    "engine",
)

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
