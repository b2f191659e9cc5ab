"""Builders shared by the tests, from test_mask.py."""

from __future__ import annotations

import io
import struct
import zlib

from PIL import Image

IMG_IDX = ["TaskID", "ProbeFileID", "ProbeFileName", "ProbeWidth", "ProbeHeight"]


IMG_OUT = ["ProbeFileID", "ConfidenceScore", "OutputProbeMaskFileName", "ProbeStatus", "ProbeOptOutPixelValue"]


NC_OUT = ["ProbeFileID", "ConfidenceScore", "OutputProbeMaskFileName", "IsOptOut"]


SPL_IDX = IMG_IDX + ["DonorFileID", "DonorFileName", "DonorWidth", "DonorHeight"]


SPL_OUT = [
    "ProbeFileID",
    "DonorFileID",
    "ConfidenceScore",
    "OutputProbeMaskFileName",
    "OutputDonorMaskFileName",
    "ProbeStatus",
    "DonorStatus",
    "ProbeOptOutPixelValue",
    "DonorOptOutPixelValue",
]


W, H = 40, 30  # every probe of the image cases


IDS = ("0042", "0043", "0044")


def pil_png(mode: str = "L", size: tuple[int, int] = (W, H), *, black_box: bool = True, **save: object) -> bytes:
    """A mask saved by Pillow: white with a black box (0 = manipulated)."""
    if mode == "I;16":
        im = Image.new("I;16", size, 65535)
    else:
        im = Image.new(mode, size, "white")
    if black_box:
        im.paste(0 if mode in ("L", "1", "I;16", "P") else (0,) * len(mode), (2, 2, 10, 10))
    buf = io.BytesIO()
    im.save(buf, format="PNG", **save)
    return buf.getvalue()


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def raw_png(
    width: int = W,
    height: int = H,
    *,
    fill: int = 255,
    filter_type: int = 0,
    interlace: int = 0,
    last_byte: int | None = None,
    idat: bytes | None = None,
) -> bytes:
    """A hand-made 8-bit grey PNG: uniform ``fill`` with rows tagged ``filter_type`` (residuals of a black image
    are zero under every filter), Adam7 when ``interlace``; ``last_byte`` replaces the stream's last sample."""
    if interlace:
        adam7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        passes = [((width - x0 + dx - 1) // dx, (height - y0 + dy - 1) // dy) for x0, y0, dx, dy in adam7]
    else:
        passes = [(width, height)]
    raw = bytearray()
    for pw, ph in passes:
        if pw > 0 and ph > 0:
            raw += (bytes([filter_type]) + bytes([fill]) * pw) * ph
    if last_byte is not None:
        raw[-1] = last_byte
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, interlace)
    data = zlib.compress(bytes(raw)) if idat is None else idat
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", data) + _chunk(b"IEND", b"")


def image_case(
    omfc,
    masks: dict[str, str],
    files: dict[str, bytes] | None = None,
    *,
    statuses: dict[str, str] | None = None,
    edition: str = "OpenMFC2020",
):
    """OpenMFC IMDL (or MFC2019 image) with probes 0042-0044 of 40x30; ``masks`` maps a probe to its mask field."""
    task = "IMDL" if edition.startswith("OpenMFC") else "manipulation-image"
    statuses = statuses or {}
    rows = [[i, 0.5, masks.get(i, ""), statuses.get(i, "Processed"), ""] for i in IDS]
    return omfc.case(
        edition,
        task,
        header=IMG_OUT,
        rows=rows,
        index_header=IMG_IDX,
        index_rows=[[task, i, f"probe/{i}.jpg", W, H] for i in IDS],
        files=files,
    )


def one_mask(omfc, content: bytes, name: str = "mask/0042-mask.png"):
    return image_case(omfc, {"0042": name}, {name: content}).run()
