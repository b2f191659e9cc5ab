"""The HTML report (``--omfc-html``): a pure page builder (:mod:`.page`) and the mask thumbnails (:mod:`.masks`).

Layer: above the scoring engines (it reuses the mask readers, the no-score zones and the SVG plots),
below the pytest glue, which gathers the run's outcomes and calls :func:`render_page`.  No pytest import.
"""

from __future__ import annotations

from .masks import COLOURS, MaskCard, mask_cards, pick_probes, primary_metric
from .page import Plot, ReportData, RuleRow, ScoreTable, render_page, verdict

__all__ = [
    "COLOURS",
    "MaskCard",
    "Plot",
    "ReportData",
    "RuleRow",
    "ScoreTable",
    "mask_cards",
    "pick_probes",
    "primary_metric",
    "render_page",
    "verdict",
]
