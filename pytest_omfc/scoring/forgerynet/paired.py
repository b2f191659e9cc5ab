"""ForgeryNet results trial by trial (docs/scoring/comparison.md).

Classification: the AUC (real against fake, on the fake score) by DeLong's test; ``Acc`` and ``Acc_binary``
(balanced accuracies: the mean recall over the classes present) by a paired bootstrap that recomputes them
from each draw's counts; ``mAP`` (the mean of one-vs-rest AUCs) is not compared.  Spatial localization: a
``<metric>_per_image`` value is the mean of the images' values, a ``<metric>_pooled`` one their mean weighted
by each image's pixels; both are compared by a paired bootstrap of the images."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..paired import AucOf, Draws, MeanOf, RocOf, Statistic, TrialData

__all__ = ["balanced_statistic", "classification_trials", "spatial_trials"]


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
