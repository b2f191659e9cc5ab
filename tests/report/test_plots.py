"""report/plots.py: the DET axes' probit (Acklam's approximation refined by one Halley step), and the
curve simplification that keeps the inline SVG small.

Known quantiles of the standard normal (to 16 digits, e.g. Abramowitz & Stegun 26.2 and
Wichura's AS241 test values) are matched to 1e-12; the function is exactly antisymmetric;
Phi(probit(p)) returns p; and, where scipy is installed (the test extras bring it with
scikit-learn), it agrees with scipy.special.ndtri over 300 decades of the lower tail.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from pytest_omfc.report.plots import probit

#: (p, Phi^-1(p)): Phi(1) = 0.8413447460685429, Phi(2) = 0.9772498680518208, the 95% and 99.9% points,
#: and AS241's tail values.
KNOWN = [
    (0.5, 0.0),
    (0.8413447460685429, 1.0),
    (0.9772498680518208, 2.0),
    (0.975, 1.959963984540054),
    (0.95, 1.6448536269514722),
    (0.999, 3.090232306167813),
    (0.25, -0.6744897501960817),
    (1e-10, -6.361340902404056),
]


@pytest.mark.parametrize(("p", "want"), KNOWN)
def test_known_quantiles_to_1e_12(p: float, want: float) -> None:
    assert abs(float(probit(p)) - want) <= 1e-12 * max(1.0, abs(want))


def test_antisymmetric_exactly() -> None:
    q = 1.0 - np.concatenate([np.logspace(-15, math.log10(0.5), 500), np.linspace(0.01, 0.5, 99)])
    r = 1.0 - q  # exact for q >= 0.5 (Sterbenz), so q and r are exactly complementary
    assert np.array_equal(probit(q), -probit(r))


def test_round_trip_through_the_normal_cdf() -> None:
    p = np.concatenate([np.logspace(-250, -1, 300), np.linspace(0.1, 0.9, 81)])
    x = probit(p)
    back = np.array([0.5 * math.erfc(-v / math.sqrt(2)) for v in x])
    # x is right to a few ulps, and dp/p = |x| dx: at x = -33.8 an ulp of x (7e-15) moves p by 2.4e-13 relative
    rel = np.abs(back - p) / p
    assert (rel <= 4 * np.finfo(float).eps * np.maximum(1.0, x * x)).all(), rel.max()


def test_edges() -> None:
    got = probit([0.0, 1.0, -0.1, 1.1, float("nan")])
    assert got[0] == -np.inf and got[1] == np.inf
    assert np.isnan(got[2:]).all()
    assert probit(0.3).shape == ()  # a scalar in, a 0-d array out


def test_agrees_with_scipy() -> None:
    special = pytest.importorskip("scipy.special", reason="scipy is not installed (it comes with the test extras)")
    p = np.concatenate([np.logspace(-300, -1, 3000), np.linspace(0.01, 0.99, 2001), 1 - np.logspace(-16, -1, 300)])
    want = special.ndtri(p)
    np.testing.assert_allclose(probit(p), want, rtol=1e-13, atol=1e-13)


# --- curve simplification (the SVG stays small; the drawing does not change) ---------------------------

from pytest_omfc.report.plots import GRID, _simplify, det_svg, roc_svg  # noqa: E402  (the section's own imports)


def test_simplify_keeps_corners_and_reversals_only() -> None:
    # a staircase 0,0 -> 0,3 -> 2,3 -> 2,5 sampled at every 0.5 px, with repeats: 4 corners remain
    up = [(0.0, v / 2) for v in range(7)] + [(0.0, 3.0)]
    right = [(v / 2, 3.0) for v in range(1, 5)]
    up2 = [(2.0, 3 + v / 2) for v in range(1, 5)]
    got = _simplify(np.array(up + right + up2))
    assert got.tolist() == [[0.0, 0.0], [0.0, 3.0], [2.0, 3.0], [2.0, 5.0]]
    # going back along the same line is drawn, so it is kept
    assert _simplify(np.array([[0.0, 0.0], [4.0, 0.0], [1.0, 0.0]])).tolist() == [[0.0, 0.0], [4.0, 0.0], [1.0, 0.0]]


def test_simplified_points_are_the_snapped_originals() -> None:
    rng = np.random.default_rng(1)
    pts = np.cumsum(rng.random((5000, 2)), axis=0)  # a monotone random walk
    got = _simplify(pts)
    snapped = np.round(pts * GRID) / GRID
    assert np.abs(snapped - pts).max() <= 0.5 / GRID  # at most 1/8 pixel off
    assert {tuple(p) for p in got} <= {tuple(p) for p in snapped}  # only points of the curve, no new ones
    assert got[0].tolist() == snapped[0].tolist() and got[-1].tolist() == snapped[-1].tolist()


def test_svg_of_16000_trials_is_small() -> None:
    from pytest_omfc.scoring import score_trials

    rng = np.random.default_rng(2024)
    y = rng.random(16_000) < 0.5
    result = score_trials(np.round(rng.normal(np.where(y, 0.8, 0.0), 1.0), 4), y)
    assert result.roc.fpr.size > 7000
    sizes = [len(roc_svg(result, size=(640, 480))), len(det_svg(result, size=(640, 480)))]
    assert max(sizes) < 60_000, sizes  # 28 and 26 KB; 1.6 MB together before the simplification
