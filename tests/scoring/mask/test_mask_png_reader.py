"""The numpy PNG unfilter (pytest_omfc/unfilter.py) gives Pillow's pixels for every filter type, and the
mask scorer's reader, which uses it, agrees with MASK-04 on what it refuses (issue 20: one decode)."""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from pytest_omfc import png, unfilter
from pytest_omfc.scoring.mask.io import MaskReadError, read_colour_reference, read_system_mask


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


def filtered(pixels: np.ndarray, types: list[int]) -> bytes:
    """The PNG filtered stream of ``pixels`` (H, W[, C]) uint8, row r filtered with ``types[r]`` (spec 9.2)."""
    h = pixels.shape[0]
    bpp = 1 if pixels.ndim == 2 else pixels.shape[2]
    rows = pixels.reshape(h, -1).astype(int).tolist()
    out = bytearray()
    for r, row in enumerate(rows):
        above = rows[r - 1] if r else [0] * len(row)
        t = types[r]
        out.append(t)
        for x, v in enumerate(row):
            a = row[x - bpp] if x >= bpp else 0
            b = above[x]
            c = above[x - bpp] if x >= bpp else 0
            pred = (0, a, b, (a + b) // 2, _paeth(a, b, c))[t]
            out.append((v - pred) & 255)
    return bytes(out)


def chunk(ctype: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + ctype + data + struct.pack(">I", zlib.crc32(ctype + data))


def png_file(pixels: np.ndarray, types: list[int]) -> bytes:
    h, w = pixels.shape[:2]
    colour = 0 if pixels.ndim == 2 else 2
    ihdr = struct.pack(">IIBBBBB", w, h, 8, colour, 0, 0, 0)
    idat = zlib.compress(filtered(pixels, types))
    return png.SIGNATURE + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def inflated(data: bytes) -> bytes:
    """The inflated image data of a :func:`png_file` (one IDAT chunk, then IEND)."""
    return zlib.decompress(data[data.index(b"IDAT") + 4 : -16])


def pillow(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)))


@st.composite
def images(draw: st.DrawFn) -> tuple[np.ndarray, list[int]]:
    """Small grey or RGB images, noisy or mask-like (a few values in runs), with any filter type per row."""
    h = draw(st.integers(1, 9))
    w = draw(st.integers(1, 33))
    bpp = draw(st.sampled_from([1, 3]))
    shape = (h, w) if bpp == 1 else (h, w, 3)
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    if draw(st.booleans()):
        pixels = rng.integers(0, 256, size=shape, dtype=np.uint8)
    else:  # blobs: a few levels, long runs, edges (where Paeth depends on the left neighbour)
        levels = rng.choice(np.array([0, 1, 127, 128, 254, 255], dtype=np.uint8), size=3)
        cuts = np.sort(rng.integers(0, w + 1, size=(h, 2)), axis=1)
        grey = np.full((h, w), levels[0], dtype=np.uint8)
        for r in range(h):
            grey[r, cuts[r, 0] : cuts[r, 1]] = levels[1 + r % 2]
        pixels = grey if bpp == 1 else np.stack([grey, grey[:, ::-1], 255 - grey], axis=2)
    types = draw(st.lists(st.integers(0, 4), min_size=h, max_size=h))
    return pixels, types


@settings(max_examples=300, deadline=None)
@given(images())
def test_unfilter_gives_pillows_pixels(case: tuple[np.ndarray, list[int]]) -> None:
    pixels, types = case
    data = png_file(pixels, types)
    expected = pillow(data)
    assert np.array_equal(expected, pixels)  # the test's own encoder is right
    h, w = pixels.shape[:2]
    got = unfilter.unfilter(inflated(data), h, w, 1 if pixels.ndim == 2 else 3)
    assert got is not None
    assert got.dtype == np.uint8
    assert np.array_equal(got, expected)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=images())
def test_the_mask_readers_give_pillows_pixels(tmp_path: Path, case: tuple[np.ndarray, list[int]]) -> None:
    pixels, types = case
    path = tmp_path / "m.png"
    path.write_bytes(png_file(pixels, types))
    h, w = pixels.shape[:2]
    ref = read_colour_reference(path, (h, w))
    if pixels.ndim == 2:
        assert np.array_equal(read_system_mask(path, (h, w)), pixels)
        assert np.array_equal(read_colour_reference(path, (h, w), grey=True), pixels)
        assert np.array_equal(ref, np.repeat(pixels[:, :, None], 3, axis=2))
    else:
        assert np.array_equal(ref, pixels[:, :, ::-1])  # BGR, as cv2.imread(IMREAD_COLOR)
        grey = np.asarray(Image.open(path).convert("L"))  # an RGB system mask: Pillow's convert('L')
        assert np.array_equal(read_system_mask(path, (h, w)), grey)
    assert not ref.flags.writeable


def test_a_noisy_paeth_image_goes_to_pillow_past_the_budget(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(7)
    pixels = rng.integers(0, 256, size=(20, 50), dtype=np.uint8)
    data = png_file(pixels, [4] * 20)
    raw = inflated(data)
    assert unfilter.unfilter(raw, 20, 50, 1) is not None
    monkeypatch.setattr(unfilter, "BUDGET", 100)
    assert unfilter.unfilter(raw, 20, 50, 1) is None  # 19 rows under a noisy row above: over 100 steps
    path = tmp_path / "noisy.png"
    path.write_bytes(data)
    assert np.array_equal(read_system_mask(path, (20, 50)), pixels)  # Pillow decoded it instead


def test_average_rows_past_the_budget_go_to_pillow(monkeypatch: pytest.MonkeyPatch) -> None:
    pixels = np.arange(60, dtype=np.uint8).reshape(3, 20)
    data = png_file(pixels, [3, 3, 3])
    raw = inflated(data)
    assert np.array_equal(unfilter.unfilter(raw, 3, 20, 1), pixels)
    monkeypatch.setattr(unfilter, "BUDGET", 39)
    assert unfilter.unfilter(raw, 3, 20, 1) is None


@pytest.mark.parametrize("bad_row", [0, 2])
def test_a_filter_type_above_4_fails_mask04_and_the_scorer_with_the_same_words(tmp_path: Path, bad_row: int) -> None:
    pixels = np.full((3, 8), 200, dtype=np.uint8)
    stream = bytearray(filtered(pixels, [0, 1, 2]))
    stream[bad_row * 9] = 7
    ihdr = struct.pack(">IIBBBBB", 8, 3, 8, 0, 0, 0, 0)
    path = tmp_path / "bad.png"
    path.write_bytes(
        png.SIGNATURE + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(bytes(stream))) + chunk(b"IEND", b"")
    )
    header = png.read_header(str(path))
    assert header.state == png.OK
    state, message, _ = png.decode_pixels(str(path), 8, 3, 8, 0, 0, header.idat)
    assert state == png.BAD_DATA
    assert message == f"pixel data must use PNG filter types 0 to 4 (got 7 on row {bad_row})"
    with pytest.raises(MaskReadError) as err:
        read_system_mask(path, (3, 8))
    assert str(err.value) == f"bad.png: {message}"
    with pytest.raises(MaskReadError, match="filter types 0 to 4"):
        read_colour_reference(path, (3, 8))


def test_unfilter_refuses_a_filter_type_above_4_when_called_alone() -> None:
    """The readers check filter types first (read_image_data); the function keeps its own contract."""
    raw = bytes([5, 1, 2]) + bytes([0, 3, 4])
    with pytest.raises(ValueError, match="filter type of row 0 must be 0 to 4 \\(got 5\\)"):
        unfilter.unfilter(raw, 2, 2, 1)


def test_a_1_bit_forgerynet_map_is_refused_with_mask04s_words(tmp_path: Path) -> None:
    """A 1-bit map (decoded by Pillow) has its image data read as MASK-04 reads it first, like an 8-bit one."""
    from pytest_omfc.scoring.forgerynet.adapter import _grey_map

    ihdr = struct.pack(">IIBBBBB", 8, 2, 1, 0, 0, 0, 0)
    path = tmp_path / "m.png"
    path.write_bytes(
        png.SIGNATURE + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\x00\xff")[:-3]) + chunk(b"IEND", b"")
    )
    got = _grey_map(path, (8, 2))
    assert isinstance(got, str) and got.startswith("pixel data must"), got
