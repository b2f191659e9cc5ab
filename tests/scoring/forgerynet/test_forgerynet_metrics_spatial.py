"""ForgeryNet spatial localization metrics (issue 12, docs/scoring/forgerynet.md#spatial-localization-metrics),
computed by hand.

A value is grey/255 in float64; ``IoU@t`` is the mismatch rate ``mean |1[p>=t] - 1[g>=t]|``,
``IoU_agree@t`` its complement, ``IoU_diff@t`` = ``mean 1[|p-g| <= t]``, ``L1`` = ``mean |p-g|``.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from pytest_omfc.scoring.forgerynet import SpatialAccumulator, score_spatial

U8 = np.uint8
NAMES = ["IoU@0.1", "IoU@0.2", "IoU_agree@0.1", "IoU_agree@0.2", "IoU_diff@0.01", "IoU_diff@0.05", "IoU_diff@0.1", "L1"]


def test_metric_names() -> None:
    r = score_spatial([("a", np.zeros((1, 1), U8), np.zeros((1, 1), U8))])
    assert list(r.metrics) == [f"{n}_{s}" for n in NAMES for s in ("per_image", "pooled")]
    assert list(r.per_image[0]) == ["ID", "pixels", *NAMES]


def test_2x2_by_hand() -> None:
    # pred grey [[0, 51], [255, 26]] -> [[0, .2], [1, .10196]];  gt [[0, 0], [255, 255]] -> [[0, 0], [1, 1]].
    # >= .1: pred [[F,T],[T,T]], gt [[F,F],[T,T]] -> 1 mismatch of 4: IoU@0.1 = .25, IoU_agree@0.1 = .75.
    # >= .2: pred [[F,T],[T,F]] (51/255 == .2), gt [[F,F],[T,T]] -> 2 of 4: IoU@0.2 = .5, IoU_agree@0.2 = .5.
    # |p-g| grey [[0,51],[0,229]]: <= .01, .05, .1 (2.55, 12.75, 25.5 grey): the two zeros -> 2/4 = .5 each.
    # L1 = (51 + 229) / 255 / 4 = 280/1020.
    r = score_spatial([("a", np.array([[0, 51], [255, 26]], U8), np.array([[0, 0], [255, 255]], U8))])
    expected = dict(zip(NAMES, [0.25, 0.5, 0.75, 0.5, 0.5, 0.5, 0.5, 280 / 1020], strict=True))
    assert r.per_image == [{"ID": "a", "pixels": 4, **expected}]
    for name, v in expected.items():
        assert r.metrics[f"{name}_per_image"] == v and r.metrics[f"{name}_pooled"] == v


def test_3x3_by_hand() -> None:
    # pred grey [[0,10,26],[51,50,128],[255,200,3]]   gt grey [[0,0,0],[51,51,255],[255,255,0]]
    # pred >= .1 (grey >= 26): [[F,F,T],[T,T,T],[T,T,F]]; gt >= .1: [[F,F,F],[T,T,T],[T,T,F]] -> mismatch (0,2): 1/9.
    # pred >= .2 (grey >= 51): [[F,F,F],[T,F,T],[T,T,F]]; gt >= .2: same as gt >= .1 -> mismatch (1,1): 1/9.
    # |p-g| grey [[0,10,26],[0,1,127],[0,55,3]]:
    #   <= 2.55: 0,0,1,0 -> 4/9;  <= 12.75: 0,10,0,1,0,3 -> 6/9;  <= 25.5: the same 6 (26 > 25.5) -> 6/9.
    # L1 = (10+26+1+127+55+3) / 255 / 9 = 222/2295.
    pred = np.array([[0, 10, 26], [51, 50, 128], [255, 200, 3]], U8)
    gt = np.array([[0, 0, 0], [51, 51, 255], [255, 255, 0]], U8)
    r = score_spatial([("b", pred, gt)])
    row = r.per_image[0]
    assert row["pixels"] == 9
    assert [row[n] for n in NAMES] == [1 / 9, 1 / 9, 8 / 9, 8 / 9, 4 / 9, 6 / 9, 6 / 9, 222 / 2295]


def test_per_image_and_pooled_differ_for_images_of_different_sizes() -> None:
    # A: 1 pixel, pred 255 vs gt 0 -> every metric at its worst: IoU@t = 1, IoU_diff = 0, L1 = 1.
    # B: 3 pixels, all equal (0 vs 0) -> IoU@t = 0, IoU_diff = 1, L1 = 0.
    # per image: (1 + 0)/2 = .5 for IoU@t and L1; pooled over 4 pixels: 1/4 = .25; IoU_diff pooled 3/4.
    r = score_spatial(
        [("A", np.array([[255]], U8), np.array([[0]], U8)), ("B", np.zeros((1, 3), U8), np.zeros((1, 3), U8))]
    )
    m = r.metrics
    assert (m["IoU@0.1_per_image"], m["IoU@0.1_pooled"]) == (0.5, 0.25)
    assert (m["IoU_agree@0.2_per_image"], m["IoU_agree@0.2_pooled"]) == (0.5, 0.75)
    assert (m["IoU_diff@0.05_per_image"], m["IoU_diff@0.05_pooled"]) == (0.5, 0.75)
    assert (m["L1_per_image"], m["L1_pooled"]) == (0.5, 0.25)
    assert [(row["ID"], row["pixels"]) for row in r.per_image] == [("A", 1), ("B", 3)]


def test_boundaries_in_float64() -> None:
    # 51/255 is the double 0.2 and |51/255 - 0/255| is exactly 0.2: grey 51 is >= 0.2; 50 is not.
    # 25/255 = .098 < .1 <= 26/255 = .102.  pred [25, 26, 50, 51] vs gt 0:
    # >= .1 mismatches: 26, 50, 51 -> 3/4;  >= .2: 51 -> 1/4;  |p-g| <= .1: 25 only -> 1/4.
    assert 51 / 255 == 0.2 and abs(51 / 255 - 0 / 255) <= 0.2 and 50 / 255 < 0.2
    assert 25 / 255 < 0.1 <= 26 / 255
    r = score_spatial([("e", np.array([[25, 26, 50, 51]], U8), np.zeros((1, 4), U8))]).per_image[0]
    assert (r["IoU@0.1"], r["IoU@0.2"], r["IoU_diff@0.1"]) == (0.75, 0.25, 0.25)


def test_every_grey_pair_matches_the_direct_float64_formula() -> None:
    # One image holding all 65536 (pred, gt) grey pairs: counts must equal the formulas evaluated per pixel.
    grey = np.arange(256, dtype=U8)
    pred, gt = np.meshgrid(grey, grey, indexing="ij")
    p, g = pred / 255.0, gt / 255.0
    row = score_spatial([("all", pred, gt)]).per_image[0]
    n = pred.size
    for t in (0.1, 0.2):
        assert row[f"IoU@{t:g}"] == np.count_nonzero((p >= t) != (g >= t)) / n
    for t in (0.01, 0.05, 0.1):
        assert row[f"IoU_diff@{t:g}"] == np.count_nonzero(np.abs(p - g) <= t) / n
    assert row["L1"] == pytest.approx(float(np.mean(np.abs(p - g))), rel=1e-14)


def test_one_bit_maps_are_zero_or_one() -> None:
    # bool True is 1.0 = grey 255: a 1-bit prediction equal to a 0/255 reference agrees everywhere.
    r = score_spatial([("c", np.array([[True, False]]), np.array([[255, 0]], U8))]).per_image[0]
    assert (r["IoU@0.1"], r["IoU_diff@0.01"], r["L1"]) == (0.0, 1.0, 0.0)
    r = score_spatial([("d", np.array([[True, True]]), np.array([[128, 0]], U8))]).per_image[0]
    # |1 - 128/255| = 127/255 and |1 - 0| = 1 -> L1 = (127 + 255)/255/2 = 382/510.
    assert r["L1"] == 382 / 510


def test_streaming_accumulator_matches_score_spatial_and_consumes_a_generator() -> None:
    rng = np.random.default_rng(3)
    shapes = [(5, 7), (12, 3), (1, 1), (8, 8)]
    pairs = [
        (f"i{j}", rng.integers(0, 256, s).astype(U8), rng.integers(0, 256, s).astype(U8)) for j, s in enumerate(shapes)
    ]
    consumed: list[str] = []

    def gen() -> Iterator[tuple[str, np.ndarray, np.ndarray]]:
        for item in pairs:
            consumed.append(item[0])
            yield item

    acc = SpatialAccumulator()
    for item in pairs:
        acc.add(*item)
    assert len(acc) == 4
    assert score_spatial(gen()).to_entry() == acc.report().to_entry()
    assert consumed == ["i0", "i1", "i2", "i3"]
    # pooled L1 is the exact integer ratio.
    total = sum(int(np.abs(p.astype(int) - g.astype(int)).sum()) for _, p, g in pairs)
    npx = sum(p.size for _, p, _ in pairs)
    assert acc.report().metrics["L1_pooled"] == total / (255.0 * npx)


def test_empty_and_bad_input() -> None:
    r = score_spatial([])
    assert r.per_image == [] and set(r.metrics.values()) == {None}
    with pytest.raises(ValueError, match=r"^x: maps must be 2-D of the same shape \(got \(2, 2\) and \(2, 3\)\)"):
        score_spatial([("x", np.zeros((2, 2), U8), np.zeros((2, 3), U8))])
    with pytest.raises(ValueError, match=r"^y: predicted map must be uint8 grey levels or bool \(got float64\)"):
        score_spatial([("y", np.zeros((2, 2)), np.zeros((2, 2), U8))])
    with pytest.raises(ValueError, match=r"^z: maps must have at least one pixel"):
        score_spatial([("z", np.zeros((0, 2), U8), np.zeros((0, 2), U8))])
