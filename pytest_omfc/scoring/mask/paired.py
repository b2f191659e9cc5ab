"""Mask results trial by trial (docs/scoring/comparison.md): each headline average (MCC, NMM, BWL1, GWL1, F1,
IoU, AUC, EER at the Optimum, Maximum or Actual threshold, and the splice sides' p/d ones) is the mean of its
per-image column over the images scored, so it is compared by a paired bootstrap of those per-image values.
Each run keeps its own threshold (its Optimum is chosen on all its images and held for the draws)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..paired import TrialData, mean_trials

__all__ = ["mask_trials"]


def _key(row: Mapping[str, Any]) -> str:
    donor = row.get("DonorFileID")
    return str(row.get("ProbeFileID")) + (f"|{donor}" if donor is not None else "")


def mask_trials(entry: Mapping[str, Any], options: Mapping[str, Any]) -> TrialData | None:
    """The images of a mask entry (``per_probe``); None when it has none."""
    averages = {name: name for name in entry.get("metrics") or {} if not name.endswith("Threshold")}
    return mean_trials(entry.get("per_probe"), _key, averages, lambda row: row.get("Scored") == "Y")
