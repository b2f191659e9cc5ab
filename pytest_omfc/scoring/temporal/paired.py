"""Temporal localization results trial by trial (docs/scoring/comparison.md): the MCC is the mean of the
per-probe MCCs over the probes scored, compared by a paired bootstrap of those values."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..paired import TrialData, mean_trials

__all__ = ["temporal_trials"]


def temporal_trials(entry: Mapping[str, Any], options: Mapping[str, Any]) -> TrialData | None:
    """The probes of a temporal entry (``per_trial``); None when it has none."""
    return mean_trials(
        entry.get("per_trial"), lambda row: str(row.get("ProbeFileID")), {"MCC": "MCC"},
        lambda row: row.get("status") == "scored",
    )  # fmt: skip
