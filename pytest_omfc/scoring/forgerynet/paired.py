"""ForgeryNet spatial results image by image (docs/scoring/comparison.md): a ``<metric>_per_image`` value is
the mean of the images' values, a ``<metric>_pooled`` one their mean weighted by each image's pixels; both are
compared by a paired bootstrap of the images."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..paired import MeanOf, TrialData

__all__ = ["spatial_trials"]


def spatial_trials(entry: Mapping[str, Any], options: Mapping[str, Any]) -> TrialData | None:
    """The images of a spatial entry (``per_image``: ID, pixels and each metric); None when it has none."""
    rows = entry.get("per_image")
    if not isinstance(rows, list) or not rows or not all(isinstance(r, Mapping) for r in rows):
        return None
    keys = [str(r.get("ID")) for r in rows]
    pixels = np.array([float(r["pixels"]) for r in rows])
    if not (np.isfinite(pixels).all() and (pixels > 0).all()):
        raise ValueError("per_image: pixels must be positive numbers")
    measures: dict[str, Any] = {}
    for name in entry.get("metrics") or {}:
        metric, _, kind = name.rpartition("_")
        if kind not in ("image", "pooled") or metric.removesuffix("_per") not in rows[0]:
            continue
        column = metric.removesuffix("_per")
        values = np.array([np.nan if r.get(column) is None else float(r[column]) for r in rows], dtype=float)
        measures[name] = MeanOf(values, weights=pixels if kind == "pooled" else None)
    return TrialData(keys, measures)
