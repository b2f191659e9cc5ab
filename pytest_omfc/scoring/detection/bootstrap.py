"""Bootstrap confidence intervals for AUC, AUC@FAR and CDR@FAR
(docs/scoring/detection.md#bootstrap-confidence-intervals).

MediScore draws ``RandomState(77).choice(idx, n)`` 500 times and recomputes the
ROC of every resample. A resample's ROC depends only on how many times each
original trial was drawn, so instead of re-sorting every resample we sort the
trials once, turn each draw into per-trial counts, and cumulate counts in the
fixed score order. The random stream, the ROC points and the sort of the 500
values (Python ``sorted``, which fixes where NaNs land) are MediScore's, so the
bounds are reproduced exactly.

Caveat: ties are grouped once on the full data (sklearn 0.17 ``isclose`` with
atol 1e-8). A resample that lacks the middle of a chain of scores each within
1e-8 of the next would group them differently in MediScore; this cannot happen
with scores that differ by more than 1e-8 or are exactly equal.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np

from .curves import curve_from_counts, sorted_groups
from .timsort import sort_like_python2

__all__ = ["BOOTSTRAP_METHODS", "ci_bounds_index", "bootstrap_ci"]

BOOTSTRAP_METHODS = ("mediscore",)

#: Drawn trial positions per chunk: the draws, their tie groups and the per-group counts of a chunk are a few
#: arrays of this many int64 (about 30 MB in all at 500,000; 4,000,000 held 241 MB for 16,000 trials and
#: was no faster: benchmarks/score_detection.py prints the peak with and without the bootstrap).
_CHUNK_ELEMENTS = 500_000


def ci_bounds_index(ci_level: float, n_iter: int) -> tuple[int, int]:
    """Positions of the lower/upper bound in the sorted bootstrap values
    (docs/scoring/detection.md#bootstrap-confidence-intervals).

    ``lb = round((1-level)/2, 3)``, ``ub = round(1-lb, 3)``: 25/475 at 0.9, 12/487 at 0.95.
    """
    lb = round((1.0 - float(ci_level)) / 2.0, 3)
    ub = round(1.0 - lb, 3)
    return int(lb * n_iter), min(int(ub * n_iter), n_iter - 1)


def _draws(n: int, n_iter: int, seed: int) -> Iterator[np.ndarray]:
    """Yield (rows, n) matrices of drawn trial positions, in iteration order."""
    rows_per_chunk = max(1, _CHUNK_ELEMENTS // max(n, 1))
    # rng.choice(idx, n) == rng.randint(0, n, n) per iteration; one call of
    # shape (k, n) consumes the MT19937 stream exactly like k calls.
    rng = np.random.RandomState(seed)
    done = 0
    while done < n_iter:
        k = min(rows_per_chunk, n_iter - done)
        yield rng.randint(0, n, size=(k, n))
        done += k


def bootstrap_ci(
    scores: np.ndarray,
    is_target: np.ndarray,
    *,
    ci_level: float,
    metric_fns: dict[str, Callable[[np.ndarray, np.ndarray], float]],
    n_iter: int = 500,
    seed: int = 77,
    method: str = "mediscore",
    tie_atol: float = 1e-8,
) -> dict[str, tuple[float, float]]:
    """Lower/upper bootstrap bounds of each ``metric_fns[name](fpr, tpr)``.

    ``scores``/``is_target`` must be in MediScore row order (it decides which
    trial each random index picks). ``method="mediscore"`` (the only method)
    reproduces MediScore; ``seed``/``n_iter`` change the stream/iterations.
    It is already vectorised (about 0.25 s for 16,000 trials x 500), so no
    separate approximate "fast" variant is offered.
    """
    if method not in BOOTSTRAP_METHODS:
        raise ValueError(f"bootstrap method must be one of {BOOTSTRAP_METHODS}, not {method!r}")
    scores = np.asarray(scores, dtype=float)
    y = np.asarray(is_target, dtype=bool)
    n = scores.size
    order, group_end, _ = sorted_groups(scores, tie_atol)
    n_groups = group_end.size
    # Tie group of every trial, in original row order.
    group_of = np.empty(n, dtype=np.int64)
    group_of[order] = np.searchsorted(group_end, np.arange(n))
    values: dict[str, list[float]] = {name: [] for name in metric_fns}
    for draws in _draws(n, n_iter, seed):
        k = draws.shape[0]
        flat = group_of[draws] + (np.arange(k, dtype=np.int64) * n_groups)[:, None]
        per_group = np.bincount(flat.ravel(), minlength=k * n_groups).reshape(k, n_groups)
        tp_group = np.bincount(flat[y[draws]], minlength=k * n_groups).reshape(k, n_groups)
        tot = np.cumsum(per_group, axis=1)
        tps_all = np.cumsum(tp_group, axis=1)
        present = per_group > 0  # tie groups drawn in this resample
        for r in range(k):
            keep = present[r]
            tps = tps_all[r, keep].astype(float)
            fps = tot[r, keep].astype(float) - tps
            fpr, tpr, _ = curve_from_counts(tps, fps)
            for name, fn in metric_fns.items():
                values[name].append(float(fn(fpr, tpr)))
    lo, hi = ci_bounds_index(ci_level, n_iter)
    out: dict[str, tuple[float, float]] = {}
    for name, vals in values.items():
        ordered = sort_like_python2(vals)  # Python 2.7's list sort, as MediScore: NaN placement included
        out[name] = (ordered[lo], ordered[hi])
    return out
