"""PNG filter reversal (PNG spec section 9) for 8-bit, non-interlaced images, vectorised with numpy.

Why not let Pillow do it: Pillow inflates row by row and unfilters in a loop that together take
5.9 ms for a 1920x1080 grey mask, where zlib-ng inflates the same stream in 0.15 ms and the rows
below are mostly "Up" and "Sub" (a vector add and a prefix sum).  :func:`unfilter` reverses a
whole inflated image at numpy speed and hands back ``None`` when the image is not worth it (many
Average rows, Paeth rows whose previous row is noisy); the caller then lets Pillow decode the very
same bytes.  ``benchmarks/score_masks.py`` prints both.

Filter types per row: 0 None, 1 Sub (``x + a``), 2 Up (``x + b``), 3 Average
(``x + (a + b) // 2``), 4 Paeth (``x + paeth(a, b, c)``), with ``a`` the byte one pixel to the left,
``b`` the byte above, ``c`` the byte above-left, all modulo 256.

* Up rows: one vector add per row.
* Sub rows: a prefix sum along each channel (a log-step scan over every Sub and Paeth row at once).
* Paeth rows: where the row above is flat (``b == c``) Paeth predicts ``a``, so the row is the
  Sub prefix sum; only at the few positions where the row above changes (a mask's edges) does a
  scalar step decide the predictor, and the prefix sum is shifted from there on.
* Average rows: scalar.

Scalar steps are counted against :data:`BUDGET`; past it, ``None``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["BUDGET", "unfilter"]

#: scalar steps (Paeth positions under a change of the row above, Average samples) before giving the
#: image to the caller's general decoder: about what that decoder costs for a 1920x1080 mask
BUDGET = 20_000


def _lane_scan(block: NDArray[np.uint8], bpp: int) -> NDArray[np.uint8]:
    """Prefix sums modulo 256 along each row, per channel (``bpp`` interleaved lanes): log-step, in place."""
    width = block.shape[1]
    step = bpp
    while step < width:
        block[:, step:] += block[:, :-step]
        step *= 2
    return block


def _paeth_row(
    filtered: NDArray[np.uint8], above: NDArray[np.uint8], scanned: NDArray[np.uint8], bpp: int, out: NDArray[np.uint8]
) -> int:
    """Reverse one Paeth row into ``out``; ``scanned`` is the row's Sub prefix sum.  Returns the scalar steps.

    At the positions ``x`` where the row above changes (``b != c``; ``b != 0`` for ``x < bpp``), the
    reconstructed row differs from ``scanned`` by a per-lane offset ``d`` that holds until the next such
    position of the lane: ``d = f[x] + paeth(scanned[x - bpp] + d_before, b, c) - scanned[x]``.  Each
    offset depends on the one before it (a vectorised fixed point needed as many rounds as there are
    positions on real masks), so they are computed one by one over plain lists; the row is then
    ``scanned`` plus the offsets, spread along each lane by a prefix sum.
    """
    changes = np.flatnonzero(above[bpp:] != above[:-bpp]) + bpp
    first = np.flatnonzero(above[:bpp])
    if first.size:
        changes = np.concatenate((first, changes))
    if not changes.size:
        out[...] = scanned
        return 0
    left = np.maximum(changes - bpp, 0)
    xs = changes.tolist()
    bs, cs, lefts = above[changes].tolist(), above[left].tolist(), scanned[left].tolist()
    fs = (filtered[changes].astype(np.int16) - scanned[changes]).tolist()  # f[x] - scanned[x]
    offsets = [0] * bpp  # per lane: out - scanned since the last change
    steps = []
    for x, b, c, s, f in zip(xs, bs, cs, lefts, fs, strict=True):
        lane = x % bpp
        if x >= bpp:
            a = (s + offsets[lane]) & 255
        else:
            a = c = 0
        p = a + b - c
        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        d = (f + (a if pa <= pb and pa <= pc else (b if pb <= pc else c))) & 255
        steps.append((d - offsets[lane]) & 255)
        offsets[lane] = d
    shift = np.zeros(out.shape[0], dtype=np.uint8)
    shift[changes] = steps
    lanes = shift.reshape(-1, bpp)
    np.cumsum(lanes, axis=0, dtype=np.uint8, out=lanes)
    np.add(scanned, shift, out=out)
    return len(xs)


def _average_row(filtered: NDArray[np.uint8], above: NDArray[np.uint8], bpp: int, out: NDArray[np.uint8]) -> None:
    f, b = filtered.tolist(), above.tolist()
    row = [0] * len(f)
    for x in range(len(f)):
        a = row[x - bpp] if x >= bpp else 0
        row[x] = (f[x] + ((a + b[x]) >> 1)) & 255
    out[...] = row


def unfilter(raw: bytes | bytearray | memoryview, height: int, width: int, bpp: int) -> NDArray[np.uint8] | None:
    """The pixels of an inflated 8-bit, non-interlaced PNG image: (H, W) for ``bpp == 1``, else (H, W, bpp).

    ``raw`` holds at least ``height * (1 + width * bpp)`` bytes (each row: its filter type, then the
    filtered samples).  Raises ``ValueError`` for a filter type above 4 (every decoder refuses it);
    returns ``None`` when more than :data:`BUDGET` scalar steps would be needed.
    """
    n = width * bpp
    data = np.frombuffer(raw, dtype=np.uint8, count=height * (n + 1)).reshape(height, n + 1)
    types = data[:, 0]
    bad = np.flatnonzero(types > 4)
    if bad.size:
        row = int(bad[0])
        raise ValueError(f"filter type of row {row} must be 0 to 4 (got {int(types[row])})")
    rows = data[:, 1:]
    out = np.empty((height, n), dtype=np.uint8)
    scanned_rows = np.flatnonzero((types == 1) | (types == 4))
    scanned = np.empty((height, n), dtype=np.uint8)
    if scanned_rows.size:
        scanned[scanned_rows] = _lane_scan(rows[scanned_rows], bpp)  # fancy indexing copies
    budget = BUDGET
    cuts = (np.flatnonzero(types[1:] != types[:-1]) + 1).tolist()
    above: NDArray[np.uint8] = np.zeros(n, dtype=np.uint8)
    for start, end in zip([0, *cuts], [*cuts, height], strict=True):
        kind = int(types[start])
        if kind == 0:
            out[start:end] = rows[start:end]
        elif kind == 1:
            out[start:end] = scanned[start:end]
        elif kind == 2:
            for r in range(start, end):
                np.add(above, rows[r], out=out[r])
                above = out[r]
        elif kind == 4:
            for r in range(start, end):
                budget -= _paeth_row(rows[r], above, scanned[r], bpp, out[r])
                if budget < 0:
                    return None
                above = out[r]
        else:
            for r in range(start, end):
                budget -= n
                if budget < 0:
                    return None
                _average_row(rows[r], above, bpp, out[r])
                above = out[r]
        above = out[end - 1]
    return out if bpp == 1 else out.reshape(height, width, bpp)
