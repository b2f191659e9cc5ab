"""Scoring of ONE manipulation-mask trial exactly as MediScore's MaskScorer (docs/scoring/masks.md).

Pure numpy, no pytest, no file reading: the inputs are arrays.

* ``bw``: the binarised reference, uint8, 0 = ground truth (GT, "black"), any
  other value = not GT (MediScore's 255); a boolean array is the GT itself.
  :func:`colour_reference` builds it (and the un-selected region) from a BGR
  colour reference mask, :func:`bitplane_reference` from a JPEG 2000 bit-plane
  mask (docs/scoring/masks.md#ground-truth).
* ``unselected``: boolean array of the un-selected (distraction) colours, or None.
* ``sys``: the system's grey mask, uint8; None means a missing system mask,
  scored as a white mask (2.2, 2.8).

:func:`score_mask` computes the weights once (docs/scoring/masks.md#no-score-zones), then sweeps every threshold
of ``T = sorted({-1} | unique(sys))`` at once (docs/scoring/masks.md#threshold-sweep): one histogram of the
system values over the scored positive pixels and one over the scored negative
pixels; their cumulative sums are TP and FP at every threshold.  GWL1 comes from
the same histograms (for a pixel of value v, ``|bw - v|`` is v on GT and 255 - v
elsewhere), so the mask is read a fixed number of times whatever the number of
thresholds.  The per-threshold counts stay in the result (:class:`ThresholdTable`)
so that the Maximum metrics and Pixel/MaskAverageAUC (docs/scoring/masks.md#optimum-maximum-and-actual) can be
aggregated
later (see :mod:`.aggregate`).

Degenerate cases (2.6, 2.8): MCC is 0 when a marginal is 0 or N and NaN when
N = 0; NMM is NaN without GT pixels; BWL1 is NaN when N = 0.  F1 =
2TP/(2TP+FP+FN) and IoU = TP/(TP+FP+FN) are not MediScore metrics; here they are
NaN when their denominator is 0 (no scored GT pixel and no scored pixel called
manipulated), so that an empty-vs-empty trial never counts as a perfect 1.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from .metrics import PER_THRESHOLD, mediscore_metrics
from .morphology import binary_dilate, kernel

__all__ = [
    "WHITE",
    "Kernels",
    "MaskScore",
    "Reference",
    "ThresholdMetrics",
    "ThresholdTable",
    "Weights",
    "aggregate_colour",
    "auc_eer",
    "bitplane_reference",
    "colour_reference",
    "no_score_weights",
    "score_mask",
    "sweep",
]

#: aggregate code of a white pixel, 65536*255 + 256*255 + 255
WHITE = 16777215

ReferenceMode = Literal["manipulation", "splice_probe", "splice_donor"]
Bool2D = NDArray[np.bool_]


# --- reference (docs/scoring/masks.md#ground-truth) -------------------------------------------------------------------


@dataclass(frozen=True)
class Reference:
    """A binarised reference: ``bw`` (uint8, 0 = GT, 255 otherwise) and the un-selected colours."""

    bw: NDArray[np.uint8]
    unselected: Bool2D | None

    @property
    def scoreable(self) -> bool:
        """False when no pixel has a selected colour: MediScore does not score the trial
        (docs/scoring/masks.md#ground-truth)."""
        return bool((self.bw == 0).any())


def aggregate_colour(colour: str | int | tuple[int, int, int]) -> int:
    """A journal ``Color`` "R G B" (or an (R, G, B) tuple, or an aggregate int) as ``65536*B + 256*G + R``."""
    if isinstance(colour, bool):
        raise TypeError(f"colour must be 'R G B' (got {colour!r})")
    if isinstance(colour, int | np.integer):
        return int(colour)
    parts: list[str] | list[int] = colour.split() if isinstance(colour, str) else [int(v) for v in colour]
    if len(parts) != 3:
        raise ValueError(f"colour must be 'R G B' (got {colour!r})")
    r, g, b = (int(p) for p in parts)
    if not all(0 <= v <= 255 for v in (r, g, b)):
        raise ValueError(f"colour components must be in [0, 255] (got {colour!r})")
    return 65536 * b + 256 * g + r


def colour_reference(
    image: NDArray[np.uint8],
    selected: Iterable[str | int | tuple[int, int, int]] | None = None,
    *,
    mode: ReferenceMode = "manipulation",
) -> Reference:
    """GT and distractions of a colour-mode reference (docs/scoring/masks.md#ground-truth).

    ``image`` is what ``cv2.imread(path, IMREAD_COLOR)`` returns: (H, W, 3) BGR;
    a (H, W) grey image is taken as replicated to three channels.  Pixel codes
    are ``agg = 65536*B + 256*G + R``.

    * ``mode="manipulation"``: GT = pixels whose code is a ``selected`` colour
      (the probe's journal rows with ``Evaluated=='Y'`` and a non-empty Color);
      every other non-white colour is un-selected, journal or not.  ``selected=None``
      (no journal data, or ``--rbin >= 0``) means black only.
    * ``mode="splice_probe"``: the journal is ignored, GT = black pixels, no distraction.
    * ``mode="splice_donor"``: GT = black pixels, other non-white colours are un-selected.
    """
    img = np.asarray(image)
    if img.dtype != np.uint8:
        raise ValueError(f"reference image must be uint8 (got {img.dtype})")
    if img.ndim == 2:
        return _grey_reference(img, selected, mode)
    if img.ndim == 3 and img.shape[2] == 3:
        agg = (
            (img[:, :, 0].astype(np.uint32) << np.uint32(16))
            | (img[:, :, 1].astype(np.uint32) << np.uint32(8))
            | img[:, :, 2]
        )
    else:
        raise ValueError(f"reference image must be (H, W, 3) BGR or (H, W) grey (got shape {img.shape})")
    return _reference(_any_equal(agg, _gt_codes(selected, mode)), agg != WHITE, mode)


def _gt_codes(selected: Iterable[str | int | tuple[int, int, int]] | None, mode: ReferenceMode) -> list[int]:
    """The colour codes that are GT: the selected colours (black when none) for manipulation, black for splice."""
    if mode == "manipulation":
        return sorted({aggregate_colour(c) for c in selected}) if selected is not None else [0]
    if mode in ("splice_probe", "splice_donor"):
        return [0]
    raise ValueError(f"mode must be manipulation, splice_probe or splice_donor (got {mode!r})")


def _any_equal(values: NDArray[Any], wanted: list[int]) -> NDArray[np.bool_]:
    """``values == w`` for any ``w`` of ``wanted``, without a zero-filled start (one pass for one value)."""
    if not wanted:
        return np.zeros(values.shape, dtype=np.bool_)
    out: NDArray[np.bool_] = values == wanted[0]
    for w in wanted[1:]:
        out |= values == w
    return out


def _black_on_white(gt: NDArray[np.bool_]) -> NDArray[np.uint8]:
    """0 where ``gt``, 255 elsewhere: True - 1 = 0 and False - 1 = 255 in uint8 (np.where costs 20 times more)."""
    return np.ascontiguousarray(gt).view(np.uint8) - np.uint8(1)


def _reference(gt: NDArray[np.bool_], not_white: NDArray[np.bool_], mode: ReferenceMode) -> Reference:
    bw = _black_on_white(gt)
    if mode == "splice_probe":
        return Reference(bw, None)
    unselected = not_white & ~gt
    return Reference(bw, unselected if unselected.any() else None)


def _grey_reference(
    img: NDArray[np.uint8], selected: Iterable[str | int | tuple[int, int, int]] | None, mode: ReferenceMode
) -> Reference:
    """:func:`colour_reference` of a (H, W) grey image without its uint32 colour codes: a pixel of grey
    ``g`` has the code ``65793 * g`` (B = G = R = g), so a selected colour matches only if it is a grey,
    and "not white" is ``g != 255``.  The same result on the uint8 image, a quarter of the memory traffic
    (benchmarks/score_masks.py, stage "reference -> GT")."""
    codes = _gt_codes(selected, mode)
    greys = [c // 65793 for c in codes if c % 65793 == 0 and c // 65793 <= 255]
    return _reference(_any_equal(img, greys), img != np.uint8(255), mode)


def _bit_planes(bits: Iterable[int | str]) -> list[int]:
    """Journal BitPlane values (1-based) as ints; '' and 'None' are ignored, as in MediScore."""
    out: set[int] = set()
    for b in bits:
        if isinstance(b, str) and b.strip() in ("", "None"):
            continue
        value = int(b)
        if value < 1:
            raise ValueError(f"BitPlane must be a positive integer (got {b!r})")
        out.add(value)
    return sorted(out)


def bitplane_reference(
    planes: NDArray[np.unsignedinteger], listed: Iterable[int | str], evaluated: Iterable[int | str]
) -> Reference:
    """GT and distractions of a JPEG 2000 bit-plane reference (``--jpeg2000``, docs/scoring/masks.md#ground-truth).

    ``planes``: the decoded mask, (H, W) or (H, W, L) unsigned integers; bit
    plane b (1-based) is bit ``(b-1) % 8`` of layer ``(b-1) // 8``.  ``listed``:
    the BitPlane values of all the probe's journal rows; bits not listed are
    cleared (not manipulated).  ``evaluated``: the BitPlanes of the rows with
    ``Evaluated=='Y'``.  GT = any evaluated bit set; a listed bit that is not
    evaluated is a distraction.
    """
    arr = np.asarray(planes)
    if arr.ndim == 2:
        arr = arr[:, :, None]
    if arr.ndim != 3 or arr.dtype.kind != "u":
        raise ValueError(f"bit planes must be (H, W) or (H, W, L) unsigned integers (got {arr.dtype} {arr.shape})")
    listed_bits, evaluated_bits = _bit_planes(listed), _bit_planes(evaluated)
    gt = np.zeros(arr.shape[:2], dtype=np.bool_)
    unselected = np.zeros(arr.shape[:2], dtype=np.bool_)
    width = 8 * arr.dtype.itemsize
    for layer in range(arr.shape[2]):
        keep = sum(1 << (b - 1 - width * layer) for b in listed_bits if width * layer < b <= width * (layer + 1))
        want = sum(1 << (b - 1 - width * layer) for b in evaluated_bits if width * layer < b <= width * (layer + 1))
        if not keep and not want:
            continue
        values = arr[:, :, layer]
        gt |= (values & arr.dtype.type(want)) != 0
        unselected |= (values & arr.dtype.type(keep & ~want)) != 0
    return Reference(_black_on_white(gt), unselected if unselected.any() else None)


# --- weights (docs/scoring/masks.md#no-score-zones) -------------------------------------------------------------------


@dataclass(frozen=True)
class Weights:
    """No-score zones: 1 = scored.  ``w = bns & sns & pns``; counts as MediScore reports them."""

    bns: Bool2D
    sns: Bool2D
    pns: Bool2D
    w: Bool2D
    pixel_bns: int  # #(bns == 0 & sns == 1)
    pixel_sns: int  # #(sns == 0)
    pixel_pns: int  # #(pns == 0); may count pixels already in SNS (docs/scoring/masks.md#no-score-zones)

    @property
    def pixel_n(self) -> int:
        return int(np.count_nonzero(self.w))


def _check_size(name: str, size: int) -> int:
    """A kernel size option (eks, dks, ntdks): 0 (no operation) or a positive odd integer."""
    if isinstance(size, bool) or not isinstance(size, int | np.integer):
        raise TypeError(f"{name} must be 0 or a positive odd integer (got {size!r})")
    if size < 0 or (size and size % 2 == 0):
        raise ValueError(f"{name} must be 0 or a positive odd integer (got {size})")
    return int(size)


def _no_score_value(px: Any) -> int | None:
    """``--nspx``/``ProbeOptOutPixelValue``: None, '' and -1 mean none; a non-integer is an error
    (docs/scoring/masks.md#no-score-zones)."""
    if px is None or (isinstance(px, str) and px.strip() == ""):
        return None
    if isinstance(px, bool):
        raise TypeError(f"no-score pixel value must be an integer (got {px!r})")
    if isinstance(px, float):
        if not px.is_integer():
            raise ValueError(f"no-score pixel value must be an integer (got {px!r})")
        px = int(px)
    try:
        value = int(px)
    except (TypeError, ValueError):
        raise ValueError(f"no-score pixel value must be an integer (got {px!r})") from None
    return None if value == -1 else value


def _core_weights(
    gt: Bool2D,
    unselected: Bool2D | None,
    sys: NDArray[np.uint8] | None,
    eks: int,
    dks: int,
    ntdks: int,
    shape: str,
    px: int | None,
) -> tuple[Bool2D | None, Bool2D | None, Bool2D | None]:
    """(bns, sns, pns), None standing for "all ones".  erode_eks(GT) is shared by BNS and SNS."""
    ekern, dkern = kernel(shape, eks), kernel(shape, dks)
    # E = dilate(bw, eks) is 0 exactly on erode_eks(GT); D = erode(bw, dks) is 0 on dilate_dks(GT).
    eroded_gt = ~binary_dilate(~gt, ekern) if eks else gt
    bns: Bool2D | None = None
    if eks or dks:
        dilated_gt = binary_dilate(gt, dkern) if dks else gt
        bns = eroded_gt == dilated_gt
    sns: Bool2D | None = None
    if unselected is not None and unselected.any():
        spread = binary_dilate(unselected, kernel(shape, ntdks)) if ntdks else unselected
        sns = ~spread
        sns |= eroded_gt
    pns: Bool2D | None = sys != px if px is not None and sys is not None and 0 <= px <= 255 else None
    return bns, sns, pns


def _combine(shape: tuple[int, ...], *parts: Bool2D | None) -> Bool2D:
    """AND of the given masks, None meaning all ones."""
    given = [p for p in parts if p is not None]
    if not given:
        return np.ones(shape, dtype=np.bool_)
    out = given[0].copy()
    for p in given[1:]:
        out &= p
    return out


def _pixel_bns(bns: Bool2D | None, sns: Bool2D | None) -> int:
    """#(bns == 0 & sns == 1)."""
    if bns is None:
        return 0
    if sns is None:
        return int(bns.size - np.count_nonzero(bns))
    return int(np.count_nonzero(sns) - np.count_nonzero(sns & bns))


def _inputs(
    bw: NDArray[np.uint8], sys: NDArray[np.uint8] | None, unselected: Bool2D | None
) -> tuple[Bool2D, NDArray[np.uint8], Bool2D | None]:
    ref = np.asarray(bw)
    if ref.ndim != 2:
        raise ValueError(f"reference must be a 2-D 0/255 array (got shape {ref.shape})")
    gt: Bool2D = np.asarray(ref if ref.dtype == np.bool_ else ref == 0, dtype=np.bool_)  # bool: the GT itself
    smask: NDArray[np.uint8]
    if sys is None:
        smask = np.full(
            ref.shape, 255, dtype=np.uint8
        )  # missing / FailedValidation: white (docs/scoring/masks.md#reading-masks)
    else:
        smask = np.asarray(sys)
        if smask.dtype != np.uint8:
            raise ValueError(f"system mask must be uint8 (got {smask.dtype})")
        if smask.shape != ref.shape:
            raise ValueError(f"system mask must have the reference's shape {ref.shape} (got {smask.shape})")
    if unselected is not None:
        unselected = np.asarray(unselected, dtype=np.bool_)
        if unselected.shape != ref.shape:
            raise ValueError(f"unselected region must have the reference's shape {ref.shape} (got {unselected.shape})")
    return gt, smask, unselected


@dataclass(frozen=True)
class Kernels:
    """The no-score zones' kernels (docs/scoring/masks.md): ``eks`` erodes and ``dks`` dilates the reference
    (``--eks``/``--dks``), ``ntdks`` dilates the non-selected regions (``--ntdks``; 0 for splice), all of
    ``shape`` (``--kernel``).  Sizes are 0 or odd, at most 101."""

    eks: int = 15
    dks: int = 11
    ntdks: int = 15
    shape: str = "box"


def no_score_weights(
    bw: NDArray[np.uint8],
    sys: NDArray[np.uint8] | None = None,
    *,
    unselected: Bool2D | None = None,
    kernels: Kernels | None = None,
    no_score_value: Any = None,
) -> Weights:
    """BNS, SNS, PNS and their counts (docs/scoring/masks.md#no-score-zones), for inspection; :func:`score_mask` does
    the same inline.

    ``kernels.ntdks`` is the distraction dilation (MediScore's default 15; splice forces 0).
    """
    zone = kernels if kernels is not None else Kernels()
    gt, smask, unselected = _inputs(bw, sys, unselected)
    bns, sns, pns = _core_weights(
        gt,
        unselected,
        smask,
        _check_size("eks", zone.eks),
        _check_size("dks", zone.dks),
        _check_size("ntdks", zone.ntdks),
        zone.shape,
        _no_score_value(no_score_value),
    )
    ones = gt.shape
    return Weights(
        bns=_combine(ones, bns),
        sns=_combine(ones, sns),
        pns=_combine(ones, pns),
        w=_combine(ones, bns, sns, pns),
        pixel_bns=_pixel_bns(bns, sns),
        pixel_sns=0 if sns is None else int(sns.size - np.count_nonzero(sns)),
        pixel_pns=0 if pns is None else int(pns.size - np.count_nonzero(pns)),
    )


# --- sweep (docs/scoring/masks.md#threshold-sweep) and metrics (docs/scoring/masks.md#metrics-at-one-threshold) -------


def _histogram(code: NDArray[np.uint16], nbins: int) -> NDArray[np.int64]:
    """``np.bincount(code, minlength=nbins)``, through run lengths when the data is blobby.

    A mask made of large flat regions makes bincount increment the same counter
    millions of times in a row (a store-to-load dependency chain, 3x slower than
    random data); counting runs instead reads the array twice and bins a few
    thousand runs.
    """
    flat = code.ravel()
    if flat.size == 0:
        return np.zeros(nbins, dtype=np.int64)
    change = flat[1:] != flat[:-1]
    if np.count_nonzero(change) > flat.size // 16:  # short runs: plain bincount is faster
        return np.bincount(flat, minlength=nbins).astype(np.int64)
    starts = np.flatnonzero(change)
    starts += 1
    bounds = np.empty(starts.size + 2, dtype=np.int64)
    bounds[0], bounds[1:-1], bounds[-1] = 0, starts, flat.size
    lengths = np.diff(bounds).astype(np.float64)
    return np.rint(np.bincount(flat[bounds[:-1]], weights=lengths, minlength=nbins)).astype(np.int64)


@dataclass(frozen=True)
class ThresholdMetrics:
    """Metrics of one mask at one threshold (docs/scoring/masks.md#metrics-at-one-threshold): ``values`` by
    :data:`PER_THRESHOLD` name (``m["MCC"]``), NaN where MediScore prints a blank, and the confusion counts."""

    threshold: float
    values: Mapping[str, float]
    tp: int
    tn: int
    fp: int
    fn: int

    def __getitem__(self, name: str) -> float:
        return self.values[name]

    @property
    def mcc(self) -> float:
        return self.values["MCC"]

    @property
    def nmm(self) -> float:
        return self.values["NMM"]

    @property
    def bwl1(self) -> float:
        return self.values["BWL1"]


@dataclass(frozen=True)
class ThresholdTable:
    """Confusion counts of one mask at every threshold of ``thresholds`` (ascending, from -1).

    A pixel is called manipulated at t when ``sys <= t``.  Between two listed
    thresholds the counts do not change, so the table is a step function of t:
    :meth:`index_at` gives the row of the largest listed threshold <= t
    (docs/scoring/masks.md#optimum-maximum-and-actual).
    """

    thresholds: NDArray[np.int64]
    tp: NDArray[np.int64]
    fp: NDArray[np.int64]
    positives: int  # scored GT pixels, TP + FN
    negatives: int  # scored non-GT pixels, FP + TN

    @property
    def n(self) -> int:
        return self.positives + self.negatives

    @property
    def fn(self) -> NDArray[np.int64]:
        return self.positives - self.tp

    @property
    def tn(self) -> NDArray[np.int64]:
        return self.negatives - self.fp

    def mcc(self) -> NDArray[np.float64]:
        """MCC; 0 when TP+FN or TP+FP is 0 or N, NaN when N = 0 (docs/scoring/masks.md#metrics-at-one-threshold)."""
        n = self.n
        if n == 0:
            return np.full(self.tp.shape, np.nan)
        tp, fp = self.tp.astype(np.float64), self.fp.astype(np.float64)
        fn, tn = self.fn.astype(np.float64), self.tn.astype(np.float64)
        called = tp + fp
        degenerate = (self.positives == 0) | (self.positives == n) | (called == 0) | (called == n)
        denom = np.sqrt(called * (tp + fn) * (tn + fp) * (tn + fn))
        with np.errstate(divide="ignore", invalid="ignore"):
            out = (tp * tn - fp * fn) / denom
        return np.where(degenerate, 0.0, out)

    def black_fraction(self) -> float:
        """Share of the scored pixels whose system value is 0 (called manipulated at every threshold)."""
        if self.n == 0:
            return math.nan
        at = np.flatnonzero(self.thresholds >= 0)
        return float(self.tp[at[0]] + self.fp[at[0]]) / self.n if at.size and self.thresholds[at[0]] == 0 else 0.0

    def nmm(self) -> NDArray[np.float64]:
        """max(-1, (TP - FN - FP)/(TP + FN)); NaN without GT pixels."""
        if self.positives == 0:
            return np.full(self.tp.shape, np.nan)
        return np.maximum(-1.0, (self.tp - self.fn - self.fp) / self.positives)

    def bwl1(self) -> NDArray[np.float64]:
        """(FP + FN)/N; NaN when N = 0."""
        if self.n == 0:
            return np.full(self.tp.shape, np.nan)
        return (self.fp + self.fn) / self.n

    def f1(self) -> NDArray[np.float64]:
        """2TP/(2TP + FP + FN); NaN when the denominator is 0."""
        denom = (2 * self.tp + self.fp + self.fn).astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(denom > 0, 2 * self.tp / denom, np.nan)

    def iou(self) -> NDArray[np.float64]:
        """TP/(TP + FP + FN); NaN when the denominator is 0."""
        denom = (self.tp + self.fp + self.fn).astype(np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(denom > 0, self.tp / denom, np.nan)

    def tpr(self) -> NDArray[np.float64]:
        """TP/(TP + FN); NaN without scored GT pixels."""
        return self.tp / self.positives if self.positives else np.full(self.tp.shape, np.nan)

    def fpr(self) -> NDArray[np.float64]:
        """FP/(FP + TN); NaN without scored non-GT pixels."""
        return self.fp / self.negatives if self.negatives else np.full(self.tp.shape, np.nan)

    def index_at(self, threshold: float) -> int:
        """Row of the largest listed threshold <= ``threshold`` (the first row, -1, below it)."""
        return max(0, int(np.searchsorted(self.thresholds, threshold, side="right")) - 1)

    def metrics(self, row: int, threshold: float | None = None) -> ThresholdMetrics:
        """All metrics of row ``row``; ``threshold`` overrides the reported threshold (Actual)."""
        t = float(self.thresholds[row]) if threshold is None else float(threshold)
        if self.n == 0:
            empty = dict.fromkeys((m.name for m in PER_THRESHOLD), math.nan)
            return ThresholdMetrics(math.nan if threshold is None else t, empty, 0, 0, 0, 0)
        return ThresholdMetrics(
            threshold=t,
            values={m.name: float(getattr(self, m.method)()[row]) for m in PER_THRESHOLD},
            tp=int(self.tp[row]),
            tn=int(self.tn[row]),
            fp=int(self.fp[row]),
            fn=int(self.fn[row]),
        )

    def optimum_row(self) -> int | None:
        """Row of the best MCC, the lowest threshold on ties; None when N = 0
        (docs/scoring/masks.md#optimum-maximum-and-actual)."""
        if self.n == 0:
            return None
        return int(np.argmax(self.mcc()))


def _trapezoid_auc(fpr: NDArray[np.float64], tpr: NDArray[np.float64]) -> float:
    """Trapezoids over consecutive points, segments ending at fpr <= 1 (docs/scoring/detection.md#auc-and-partial-auc,
    stop = 1)."""
    keep = fpr[1:] <= 1
    return float(np.sum(((fpr[1:] - fpr[:-1]) * (tpr[1:] + tpr[:-1]) / 2)[keep]))


def auc_eer(fpr: NDArray[np.float64], tpr: NDArray[np.float64]) -> tuple[float, float]:
    """Per-mask AUC and EER (docs/scoring/masks.md#metrics-at-one-threshold): add (0,0), stable-sort by (FPR, TPR),
    trapezoids; EER as docs/scoring/detection.md#eer."""
    f = np.concatenate(([0.0], np.asarray(fpr, dtype=np.float64)))
    t = np.concatenate(([0.0], np.asarray(tpr, dtype=np.float64)))
    order = np.lexsort((t, f))  # stable
    f, t = f[order], t[order]
    fnr = 1 - t
    j = int(np.argmin(np.abs(f - fnr)))
    return _trapezoid_auc(f, t), float((f[j] + fnr[j]) / 2)


def sweep(sys: NDArray[np.uint8], gt: Bool2D, w: Bool2D) -> tuple[ThresholdTable, NDArray[np.int64]]:
    """Counts at every threshold ``sorted({-1} | unique(sys))`` from one histogram pass
    (docs/scoring/masks.md#threshold-sweep).

    Returns the table and the (3, 256) histogram of system values over
    unscored / scored-GT / scored-non-GT pixels.  The thresholds come from
    every system pixel, scored or not, as in MediScore.
    """
    # class 0 unscored, 1 scored GT, 2 scored non-GT: w << (not gt)
    cls = np.left_shift(w.view(np.uint8), (~gt).view(np.uint8))
    code = cls.astype(np.uint16)
    code <<= 8
    code |= sys
    hist = _histogram(code, 768).reshape(3, 256)
    present = np.flatnonzero(hist.sum(axis=0))
    thresholds = np.concatenate(([-1], present)).astype(np.int64)
    cum = np.cumsum(hist[1:], axis=1)  # counts with sys <= v
    tp = np.concatenate(([0], cum[0][present])).astype(np.int64)
    fp = np.concatenate(([0], cum[1][present])).astype(np.int64)
    return ThresholdTable(thresholds, tp, fp, int(cum[0][-1]), int(cum[1][-1])), hist


# --- one mask (2.7, 2.8) ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MaskScore:
    """The per-image result of one mask trial (MediScore's perimage columns, see :meth:`row`).

    ``scored`` is False when the reference has no selected region (2.3, 2.8):
    nothing else is set then.  When every pixel is no-score (N = 0) the trial
    is scored but the metrics and the optimum threshold are NaN.
    """

    scored: bool
    pixel_n: int = 0
    pixel_bns: int = 0
    pixel_sns: int = 0
    pixel_pns: int = 0
    gwl1: float = math.nan
    auc: float = math.nan
    eer: float = math.nan
    optimum: ThresholdMetrics | None = None
    actual: ThresholdMetrics | None = None
    table: ThresholdTable | None = None
    #: bit planes above 8 this trial scores in a one-component 16-bit JPEG 2000 reference (MediScore reads such a
    #: file as 8 bits and finds those planes empty: docs/scoring/masks.md#ground-truth), for a note; () otherwise
    high_planes: tuple[int, ...] = ()

    def row(self, prefix: str = "") -> dict[str, float | int | str | None]:
        """MediScore's per-image columns (``prefix`` "p"/"d" for splice); None where it prints a blank."""

        def v(x: float | None) -> float | None:
            return None if x is None or (isinstance(x, float) and math.isnan(x)) else x

        out: dict[str, float | int | str | None] = {}
        opt, act = self.optimum, self.actual
        if opt is not None and not math.isnan(opt.threshold):
            out[f"{prefix}OptimumThreshold"] = int(opt.threshold)
        else:
            out[f"{prefix}OptimumThreshold"] = None
        for name in mediscore_metrics():
            out[f"{prefix}Optimum{name}"] = v(opt[name]) if opt else None
        out[f"{prefix}GWL1"] = v(self.gwl1)
        out[f"{prefix}AUC"] = v(self.auc)
        out[f"{prefix}EER"] = v(self.eer)
        out["Scored" if not prefix else ("ProbeScored" if prefix == "p" else "DonorScored")] = (
            "Y" if self.scored else "N"
        )
        out[f"{prefix}PixelN"] = self.pixel_n if self.scored else None
        for name in ("TP", "TN", "FP", "FN"):
            out[f"{prefix}OptimumPixel{name}"] = getattr(opt, name.lower()) if opt else None
        out[f"{prefix}PixelBNS"] = self.pixel_bns if self.scored else None
        out[f"{prefix}PixelSNS"] = self.pixel_sns if self.scored else None
        out[f"{prefix}PixelPNS"] = self.pixel_pns if self.scored else None
        if act is not None:
            out[f"{prefix}ActualThreshold"] = int(act.threshold)
            for name in mediscore_metrics():
                out[f"{prefix}Actual{name}"] = v(act[name])
            for name in ("TP", "TN", "FP", "FN"):  # blank when N = 0, unlike the Optimum counts (splicebin)
                out[f"{prefix}ActualPixel{name}"] = getattr(act, name.lower()) if self.pixel_n else None
        return out


def score_mask(
    bw: NDArray[np.uint8],
    sys: NDArray[np.uint8] | None,
    *,
    unselected: Bool2D | None = None,
    kernels: Kernels | None = None,
    no_score_value: Any = None,
    actual_threshold: int | None = None,
) -> MaskScore:
    """Score one mask trial as MaskScorer (docs/scoring/masks.md).

    ``bw``: binarised reference, 0 = GT (a boolean array is taken as the GT
    itself); ``sys``: uint8 grey system mask of the same shape, or None for a
    missing/FailedValidation mask (white).  ``unselected``: distraction pixels
    (dilated by ``kernels.ntdks``).  ``kernels``: the no-score zones (default
    MediScore's: :class:`Kernels`).  ``no_score_value``:
    ``--nspx`` / ``ProbeOptOutPixelValue`` (None, '' or -1: none).
    ``actual_threshold``: ``--sbin`` in [-1, 255], or None for no Actual metrics.
    Bad arguments raise ``ValueError``.
    """
    zone = kernels if kernels is not None else Kernels()
    if actual_threshold is not None:
        if isinstance(actual_threshold, bool) or not isinstance(actual_threshold, int | np.integer):
            raise TypeError(f"actual threshold must be an integer in [-1, 255] (got {actual_threshold!r})")
        if not -1 <= actual_threshold <= 255:
            raise ValueError(f"actual threshold must be in [-1, 255] (got {actual_threshold})")
    eks, dks, ntdks = _check_size("eks", zone.eks), _check_size("dks", zone.dks), _check_size("ntdks", zone.ntdks)
    kernel_shape = zone.shape
    px = _no_score_value(no_score_value)
    kernel(kernel_shape, 1)  # validates the shape name
    gt, smask, unselected = _inputs(bw, sys, unselected)
    if not gt.any():
        return MaskScore(scored=False)  # no selected region: not scored (2.3 regionIsPresent)
    bns, sns, pns = _core_weights(gt, unselected, smask, eks, dks, ntdks, kernel_shape, px)
    w = _combine(gt.shape, bns, sns, pns)
    table, hist = sweep(smask, gt, w)
    pixel_bns = _pixel_bns(bns, sns)
    pixel_sns = 0 if sns is None else int(sns.size - np.count_nonzero(sns))
    pixel_pns = int(hist[:, px].sum()) if px is not None and 0 <= px <= 255 else 0
    counts: dict[str, Any] = {
        "pixel_n": table.n,
        "pixel_bns": pixel_bns,
        "pixel_sns": pixel_sns,
        "pixel_pns": pixel_pns,
    }
    best = table.optimum_row()
    actual = table.metrics(table.index_at(actual_threshold), actual_threshold) if actual_threshold is not None else None
    if best is None:  # weights all zero: scored, every metric NaN (docs/scoring/masks.md#special-cases)
        return MaskScore(True, **counts, optimum=table.metrics(0), actual=actual, table=table)
    values = np.arange(256, dtype=np.float64)
    l1 = float(hist[1] @ values + hist[2] @ (255.0 - values))
    gwl1 = l1 / 255.0 / table.n
    tpr, fpr = table.tpr(), table.fpr()
    if table.positives == 0 or table.negatives == 0:
        tpr = fpr = np.zeros(
            table.thresholds.shape
        )  # MediScore's (0,0) points (docs/scoring/masks.md#metrics-at-one-threshold)
    auc, eer = auc_eer(fpr, tpr)
    return MaskScore(
        True,
        **counts,
        gwl1=gwl1,
        auc=auc,
        eer=eer,
        optimum=table.metrics(best),
        actual=actual,
        table=table,
    )
