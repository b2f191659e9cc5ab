"""The ForgeryNet scorers' views: classification, spatial and temporal localization."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import Options, View, ViewContext, fmt

if TYPE_CHECKING:
    from ..page import ReportData

__all__ = ["CLASSIFICATION", "SPATIAL", "TEMPORAL"]

_CLASS_METRICS = ("Acc", "AUC", "mAP", "Acc_binary")


def _classification_columns(opts: Options) -> list[str]:
    return ["classes", "reference", "scored", *_CLASS_METRICS]


def _classification_row(entry: dict[str, Any], opts: Options) -> list[str]:
    c = entry.get("counts") or {}
    m = entry.get("metrics") or {}
    return [str(entry.get("classes", "")), str(c.get("reference", "")), str(c.get("scored", ""))] + [
        fmt(m.get(k)) for k in _CLASS_METRICS
    ]


def _classification_footer(opts: Options, common: Options) -> str:
    return (
        f"omfc: forgerynet-classification: Acc is balanced accuracy (fake iff score >= {opts.get('threshold', 0.5):g}; "
        "k-way: argmax, first index on ties); mAP is the mean one-vs-rest ROC AUC (the paper's AP)"
    )


_SPATIAL_SHOWN = ("IoU_agree@0.2", "L1")


def _spatial_columns(opts: Options) -> list[str]:
    return ["reference", "scored", *(f"{m} {s}" for m in _SPATIAL_SHOWN for s in ("img", "pool"))]


def _spatial_row(entry: dict[str, Any], opts: Options) -> list[str]:
    c = entry.get("counts") or {}
    m = entry.get("metrics") or {}
    return [str(c.get("reference", "")), str(c.get("scored", ""))] + [
        fmt(m.get(f"{name}_{s}")) for name in _SPATIAL_SHOWN for s in ("per_image", "pooled")
    ]


_TEMPORAL_SHOWN = ("AP@0.50", "AP@0.75", "AP@0.95", "AP_avg", "AR@1", "AR@2", "AR@5", "AR@10")


def _temporal_columns(opts: Options) -> list[str]:
    return ["videos", "GT segs", *_TEMPORAL_SHOWN]


def _temporal_row(entry: dict[str, Any], opts: Options) -> list[str]:
    c = entry.get("counts") or {}
    m = entry.get("metrics") or {}
    return [str(c.get("videos", "")), str(c.get("ground_truth_segments", ""))] + [
        fmt(m.get(k)) for k in _TEMPORAL_SHOWN
    ]


def _curve(entry: dict[str, Any], name: str) -> Any:
    """The real/fake ROC of a classification result from its kept rows (fake score, label), as a detection result
    named ``name`` for the plots; None without rows or without both classes."""
    from dataclasses import replace

    from ...scoring.detection import score_trials

    trials = entry.get("trials")
    if entry.get("metrics") is None or not isinstance(trials, dict) or not trials.get("fake"):
        return None
    fake = [float(v) for v in trials["fake"]]
    is_fake = [int(v) != 0 for v in trials["label"]]
    if all(is_fake) or not any(is_fake):
        return None
    return replace(score_trials(fake, is_fake, strict=False), query=name, query_kind="all")


def _plots(data: ReportData, curves: list[Any], title: str) -> None:
    from ..page import Plot
    from ..plots import det_svg, roc_svg

    size = (640, 480)
    data.plots += [
        Plot(f"{title} ROC", roc_svg(curves, title=f"{title} ROC", size=size)),
        Plot(f"{title} DET", det_svg(curves, title=f"{title} DET", size=size)),
    ]


def classification_plots(data: ReportData, entries: list[dict[str, Any]], ctx: ViewContext) -> None:
    """The real/fake ROC and DET of the classification result (the binary AUC's curve)."""
    curves = [c for e in entries if (c := _curve(e, "real/fake")) is not None]
    if curves:
        _plots(data, curves, f"{ctx.title} real/fake")


def classification_compared(
    data: ReportData, pairs: list[tuple[dict[str, Any], dict[str, Any]]], names: tuple[str, str]
) -> None:
    """The baseline's and this run's real/fake curves on one ROC and one DET."""
    for base, entry in pairs[:1]:
        curves = [_curve(base, names[0]), _curve(entry, names[1])]
        if all(c is not None for c in curves):
            _plots(data, curves, "real/fake compared with the baseline")


CLASSIFICATION = View(
    json_options=lambda opts, common: {"forgerynet": {"threshold": opts.get("threshold", 0.5)}},
    columns=_classification_columns,
    row=_classification_row,
    footer=_classification_footer,
    html=classification_plots,
    compared=classification_compared,
)
SPATIAL = View(
    columns=_spatial_columns,
    row=_spatial_row,
    footer=lambda opts, common: (
        "omfc: forgerynet-spatial: img = mean over images, pool = over all pixels; IoU_agree@t "
        "= 1 - IoU@t (pixel agreement, not an intersection over union); every metric is in the JSON"
    ),
)
TEMPORAL = View(
    columns=_temporal_columns,
    row=_temporal_row,
    footer=lambda opts, common: (
        "omfc: forgerynet-temporal: ActivityNet interpolated AP at tIoU 0.50..0.95 and AR@K with K "
        "proposals per video on average (max_avg_nr_proposals=100); top 10 predictions per video"
    ),
)
