"""Localization (mask) scoring engine: MediScore's MaskScorer for one trial, and its aggregates.

Pure numpy/pandas/Pillow (no pytest, no OpenCV, no scipy).  Section
numbers refer to METRICS.md section 2.

* :mod:`.morphology`: ``kernel(shape, size)``, ``erode``, ``dilate`` (2.4).
* :mod:`.engine`: ``colour_reference`` and ``bitplane_reference`` (2.3), ``no_score_weights`` (2.4),
  ``sweep`` (2.5), ``score_mask`` -> ``MaskScore`` (2.6-2.8).
* :mod:`.aggregate`: ``maximum``, ``pixel_average_auc``, ``mask_average_auc`` (2.7).
* :mod:`.io`: ``read_system_mask``, ``read_colour_reference``, ``read_bitplanes`` (2.2), failures as
  ``MaskReadError`` (the per-trial reason).
* :mod:`.journal`: ``load_journal`` -> ``Journal`` (2.1 step 4, -qm Evaluated bookkeeping, 2.3 selection).
* :mod:`.run`: ``score_masks`` -> ``MaskReport`` (2.1-2.10 end to end; ``MaskOptions``, ``MaskRun``,
  ``MaskResult``).
"""

from __future__ import annotations

from .aggregate import (
    MaximumResult,
    mask_average_auc,
    maximum,
    pixel_average_auc,
    union_rows,
)
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
from .io import MaskReadError, read_bitplanes, read_colour_reference, read_system_mask
from .journal import Journal, load_journal
from .morphology import KERNEL_SHAPES, KernelShape, dilate, erode, kernel
from .run import MaskOptions, MaskReport, MaskResult, MaskRun, score_masks

__all__ = [
    "KERNEL_SHAPES",
    "WHITE",
    "Journal",
    "KernelShape",
    "MaskOptions",
    "MaskReadError",
    "MaskReport",
    "MaskResult",
    "MaskRun",
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
    "load_journal",
    "mask_average_auc",
    "maximum",
    "no_score_weights",
    "pixel_average_auc",
    "read_bitplanes",
    "read_colour_reference",
    "read_system_mask",
    "score_mask",
    "score_masks",
    "sweep",
    "union_rows",
]
