"""The HTML report (``--omfc-html``): a pure page builder (:mod:`.page`) and the mask thumbnails (:mod:`.masks`).

Layer: above the scoring engines (it reuses the mask family's readers and no-score zones), below the
pytest glue, which gathers the run's outcomes and calls :func:`render_page`.  Each scorer's table, header,
extra outputs and HTML sections are its view (:mod:`.views`).  No pytest import.
"""

from __future__ import annotations

from ..lazy import lazy_exports

#: Public name -> the module that defines it (imported on first use: the views are read at plugin load,
#: the page and the thumbnails only when a report is written).
_EXPORTS: dict[str, str] = {
    **dict.fromkeys(("COLOURS", "MaskCard", "mask_cards", "pick_probes", "primary_metric"), "masks"),
    **dict.fromkeys(
        ("Plot", "ReportData", "RuleRow", "ScoreTable", "expid_verdicts", "render_page", "verdict"), "page"
    ),
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
