"""The paired tests and intervals (``pytest_omfc.scoring.paired``): DeLong's AUC difference, variance and p-value
against an independent implementation from the definitions (written here, O(m n)) and scikit-learn's AUC, on tied
and untied scores; the paired bootstrap's coverage in a seeded simulation; a run compared with itself."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from pytest_omfc.scoring.paired import bootstrap_interval, delong, draw_counts, mean_statistic, paired_bootstrap


def _delong_by_definition(y: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[float, float, float]:
    """DeLong, DeLong and Clarke-Pearson (1988), from the kernel psi(x, y) = 1 if x > y, 1/2 if equal, else 0:
    V10(x_i) = mean_j psi(x_i, y_j), V01(y_j) = mean_i psi(x_i, y_j); S10 and S01 their sample covariances
    between the two systems; var(AUC_b - AUC_a) = (S10_aa + S10_bb - 2 S10_ab) / m + (same for S01) / n."""

    def comps(s: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        x, z = s[y], s[~y]
        psi = (x[:, None] > z[None, :]) + 0.5 * (x[:, None] == z[None, :])
        return float(psi.mean()), psi.mean(axis=1), psi.mean(axis=0)

    auc_a, v10a, v01a = comps(a)
    auc_b, v10b, v01b = comps(b)
    m, n = v10a.size, v01a.size

    def cov(u: np.ndarray, v: np.ndarray) -> float:
        return float(((u - u.mean()) * (v - v.mean())).sum() / (u.size - 1))

    var = (cov(v10a, v10a) + cov(v10b, v10b) - 2 * cov(v10a, v10b)) / m + (
        cov(v01a, v01a) + cov(v01b, v01b) - 2 * cov(v01a, v01b)
    ) / n
    z = (auc_b - auc_a) / math.sqrt(var)
    return auc_b - auc_a, var, math.erfc(abs(z) / math.sqrt(2))


@pytest.mark.parametrize("tied", [False, True], ids=["untied", "tied"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_delong_equals_the_definition_and_scikit_learn(tied: bool, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 300
    y = rng.random(n) < 0.4
    a = rng.normal(size=n) + 0.8 * y
    b = 0.6 * a + rng.normal(size=n) * 0.8 + 0.5 * y
    if tied:  # few distinct values: many ties inside and across classes
        a, b = np.round(a * 2) / 2, np.round(b * 2) / 2
    got = delong(y, a, b)
    diff, var, p = _delong_by_definition(y, a, b)
    assert got.auc_a == pytest.approx(roc_auc_score(y, a), abs=1e-12)
    assert got.auc_b == pytest.approx(roc_auc_score(y, b), abs=1e-12)
    assert got.difference == pytest.approx(diff, abs=1e-12)
    assert got.se**2 == pytest.approx(var, abs=1e-12)
    assert got.p_value == pytest.approx(p, abs=1e-9)
    z = 1.959963984540054
    assert (got.ci_low, got.ci_high) == pytest.approx((diff - z * math.sqrt(var), diff + z * math.sqrt(var)), abs=1e-9)


def test_a_run_compared_with_itself_differs_by_nothing() -> None:
    rng = np.random.default_rng(5)
    y = rng.random(200) < 0.5
    s = rng.normal(size=200) + y
    d = delong(y, s, s)
    assert (d.difference, d.se, d.p_value, d.ci_low, d.ci_high) == (0.0, 0.0, 1.0, 0.0, 0.0)
    v = rng.random(200)
    r = paired_bootstrap(200, mean_statistic(v), mean_statistic(v), draws=500, seed=3)
    assert (r.difference, r.ci_low, r.ci_high, r.p_value) == (0.0, 0.0, 0.0, 1.0)


def test_delong_needs_both_classes() -> None:
    with pytest.raises(ValueError, match="needs targets and non-targets"):
        delong(np.ones(3, bool), np.arange(3.0), np.arange(3.0))


def test_draws_are_seeded_and_each_resamples_every_trial() -> None:
    one = np.concatenate([d.counts for d in draw_counts(7, 50, seed=11)])
    two = np.concatenate([d.counts for d in draw_counts(7, 50, seed=11)])
    assert one.shape == (50, 7) and (one.sum(axis=1) == 7).all() and (one == two).all()
    assert not (one == np.concatenate([d.counts for d in draw_counts(7, 50, seed=12)])).all()
    (chunk,) = draw_counts(7, 3, seed=5)  # the counts are those of the positions drawn
    assert [np.bincount(p, minlength=7).tolist() for p in chunk.positions] == chunk.counts.tolist()


def test_the_paired_bootstrap_covers_the_true_difference_at_its_level() -> None:
    """200 simulated pairs of runs on 80 trials with a known difference of means (0.1) and correlated errors: the
    90 % interval of the difference covers it in 85-95 % of them, and the test rejects a true zero difference in
    about 10 % (5-15 %)."""
    rng = np.random.default_rng(2026)
    covered = rejected = 0
    sims = 200
    for k in range(sims):
        base = rng.normal(size=80)
        a = base + rng.normal(scale=0.5, size=80)
        b = base + 0.1 + rng.normal(scale=0.5, size=80)
        r = paired_bootstrap(80, mean_statistic(a), mean_statistic(b), draws=400, seed=k, level=0.9)
        covered += r.ci_low <= 0.1 <= r.ci_high
        null = base + rng.normal(scale=0.5, size=80)
        rejected += paired_bootstrap(80, mean_statistic(a), mean_statistic(null), draws=400, seed=k).p_value < 0.1
    assert 0.85 * sims <= covered <= 0.95 * sims, covered
    assert 0.05 * sims <= rejected <= 0.15 * sims, rejected


def test_a_clear_difference_is_significant_and_its_sign_kept() -> None:
    rng = np.random.default_rng(9)
    a = rng.random(500)
    b = a + 0.05 + rng.normal(scale=0.01, size=500)
    r = paired_bootstrap(500, mean_statistic(a), mean_statistic(b), draws=1000, seed=1)
    assert r.difference == pytest.approx(float(b.mean() - a.mean()))
    assert 0.04 < r.ci_low < r.difference < r.ci_high < 0.06 and r.p_value < 0.01
    lo, hi = bootstrap_interval(500, mean_statistic(a), draws=1000, seed=1)
    assert lo < a.mean() < hi and hi - lo < 0.1
