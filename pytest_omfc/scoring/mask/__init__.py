"""Localization (mask) scoring engine: MediScore's MaskScorer for one trial, and its aggregates.

Pure numpy/pandas/Pillow (no pytest, no OpenCV, no scipy).  Section
numbers refer to docs/scoring/masks.md

* :mod:`.morphology`: ``kernel(shape, size)``, ``erode``, ``dilate`` (docs/scoring/masks.md#no-score-zones).
* :mod:`.engine`: ``colour_reference`` and ``bitplane_reference`` (docs/scoring/masks.md#ground-truth),
``no_score_weights`` (docs/scoring/masks.md#no-score-zones),
  ``sweep`` (docs/scoring/masks.md#threshold-sweep), ``score_mask`` -> ``MaskScore``
  (docs/scoring/masks.md#metrics-at-one-threshold to special-cases).
* :mod:`.aggregate`: ``maximum``, ``pixel_average_auc``, ``mask_average_auc``
(docs/scoring/masks.md#optimum-maximum-and-actual).
* :mod:`.io`: ``read_system_mask``, ``read_colour_reference``, ``read_bitplanes``
(docs/scoring/masks.md#reading-masks), failures as
  ``MaskReadError`` (the per-trial reason).
* :mod:`.journal`: ``load_journal`` -> ``Journal`` (2.1 step 4, -qm Evaluated bookkeeping, 2.3 selection).
* :mod:`.run`: ``score_masks`` -> ``MaskReport`` (2.1-2.10 end to end; ``MaskOptions``, ``MaskRun``,
  ``MaskResult``).
"""

from __future__ import annotations

from ...lazy import lazy_exports

#: Public name -> the module of this family that defines it (imported on first use).
_EXPORTS: dict[str, str] = {
    "MaximumResult": "aggregate",
    "mask_average_auc": "aggregate",
    "maximum": "aggregate",
    "pixel_average_auc": "aggregate",
    "union_rows": "aggregate",
    "MaskScore": "engine",
    "Reference": "engine",
    "ThresholdMetrics": "engine",
    "ThresholdTable": "engine",
    "WHITE": "engine",
    "Kernels": "engine",
    "Weights": "engine",
    "aggregate_colour": "engine",
    "auc_eer": "engine",
    "bitplane_reference": "engine",
    "colour_reference": "engine",
    "no_score_weights": "engine",
    "score_mask": "engine",
    "sweep": "engine",
    "MAX_PIXELS": "io",
    "MaskReadError": "io",
    "read_bitplanes": "io",
    "read_colour_reference": "io",
    "read_system_mask": "io",
    "Journal": "journal",
    "load_journal": "journal",
    "KERNEL_SHAPES": "morphology",
    "KernelShape": "morphology",
    "dilate": "morphology",
    "erode": "morphology",
    "kernel": "morphology",
    "MaskOptions": "run",
    "MaskReport": "run",
    "MaskResult": "run",
    "MaskRun": "run",
    "score_masks": "run",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
