"""Hostile masks: memory and time bounded by the index, honest MASK-04 verdicts (MASK-04, MASK-06, MASK-08).

Each hostile file is generated here, a few hundred bytes to a few KB; bombs run in a subprocess under an
address-space limit and a timeout, so that a regression fails fast instead of eating the machine.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
import zlib
from typing import Any

import numpy as np
import pytest
from helpers.masks import IDS, IMG_IDX, IMG_OUT, H, W, _chunk, image_case, one_mask, pil_png, raw_png

from pytest_omfc import png

SIGNATURE = b"\x89PNG\r\n\x1a\n"
MASK_04 = "MASK-04: 1 of 1 masks are not readable PNG files (showing 1)"


def grey_png(width: int, height: int, idat: bytes, *, interlace: int = 0) -> bytes:
    """An 8-bit grey PNG around the given IDAT payload (every CRC right unless the caller breaks one)."""
    ihdr = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 0, 0, 0, interlace])
    return SIGNATURE + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", idat) + _chunk(b"IEND", b"")


def noise_raw(width: int = W, height: int = H) -> bytes:
    """Filtered rows of random samples: they hardly compress, so a cut stream misses most of the image."""
    rng = np.random.default_rng(7)
    return b"".join(b"\x00" + rng.integers(0, 256, width, dtype=np.uint8).tobytes() for _ in range(height))


def zeros_stream(matches: int = 1) -> bytes:
    """A hand-made zlib stream of ``1 + 258 * matches`` zero bytes: one fixed-Huffman block (literal 0, then
    length-258 copies at distance 1); one match fits in 4 bytes of deflate data."""
    bits = [1, 1, 0]  # BFINAL, BTYPE=01 (fixed Huffman), least significant bit first

    def code(value: int, n: int) -> None:  # Huffman codes go most significant bit first
        bits.extend((value >> (n - 1 - i)) & 1 for i in range(n))

    code(0x30, 8)  # literal 0
    for _ in range(matches):
        code(0xC5, 8)  # length code 285: 258 bytes
        code(0, 5)  # distance code 0: 1 byte back
    code(0, 7)  # end of block
    packed = bytes(sum(b << i for i, b in enumerate(bits[k : k + 8])) for k in range(0, len(bits), 8))
    return b"\x78\x01" + packed + zlib.adler32(bytes(1 + 258 * matches)).to_bytes(4, "big")


def black_stream(width: int, height: int) -> bytes:
    """zlib stream of an all-black image, compressed row by row (no raw image in memory)."""
    comp = zlib.compressobj(9)
    row = bytes(1 + width)
    return b"".join(comp.compress(row) for _ in range(height)) + comp.flush()


class CountingZlib:
    """Stands in for the ``zlib`` module of :mod:`pytest_omfc.png`: counts the inflaters made, i.e. the decodes."""

    def __init__(self) -> None:
        self.inflaters = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(zlib, name)

    def decompressobj(self, *args: Any, **kw: Any) -> Any:
        self.inflaters += 1
        return zlib.decompressobj(*args, **kw)


@pytest.fixture
def decodes(monkeypatch: pytest.MonkeyPatch) -> CountingZlib:
    counter = CountingZlib()
    monkeypatch.setattr(png, "zlib", counter)
    return counter


def mask08_warnings(res) -> list[str]:
    return [w for w in (res.warning(f"MASK-08[{i}/4]") for i in range(1, 5)) if w]


# ---------------------------------------------------------------------------- memory and time bounded by the index

#: Run pytest on the case in a child limited to 1.5 GB of address space and 60 s.
_CHILD = textwrap.dedent("""
    import resource, sys
    resource.setrlimit(resource.RLIMIT_AS, (1_500_000_000, 1_500_000_000))
    import pytest
    sys.exit(pytest.main(sys.argv[1:]))
""")


def test_interlaced_header_bomb_fails_mask06_without_inflating(omfc):
    """67 bytes declaring 1 x 2147483647 interlaced pixels: MASK-06 names the size, nothing is inflated.

    Before: MASK-08 built an Adam7 filter table for 2**31 rows (> 8 GB; a MemoryError under this limit).
    """
    bomb = grey_png(1, 2**31 - 1, zeros_stream(), interlace=1)
    assert len(bomb) == 67 and zlib.decompress(zeros_stream()) == bytes(259)
    case = image_case(omfc, {"0042": "mask/bomb.png"}, {"mask/bomb.png": bomb})
    env = dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    t0 = time.perf_counter()
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            _CHILD,
            *case.args,
            "-p",
            "pytest_omfc.plugin",
            "-p",
            "no:cacheprovider",
            "--omfc-jobs",
            "1",
            "-q",
            "-k",
            "MASK or PKG",
        ],
        cwd=case.submission.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    elapsed = time.perf_counter() - t0
    out = proc.stdout
    failed = sorted(line.split("::")[-1].split(" ")[0] for line in out.splitlines() if line.startswith("FAILED"))
    assert failed == ["MASK-06"], out[-3000:] + proc.stderr[-2000:]
    assert "MASK-06: 1 of 1 masks differ in size from their probe (showing 1)" in out
    assert "mask/bomb.png is 1x2147483647, probe is 40x30: must be 40x30 (got 1x2147483647)" in out
    assert "INTERNALERROR" not in out + proc.stderr and "Traceback" not in out + proc.stderr
    assert elapsed < 30, elapsed


def test_wrong_size_mask_is_not_inflated(omfc, decodes):
    """A mask that fails MASK-06 needs no pixel scan: an all-black one of the wrong size is not decoded."""
    res = one_mask(omfc, grey_png(W + 1, H, black_stream(W + 1, H)))
    assert res.first_line("MASK-06") == "MASK-06: 1 of 1 masks differ in size from their probe (showing 1)"
    assert mask08_warnings(res) == []
    assert decodes.inflaters == 0


def test_one_decode_per_file_through_symlinks_and_hard_links(omfc, decodes):
    """Six rows name one all-black file (directly, by three symlinks, by a hard link, through a linked directory):
    it is inflated once for MASK-04 and the four MASK-08 slices together, and all six rows are reported."""
    width, height = 3000, 2000  # the index size of every probe: 6 MB of image data from a 9 KB file
    ids = [f"{i:04d}" for i in range(6)]
    names = ["mask/black.png", "mask/l1.png", "mask/l2.png", "mask/l3.png", "mask/hard.png", "mask/sub/black.png"]
    case = omfc.case(
        "OpenMFC2020",
        "IMDL",
        header=IMG_OUT,
        rows=[[i, 0.5, n, "Processed", ""] for i, n in zip(ids, names, strict=False)],
        index_header=IMG_IDX,
        index_rows=[["IMDL", i, f"probe/{i}.jpg", width, height] for i in ids],
        files={"mask/black.png": grey_png(width, height, black_stream(width, height))},
    )
    mask = case.submission / "mask"
    for link in ("l1.png", "l2.png", "l3.png"):
        os.symlink("black.png", mask / link)
    os.link(mask / "black.png", mask / "hard.png")
    os.symlink(".", mask / "sub")
    res = case.run("--omfc-jobs", "1")
    shown = mask08_warnings(res)
    assert sorted(w.splitlines()[0] for w in shown) == sorted(
        f"MASK-08: {n} mask{'s are' if n > 1 else ' is'} entirely black (every pixel claimed manipulated) (showing {n})"
        for n in (2, 2, 1, 1)
    )  # rows 0-5 over four slices
    assert res.outcome("MASK-04") == "passed"
    assert decodes.inflaters == 1


# ---------------------------------------------------------------------------- honest MASK-04 verdicts


def with_idat_crc_flipped(data: bytes) -> bytes:
    at = data.index(b"IDAT")
    length = int.from_bytes(data[at - 4 : at], "big")
    end = at + 4 + length
    return data[:end] + bytes(b ^ 0xFF for b in data[end : end + 4]) + data[end + 4 :]


def test_mask04_bad_idat_crc_fails(omfc):
    """libpng (OpenCV, hence MediScore) stops with "IDAT: CRC error"; before, only IHDR's CRC was checked."""
    data = with_idat_crc_flipped(grey_png(W, H, zlib.compress(noise_raw())))
    res = one_mask(omfc, data)
    assert res.first_line("MASK-04") == MASK_04
    size = len(zlib.compress(noise_raw()))
    assert (
        f"p-test_1.csv:2 [0042] OutputProbeMaskFileName='mask/0042-mask.png': mask/0042-mask.png must have an "
        f"intact IDAT chunk at byte 33 (got a CRC mismatch: its {size} bytes are damaged)"
    ) in res.text("MASK-04")


def test_mask04_bad_ancillary_crc_fails(omfc):
    """A damaged tEXt chunk before the image data: Pillow refuses the file (libpng only warns)."""
    good = grey_png(W, H, zlib.compress(noise_raw()))
    text = _chunk(b"tEXt", b"Comment\x00hello")
    data = good[:33] + text[:-1] + bytes([text[-1] ^ 1]) + good[33:]
    res = one_mask(omfc, data)
    assert res.first_line("MASK-04") == MASK_04
    assert "must have an intact tEXt chunk at byte 33 (got a CRC mismatch" in res.text("MASK-04")


@pytest.mark.parametrize(
    ("stream", "got"),
    [
        (
            lambda raw: zlib.compress(raw)[: len(zlib.compress(raw)) // 2],
            "pixel data must hold the whole image (got a zlib stream that breaks off where the IDAT chunks end after ",
        ),
        (
            lambda raw: b"\x78\x9c",  # a zlib header and nothing more
            "pixel data must hold the whole image (got a zlib stream that breaks off where the IDAT chunks end after ",
        ),
        (
            lambda raw: (lambda c: c.compress(raw) + c.flush(zlib.Z_SYNC_FLUSH))(zlib.compressobj()),
            f"pixel data must be a complete zlib stream (got all {(W + 1) * H} bytes of the image but no end of stream",
        ),
        (
            lambda raw: zlib.compress(raw)[:-4],
            f"pixel data must be a complete zlib stream (got all {(W + 1) * H} bytes of the image but no end of stream",
        ),
        (
            lambda raw: zlib.compress(raw[: len(raw) // 2]),
            f"pixel data must hold the whole image (got a zlib stream that ends after {(W + 1) * H // 2} of the "
            f"{(W + 1) * H} bytes a {W}x{H} image needs: truncated)",
        ),
    ],
    ids=["cut-in-half", "header-only", "sync-flush-no-end", "no-checksum", "ends-early"],
)
def test_mask04_incomplete_zlib_stream_fails(omfc, stream, got):
    """Every IDAT CRC right and IEND present, but the zlib stream inside is incomplete: libpng stops with "Not
    enough image data" (and Pillow with "image file is truncated" where rows are missing)."""
    res = one_mask(omfc, grey_png(W, H, stream(noise_raw())))
    assert res.first_line("MASK-04") == MASK_04
    assert f"mask/0042-mask.png {got}" in res.text("MASK-04"), res.text("MASK-04")
    assert mask08_warnings(res) == []


def test_mask04_extra_image_data_passes_and_stops_early(omfc, decodes):
    """More image data than the index size needs (a zlib bomb behind a right header) is ignored by decoders:
    the mask passes, and inflating stops soon after the image's bytes."""
    comp = zlib.compressobj(9)
    bomb = comp.compress(noise_raw()) + b"".join(comp.compress(bytes(1 << 20)) for _ in range(64)) + comp.flush()
    t0 = time.perf_counter()
    res = one_mask(omfc, grey_png(W, H, bomb))
    assert res.outcome("MASK-04") == "passed", res.text("MASK-04")
    assert decodes.inflaters == 1
    assert time.perf_counter() - t0 < 20


def test_valid_masks_still_pass(omfc):
    """Interlaced, multi-IDAT and 1-bit masks of the index size pass MASK-04 and are not called black."""
    raw = zlib.compress(noise_raw())
    split = SIGNATURE + _chunk(b"IHDR", W.to_bytes(4, "big") + H.to_bytes(4, "big") + bytes([8, 0, 0, 0, 0]))
    split += _chunk(b"IDAT", raw[:10]) + _chunk(b"IDAT", b"") + _chunk(b"IDAT", raw[10:]) + _chunk(b"IEND", b"")
    files = {"mask/a.png": split, "mask/b.png": raw_png(fill=0, interlace=1, last_byte=255), "mask/c.png": pil_png("1")}
    res = image_case(omfc, dict(zip(IDS, files, strict=False)), files).run()
    assert res.outcome("MASK-04") == "passed", res.text("MASK-04")
    assert mask08_warnings(res) == []


def test_pool_slices_by_weight(monkeypatch):
    """One huge mask among small ones gets a process of its own: slices have about equal inflated bytes,
    stay contiguous and come back in input order."""
    from pytest_omfc.work import pool

    seen: list[list[int]] = []

    class Inline:
        def __init__(self, *args: Any, **kw: Any) -> None:
            pass

        def __enter__(self) -> Inline:
            return self

        def __exit__(self, *exc: Any) -> None:
            return None

        def map(self, fn: Any, slices: Any) -> Any:
            slices = list(slices)
            seen.extend(slices)
            return [fn(s) for s in slices]

    monkeypatch.setattr(pool, "ProcessPoolExecutor", Inline)
    items = list(range(10))
    weights = [1] * 9 + [1000]
    out = pool.map_slices(lambda part: [x * 2 for x in part], items, 2, min_per_job=100, weights=weights)
    assert out == [x * 2 for x in items]
    assert seen == [list(range(9)), [9]]
    seen.clear()
    assert pool.map_slices(lambda part: part, items, 2, min_per_job=100, weights=[1] * 10) == items
    assert seen == []  # 10 bytes of work: not worth a process


def test_cut_gives_contiguous_slices_of_about_equal_weight() -> None:
    """What a dask cluster is given for MASK-04 (one task per slice): every item once, in order, none empty."""
    from pytest_omfc.work.pool import cut, slices_worth

    items = list(range(10))
    assert cut(items, 3, [1] * 9 + [1000]) == [list(range(9)), [9]]  # the heavy item alone; 2 slices, not 3
    assert cut(items, 2) == [list(range(5)), list(range(5, 10))]
    assert cut(items, 1) == [items] and cut([], 4) == [] and cut([7], 4) == [[7]]
    assert slices_worth(items, 100, [1] * 9 + [1000]) == 10  # 1009 units: ten slices of 100, one per item
    assert slices_worth(items, 4) == 2 and slices_worth(items, 100) == 1 and slices_worth([], 1) == 1
