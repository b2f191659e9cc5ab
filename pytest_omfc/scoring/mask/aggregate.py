"""Across-mask aggregates of MaskScorer that need the per-threshold tables
(docs/scoring/masks.md#optimum-maximum-and-actual).

Each mask's :class:`~.engine.ThresholdTable` is a step function of the
threshold: at any t its counts are those of its largest own threshold <= t.
The aggregates evaluate every mask on the union of all masks' thresholds.

* :func:`maximum`: MediScore's "Maximum" (reported with ``--sbin`` only): the
  single threshold that maximises the sum (= mean) of the masks' MCC, first on
  ties; every mask's metrics at it.
* :func:`pixel_average_auc`: ROC of the pooled counts (sum of FP over sum of
  FP+TN, sum of TP over sum of TP+FN) at every union threshold.
* :func:`mask_average_auc`: ROC of the mean of per-mask (FPR, TPR), NaN skipped.

Both AUCs append (0,0) and (1,1), stable-sort by (FPR, TPR) and sum trapezoids.
Only masks with a numeric optimum threshold take part (scored, N > 0); pass
``None`` for the others to keep positions aligned with the input.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from .engine import ThresholdMetrics, ThresholdTable, _trapezoid_auc

__all__ = ["MaximumResult", "mask_average_auc", "maximum", "pixel_average_auc", "union_rows"]


def _usable(tables: Sequence[ThresholdTable | None]) -> list[int]:
    """Positions of the tables that take part: scored with N > 0 (a numeric optimum threshold)."""
    return [i for i, t in enumerate(tables) if t is not None and t.n > 0]


def _used(tables: Sequence[ThresholdTable | None]) -> list[ThresholdTable]:
    return [t for t in tables if t is not None and t.n > 0]


def union_rows(tables: Sequence[ThresholdTable]) -> tuple[NDArray[np.int64], NDArray[np.intp]]:
    """Union of the thresholds, and for each table the row it uses at each union threshold.

    Returns ``(T_all, rows)`` with ``rows[p, k]`` = row of table p at ``T_all[k]``.
    """
    if not tables:
        return np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.intp)
    t_all = np.unique(np.concatenate([t.thresholds for t in tables]))
    rows = np.stack([np.maximum(np.searchsorted(t.thresholds, t_all, side="right") - 1, 0) for t in tables])
    return t_all, rows


@dataclass(frozen=True)
class MaximumResult:
    """The Maximum threshold and each mask's metrics there (None for masks that took no part)."""

    threshold: float
    per_mask: tuple[ThresholdMetrics | None, ...]

    @property
    def mean_mcc(self) -> float:
        vals = [m.mcc for m in self.per_mask if m is not None]
        return float(np.mean(vals)) if vals else math.nan


def maximum(tables: Sequence[ThresholdTable | None]) -> MaximumResult:
    """MediScore's Maximum: ``argmax_t sum_p MCC_p(t)`` over the union of thresholds, first t on ties."""
    used = _usable(tables)
    sub = _used(tables)
    if not sub:
        return MaximumResult(math.nan, tuple(None for _ in tables))
    t_all, rows = union_rows(sub)
    mcc = np.stack([t.mcc()[r] for t, r in zip(sub, rows, strict=True)])
    k = int(np.argmax(mcc.sum(axis=0)))
    best = float(t_all[k])
    per: list[ThresholdMetrics | None] = [None] * len(tables)
    for i, t, r in zip(used, sub, rows, strict=True):
        per[i] = t.metrics(int(r[k]), best)
    return MaximumResult(best, tuple(per))


def _roc_auc(fpr: NDArray[np.float64], tpr: NDArray[np.float64]) -> float:
    f = np.concatenate((fpr, [0.0, 1.0]))
    t = np.concatenate((tpr, [0.0, 1.0]))
    order = np.lexsort((t, f))
    return _trapezoid_auc(f[order], t[order])


def pixel_average_auc(tables: Sequence[ThresholdTable | None]) -> float:
    """PixelAverageAUC: AUC of the pooled-count ROC over the union thresholds
    (docs/scoring/masks.md#optimum-maximum-and-actual)."""
    sub = _used(tables)
    if not sub:
        return math.nan
    _, rows = union_rows(sub)
    tp = np.sum([t.tp[r] for t, r in zip(sub, rows, strict=True)], axis=0).astype(np.float64)
    fp = np.sum([t.fp[r] for t, r in zip(sub, rows, strict=True)], axis=0).astype(np.float64)
    pos = float(sum(t.positives for t in sub))
    neg = float(sum(t.negatives for t in sub))
    with np.errstate(divide="ignore", invalid="ignore"):
        return _roc_auc(fp / neg, tp / pos)


def mask_average_auc(tables: Sequence[ThresholdTable | None]) -> float:
    """MaskAverageAUC: AUC of the mean per-mask (FPR, TPR), NaN skipped, over the union thresholds
    (docs/scoring/masks.md#optimum-maximum-and-actual)."""
    sub = _used(tables)
    if not sub:
        return math.nan
    _, rows = union_rows(sub)
    fpr = np.stack([t.fpr()[r] for t, r in zip(sub, rows, strict=True)])
    tpr = np.stack([t.tpr()[r] for t, r in zip(sub, rows, strict=True)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # "mean of empty slice": all NaN -> NaN
        return _roc_auc(np.nanmean(fpr, axis=0), np.nanmean(tpr, axis=0))
