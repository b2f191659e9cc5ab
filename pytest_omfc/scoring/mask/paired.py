"""Mask results trial by trial (docs/scoring/comparison.md): each headline average (MCC, NMM, BWL1, GWL1, F1,
IoU, AUC, EER at the Optimum, Maximum or Actual threshold, and the splice sides' p/d ones) is the mean of its
per-image column over the images scored, so it is compared by a paired bootstrap of those per-image values.
Each run keeps its own threshold (its Optimum is chosen on all its images and held for the draws)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..paired import MeanOf, TrialData

__all__ = ["mask_trials"]


def _key(row: Mapping[str, Any]) -> str:
    donor = row.get("DonorFileID")
    return str(row.get("ProbeFileID")) + (f"|{donor}" if donor is not None else "")


def mask_trials(entry: Mapping[str, Any], options: Mapping[str, Any]) -> TrialData | None:
    """The images of a mask entry (``per_probe``); None when it has none."""
    rows = entry.get("per_probe")
    metrics = entry.get("metrics") or {}
    if not isinstance(rows, list) or not rows or not all(isinstance(r, Mapping) for r in rows):
        return None
    keys = [_key(r) for r in rows]
    scored = np.array([r.get("Scored") == "Y" for r in rows])
    measures: dict[str, Any] = {}
    for name in metrics:
        if name.endswith("Threshold") or name not in rows[0]:
            continue
        values = np.array([np.nan if r.get(name) is None else float(r[name]) for r in rows], dtype=float)
        values[~np.isfinite(values)] = np.nan
        values[~scored] = np.nan
        if np.isfinite(values).any():
            measures[name] = MeanOf(values)
    return TrialData(keys, measures)
