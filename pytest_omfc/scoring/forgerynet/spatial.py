"""ForgeryNet spatial forgery localization (docs/scoring/forgerynet.md#spatial-localization-metrics).

Pure numpy, no pytest.  A map value is the grey level divided by 255 in float64 (a 1-bit map is
0 or 1, i.e. grey 0 or 255).  For each pair ``pred``, ``gt`` of ``N`` pixels:

* ``IoU@t``       = (1/N) sum |1[pred >= t] - 1[gt >= t]|, t in {0.1, 0.2}: the paper's formula as
  written, a pixel *mismatch rate* (lower is better);
* ``IoU_agree@t`` = 1 - ``IoU@t``: the pixel agreement, the magnitude the paper reports (89-96 %);
* ``IoU_diff@t``  = (1/N) sum 1[|pred - gt| <= t], t in {0.01, 0.05, 0.1};
* ``L1``          = (1/N) sum |pred - gt|.

None of them is an intersection over union, whatever the paper calls them.  Every metric is given
twice, never bare: ``_per_image`` is the mean over images of each image's mean (every image weighs
the same), ``_pooled`` the mean over all pixels of all images (a large image weighs more).

Exactness.  The comparisons are made on float64 exactly as written: ``v/255 >= t`` and
``abs(p/255 - g/255) <= t``.  The only grey level on a boundary is 51: ``51/255`` is the double
``0.2``, so grey 51 counts as ``>= 0.2`` (grey 25 < 0.1 <= grey 26, grey 50 < 0.2 <= grey 51).  No
integer grey difference lies on 0.01, 0.05 or 0.1 (``255 t`` = 2.55, 12.75, 25.5, at least 0.25 grey
level away, far beyond float64 error), so ``IoU_diff`` never meets a boundary (``|51/255 - 0/255|``
is exactly ``0.2`` and would count as ``<= 0.2``).  The unit tests pin these cases.
Because a value is one of 256 grey levels, the float64 comparisons are evaluated once, at import,
for all 256 levels and all 65536 (pred, gt) pairs, and turned into integer rules that give the same
answer on every pair (checked at import): ``v/255 >= t`` iff ``v >= first level`` (26 for 0.1, 51
for 0.2) and ``|p/255 - g/255| <= t`` iff ``|p - g| <= D`` (2, 12, 25).  An image then costs a few
passes over its uint8 pixels: two comparisons per ``IoU`` threshold and one ``bincount`` of
``|p - g|``, which gives every ``IoU_diff`` count and the integer ``sum |p - g|``; ``L1`` is that
sum divided by ``255 N`` once.  Pooled values are therefore exact ratios of integers, and memory
does not grow with the number of images beyond the per-image table.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = [
    "DIFF_THRESHOLDS",
    "IOU_THRESHOLDS",
    "METRIC_NAMES",
    "SpatialAccumulator",
    "SpatialReport",
    "pair_counts",
    "score_spatial",
]

#: Thresholds of the thresholded-map mismatch (``IoU@t``) and of ``IoU_diff@t`` (paper,
# docs/scoring/forgerynet.md#spatial-localization-metrics).
IOU_THRESHOLDS: tuple[float, ...] = (0.1, 0.2)
DIFF_THRESHOLDS: tuple[float, ...] = (0.01, 0.05, 0.1)


def _integer_rules() -> tuple[dict[float, int], dict[float, int]]:
    """First grey level ``>= t``, and the largest grey difference ``<= t``, from float64 as written.

    Raises at import if a threshold ever made the float comparison depend on more than the level
    (for ``>=``) or the absolute difference of levels (for ``<=``): then an integer rule would be wrong.
    """
    grey = np.arange(256, dtype=np.float64) / 255.0
    level = np.arange(256)
    first = {t: int(np.argmax(grey >= t)) for t in IOU_THRESHOLDS}
    for t, a in first.items():
        if not np.array_equal(grey >= t, level >= a):  # pragma: no cover - monotone by construction
            raise AssertionError(f"v/255 >= {t} is not a threshold on the grey level")
    pf, gf = np.meshgrid(grey, grey, indexing="ij")
    pi, gi = np.meshgrid(level, level, indexing="ij")
    within = {}
    for t in DIFF_THRESHOLDS:
        exact = np.abs(pf - gf) <= t
        d = int(np.abs(pi - gi)[exact].max())
        if not np.array_equal(exact, np.abs(pi - gi) <= d):  # pragma: no cover - checked for 0.01, 0.05, 0.1
            raise AssertionError(f"|p/255 - g/255| <= {t} is not a threshold on |p - g|")
        within[t] = d
    return first, within


#: ``v/255 >= t`` iff ``v >= _FIRST[t]``; ``|p/255 - g/255| <= t`` iff ``|p - g| <= _WITHIN[t]`` (all 65536 pairs).
_FIRST, _WITHIN = _integer_rules()

#: Per-image column names, in report order (each metric gets ``_per_image`` and ``_pooled``).
METRIC_NAMES: tuple[str, ...] = (
    *(f"IoU@{t:g}" for t in IOU_THRESHOLDS),
    *(f"IoU_agree@{t:g}" for t in IOU_THRESHOLDS),
    *(f"IoU_diff@{t:g}" for t in DIFF_THRESHOLDS),
    "L1",
)


@dataclass(frozen=True)
class SpatialReport:
    """Metrics (``<name>_per_image`` and ``<name>_pooled``) and the per-image table."""

    metrics: dict[str, float | None]
    per_image: list[dict[str, Any]]

    def to_entry(self) -> dict[str, Any]:
        """Builtin types only, for the metrics JSON."""
        return {
            "metrics": {k: (None if v is None else float(v)) for k, v in self.metrics.items()},
            "per_image": [
                {k: (v if isinstance(v, str) else int(v) if k == "pixels" else float(v)) for k, v in row.items()}
                for row in self.per_image
            ],
        }


def _grey(a: np.ndarray, what: str, image_id: str) -> np.ndarray:
    """uint8 grey levels; a bool (1-bit) map becomes 0/255."""
    arr = np.asarray(a)
    if arr.dtype == bool:
        return arr.astype(np.uint8) * np.uint8(255)
    if arr.dtype != np.uint8:
        raise ValueError(f"{image_id}: {what} map must be uint8 grey levels or bool (got {arr.dtype})")
    return arr


def pair_counts(image_id: str, pred: np.ndarray, gt: np.ndarray) -> tuple[int, ...]:
    """One image's integer counts: pixels, mismatches at each ``IoU`` threshold, pixels within each
    ``IoU_diff`` threshold, and ``sum |p - g|`` (plain ints: they cross process boundaries cheaply)."""
    p = _grey(pred, "predicted", image_id)
    g = _grey(gt, "reference", image_id)
    if p.ndim != 2 or p.shape != g.shape:
        raise ValueError(f"{image_id}: maps must be 2-D of the same shape (got {p.shape} and {g.shape})")
    if p.size == 0:
        raise ValueError(f"{image_id}: maps must have at least one pixel (got shape {p.shape})")
    diff = np.abs(p.astype(np.int16) - g.astype(np.int16)).ravel()
    hd = np.bincount(diff, minlength=256)
    cum = np.cumsum(hd)
    return (
        int(p.size),
        *(int(np.count_nonzero((p >= _FIRST[t]) != (g >= _FIRST[t]))) for t in IOU_THRESHOLDS),
        *(int(cum[_WITHIN[t]]) for t in DIFF_THRESHOLDS),
        int(hd @ np.arange(256, dtype=np.int64)),
    )


class SpatialAccumulator:
    """Streaming scorer: ``add`` one image at a time, then ``report``.

    Keeps per image only its integer counts (one small row), and running integer totals for pooling.
    """

    def __init__(self) -> None:
        self._ids: list[str] = []
        # rows: pixels, mismatch@0.1, mismatch@0.2, within@0.01, within@0.05, within@0.1, sum|p-g|
        self._counts: list[tuple[int, ...]] = []

    def add(self, image_id: str, pred: np.ndarray, gt: np.ndarray) -> None:
        """Score one image pair; ``pred`` and ``gt`` are 2-D uint8 (or bool) arrays of equal shape."""
        self.add_counts(image_id, pair_counts(image_id, pred, gt))

    def add_counts(self, image_id: str, row: tuple[int, ...]) -> None:
        """Add one image's :func:`pair_counts` (computed here or by a worker process)."""
        self._ids.append(str(image_id))
        self._counts.append(tuple(int(v) for v in row))

    def __len__(self) -> int:
        return len(self._ids)

    def report(self) -> SpatialReport:
        """Per-image means, their mean over images, and pooled means over all pixels."""
        if not self._counts:
            return SpatialReport({f"{m}_{s}": None for m in METRIC_NAMES for s in ("per_image", "pooled")}, [])
        c = np.array(self._counts, dtype=np.int64)
        n = c[:, 0]
        k = len(IOU_THRESHOLDS)
        mism = c[:, 1 : 1 + k]
        within = c[:, 1 + k : -1]
        absdiff = c[:, -1]
        # Per image: each value is one division of integers.
        cols = np.column_stack(
            [mism / n[:, None], (n[:, None] - mism) / n[:, None], within / n[:, None], absdiff / (255.0 * n)]
        )
        total = int(n.sum())
        pooled = np.concatenate(
            [
                mism.sum(axis=0) / total,
                (total - mism.sum(axis=0)) / total,
                within.sum(axis=0) / total,
                [int(absdiff.sum()) / (255.0 * total)],
            ]
        )
        per_image_mean = cols.mean(axis=0)
        metrics: dict[str, float | None] = {}
        for j, name in enumerate(METRIC_NAMES):
            metrics[f"{name}_per_image"] = float(per_image_mean[j])
            metrics[f"{name}_pooled"] = float(pooled[j])
        rows = [
            {"ID": i, "pixels": int(px), **{name: float(v) for name, v in zip(METRIC_NAMES, vals, strict=True)}}
            for i, px, vals in zip(self._ids, n.tolist(), cols.tolist(), strict=True)
        ]
        return SpatialReport(metrics, rows)


def score_spatial(pairs: Iterable[tuple[str, np.ndarray, np.ndarray]]) -> SpatialReport:
    """Score ``(image_id, pred, gt)`` pairs (consumed one at a time: a generator keeps memory flat)."""
    acc = SpatialAccumulator()
    for image_id, pred, gt in pairs:
        acc.add(image_id, pred, gt)
    return acc.report()
