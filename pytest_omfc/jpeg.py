"""Reading a grey map stored as JPEG: ForgeryNet's reference maps as the benchmark distributes them.

ForgeryNet ships the map of each fake image as a JPEG grey image named as the image
(``spatial_localize/train_mask_release/.../frame00019.jpg``).  Its loaders read such a map with
Pillow's ``Image.open(path).convert("L")`` (or OpenCV's ``IMREAD_GRAYSCALE``) and use the grey levels
as they come out of the decoder, lossy ringing included; nothing binarises them.  This module reads
them the same way, with the same guarantees as :mod:`pytest_omfc.png`:

* :func:`read_header` walks the markers up to the frame header (SOFn) through reads of at most
  :data:`_WINDOW` bytes, and never further than :data:`MAX_SCAN` bytes into the file, whatever its
  segments declare; the end-of-image marker must close the file (a cut file is refused here, by
  the rules' header pass, as a truncated PNG is).  It gives the size, the sample precision, the
  number of components and whether the frame is progressive or lossless, as a
  :class:`pytest_omfc.png.HeaderResult` of kind ``JPEG``.
* :func:`decode_grey` decodes a file whose header was read, once its size was checked against the
  caller's bound, into uint8 grey levels: one component as it is, three (YCbCr) converted to grey as
  ``convert("L")`` does.  A truncated or damaged stream is a message, never a partial image.
* :func:`read_map_header` reads either kind, by the file's signature (a map folder may hold PNG maps).

Nothing here raises on bad input: every function returns a state and a "must be X (got Y)" message;
special files are never opened (:func:`pytest_omfc.png.open_regular`).
"""

from __future__ import annotations

import struct

import numpy as np
from numpy.typing import NDArray

from . import members, png
from .members import Region
from .png import CORRUPT, NOT_PNG, OK, UNREADABLE, HeaderResult

__all__ = [
    "MAX_SCAN",
    "SIGNATURE",
    "decode_grey",
    "read_followed_map_headers",
    "read_header",
    "read_map_header",
]

SIGNATURE = b"\xff\xd8\xff"
#: the frame header must come within this many bytes (a camera's EXIF thumbnail is 64 KiB at most per segment)
MAX_SCAN = 1 << 20
_WINDOW = 1 << 16
#: start-of-frame markers: SOF0-3, 5-7, 9-11, 13-15 (C4 DHT, C8 JPG and CC DAC are not frames)
_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
_LOSSLESS = frozenset({0xC3, 0xC7, 0xCB, 0xCF})
_PROGRESSIVE = frozenset({0xC2, 0xC6, 0xCA, 0xCE})
_STANDALONE = frozenset({0x01, *range(0xD0, 0xD8)})  # TEM, RSTn: no length
_SOS, _EOI = 0xDA, 0xD9
_EOI_BYTES = b"\xff\xd9"
#: the end-of-image marker must lie within this many bytes of the end (encoders write it last; a little padding
#: after it is tolerated, as decoders do); a file without one was cut short
_TAIL = 4096
#: components -> what a message calls them
_COMPONENTS = {1: "grey", 3: "YCbCr colour, 3 channels", 4: "CMYK, 4 channels"}


def read_header(path: str, follow: bool = False) -> HeaderResult:
    """The frame header of one JPEG file: ``OK`` with its size, precision (``bit_depth``), components
    (``colour`` 0 for one, 2 for three, else minus their count) and ``interlace`` 1 for a progressive
    frame; or why not."""
    opened = png.open_regular(path, follow)
    if isinstance(opened, HeaderResult):
        return opened
    src, size, dev, ino = opened
    try:
        return _parse(src, size, dev, ino)
    except OSError as exc:
        return HeaderResult(UNREADABLE, f"must be readable (got {exc.strerror or exc})", kind="JPEG")
    finally:
        src.close()


def _corrupt(message: str) -> HeaderResult:
    return HeaderResult(CORRUPT, message, kind="JPEG")


def _parse(src: Region, size: int, dev: int, ino: int) -> HeaderResult:
    buf, start = src.pread(min(size, _WINDOW), 0), 0

    def get(pos: int, n: int) -> bytes:
        nonlocal buf, start
        if pos < start or pos + n > start + len(buf):
            buf, start = src.pread(min(_WINDOW, max(0, size - pos)), pos), pos
        return buf[pos - start : pos - start + n]

    if get(0, 3) != SIGNATURE:
        return HeaderResult(NOT_PNG, f"must be a JPEG file (got {png.sniff(get(0, 16))})", kind="JPEG")
    pos = 2
    while pos < min(size, MAX_SCAN):
        head = get(pos, 2)
        if len(head) < 2:
            break
        if head[0] != 0xFF:
            return _corrupt(f"must consist of JPEG markers (got byte {head[0]:#04x} at byte {pos})")
        marker = head[1]
        if marker == 0xFF:  # a fill byte before the marker
            pos += 1
            continue
        if marker in _STANDALONE:
            pos += 2
            continue
        if marker in (_SOS, _EOI, 0xD8):
            what = {_SOS: "image data", _EOI: "the end of the image", 0xD8: "a second start of image"}[marker]
            return _corrupt(f"must have a frame header before its image data (got {what} at byte {pos})")
        seg = get(pos + 2, 2)
        if len(seg) < 2:
            break
        (length,) = struct.unpack(">H", seg)
        if length < 2:
            return _corrupt(f"must consist of valid segments (got a segment length of {length} at byte {pos})")
        if marker in _SOF:
            body = get(pos + 4, 6)
            if len(body) < 6 or length < 8:
                break
            precision, height, width, components = struct.unpack(">BHHB", body)
            if marker in _LOSSLESS:
                return _corrupt(f"must be a baseline or progressive JPEG (got a lossless frame, {precision}-bit)")
            if width == 0 or height == 0:
                return _corrupt(f"must have a positive width and height (got {width}x{height})")
            colour = {1: 0, 3: 2}.get(components, -components)  # PNG's codes for grey and colour, else -count
            tail = src.pread(min(size, _TAIL), max(0, size - _TAIL))
            if _EOI_BYTES not in tail[max(0, pos + 4 + length - (size - len(tail))) :]:
                return _corrupt(
                    f"must be a complete JPEG file (got {size} bytes with no end-of-image marker: truncated)"
                )
            return HeaderResult(
                OK, "", width, height, precision, colour, int(marker in _PROGRESSIVE), dev=dev, ino=ino, kind="JPEG"
            )
        pos += 2 + length
    if pos >= MAX_SCAN and size > MAX_SCAN:
        return _corrupt(f"must have its frame header within the first {MAX_SCAN:,} bytes (got none)")
    return _corrupt(f"must be a complete JPEG file (got {size} bytes, truncated before the frame header)")


def components_name(header: HeaderResult) -> str:
    """What the components of a JPEG header are, for a message."""
    count = {0: 1, 2: 3}.get(header.colour, -header.colour)
    return _COMPONENTS.get(count, f"{count} components")


def decode_grey(path: str, header: HeaderResult) -> NDArray[np.uint8] | str:
    """The grey levels of a JPEG whose ``header`` is ``OK`` and whose size the caller bounded, as the
    benchmark's loaders read them (``Image.open(path).convert("L")``); or why it cannot be used.  Only
    8-bit maps of one or three components are decoded; a stream that ends early is refused, not padded."""
    import warnings

    from PIL import Image

    if header.bit_depth != 8:
        return f"must be a JPEG of 8-bit samples (got {header.bit_depth}-bit)"
    if header.colour not in (0, 2):
        return f"must be a grey or YCbCr JPEG (got {components_name(header)})"
    opened = png.open_regular(path, follow=True)
    if isinstance(opened, HeaderResult):
        return opened.message
    try:
        with members.stream(opened[0]) as stream:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # the caller bounded the size
                im = Image.open(stream, formats=("JPEG",))
            with im:
                if im.size != (header.width, header.height):  # the file changed since its header was read
                    return f"must keep its size (got {im.size[0]}x{im.size[1]} after {header.width}x{header.height})"
                if im.mode not in ("L", "RGB"):
                    return f"must be a grey or YCbCr JPEG (got mode {im.mode})"
                im.load()
                grey = im if im.mode == "L" else im.convert("L")
                return np.asarray(grey, dtype=np.uint8)
    except Exception as exc:  # noqa: BLE001  a damaged stream becomes a message, never a traceback
        return f"cannot be decoded ({type(exc).__name__}: {exc})"


def read_map_header(path: str, follow: bool = True) -> HeaderResult:
    """The header of a map that may be PNG or JPEG, by the file's signature (never by its name)."""
    opened = png.open_regular(path, follow)
    if isinstance(opened, HeaderResult):
        return opened
    src, size, dev, ino = opened
    try:
        if src.pread(3, 0) == SIGNATURE:  # a JPEG: parsed on this descriptor, not opened again
            return _parse(src, size, dev, ino)
    except OSError as exc:
        return HeaderResult(UNREADABLE, f"must be readable (got {exc.strerror or exc})")
    finally:
        src.close()
    return png.read_header(path, follow)


def read_followed_map_headers(paths: list[str]) -> list[HeaderResult]:
    """:func:`read_map_header` over a slice of files whose paths the caller resolved inside (a unit of work of
    :func:`pytest_omfc.work.pool.map_slices`)."""
    return [read_map_header(p) for p in paths]
