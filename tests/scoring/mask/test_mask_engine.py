"""Mask (localization) scoring engine: hand-computed cases and MediScore conformance (docs/scoring/masks.md).

The unit tests use masks of a few pixels whose counts are worked out by hand in
the comments; erode/dilate are checked against a slow, obviously correct loop.
The conformance tests rebuild MediScore's per-image rows (``compcheckfiles/
ref_maskreport_<case>-perimage.csv``) from the reference and system PNGs of the
shared conformance data and compare every metric column to 1e-9.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd
import pytest
from helpers.paths import REPO
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray
from PIL import Image

from pytest_omfc.scoring.mask import (
    KERNEL_SHAPES,
    Kernels,
    MaskScore,
    ThresholdTable,
    aggregate_colour,
    bitplane_reference,
    colour_reference,
    dilate,
    erode,
    kernel,
    mask_average_auc,
    maximum,
    no_score_weights,
    pixel_average_auc,
    score_mask,
)

# --- kernels (docs/scoring/masks.md#no-score-zones table)
# --------------------------------------------------------------


def test_box_kernel_is_all_ones() -> None:
    assert np.array_equal(kernel("box", 3), np.ones((3, 3), dtype=np.uint8))


def test_disc_kernels_are_opencv_ellipses() -> None:
    """r = c = k//2; row i has ones on [c-dx, c+dx] with dx = round(c*sqrt((r^2-dy^2)/r^2))."""
    disc5 = [[0, 0, 1, 0, 0], [1, 1, 1, 1, 1], [1, 1, 1, 1, 1], [1, 1, 1, 1, 1], [0, 0, 1, 0, 0]]
    disc7 = [  # dy=+-3: dx=0; dy=+-2: round(sqrt 5)=2; dy=+-1: round(sqrt 8)=3
        [0, 0, 0, 1, 0, 0, 0],
        [0, 1, 1, 1, 1, 1, 0],
        [1, 1, 1, 1, 1, 1, 1],
        [1, 1, 1, 1, 1, 1, 1],
        [1, 1, 1, 1, 1, 1, 1],
        [0, 1, 1, 1, 1, 1, 0],
        [0, 0, 0, 1, 0, 0, 0],
    ]
    assert kernel("disc", 5).tolist() == disc5
    assert kernel("disc", 7).tolist() == disc7
    # disc 15, row by row half-widths: round(sqrt(49 - dy^2)) for dy = -7..7
    widths = [int(kernel("disc", 15)[i].sum()) for i in range(15)]
    assert widths == [2 * round(math.sqrt(49 - dy * dy)) + 1 for dy in range(-7, 8)]


def test_diamond_line_and_gaussian_kernels() -> None:
    assert kernel("diamond", 5).tolist() == [
        [0, 0, 1, 0, 0],
        [0, 1, 1, 1, 0],
        [1, 1, 1, 1, 1],
        [0, 1, 1, 1, 0],
        [0, 0, 1, 0, 0],
    ]
    assert np.array_equal(kernel("line", 5), np.eye(5, dtype=np.uint8))
    for k in (3, 11, 15, 17):  # no underflow: the gaussian kernel is a box
        assert np.array_equal(kernel("gaussian", k), np.ones((k, k), dtype=np.uint8))
    # k = 19: exp(-(x^2+y^2)/0.18) underflows to 0 where x^2+y^2 > 134 (the 12 cells beyond (9,7))
    g19 = kernel("gaussian", 19)
    y, x = np.indices((19, 19)) - 9
    assert np.array_equal(g19, (x * x + y * y <= 134).astype(np.uint8))
    assert int(g19.sum()) == 361 - 12


def test_kernel_size_zero_is_identity_and_even_sizes_fail() -> None:
    assert kernel("disc", 0).tolist() == [[1]]
    with pytest.raises(ValueError, match="odd"):
        kernel("box", 4)
    with pytest.raises(ValueError, match="odd"):
        kernel("box", -3)
    with pytest.raises(ValueError, match="kernel shape must be one of"):
        kernel("star", 3)


# --- erode / dilate against a slow reference -----------------------------------------------------


def slow_morph(mask: NDArray[np.bool_], kern: NDArray[np.uint8], op: str) -> NDArray[np.bool_]:
    """OpenCV semantics spelled out: anchor at the centre, out-of-image pixels are ignored."""
    h, w = mask.shape
    kh, kw = kern.shape
    out = np.zeros_like(mask)
    for y in range(h):
        for x in range(w):
            seen = [
                bool(mask[y + i - kh // 2, x + j - kw // 2])
                for i in range(kh)
                for j in range(kw)
                if kern[i, j] and 0 <= y + i - kh // 2 < h and 0 <= x + j - kw // 2 < w
            ]
            out[y, x] = any(seen) if op == "dilate" else all(seen)
    return out


@pytest.mark.parametrize("shape", KERNEL_SHAPES)
def test_erode_dilate_match_the_slow_reference(shape: str) -> None:
    rng = np.random.default_rng(7)
    for size in (1, 3, 5, 7, 15):  # 15 is larger than some of the images
        for _ in range(3):
            h, w = (int(v) for v in rng.integers(1, 13, 2))
            m = rng.random((h, w)) < rng.uniform(0.05, 0.95)
            k = kernel(shape, size)
            u8 = np.where(m, np.uint8(255), np.uint8(0))
            assert np.array_equal(dilate(m, k), slow_morph(m, k, "dilate")), (shape, size, h, w)
            assert np.array_equal(erode(m, k), slow_morph(m, k, "erode")), (shape, size, h, w)
            assert np.array_equal(dilate(u8, k), np.where(slow_morph(m, k, "dilate"), 255, 0))
            assert np.array_equal(erode(u8, k), np.where(slow_morph(m, k, "erode"), 255, 0))


@settings(max_examples=40, deadline=None)
@given(
    h=st.integers(1, 7),
    w=st.integers(1, 200),
    size=st.sampled_from([1, 3, 9, 65, 131]),
    shape=st.sampled_from(KERNEL_SHAPES),
    density=st.floats(0.01, 0.99),
    seed=st.integers(0, 2**32 - 1),
)
def test_rows_wider_than_a_word_match_the_slow_reference(
    h: int, w: int, size: int, shape: str, density: float, seed: int
) -> None:
    """Rows are bit-packed 64 pixels per word: windows cross words, reach past the row, span whole words."""
    m = np.random.default_rng(seed).random((h, w)) < density
    k = kernel(shape, size)
    if size > 9:  # the slow reference is O(h w k^2): only a few rows of the big kernels
        k = k[size // 2 - 1 : size // 2 + 2]
    assert np.array_equal(dilate(m, k), slow_morph(m, k, "dilate"))
    assert np.array_equal(erode(m, k), slow_morph(m, k, "erode"))


def test_erode_dilate_match_opencv_when_installed() -> None:
    cv2 = pytest.importorskip("cv2")
    rng = np.random.default_rng(3)
    for shape, code in (("box", cv2.MORPH_RECT), ("disc", cv2.MORPH_ELLIPSE)):
        for size in (3, 11, 15, 21):
            assert np.array_equal(kernel(shape, size), cv2.getStructuringElement(code, (size, size)))
    for shape in KERNEL_SHAPES:
        m = np.where(rng.random((40, 57)) < 0.3, np.uint8(255), np.uint8(0))
        k = kernel(shape, 9)
        assert np.array_equal(dilate(m, k), cv2.dilate(m, k)), shape
        assert np.array_equal(erode(m, k), cv2.erode(m, k)), shape


# --- colour reference (docs/scoring/masks.md#ground-truth)
# ----------------------------------------------------------------------


def bgr(*pixels: tuple[int, int, int]) -> NDArray[np.uint8]:
    """One row of RGB pixels as the (1, n, 3) BGR array cv2.imread(..., IMREAD_COLOR) gives."""
    return np.array([[p[::-1] for p in pixels]], dtype=np.uint8)


BLACK, RED, GREEN, WHITE_PX = (0, 0, 0), (255, 0, 0), (0, 255, 0), (255, 255, 255)


def test_aggregate_colour_is_65536b_256g_r() -> None:
    assert aggregate_colour("255 0 0") == 255
    assert aggregate_colour("0 0 255") == 16711680
    assert aggregate_colour((0, 255, 6)) == 65536 * 6 + 256 * 255
    with pytest.raises(ValueError, match="R G B"):
        aggregate_colour("12 3")


def test_colour_reference_selects_journal_colours_and_flags_the_rest() -> None:
    img = bgr(BLACK, RED, GREEN, WHITE_PX)
    ref = colour_reference(img, ["255 0 0"])
    assert ref.bw.tolist() == [[255, 0, 255, 255]]
    assert ref.unselected is not None and ref.unselected.tolist() == [[True, False, True, False]]
    black_only = colour_reference(img, None)  # no journal, or --rbin: GT = black pixels
    assert black_only.bw.tolist() == [[0, 255, 255, 255]]
    assert black_only.unselected is not None and black_only.unselected.tolist() == [[False, True, True, False]]
    probe = colour_reference(img, ["255 0 0"], mode="splice_probe")  # journal ignored, no SNS
    assert probe.bw.tolist() == [[0, 255, 255, 255]] and probe.unselected is None
    donor = colour_reference(img, ["255 0 0"], mode="splice_donor")
    assert donor.bw.tolist() == [[0, 255, 255, 255]]
    assert donor.unselected is not None and donor.unselected.tolist() == [[False, True, True, False]]
    assert not colour_reference(img, ["1 2 3"]).scoreable
    grey = colour_reference(np.array([[0, 128, 255]], dtype=np.uint8), mode="splice_donor")
    assert grey.bw.tolist() == [[0, 255, 255]] and grey.unselected is not None
    assert grey.unselected.tolist() == [[False, True, False]]


def test_bitplane_reference_clears_unlisted_bits_and_flags_unevaluated_ones() -> None:
    # bits: 1 -> 1, 2 -> 2, 3 -> 4 (listed, not evaluated), 4 -> 8 (not listed: cleared); layer 1 holds bit 9
    planes = np.zeros((1, 6, 2), dtype=np.uint8)
    planes[0, :, 0] = [0, 1, 2, 4, 8, 5]
    planes[0, 2, 1] = 1  # bit plane 9 on the pixel that also has bit 2
    ref = bitplane_reference(planes, ["1", "2", "3", "", "None", "9"], [1, "9"])
    assert ref.bw.tolist() == [[255, 0, 0, 255, 255, 0]]  # bit 1, or bit 9 (layer 1)
    assert ref.unselected is not None
    assert ref.unselected.tolist() == [[False, False, True, True, False, True]]  # bits 2 and 3; 8 is cleared
    flat = bitplane_reference(planes[:, :, 0], [1, 2], [2])
    assert flat.bw.tolist() == [[255, 255, 0, 255, 255, 255]] and flat.unselected is not None
    assert flat.unselected.tolist() == [[False, True, False, False, False, True]]
    assert not bitplane_reference(np.zeros((2, 2), dtype=np.uint8), [1], [1]).scoreable
    with pytest.raises(ValueError, match="BitPlane must be a positive integer"):
        bitplane_reference(planes, ["0"], [])


# --- weights (docs/scoring/masks.md#no-score-zones)
# -------------------------------------------------------------------------------


def square_reference() -> NDArray[np.uint8]:
    """12x12, GT = rows/cols 4..7 (16 px)."""
    bw = np.full((12, 12), 255, dtype=np.uint8)
    bw[4:8, 4:8] = 0
    return bw


def test_boundary_no_score_ring_box_3_3() -> None:
    # erode_3(GT) = 5..6 (4 px), dilate_3(GT) = 3..8 (36 px): a ring of 32 px
    w = no_score_weights(square_reference(), kernels=Kernels(eks=3, dks=3))
    ring = np.zeros((12, 12), dtype=bool)
    ring[3:9, 3:9] = True
    ring[5:7, 5:7] = False
    assert np.array_equal(~w.bns, ring)
    assert (w.pixel_bns, w.pixel_sns, w.pixel_pns, w.pixel_n) == (32, 0, 0, 112)


def test_selection_no_score_keeps_the_eroded_gt_and_pixel_counts_double_count() -> None:
    bw = square_reference()
    unselected = np.zeros((12, 12), dtype=bool)
    unselected[6, 8] = True  # a distraction pixel next to the GT
    sys = np.full((12, 12), 255, dtype=np.uint8)
    sys[8, 10] = 77  # inside the SNS zone: counted in PixelSNS and in PixelPNS
    sys[0, 0] = 77
    w = no_score_weights(bw, sys, unselected=unselected, kernels=Kernels(eks=3, dks=3, ntdks=5), no_score_value=77)
    # dilate_5(U) = rows 4..8 x cols 6..10 (25 px) minus the eroded GT (5,6), (6,6) -> 23
    assert w.pixel_sns == 23
    assert bool(w.sns[5, 6]) and bool(w.sns[6, 6]) and not w.sns[4, 6]
    # ring (32) minus its part inside the SNS zone (rows 4..8 x cols 6..8 = 15, less the 2 eroded) = 19
    assert w.pixel_bns == 19
    assert w.pixel_pns == 2
    # unscored: ring U SNS zone = 32 + 23 - 13 = 42, and (0,0) -> 144 - 43
    assert w.pixel_n == 101
    s = score_mask(bw, sys, unselected=unselected, no_score_value=77, kernels=Kernels(eks=3, dks=3, ntdks=5))
    assert (s.pixel_n, s.pixel_bns, s.pixel_sns, s.pixel_pns) == (101, 19, 23, 2)


def test_no_kernels_mean_no_boundary_zone() -> None:
    w = no_score_weights(square_reference(), kernels=Kernels(eks=0, dks=0))
    assert w.bns.all() and w.pixel_n == 144


# --- sweep, optimum, actual, metrics (docs/scoring/masks.md#threshold-sweep to optimum-maximum-and-actual)
# ---------------------------------------------------

# 2x4: P = 3 GT pixels, 5 non-GT.  At t a pixel is called manipulated when sys <= t.
BW = np.array([[0, 0, 255, 255], [0, 255, 255, 255]], dtype=np.uint8)
SYS = np.array([[10, 50, 10, 200], [50, 200, 255, 255]], dtype=np.uint8)


def mcc(tp: int, fp: int, fn: int, tn: int) -> float:
    return (tp * tn - fp * fn) / math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))


def test_sweep_counts_and_metrics_by_hand() -> None:
    s = score_mask(BW, SYS, kernels=Kernels(eks=0, dks=0))
    t = s.table
    assert t is not None
    assert t.thresholds.tolist() == [-1, 10, 50, 200, 255]
    assert t.tp.tolist() == [0, 1, 3, 3, 3] and t.fp.tolist() == [0, 1, 1, 3, 5]
    assert t.fn.tolist() == [3, 2, 0, 0, 0] and t.tn.tolist() == [5, 4, 4, 2, 0]
    want_mcc = [0.0, mcc(1, 1, 2, 4), mcc(3, 1, 0, 4), mcc(3, 3, 0, 2), 0.0]
    np.testing.assert_allclose(t.mcc(), want_mcc, rtol=1e-15)
    opt = s.optimum
    assert opt is not None
    assert (opt.threshold, opt.tp, opt.tn, opt.fp, opt.fn) == (50, 3, 4, 1, 0)
    assert opt.nmm == pytest.approx(2 / 3) and opt.bwl1 == pytest.approx(1 / 8)
    assert opt["F1"] == pytest.approx(6 / 7) and opt["IoU"] == pytest.approx(3 / 4)
    # GWL1: GT pixels |0 - v| = 10+50+50, others 255 - v = 245+55+55+0+0 -> 465/255/8
    assert s.gwl1 == pytest.approx(465 / 255 / 8, rel=1e-15)
    # ROC (0,0) (0,0) (.2,1/3) (.2,1) (.6,1) (1,1): AUC = .2*(1/3)/2 + .4 + .4; EER at (.2,1) = .1
    assert s.auc == pytest.approx(5 / 6, rel=1e-15)
    assert s.eer == pytest.approx(0.1, rel=1e-15)
    assert s.row()["OptimumThreshold"] == 50 and s.row()["Scored"] == "Y"


def test_thresholds_come_from_every_pixel_and_ties_take_the_lowest() -> None:
    # An extra column: (0,4) holds 60 but is no-score (--nspx 60); (1,4) is a scored negative at 255.
    bw = np.hstack([BW, [[255], [255]]]).astype(np.uint8)
    sys = np.hstack([SYS, [[60], [255]]]).astype(np.uint8)
    s = score_mask(bw, sys, no_score_value=60, actual_threshold=55, kernels=Kernels(eks=0, dks=0))
    t = s.table
    assert t is not None
    assert t.thresholds.tolist() == [-1, 10, 50, 60, 200, 255]  # 60 only occurs on a no-score pixel
    mccs = t.mcc()
    assert mccs[2] == mccs[3] == pytest.approx(mcc(3, 1, 0, 5))  # t = 50 and t = 60 tie
    assert s.optimum is not None and s.optimum.threshold == 50
    assert (s.pixel_n, s.pixel_pns) == (9, 1)
    assert s.actual is not None  # Actual at --sbin 55 = counts at 50, reported at 55
    assert (s.actual.threshold, s.actual.tp, s.actual.fp) == (55, 3, 1)
    assert s.row()["ActualThreshold"] == 55
    low = score_mask(bw, sys, actual_threshold=-1, kernels=Kernels(eks=0, dks=0)).actual
    assert low is not None and (low.tp, low.fp, low.mcc) == (0, 0, 0.0)


def test_a_boolean_reference_is_the_gt_itself() -> None:
    assert (
        score_mask(BW == 0, SYS, kernels=Kernels(eks=3, dks=3)).row()
        == score_mask(BW, SYS, kernels=Kernels(eks=3, dks=3)).row()
    )


def test_degenerate_shapes_do_not_crash() -> None:
    assert not score_mask(np.zeros((0, 0), dtype=np.uint8), np.zeros((0, 0), dtype=np.uint8)).scored
    one = score_mask(np.zeros((1, 1), dtype=np.uint8), np.zeros((1, 1), dtype=np.uint8))  # box 15 on 1 px
    assert one.scored and one.pixel_n == 1 and one.pixel_bns == 0  # the image border never erodes the GT
    line = np.full((1, 5000), 255, dtype=np.uint8)
    line[0, 2000:3000] = 0
    s = score_mask(line, line.copy())
    # a 1-row image: eroding by box 15 keeps 7 px inside each end, dilating by 11 adds 5 outside each end
    assert s.pixel_bns == 2 * (7 + 5) and s.optimum is not None and s.optimum.mcc == 1.0


def test_mcc_and_nmm_degenerate_cases() -> None:
    # every scored pixel is GT: TP+FN = N, so MCC = 0 at every threshold
    # (docs/scoring/masks.md#metrics-at-one-threshold)
    s = score_mask(
        np.zeros((2, 2), dtype=np.uint8), np.array([[0, 9], [9, 255]], dtype=np.uint8), kernels=Kernels(eks=0, dks=0)
    )
    assert s.table is not None and s.table.mcc().tolist() == [0.0, 0.0, 0.0, 0.0]
    assert s.optimum is not None and s.optimum.threshold == -1 and s.optimum.nmm == -1.0
    # the only GT pixel is no-score: NMM NaN, MCC 0, per-mask ROC points all (0,0) -> AUC 0, EER 0.5
    s = score_mask(
        np.array([[0, 255, 255]], dtype=np.uint8),
        np.array([[7, 0, 255]], dtype=np.uint8),
        no_score_value=7,
        kernels=Kernels(eks=0, dks=0),
    )
    assert s.optimum is not None and math.isnan(s.optimum.nmm) and s.optimum.mcc == 0.0
    assert (s.auc, s.eer) == (0.0, 0.5)
    assert s.table is not None
    f1 = s.table.f1()
    assert math.isnan(f1[0]) and f1[1] == 0.0  # t = -1: 2TP+FP+FN = 0 -> NaN
    assert math.isnan(s.table.iou()[0])


# --- special cases (docs/scoring/masks.md#special-cases)
# -------------------------------------------------------------------------


def test_missing_system_mask_is_a_white_mask_with_mcc_0() -> None:
    s = score_mask(BW, None, kernels=Kernels(eks=0, dks=0))
    o = s.optimum
    assert o is not None
    assert (o.threshold, o.mcc, o.nmm, o.tp, o.fn) == (-1, 0.0, -1.0, 0, 3)
    assert o.bwl1 == pytest.approx(3 / 8) and s.gwl1 == pytest.approx(3 / 8)
    assert (s.auc, s.eer) == (0.5, 0.5)


def test_constant_system_mask_gives_auc_and_eer_one_half() -> None:
    s = score_mask(BW, np.full(BW.shape, 128, dtype=np.uint8), kernels=Kernels(eks=0, dks=0))
    assert (s.auc, s.eer) == (0.5, 0.5)
    assert s.optimum is not None and s.optimum.threshold == -1


def test_all_weights_zero_is_scored_with_nan_metrics() -> None:
    bw = np.full((3, 3), 255, dtype=np.uint8)
    bw[1, 1] = 0  # box 3/3: the ring covers the whole 3x3 image
    s = score_mask(bw, np.zeros((3, 3), dtype=np.uint8), kernels=Kernels(eks=3, dks=3), actual_threshold=0)
    assert s.scored and s.pixel_n == 0 and s.pixel_bns == 9
    assert s.optimum is not None and math.isnan(s.optimum.threshold) and math.isnan(s.optimum.mcc)
    assert math.isnan(s.gwl1) and math.isnan(s.auc) and math.isnan(s.eer)
    row = s.row()
    assert row["Scored"] == "Y" and row["OptimumThreshold"] is None and row["OptimumMCC"] is None
    assert (row["PixelN"], row["OptimumPixelTP"], row["PixelBNS"]) == (0, 0, 9)
    assert row["ActualPixelTP"] is None and row["ActualMCC"] is None  # blank, unlike the Optimum counts


def test_no_selected_region_is_not_scored() -> None:
    s = score_mask(np.full((4, 4), 255, dtype=np.uint8), np.zeros((4, 4), dtype=np.uint8))
    assert not s.scored and s.optimum is None and s.table is None
    row = s.row("p")
    assert row["ProbeScored"] == "N" and row["pOptimumMCC"] is None and row["pPixelN"] is None


def test_bad_arguments_raise_value_errors() -> None:
    with pytest.raises(ValueError, match="must have the reference's shape"):
        score_mask(BW, np.zeros((3, 3), dtype=np.uint8))
    with pytest.raises(ValueError, match="must be uint8"):
        score_mask(BW, SYS.astype(np.float32))
    with pytest.raises(ValueError, match="odd"):
        score_mask(BW, SYS, kernels=Kernels(eks=4))
    with pytest.raises(ValueError, match="no-score pixel value must be an integer"):
        score_mask(BW, SYS, no_score_value="abc")
    with pytest.raises(ValueError, match="no-score pixel value must be an integer"):
        score_mask(BW, SYS, no_score_value=2.5)
    with pytest.raises(ValueError, match=r"actual threshold must be in \[-1, 255\]"):
        score_mask(BW, SYS, actual_threshold=256)
    for empty in (None, "", -1, "-1"):
        assert score_mask(BW, SYS, no_score_value=empty, kernels=Kernels(eks=0, dks=0)).pixel_pns == 0


# --- aggregates (docs/scoring/masks.md#optimum-maximum-and-actual)
# ----------------------------------------------------------------------------


def tables() -> list[ThresholdTable | None]:
    a = ThresholdTable(np.array([-1, 10, 20]), np.array([0, 2, 4]), np.array([0, 0, 3]), 4, 6)
    b = ThresholdTable(np.array([-1, 15]), np.array([0, 1]), np.array([0, 1]), 2, 2)
    empty = ThresholdTable(np.array([-1, 3]), np.array([0, 0]), np.array([0, 0]), 0, 0)  # N = 0
    return [a, None, b, empty]


def test_maximum_is_the_best_summed_mcc_over_the_union_of_thresholds() -> None:
    # union -1, 10, 15, 20; MCC a = 0, mcc(2,0,2,6), same, mcc(4,3,0,3); b = 0, 0, mcc(1,1,1,1)=0, 0
    m = maximum(tables())
    assert m.threshold == 10
    a, none, b, empty = m.per_mask
    assert none is None and empty is None and a is not None and b is not None
    assert a.mcc == pytest.approx(mcc(2, 0, 2, 6)) and (a.tp, a.fp, a.threshold) == (2, 0, 10)
    assert (b.tp, b.fp, b.mcc, b.threshold) == (0, 0, 0.0, 10)  # b's own row at -1
    assert m.mean_mcc == pytest.approx(mcc(2, 0, 2, 6) / 2)


def test_pixel_and_mask_average_auc() -> None:
    # pooled: TP 0,2,3,5 of 6; FP 0,0,1,4 of 8 -> AUC 73/96
    assert pixel_average_auc(tables()) == pytest.approx(73 / 96, rel=1e-15)
    # mean per-mask points (0,0) (0,.25) (.25,.5) (.5,.75) -> AUC .6875
    assert mask_average_auc(tables()) == pytest.approx(0.6875, rel=1e-15)
    assert math.isnan(pixel_average_auc([None]))


# --- conformance with MediScore's per-image checkfiles (docs/scoring/masks.md#checked-against-mediscore)
# -------------------------

TS = REPO.parent / "shared" / "conformance" / "mediscore" / "test_suite" / "maskScorerTests"
M16 = "B_NC2016_Unittest_Manipulation_ImgOnly_c-me2_1"
M17 = "B_NC2017_Unittest_Manipulation_ImgOnly_c-me2_1"
S17 = "B_NC2017_Unittest_Splice_ImgOnly_p-me_1"
S16 = "B_NC2016_Unittest_Splice_ImgOnly_p-me_1"
J16, J17 = "reference/manipulation/NC2016-manipulation-ref", "reference/manipulation/NC2017-manipulation-ref"
M18, J18 = "B_MFC18_Unittest_Manipulation_ImgOnly_p-me_1", "reference/manipulation-image/MFC18-manipulation-image-ref"


@dataclass(frozen=True)
class Check:
    """A compcheckfile and the MaskScorer options that produced it (docs/scoring/masks.md#checked-against-mediscore)."""

    sysdir: str
    journal: str | None = None  # manipulation: reference CSV stem; None = splice
    purposes: tuple[str, ...] | None = None  # -qm "Purpose==[...]"
    nspx: int | None = None
    sbin: int | None = None
    bitplane: bool = False  # --jpeg2000: ProbeBitPlaneMaskFileName, journal BitPlane
    operations: tuple[str, ...] | None = None  # -qm "Operation==[...]"
    pppns: bool = False  # -pppns: the system CSV's ProbeOptOutPixelValue


CHECKS: dict[str, Check] = {
    "manip": Check(M16, J16),
    "thres": Check(M17, J17, sbin=128),
    "all": Check(M17, J17, nspx=200),
    "manipfailvalid": Check("p-failvalid_1_manip", J17),
    "manip_optOut": Check(M17, J17),
    "manipconf": Check(M17, J17),
    "manipconfpart": Check(M17, J17),
    "manipconfclonepart": Check(M17, J17),
    "manipconfmanmade": Check(M17, J17),
    "clone": Check(M17, J17, purposes=("clone",)),
    "add": Check(M17, J17, purposes=("add",)),
    "clone_add": Check(M17, J17, purposes=("clone", "add")),
    "target_optOut": Check(M17, J17, purposes=("clone", "add")),
    "remove": Check(M17, J17, purposes=("remove",)),
    "heal": Check(M17, J17, purposes=("heal",)),
    "splice": Check(S17),
    "splice_optOut": Check(S17),
    "splice_query": Check(S17),  # -qm selects pairs only; the splice GT ignores the journal
    "splicefailvalid": Check("p-failvalid_2_splice"),
    "spliceconf": Check(S16),
    "spliceconfpart": Check(S16),
    "spliceconfcoll": Check(S16),
    "spliceconfcollpart": Check(S16),
    "splicefooconf": Check(S16),
    "splicefooconfpart": Check(S16),
    "manipfooconf": Check(M17, J17),
    "manipfooconfpart": Check(M17, J17),
    "splicebin": Check("C_NC2017_Unittest_Splice_ImgOnly_p-me_1", sbin=200),
    "bittest_1": Check(M18, J18, bitplane=True),
    "bittest_oo": Check(M18, J18, bitplane=True),
    "bittest_partial": Check(M18, J18, bitplane=True, operations=("PasteSampled",)),
    "bittest_partial_oo": Check(M18, J18, bitplane=True, operations=("PasteSampled",)),
    "bittest_pixns": Check(M18, J18, bitplane=True, pppns=True),
}

#: columns compared (with the p/d prefix for splice)
COLUMNS = (
    "OptimumThreshold",
    "OptimumNMM",
    "OptimumMCC",
    "OptimumBWL1",
    "GWL1",
    "AUC",
    "EER",
    "PixelN",
    "OptimumPixelTP",
    "OptimumPixelTN",
    "OptimumPixelFP",
    "OptimumPixelFN",
    "PixelBNS",
    "PixelSNS",
    "PixelPNS",
    "ActualNMM",
    "ActualMCC",
    "ActualBWL1",
    "ActualPixelTP",
    "ActualPixelTN",
    "ActualPixelFP",
    "ActualPixelFN",
)


@lru_cache(maxsize=64)
def perimage(name: str) -> pd.DataFrame:
    return pd.read_csv(
        TS / "compcheckfiles" / f"ref_maskreport_{name}-perimage.csv", sep="|", dtype=str, keep_default_na=False
    )


def conformance_rows(name: str) -> list[tuple[str, str]]:
    """(ProbeFileID, side) of every per-image row; side '' (manipulation), 'p' or 'd' (splice)."""
    df = perimage(name)
    sides = ("",) if CHECKS[name].journal else ("p", "d")
    return [(pid, side) for pid in df["ProbeFileID"] for side in sides]


def _params() -> list[object]:
    if not (TS / "compcheckfiles").is_dir():
        return [pytest.param(None, None, None, marks=pytest.mark.skip(reason=f"conformance data not found at {TS}"))]
    return [
        pytest.param(name, pid, side, id=f"{name}-{pid[:8]}{side and '-' + side}")
        for name in CHECKS
        for pid, side in conformance_rows(name)
    ]


@lru_cache(maxsize=64)
def digest(rel: str) -> str:
    """md5 of a conformance file: the failvalid folders repeat the same masks under other names."""
    path = TS / rel
    if not path.is_file():
        pytest.skip(f"conformance file missing: {path}")
    return hashlib.md5(path.read_bytes()).hexdigest()


@lru_cache(maxsize=2)
def _decode(key: str, rel: str, colour: bool) -> NDArray[np.uint8]:
    with Image.open(TS / rel) as im:
        if colour:
            return np.ascontiguousarray(np.asarray(im.convert("RGB"))[:, :, ::-1])
        return np.asarray(im.convert("L"))


def read_png(rel: str, colour: bool) -> NDArray[np.uint8]:
    """cv2.imread(path, IMREAD_COLOR) (BGR) or IMREAD_GRAYSCALE, through Pillow."""
    return _decode(digest(rel), rel, colour)


def read_planes(rel: str) -> NDArray[np.uint8]:
    """A bit-plane reference as stored (JPEG 2000, or PNG under a .jp2 name: Pillow reads the signature)."""
    digest(rel)
    with Image.open(TS / rel) as im:
        return np.asarray(im)


@lru_cache(maxsize=8)
def journal(stem: str) -> pd.DataFrame:
    join = pd.read_csv(TS / f"{stem}-probejournaljoin.csv", sep="|", dtype=str, keep_default_na=False)
    mask = pd.read_csv(TS / f"{stem}-journalmask.csv", sep="|", dtype=str, keep_default_na=False)
    return join.merge(mask, on=["JournalName", "StartNodeID", "EndNodeID"])


def journal_rows(check: Check, probe: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The probe's journal rows, and those selected by -qm (Purpose or Operation), i.e. Evaluated=='Y'."""
    assert check.journal is not None
    rows = journal(check.journal)
    rows = rows[rows["ProbeFileID"] == probe]
    chosen = rows
    if check.purposes is not None:
        chosen = chosen[chosen["Purpose"].isin(check.purposes)]
    if check.operations is not None:
        chosen = chosen[chosen["Operation"].isin(check.operations)]
    return rows, chosen


_SCORES: dict[tuple[object, ...], MaskScore] = {}


def _score(ref: str, sysmask: str, mode: str, selection: tuple[object, ...] | None, nspx: object) -> MaskScore:
    """Score of one mask pair, computed once per distinct (files, options)."""
    key = (digest(ref) if ref else None, digest(sysmask) if sysmask else None, mode, selection, nspx)
    if key not in _SCORES:
        system = read_png(sysmask, False) if sysmask else None
        if mode == "bitplane":
            assert selection is not None and system is not None
            listed, evaluated = selection
            planes = read_planes(ref) if ref else np.zeros(system.shape, dtype=np.uint8)  # white reference
            reference = bitplane_reference(planes, listed, evaluated)  # type: ignore[arg-type]
        else:
            reference = colour_reference(read_png(ref, True), selection, mode=mode)  # type: ignore[arg-type]
        ntdks = 0 if mode.startswith("splice") else 15  # splice forces ntdks = 0 (docs/scoring/masks.md#defaults)
        _SCORES[key] = score_mask(
            reference.bw, system, unselected=reference.unselected, no_score_value=nspx, kernels=Kernels(ntdks=ntdks)
        )
    return _SCORES[key]


def with_actual(score: MaskScore, sbin: int | None) -> MaskScore:
    """Add the Actual metrics at ``--sbin`` from the threshold table (what score_mask(actual_threshold=) does)."""
    if sbin is None or score.table is None:
        return score
    return replace(score, actual=score.table.metrics(score.table.index_at(sbin), sbin))


def trial(name: str, pid: str, side: str) -> MaskScore:
    """Our score of one per-image row of a checkfile (one side for splice), Actual included."""
    check = CHECKS[name]
    row = perimage(name).set_index("ProbeFileID").loc[pid]
    nspx: object = check.nspx
    selection: tuple[object, ...] | None
    if check.bitplane:
        rows, chosen = journal_rows(check, pid)
        selection = (tuple(rows["BitPlane"]), tuple(chosen["BitPlane"]))
        ref, out, mode = row["ProbeBitPlaneMaskFileName"], row["OutputProbeMaskFileName"], "bitplane"
        if check.pppns:
            system_csv = pd.read_csv(TS / check.sysdir / f"{check.sysdir}.csv", sep="|", dtype=str)
            nspx = system_csv.set_index("ProbeFileID").loc[pid, "ProbeOptOutPixelValue"]
    elif check.journal:
        selection = tuple(c for c in journal_rows(check, pid)[1]["Color"] if c)
        ref, out, mode = row["ProbeMaskFileName"], row["OutputProbeMaskFileName"], "manipulation"
    elif side == "p":
        selection, mode = None, "splice_probe"
        ref, out = row["BinaryProbeMaskFileName"], row["OutputProbeMaskFileName"]
    else:
        selection, mode = None, "splice_donor"
        ref, out = row["DonorMaskFileName"], row["OutputDonorMaskFileName"]
    return with_actual(_score(ref, f"{check.sysdir}/{out}" if out else "", mode, selection, nspx), check.sbin)


def compare_row(name: str, pid: str, side: str) -> list[tuple[str, str, object]]:
    """Differences between our row and MediScore's for one per-image row (empty when equal)."""
    row = perimage(name).set_index("ProbeFileID").loc[pid]
    ours = trial(name, pid, side).row(side)
    scored_col = "Scored" if not side else ("ProbeScored" if side == "p" else "DonorScored")
    bad: list[tuple[str, str, object]] = []
    if row[scored_col] != ours[scored_col]:
        bad.append((scored_col, row[scored_col], ours[scored_col]))
    for col in (side + c for c in COLUMNS):
        if col not in row.index:
            continue
        want, got = row[col], ours.get(col)
        if want == "" and got is None:
            continue
        numeric = want != "" and isinstance(got, int | float)
        if not numeric or not math.isclose(float(want), got, rel_tol=1e-9, abs_tol=1e-12):  # type: ignore[arg-type]
            bad.append((col, want, got))
    return bad


@pytest.mark.parametrize(("name", "pid", "side"), _params())
def test_conformance_perimage_row(name: str, pid: str, side: str) -> None:
    assert compare_row(name, pid, side) == []


@pytest.mark.parametrize(
    ("name", "side"),
    [
        ("thres", ""),
        ("splicebin", "p"),
        ("splicebin", "d"),
        ("bittest_1", ""),
        ("bittest_partial", ""),
        ("bittest_pixns", ""),
    ],
)
def test_conformance_maximum_actual_and_average_aucs(name: str, side: str) -> None:
    """Pixel/MaskAverageAUC of a checkfile and, with --sbin (``thres`` 128, ``splicebin`` 200), the Maximum
    threshold and metrics and the Actual means (splicebin's smallmanip has N = 0 and takes no part)."""
    if not (TS / "compcheckfiles").is_dir():
        pytest.skip(f"conformance data not found at {TS}")
    scores = [trial(name, pid, side) for pid in perimage(name)["ProbeFileID"]]
    want = pd.read_csv(TS / "compcheckfiles" / f"ref_maskreport_{name}.csv", sep="|", dtype=str).iloc[0]
    tabs = [s.table for s in scores]
    assert pixel_average_auc(tabs) == pytest.approx(float(want[f"{side}PixelAverageAUC"]), rel=1e-9)
    assert mask_average_auc(tabs) == pytest.approx(float(want[f"{side}MaskAverageAUC"]), rel=1e-9)
    if CHECKS[name].sbin is None:
        return
    m = maximum(tabs)
    used = [x for x in m.per_mask if x is not None]
    assert m.threshold == int(want[f"{side}MaximumThreshold"])
    assert m.mean_mcc == pytest.approx(float(want[f"{side}MaximumMCC"]), rel=1e-9)
    assert float(np.mean([x.nmm for x in used])) == pytest.approx(float(want[f"{side}MaximumNMM"]), rel=1e-9)
    assert float(np.mean([x.bwl1 for x in used])) == pytest.approx(float(want[f"{side}MaximumBWL1"]), rel=1e-9)
    actual = [s.actual for s in scores if s.pixel_n]
    assert float(np.nanmean([a.mcc for a in actual if a])) == pytest.approx(float(want[f"{side}ActualMCC"]), rel=1e-9)
    # per-probe Maximum columns of the per-image file
    for pid, got in zip(perimage(name)["ProbeFileID"], m.per_mask, strict=True):
        row = perimage(name).set_index("ProbeFileID").loc[pid]
        if got is None:
            assert row[f"{side}MaximumMCC"] == ""
            continue
        assert got.mcc == pytest.approx(float(row[f"{side}MaximumMCC"]), rel=1e-9)
        assert (got.tp, got.tn, got.fp, got.fn) == tuple(
            int(row[f"{side}MaximumPixel{c}"]) for c in ("TP", "TN", "FP", "FN")
        )


@pytest.mark.parametrize("mode", ["manipulation", "splice_probe", "splice_donor"])
@pytest.mark.parametrize(
    "selected", [None, ["0 0 0"], ["128 128 128", "0 0 0"], ["255 0 0", "7 7 7"], [(255, 255, 255)], []]
)
def test_grey_reference_equals_its_three_channel_reading(mode: str, selected: Any) -> None:
    """A (H, W) grey reference (the uint8 path, no colour codes) gives the GT and distractions of the same
    image read as B = G = R, for grey and non-grey selected colours, white, and no selection."""
    rng = np.random.default_rng(7)
    grey = rng.choice(np.array([0, 7, 128, 200, 255], dtype=np.uint8), size=(37, 53))
    bgr = np.repeat(grey[:, :, None], 3, axis=2)
    a, b = colour_reference(grey, selected, mode=mode), colour_reference(bgr, selected, mode=mode)
    assert np.array_equal(a.bw, b.bw)
    assert (a.unselected is None) == (b.unselected is None)
    if a.unselected is not None:
        assert np.array_equal(a.unselected, b.unselected)


@pytest.mark.parametrize(
    ("selected", "greys"),
    [(None, [0]), (["0 0 0"], [0]), (["128 128 128", "0 0 0"], [0, 128]), (["255 0 0"], []), ([], [])],
)
def test_reference_is_black_exactly_on_the_selected_colours(selected: Any, greys: list[int]) -> None:
    """The binarised reference (0 on GT, 255 elsewhere, uint8) against the definition, grey and BGR alike:
    GT = pixels whose colour is selected (black when nothing is given), distractions = other non-white."""
    rng = np.random.default_rng(11)
    grey = rng.choice(np.array([0, 7, 128, 255], dtype=np.uint8), size=(29, 41))
    gt = np.isin(grey, greys)
    for image in (grey, np.repeat(grey[:, :, None], 3, axis=2)):
        ref = colour_reference(image, selected)
        assert ref.bw.dtype == np.uint8 and ref.bw.flags.c_contiguous
        assert np.array_equal(ref.bw, np.where(gt, 0, 255).astype(np.uint8))
        distraction = (grey != 255) & ~gt
        assert ref.unselected is not None and np.array_equal(ref.unselected, distraction)
