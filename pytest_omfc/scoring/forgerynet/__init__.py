"""ForgeryNet metric engines (docs/scoring/forgerynet.md): pure numpy, no pytest, no scikit-learn.

* :mod:`.classification`: image/video classification, 2-way (``Acc``, ``AUC``) and k-way
  (``Acc``, ``mAP``, ``AUC``, ``Acc_binary``);
* :mod:`.spatial`: spatial localization maps (``IoU@t``, ``IoU_agree@t``, ``IoU_diff@t``, ``L1``,
  each ``_per_image`` and ``_pooled``), streaming;
* :mod:`.temporal`: temporal localization (ActivityNet ``AP@t``, ``AP_avg``, ``AR@K``).

Each module's docstring states its conventions (ties, thresholds, undefined cases) for docs/scoring/forgerynet.md.
"""

from __future__ import annotations

from ...lazy import lazy_exports

#: Public name -> the module of this family that defines it (imported on first use).
_EXPORTS: dict[str, str] = {
    "ClassificationReport": "classification",
    "score_binary": "classification",
    "score_multiclass": "classification",
    "SpatialAccumulator": "spatial",
    "SpatialReport": "spatial",
    "score_spatial": "spatial",
    "TemporalReport": "temporal",
    "keep_top_k": "temporal",
    "score_temporal": "temporal",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
