"""Video temporal localization scoring (docs/scoring/temporal.md#definition): MediScore's
VideoTemporalLocalizationScoring.

* :mod:`.engine`: ``parse_segments``, ``confusion_counts``, ``score_temporal`` -> ``TemporalReport``;
* :mod:`.options`: the family's options, declared once;
* :mod:`.adapter`: from a :class:`~pytest_omfc.scoring.registry.ScoringInput` to results, and the
  registration (imported by :mod:`pytest_omfc.scoring.families`).
"""

from __future__ import annotations

from ...lazy import lazy_exports

#: Public name -> the module of this family that defines it (imported on first use).
_EXPORTS: dict[str, str] = dict.fromkeys(
    (
        "MAX_SEGMENTS",
        "SegmentError",
        "TemporalReport",
        "TemporalResult",
        "TemporalTrial",
        "confusion_counts",
        "interval_union",
        "mcc",
        "parse_segments",
        "score_temporal",
    ),
    "engine",
)

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
