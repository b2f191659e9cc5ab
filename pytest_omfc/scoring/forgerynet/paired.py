"""ForgeryNet results trial by trial (docs/scoring/comparison.md).

Classification: the AUC (real against fake, on the fake score) by DeLong's test; ``Acc`` and ``Acc_binary``
(balanced accuracies: the mean recall over the classes present) and ``mAP`` (the mean of the one-vs-rest
AUCs) by a paired bootstrap that recomputes them from each draw's counts.  Spatial localization: a
``<metric>_per_image`` value is the mean of the images' values, a ``<metric>_pooled`` one their mean weighted
by each image's pixels; both are compared by a paired bootstrap of the images."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..paired import AucOf, Draws, MeanOf, RocOf, Statistic, StatOf, TrialData

__all__ = ["balanced_statistic", "classification_trials", "map_statistic", "spatial_trials", "temporal_trials"]


def balanced_statistic(predicted: np.ndarray, labels: np.ndarray) -> Statistic:
    """Balanced accuracy (scikit-learn's ``balanced_accuracy_score``: the mean recall over the classes present
    in the labels) of the observed rows or of every draw of a chunk at once."""
    y = np.asarray(labels, dtype=np.int64)
    p = np.asarray(predicted, dtype=np.int64)
    classes = np.unique(y)
    member = (y[:, None] == classes[None, :]).astype(float)
    hit = member * (p == y)[:, None]

    def stat(draws: Draws | None) -> np.ndarray | float:
        c = np.ones((1, y.size)) if draws is None else draws.counts
        den, num = c @ member, c @ hit
        with np.errstate(invalid="ignore", divide="ignore"):
            recall = np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
        out = np.nanmean(recall, axis=1)
        return float(out[0]) if draws is None else out

    return stat


def map_statistic(probs: np.ndarray, labels: np.ndarray) -> Statistic:
    """mAP (the mean over classes of the one-vs-rest ROC AUC, ties counting one half; a class without a positive
    or a negative row left out) of the observed rows or of every draw of a chunk at once: per class, the rows in
    ascending score order grouped by tie, each draw's positive and negative weights summed per group."""
    p = np.asarray(probs, dtype=float)
    y = np.asarray(labels, dtype=np.int64)
    plans = []
    for c in range(p.shape[1]):
        order = np.argsort(p[:, c], kind="mergesort")
        s = p[order, c]
        starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]]) if s.size else np.zeros(0, np.intp)
        plans.append((order, starts, (y[order] == c)))

    def stat(draws: Draws | None) -> np.ndarray | float:
        w = np.ones((1, y.size)) if draws is None else draws.counts.astype(float)
        aucs = np.full((w.shape[0], len(plans)), np.nan)
        for c, (order, starts, positive) in enumerate(plans):
            ws = w[:, order]
            pos = np.add.reduceat(ws * positive, starts, axis=1) if starts.size else ws[:, :0]
            neg = np.add.reduceat(ws * ~positive, starts, axis=1) if starts.size else ws[:, :0]
            below = np.cumsum(neg, axis=1) - neg  # negatives with a lower score than each tie group
            n_pos, n_neg = pos.sum(axis=1), neg.sum(axis=1)
            ok = (n_pos > 0) & (n_neg > 0)
            num = (pos * (below + 0.5 * neg)).sum(axis=1)
            aucs[ok, c] = num[ok] / (n_pos[ok] * n_neg[ok])
        defined = ~np.isnan(aucs)
        n_defined = defined.sum(axis=1)
        total = np.where(defined, aucs, 0.0).sum(axis=1)
        out = np.where(n_defined > 0, total / np.maximum(n_defined, 1), np.nan)  # a draw of one class: undefined
        return float(out[0]) if draws is None else out

    return stat


def classification_trials(entry: Mapping[str, Any], options: Mapping[str, Any]) -> TrialData | None:
    """The rows of a classification entry (``trials``); None when it has none."""
    trials = entry.get("trials")
    if not isinstance(trials, Mapping):
        return None
    keys = [str(k) for k in trials["key"]]
    labels = np.asarray(trials["label"], dtype=np.int64)
    fake = np.asarray(trials["fake"], dtype=float)
    columns = [labels, fake, *(np.asarray(trials[c], dtype=np.int64) for c in ("pred", "pred_binary") if c in trials)]
    if any(c.shape != (len(keys),) for c in columns) or not np.isfinite(fake).all():
        raise ValueError("trials: key, label, fake and pred must be lists of one length, the scores finite")
    is_fake = labels != 0
    measures: dict[str, Any] = {"AUC": AucOf(fake, is_fake)}
    if "probs" in trials:  # k-way: mAP over the classes
        probs = np.asarray(trials["probs"], dtype=float)
        if probs.ndim != 2 or probs.shape[0] != len(keys) or not np.isfinite(probs).all():
            raise ValueError("trials: probs must hold one row of finite probabilities per key")
        measures["mAP"] = RocOf(probs, labels, map_statistic)
    if "pred_binary" in trials:  # k-way: Acc over the k classes, Acc_binary over real and fake
        measures["Acc"] = RocOf(np.asarray(trials["pred"], dtype=np.int64), labels, balanced_statistic)
        measures["Acc_binary"] = RocOf(
            np.asarray(trials["pred_binary"], dtype=np.int64), is_fake.astype(np.int64), balanced_statistic
        )
    else:
        measures["Acc"] = RocOf(np.asarray(trials["pred"], dtype=np.int64), labels, balanced_statistic)
    return TrialData(keys, measures)


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


def temporal_trials(entry: Mapping[str, Any], options: Mapping[str, Any]) -> TrialData | None:
    """The videos of a temporal entry (``trials``: the videos, their ground-truth segments, the kept predictions in
    AP's order with their video and TP bits, each video's proposals and recalled segments); AP@t, AP_avg and
    AR@K are recomputed per draw over the videos drawn (a video drawn twice brings its segments and
    predictions twice, and AR's proposal budget is shared again among the videos drawn)."""
    from .temporal import AR_AT, TIOU_THRESHOLDS, resampled_ar, weighted_ap

    trials = entry.get("trials")
    if not isinstance(trials, Mapping):
        return None
    keys = [str(k) for k in trials["key"]]
    gt = np.asarray(trials["gt"], dtype=np.int64)
    video = np.asarray(trials["video"], dtype=np.int64)
    bits = np.asarray(trials["tp"], dtype=np.int64)
    if (
        gt.shape != (len(keys),)
        or video.shape != bits.shape
        or (video.size and not 0 <= video.min() <= video.max() < len(keys))
    ):
        raise ValueError("trials: key, gt, video and tp must match (one gt per video, one video per prediction)")
    n_thr = int(TIOU_THRESHOLDS.size)
    names = [f"AP@{t:.2f}" for t in TIOU_THRESHOLDS]
    has_ar = "proposals" in trials and "recalled" in trials
    if has_ar:
        proposals = np.asarray(trials["proposals"], dtype=np.int64)
        recalled = np.asarray(trials["recalled"], dtype=np.int64)
        if proposals.shape != (len(keys),) or recalled.ndim != 3 or recalled.shape[:2] != (len(keys), n_thr):
            raise ValueError("trials: proposals and recalled must have one entry per video")
        if recalled.shape[2] < int(proposals.max(initial=0)):
            raise ValueError("trials: recalled must cover each video's proposals")
    ar_names = [f"AR@{k}" for k in AR_AT] if has_ar else []

    def on(positions: np.ndarray) -> dict[str, Statistic]:
        """The AP statistics of the videos at ``positions``: one computation per draw, shared by every metric."""
        where = np.full(len(keys), -1, dtype=np.int64)
        where[positions] = np.arange(positions.size)
        pred_pos = where[video]  # each prediction's place among the drawn videos (-1: not among them)
        gt_sub = gt[positions]
        memo: dict[int, tuple[Draws | None, np.ndarray]] = {}

        def aps(draws: Draws | None) -> np.ndarray:
            hit = memo.get(id(draws))
            if hit is not None and hit[0] is draws:
                return hit[1]
            counts = np.ones((1, positions.size), dtype=np.int64) if draws is None else draws.counts
            out = np.empty((counts.shape[0], n_thr + 1 + len(ar_names)))
            for r, c in enumerate(counts):
                weights = np.where(pred_pos >= 0, c[np.maximum(pred_pos, 0)], 0)
                npos = int(c @ gt_sub)
                row = weighted_ap(bits, weights, npos, n_thr) if npos else [np.nan] * n_thr
                out[r, :n_thr] = row
                out[r, n_thr] = np.mean(row)
                if has_ar:
                    out[r, n_thr + 1 :] = resampled_ar(c, gt_sub, proposals[positions], recalled[positions])
            memo.clear()
            memo[id(draws)] = (draws, out)
            return out

        def stat_of(j: int) -> Statistic:
            def stat(draws: Draws | None) -> np.ndarray | float:
                got = aps(draws)[:, j]
                return float(got[0]) if draws is None else got

            return stat

        return {name: stat_of(j) for j, name in enumerate([*names, "AP_avg", *ar_names])}

    shared: dict[bytes, tuple[np.ndarray, dict[str, Statistic]]] = {}

    def measure(name: str) -> StatOf:
        def statistic(positions: np.ndarray) -> Statistic:
            key = positions.tobytes()
            if key not in shared:
                shared.clear()
                shared[key] = (positions, on(positions))
            return shared[key][1][name]

        return StatOf(statistic)

    return TrialData(keys, {name: measure(name) for name in [*names, "AP_avg", *ar_names]})
