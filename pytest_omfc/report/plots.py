"""ROC and DET plots as PNG (Pillow) and SVG (plain text), without matplotlib.

Both formats are rendered from one list of drawing primitives, so they show
the same thing: one curve per result (all trials, or one per query), a
legend with AUC and the target/non-target counts, and the chance line.
DET axes use the normal deviate (probit) of the error rates.

API: ``write_roc_plot(results, out_dir, *, title=..., stem="roc", formats=("png", "svg"))``,
``write_det_plot(...)`` (stem ``"det"``), ``write_plots(report, out_dir, ...)`` (both);
each returns the written paths.  ``roc_svg(results)``/``det_svg(results)`` return the SVG text (the
HTML report inlines it).  ``probit(p)`` is exported for reuse.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..findings import reveal
from ..outputs import write_atomic
from ..scoring.detection import DetectionReport, DetectionResult

__all__ = ["det_svg", "probit", "roc_svg", "write_det_plot", "write_plots", "write_roc_plot"]

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f")
DET_TICKS = (0.001, 0.01, 0.05, 0.2, 0.5, 0.8, 0.95, 0.99)
DET_LIMITS = (0.0005, 0.995)

# Acklam's rational approximation of the inverse normal CDF (relative error < 1.2e-9), refined below by
# one Halley step on Phi(x) - p, which brings it to full double precision (Acklam's own recipe).
_A = (
    -3.969683028665376e01,
    2.209460984245205e02,
    -2.759285104469687e02,
    1.383577518672690e02,
    -3.066479806614716e01,
    2.506628277459239e00,
)
_B = (-5.447609879822406e01, 1.615858368580409e02, -1.556989798598866e02, 6.680131188771972e01, -1.328068155288572e01)
_C = (
    -7.784894002430293e-03,
    -3.223964580411365e-01,
    -2.400758277161838e00,
    -2.549732539343734e00,
    4.374664141464968e00,
    2.938163982698783e00,
)
_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00, 3.754408661907416e00)
_P_LOW = 0.02425
_ERFC = np.frompyfunc(math.erfc, 1, 1)


def _acklam_lower(r: np.ndarray) -> np.ndarray:
    """Acklam's approximation for 0 < r <= 0.5 (the lower half; the result is <= 0)."""
    out = np.empty(r.shape)
    tail = r < _P_LOW
    q = r[~tail] - 0.5
    s = q * q
    num = ((((_A[0] * s + _A[1]) * s + _A[2]) * s + _A[3]) * s + _A[4]) * s + _A[5]
    den = ((((_B[0] * s + _B[1]) * s + _B[2]) * s + _B[3]) * s + _B[4]) * s + 1
    out[~tail] = q * num / den
    t = np.sqrt(-2 * np.log(r[tail]))
    num = ((((_C[0] * t + _C[1]) * t + _C[2]) * t + _C[3]) * t + _C[4]) * t + _C[5]
    den = (((_D[0] * t + _D[1]) * t + _D[2]) * t + _D[3]) * t + 1
    out[tail] = num / den
    return out


def probit(p: np.ndarray | Sequence[float] | float) -> np.ndarray:
    """Normal deviate Phi^-1(p), vectorised, to full double precision; -inf/inf at 0/1, NaN outside [0, 1].

    Why not scipy.special.ndtri: scipy is no dependency (it came only with the test extras).  The lower
    half r = min(p, 1 - p) is computed (1 - p is exact for p >= 0.5), so the result is exactly
    antisymmetric, probit(1 - p) == -probit(p), and the upper tail keeps its relative precision.
    Acklam's approximation is refined by one Halley step on Phi(x) - r with Phi(x) = erfc(-x/sqrt 2)/2
    (math.erfc is accurate in the tail): tests/report/test_plots.py checks it against known
    quantiles to 1e-12 and against scipy where scipy is installed.
    """
    p = np.asarray(p, dtype=float)
    out = np.full(p.shape, np.nan)
    inside = (p > 0) & (p < 1)
    r = np.minimum(p[inside], 1.0 - p[inside])
    x = _acklam_lower(r)
    e = 0.5 * np.asarray(_ERFC(-x / math.sqrt(2)), dtype=float) - r
    u = e * math.sqrt(2 * math.pi) * np.exp(x * x / 2)
    x = x - u / (1 + x * u / 2)
    out[inside] = np.where(p[inside] > 0.5, -x, x)
    out[p == 0] = -np.inf
    out[p == 1] = np.inf
    return out


@dataclass(frozen=True)
class _Line:
    points: list[tuple[float, float]]
    color: str
    width: int = 2
    dashed: bool = False


@dataclass(frozen=True)
class _Text:
    x: float
    y: float
    text: str
    anchor: str = "start"  # start | middle | end
    color: str = "#222222"


class _Canvas:
    """Plot area with data-to-pixel mapping and a primitive list for both renderers."""

    def __init__(self, size: tuple[int, int], xlim: tuple[float, float], ylim: tuple[float, float]) -> None:
        self.w, self.h = size
        self.left, self.right, self.top, self.bottom = 70, self.w - 20, 45, self.h - 60
        self.xlim, self.ylim = xlim, ylim
        self.items: list[_Line | _Text] = []

    def px(self, x: float, y: float) -> tuple[float, float]:
        fx = (x - self.xlim[0]) / (self.xlim[1] - self.xlim[0])
        fy = (y - self.ylim[0]) / (self.ylim[1] - self.ylim[0])
        return self.left + fx * (self.right - self.left), self.bottom - fy * (self.bottom - self.top)

    def line(self, xs: Iterable[float], ys: Iterable[float], color: str, width: int = 2, dashed: bool = False) -> None:
        x, y = np.asarray(list(xs), dtype=float), np.asarray(list(ys), dtype=float)
        if x.shape != y.shape:
            raise ValueError(f"x and y differ in length ({x.size} and {y.size})")
        ok = np.isfinite(x) & np.isfinite(y)
        fx = (x[ok] - self.xlim[0]) / (self.xlim[1] - self.xlim[0])
        fy = (y[ok] - self.ylim[0]) / (self.ylim[1] - self.ylim[0])
        pts = _simplify(
            np.column_stack([self.left + fx * (self.right - self.left), self.bottom - fy * (self.bottom - self.top)])
        )
        if len(pts) >= 2:
            self.items.append(_Line([(float(a), float(b)) for a, b in pts], color, width, dashed))

    def text(self, x: float, y: float, text: str, anchor: str = "start", color: str = "#222222") -> None:
        self.items.append(_Text(x, y, text, anchor, color))

    def frame(
        self,
        title: str,
        xlabel: str,
        ylabel: str,
        ticks: Sequence[tuple[float, str]],
        yticks: Sequence[tuple[float, str]] | None = None,
    ) -> None:
        yt = ticks if yticks is None else yticks
        for v, lab in ticks:
            x, _ = self.px(v, self.ylim[0])
            self.items.append(_Line([(x, self.top), (x, self.bottom)], "#dddddd", 1))
            self.text(x, self.bottom + 16, lab, "middle")
        for v, lab in yt:
            _, y = self.px(self.xlim[0], v)
            self.items.append(_Line([(self.left, y), (self.right, y)], "#dddddd", 1))
            self.text(self.left - 6, y + 4, lab, "end")
        box: list[tuple[float, float]] = [
            (self.left, self.top),
            (self.right, self.top),
            (self.right, self.bottom),
            (self.left, self.bottom),
            (self.left, self.top),
        ]
        self.items.append(_Line(box, "#444444", 1))
        self.text(self.w / 2, 24, title, "middle")
        self.text((self.left + self.right) / 2, self.h - 22, xlabel, "middle")
        self.text(14, self.top - 12, ylabel, "start")

    def legend(self, entries: Sequence[tuple[str, str]], corner: str) -> None:
        right = corner in ("right", "top-right")
        x0 = self.right - 12 if right else self.left + 40
        y0 = self.top + 18 if corner.startswith("top") else self.bottom - 14 * len(entries) - 6
        for i, (label, color) in enumerate(entries):
            y = y0 + 14 * i
            if right:
                self.items.append(_Line([(x0 - 18, y - 4), (x0 - 2, y - 4)], color, 3))
                self.text(x0 - 24, y, label, "end", color)
            else:
                self.items.append(_Line([(x0 - 30, y - 4), (x0 - 14, y - 4)], color, 3))
                self.text(x0 - 8, y, label, "start", color)

    # -- renderers ---------------------------------------------------------------------------------
    def to_svg(self) -> str:
        out = [
            (
                f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.w}" height="{self.h}" '
                f'viewBox="0 0 {self.w} {self.h}" font-family="sans-serif" font-size="11">'
            ),
            f'<rect width="{self.w}" height="{self.h}" fill="white"/>',
        ]
        for it in self.items:
            if isinstance(it, _Line):
                pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in it.points)
                dash = ' stroke-dasharray="6,4"' if it.dashed else ""
                out.append(
                    f'<polyline points="{pts}" fill="none" stroke="{it.color}" stroke-width="{it.width}"{dash}/>'
                )
            else:
                out.append(
                    f'<text x="{it.x:.1f}" y="{it.y:.1f}" text-anchor="{it.anchor}" fill="{it.color}">'
                    f"{escape(reveal(it.text))}</text>"
                )
        out.append("</svg>")
        return "\n".join(out) + "\n"

    def to_png(self, path: Path) -> None:
        img = Image.new("RGB", (self.w, self.h), "white")
        draw = ImageDraw.Draw(img)
        try:
            font = ImageFont.load_default(size=12)
        except TypeError:  # Pillow < 10.1 has no sized default font
            font = ImageFont.load_default()
        for it in self.items:
            if isinstance(it, _Line):
                if it.dashed:
                    for a, b in zip(it.points, it.points[1:], strict=False):
                        _dashed(draw, a, b, it.color, it.width)
                else:
                    draw.line(it.points, fill=it.color, width=it.width, joint="curve")
            else:
                anchor = {"start": "ls", "middle": "ms", "end": "rs"}[it.anchor]
                draw.text((it.x, it.y), it.text, fill=it.color, font=font, anchor=anchor)
        data = io.BytesIO()
        img.save(data, format="PNG")
        write_atomic(path, data.getvalue())


#: Curve points are snapped to this fraction of a pixel (invisible at any zoom a report is read at).
GRID = 4


def _simplify(pts: np.ndarray) -> np.ndarray:
    """Pixel points snapped to a 1/GRID-pixel grid, without repeats and without the middle points of straight runs.

    Exact (integer arithmetic on the snapped points), so the drawing does not change; a ROC of 16,000
    trials (7,867 points, 126,000 on the DET after densifying) keeps a few thousand at most: a monotone
    curve crosses at most (width + height) * GRID cells.  Without it the inline SVG of 16,000 trials
    was 1.6 MB (benchmarks/plots.py).
    """
    if len(pts) < 3:
        return pts
    q = np.round(pts * GRID).astype(np.int64)
    keep = np.r_[True, (np.diff(q, axis=0) != 0).any(axis=1)]
    q = q[keep]
    if len(q) >= 3:
        d1, d2 = q[1:-1] - q[:-2], q[2:] - q[1:-1]
        bend = d1[:, 0] * d2[:, 1] - d1[:, 1] * d2[:, 0] != 0
        back = (d1 * d2).sum(axis=1) < 0  # a reversal on a line is kept (it is drawn)
        q = q[np.r_[True, bend | back, True]]
    return q / GRID


def _dashed(
    draw: ImageDraw.ImageDraw,
    a: tuple[float, float],
    b: tuple[float, float],
    color: str,
    width: int,
    on: float = 6,
    off: float = 4,
) -> None:
    (x0, y0), (x1, y1) = a, b
    length = float(np.hypot(x1 - x0, y1 - y0))
    if length == 0:
        return
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    pos = 0.0
    while pos < length:
        end = min(pos + on, length)
        draw.line([(x0 + ux * pos, y0 + uy * pos), (x0 + ux * end, y0 + uy * end)], fill=color, width=width)
        pos += on + off


def _densify(x: np.ndarray, y: np.ndarray, steps: int = 16) -> tuple[np.ndarray, np.ndarray]:
    """Points along each straight ROC segment, so it is drawn curved on probit axes."""
    if x.size < 2:
        return x, y
    t = np.linspace(0.0, 1.0, steps, endpoint=False)
    xs = (x[:-1, None] + (x[1:] - x[:-1])[:, None] * t).ravel()
    ys = (y[:-1, None] + (y[1:] - y[:-1])[:, None] * t).ravel()
    return np.r_[xs, x[-1]], np.r_[ys, y[-1]]


def _results(results: DetectionReport | DetectionResult | Sequence[DetectionResult]) -> list[DetectionResult]:
    if isinstance(results, DetectionReport):
        return list(results.results)
    if isinstance(results, DetectionResult):
        return [results]
    return list(results)


def _legend_label(r: DetectionResult) -> str:
    auc = r.metrics.get("AUC")
    auc_txt = "n/a" if auc is None else f"{auc:.4f}"
    name = r.label if len(r.label) <= 48 else r.label[:45] + "..."
    return f"{name}  AUC={auc_txt}  T#={r.counts.get('targets', 0)}, NT#={r.counts.get('nontargets', 0)}"


def _save(canvas: _Canvas, out_dir: str | Path, stem: str, formats: Sequence[str]) -> list[Path]:
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    for fmt in formats:
        path = out / f"{stem}.{fmt.lower()}"
        if fmt.lower() == "png":
            canvas.to_png(path)
        elif fmt.lower() == "svg":
            write_atomic(path, canvas.to_svg())
        else:
            raise ValueError(f"unsupported plot format {fmt!r}; use 'png' or 'svg'")
        paths.append(path)
    return paths


def _roc_canvas(
    results: DetectionReport | DetectionResult | Sequence[DetectionResult], title: str, size: tuple[int, int]
) -> _Canvas:
    c = _Canvas(size, (0.0, 1.0), (0.0, 1.0))
    ticks = [(v, f"{v:.1f}") for v in np.linspace(0, 1, 6)]
    c.frame(title, "False positive rate (FAR)", "True positive rate (CDR)", ticks)
    c.line([0, 1], [0, 1], "#999999", 1, dashed=True)
    legend = []
    for i, r in enumerate(_results(results)):
        color = PALETTE[i % len(PALETTE)]
        c.line(r.roc.fpr, r.roc.tpr, color)
        legend.append((_legend_label(r), color))
    c.legend(legend, "right")
    return c


def _det_canvas(
    results: DetectionReport | DetectionResult | Sequence[DetectionResult], title: str, size: tuple[int, int]
) -> _Canvas:
    lim = tuple(float(v) for v in probit(np.array(DET_LIMITS)))
    c = _Canvas(size, lim, lim)  # type: ignore[arg-type]
    ticks = [(float(probit(v)), f"{v * 100:g}%") for v in DET_TICKS]
    c.frame(title, "False alarm rate (FPR)", "Miss rate (FNR)", ticks)
    c.line(list(lim), list(lim), "#999999", 1, dashed=True)  # EER line fpr == fnr
    legend = []
    for i, r in enumerate(_results(results)):
        color = PALETTE[i % len(PALETTE)]
        fpr, fnr = _densify(r.roc.fpr, 1.0 - r.roc.tpr)
        c.line(probit(np.clip(fpr, *DET_LIMITS)), probit(np.clip(fnr, *DET_LIMITS)), color)
        legend.append((_legend_label(r), color))
    c.legend(legend, "top-right")
    return c


def roc_svg(
    results: DetectionReport | DetectionResult | Sequence[DetectionResult],
    *,
    title: str = "Detection ROC",
    size: tuple[int, int] = (800, 600),
) -> str:
    """The ROC plot as an SVG document (text), e.g. to inline into the HTML report."""
    return _roc_canvas(results, title, size).to_svg()


def det_svg(
    results: DetectionReport | DetectionResult | Sequence[DetectionResult],
    *,
    title: str = "Detection DET",
    size: tuple[int, int] = (800, 600),
) -> str:
    """The DET plot as an SVG document (text)."""
    return _det_canvas(results, title, size).to_svg()


def write_roc_plot(
    results: DetectionReport | DetectionResult | Sequence[DetectionResult],
    out_dir: str | Path,
    *,
    title: str = "Detection ROC",
    stem: str = "roc",
    formats: Sequence[str] = ("png", "svg"),
    size: tuple[int, int] = (800, 600),
) -> list[Path]:
    """ROC curves (TPR vs FPR) of every result into ``out_dir/<stem>.<fmt>``."""
    return _save(_roc_canvas(results, title, size), out_dir, stem, formats)


def write_det_plot(
    results: DetectionReport | DetectionResult | Sequence[DetectionResult],
    out_dir: str | Path,
    *,
    title: str = "Detection DET",
    stem: str = "det",
    formats: Sequence[str] = ("png", "svg"),
    size: tuple[int, int] = (800, 600),
) -> list[Path]:
    """DET curves (miss rate vs false-alarm rate on probit axes) into ``out_dir/<stem>.<fmt>``."""
    return _save(_det_canvas(results, title, size), out_dir, stem, formats)


def write_plots(
    report: DetectionReport | Sequence[DetectionResult],
    out_dir: str | Path,
    *,
    title: str = "Detection",
    kinds: Sequence[str] = ("roc", "det"),
    formats: Sequence[str] = ("png", "svg"),
) -> list[Path]:
    """ROC and/or DET plots of a report (all results on one figure per kind)."""
    paths: list[Path] = []
    for kind in kinds:
        if kind == "roc":
            paths += write_roc_plot(report, out_dir, title=f"{title} ROC", formats=formats)
        elif kind == "det":
            paths += write_det_plot(report, out_dir, title=f"{title} DET", formats=formats)
        else:
            raise ValueError(f"unknown plot kind {kind!r}; use 'roc' or 'det'")
    return paths
