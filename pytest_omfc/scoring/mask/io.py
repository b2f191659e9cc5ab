"""Reading mask files for the mask scorer (docs/scoring/masks.md#reading-masks), with bounded memory and typed failures.

* :func:`read_system_mask`: the system's grey mask (MediScore ``cv2.imread(path, IMREAD_GRAYSCALE)``).
  RGB PNGs are converted with Pillow's ``convert('L')`` (ITU-R 601 integer weights), which
  reproduces every RGB case of the conformance data (step 1).
* :func:`read_colour_reference`: a colour reference as ``cv2.imread(path, IMREAD_COLOR)``, i.e.
  (H, W, 3) **BGR**; grey PNGs are replicated.
* :func:`read_bitplanes`: a ``--jpeg2000`` bit-plane reference, (H, W) or (H, W, L) unsigned
  integers, through glymur when an OpenJPEG >= 2.4 is loadable, else Pillow's bundled OpenJPEG
  (the same arrays).  Files are recognised by their signature, not their name: two ``*.bpm.jp2``
  files of the conformance data are PNGs.

Every failure is a :class:`MaskReadError` whose message is the per-trial reason ("not a PNG",
"size 10x20 differs from the reference's 30x40", ...).  The header is checked before any pixel
is decoded: a mask whose declared size differs from the expected one, or that declares more
pixels than ``max_pixels``, is refused without allocating it (a decompression bomb costs nothing).
"""

from __future__ import annotations

import struct
import warnings
from pathlib import Path

import numpy as np
from numpy.typing import NDArray
from PIL import Image

from ... import members, png
from ...paths import not_regular

__all__ = [
    "MAX_PIXELS",
    "MaskReadError",
    "glymur_usable",
    "read_bitplanes",
    "read_colour_reference",
    "read_system_mask",
]

#: largest mask accepted (pixels): 2.5 x an 8K x 8K image; MediFor probes are far smaller
MAX_PIXELS = 160_000_000

_PNG = b"\x89PNG\r\n\x1a\n"
_JP2 = (b"\x00\x00\x00\x0cjP  \r\n\x87\n", b"\xff\x4f\xff\x51")  # JP2 box, raw codestream


class MaskReadError(Exception):
    """A mask cannot be used; ``str(err)`` is the reason given for the trial."""


def _label(path: Path | str, width: int = 80) -> str:
    """A file name (or a str as is) fit for a one-line reason: non-printable characters escaped, long names cut."""
    text = path if isinstance(path, str) else (path.name or str(path))
    if text.isprintable() and len(text) <= width:
        return text
    esc = text.encode("unicode_escape").decode("ascii")
    return esc if len(esc) <= width else f"{esc[: width - 20]}...({len(text)} chars)"


def _signature(path: Path) -> bytes:
    """The first 24 bytes: the signature, and for a PNG its IHDR width and height.

    ``stat`` comes first: a FIFO, a device or a socket is refused without being opened (``open`` on a
    FIFO blocks until a writer comes; MASK-04 calls it a special file too), and the file is opened
    non-blocking.
    """
    kind = not_regular(path)
    if kind == "no such file":
        raise MaskReadError(f"{_label(path)}: file not found (in {_label(str(path.parent), 120)})")
    if kind is not None:
        raise MaskReadError(f"{_label(path)}: must name a regular file (got {kind})")
    try:
        src = members.open_region(path)  # a file, or an archive member read in place
    except OSError as exc:
        raise MaskReadError(f"{_label(path)}: cannot open ({exc.strerror or exc})") from None
    try:
        return src.pread(24, 0)
    except OSError as exc:
        raise MaskReadError(f"{_label(path)}: cannot read ({exc.strerror or exc})") from None
    finally:
        src.close()


def _checked_png(
    path: Path, expected: tuple[int, int] | None, max_pixels: int, colours: tuple[int, ...] = ()
) -> Image.Image | NDArray[np.uint8]:
    """A PNG read exactly as the rules read it: the header pass (:func:`pytest_omfc.png.read_header`:
    signature, IHDR, every chunk's CRC, IEND) and the image data (:func:`pytest_omfc.png.read_image_data`:
    the zlib stream and filter types) refuse what MASK-04 refuses, with MASK-04's words; the declared
    size is checked before anything is inflated.

    An 8-bit, non-interlaced file of a colour type in ``colours`` comes back as pixels, unfiltered with
    numpy (:mod:`pytest_omfc.unfilter`: each file inflated once, by zlib-ng): (H, W) grey or (H, W, 3)
    RGB.  Anything else, or an image :func:`~pytest_omfc.unfilter.unfilter` declines, comes back as a
    Pillow image reading only the critical chunks, so an ancillary chunk of any size costs no memory.
    """
    name = str(path)
    header = png.read_header(name, follow=True)
    if header.state != png.OK:
        raise MaskReadError(f"{_label(path)}: {header.message}")
    _check_size(_label(path), header.height, header.width, expected, max_pixels)
    try:
        pixels = png.unfiltered(name, header, colours)
    except png.PixelError as exc:
        raise MaskReadError(f"{_label(path)}: {exc}") from None
    except MemoryError:
        raise MaskReadError(f"{_label(path)}: out of memory while decoding") from None
    except OSError as exc:
        raise MaskReadError(f"{_label(path)}: cannot read ({exc.strerror or exc})") from None
    if pixels is not None:
        return pixels
    try:
        stream = png.open_critical(name, header)
    except OSError as exc:
        raise MaskReadError(f"{_label(path)}: cannot read ({exc.strerror or exc})") from None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # max_pixels decided above
            im = Image.open(stream, formats=("PNG",))
    except Exception as exc:  # noqa: BLE001  Pillow raises many types
        stream.close()
        raise MaskReadError(f"{_label(path)}: unreadable image ({type(exc).__name__}: {exc})") from None
    # closed by _decode/_bgr with the image
    im.omfc_stream = stream  # type: ignore[attr-defined]
    return im


def _check_size(name: str, height: int, width: int, expected: tuple[int, int] | None, max_pixels: int) -> None:
    if width * height > max_pixels:
        raise MaskReadError(f"{name}: declared size {height}x{width} (HxW) exceeds {max_pixels} pixels")
    if expected is not None and (height, width) != expected:
        raise MaskReadError(
            f"{name}: size {height}x{width} (HxW) differs from the reference's {expected[0]}x{expected[1]}"
        )


def _png_header(sig: bytes, name: str, expected: tuple[int, int] | None, max_pixels: int) -> None:
    """Check a PNG's IHDR size before Pillow parses anything (so a bomb's message names its size)."""
    if len(sig) >= 24 and sig[12:16] == b"IHDR":
        width, height = struct.unpack(">II", sig[16:24])
        _check_size(name, height, width, expected, max_pixels)


def _open(path: Path, expected: tuple[int, int] | None, max_pixels: int) -> Image.Image:
    """Open lazily (header only) and check the declared size before decoding."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # max_pixels decides below
            im = Image.open(path)
    except Image.DecompressionBombError as exc:
        raise MaskReadError(f"{_label(path)}: declared size is a decompression bomb ({exc})") from None
    except Exception as exc:  # noqa: BLE001  Pillow raises UnidentifiedImageError, SyntaxError, struct.error, ...
        raise MaskReadError(f"{_label(path)}: unreadable image ({type(exc).__name__}: {exc})") from None
    width, height = im.size
    try:
        _check_size(_label(path), height, width, expected, max_pixels)
    except MaskReadError:
        im.close()
        raise
    return im


def _close_stream(im: Image.Image) -> None:
    stream = getattr(im, "omfc_stream", None)
    if stream is not None:
        stream.close()


def _decode(im: Image.Image, path: Path, mode: str | None) -> NDArray[np.generic]:
    try:
        with im, warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            out = im.convert(mode) if mode is not None and im.mode != mode else im
            arr = np.asarray(out)
    except MemoryError:
        raise MaskReadError(f"{_label(path)}: out of memory while decoding") from None
    except Exception as exc:  # noqa: BLE001  truncated data, bad CRC, ...
        raise MaskReadError(f"{_label(path)}: cannot decode ({type(exc).__name__}: {exc})") from None
    finally:
        _close_stream(im)
    return arr


def read_system_mask(
    path: str | Path, expected: tuple[int, int] | None = None, *, max_pixels: int = MAX_PIXELS
) -> NDArray[np.uint8]:
    """The system mask as uint8 grey (H, W); it must be a PNG (MASK-02, MASK-04) of shape ``expected``."""
    p = Path(path)
    sig = _signature(p)
    if not sig.startswith(_PNG):
        raise MaskReadError(f"{_label(p)}: must be a PNG file (got {png.sniff(sig[:16])})")
    _png_header(sig, _label(p), expected, max_pixels)
    im = _checked_png(p, expected, max_pixels, colours=(0,))
    if isinstance(im, np.ndarray):
        return im
    if im.mode in ("I", "I;16", "I;16B", "I;16L", "F"):
        # a 16-bit PNG: cv2.imread(IMREAD_GRAYSCALE) keeps the high byte
        arr = _decode(im, p, None).astype(np.uint32)
        return (arr >> 8).astype(np.uint8)
    return np.ascontiguousarray(_decode(im, p, "L"), dtype=np.uint8)


#: Pillow modes that are 8-bit grey as decoded: cv2.imread(IMREAD_COLOR) replicates them to B = G = R
_GREY_MODES = frozenset({"L", "1"})


def _bgr(im: Image.Image, path: Path) -> NDArray[np.uint8]:
    """(H, W, 3) BGR in one pass: Pillow's raw encoder writes B, G, R (no flip, no second copy)."""
    try:
        with im, warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            rgb = im.convert("RGB") if im.mode != "RGB" else im
            data = rgb.tobytes("raw", "BGR")
    except MemoryError:
        raise MaskReadError(f"{_label(path)}: out of memory while decoding") from None
    except Exception as exc:  # noqa: BLE001  truncated data, bad CRC, ...
        raise MaskReadError(f"{_label(path)}: cannot decode ({type(exc).__name__}: {exc})") from None
    finally:
        _close_stream(im)
    width, height = rgb.size
    return np.frombuffer(data, dtype=np.uint8).reshape(height, width, 3)


def _from_pixels(pixels: NDArray[np.uint8], grey: bool) -> NDArray[np.uint8]:
    """What :func:`read_colour_reference` returns, from unfiltered grey (H, W) or RGB (H, W, 3) pixels."""
    if pixels.ndim == 3:
        bgr = pixels[:, :, ::-1]
    elif grey:
        return pixels
    else:
        bgr = np.broadcast_to(pixels[:, :, None], (*pixels.shape, 3))
    out = np.ascontiguousarray(bgr)
    out.flags.writeable = False
    return out


def read_colour_reference(
    path: str | Path, expected: tuple[int, int] | None = None, *, max_pixels: int = MAX_PIXELS, grey: bool = False
) -> NDArray[np.uint8]:
    """A colour reference mask as (H, W, 3) BGR uint8 (``cv2.imread(path, IMREAD_COLOR)``), read-only.

    ``grey=True``: an 8-bit grey file (Pillow mode L or 1, the usual binary reference) is returned as
    (H, W) instead, which :func:`~.engine.colour_reference` takes as replicated to B = G = R, exactly
    what IMREAD_COLOR gives.  The 3-channel copy and the 3-channel colour code are skipped: for a
    1920x1080 binary PNG this is 6 ms instead of 18 (benchmarks/score_masks.py).
    """
    p = Path(path)
    sig = _signature(p)
    if sig.startswith(_PNG):
        _png_header(sig, _label(p), expected, max_pixels)
        read = _checked_png(p, expected, max_pixels, colours=(0, 2))
        if isinstance(read, np.ndarray):
            return _from_pixels(read, grey)
        im = read
    else:  # MediScore reads references with OpenCV: any format it reads (the file is regular: _signature)
        im = _open(p, expected, max_pixels)
    if im.mode in _GREY_MODES:
        g = np.asarray(_decode(im, p, "L"), dtype=np.uint8)
        if grey:
            return g
        out = np.empty((*g.shape, 3), dtype=np.uint8)
        out[...] = g[:, :, None]
        out.flags.writeable = False
        return out
    return _bgr(im, p)


def glymur_usable() -> bool:
    """True when glymur can decode JPEG 2000, i.e. it found an OpenJPEG >= 2.4."""
    try:
        import glymur
    except Exception:  # noqa: BLE001  a broken glymur install means "not usable"
        return False
    version = getattr(getattr(glymur, "version", None), "openjpeg_version", "0.0.0") or "0.0.0"
    try:
        parts = tuple(int(x) for x in str(version).split(".")[:2])
    except ValueError:
        return False
    return parts >= (2, 4)


def read_bitplanes(
    path: str | Path,
    expected: tuple[int, int] | None = None,
    *,
    max_pixels: int = MAX_PIXELS,
    decoder: str = "auto",
) -> NDArray[np.unsignedinteger]:
    """A bit-plane reference (``ProbeBitPlaneMaskFileName``) as (H, W) or (H, W, L) unsigned integers.

    ``decoder``: ``"auto"`` uses glymur where it found an OpenJPEG >= 2.4 (the library MediScore
    reads with) and Pillow's bundled OpenJPEG otherwise, so a plain ``pip install`` still reads
    JPEG 2000; ``"glymur"`` or ``"pillow"`` forces one (the tests decode the same files both ways).
    """
    if decoder not in ("auto", "glymur", "pillow"):
        raise ValueError(f"decoder must be auto, glymur or pillow (got {decoder!r})")
    p = Path(path)
    sig = _signature(p)
    use_glymur = decoder == "glymur" or (decoder == "auto" and glymur_usable())
    if sig.startswith(_JP2) and use_glymur:
        import glymur

        try:
            jp2 = glymur.Jp2k(str(p))
            height, width = int(jp2.shape[0]), int(jp2.shape[1])
        except Exception as exc:  # noqa: BLE001  glymur raises many types
            raise MaskReadError(f"{_label(p)}: unreadable JPEG 2000 ({type(exc).__name__}: {exc})") from None
        _check_size(_label(p), height, width, expected, max_pixels)
        try:
            arr = np.asarray(jp2[:])
        except Exception as exc:  # noqa: BLE001  glymur raises many types
            raise MaskReadError(f"{_label(p)}: cannot decode ({type(exc).__name__}: {exc})") from None
    else:
        if not (sig.startswith(_PNG) or sig.startswith(_JP2)):
            raise MaskReadError(f"{_label(p)}: neither JPEG 2000 nor PNG")
        if sig.startswith(_PNG):
            _png_header(sig, _label(p), expected, max_pixels)
            read = _checked_png(p, expected, max_pixels)
            arr = read if isinstance(read, np.ndarray) else _decode(read, p, None)
        else:
            arr = _decode(_open(p, expected, max_pixels), p, None)
    if arr.dtype.kind == "b":
        arr = arr.astype(np.uint8)
    if arr.dtype.kind == "i":
        if arr.size and int(arr.min()) < 0:
            raise MaskReadError(f"{_label(p)}: negative values in a bit-plane mask")
        arr = arr.astype(np.uint32 if arr.dtype.itemsize > 2 else np.uint16)
    if arr.dtype.kind != "u" or arr.ndim not in (2, 3):
        raise MaskReadError(
            f"{_label(p)}: bit planes must be unsigned integers, (H, W) or (H, W, L) (got {arr.dtype} {arr.shape})"
        )
    return arr
