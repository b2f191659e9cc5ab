"""Localization (mask) scoring engine: MediScore's MaskScorer for one trial, and its aggregates.

Pure numpy (no pytest, no OpenCV, no scipy); the inputs are arrays, reading
PNG/JPEG 2000 files and the journal's colour selection come later.  Section
numbers refer to METRICS.md section 2.

* :mod:`.morphology`: ``kernel(shape, size)``, ``erode``, ``dilate`` (2.4).
* :mod:`.engine`: ``colour_reference`` and ``bitplane_reference`` (2.3), ``no_score_weights`` (2.4),
  ``sweep`` (2.5), ``score_mask`` -> ``MaskScore`` (2.6-2.8).
* :mod:`.aggregate`: ``maximum``, ``pixel_average_auc``, ``mask_average_auc`` (2.7).
"""

from __future__ import annotations

from .aggregate import MaximumResult, mask_average_auc, maximum, pixel_average_auc, union_rows
from .engine import (
    WHITE,
    MaskScore,
    Reference,
    ThresholdMetrics,
    ThresholdTable,
    Weights,
    aggregate_colour,
    auc_eer,
    bitplane_reference,
    colour_reference,
    no_score_weights,
    score_mask,
    sweep,
)
from .morphology import KERNEL_SHAPES, KernelShape, dilate, erode, kernel

__all__ = [
    "KERNEL_SHAPES",
    "WHITE",
    "KernelShape",
    "MaskScore",
    "MaximumResult",
    "Reference",
    "ThresholdMetrics",
    "ThresholdTable",
    "Weights",
    "aggregate_colour",
    "auc_eer",
    "bitplane_reference",
    "colour_reference",
    "dilate",
    "erode",
    "kernel",
    "mask_average_auc",
    "maximum",
    "no_score_weights",
    "pixel_average_auc",
    "score_mask",
    "sweep",
    "union_rows",
]
