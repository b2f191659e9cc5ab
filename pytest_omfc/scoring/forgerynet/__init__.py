"""ForgeryNet metric engines (METRICS.md section 5): pure numpy, no pytest, no scikit-learn.

* :mod:`.classification`: image/video classification, 2-way (``Acc``, ``AUC``) and k-way
  (``Acc``, ``mAP``, ``AUC``, ``Acc_binary``);
* :mod:`.spatial`: spatial localization maps (``IoU@t``, ``IoU_agree@t``, ``IoU_diff@t``, ``L1``,
  each ``_per_image`` and ``_pooled``), streaming;
* :mod:`.temporal`: temporal localization (ActivityNet ``AP@t``, ``AP_avg``, ``AR@K``).

Each module's docstring states its conventions (ties, thresholds, undefined cases) for the README.
"""

from __future__ import annotations

from .classification import ClassificationReport, score_binary, score_multiclass
from .spatial import SpatialAccumulator, SpatialReport, score_spatial
from .temporal import TemporalReport, keep_top_k, score_temporal

__all__ = [
    "ClassificationReport",
    "SpatialAccumulator",
    "SpatialReport",
    "TemporalReport",
    "keep_top_k",
    "score_binary",
    "score_multiclass",
    "score_spatial",
    "score_temporal",
]
