"""Per-probe mask thumbnails for the HTML report: reference, system output at the optimum threshold, overlay.

The overlay colours the pixels as the evaluation plan's mask-regions figure (MFC2019 evaluation plan,
section 6.2.1, Figure 4-e): true positive solid green, false negative solid red, false positive solid
orange, true negative white, no-score zone cross-hatched purple.  The plan names the colours but not
their RGB values; the CSS colours of those names are used (:data:`COLOURS`).

The masks are read with the scorer's readers (:mod:`pytest_omfc.scoring.mask`: PNG/JPEG 2000 by signature,
declared size checked before decoding, at most ``MAX_PIXELS``), never through a FIFO or a path that
leaves its directory (:func:`..paths.resolve_inside`), and the no-score zone is the scorer's
(:func:`pytest_omfc.scoring.mask.no_score_weights` with the run's kernel options).  What the thumbnails
simplify: the reference's manipulated region is every non-white pixel (every set bit of a bit-plane
mask), without the journal's selection of colours, so for a multi-colour reference the overlay may
differ from what the scorer counted; the numbers shown are always the scorer's.  A probe that cannot
be drawn gets its reason instead of images.  No pytest import.
"""

from __future__ import annotations

import base64
import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from PIL import Image

from ..paths import not_regular, resolve_inside
from ..scoring.mask import (
    MAX_PIXELS,
    Kernels,
    MaskReadError,
    no_score_weights,
    read_bitplanes,
    read_colour_reference,
    read_system_mask,
)

__all__ = ["COLOURS", "THUMB_MAX", "MaskCard", "MaskPanel", "mask_cards", "pick_probes", "primary_metric"]

#: Overlay colours (RGB): the plan's names, CSS's values (green, red, orange, purple; white for TN).
COLOURS: dict[str, tuple[int, int, int]] = {
    "TP": (0, 128, 0),
    "FN": (255, 0, 0),
    "FP": (255, 165, 0),
    "NS": (128, 0, 128),
    "TN": (255, 255, 255),
}
#: Long side of a thumbnail, in pixels: larger masks are downscaled to it, smaller ones scaled up by a whole
#: factor to at least :data:`THUMB_MIN` (nearest neighbour: the colours stay exact).
THUMB_MAX = 256
THUMB_MIN = 160
#: Hatch period of the no-score zone, in thumbnail pixels.
HATCH = 6

_TP, _FN, _FP, _TN, _NS = range(5)


@dataclass(frozen=True)
class MaskPanel:
    """One image of a card: a caption and a ``data:image/png;base64,...`` URI."""

    caption: str
    uri: str


@dataclass(frozen=True)
class MaskCard:
    """One probe (trial) with its primary metric, threshold and the three images (or why not)."""

    probe: str
    metric: str
    value: float | None
    threshold: int | None
    panels: tuple[MaskPanel, ...] = ()
    error: str | None = None
    counts: dict[str, int] = field(default_factory=dict)


def primary_metric(rows: Sequence[Mapping[str, Any]]) -> str:
    """The mask scorer's primary metric (OptimumMCC; the probe side's for splice, pOptimumMCC)."""
    return "pOptimumMCC" if any("pOptimumMCC" in r for r in rows) else "OptimumMCC"


def _num(v: Any) -> float | None:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return f if math.isfinite(f) else None


def pick_probes(rows: Sequence[Mapping[str, Any]], n: int) -> tuple[list[Mapping[str, Any]], list[Mapping[str, Any]]]:
    """The ``n`` worst and ``n`` best scored probes by the primary metric (ties by probe ID), worst and best first.

    Each probe is shown once: with fewer than ``2n`` scored probes the lower half (rounded up) are
    the worst and the others the best.
    """
    metric = primary_metric(rows)
    scored = [r for r in rows if _num(r.get(metric)) is not None]
    scored.sort(key=lambda r: (_num(r.get(metric)), str(r.get("ProbeFileID")), str(r.get("DonorFileID", ""))))
    k = min(max(n, 0), (len(scored) + 1) // 2)
    return scored[:k], scored[k:][::-1][: max(n, 0)]


# ---------------------------------------------------------------------------- reading


def _file(root: Path | None, name: Any, what: str) -> Path | None:
    """The file a row names, inside ``root``; None for an empty name; MaskReadError when unsafe or special."""
    if name is None or str(name).strip() == "":
        return None
    if root is None:
        raise MaskReadError(f"{what} {name!r}: no directory to read it from")
    path, why = resolve_inside(root, str(name))
    if path is None:
        raise MaskReadError(f"{what} {name!r} {why}")
    kind = not_regular(path)
    if kind is not None:
        raise MaskReadError(f"{what} {name!r}: must be a regular file (got {kind})")
    return path


def _reference(path: Path, bitplane: bool, max_pixels: int) -> tuple[NDArray[np.bool_], NDArray[np.uint8]]:
    """(manipulated region, RGB image to show) of a reference mask."""
    if bitplane:
        planes = read_bitplanes(path, max_pixels=max_pixels)
        gt = (planes != 0) if planes.ndim == 2 else (planes != 0).any(axis=2)
        rgb = np.where(gt[:, :, None], np.uint8(0), np.uint8(255)).repeat(3, axis=2)
        return gt, rgb
    img = read_colour_reference(path, max_pixels=max_pixels, grey=True)
    if img.ndim == 2:
        return img != 255, np.repeat(img[:, :, None], 3, axis=2)
    rgb = np.ascontiguousarray(img[:, :, ::-1])  # BGR -> RGB
    return (img != 255).any(axis=2), rgb


def _grid(shape: tuple[int, int]) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Nearest-neighbour source rows and columns of the thumbnail of an ``shape`` image."""
    h, w = shape
    long = max(h, w, 1)
    if long > THUMB_MAX:
        scale = THUMB_MAX / long
    else:
        scale = float(max(1, math.ceil(THUMB_MIN / long)))
    th, tw = max(1, round(h * scale)), max(1, round(w * scale))
    rows = np.minimum((np.arange(th) + 0.5) * h / th, h - 1).astype(np.intp)
    cols = np.minimum((np.arange(tw) + 0.5) * w / tw, w - 1).astype(np.intp)
    return rows, cols


def _png_uri(arr: NDArray[np.uint8]) -> str:
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format="PNG", optimize=True)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def _overlay(classes: NDArray[np.uint8]) -> NDArray[np.uint8]:
    """RGB of a (thumbnail-sized) class map; the no-score zone hatched in both diagonals on white."""
    lut = np.array([COLOURS["TP"], COLOURS["FN"], COLOURS["FP"], COLOURS["TN"], COLOURS["NS"]], dtype=np.uint8)
    rgb = lut[classes]
    yy, xx = np.indices(classes.shape)
    off_hatch = (classes == _NS) & ((yy + xx) % HATCH > 1) & ((yy - xx) % HATCH > 1)
    rgb[off_hatch] = COLOURS["TN"]
    return rgb


def _card(
    row: Mapping[str, Any],
    side: str,
    *,
    ref_root: Path | None,
    sys_root: Path | None,
    bitplane: bool,
    options: Mapping[str, Any],
    max_pixels: int,
) -> tuple[tuple[MaskPanel, ...], dict[str, int]]:
    """The three panels of one probe side; MaskReadError/ValueError when it cannot be drawn."""
    ref_col = {
        "": "ProbeBitPlaneMaskFileName" if bitplane else "ProbeMaskFileName",
        "p": "BinaryProbeMaskFileName",
        "d": "DonorMaskFileName",
    }[side]
    sys_col = "OutputDonorMaskFileName" if side == "d" else "OutputProbeMaskFileName"
    ref_path = _file(ref_root, row.get(ref_col), "reference mask")
    if ref_path is None:
        raise MaskReadError(f"no reference mask ({ref_col} is empty)")
    gt, ref_rgb = _reference(ref_path, bitplane, max_pixels)
    shape = (int(gt.shape[0]), int(gt.shape[1]))
    sys_path = _file(sys_root, row.get(sys_col), "system mask")
    system = None if sys_path is None else read_system_mask(sys_path, shape, max_pixels=max_pixels)
    threshold = _num(row.get(f"{side}OptimumThreshold"))
    t = -1 if threshold is None else int(threshold)
    pred = np.zeros(shape, dtype=np.bool_) if system is None else system <= t
    nspx = options.get("nspx", -1)
    weights = no_score_weights(
        np.where(gt, np.uint8(0), np.uint8(255)),
        system,
        kernels=Kernels(int(options.get("eks", 15)), int(options.get("dks", 11)), 0, str(options.get("kernel", "box"))),
        no_score_value=None if nspx in (None, -1) else nspx,
    )
    classes = np.full(shape, _NS, dtype=np.uint8)
    w = weights.w
    classes[w & gt & pred] = _TP
    classes[w & gt & ~pred] = _FN
    classes[w & ~gt & pred] = _FP
    classes[w & ~gt & ~pred] = _TN
    counts = {
        name: int(np.count_nonzero(classes == code))
        for name, code in (("TP", _TP), ("FN", _FN), ("FP", _FP), ("TN", _TN), ("NS", _NS))
    }
    rows, cols = _grid(shape)
    sys_shown = np.where(pred, np.uint8(0), np.uint8(255))[np.ix_(rows, cols)]
    what = "probe" if side in ("", "p") else "donor"
    label = "no system mask (white)" if system is None else f"system at threshold {t}"
    panels = (
        MaskPanel(f"{what} reference", _png_uri(ref_rgb[np.ix_(rows, cols)])),
        MaskPanel(label, _png_uri(sys_shown)),
        MaskPanel("overlay", _png_uri(_overlay(classes[np.ix_(rows, cols)]))),
    )
    return panels, counts


def mask_cards(
    rows: Sequence[Mapping[str, Any]],
    *,
    ref_root: Path | None,
    sys_root: Path | None,
    options: Mapping[str, Any],
    bitplane: bool = False,
    max_pixels: int = MAX_PIXELS,
) -> list[MaskCard]:
    """One card per row (probe), in order; the probe side and, for splice, the donor side."""
    metric = primary_metric(rows)
    sides = ("p", "d") if metric.startswith("p") else ("",)
    cards: list[MaskCard] = []
    for row in rows:
        probe = str(row.get("ProbeFileID", "")) + (f" / {row.get('DonorFileID')}" if sides != ("",) else "")
        threshold = _num(row.get(f"{sides[0]}OptimumThreshold"))
        panels: list[MaskPanel] = []
        counts: dict[str, int] = {}
        error: str | None = None
        for side in sides:
            try:
                got, counts = _card(
                    row,
                    side,
                    ref_root=ref_root,
                    sys_root=sys_root,
                    bitplane=bitplane,
                    options=options,
                    max_pixels=max_pixels,
                )
                panels += got
            except (MaskReadError, ValueError, TypeError, MemoryError) as exc:
                error = (
                    error + "; " if error else ""
                ) + f"{type(exc).__name__ if not isinstance(exc, MaskReadError) else 'cannot draw'}: {exc}"
        cards.append(
            MaskCard(
                probe,
                metric,
                _num(row.get(metric)),
                None if threshold is None else int(threshold),
                tuple(panels),
                error,
                counts,
            )
        )
    return cards
