"""ROC building blocks shared by detection and its bootstrap (docs/scoring/detection.md#roc-points).

Kept apart so that :mod:`.bootstrap` and :mod:`.detection` both import them
without importing each other (no import circle).
"""

from __future__ import annotations

import numpy as np

__all__ = ["TIE_ATOL", "curve_from_counts", "sorted_groups"]

TIE_ATOL = 1e-8  # sklearn 0.17 grouped scores with isclose(diff, 0), docs/scoring/detection.md#roc-points


def sorted_groups(scores: np.ndarray, tie_atol: float = TIE_ATOL) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Descending score order and the last position of each tie group (docs/scoring/detection.md#roc-points).

    Returns ``(order, group_end, sorted_scores)``.
    """
    s = np.asarray(scores, dtype=float)
    order = np.argsort(s, kind="mergesort")[::-1]
    ss = s[order]
    d = np.diff(ss)
    distinct = np.flatnonzero(~(np.abs(d) <= tie_atol))  # NaN diffs count as distinct
    group_end = np.r_[distinct, ss.size - 1] if ss.size else np.zeros(0, dtype=np.intp)
    return order, group_end.astype(np.intp), ss


def curve_from_counts(
    tps: np.ndarray, fps: np.ndarray, thresholds: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """sklearn 0.17 ``roc_curve`` from cumulative counts at each tie group (docs/scoring/detection.md#roc-points).

    ``drop_intermediate`` (second differences of fps and tps both zero) comes
    before the 0.17 prepend rule (``(0,0)`` only when the top group holds a
    non-target).
    """
    thr = np.zeros(tps.size) if thresholds is None else thresholds
    if fps.size > 2:
        keep = np.flatnonzero(np.r_[True, (np.diff(fps, 2) != 0) | (np.diff(tps, 2) != 0), True])
        fps, tps, thr = fps[keep], tps[keep], thr[keep]
    if tps.size == 0 or fps[0] != 0:
        tps = np.r_[0.0, tps]
        fps = np.r_[0.0, fps]
        thr = np.r_[(thr[0] + 1) if thr.size else 1.0, thr]
    fpr = fps / fps[-1] if fps[-1] > 0 else np.full(fps.shape, np.nan)
    tpr = tps / tps[-1] if tps[-1] > 0 else np.full(tps.shape, np.nan)
    return fpr, tpr, thr
