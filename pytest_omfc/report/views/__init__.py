"""Every scorer's view, by scorer name (:mod:`.base` says what a view is); a scorer without one gets
:func:`~.base.generic_view`.  Light: imported at plugin load for the header lines."""

from __future__ import annotations

from collections.abc import Sequence

from . import detection, forgerynet, mask, provenance, temporal
from .base import HtmlSection, View, ViewContext, fmt, generic_view, summary_rows

__all__ = ["VIEWS", "HtmlSection", "View", "ViewContext", "fmt", "generic_view", "summary_rows", "view_for"]

#: The scorers' views by scorer name.
VIEWS: dict[str, View] = {
    "detection": detection.DETECTION,
    "mask": mask.MASK,
    "provenance": provenance.PROVENANCE,
    "temporal": temporal.TEMPORAL,
    "forgerynet-classification": forgerynet.CLASSIFICATION,
    "forgerynet-spatial": forgerynet.SPATIAL,
    "forgerynet-temporal": forgerynet.TEMPORAL,
}


def view_for(name: str, metrics: Sequence[str] = ()) -> View:
    """The view of the scorer ``name``; :func:`generic_view` of its ``metrics`` when it has none."""
    return VIEWS.get(name) or generic_view(metrics)
