"""Detection results trial by trial (docs/scoring/comparison.md): the AUC by DeLong's test, EER, AUC@FAR and
CDR@FAR by a paired bootstrap over the detection scorer's own ROC (its tie groups, sklearn 0.17's points and
the convention's metric functions), recomputed for each draw from how often each trial was drawn."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ..merge import Convention
from ..paired import AucOf, Draws, RocOf, Statistic, TrialData
from .curves import curve_from_counts, sorted_groups
from .engine import _metric_fns, eer_interpolated, eer_mediscore

__all__ = ["detection_trials", "roc_statistics"]

#: The headline metrics compared by a paired bootstrap (the AUC has DeLong's test).
BOOTSTRAPPED = ("EER", "AUC@FAR", "CDR@FAR")


def roc_statistics(
    scores: np.ndarray, targets: np.ndarray, fns: Mapping[str, Callable[[np.ndarray, np.ndarray], float]]
) -> dict[str, Statistic]:
    """One statistic per metric function of the ROC of ``scores``; the curves of a chunk of draws are built once
    and shared by every metric."""
    s = np.asarray(scores, dtype=float)
    y = np.asarray(targets, dtype=bool)
    order, group_end, _ = sorted_groups(s)
    n_groups = max(int(group_end.size), 1)
    group_of = np.empty(s.size, dtype=np.int64)  # each trial's tie group, in row order (as the detection bootstrap)
    group_of[order] = np.searchsorted(group_end, np.arange(s.size))
    memo: dict[int, tuple[Draws | None, dict[str, np.ndarray]]] = {}

    def values(draws: Draws | None) -> dict[str, np.ndarray]:
        hit = memo.get(id(draws))
        if hit is not None and hit[0] is draws:
            return hit[1]
        positions = np.arange(s.size)[None, :] if draws is None else draws.positions
        k = positions.shape[0]
        flat = group_of[positions] + (np.arange(k, dtype=np.int64) * n_groups)[:, None]
        per_group = np.bincount(flat.ravel(), minlength=k * n_groups).reshape(k, n_groups)
        tp_group = np.bincount(flat[y[positions]], minlength=k * n_groups).reshape(k, n_groups)
        tot, tps_all = np.cumsum(per_group, axis=1), np.cumsum(tp_group, axis=1)
        out = {name: np.empty(k) for name in fns}
        for r in range(k):
            keep = per_group[r] > 0  # tie groups drawn in this resample
            tps = tps_all[r, keep].astype(float)
            fpr, tpr, _ = curve_from_counts(tps, tot[r, keep].astype(float) - tps)
            for name, fn in fns.items():
                out[name][r] = fn(fpr, tpr)
        memo.clear()
        memo[id(draws)] = (draws, out)
        return out

    def stat_of(name: str) -> Statistic:
        def stat(draws: Draws | None) -> np.ndarray | float:
            got = values(draws)[name]
            return float(got[0]) if draws is None else got

        return stat

    return {name: stat_of(name) for name in fns}


def detection_trials(entry: Mapping[str, Any], options: Mapping[str, Any]) -> TrialData | None:
    """The trials of a detection entry (``trials``: keys, scores, targets); None when it has none."""
    trials = entry.get("trials")
    metrics = entry.get("metrics") or {}
    if not isinstance(trials, Mapping):
        return None
    keys = [str(k) for k in trials["key"]]
    scores = np.asarray(trials["score"], dtype=float)
    targets = np.asarray(trials["target"])
    if not (scores.shape == targets.shape == (len(keys),)):
        raise ValueError(f"trials: key, score and target must be lists of one length (got {len(keys)}, "
                         f"{scores.size}, {targets.size})")  # fmt: skip
    if targets.dtype != bool or not np.isfinite(scores).all():
        raise ValueError("trials: scores must be finite numbers and targets true or false")
    convention: Convention = "plan" if options.get("convention") == "plan" else "mediscore"
    far = metrics.get("FAR_STOP")
    fns: dict[str, Callable[[np.ndarray, np.ndarray], float]] = dict(
        _metric_fns(0.1 if far is None else float(far), convention)
    )
    fns["EER"] = eer_mediscore if convention == "mediscore" else eer_interpolated
    wanted = {name: fn for name, fn in fns.items() if name in BOOTSTRAPPED}
    shared: dict[tuple[int, int], tuple[np.ndarray, np.ndarray, dict[str, Statistic]]] = {}

    def statistic(s: np.ndarray, y: np.ndarray, name: str) -> Statistic:
        """The metrics of one subset of trials share their curves (one set per chunk of draws)."""
        hit = shared.get((id(s), id(y)))
        if hit is None or hit[0] is not s or hit[1] is not y:
            hit = (s, y, roc_statistics(s, y, wanted))
            shared[(id(s), id(y))] = hit
        return hit[2][name]

    def of(name: str) -> Callable[[np.ndarray, np.ndarray], Statistic]:
        return lambda s, y: statistic(s, y, name)

    measures: dict[str, Any] = {"AUC": AucOf(scores, targets)}
    for name in BOOTSTRAPPED:
        measures[name] = RocOf(scores, targets, of(name))
    return TrialData(keys, measures)
