"""MASK-08's mostly black masks (issue 33): inverted polarity shows as masks that are mostly, not entirely,
black (a white region where the manipulation is, black elsewhere).  Validation warns when at least half of
the masks measured have more than 50 % of their pixels below 128, from the one inflate MASK-04 makes of each
file (no second read), and names the share of each."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pytest
from helpers.masks import IMG_IDX, IMG_OUT, H, W
from PIL import Image

from pytest_omfc import png
from pytest_omfc.rules import mask as mask_rules


def mask_png(dark_share: float, *, inverted: bool = True, **save: Any) -> bytes:
    """A 40x30 mask whose first ``dark_share`` of rows (rounded) are 0 and the rest 255: a mask in the right
    polarity marks a small region black; an inverted one leaves a small region white."""
    pixels = np.full((H, W), 255, dtype=np.uint8)
    pixels[: round(dark_share * H)] = 0
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, format="PNG", **save)
    return buf.getvalue()


def case(omfc: Any, masks: list[bytes | None]) -> Any:
    """One probe per mask, in order; None: the probe's row names no mask."""
    ids = [f"{i:04d}" for i in range(len(masks))]
    return omfc.case(
        "OpenMFC2020",
        "IMDL",
        header=IMG_OUT,
        rows=[
            [i, 0.5, f"mask/{i}.png" if data is not None else "", "Processed", ""]
            for i, data in zip(ids, masks, strict=True)
        ],
        index_header=IMG_IDX,
        index_rows=[["IMDL", i, f"probe/{i}.jpg", W, H] for i in ids],
        files={f"mask/{i}.png": data for i, data in zip(ids, masks, strict=True) if data is not None},
    )


def mask08(res: Any) -> str:
    return "\n".join(w for i in range(1, 5) if (w := res.warning(f"MASK-08[{i}/4]")))


def test_most_masks_mostly_black_warn_with_their_share(omfc: Any) -> None:
    masks = [mask_png(0.8), mask_png(0.9, optimize=True), mask_png(0.7), mask_png(0.1), mask_png(0.2)]
    res = case(omfc, masks).run()
    assert res.ret == 0  # a warning
    text = mask08(res)
    assert "3 of 5 masks measured are mostly black (over 50% of their pixels below 128): inverted polarity?" in text
    assert "mask/0000.png should be white (255) where not manipulated (got 80% of its pixels below 128" in text
    assert "mask/0001.png should be white (255) where not manipulated (got 90% of its pixels below 128" in text
    assert "0003.png" not in text and "0004.png" not in text


def test_one_mask_mostly_black_among_many_is_plausible_and_not_flagged(omfc: Any) -> None:
    res = case(omfc, [mask_png(0.6), mask_png(0.1), mask_png(0.2), mask_png(0.05)]).run()
    assert mask08(res) == ""


def test_entirely_black_masks_count_in_the_pattern_but_are_named_once(omfc: Any) -> None:
    res = case(omfc, [mask_png(1.0), mask_png(0.8), mask_png(0.1)]).run()
    text = mask08(res)
    assert "2 of 3 masks measured are mostly black" in text
    assert text.count("mask/0000.png should be white") == 1 and "got an entirely black mask" in text
    assert "mask/0001.png should be white (255) where not manipulated (got 80% of its pixels" in text


@pytest.mark.parametrize("filter_type", [0, 1, 2, 3, 4])
def test_the_share_is_measured_under_every_png_filter(tmp_path: Any, filter_type: int) -> None:
    """The share comes from the unfiltered pixels, whatever filter the writer chose for each row."""
    from helpers.masks import _chunk

    rng = np.random.default_rng(filter_type)
    pixels = np.where(rng.random((H, W)) < 0.73, 0, 255).astype(np.uint8)
    rows = []
    prev = np.zeros(W, dtype=np.int16)
    for row in pixels.astype(np.int16):
        left = np.concatenate([[0], row[:-1]])
        upleft = np.concatenate([[0], prev[:-1]])
        if filter_type == 0:
            res = row
        elif filter_type == 1:
            res = row - left
        elif filter_type == 2:
            res = row - prev
        elif filter_type == 3:
            res = row - (left + prev) // 2
        else:
            p = left + prev - upleft
            pa, pb, pc = abs(p - left), abs(p - prev), abs(p - upleft)
            pred = np.where((pa <= pb) & (pa <= pc), left, np.where(pb <= pc, prev, upleft))
            res = row - pred
        rows.append(bytes([filter_type]) + (res % 256).astype(np.uint8).tobytes())
        prev = row
    import struct
    import zlib

    ihdr = struct.pack(">IIBBBBB", W, H, 8, 0, 0, 0, 0)
    data = b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", zlib.compress(b"".join(rows)))
    path = tmp_path / "m.png"
    path.write_bytes(data + _chunk(b"IEND", b""))
    h = png.read_header(str(path))
    verdict = png.decode_pixels(str(path), W, H, 8, 0, 0, h.idat, measure=True)
    assert verdict.state == png.NOT_BLACK
    assert verdict.dark == pytest.approx(np.count_nonzero(pixels < 128) / pixels.size)
    assert png.decode_pixels(str(path), W, H, 8, 0, 0, h.idat).dark == -1.0  # not asked: not kept


def test_the_sample_is_bounded_and_the_same_in_every_process() -> None:
    paths = [f"/sub/mask/{i:06d}.png" for i in range(16_000)]
    step = -(-len(paths) // mask_rules.DARK_SAMPLE)
    chosen = [p for p in paths if mask_rules._measured(p, step)]
    assert 0.5 * mask_rules.DARK_SAMPLE <= len(chosen) <= 2 * mask_rules.DARK_SAMPLE
    assert chosen == [p for p in reversed(paths) if mask_rules._measured(p, step)][::-1]
    assert all(mask_rules._measured(p, 1) for p in paths[:10])


def test_the_share_comes_from_the_one_inflate(omfc: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = png.decode_pixels

    def counted(path: str, *args: Any, **kwargs: Any) -> png.Verdict:
        calls.append(path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(png, "decode_pixels", counted)
    res = case(omfc, [mask_png(0.8), mask_png(0.9), mask_png(0.1)]).run("--omfc-jobs", "1")
    assert "2 of 3 masks measured are mostly black" in mask08(res)
    assert len(calls) == len(set(calls)) == 3


def test_the_pattern_is_judged_when_the_first_slice_has_no_mask(omfc: Any) -> None:
    """The first slice of MASK-08 judges the submission's pattern whatever rows it holds: here row 1 (slice 1
    of 4, by position) has no mask, and the mostly black masks are all in the other slices."""
    res = case(omfc, [None, mask_png(0.8), mask_png(0.9), mask_png(0.1)]).run()  # row 1: slice 1's only row
    assert "2 of 3 masks measured are mostly black" in res.warning("MASK-08[1/4]")
