"""ForgeryNet image and video forgery classification (docs/scoring/forgerynet.md#classification-metrics).

Pure numpy, no pytest, no scikit-learn at run time.  The conventions, which docs/scoring/forgerynet.md quotes:

* **AUC** is the binary ROC AUC exactly as scikit-learn's ``roc_auc_score``: tied scores get their
  average rank, which is the trapezoid under the ROC curve.  It is computed as the Mann-Whitney
  statistic ``(sum of the positives' average ranks - P(P+1)/2) / (P*N)``: the rank sums are exact
  half-integers in float64, so the value is the correctly rounded AUC (scikit-learn's trapezoid
  sum agrees to ~1e-16).  With a single class in the reference the AUC is undefined: ``None``
  and a note (scikit-learn raises).
* **Acc** is balanced accuracy as scikit-learn's ``balanced_accuracy_score``: the mean recall over
  the classes *present in the reference*.  A class that is predicted but absent from the reference
  has no recall and is left out of the mean (scikit-learn warns "y_pred contains classes not in
  y_true" and does the same); its predictions still count as errors of the true classes.  A note
  names such classes.
* 2-way: fake iff ``Score >= threshold`` (default 0.5).
* k-way: the predicted class is the argmax of ``P0..P<k-1>``, the first (lowest) index on ties
  (``np.argmax``).  ``mAP`` is the paper's "AP": the mean over the classes of the one-vs-rest ROC
  AUC of ``P_c`` (class c positive, all others negative), *not* precision-recall AP.  A class with
  no positive or no negative sample has no AUC (``None`` in the per-class table), is left out of
  the mean, and a note names it.  ``AUC`` is the binary ROC AUC of the fake score
  ``P1 + ... + P<k-1>`` against ``Label != 0``; ``Acc_binary`` the binary balanced accuracy with
  fake iff that sum ``>= threshold``.  The sum is taken left to right (``((P1 + P2) + P3) + ...``)
  in float64, so a row on the threshold is decided the same way on every machine (numpy's own
  ``sum`` uses pairwise blocks).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["ClassificationReport", "balanced_accuracy", "roc_auc", "score_binary", "score_multiclass"]


@dataclass(frozen=True)
class ClassificationReport:
    """Metrics of one classification submission (the ForgeryNet paper's names)."""

    metrics: dict[str, float | None]
    per_class: list[dict[str, Any]]
    notes: tuple[str, ...] = ()

    def to_entry(self) -> dict[str, Any]:
        """Builtin types only, for the metrics JSON."""
        return {
            "metrics": {k: _builtin(v) for k, v in self.metrics.items()},
            "per_class": [{k: _builtin(v) for k, v in row.items()} for row in self.per_class],
            "notes": list(self.notes),
        }


def _builtin(v: Any) -> Any:
    if v is None or isinstance(v, str | bool):
        return v
    if isinstance(v, int | np.integer):
        return int(v)
    return float(v)


def roc_auc(positive: np.ndarray, scores: np.ndarray) -> float | None:
    """ROC AUC with average ranks for ties (= scikit-learn's ``roc_auc_score``); None for one class."""
    pos = np.asarray(positive, dtype=bool)
    s = np.asarray(scores, dtype=np.float64)
    n_pos = int(np.count_nonzero(pos))
    n_neg = pos.size - n_pos
    if n_pos == 0 or n_neg == 0:
        return None
    # The average 1-based rank of a score v is (#{< v} + 1 + #{<= v}) / 2: twice the positives' rank sum
    # is an integer, found by two searchsorted calls in the sorted scores (no argsort needed).
    all_sorted = np.sort(s)
    pos_sorted = np.sort(s[pos])
    below = np.searchsorted(all_sorted, pos_sorted, side="left")
    upto = np.searchsorted(all_sorted, pos_sorted, side="right")
    twice_rank_sum = int(below.sum()) + int(upto.sum()) + n_pos
    u_twice = twice_rank_sum - n_pos * (n_pos + 1)
    return u_twice / (2.0 * n_pos * n_neg)


def balanced_accuracy(labels: np.ndarray, predicted: np.ndarray) -> tuple[float | None, dict[int, float], list[int]]:
    """(balanced accuracy, recall per reference class, predicted classes absent from the reference).

    As scikit-learn's ``balanced_accuracy_score``: mean recall over the classes present in
    ``labels``; predicted classes absent from ``labels`` are left out of the mean.
    """
    y = np.asarray(labels, dtype=np.int64)
    p = np.asarray(predicted, dtype=np.int64)
    if y.size == 0:
        return None, {}, []
    classes, counts = np.unique(y, return_counts=True)
    hits = np.bincount(y[y == p] - classes[0], minlength=classes[-1] - classes[0] + 1)[classes - classes[0]]
    recall = {int(c): float(h / n) for c, h, n in zip(classes, hits, counts, strict=True)}
    absent = sorted(set(np.unique(p).tolist()) - set(classes.tolist()))
    return float(np.mean(hits / counts)), recall, absent


def _as_labels(labels: np.ndarray, k: int, n: int) -> np.ndarray:
    y = np.asarray(labels)
    if y.ndim != 1 or y.size != n:
        raise ValueError(f"labels must be a 1-D array of {n} values (got shape {y.shape})")
    if y.dtype == bool:
        return y.astype(np.int64)
    if not np.issubdtype(y.dtype, np.integer):
        yf = np.asarray(y, dtype=np.float64)
        if not np.all(np.isfinite(yf)) or np.any(yf != np.round(yf)):
            raise ValueError("labels must be integers 0..k-1")
        y = yf.astype(np.int64)
    y = y.astype(np.int64)
    if y.size and (y.min() < 0 or y.max() >= k):
        raise ValueError(f"labels must be in 0..{k - 1} (got {int(y.min())}..{int(y.max())})")
    return y


def _finite(a: np.ndarray, what: str) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64)
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{what} must be finite (got {np.count_nonzero(~np.isfinite(a))} non-finite values)")
    return a


def _absent_note(absent: list[int], metric: str) -> list[str]:
    if not absent:
        return []
    names = ", ".join(str(c) for c in absent)
    return [
        (
            f"{metric}: class {names} predicted but absent from the reference: left out of the mean "
            "(as scikit-learn's balanced_accuracy_score)"
        )
    ]


def score_binary(labels: np.ndarray, scores: np.ndarray, threshold: float = 0.5) -> ClassificationReport:
    """2-way classification: ``Acc`` (balanced, fake iff ``score >= threshold``) and ``AUC``."""
    s = _finite(scores, "scores")
    if s.ndim != 1:
        raise ValueError(f"scores must be 1-D (got shape {s.shape})")
    y = _as_labels(labels, 2, s.size)
    notes: list[str] = []
    pred = (s >= threshold).astype(np.int64)
    acc, recall, absent = balanced_accuracy(y, pred)
    notes += _absent_note(absent, "Acc")
    auc = roc_auc(y == 1, s)
    if auc is None:
        notes.append("AUC undefined: only one class in the reference" if y.size else "AUC undefined: no sample")
    counts = np.bincount(y, minlength=2)
    per_class = [{"class": c, "n": int(counts[c]), "recall": recall.get(c)} for c in (0, 1)]
    return ClassificationReport({"Acc": acc, "AUC": auc}, per_class, tuple(notes))


def fake_score(probs: np.ndarray) -> np.ndarray:
    """``P1 + ... + P<k-1>`` summed left to right in float64 (machine-independent at the threshold)."""
    p = np.asarray(probs, dtype=np.float64)
    total = np.zeros(p.shape[0], dtype=np.float64)
    for c in range(1, p.shape[1]):
        total += p[:, c]
    return total


def score_multiclass(labels: np.ndarray, probs: np.ndarray, threshold: float = 0.5) -> ClassificationReport:
    """k-way classification: ``Acc``, ``mAP`` (mean one-vs-rest ROC AUC), ``AUC`` and ``Acc_binary``."""
    p = _finite(probs, "probabilities")
    if p.ndim != 2 or p.shape[1] < 2:
        raise ValueError(f"probabilities must be an (n, k) array with k >= 2 (got shape {p.shape})")
    n, k = p.shape
    y = _as_labels(labels, k, n)
    notes: list[str] = []
    pred = np.argmax(p, axis=1) if n else np.zeros(0, dtype=np.int64)
    acc, recall, absent = balanced_accuracy(y, pred)
    notes += _absent_note(absent, "Acc")
    counts = np.bincount(y, minlength=k)
    per_class: list[dict[str, Any]] = []
    aucs: list[float] = []
    undefined: list[int] = []
    for c in range(k):
        auc_c = roc_auc(y == c, p[:, c])
        if auc_c is None:
            undefined.append(c)
        else:
            aucs.append(auc_c)
        per_class.append({"class": c, "n": int(counts[c]), "AUC": auc_c, "recall": recall.get(c)})
    if undefined:
        names = ", ".join(str(c) for c in undefined)
        notes.append(
            f"mAP: class {names} has no positive or no negative sample: its AUC is undefined "
            f"and left out of the mean ({len(aucs)} of {k} classes averaged)"
        )
    m_ap = float(np.mean(aucs)) if aucs else None
    fake = fake_score(p)
    is_fake = (y != 0).astype(np.int64)
    auc = roc_auc(is_fake == 1, fake)
    if auc is None:
        notes.append(
            "AUC undefined: only one class (real or fake) in the reference" if n else "AUC undefined: no sample"
        )
    acc_bin, _, absent_bin = balanced_accuracy(is_fake, (fake >= threshold).astype(np.int64))
    notes += _absent_note(absent_bin, "Acc_binary")
    return ClassificationReport({"Acc": acc, "mAP": m_ap, "AUC": auc, "Acc_binary": acc_bin}, per_class, tuple(notes))
