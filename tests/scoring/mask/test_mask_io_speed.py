"""read_colour_reference's fast paths give cv2.imread(IMREAD_COLOR)'s arrays (docs/scoring/masks.md#reading-masks,
docs/scoring/masks.md#ground-truth).

The reference reader was 18 of the 33 ms a 1920x1080 mask cost (benchmarks/score_masks.py): a
grey reference was converted to RGB, flipped to BGR and copied, then turned into 3-channel colour
codes.  Now a grey file is replicated in one pass (or returned as (H, W) with ``grey=True``, which
``colour_reference`` takes as B = G = R), and a colour file is written as BGR by Pillow's raw
encoder.  These tests pin the arrays to the straightforward conversion for every PNG mode a
reference may have, and the GT and distractions built from a grey (H, W) read to those of the
3-channel read.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from pytest_omfc.scoring.mask import (
    MaskReadError,
    colour_reference,
    read_colour_reference,
)

H, W = 6, 9


def _image(mode: str) -> Image.Image:
    """A small reference in ``mode``: white, a black box, a grey or coloured distraction."""
    rgb = np.full((H, W, 3), 255, dtype=np.uint8)
    rgb[1:3, 1:4] = 0
    rgb[4:6, 5:8] = (200, 30, 90)
    rgb[0, 8] = (128, 128, 128)
    im = Image.fromarray(rgb, mode="RGB")
    if mode == "RGB":
        return im
    if mode == "RGBA":
        im = im.convert("RGBA")
        im.putpixel((0, 0), (10, 20, 30, 0))  # transparent pixel: IMREAD_COLOR drops alpha
        return im
    return im.convert(mode)


def _straightforward(path: Path) -> np.ndarray:
    """cv2.imread(path, IMREAD_COLOR) as the reader computed it before: RGB, then flipped to BGR."""
    return np.ascontiguousarray(np.asarray(Image.open(path).convert("RGB"))[:, :, ::-1])


@pytest.mark.parametrize("mode", ["L", "1", "P", "RGB", "RGBA", "LA"])
def test_the_bgr_array_is_unchanged_for_every_png_mode(tmp_path: Path, mode: str) -> None:
    path = tmp_path / f"ref-{mode}.png"
    _image(mode).save(path)
    got = read_colour_reference(path)
    assert got.shape == (H, W, 3) and got.dtype == np.uint8
    np.testing.assert_array_equal(got, _straightforward(path))


@pytest.mark.parametrize("mode", ["L", "1"])
def test_grey_true_returns_a_grey_file_as_h_by_w(tmp_path: Path, mode: str) -> None:
    path = tmp_path / f"ref-{mode}.png"
    _image(mode).save(path)
    got = read_colour_reference(path, grey=True)
    assert got.shape == (H, W) and got.dtype == np.uint8
    np.testing.assert_array_equal(got, _straightforward(path)[:, :, 0])


@pytest.mark.parametrize("mode", ["P", "RGB", "LA"])
def test_grey_true_keeps_three_channels_for_other_modes(tmp_path: Path, mode: str) -> None:
    path = tmp_path / f"ref-{mode}.png"
    _image(mode).save(path)
    np.testing.assert_array_equal(read_colour_reference(path, grey=True), _straightforward(path))


@pytest.mark.parametrize("selected", [None, ["0 0 0"], ["128 128 128"], ["0 0 0", "88 88 88"]])
def test_a_grey_read_gives_the_same_gt_and_distractions(tmp_path: Path, selected: list[str] | None) -> None:
    path = tmp_path / "ref.png"
    _image("L").save(path)  # grey levels 0, 88 (the colour box), 128, 255
    flat = colour_reference(read_colour_reference(path, grey=True), selected)
    full = colour_reference(read_colour_reference(path), selected)
    np.testing.assert_array_equal(flat.bw, full.bw)
    assert (flat.unselected is None) == (full.unselected is None)
    if full.unselected is not None:
        np.testing.assert_array_equal(flat.unselected, full.unselected)


@pytest.mark.parametrize("mode", ["L", "RGB"])
def test_a_truncated_reference_is_a_mask_read_error(tmp_path: Path, mode: str) -> None:
    rng = np.random.default_rng(0)
    shape = (200, 300) if mode == "L" else (200, 300, 3)
    buf = io.BytesIO()
    Image.fromarray(rng.integers(0, 256, shape, dtype=np.uint8), mode=mode).save(buf, format="PNG")
    path = tmp_path / "cut.png"
    path.write_bytes(buf.getvalue()[: len(buf.getvalue()) // 2])
    with pytest.raises(MaskReadError) as err:
        read_colour_reference(path, grey=True)
    assert str(err.value).startswith("cut.png: must be a complete PNG file (got ")  # the rules' header pass
