"""Benchmark of the mask scoring engine on a synthetic 1920x1080 trial.

The reference has two elliptic GT blobs; the system mask is a smooth field
quantised to 20 grey levels (blobby, like real output).  Times, best of
``--repeat`` runs, wall and CPU (CPU is the fairer figure on a shared machine):

* ``score_mask`` with box 15/11 (MediScore's default) and disc 15/11;
* the same weights followed by a straightforward per-threshold loop
  (``sys <= t`` and two masked counts per threshold), the obvious alternative;
* one dilation (box 15, disc 15) with this package's numpy code, and with
  ``scipy.ndimage`` / OpenCV when they are installed (neither is a dependency).

Run: ``PYTHONPATH=. python3 benchmarks/score_masks.py [--repeat R] [--height H --width W]``
Target: <= 25 ms per mask per core for ``score_mask`` box 15/11.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from collections.abc import Callable
from functools import partial

import numpy as np
from numpy.typing import NDArray

from pytest_omfc.scoring.mask import dilate, kernel, no_score_weights, score_mask


def _best(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Best (wall, CPU) milliseconds of ``repeat`` runs."""
    walls, cpus = [], []
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    return min(walls) * 1000, min(cpus) * 1000


def synthetic(h: int, w: int, levels: int = 20) -> tuple[NDArray[np.uint8], NDArray[np.uint8]]:
    """(bw, sys): blob GT (0) on 255, and a ``levels``-level grey system mask darker on the GT."""
    yy, xx = np.mgrid[:h, :w]
    gt = ((yy - h * 0.46) ** 2 / (h * 0.28) ** 2 + (xx - w * 0.47) ** 2 / (w * 0.26) ** 2 < 1) | (
        (yy - h * 0.19) ** 2 + (xx - w * 0.78) ** 2 < (h * 0.11) ** 2
    )
    bw = np.where(gt, np.uint8(0), np.uint8(255))
    field = np.sin(xx / 157.0) + np.cos(yy / 97.0) + 0.8 * gt
    edges = np.linspace(field.min(), field.max(), levels + 1)[1:-1]
    sys = (255 - np.digitize(field, edges) * (255 // (levels - 1))).astype(np.uint8)
    return bw, sys


def naive_loop(bw: NDArray[np.uint8], sys: NDArray[np.uint8]) -> list[tuple[int, int]]:
    """Weights as score_mask, then TP/FP by one pass per threshold."""
    w = no_score_weights(bw, sys).w
    pos, neg = (bw == 0) & w, (bw != 0) & w
    out = []
    for t in [-1, *np.unique(sys).tolist()]:
        called = sys <= t
        out.append((int(np.count_nonzero(called & pos)), int(np.count_nonzero(called & neg))))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--height", type=int, default=1080)
    ap.add_argument("--width", type=int, default=1920)
    args = ap.parse_args()
    bw, sys = synthetic(args.height, args.width)
    print(f"{args.width}x{args.height}, {len(np.unique(sys))} grey levels, GT {np.count_nonzero(bw == 0)} px")
    bw256, sys256 = synthetic(args.height, args.width, 256)
    rows: list[tuple[str, tuple[float, float]]] = [
        ("score_mask box 15/11", _best(lambda: score_mask(bw, sys), args.repeat)),
        ("score_mask disc 15/11", _best(lambda: score_mask(bw, sys, kernel_shape="disc"), args.repeat)),
        ("weights + per-threshold loop", _best(lambda: naive_loop(bw, sys), max(1, args.repeat // 2))),
        ("score_mask box 15/11, 256 levels", _best(lambda: score_mask(bw256, sys256), args.repeat)),
        ("weights + loop, 256 levels", _best(lambda: naive_loop(bw256, sys256), 1)),
    ]
    tracemalloc.start()
    score_mask(bw, sys)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"score_mask peak traced memory: {peak / 2**20:.1f} MiB (inputs {2 * bw.nbytes / 2**20:.1f} MiB)")
    want = score_mask(bw, sys).table
    assert want is not None
    assert naive_loop(bw, sys) == list(zip(want.tp.tolist(), want.fp.tolist(), strict=True))
    gt = bw == 0
    for shape in ("box", "disc"):
        k = kernel(shape, 15)
        rows.append((f"dilate {shape} 15 numpy (this package)", _best(partial(dilate, gt, k), args.repeat)))
        try:
            from scipy import ndimage

            ref = ndimage.binary_dilation(gt, structure=k.astype(bool))
            assert np.array_equal(ref, dilate(gt, k))
            scipy_run = partial(ndimage.binary_dilation, gt, structure=k.astype(bool))
            rows.append((f"dilate {shape} 15 scipy.ndimage", _best(scipy_run, max(1, args.repeat // 3))))
        except ImportError:
            rows.append((f"dilate {shape} 15 scipy.ndimage", (float("nan"), float("nan"))))
        try:
            import cv2

            u8 = gt.astype(np.uint8) * np.uint8(255)
            assert np.array_equal(cv2.dilate(u8, k), dilate(u8, k))
            rows.append((f"dilate {shape} 15 OpenCV", _best(partial(cv2.dilate, u8, k), args.repeat)))
        except ImportError:
            rows.append((f"dilate {shape} 15 OpenCV", (float("nan"), float("nan"))))
    width = max(len(name) for name, _ in rows)
    print(f"{'':<{width}}  {'wall ms':>8}  {'CPU ms':>8}")
    for name, (wall, cpu) in rows:
        print(f"{name:<{width}}  {wall:8.1f}  {cpu:8.1f}")


if __name__ == "__main__":
    main()
