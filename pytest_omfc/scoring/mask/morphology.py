"""Kernels and binary erode/dilate with OpenCV's semantics, in pure numpy (METRICS.md 2.4).

MediScore builds its no-score zones with ``cv2.erode``/``cv2.dilate`` (one
iteration, anchor at the kernel centre, pixels outside the image never
influence the result: border +inf for erode, -inf for dilate).  The masks are
binary, so a dilation is "any pixel under the kernel is set" and an erosion is
its dual ``~dilate(~x)``; both are computed here without OpenCV or scipy.

How: the kernel is covered by rectangles (contiguous rows with the same runs of
ones: one rectangle for ``box``, a handful for ``disc``/``diamond``).  A
rectangle is separable, and a sliding-window "any" of length L costs
``ceil(log2 L) + 1`` vectorised ORs by doubling (window 2m = window m OR window m
shifted by m).  The horizontal doubling table is shared by all rectangles, so a
box 15 dilation of a 1920x1080 mask is about ten whole-array boolean ORs.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Literal, get_args

import numpy as np
from numpy.typing import NDArray

__all__ = ["KERNEL_SHAPES", "KernelShape", "binary_dilate", "binary_erode", "dilate", "erode", "kernel"]

KernelShape = Literal["box", "disc", "diamond", "gaussian", "line"]
KERNEL_SHAPES: tuple[str, ...] = get_args(KernelShape)

#: sigma of MediScore's "gaussian" kernel ("as used in the R implementation")
_GAUSS_SIGMA = 0.3


def kernel(shape: str, size: int) -> NDArray[np.uint8]:
    """The k x k structuring element MediScore's ``getKern(shape, k)`` builds (METRICS.md 2.4 table).

    ``size == 0`` means "no operation" and gives the 1x1 identity kernel (erode
    and dilate then return their input, as MediScore skips the call).  An even
    or negative size, or an unknown shape, is a ``ValueError``.
    """
    if isinstance(size, bool) or not isinstance(size, int | np.integer):
        raise TypeError(f"kernel size must be an odd integer (got {size!r})")
    size = int(size)
    if size == 0:
        return np.ones((1, 1), dtype=np.uint8)
    if size < 0 or size % 2 == 0:
        raise ValueError(f"kernel size must be 0 or a positive odd integer (got {size})")
    name = shape.lower() if isinstance(shape, str) else shape
    if name not in KERNEL_SHAPES:
        raise ValueError(f"kernel shape must be one of {', '.join(KERNEL_SHAPES)} (got {shape!r})")
    return _kernel(name, size).copy()


@lru_cache(maxsize=64)
def _kernel(shape: str, k: int) -> NDArray[np.uint8]:
    c = k // 2
    if shape == "box":
        return np.ones((k, k), dtype=np.uint8)
    if shape == "disc":
        # cv2.getStructuringElement(MORPH_ELLIPSE, (k, k)): r = c = k//2, for row i
        # dy = i - r, dx = cvRound(c * sqrt((r^2 - dy^2) / r^2)); ones on [c-dx, c+dx].
        kern = np.zeros((k, k), dtype=np.uint8)
        inv_r2 = 1.0 / (c * c) if c else 0.0
        for i in range(k):
            dy = i - c
            dx = round(c * np.sqrt((c * c - dy * dy) * inv_r2))  # round half to even, as cvRound
            kern[i, max(c - dx, 0) : min(c + dx + 1, k)] = 1
        return kern
    if shape == "diamond":
        rows, cols = np.indices((k, k))
        return (np.abs(rows - c) + np.abs(cols - c) <= c).astype(np.uint8)
    if shape == "gaussian":
        # exp(-(x^2+y^2)/(2 sigma^2)) normalised, then every entry > 0 becomes 1:
        # a box unless exp underflows to 0 in the corners (k >= 19).
        x = np.linspace(-c, c, k)
        xsq = np.square(np.outer(x, np.ones(k)))
        z = np.exp(-(xsq + xsq.T) / (2 * _GAUSS_SIGMA**2))
        return ((z / np.sum(z)) > 0).astype(np.uint8)
    return np.eye(k, dtype=np.uint8)  # line: 45 degree diagonal


def _as_kernel(kern: NDArray[np.integer] | NDArray[np.bool_]) -> NDArray[np.bool_]:
    k = np.asarray(kern)
    if k.ndim != 2 or k.shape[0] % 2 == 0 or k.shape[1] % 2 == 0:
        raise ValueError(f"kernel must be a 2-D array with odd sides (got shape {k.shape})")
    return k != 0


@lru_cache(maxsize=64)
def _rectangles(kbytes: bytes, kh: int, kw: int) -> tuple[tuple[int, int, int, int], ...]:
    """Cover of the kernel's ones by rectangles (i0, i1, j0, j1), inclusive, exact union."""
    k = np.frombuffer(kbytes, dtype=np.bool_).reshape(kh, kw)
    rows: list[tuple[tuple[int, int], ...]] = []
    for i in range(kh):
        padded = np.concatenate(([False], k[i], [False])).astype(np.int8)
        edges = np.flatnonzero(np.diff(padded))
        rows.append(tuple((int(a), int(b) - 1) for a, b in zip(edges[::2], edges[1::2], strict=True)))
    rects: list[tuple[int, int, int, int]] = []
    i = 0
    while i < kh:
        j = i
        while j + 1 < kh and rows[j + 1] == rows[i]:
            j += 1
        rects.extend((i, j, a, b) for a, b in rows[i])
        i = j + 1
    return tuple(rects)


def _shifted(src: NDArray[np.bool_], axis: int, lo: int, length: int) -> NDArray[np.bool_]:
    """P[k] = src[k + lo] along ``axis`` for k in [0, length); False outside ``src``."""
    n = src.shape[axis]
    shape = list(src.shape)
    shape[axis] = length
    out = np.zeros(shape, dtype=np.bool_)
    k0, k1 = max(0, -lo), min(length, n - lo)
    if k1 > k0:
        dst = [slice(None)] * src.ndim
        sl = [slice(None)] * src.ndim
        dst[axis], sl[axis] = slice(k0, k1), slice(k0 + lo, k1 + lo)
        out[tuple(dst)] = src[tuple(sl)]
    return out


class _Windows:
    """Sliding "any" windows along one axis of a padded array, by doubling (shared table)."""

    def __init__(self, padded: NDArray[np.bool_], axis: int) -> None:
        self.axis = axis
        self.table: dict[int, NDArray[np.bool_]] = {1: padded}

    def _take(self, arr: NDArray[np.bool_], start: int, n: int) -> NDArray[np.bool_]:
        sl = [slice(None)] * arr.ndim
        sl[self.axis] = slice(start, start + n)
        return arr[tuple(sl)]

    def level(self, p: int) -> NDArray[np.bool_]:
        """D_p[k] = any(P[k .. k+p-1]), p a power of two."""
        m = max(q for q in self.table if q <= p)
        d = self.table[m]
        while m < p:
            n = d.shape[self.axis] - m
            d = self._take(d, 0, n) | self._take(d, m, n)
            m *= 2
            self.table[m] = d
        return d

    def window(self, start: int, length: int, n: int, out: NDArray[np.bool_] | None = None) -> NDArray[np.bool_]:
        """W[x] = any(P[start + x .. start + x + length - 1]) for x in [0, n); OR-ed into ``out`` if given."""
        p = 1 << (length.bit_length() - 1)
        d = self.level(p)
        a = self._take(d, start, n)
        if out is None:
            out = a.copy()
        else:
            out |= a
        if length > p:
            out |= self._take(d, start + length - p, n)
        return out


#: pixels per horizontal stripe: small enough that a stripe's temporaries stay in cache
STRIPE_PIXELS = 1 << 18


def _dilate_bool(src: NDArray[np.bool_], kern: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """OpenCV dilation of a boolean image: out[y,x] = any K[i,j] & src[y+i-ay, x+j-ax], outside = False.

    Large images are done in stripes of rows (with the kernel's halo), which
    keeps the dozen temporaries in cache: 3x faster on a 5312x2693 mask.
    """
    h, w = src.shape
    kh = kern.shape[0]
    ay = kh // 2
    rows = max(4 * kh, STRIPE_PIXELS // max(w, 1))
    if h <= rows + kh:
        return _dilate_block(src, kern)
    out = np.empty_like(src)
    for r0 in range(0, h, rows):
        r1 = min(h, r0 + rows)
        a0, a1 = max(0, r0 - ay), min(h, r1 + kh - 1 - ay)
        out[r0:r1] = _dilate_block(src[a0:a1], kern)[r0 - a0 : r1 - a0]
    return out


def _dilate_block(src: NDArray[np.bool_], kern: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """:func:`_dilate_bool` on one block, rows outside it taken as False."""
    kh, kw = kern.shape
    ay, ax = kh // 2, kw // 2
    rects = _rectangles(np.ascontiguousarray(kern).tobytes(), kh, kw)
    h, w = src.shape
    out = np.zeros((h, w), dtype=np.bool_)
    if not rects or h == 0 or w == 0:
        return out
    lo = min(r[2] for r in rects) - ax
    hi = max(r[3] for r in rects) - ax
    horiz = _Windows(_shifted(src, 1, lo, w + hi - lo), axis=1)
    by_run: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for i0, i1, j0, j1 in rects:
        by_run.setdefault((j0, j1), []).append((i0, i1))
    for (j0, j1), spans in by_run.items():
        hrow = horiz.window(j0 - ax - lo, j1 - j0 + 1, w)
        vlo = min(i0 for i0, _ in spans) - ay
        vhi = max(i1 for _, i1 in spans) - ay
        vert = _Windows(_shifted(hrow, 0, vlo, h + vhi - vlo), axis=0)
        for i0, i1 in spans:
            vert.window(i0 - ay - vlo, i1 - i0 + 1, h, out=out)
    return out


def binary_dilate(mask: NDArray[np.bool_], kern: NDArray[np.integer] | NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Dilation of a boolean mask (OpenCV semantics, see :func:`dilate`)."""
    k = _as_kernel(kern)
    if k.shape == (1, 1) and k[0, 0]:
        return mask.copy()
    return _dilate_bool(mask, k)


def binary_erode(mask: NDArray[np.bool_], kern: NDArray[np.integer] | NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Erosion of a boolean mask: ``~dilate(~mask)``; pixels outside the image never erode."""
    return ~binary_dilate(~mask, kern)


def _binary(mask: NDArray[np.generic]) -> tuple[NDArray[np.bool_], bool]:
    a = np.asarray(mask)
    if a.ndim != 2:
        raise ValueError(f"mask must be a 2-D array (got shape {a.shape})")
    if a.dtype == np.bool_:
        return a.astype(np.bool_, copy=False), True
    return a != 0, False


def dilate(mask: NDArray[np.generic], kern: NDArray[np.integer] | NDArray[np.bool_]) -> NDArray[np.generic]:
    """``cv2.dilate(mask, kern, iterations=1)`` of a binary mask (bool, or uint8 0/255 -> uint8 0/255).

    Exact for binary masks only: a uint8 mask is read as ``mask != 0``.
    """
    src, is_bool = _binary(mask)
    res = binary_dilate(src, kern)
    return res if is_bool else res.astype(np.uint8) * np.uint8(255)


def erode(mask: NDArray[np.generic], kern: NDArray[np.integer] | NDArray[np.bool_]) -> NDArray[np.generic]:
    """``cv2.erode(mask, kern, iterations=1)`` of a binary mask: ``~dilate(~mask)``, the border never erodes."""
    src, is_bool = _binary(mask)
    res = binary_erode(src, kern)
    return res if is_bool else res.astype(np.uint8) * np.uint8(255)
