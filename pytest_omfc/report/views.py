"""What the HTML report shows for a scorer beyond its summary table: one view per scorer, as data.

The report's builder (:mod:`pytest_omfc.pytest_glue.html`) iterates over the run's scorers, adds each one's
table, then calls the scorer's view from :data:`VIEWS`, if it has one; it never branches on a scorer's
name.  A view adds to :class:`~.page.ReportData` (plots, mask cards, a note).  No pytest import.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .masks import mask_cards, pick_probes, primary_metric
from .page import Plot, ReportData

__all__ = ["VIEWS", "View", "ViewContext", "detection_plots", "mask_thumbnails"]


@dataclass(frozen=True)
class ViewContext:
    """What a view may need besides the scorer's entries."""

    title: str  # "<submission> (<edition> <task>)"
    options: Mapping[str, Any]  # the scorer's options
    ref_root: Path | None  # reference masks are resolved inside it
    sys_root: Path  # system masks are resolved inside it
    masks: int  # --omfc-html-masks: thumbnails per side (0: none)


#: ``view(data, entries, context)``: adds the scorer's extra sections to ``data``.
View = Callable[[ReportData, list[dict[str, Any]], ViewContext], None]


def detection_plots(data: ReportData, entries: list[dict[str, Any]], ctx: ViewContext) -> None:
    """ROC and DET of the scored detection results, as inline SVG."""
    from ..scoring.plots import det_svg, roc_svg
    from ..scoring.scorers import detection_result

    scored = [detection_result(e) for e in entries if e.get("metrics") is not None and e.get("roc")]
    if not scored:
        return
    size = (640, 480)
    data.plots += [
        Plot(f"{ctx.title} ROC", roc_svg(scored, title=f"{ctx.title} ROC", size=size)),
        Plot(f"{ctx.title} DET", det_svg(scored, title=f"{ctx.title} DET", size=size)),
    ]


def mask_thumbnails(data: ReportData, entries: list[dict[str, Any]], ctx: ViewContext) -> None:
    """The worst and best probes of the first result by their primary metric, with overlays."""
    rows = next((e["per_probe"] for e in entries if e.get("per_probe")), None)
    if not rows:
        data.mask_note = "No probe was scored: no thumbnails."
        return
    if ctx.masks == 0:
        data.mask_note = "Thumbnails are off (--omfc-html-masks 0)."
        return
    worst, best = pick_probes(rows, ctx.masks)
    bitplane = entries[0].get("reference_column") == "ProbeBitPlaneMaskFileName"  # the engine's choice
    data.worst, data.best = (
        mask_cards(chosen, ref_root=ctx.ref_root, sys_root=ctx.sys_root, options=ctx.options, bitplane=bitplane)
        for chosen in (worst, best)
    )
    first = entries[0].get("query")
    scope = "all trials" if first is None else f"the first query ({first})"
    scored = sum(1 for r in rows if isinstance(r.get(primary_metric(rows)), (int, float)))
    data.mask_note = (
        f"The {len(worst)} worst and {len(best)} best of the {scored} scored probes of {scope} "
        f"by the scorer's per-probe {primary_metric(rows)}; each probe is shown once."
    )


#: The scorers' extra sections, by scorer name; a scorer without one shows its table only.
VIEWS: dict[str, View] = {"detection": detection_plots, "mask": mask_thumbnails}
