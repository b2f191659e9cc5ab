"""Reading what the mask rules need from a PNG file, with memory and time bounded by the index.

Two passes, both streaming through buffers of at most :data:`_BLOCK` bytes,
whatever sizes a file declares:

* :func:`read_header` (every referenced file, MASK-03...07): the signature,
  IHDR (size, bit depth, colour type, interlace), PLTE/tRNS before the first
  IDAT, the CRC of every chunk and a final IEND (MASK-04: decoders reject a
  critical chunk with a wrong CRC).  It reads the whole file (a few KB per
  mask) but never inflates it.
* :func:`decode_pixels` (MASK-04's image data, MASK-08's black masks) inflates
  the IDAT stream once, discarding the output as it goes, and says whether the
  zlib stream ends properly with all the image data, whether every row's filter
  type is valid and whether every sample is 0.  Its caller only asks for masks
  whose header size equals the index size (MASK-06), so the work is bounded by
  the index, not by the upload: a 67-byte file declaring 1 x 2147483647 pixels
  is never inflated.
* :func:`read_image_data` and :func:`unfiltered` (the mask scorer, the ForgeryNet
  spatial scorer) inflate the same stream through the same function
  (:func:`_inflated`) and keep it, for :func:`pytest_omfc.unfilter.unfilter`: a
  rule and a scorer refuse the same files with the same words.

Nothing here raises on bad input: every function returns a state code and a
message in the "must be X (got Y)" form.  Special files (FIFOs, devices) are
never opened, so a hostile submission cannot make a check hang.
"""

from __future__ import annotations

import io
import os
import re
import stat
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple, cast

import numpy as np
from numpy.typing import NDArray

# zlib-ng inflates these streams 5 to 30 times as fast as the standard library's zlib, with the same
# streaming API (max_length, unconsumed_tail, eof), and its crc32 uses the CPU's carry-less multiply:
# benchmarks/inflate.py measures the candidates on the masks of benchmarks/validate_scale.py.
from zlib_ng import zlib_ng as zlib

from . import members
from .members import Region
from .unfilter import unfilter

#: zlib-ng's stub declares ``error`` as an instance (``error: Exception``); it is the exception class.
_ZLIB_ERROR = cast("type[Exception]", zlib.error)

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
    "open_regular",
    "read_headers",
    "read_followed_headers",
    "sniff",
    "colour_name",
    "raw_size",
    "decode_pixels",
    "Verdict",
    "DecodeItem",
    "read_image_data",
    "unfiltered",
    "PixelError",
    "decode_many",
    "blackness_many",
    "BLACK",
    "NOT_BLACK",
    "BAD_DATA",
    "CriticalChunks",
    "open_critical",
]

SIGNATURE = members.SIGNATURE  # (one definition: the archive reader tells a mask by it too)
_BLOCK = 1 << 18  # the largest read: memory per file stays below this whatever the file declares
_MAX_CHUNK = 2**31 - 1
_CRITICAL = (b"IHDR", b"PLTE", b"IDAT", b"IEND")
_MAX_TRNS = 256  # the largest valid tRNS (a full palette's alphas); a larger one is not handed to decoders
_IEND = b"\x00\x00\x00\x00IEND\xaeB`\x82"

# File states (MASK-03: MISSING, NOT_FILE; MASK-04: UNREADABLE, NOT_PNG, CORRUPT; PKG-04: UNSAFE).
# LINK: the name is a symlink, not followed; the caller decides whether it stays inside.
OK, UNSAFE, MISSING, NOT_FILE, UNREADABLE, NOT_PNG, CORRUPT, LINK = range(8)

#: Allowed bit depths per colour type (PNG spec, table 11.1).
_DEPTHS = {0: (1, 2, 4, 8, 16), 2: (8, 16), 3: (1, 2, 4, 8), 4: (8, 16), 6: (8, 16)}
_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
#: Adam7 passes: (x0, y0, dx, dy).
_ADAM7 = ((0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2))

_COLOUR_NAMES = {
    0: "grey",
    2: "RGB colour, 3 channels",
    3: "a palette (indexed colour, decoded as 3 channels)",
    4: "grey+alpha, 2 channels",
    6: "RGBA colour, 4 channels",
}


@dataclass(frozen=True)
class HeaderResult:
    """What :func:`read_header` learnt about one file (plain data: cheap to pickle).

    ``dev``/``ino`` identify the file itself, so that names reaching the same
    file (symlinks, hard links) are decoded once.
    """

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
    dev: int = 0
    ino: int = 0
    idat_end: int = 0  # end of the first run of consecutive IDAT chunks (the image data decoders read)
    plte_at: int = 0  # offset and whole-chunk size of PLTE / a small tRNS before IDAT (0: none kept)
    plte_size: int = 0
    trns_at: int = 0
    trns_size: int = 0
    kind: str = "PNG"  # the file's format: "PNG", or "JPEG" for a map read by :mod:`pytest_omfc.jpeg`


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
    """Signature, IHDR, PLTE/tRNS presence up to IDAT, every chunk's CRC and the final IEND of one file.

    The directories of ``path`` must already be known to stay inside the
    submission (PKG-04).  A symlink is only followed with ``follow=True``,
    once the caller has resolved it inside; otherwise the result is ``LINK``.
    Only regular files are opened.
    """
    opened = open_regular(path, follow)
    if isinstance(opened, HeaderResult):
        return opened
    src, size, dev, ino = opened
    try:
        return _parse(_Reader(src, size), dev, ino)
    except OSError as exc:
        return HeaderResult(UNREADABLE, f"must be readable (got {exc.strerror or exc})")
    finally:
        src.close()


def open_regular(path: str, follow: bool = False) -> tuple[Region, int, int, int] | HeaderResult:
    """A read-only :class:`~pytest_omfc.members.Region` of ``path`` with its size and identity (device, inode)
    when it is a regular file or an archive member read in place (:mod:`pytest_omfc.members`), else why not
    (``LINK`` for a symlink unless ``follow``; ``MISSING``, ``NOT_FILE``, ``UNREADABLE``).  A FIFO or device is
    never opened, so a hostile file cannot make a read hang.  The caller closes the region."""
    try:
        member = members.locate(path)
        if member is not None:
            try:
                return members.open_member(member), member.size, member.dev, member.ino
            except OSError as exc:
                return HeaderResult(UNREADABLE, f"must be readable (got {exc.strerror or exc})")
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
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        return HeaderResult(UNREADABLE, f"must be readable (got {exc.strerror or exc})")
    return Region(fd), st.st_size, st.st_dev, st.st_ino


class _Reader:
    """Positional reads through one window of at most :data:`_BLOCK` bytes: a mask of a few KB is one read."""

    def __init__(self, src: Region, size: int) -> None:
        self.src, self.size = src, size
        self.start, self.buf = 0, src.pread(min(size, _BLOCK), 0)

    def get(self, pos: int, n: int) -> bytes:
        """``n <= _BLOCK`` bytes at ``pos`` (fewer at the end of the file)."""
        if pos < self.start or pos + n > self.start + len(self.buf):
            if pos >= self.size:
                return b""
            self.buf, self.start = self.src.pread(min(_BLOCK, self.size - pos), pos), pos
        return self.buf[pos - self.start : pos - self.start + n]

    def crc(self, pos: int, n: int) -> int:
        """CRC-32 of the ``n`` bytes at ``pos`` (they exist: the caller compared with the file size)."""
        if self.start <= pos and pos + n <= self.start + len(self.buf):
            return zlib.crc32(memoryview(self.buf)[pos - self.start : pos - self.start + n])
        value, end = 0, pos + n
        while pos < end:
            piece = self.get(pos, min(_BLOCK, end - pos))
            if not piece:
                break
            value = zlib.crc32(piece, value)
            pos += len(piece)
        return value


def _truncated(size: int) -> HeaderResult:
    return HeaderResult(CORRUPT, f"must be a complete PNG file (got {size} bytes with no IEND chunk: truncated)")


def _parse(r: _Reader, dev: int, ino: int) -> HeaderResult:
    size = r.size
    head = r.get(0, 33)
    if head[:8] != SIGNATURE:
        return HeaderResult(NOT_PNG, f"must be a PNG file (got {sniff(r.get(0, 16))})")
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
        return HeaderResult(
            CORRUPT, f"must use standard compression, filter and interlace methods (got {comp}, {filt}, {inter})"
        )
    plte = trns = False
    idat = idat_end = 0
    kept = {b"PLTE": (0, 0), b"tRNS": (0, 0)}
    zhead = b""  # the first two bytes of the image data: the zlib header
    pos = 33
    while True:  # every chunk up to IEND: its length stays inside the file and its CRC matches
        hdr = r.get(pos, 8)
        if len(hdr) < 8:
            if idat:
                return _truncated(size)
            return HeaderResult(
                CORRUPT, f"must be a complete PNG file (got {size} bytes, truncated before the image data)"
            )
        length, ctype = struct.unpack(">I4s", hdr)
        if length > _MAX_CHUNK or not ctype.isalpha():
            return HeaderResult(CORRUPT, f"must consist of valid chunks (got a damaged chunk header at byte {pos})")
        if pos + 12 + length > size:
            return _truncated(size)
        if r.crc(pos + 4, length + 4) != int.from_bytes(r.get(pos + 8 + length, 4), "big"):  # type and data
            name = ctype.decode("ascii")
            return HeaderResult(
                CORRUPT,
                f"must have an intact {name} chunk at byte {pos} (got a CRC mismatch: its {length} bytes are damaged)",
            )
        if ctype == b"IDAT":
            if not idat:
                idat = pos
            if idat_end in (0, pos):  # still the first run of consecutive IDAT chunks
                idat_end = pos + 12 + length
            if len(zhead) < 2:
                zhead += r.get(pos + 8, min(length, 2 - len(zhead)))
        elif ctype == b"IEND":
            break
        elif not idat and ctype == b"PLTE":
            plte = True
            kept[b"PLTE"] = (pos, 12 + length)
        elif not idat and ctype == b"tRNS":
            trns = True
            if length <= _MAX_TRNS:
                kept[b"tRNS"] = (pos, 12 + length)
        pos += 12 + length
    if not idat:
        return HeaderResult(CORRUPT, "must contain image data (got IEND before any IDAT chunk)")
    if ct == 3 and not plte:
        return HeaderResult(CORRUPT, "must have a PLTE chunk for its palette colour type (got none)")
    if (
        len(zhead) < 2
        or zhead[0] & 0x0F != 8
        or zhead[0] >> 4 > 7
        or (zhead[0] << 8 | zhead[1]) % 31
        or zhead[1] & 0x20
    ):
        return HeaderResult(CORRUPT, f"pixel data must start with a zlib header (got {zhead!r})")
    return HeaderResult(
        OK, "", w, h, bd, ct, inter, plte, trns, idat, dev, ino, idat_end, *kept[b"PLTE"], *kept[b"tRNS"]
    )


def read_headers(paths: list[str]) -> list[HeaderResult]:
    """:func:`read_header` over a slice of files (the unit of work of :func:`pytest_omfc.work.pool.map_slices`)."""
    return [read_header(p) for p in paths]


def read_followed_headers(paths: list[str]) -> list[HeaderResult]:
    """:func:`read_header` with ``follow=True`` over a slice of files whose paths the caller resolved inside."""
    return [read_header(p, follow=True) for p in paths]


# ---------------------------------------------------------------------------- pixels (MASK-04 image data, MASK-08)

BLACK, NOT_BLACK, BAD_DATA = "black", "not-black", "bad"
_STEP = 1 << 18  # inflated bytes per call: the output is looked at and dropped


def _passes(width: int, height: int, bit_depth: int, colour: int, interlace: int) -> list[tuple[int, int, int]]:
    """``(start, stride, end)`` of each pass in the inflated stream: a filter-type byte opens every ``stride`` bytes."""
    bpp_bits = bit_depth * _CHANNELS.get(colour, 1)
    if interlace == 0:
        sizes = [(width, height)]
    else:
        sizes = [((width - x0 + dx - 1) // dx, (height - y0 + dy - 1) // dy) for x0, y0, dx, dy in _ADAM7]
    out, offset = [], 0
    for pw, ph in sizes:
        if pw > 0 and ph > 0:
            stride = 1 + (pw * bpp_bits + 7) // 8
            out.append((offset, stride, offset + ph * stride))
            offset += ph * stride
    return out


def raw_size(width: int, height: int, bit_depth: int, colour: int, interlace: int) -> int:
    """Bytes of the inflated image data (filter bytes included): the work :func:`decode_pixels` does."""
    passes = _passes(width, height, bit_depth, colour, interlace)
    return passes[-1][2] if passes else 0


#: A byte above 4 in the inflated stream: a sample (filter-type bytes are 0 to 4), so not all samples are 0.
_SAMPLE = re.compile(rb"[^\x00-\x04]")


def _zero_samples(out: bytes, seen: int, passes: list[tuple[int, int, int]]) -> bool:
    """Are all samples in ``out`` (stream bytes ``seen...``) zero?  Filter-type bytes (0-4) are not samples.

    With all filter residuals zero the reconstructed image is zero and conversely (every PNG predictor of
    zero bytes is zero), so the filtered stream answers without unfiltering.  A mask that is not black
    shows a byte above 4 within its first rows, where the search stops; only bytes 0-4 throughout need the
    positions of the filter-type bytes.
    """
    if _SAMPLE.search(out):
        return False
    block = np.frombuffer(out, dtype=np.uint8).copy()
    for start, stride, end in passes:
        lo, hi = max(seen, start), min(seen + len(out), end)
        if lo < hi:
            first = lo + (start - lo) % stride
            block[first - seen : hi - seen : stride] = 0
    return not block.any()


class PixelError(Exception):
    """The image data is unusable; ``str(err)`` is MASK-04's message ("pixel data must ...")."""


def _filter_types(out: bytes | bytearray, seen: int, passes: list[tuple[int, int, int]]) -> str:
    """MASK-04's words for the first filter-type byte above 4 in ``out`` (stream bytes ``seen...``), else ""."""
    for start, stride, end in passes:
        lo, hi = max(seen, start), min(seen + len(out), end)
        if lo < hi:
            first = lo + (start - lo) % stride
            types = out[first - seen : hi - seen : stride]  # a bytes slice: a few microseconds per piece
            bad = _SAMPLE.search(types)
            if bad:
                row = (first - start) // stride + bad.start()
                return f"pixel data must use PNG filter types 0 to 4 (got {types[bad.start()]} on row {row})"
    return ""


def _inflated(src: Region, idat: int, total: int, step: int, image: str) -> Iterator[bytes]:
    """The inflated image data, in pieces of at most ``step`` bytes, from the first run of IDAT chunks at
    ``idat``; stops once it gives more than ``total`` bytes (a zlib bomb: decoders ignore the excess).

    Raises :class:`PixelError` with MASK-04's message for a broken or short stream: rules and scorers
    read image data through this one function, so they agree on every file.
    """
    inflater = zlib.decompressobj()
    seen, pos = 0, idat
    try:
        while not inflater.eof and seen <= total:
            hdr = src.pread(8, pos)
            if len(hdr) < 8:
                break
            length, ctype = struct.unpack(">I4s", hdr)
            if ctype != b"IDAT":
                break
            at, end = pos + 8, pos + 8 + length
            pos = end + 4
            while at < end and not inflater.eof and seen <= total:
                data = src.pread(min(_BLOCK, end - at), at)
                if not data:
                    raise PixelError("pixel data must be complete (got a file truncated inside an IDAT chunk)")
                at += len(data)
                while True:
                    out = inflater.decompress(data, step)
                    data = inflater.unconsumed_tail
                    if out:
                        seen += len(out)
                        yield out
                    if inflater.eof or seen > total or (not data and len(out) < step):
                        break
    except _ZLIB_ERROR as exc:
        raise PixelError(f"pixel data must be a valid zlib stream (got {exc})") from None
    if seen < total:
        how = "ends" if inflater.eof else "breaks off where the IDAT chunks end"
        raise PixelError(
            f"pixel data must hold the whole image (got a zlib stream that {how} after {seen} of the "
            f"{total} bytes {image} needs: truncated)"
        )
    if not inflater.eof and seen == total:
        raise PixelError(
            f"pixel data must be a complete zlib stream (got all {total} bytes of the image but no end "
            "of stream and checksum where the IDAT chunks end: truncated)"
        )


class Verdict(NamedTuple):
    """What :func:`decode_pixels` says of one file's image data."""

    state: str  # BLACK, NOT_BLACK or BAD_DATA
    message: str  # MASK-04's words for BAD_DATA, else ""
    #: the share of samples below 128 (dark: claimed manipulated) when measured (``measure=True`` on an
    #: 8-bit grey, non-interlaced image whose filters :func:`pytest_omfc.unfilter.unfilter` reverses), else -1
    dark: float = -1.0


#: one file for :func:`decode_many`: path, width, height, bit depth, colour type, interlace, first IDAT offset,
#: and whether to measure its dark share
DecodeItem = tuple[str, int, int, int, int, int, int, bool]


def decode_pixels(
    path: str,
    width: int,
    height: int,
    bit_depth: int,
    colour: int,
    interlace: int,
    idat: int,
    full: bool = True,
    measure: bool = False,
) -> Verdict:
    """Inflate the image data once: is the zlib stream complete, are its filter types valid, and is every
    sample 0 (black)?

    The caller passes a header whose size equals the index (MASK-06), which bounds the work.  The
    output is dropped as it comes (at most :data:`_STEP` bytes at a time), compressed data is read in
    pieces of :data:`_BLOCK` bytes, and inflating stops once the stream gives more than the image
    needs.  The stream ends where the consecutive IDAT chunks end, as for libpng.  Returns
    ``(BLACK | NOT_BLACK | BAD_DATA, message)``.

    ``full=False`` answers only "black?": it stops at the first sample above 0 (a white background shows
    one within the first row), so NOT_BLACK then says nothing of the rest of the stream (MASK-08 alone).

    ``measure=True`` (with ``full``) keeps the inflated data of an 8-bit grey, non-interlaced image, which
    the index bounds, and reverses its filters once the stream is complete, for the share of dark samples
    (MASK-08's mostly-black masks): the same single inflate, no second read.
    """
    passes = _passes(width, height, bit_depth, colour, interlace)
    total = passes[-1][2] if passes else 0
    keep = bytearray(total) if measure and full and bit_depth == 8 and colour == 0 and interlace == 0 else None
    seen, black = 0, True
    try:
        src = members.open_region(path)
    except OSError as exc:
        return Verdict(BAD_DATA, f"must be readable (got {exc.strerror or exc})")
    try:
        for out in _inflated(src, idat, total, _STEP, f"a {width}x{height} image"):
            if seen < total:
                piece = out[: total - seen]
                if full and (bad := _filter_types(piece, seen, passes)):
                    return Verdict(BAD_DATA, bad)
                if black and not _zero_samples(piece, seen, passes):
                    black = False
                    if not full:
                        return Verdict(NOT_BLACK, "")
                if keep is not None:
                    keep[seen : seen + len(piece)] = piece
            seen += len(out)
    except PixelError as exc:
        return Verdict(BAD_DATA, str(exc))
    except OSError as exc:
        return Verdict(BAD_DATA, f"must be readable (got {exc.strerror or exc})")
    finally:
        src.close()
    dark = -1.0
    if keep is not None and black:
        dark = 1.0
    elif keep is not None and (pixels := unfilter(keep, height, width, 1)) is not None:
        dark = float(np.count_nonzero(pixels < 128)) / pixels.size
    return Verdict(BLACK if black else NOT_BLACK, "", dark)


def read_image_data(path: str, header: HeaderResult) -> bytearray:
    """The whole inflated image data of a file whose ``header`` is ``OK`` (filter-type bytes included):
    what :func:`decode_pixels` inflates, read the same way, kept in one buffer of :func:`raw_size` bytes.

    Raises :class:`PixelError` with MASK-04's message where MASK-04 fails the file, ``OSError`` when
    unreadable.
    """
    passes = _passes(header.width, header.height, header.bit_depth, header.colour, header.interlace)
    total = passes[-1][2] if passes else 0
    buf = bytearray(total)
    seen = 0
    src = members.open_region(path)
    try:
        for out in _inflated(src, header.idat, total, total + 1, f"a {header.width}x{header.height} image"):
            take = out[: total - seen]
            buf[seen : seen + len(take)] = take
            seen += len(out)
    finally:
        src.close()
    if bad := _filter_types(buf, 0, passes):
        raise PixelError(bad)
    return buf


def unfiltered(path: str, header: HeaderResult, colours: tuple[int, ...]) -> NDArray[np.uint8] | None:
    """The image data read as MASK-04 reads it (:func:`read_image_data`: :class:`PixelError` with its words,
    ``OSError``), and for an 8-bit, non-interlaced file of a colour type in ``colours`` (0 grey, 2 RGB) its
    pixels, unfiltered with numpy (:func:`pytest_omfc.unfilter.unfilter`): (H, W) or (H, W, 3).  None: the
    caller decodes the checked file itself (another kind of PNG, or one the unfilter declines)."""
    raw = read_image_data(path, header)
    if header.bit_depth == 8 and header.interlace == 0 and header.colour in colours:
        return unfilter(raw, header.height, header.width, 3 if header.colour == 2 else 1)
    return None


def decode_many(items: list[DecodeItem]) -> list[Verdict]:
    """:func:`decode_pixels` over a slice of masks (a unit of work for the process pool)."""
    return [decode_pixels(*item[:7], measure=item[7]) for item in items]


def blackness_many(items: list[DecodeItem]) -> list[Verdict]:
    """:func:`decode_pixels` with ``full=False`` over a slice of masks: black or not, stopping early."""
    return [decode_pixels(*item[:7], full=False) for item in items]


# ---------------------------------------------------------------------------- decoding through the same reading


class CriticalChunks(members.PositionalStream):
    """A checked PNG as a decoder should see it: the signature, IHDR, PLTE, a small tRNS, the first run
    of IDAT chunks and an IEND, read from the file with ``pread`` as the decoder asks.

    Ancillary chunks (text, ICC profiles, private chunks: up to 2 GiB each) are left out, so a decoder
    (Pillow reads every chunk it meets into memory, and refuses a zTXt over 1 MB) holds at most its own
    read buffer of compressed data plus the image.  The pixels are those of the whole file: ancillary
    chunks carry none, and decoders stop at the first non-IDAT chunk after the image data.  Built only
    from a header that :func:`read_header` found ``OK`` (every CRC checked).
    """

    def __init__(self, path: str, header: HeaderResult) -> None:
        pieces = [(0, 33)]  # signature + IHDR
        pieces += [
            (at, size)
            for at, size in sorted(((header.plte_at, header.plte_size), (header.trns_at, header.trns_size)))
            if size
        ]
        pieces.append((header.idat, header.idat_end - header.idat))
        self._pieces: list[tuple[int, int, int]] = []  # (virtual start, file offset, size)
        start = 0
        for at, size in pieces:
            self._pieces.append((start, at, size))
            start += size
        super().__init__(members.open_region(path), start + len(_IEND))

    def _read_at(self, pos: int, n: int) -> bytes:
        for start, at, size in self._pieces:
            if start <= pos < start + size:
                return self._src.pread(min(n, start + size - pos), at + pos - start)
        tail = pos - (self._size - len(_IEND))
        return _IEND[tail : tail + n] if tail >= 0 else b""


def open_critical(path: str, header: HeaderResult) -> io.BufferedReader:
    """A stream of the critical chunks (:class:`CriticalChunks`) of a file whose ``header`` is ``OK``."""
    return io.BufferedReader(CriticalChunks(path, header), buffer_size=_BLOCK)
