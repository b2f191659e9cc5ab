"""Reading what the mask rules need from a PNG file without decoding it.

MASK-04...07 only need the header: the signature, IHDR (size, bit depth,
colour type, interlace) and whether a PLTE or tRNS chunk precedes the first
IDAT; a truncated file is recognised by its missing IEND chunk.  That costs
two small reads per file, where a decoder would inflate every pixel.  Only
MASK-08 looks at pixels, through :func:`scan_pixels`, which inflates the image
data incrementally and stops at the first byte that answers its question.

Nothing here raises on bad input: every function returns a state code and a
message in the "must be X (got Y)" form.  Special files (FIFOs, devices) are
never opened, so a hostile submission cannot make a check hang.
"""

from __future__ import annotations

import os
import stat
import struct
import zlib
from dataclasses import dataclass

import numpy as np

__all__ = [
    "SIGNATURE",
    "OK",
    "UNSAFE",
    "MISSING",
    "NOT_FILE",
    "UNREADABLE",
    "NOT_PNG",
    "CORRUPT",
    "LINK",
    "HeaderResult",
    "read_header",
    "read_headers",
    "sniff",
    "colour_name",
    "scan_pixels",
    "scan_many",
    "BLACK",
    "NOT_BLACK",
    "BAD_DATA",
]

SIGNATURE = b"\x89PNG\r\n\x1a\n"
_IEND = b"\x00\x00\x00\x00IEND\xaeB`\x82"
_HEAD = 4096  # one read covers IHDR and the chunks before IDAT of nearly every mask
_TAIL_SEARCH = 65536
_MAX_CHUNK = 2**31 - 1

# File states (MASK-03: MISSING, NOT_FILE; MASK-04: UNREADABLE, NOT_PNG, CORRUPT; PKG-04: UNSAFE).
# LINK: the name is a symlink, not followed; the caller decides whether it stays inside.
OK, UNSAFE, MISSING, NOT_FILE, UNREADABLE, NOT_PNG, CORRUPT, LINK = range(8)

#: Allowed bit depths per colour type (PNG spec, table 11.1).
_DEPTHS = {0: (1, 2, 4, 8, 16), 2: (8, 16), 3: (1, 2, 4, 8), 4: (8, 16), 6: (8, 16)}
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}

_COLOUR_NAMES = {
    0: "grey",
    2: "RGB colour, 3 channels",
    3: "a palette (indexed colour, decoded as 3 channels)",
    4: "grey+alpha, 2 channels",
    6: "RGBA colour, 4 channels",
}


@dataclass(frozen=True)
class HeaderResult:
    """What :func:`read_header` learnt about one file (plain data: cheap to pickle)."""

    state: int
    message: str = ""
    width: int = 0
    height: int = 0
    bit_depth: int = 0
    colour: int = -1
    interlace: int = 0
    plte: bool = False
    trns: bool = False
    idat: int = 0  # file offset of the first IDAT chunk


def colour_name(colour: int, trns: bool) -> str:
    """Human wording of a colour type, as a MASK-05 message needs it."""
    if colour == 0 and trns:
        return "grey with a transparency (tRNS) chunk, decoded with an alpha channel"
    return _COLOUR_NAMES.get(colour, f"colour type {colour}")


def sniff(head: bytes) -> str:
    """Name the format of a file that is not a PNG, for the MASK-04 message."""
    if not head:
        return "an empty file"
    if head.startswith(b"\xff\xd8\xff"):
        return "JPEG data"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "GIF data"
    if head.startswith(b"BM"):
        return "BMP data"
    if head[:4] in (b"II*\x00", b"MM\x00*"):
        return "TIFF data"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "WebP data"
    if head[4:12] == b"jP  \r\n\x87\n" or head.startswith(b"\xff\x4f\xff\x51"):
        return "JPEG 2000 data"
    if head.startswith(b"\x89HDF\r\n\x1a\n"):
        return "HDF5 data"
    if head[1:4] == b"PNG":
        return "a damaged PNG signature (transferred in text mode?)"
    return f"data starting with {head[:8]!r}"


def read_header(path: str, follow: bool = False) -> HeaderResult:
    """Signature, IHDR, PLTE/tRNS presence up to IDAT, and the IEND tail of one file.

    The directories of ``path`` must already be known to stay inside the
    submission (PKG-04).  A symlink is only followed with ``follow=True``,
    once the caller has resolved it inside; otherwise the result is ``LINK``.
    Only regular files are opened.
    """
    try:
        st = os.stat(path) if follow else os.lstat(path)
        if stat.S_ISLNK(st.st_mode):
            return HeaderResult(LINK, "is a symbolic link")
    except FileNotFoundError:
        return HeaderResult(MISSING, "must name an existing file (it does not exist)")
    except NotADirectoryError:
        return HeaderResult(MISSING, "must name an existing file (a parent of it is not a directory)")
    except OSError as exc:
        return HeaderResult(UNREADABLE, f"must be readable (got {exc.strerror or exc})")
    if not stat.S_ISREG(st.st_mode):
        kind = "a directory" if stat.S_ISDIR(st.st_mode) else "a special file"
        return HeaderResult(NOT_FILE, f"must name a regular file (got {kind})")
    size = st.st_size
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        return HeaderResult(UNREADABLE, f"must be readable (got {exc.strerror or exc})")
    try:
        return _parse(fd, size)
    except OSError as exc:
        return HeaderResult(UNREADABLE, f"must be readable (got {exc.strerror or exc})")
    finally:
        os.close(fd)


def _parse(fd: int, size: int) -> HeaderResult:
    head = os.pread(fd, _HEAD, 0)
    if head[:8] != SIGNATURE:
        return HeaderResult(NOT_PNG, f"must be a PNG file (got {sniff(head)})")
    if len(head) < 33:
        return HeaderResult(CORRUPT, f"must be a complete PNG file (got {size} bytes, truncated inside the header)")
    length, ctype = struct.unpack_from(">I4s", head, 8)
    if ctype != b"IHDR" or length != 13:
        return HeaderResult(CORRUPT, f"must start with a 13-byte IHDR chunk (got {ctype!r} of {length} bytes)")
    (crc,) = struct.unpack_from(">I", head, 29)
    if zlib.crc32(head[12:29]) != crc:
        return HeaderResult(CORRUPT, "must have an intact IHDR chunk (got a CRC mismatch: the header is damaged)")
    w, h, bd, ct, comp, filt, inter = struct.unpack_from(">IIBBBBB", head, 16)
    if not (0 < w <= _MAX_CHUNK and 0 < h <= _MAX_CHUNK):
        return HeaderResult(CORRUPT, f"must have a positive width and height (got {w}x{h})")
    if ct not in _DEPTHS or bd not in _DEPTHS[ct]:
        return HeaderResult(CORRUPT, f"must have a valid colour type and bit depth (got colour type {ct}, {bd}-bit)")
    if comp != 0 or filt != 0 or inter not in (0, 1):
        return HeaderResult(CORRUPT, f"must use standard compression, filter and interlace methods (got {comp}, {filt}, {inter})")
    plte = trns = False
    pos = 33
    while True:
        if pos + 8 > size:
            return HeaderResult(CORRUPT, f"must be a complete PNG file (got {size} bytes, truncated before the image data)")
        if pos + 8 <= len(head):
            chunk = head[pos:pos + 8]
        else:
            chunk = os.pread(fd, 8, pos)
            if len(chunk) < 8:
                return HeaderResult(CORRUPT, f"must be a complete PNG file (got {size} bytes, truncated before the image data)")
        length, ctype = struct.unpack(">I4s", chunk)
        if length > _MAX_CHUNK or not ctype.isalpha():
            return HeaderResult(CORRUPT, f"must consist of valid chunks (got a damaged chunk header at byte {pos})")
        if ctype == b"IDAT":
            break
        if ctype == b"IEND":
            return HeaderResult(CORRUPT, "must contain image data (got IEND before any IDAT chunk)")
        if ctype == b"PLTE":
            plte = True
        elif ctype == b"tRNS":
            trns = True
        pos += 12 + length
    if ct == 3 and not plte:
        return HeaderResult(CORRUPT, "must have a PLTE chunk for its palette colour type (got none)")
    if not _ends_with_iend(fd, size):
        return HeaderResult(CORRUPT, f"must be a complete PNG file (got {size} bytes with no IEND chunk: truncated)")
    return HeaderResult(OK, "", w, h, bd, ct, inter, plte, trns, pos)


def _ends_with_iend(fd: int, size: int) -> bool:
    """True when the file ends with IEND (or has it shortly before some trailing bytes)."""
    tail = os.pread(fd, 12, max(0, size - 12))
    if tail == _IEND:
        return True
    start = max(0, size - _TAIL_SEARCH)
    return b"IEND" in os.pread(fd, size - start, start)


def read_headers(paths: list[str]) -> list[HeaderResult]:
    """:func:`read_header` over a slice of files (the unit of work of :func:`pytest_omfc.pool.map_slices`)."""
    return [read_header(p) for p in paths]


# ---------------------------------------------------------------------------- pixels (MASK-08)

BLACK, NOT_BLACK, BAD_DATA = "black", "not-black", "bad"
_FILTER_TYPES = bytes(range(5))


def _filter_positions(width: int, height: int, bit_depth: int, channels: int, interlace: int) -> tuple[np.ndarray, int]:
    """Offsets of the filter-type bytes in the inflated stream, and the stream's length."""
    bpp_bits = bit_depth * channels
    if interlace == 0:
        passes = [(width, height)]
    else:  # Adam7: (x0, y0, dx, dy) per pass
        adam7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
        passes = [((width - x0 + dx - 1) // dx, (height - y0 + dy - 1) // dy) for x0, y0, dx, dy in adam7]
    starts: list[np.ndarray] = []
    offset = 0
    for pw, ph in passes:
        if pw <= 0 or ph <= 0:
            continue
        stride = 1 + (pw * bpp_bits + 7) // 8
        starts.append(offset + np.arange(ph, dtype=np.int64) * stride)
        offset += ph * stride
    return (np.concatenate(starts) if starts else np.zeros(0, np.int64)), offset


def scan_pixels(path: str, width: int, height: int, bit_depth: int, colour: int, interlace: int, idat: int) -> tuple[str, str]:
    """Is every pixel 0 (black)?  Stops at the first non-zero sample.

    With all filter residuals zero the reconstructed image is zero and
    conversely (every PNG predictor of zero bytes is zero), so the filtered
    stream answers without unfiltering.  Returns ``(BLACK | NOT_BLACK | BAD_DATA, message)``.
    """
    channels = _CHANNELS.get(colour, 1)
    if interlace == 0:  # filter bytes every `stride` bytes: no table needed
        stride = 1 + (width * bit_depth * channels + 7) // 8
        filters, total = None, stride * height
    else:
        stride = 0
        filters, total = _filter_positions(width, height, bit_depth, channels, interlace)
    inflater = zlib.decompressobj()
    seen, step = 0, 2048
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        return BAD_DATA, f"must be readable (got {exc.strerror or exc})"
    try:
        pos = idat
        while seen < total:
            hdr = os.pread(fd, 8, pos)
            if len(hdr) < 8:
                return BAD_DATA, "pixel data must be complete (got a file truncated inside the image data)"
            length, ctype = struct.unpack(">I4s", hdr)
            if ctype == b"IEND":
                break
            data = os.pread(fd, length, pos + 8) if ctype == b"IDAT" else b""
            if ctype == b"IDAT" and len(data) < length:
                return BAD_DATA, "pixel data must be complete (got a file truncated inside an IDAT chunk)"
            pos += 12 + length
            while data and seen < total:
                out = inflater.decompress(data, step)
                step = min(step * 4, 1 << 18)  # small first: most masks answer in their first rows
                data = inflater.unconsumed_tail
                if not out:
                    if not data:
                        break
                    continue
                out = out[: total - seen]
                if out.translate(None, _FILTER_TYPES):  # filter-type bytes are 0-4: anything else is a sample
                    return NOT_BLACK, ""
                block = np.frombuffer(out, dtype=np.uint8).copy()
                if filters is None:
                    block[(-seen) % stride::stride] = 0
                else:
                    lo, hi = np.searchsorted(filters, [seen, seen + len(block)])
                    block[filters[lo:hi] - seen] = 0
                if block.any():
                    return NOT_BLACK, ""
                seen += len(out)
    except zlib.error as exc:
        return BAD_DATA, f"pixel data must be a valid zlib stream (got {exc})"
    except OSError as exc:
        return BAD_DATA, f"must be readable (got {exc.strerror or exc})"
    finally:
        os.close(fd)
    if seen < total:
        return BAD_DATA, f"pixel data must be complete (got {seen} of {total} bytes: truncated)"
    return BLACK, ""


def scan_many(items: list[tuple[str, int, int, int, int, int, int]]) -> list[tuple[str, str]]:
    """:func:`scan_pixels` over a slice of masks (a unit of work for the process pool)."""
    return [scan_pixels(*item) for item in items]

