"""Provenance results trial by trial (docs/scoring/comparison.md): graph building's MeanSimNLO, MeanSimNO,
MeanSimLO and MeanNodeRecall are the means of each trial's SimNLO, SimNO, SimLO and NodeRecall, filtering's
NodeRecallAt<n> the means of each trial's; both are compared by a paired bootstrap of the per-trial values."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..paired import TrialData, mean_trials

__all__ = ["provenance_trials"]


def _key(row: Mapping[str, Any]) -> str:
    return f"{row.get('JournalName')}|{row.get('ProvenanceProbeFileID')}"


def provenance_trials(entry: Mapping[str, Any], options: Mapping[str, Any]) -> TrialData | None:
    """The trials of a provenance entry (``per_trial``); None when it has none."""
    columns = {name: name.removeprefix("Mean") for name in entry.get("metrics") or {}}
    return mean_trials(entry.get("per_trial"), _key, columns)
