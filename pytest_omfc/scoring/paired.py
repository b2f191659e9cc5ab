"""Paired tests and intervals over trials, shared by every scorer family (docs/scoring/comparison.md).

* :func:`delong`: two ROC AUCs on the same trials (DeLong, DeLong and Clarke-Pearson 1988), computed with the
  fast algorithm of Sun and Xu (2014): the AUC of each system is the Mann-Whitney statistic (ties count one
  half, which equals the trapezoidal area of the ROC the detection scorer draws), its structural components
  come from mid-ranks, and the variance of the difference is ``L S L'`` with ``S = S10/m + S01/n``.  The
  difference is tested against a normal distribution (two-sided), and its interval is ``d +- z * se``.
* :func:`paired_bootstrap`: any statistic of two runs on the same trials.  Each draw resamples trial positions
  with replacement and applies the same positions to both runs; the interval is the percentile interval of
  the drawn differences, and the two-sided p-value is that of the drawn differences centred on the observed
  one (how often a centred difference is at least as far from 0 as the observed difference): with identical
  runs every difference is 0 and the p-value is 1.
* :func:`bootstrap_interval`: the percentile interval of one run's statistic, by the same draws.

Draws come from ``numpy.random.default_rng(seed)`` in chunks, so memory stays at a few MB whatever the number
of trials and draws; a mean over trials needs no resampled copy at all (the draw's counts per trial times the
values).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from statistics import NormalDist
from typing import Any

import numpy as np

__all__ = [
    "AucOf",
    "Delong",
    "Draws",
    "MeanOf",
    "Measure",
    "RocOf",
    "StatOf",
    "TrialData",
    "PairedResult",
    "Statistic",
    "bootstrap_interval",
    "bootstrap_intervals",
    "delong",
    "delong_interval",
    "draw_counts",
    "mean_statistic",
    "mean_trials",
    "paired_bootstrap",
    "paired_bootstraps",
]

#: Drawn positions held per chunk of draws (int64, and their int32 counts when a mean asks): about 24 MB.
_CHUNK_ELEMENTS = 2_000_000


@dataclass(frozen=True)
class Delong:
    """Two AUCs on the same trials and the test of their difference (``b - a``)."""

    auc_a: float
    auc_b: float
    var_a: float
    var_b: float
    covariance: float
    difference: float
    se: float
    p_value: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class PairedResult:
    """A statistic of two runs on the same trials: each value, the difference ``b - a``, the percentile interval of
    the difference, the two-sided p-value, and the number of draws."""

    a: float
    b: float
    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    draws: int


def _midranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n with ties given their mean rank."""
    order = np.argsort(x, kind="mergesort")
    xs = x[order]
    n = xs.size
    ranks = np.empty(n, dtype=float)
    if n == 0:
        return ranks
    starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1]])
    ends = np.r_[starts[1:], n]
    mean_rank = (starts + ends + 1) / 2.0  # positions start..end-1 hold ranks start+1..end
    ranks[order] = np.repeat(mean_rank, ends - starts)
    return ranks


def _components(scores: np.ndarray, positive: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """AUC and the structural components V10 (per positive) and V01 (per negative), Sun and Xu (2014)."""
    x, y = scores[positive], scores[~positive]
    m, n = x.size, y.size
    tx, ty, tz = _midranks(x), _midranks(y), _midranks(np.r_[x, y])
    auc = float((tz[:m].sum() - m * (m + 1) / 2.0) / (m * n))
    v10 = (tz[:m] - tx) / n
    v01 = 1.0 - (tz[m:] - ty) / m
    return auc, v10, v01


def delong(is_target: np.ndarray, scores_a: np.ndarray, scores_b: np.ndarray, level: float = 0.95) -> Delong:
    """DeLong's test of ``AUC(b) - AUC(a)`` on the same trials (at least one target and one non-target)."""
    positive = np.asarray(is_target, dtype=bool)
    a, b = np.asarray(scores_a, dtype=float), np.asarray(scores_b, dtype=float)
    if not (a.shape == b.shape == positive.shape) or a.ndim != 1:
        raise ValueError("the scores of both runs and the labels must be 1-d and of equal length")
    m = int(positive.sum())
    n = positive.size - m
    if m == 0 or n == 0:
        raise ValueError(f"DeLong's test needs targets and non-targets (got {m} and {n})")
    auc_a, v10_a, v01_a = _components(a, positive)
    auc_b, v10_b, v01_b = _components(b, positive)
    s10 = np.cov(np.vstack([v10_a, v10_b])) if m > 1 else np.zeros((2, 2))
    s01 = np.cov(np.vstack([v01_a, v01_b])) if n > 1 else np.zeros((2, 2))
    s = s10 / m + s01 / n
    var = float(s[0, 0] + s[1, 1] - 2.0 * s[0, 1])
    diff = auc_b - auc_a
    se = math.sqrt(var) if var > 0 else 0.0
    if se == 0.0:
        p = 1.0 if diff == 0 else 0.0
    else:
        p = math.erfc(abs(diff) / se / math.sqrt(2.0))
    z = NormalDist().inv_cdf(0.5 + level / 2.0)
    return Delong(
        auc_a=auc_a,
        auc_b=auc_b,
        var_a=float(s[0, 0]),
        var_b=float(s[1, 1]),
        covariance=float(s[0, 1]),
        difference=diff,
        se=se,
        p_value=min(1.0, p),
        ci_low=diff - z * se,
        ci_high=diff + z * se,
    )


class Draws:
    """One chunk of draws: ``positions`` (``(k, n)``: the trial each draw picks, in order) and, computed on first
    use, ``counts`` (``(k, n)``: how often each trial was drawn).  A mean needs the counts; a statistic that
    groups trials (a ROC's tie groups) counts the positions itself, without the ``n``-wide gather."""

    def __init__(self, positions: np.ndarray) -> None:
        self.positions = positions
        self._counts: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.positions.shape[0])

    @property
    def counts(self) -> np.ndarray:
        if self._counts is None:
            k, n = self.positions.shape
            flat = (self.positions + (np.arange(k, dtype=np.int64) * n)[:, None]).ravel()
            self._counts = np.bincount(flat, minlength=k * n).astype(np.int32).reshape(k, n)
        return self._counts


def delong_interval(is_target: np.ndarray, scores: np.ndarray, level: float = 0.95) -> tuple[float, float, float]:
    """One AUC and its interval from DeLong's variance (``S10/m + S01/n``), within [0, 1]: ``(auc, low, high)``."""
    positive = np.asarray(is_target, dtype=bool)
    s = np.asarray(scores, dtype=float)
    m = int(positive.sum())
    n = positive.size - m
    if m == 0 or n == 0:
        raise ValueError(f"an AUC needs targets and non-targets (got {m} and {n})")
    auc, v10, v01 = _components(s, positive)
    var = (float(np.var(v10, ddof=1)) if m > 1 else 0.0) / m + (float(np.var(v01, ddof=1)) if n > 1 else 0.0) / n
    half = NormalDist().inv_cdf(0.5 + level / 2.0) * math.sqrt(max(var, 0.0))
    return auc, max(0.0, auc - half), min(1.0, auc + half)  # an AUC is a probability


def draw_counts(n: int, draws: int, seed: int) -> Iterator[Draws]:
    """The draws in chunks (a few MB each, whatever ``n`` and ``draws``), from ``numpy.random.default_rng(seed)``."""
    rng = np.random.default_rng(seed)
    rows = max(1, _CHUNK_ELEMENTS // max(n, 1))
    done = 0
    while done < draws:
        k = min(rows, draws - done)
        yield Draws(rng.integers(0, n, size=(k, n)))
        done += k


#: A statistic of one run: given a chunk of draws (:class:`Draws`), one value per draw; given None, its value on
#: the observed trials.
Statistic = Callable[["Draws | None"], "np.ndarray | float"]


def mean_statistic(values: np.ndarray, weights: np.ndarray | None = None) -> Statistic:
    """The mean of per-trial values (weighted: ``sum(w v) / sum(w)``, e.g. a mean over all pixels of all images),
    for the observed trials (``None``) or every draw of a chunk at once."""
    v = np.asarray(values, dtype=float)
    w = None if weights is None else np.asarray(weights, dtype=float)

    def stat(draws: Draws | None) -> np.ndarray | float:
        if w is None:
            return float(v.mean()) if draws is None else (draws.counts @ v) / v.size
        if draws is None:
            return float((w * v).sum() / w.sum())
        return (draws.counts @ (w * v)) / (draws.counts @ w)

    return stat


def _percentiles(values: np.ndarray, level: float) -> tuple[float, float]:
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        return math.nan, math.nan
    lo, hi = np.quantile(finite, [(1.0 - level) / 2.0, (1.0 + level) / 2.0])
    return float(lo), float(hi)


def _each_draw(stat: Statistic, draws: Draws) -> np.ndarray:
    """The statistic of every draw of a chunk (one value per draw)."""
    out = np.asarray(stat(draws), dtype=float)
    if out.shape != (len(draws),):
        raise ValueError(f"a statistic must return one value per draw (got shape {out.shape})")
    return out


def paired_bootstrap(
    n: int,
    stat_a: Statistic,
    stat_b: Statistic,
    *,
    draws: int = 2000,
    seed: int = 77,
    level: float = 0.95,
) -> PairedResult:
    """Paired bootstrap of ``stat_b - stat_a`` over ``n`` trials both runs scored (the same draws for both)."""
    return paired_bootstraps(n, {"": (stat_a, stat_b)}, draws=draws, seed=seed, level=level)[""]


def paired_bootstraps(
    n: int,
    pairs: Mapping[str, tuple[Statistic, Statistic]],
    *,
    draws: int = 2000,
    seed: int = 77,
    level: float = 0.95,
) -> dict[str, PairedResult]:
    """:func:`paired_bootstrap` of several statistics on the same draws (one pass: statistics of one run may share
    work within a chunk, as the ROC metrics of a detection run do)."""
    if n < 1:
        raise ValueError("a paired bootstrap needs at least one trial both runs scored")
    observed = {name: (float(np.asarray(a(None))), float(np.asarray(b(None)))) for name, (a, b) in pairs.items()}
    diffs: dict[str, list[np.ndarray]] = {name: [] for name in pairs}
    for chunk in draw_counts(n, draws, seed):
        for name, (a, b) in pairs.items():
            diffs[name].append(_each_draw(b, chunk) - _each_draw(a, chunk))
    out = {}
    for name, (va, vb) in observed.items():
        d = np.concatenate(diffs[name])
        diff = vb - va
        lo, hi = _percentiles(d, level)
        finite = d[np.isfinite(d)]
        if not math.isfinite(diff) or finite.size == 0:
            p = math.nan
        else:
            extreme = np.abs(finite - diff) >= abs(diff) - 1e-12 * max(1.0, abs(diff))
            p = min(1.0, float((1 + int(extreme.sum())) / (finite.size + 1)))
        out[name] = PairedResult(a=va, b=vb, difference=diff, ci_low=lo, ci_high=hi, p_value=p, draws=draws)
    return out


def bootstrap_interval(
    n: int,
    stat: Statistic,
    *,
    draws: int = 2000,
    seed: int = 77,
    level: float = 0.95,
) -> tuple[float, float]:
    """The percentile interval of one run's statistic over ``n`` trials."""
    return bootstrap_intervals(n, {"": stat}, draws=draws, seed=seed, level=level)[""]


def bootstrap_intervals(
    n: int,
    stats: Mapping[str, Statistic],
    *,
    draws: int = 2000,
    seed: int = 77,
    level: float = 0.95,
) -> dict[str, tuple[float, float]]:
    """:func:`bootstrap_interval` of several statistics on the same draws (one pass: the ROC metrics of a
    detection run share their curves within a chunk)."""
    if n < 1:
        return {name: (math.nan, math.nan) for name in stats}
    values: dict[str, list[np.ndarray]] = {name: [] for name in stats}
    for chunk in draw_counts(n, draws, seed):
        for name, stat in stats.items():
            values[name].append(_each_draw(stat, chunk))
    return {name: _percentiles(np.concatenate(v), level) for name, v in values.items()}


# ---------------------------------------------------------------------------- what a result carries per trial


@dataclass(frozen=True)
class MeanOf:
    """A metric that is the mean of a per-trial value over the trials scored (NaN: not scored), weighted by
    ``weights`` when given (a pooled mean: each image weighs its pixels)."""

    values: np.ndarray
    test: str = "paired-bootstrap"
    weights: np.ndarray | None = None


@dataclass(frozen=True)
class AucOf:
    """A ROC AUC of per-trial scores and target flags: compared by DeLong's test."""

    scores: np.ndarray
    targets: np.ndarray
    test: str = "delong"


@dataclass(frozen=True)
class RocOf:
    """Another metric of the ROC of per-trial scores and target flags (EER, CDR@FAR...): ``statistic(scores,
    targets)`` gives its bootstrap statistic (the family's own ROC, ties and conventions)."""

    scores: np.ndarray
    targets: np.ndarray
    statistic: Callable[[np.ndarray, np.ndarray], Statistic]
    test: str = "paired-bootstrap"


@dataclass(frozen=True)
class StatOf:
    """A metric recomputed from its trials for each draw by the family's own code: ``on(positions)`` gives the
    statistic of the trials at ``positions`` (of the result's keys), drawn with replacement (a ForgeryNet AP
    over videos)."""

    on: Callable[[np.ndarray], Statistic]
    test: str = "paired-bootstrap"


Measure = MeanOf | AucOf | RocOf | StatOf


@dataclass(frozen=True)
class TrialData:
    """A result's trials: one key per trial (unique), and per headline metric how it is computed from them."""

    keys: list[str]
    metrics: dict[str, Measure]


def mean_trials(
    rows: Any,
    key: Callable[[Mapping[str, Any]], str],
    columns: Mapping[str, str],
    scored: Callable[[Mapping[str, Any]], bool] = lambda row: True,
) -> TrialData | None:
    """The trials of a result whose metrics are means of per-trial columns (``columns``: metric -> column),
    from its per-trial rows as the metrics JSON holds them; rows not ``scored``, and values that are null or not
    finite, count as not scored.  None when there are no rows; ValueError when a value is not a number."""
    if not isinstance(rows, list) or not rows or not all(isinstance(r, Mapping) for r in rows):
        return None
    keys = [key(r) for r in rows]
    kept = np.array([bool(scored(r)) for r in rows])
    measures: dict[str, Measure] = {}
    for metric, column in columns.items():
        if column not in rows[0]:
            continue
        values = np.array([np.nan if r.get(column) is None else float(r[column]) for r in rows], dtype=float)
        values[~kept | ~np.isfinite(values)] = np.nan
        if np.isfinite(values).any():
            measures[metric] = MeanOf(values)
    return TrialData(keys, measures)
