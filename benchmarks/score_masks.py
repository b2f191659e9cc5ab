"""Benchmark of mask scoring (pytest_omfc.scoring.mask) against a per-threshold numpy baseline.

Generates its inputs once (cached under ``$XDG_CACHE_HOME/pytest-omfc-bench`` or
``/tmp/pytest-omfc-bench``, like ``validate_scale.py``) and prints, in one run:

1. **PNG, one mask**: a 1920x1080 binary PNG reference (two elliptic GT blobs)
   against a grey PNG system mask (blobby, 20 levels; and a noisy 256-level one,
   the worst case for PNG inflate and for a per-threshold loop; and an RGB
   colour reference with a red distraction, the SNS path).  Per mask, on
   one core, *including reading and decoding both PNGs*: the plugin's public
   pipeline (``read_colour_reference`` -> ``colour_reference`` ->
   ``read_system_mask`` -> ``score_mask``, what ``score_masks`` runs per mask)
   with its stages (decode, binarise, weights, sweep, metrics), against the
   baseline, and the decode floors (Pillow, libspng when pyspng is installed, the plugin's own reader).
   Target <= 12 ms per mask per core and <= 1.3x the decode floor (MediScore 0.18 s).  The
   benchmark's process runs with the allocator setting the plugin applies where it scores
   (``pytest_omfc/work/alloc.py``); two fresh subprocesses score the same pair 60 times each with glibc's
   defaults and with that setting, and print the median time, page faults and system time per mask.
2. **JPEG 2000, one mask**: a 4032x2268 lossless JPEG 2000 bit-plane reference
   (two 8-bit layers holding 10 bit planes, written with Pillow's encoder) whose journal lists 8
   bit planes and evaluates 3 (one of them above 8), against a 4032x2268 grey
   PNG; per mask, including the JP2 decode, with the OpenJPEG decode alone (glymur, Pillow) as the floor.
   Target <= 1 s (MediScore 5-40 s) and the reference read within 1.3x of the OpenJPEG decode.
3. **Whole runs**: ``score_masks`` on N/4, N/2 and N probes of 1920x1080
   (default N = 2,000) with ``jobs=J`` (default 2) in a subprocess: wall time,
   CPU time of the process tree (``benchmarks/_tree.py``: sampled from /proc, forkserver workers
   included), peak memory of the process tree (sum of RSS and sum of PSS of the scorer and its workers;
   and the scorer's own VmHWM, exact), and growth per 1,000 probes.
   Target <= 300 MB.  The masks are ``--variants`` distinct
   pairs hard-linked under distinct names (each file is still read and
   decoded: the scorer deduplicates by path only).

The baseline is a straightforward numpy implementation of docs/scoring/masks.md, not
MediScore.  The JPEG 2000 reference has two 8-bit layers (bit planes 1-8 in the first, 9-16 in the
second), the form MediScore reads: it reads a one-component 16-bit file as 8 bits and would drop
planes 9-16, so only on this form do its numbers, the plugin's and the baseline's agree.  Kept
here: Pillow decode (``convert('RGB')`` + BGR flip, ``convert('L')``), the
reference colour code ``65536*B + 256*G + R``, no-score zones with OpenCV's
``dilate``/``erode`` (MediScore's calls; ``scipy.ndimage`` when OpenCV is not
installed), then for every threshold ``t`` of ``{-1} | unique(sys)`` a
``sys <= t`` mask and masked counts, MCC/NMM/BWL1 per threshold, GWL1, AUC and
EER.  Its numbers are checked against the plugin's (1e-9) before timing.
Ratios are CPU time baseline / plugin measured in the same run (CPU time is the
fairer figure on a shared machine; wall time is printed too).  The MediScore
times in the targets are quoted, not measured by this script (MediScore is Python 2).

Run: ``PYTHONPATH=. python benchmarks/score_masks.py [--quick] [--probes N] [--jobs J] [--repeat R]``
(about 10 minutes on 2 CPUs with the defaults; ``--quick`` about 1 minute; ``--only png|jp2|run``)
``--profile`` adds a cProfile of the plugin's PNG pipeline; ``--engine`` the
engine-only rows (arrays in memory) and the dilation libraries.
"""

from __future__ import annotations

import argparse
import cProfile
import inspect
import io
import json
import math
import os
import pstats
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
from _tree import run_tree  # benchmarks/_tree.py: the scripts run from this folder
from numpy.typing import NDArray
from PIL import Image, features

from pytest_omfc import png
from pytest_omfc.scoring.mask import (
    WHITE,
    Kernels,
    MaskScore,
    bitplane_reference,
    colour_reference,
    dilate,
    kernel,
    no_score_weights,
    read_bitplanes,
    read_colour_reference,
    read_system_mask,
    score_mask,
)
from pytest_omfc.scoring.mask import engine as _engine
from pytest_omfc.scoring.mask.io import glymur_usable

CACHE_VERSION = "masks-v1"
#: JPEG 2000 journal of the bit-plane case: BitPlane values listed for the probe, and those evaluated
JP2_LISTED = ("1", "2", "3", "4", "5", "6", "9", "10")
JP2_EVALUATED = ("2", "5", "9")


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) / "pytest-omfc-bench" if base else Path("/tmp/pytest-omfc-bench")) / CACHE_VERSION


# --- timing --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Timing:
    """Best wall and best CPU milliseconds of a few runs (best: least disturbed by other processes)."""

    wall: float
    cpu: float


def best(fn: Callable[[], object], repeat: int) -> Timing:
    walls, cpus = [], []
    for _ in range(max(1, repeat)):
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    return Timing(min(walls) * 1000, min(cpus) * 1000)


def table(rows: Iterable[tuple[str, Timing | None, str]], title: str) -> None:
    """Print ``name  wall ms  CPU ms  note`` rows."""
    rows = list(rows)
    width = max(len(name) for name, _, _ in rows)
    print(f"\n{title}\n{'':<{width}}  {'wall ms':>9}  {'CPU ms':>9}")
    for name, t, note in rows:
        wall = f"{t.wall:9.1f}" if t is not None else f"{'n/a':>9}"
        cpu = f"{t.cpu:9.1f}" if t is not None else f"{'n/a':>9}"
        print(f"{name:<{width}}  {wall}  {cpu}  {note}".rstrip())


# --- inputs --------------------------------------------------------------------------------------


def synthetic(
    h: int, w: int, levels: int = 20, seed: int = 0, noise: int = 0
) -> tuple[NDArray[np.uint8], NDArray[np.uint8]]:
    """(bw, sys): blob GT (0) on 255, and a ``levels``-level grey system mask darker on the GT.

    ``seed`` moves the blobs (distinct masks for the run benchmark); ``noise`` adds uniform noise of
    that amplitude to the system mask (incompressible, many thresholds).
    """
    rng = np.random.default_rng(seed)
    cy, cx, sy, sx, py, px = (
        (0.46, 0.47, 0.28, 0.26, 0.19, 0.78)
        if seed == 0
        else (*rng.uniform(0.3, 0.7, 2), *rng.uniform(0.1, 0.25, 2), *rng.uniform(0.1, 0.9, 2))
    )
    yy, xx = np.mgrid[:h, :w].astype(np.float32)
    gt = ((yy - h * cy) ** 2 / (h * sy) ** 2 + (xx - w * cx) ** 2 / (w * sx) ** 2 < 1) | (
        (yy - h * py) ** 2 + (xx - w * px) ** 2 < (h * 0.11) ** 2
    )
    bw = np.where(gt, np.uint8(0), np.uint8(255))
    field = np.sin(xx / 157.0 + seed) + np.cos(yy / 97.0) + 0.8 * gt
    edges = np.linspace(field.min(), field.max(), levels + 1)[1:-1]
    sys_ = (255 - np.digitize(field, edges) * (255 // (levels - 1))).astype(np.int16)
    if noise:
        sys_ += rng.integers(-noise, noise + 1, sys_.shape, dtype=np.int16)
    return bw, np.clip(sys_, 0, 255).astype(np.uint8)


def bitplane_mask(h: int, w: int, planes: int = 10) -> NDArray[np.uint16]:
    """A uint16 bit-plane mask: plane b (1-based) holds a few discs and a rectangle of its own."""
    out = np.zeros((h, w), dtype=np.uint16)
    yy, xx = np.ogrid[:h, :w]
    for b in range(planes):
        rng = np.random.default_rng(100 + b)
        region = np.zeros((h, w), dtype=bool)
        for cy, cx, r in zip(rng.uniform(0, h, 3), rng.uniform(0, w, 3), rng.uniform(60, 320, 3), strict=True):
            region |= (yy - cy) ** 2 + (xx - cx) ** 2 < r * r
        y0, x0 = int(rng.uniform(0, h - 400)), int(rng.uniform(0, w - 600))
        region[y0 : y0 + 300, x0 : x0 + 500] = True
        out |= region.astype(np.uint16) << np.uint16(b)
    return out


def _save_png(arr: NDArray[np.uint8], path: Path) -> None:
    Image.fromarray(arr, mode="L").save(path, format="PNG")


def _save_jp2_layers(arr: NDArray[np.uint16], path: Path) -> None:
    """Lossless (reversible 5/3) JPEG 2000 with Pillow's bundled OpenJPEG: two 8-bit components, bit planes
    1-8 in the first and 9-16 in the second (the layers MediScore reads)."""
    layers = np.stack([(arr & 0xFF).astype(np.uint8), (arr >> 8).astype(np.uint8)], axis=2)
    Image.fromarray(layers, mode="LA").save(path, format="JPEG2000", irreversible=False)


def _ready(d: Path) -> bool:
    return (d / "complete").is_file()


def _fresh(d: Path) -> Path:
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    return d


def png_inputs(root: Path) -> Path:
    d = root / "png"
    if not _ready(d):
        _fresh(d)
        bw, sys20 = synthetic(1080, 1920)
        _, sys256 = synthetic(1080, 1920, levels=256, noise=12)
        _save_png(bw, d / "ref.png")
        _save_png(sys20, d / "sys20.png")
        _save_png(sys256, d / "sys256.png")
        (d / "complete").touch()
    if not (d / "refrgb.png").is_file():  # a colour reference: black GT and a red distraction (SNS)
        bw, _ = synthetic(1080, 1920)
        rgb = np.repeat(bw[:, :, None], 3, axis=2)
        rgb[700:1000, 100:700] = np.where(bw[700:1000, 100:700, None] == 0, 0, np.array([255, 0, 0], dtype=np.uint8))
        Image.fromarray(rgb, mode="RGB").save(d / "refrgb.png", format="PNG")
    return d


def jp2_inputs(root: Path) -> Path:
    d = root / "jp2-layers"
    if not _ready(d):
        _fresh(d)
        h, w = 2268, 4032
        planes = bitplane_mask(h, w)
        _save_jp2_layers(planes, d / "ref.jp2")
        gt = (planes & np.uint16((1 << 1) | (1 << 4) | (1 << 8))) != 0
        yy, xx = np.mgrid[:h, :w].astype(np.float32)
        field = np.sin(xx / 211.0) + np.cos(yy / 173.0) + 1.2 * gt
        edges = np.linspace(field.min(), field.max(), 64)[1:-1]
        _save_png((255 - np.digitize(field, edges) * 4).clip(0, 255).astype(np.uint8), d / "sys.png")
        np.save(d / "planes.npy", planes)  # for the round-trip check
        (d / "complete").touch()
    return d


def mask_pairs(root: Path, variants: int) -> Path:
    """``variants`` distinct pairs of 1920x1080 masks, ``ref000.png``/``sys000.png`` ..., made once (cached)."""
    pool = root / f"pool-{variants}"
    if not _ready(pool):
        _fresh(pool)
        for v in range(variants):
            bw, sys_ = synthetic(1080, 1920, seed=v + 1)
            _save_png(bw, pool / f"ref{v:03d}.png")
            _save_png(sys_, pool / f"sys{v:03d}.png")
        (pool / "complete").touch()
    return pool


def run_inputs(root: Path, n: int, variants: int) -> Path:
    """A case of ``n`` probes: index, reference and system CSVs, masks hard-linked from ``variants`` pairs."""
    pool = mask_pairs(root, variants)
    case = root / f"run-{n}-{variants}"
    if _ready(case):
        return case
    _fresh(case)
    (case / "ref").mkdir()
    (case / "sys").mkdir()
    ids = [f"Probe{i:06d}" for i in range(n)]
    for i, pid in enumerate(ids):
        for kind in ("ref", "sys"):
            src, dst = pool / f"{kind}{i % variants:03d}.png", case / kind / f"{pid}.png"
            try:
                os.link(src, dst)
            except OSError:
                shutil.copyfile(src, dst)
    (case / "index.csv").write_text("ProbeFileID|ProbeWidth|ProbeHeight\n" + "".join(f"{p}|1920|1080\n" for p in ids))
    (case / "ref.csv").write_text(
        "ProbeFileID|IsTarget|ProbeMaskFileName\n" + "".join(f"{p}|Y|ref/{p}.png\n" for p in ids)
    )
    (case / "sys.csv").write_text(
        "ProbeFileID|ConfidenceScore|OutputProbeMaskFileName\n"
        + "".join(f"{p}|{(i % 97) / 97:.4f}|sys/{p}.png\n" for i, p in enumerate(ids))
    )
    (case / "complete").touch()
    return case


# --- the baseline: docs/scoring/masks.md, one threshold at a time ---------------------------------


def _morphology() -> tuple[
    str,
    Callable[[NDArray[np.uint8], NDArray[np.uint8]], NDArray[np.uint8]],
    Callable[[NDArray[np.uint8], NDArray[np.uint8]], NDArray[np.uint8]],
]:
    """(name, dilate, erode) on uint8 images with OpenCV's border rule (outside never counts)."""
    try:
        import cv2

        def cv_dil(a: NDArray[np.uint8], k: NDArray[np.uint8]) -> NDArray[np.uint8]:
            return np.asarray(cv2.dilate(a, k), dtype=np.uint8)

        def cv_ero(a: NDArray[np.uint8], k: NDArray[np.uint8]) -> NDArray[np.uint8]:
            return np.asarray(cv2.erode(a, k), dtype=np.uint8)

        return f"OpenCV {cv2.__version__}", cv_dil, cv_ero
    except ImportError:
        from scipy import ndimage  # type: ignore[import-untyped]

        def dil(a: NDArray[np.uint8], k: NDArray[np.uint8]) -> NDArray[np.uint8]:
            return np.where(ndimage.binary_dilation(a != 0, structure=k.astype(bool)), np.uint8(255), np.uint8(0))

        def ero(a: NDArray[np.uint8], k: NDArray[np.uint8]) -> NDArray[np.uint8]:
            return np.where(ndimage.binary_dilation(a == 0, structure=k.astype(bool)), np.uint8(0), np.uint8(255))

        return "scipy.ndimage (OpenCV not installed)", dil, ero


MORPH_NAME, MORPH_DILATE, MORPH_ERODE = _morphology()


@dataclass(frozen=True)
class BaselineScore:
    threshold: float
    mcc: float
    nmm: float
    bwl1: float
    gwl1: float
    auc: float
    eer: float
    pixel_n: int


def baseline_reference_png(path: Path) -> tuple[NDArray[np.uint8], NDArray[np.bool_] | None]:
    """cv2.imread(IMREAD_COLOR) with Pillow, colour codes, GT = black (no journal), distractions."""
    bgr = np.asarray(Image.open(path).convert("RGB"))[:, :, ::-1]
    agg = bgr[:, :, 0].astype(np.int64) * 65536 + bgr[:, :, 1].astype(np.int64) * 256 + bgr[:, :, 2]
    gt = agg == 0
    unselected = (agg != WHITE) & ~gt
    return np.where(gt, 0, 255).astype(np.uint8), (unselected if unselected.any() else None)


def baseline_reference_jp2(
    path: Path, listed: Iterable[str], evaluated: Iterable[str]
) -> tuple[NDArray[np.uint8], NDArray[np.bool_] | None]:
    """glymur's array with Pillow; listed bits kept, GT = any evaluated bit, other listed bits distract (bit
    ``b`` is bit ``(b - 1) % 8`` of layer ``(b - 1) // 8``, as MediScore numbers them)."""
    m = np.asarray(Image.open(path)).astype(np.int64)
    if m.ndim == 2:
        m = m[:, :, None]
    width = 8 * np.asarray(Image.open(path)).dtype.itemsize
    gt = np.zeros(m.shape[:2], dtype=bool)
    unselected = np.zeros(m.shape[:2], dtype=bool)
    ev = {int(b) for b in evaluated}
    for b in {int(b) for b in listed}:
        layer, bit = (b - 1) // width, (b - 1) % width
        on = ((m[:, :, layer] >> bit) & 1) == 1
        if b in ev:
            gt |= on
        else:
            unselected |= on
    return np.where(gt, 0, 255).astype(np.uint8), (unselected if unselected.any() else None)


def baseline_score(
    bw: NDArray[np.uint8],
    sys_: NDArray[np.uint8],
    unselected: NDArray[np.bool_] | None,
    eks: int = 15,
    dks: int = 11,
    ntdks: int = 15,
    shape: str = "box",
) -> BaselineScore:
    """docs/scoring/masks.md, written the obvious way: one whole-image pass per threshold."""
    gt = bw == 0
    e = MORPH_DILATE(bw, kernel(shape, eks))  # erodes the black GT
    d = MORPH_ERODE(bw, kernel(shape, dks))  # dilates the black GT
    bns = (e.astype(np.int16) - d.astype(np.int16)) == 0
    sns = np.ones(bw.shape, dtype=bool)
    if unselected is not None:
        spread = MORPH_DILATE(unselected.astype(np.uint8) * np.uint8(255), kernel(shape, ntdks)) != 0
        sns = ~spread | (e == 0)
    w = bns & sns
    pos, neg = gt & w, ~gt & w
    n, npos = int(w.sum()), int(pos.sum())
    rows = []
    for t in [-1, *np.unique(sys_).tolist()]:
        called = sys_ <= t
        tp, fp = int((called & pos).sum()), int((called & neg).sum())
        fn, tn = npos - tp, n - npos - fp
        if n == 0:
            mcc = math.nan
        elif tp + fn in (0, n) or tp + fp in (0, n):
            mcc = 0.0
        else:
            mcc = (tp * tn - fp * fn) / math.sqrt(float(tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
        nmm = max(-1.0, (tp - fn - fp) / (tp + fn)) if tp + fn else math.nan
        bwl1 = (fp + fn) / n if n else math.nan
        tpr_fpr = (tp / (tp + fn), fp / (fp + tn)) if tp + fn and fp + tn else (0.0, 0.0)
        rows.append((t, mcc, nmm, bwl1, *tpr_fpr))
    gwl1 = float((w * np.abs(bw.astype(np.float64) - sys_)).sum() / 255 / n)
    best_row = max(range(len(rows)), key=lambda i: (rows[i][1], -i))
    pts = sorted([(0.0, 0.0)] + [(r[5], r[4]) for r in rows])  # (FPR, TPR), stable
    auc = sum((f1 - f0) * (t1 + t0) / 2 for (f0, t0), (f1, t1) in pairwise(pts) if f1 <= 1)
    eer_pt = min(pts, key=lambda p: abs(p[0] - (1 - p[1])))
    t, mcc, nmm, bwl1 = rows[best_row][:4]
    return BaselineScore(t, mcc, nmm, bwl1, gwl1, auc, (eer_pt[0] + 1 - eer_pt[1]) / 2, n)


def baseline_png(ref: Path, sys_path: Path) -> BaselineScore:
    bw, unselected = baseline_reference_png(ref)
    return baseline_score(bw, np.asarray(Image.open(sys_path).convert("L")), unselected)


def baseline_jp2(ref: Path, sys_path: Path) -> BaselineScore:
    bw, unselected = baseline_reference_jp2(ref, JP2_LISTED, JP2_EVALUATED)
    return baseline_score(bw, np.asarray(Image.open(sys_path).convert("L")), unselected)


# --- the plugin, per mask (what score_masks runs for one manipulation trial) --------------------


#: read_colour_reference(..., grey=True) exists (this benchmark also runs on older checkouts)
GREY_READ = "grey" in inspect.signature(read_colour_reference).parameters


def plugin_png(ref: Path, sys_path: Path, grey: bool = GREY_READ) -> MaskScore:
    """One manipulation trial as score_masks scores it; ``grey``: read a grey reference as (H, W)."""
    image = read_colour_reference(ref, grey=True) if grey else read_colour_reference(ref)
    reference = colour_reference(image, None)
    system = read_system_mask(sys_path, reference.bw.shape)
    return score_mask(reference.bw, system, unselected=reference.unselected)


def plugin_jp2(ref: Path, sys_path: Path) -> MaskScore:
    reference = bitplane_reference(read_bitplanes(ref), JP2_LISTED, JP2_EVALUATED)
    system = read_system_mask(sys_path, reference.bw.shape)
    return score_mask(reference.bw, system, unselected=reference.unselected)


def agree(plugin: MaskScore, base: BaselineScore, what: str) -> str:
    """Check the plugin's numbers against the baseline's (1e-9); raise when they differ."""
    opt = plugin.optimum
    assert opt is not None, what
    pairs = {
        "OptimumThreshold": (opt.threshold, base.threshold),
        "OptimumMCC": (opt.mcc, base.mcc),
        "OptimumNMM": (opt.nmm, base.nmm),
        "OptimumBWL1": (opt.bwl1, base.bwl1),
        "GWL1": (plugin.gwl1, base.gwl1),
        "AUC": (plugin.auc, base.auc),
        "EER": (plugin.eer, base.eer),
        "PixelN": (plugin.pixel_n, base.pixel_n),
    }
    bad = {k: v for k, v in pairs.items() if not math.isclose(v[0], v[1], rel_tol=0, abs_tol=1e-9)}
    if bad:
        raise AssertionError(f"{what}: plugin and baseline differ: {bad}")
    return f"agree to 1e-9 (MCC {opt.mcc:.4f} at t={opt.threshold:g}, AUC {plugin.auc:.4f})"


def stages(ref: Path, sys_path: Path, repeat: int, reader: str = "png") -> list[tuple[str, Timing | None, str]]:
    """The plugin's per-mask stages, timed one by one (engine internals for weights and sweep)."""
    if reader == "png":
        read_ref: Callable[[], Any] = (
            partial(read_colour_reference, ref, grey=True) if GREY_READ else partial(read_colour_reference, ref)
        )
        image = read_ref()
        binarise: Callable[[], Any] = partial(colour_reference, image, None)
    else:
        read_ref = partial(read_bitplanes, ref)
        image = read_ref()
        binarise = partial(bitplane_reference, image, JP2_LISTED, JP2_EVALUATED)
    reference = binarise()
    system = read_system_mask(sys_path, reference.bw.shape)
    gt = reference.bw == 0
    rows: list[tuple[str, Timing | None, str]] = [
        ("  decode reference" + (" (JPEG 2000)" if reader != "png" else ""), best(read_ref, repeat), ""),
        ("  reference -> GT, distractions", best(binarise, repeat), ""),
        ("  decode system mask", best(partial(read_system_mask, sys_path, reference.bw.shape), repeat), ""),
    ]
    try:
        core, combine, sweep = _engine._core_weights, _engine._combine, _engine.sweep

        def weights() -> Any:
            parts = core(gt, reference.unselected, system, 15, 11, 15, "box", None)
            return combine(gt.shape, *parts)

        w = weights()
        rows.append(("  weights (BNS, SNS)", best(weights, repeat), ""))
        rows.append(("  sweep (histograms, cumsum)", best(partial(sweep, system, gt, w), repeat), ""))
    except AttributeError:
        rows.append(("  weights, sweep", None, "engine internals renamed"))
    rows.append(
        (
            "  score_mask (weights+sweep+metrics)",
            best(partial(score_mask, reference.bw, system, unselected=reference.unselected), repeat),
            "",
        )
    )
    return rows


# --- whole runs ----------------------------------------------------------------------------------


def _vm_hwm() -> float:
    """This process's peak RSS in MB from /proc (ru_maxrss is unusable here: a child started by a big
    parent through vfork/exec inherits the parent's high-water mark on Linux)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def child_run(case: Path, jobs: int) -> None:
    """Inside the measured subprocess: score the case, print one JSON line."""
    from pytest_omfc.scoring.mask import score_masks

    t0 = time.perf_counter()
    report = score_masks(case / "index.csv", case / "ref.csv", case / "sys.csv", sys_dir=case, ref_dir=case, jobs=jobs)
    wall = time.perf_counter() - t0
    agg = report.results[0].aggregate
    print(
        json.dumps(
            {
                "wall": wall,
                "scoreable": agg.get("ScoreableTrials"),
                "mcc": agg.get("OptimumMCC"),
                "not_scored": len(report.runs[0].not_scored),
                "hwm": _vm_hwm(),
            }
        )
    )


@dataclass(frozen=True)
class RunFigures:
    n: int
    label: str
    wall: float  # s, the whole subprocess (imports included)
    score_wall: float  # s, inside score_masks
    cpu: float  # s, user+sys of the process tree
    peak_rss: float  # MB, sum over the tree
    peak_pss: float  # MB, sum over the tree
    largest: float  # MB, the largest single process as sampled
    scorer_hwm: float  # MB, the scoring process's own peak (VmHWM), exact
    scoreable: int


def measure_run(case: Path, n: int, jobs: int) -> RunFigures:
    """One whole run in a subprocess, its process tree measured by ``benchmarks/_tree.py`` (forkserver
    workers included: they are not children this process reaps, so ``RUSAGE_CHILDREN`` misses them)."""
    run = run_tree([sys.executable, __file__, "--child-run", str(case), "--jobs", str(jobs)])
    if run.returncode != 0:
        raise RuntimeError(f"score_masks subprocess failed ({run.returncode}):\n{run.stderr[-2000:]}")
    data = json.loads(run.stdout.strip().splitlines()[-1])
    return RunFigures(
        n,
        str(n),
        run.wall,
        data["wall"],
        run.cpu,
        run.peak_rss_mb,
        run.peak_pss_mb,
        run.largest_rss_mb,
        float(data["hwm"]),
        int(data["scoreable"] or 0),
    )


def child_alloc(ref: Path, sys_path: Path, setting: str) -> None:
    """Inside a fresh subprocess: score one pair 60 times with glibc's defaults or the plugin's setting."""
    if setting == "plugin":
        from pytest_omfc.work.alloc import reuse_freed_memory

        if not reuse_freed_memory():
            print(json.dumps({"error": "the setting is not available here"}))
            return
    plugin_png(ref, sys_path)
    before, times, cpus = resource.getrusage(resource.RUSAGE_SELF), [], []
    for _ in range(60):
        start, cpu = time.perf_counter(), time.process_time()
        plugin_png(ref, sys_path)
        times.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    after = resource.getrusage(resource.RUSAGE_SELF)
    print(
        json.dumps(
            {
                "median_ms": 1e3 * sorted(times)[30],
                "median_cpu_ms": 1e3 * sorted(cpus)[30],
                "faults": (after.ru_minflt - before.ru_minflt) / 60,
                "sys_ms": 1e3 * (after.ru_stime - before.ru_stime) / 60,
            }
        )
    )


def allocator_rows(ref: Path, sys_path: Path) -> list[tuple[str, Timing | None, str]]:
    """The same pair scored in two fresh processes: glibc's default allocator, then the plugin's setting."""
    rows: list[tuple[str, Timing | None, str]] = []
    for setting, label in (("default", "glibc's defaults"), ("plugin", "the plugin's setting (alloc.py)")):
        cmd = [sys.executable, __file__, "--child-alloc", setting, str(ref), str(sys_path)]
        out = subprocess.run(cmd, capture_output=True, text=True, cwd=Path(__file__).parent, check=False)
        try:
            data = json.loads(out.stdout.strip().splitlines()[-1])
        except (IndexError, ValueError):
            rows.append((f"allocator: {label}", None, f"failed: {out.stderr.strip()[-200:]}"))
            continue
        if "error" in data:
            rows.append((f"allocator: {label}", None, data["error"]))
            continue
        note = f"median of 60; {data['faults']:.0f} page faults, {data['sys_ms']:.1f} ms system time per mask"
        rows.append((f"allocator: {label}", Timing(data["median_ms"], data["median_cpu_ms"]), note))
    return rows


def decode_floor(ref: Path, sys_path: Path, repeat: int, plugin: Timing) -> list[tuple[str, Timing | None, str]]:
    """What decoding the two PNGs alone costs (no scoring): Pillow, libspng (pyspng) when installed, and
    the plugin's own reader (zlib-ng inflate + numpy unfilter, with its header and CRC pass)."""
    ref_bytes, sys_bytes = ref.read_bytes(), sys_path.read_bytes()

    def pillow() -> Any:
        return np.asarray(Image.open(io.BytesIO(ref_bytes))), np.asarray(Image.open(io.BytesIO(sys_bytes)))

    rows: list[tuple[str, Timing | None, str]] = []
    floor = best(pillow, repeat)
    rows.append(("decode floor: Pillow, both PNGs", floor, f"plugin total = x{plugin.cpu / floor.cpu:.2f} this"))
    try:
        import pyspng
    except ImportError:
        rows.append(("decode floor: libspng (pyspng), both PNGs", None, "pyspng not installed"))
    else:
        t = best(lambda: (pyspng.load(ref_bytes), pyspng.load(sys_bytes)), repeat)
        rows.append(("decode floor: libspng (pyspng), both PNGs", t, f"plugin total = x{plugin.cpu / t.cpu:.2f} this"))
    own = best(lambda: (read_colour_reference(ref, grey=True), read_system_mask(sys_path)), repeat)
    rows.append(("the plugin's reader, both PNGs (files, CRCs)", own, f"x{floor.cpu / own.cpu:.2f} faster than Pillow"))
    # MASK-04 checks the system mask's stream before the scorer reads it: the one part of a run read twice
    head = png.read_header(str(sys_path))
    args = (str(sys_path), head.width, head.height, head.bit_depth, head.colour, head.interlace, head.idat)
    check = best(lambda: png.decode_pixels(*args), repeat)
    rows.append(
        (
            "MASK-04's check of the system mask (inflate, filter types)",
            check,
            f"{100 * check.cpu / plugin.cpu:.1f} % of the plugin's per-mask time, paid again by a run that scores",
        )
    )
    return rows


# --- sections ------------------------------------------------------------------------------------


def section_png(root: Path, repeat: int, profile: bool) -> float:
    d = png_inputs(root)
    ref = d / "ref.png"
    results: list[tuple[str, Timing | None, str]] = []
    plugin_cpu = math.nan
    for name in ("sys20", "sys256"):
        sys_path = d / f"{name}.png"
        note = agree(plugin_png(ref, sys_path), baseline_png(ref, sys_path), name)
        p = best(partial(plugin_png, ref, sys_path), repeat)
        b = best(partial(baseline_png, ref, sys_path), max(1, repeat // 3))
        levels = len(np.unique(np.asarray(Image.open(sys_path))))
        results += [
            (f"plugin, {levels} grey levels", p, note),
            (f"baseline, {levels} grey levels", b, f"x{b.cpu / p.cpu:.1f} the plugin's CPU time"),
        ]
        if name == "sys20":
            plugin_cpu = p.cpu
            if GREY_READ:
                t = best(partial(plugin_png, ref, sys_path, False), repeat)
                results.append(("plugin, 3-channel reference read", t, "read_colour_reference(path) without grey=True"))
            results += stages(ref, sys_path, repeat)
            results += decode_floor(ref, sys_path, repeat, p)
            results += allocator_rows(ref, sys_path)
    rgb = d / "refrgb.png"
    note = agree(plugin_png(rgb, d / "sys20.png"), baseline_png(rgb, d / "sys20.png"), "rgb")
    p = best(partial(plugin_png, rgb, d / "sys20.png"), repeat)
    b = best(partial(baseline_png, rgb, d / "sys20.png"), max(1, repeat // 3))
    results += [
        ("plugin, RGB reference with a distraction, 20 levels", p, note),
        ("baseline, RGB reference with a distraction", b, f"x{b.cpu / p.cpu:.1f} the plugin's CPU time"),
    ]
    table(
        results,
        "1920x1080 grey PNG system mask vs binary PNG reference, per mask, one core, decode included "
        "(target <= 12 ms and <= 1.3x the decode floor; MediScore 0.18 s)",
    )
    if profile:
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(20):
            plugin_png(ref, d / "sys20.png")
        prof.disable()
        print("\ncProfile of 20 plugin PNG masks (tottime, top 12):")
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(12)
        print("\n".join(line for line in buf.getvalue().splitlines()[6:] if line.strip()))
    return plugin_cpu


def jp2_floor(ref: Path, repeat: int) -> list[tuple[str, Timing | None, str]]:
    """The OpenJPEG decode alone (through glymur, MediScore's library, when usable; Pillow's bundled OpenJPEG),
    against the plugin's whole reference read (decode, checks, bit planes to GT and distractions)."""
    rows: list[tuple[str, Timing | None, str]] = []
    read = best(lambda: bitplane_reference(read_bitplanes(ref), JP2_LISTED, JP2_EVALUATED), repeat)
    floors: list[tuple[str, Callable[[], Any]]] = [("Pillow (bundled OpenJPEG)", lambda: np.asarray(Image.open(ref)))]
    if glymur_usable():
        import glymur

        floors.insert(0, ("glymur (libopenjp2)", lambda: glymur.Jp2k(str(ref))[:]))
    for name, fn in floors:
        t = best(fn, repeat)
        rows.append((f"OpenJPEG decode alone, {name}", t, f"plugin's reference read = x{read.cpu / t.cpu:.2f} this"))
    rows.append(("plugin's reference read (decode + bit planes)", read, ""))
    return rows


def section_jp2(root: Path, repeat: int) -> None:
    d = jp2_inputs(root)
    ref, sys_path = d / "ref.jp2", d / "sys.png"
    layers = read_bitplanes(ref).astype(np.uint16)
    planes = layers[:, :, 0] | (layers[:, :, 1] << 8)
    assert np.array_equal(planes, np.load(d / "planes.npy")), "lossless JPEG 2000 round trip"
    note = agree(plugin_jp2(ref, sys_path), baseline_jp2(ref, sys_path), "jp2")
    decoder = (
        "glymur" if glymur_usable() else f"Pillow {Image.__version__} (bundled OpenJPEG {features.version('jpg_2000')})"
    )
    p = best(partial(plugin_jp2, ref, sys_path), repeat)
    b = best(partial(baseline_jp2, ref, sys_path), 1)
    rows: list[tuple[str, Timing | None, str]] = [
        ("plugin", p, note),
        ("baseline", b, f"x{b.cpu / p.cpu:.1f} the plugin's CPU time"),
        *stages(ref, sys_path, repeat, reader="jp2"),
        *jp2_floor(ref, repeat),
    ]
    table(
        rows,
        f"4032x2268 JPEG 2000 bit-plane reference (two 8-bit layers, {ref.stat().st_size // 1024} KiB, "
        f"bit planes {','.join(JP2_LISTED)} listed, {','.join(JP2_EVALUATED)} evaluated) vs grey PNG, "
        f"per mask, decode included (target <= 1 s; MediScore 5-40 s)\nJPEG 2000 decoder: {decoder}",
    )


def section_run(root: Path, probes: int, jobs: int, variants: int, plugin_cpu: float, baseline_cpu: float) -> None:
    ladder = sorted({max(1, probes // 4), max(1, probes // 2), probes})
    figures = [measure_run(run_inputs(root, n, variants), n, jobs) for n in ladder]
    mem_note = "tree = scorer + workers, sampled from /proc every 20 ms; PSS counts shared pages once"
    print(
        f"\nscore_masks, 1920x1080 PNG masks ({variants} distinct pairs, hard-linked), jobs={jobs}, "
        f"{len(os.sched_getaffinity(0))} CPUs, load {os.getloadavg()[0]:.1f} (target <= 300 MB)"
    )
    print(
        f"{'probes':>7} {'wall s':>7} {'scoring s':>9} {'CPU s':>7} {'CPU ms/mask':>11} {'tree RSS MB':>11} "
        f"{'tree PSS MB':>11} {'largest MB':>10} {'scorer MB':>9} {'baseline s':>10}"
    )
    for f in figures:
        base = f.n * baseline_cpu / 1000 / jobs
        print(
            f"{f.label:>7} {f.wall:7.1f} {f.score_wall:9.1f} {f.cpu:7.1f} {1000 * f.cpu / f.n:11.1f} "
            f"{f.peak_rss:11.0f} {f.peak_pss:11.0f} {f.largest:10.0f} {f.scorer_hwm:9.0f} {base:10.0f}"
        )
        assert f.scoreable == f.n, f"{f.scoreable} of {f.n} trials scored"
    lo, hi = figures[0], figures[-1]
    if hi.n > lo.n:
        k = 1000 / (hi.n - lo.n)
        print(
            f"growth per 1,000 probes from {lo.n} to {hi.n}: wall {k * (hi.wall - lo.wall):+.2f} s, "
            f"CPU {k * (hi.cpu - lo.cpu):+.2f} s, tree RSS {k * (hi.peak_rss - lo.peak_rss):+.0f} MB, "
            f"tree PSS {k * (hi.peak_pss - lo.peak_pss):+.0f} MB"
        )
    print(
        f"{mem_note}; scorer MB = the scoring process's own peak (VmHWM). baseline s = probes x baseline "
        f"CPU per mask ({baseline_cpu:.0f} ms) / jobs, extrapolated; plugin CPU per mask alone: {plugin_cpu:.1f} ms"
    )


def section_engine(repeat: int) -> None:
    """Engine-only figures on arrays in memory, and the dilation libraries (scipy, OpenCV, this package)."""
    bw, sys20 = synthetic(1080, 1920)
    w = no_score_weights(bw, sys20).w
    gt = bw == 0
    rows: list[tuple[str, Timing | None, str]] = [
        ("score_mask box 15/11", best(lambda: score_mask(bw, sys20), repeat), ""),
        ("score_mask disc 15/11", best(lambda: score_mask(bw, sys20, kernels=Kernels(shape="disc")), repeat), ""),
        (
            "per-threshold loop alone (same weights)",
            best(lambda: [(np.count_nonzero((sys20 <= t) & gt & w)) for t in np.unique(sys20)], repeat),
            "",
        ),
    ]
    for shape in ("box", "disc"):
        k = kernel(shape, 15)
        rows.append((f"dilate {shape} 15 numpy (this package)", best(partial(dilate, gt, k), repeat), ""))
        try:
            from scipy import ndimage  # type: ignore[import-untyped]

            assert np.array_equal(ndimage.binary_dilation(gt, structure=k.astype(bool)), dilate(gt, k))
            rows.append(
                (
                    f"dilate {shape} 15 scipy.ndimage",
                    best(partial(ndimage.binary_dilation, gt, structure=k.astype(bool)), max(1, repeat // 3)),
                    "",
                )
            )
        except ImportError:
            rows.append((f"dilate {shape} 15 scipy.ndimage", None, "not installed"))
        try:
            import cv2

            u8 = gt.astype(np.uint8) * np.uint8(255)
            assert np.array_equal(cv2.dilate(u8, k), dilate(u8, k))
            rows.append((f"dilate {shape} 15 OpenCV", best(partial(cv2.dilate, u8, k), repeat), ""))
        except ImportError:
            rows.append((f"dilate {shape} 15 OpenCV", None, "not installed"))
    table(rows, "engine on 1920x1080 arrays in memory (no decode)")


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer repeats, 200 probes (a smoke run)")
    ap.add_argument("--probes", type=int, default=None, help="largest run (default 2000; ladder N/4, N/2, N)")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes of score_masks (default 2)")
    ap.add_argument("--repeat", type=int, default=None, help="runs per single-mask figure, best kept (default 7)")
    ap.add_argument("--variants", type=int, default=32, help="distinct mask pairs of the run benchmark")
    ap.add_argument("--profile", action="store_true", help="cProfile the plugin's PNG pipeline")
    ap.add_argument("--engine", action="store_true", help="also the engine-only and dilation-library rows")
    ap.add_argument("--only", choices=("png", "jp2", "run"), default=None, help="one section only")
    ap.add_argument("--cache", type=Path, default=None, help=f"input cache (default {cache_root()})")
    ap.add_argument("--child-run", type=Path, default=None, help=argparse.SUPPRESS)
    ap.add_argument("--child-alloc", nargs=3, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child_run is not None:
        child_run(args.child_run, args.jobs)
        return
    if args.child_alloc is not None:
        setting, ref, sys_path = args.child_alloc
        child_alloc(Path(ref), Path(sys_path), setting)
        return
    try:  # what the plugin applies where it scores (older checkouts have it elsewhere, or none)
        from pytest_omfc.work.alloc import reuse_freed_memory
    except ImportError:
        try:
            from pytest_omfc.alloc import reuse_freed_memory  # type: ignore[no-redef,import-not-found]
        except ImportError:
            reuse_freed_memory = None  # type: ignore[assignment]
    if reuse_freed_memory is None:
        allocator = "glibc's defaults (this checkout has no allocator setting)"
    else:
        allocator = "the plugin's setting" if reuse_freed_memory() else "the system's defaults"
    repeat = args.repeat or (2 if args.quick else 7)
    probes = args.probes or (200 if args.quick else 2000)
    root = args.cache or cache_root()
    root.mkdir(parents=True, exist_ok=True)
    print(
        f"pytest-omfc mask scoring benchmark; inputs cached in {root}; baseline morphology: {MORPH_NAME}; "
        f"{len(os.sched_getaffinity(0))} CPUs, load average {os.getloadavg()[0]:.2f} at the start; "
        f"allocator: {allocator}"
    )
    plugin_cpu = baseline_cpu = math.nan
    if args.only in (None, "png", "run"):
        if args.only == "run":  # the ratios of the run table need the per-mask figures
            d = png_inputs(root)
            plugin_cpu = best(partial(plugin_png, d / "ref.png", d / "sys20.png"), repeat).cpu
        else:
            plugin_cpu = section_png(root, repeat, args.profile)
        d = png_inputs(root)
        baseline_cpu = best(partial(baseline_png, d / "ref.png", d / "sys20.png"), max(1, repeat // 3)).cpu
    if args.only in (None, "jp2"):
        section_jp2(root, max(1, repeat // 2))
    if args.only in (None, "run"):
        section_run(root, probes, args.jobs, args.variants, plugin_cpu, baseline_cpu)
    if args.engine:
        section_engine(repeat)


if __name__ == "__main__":
    main()
