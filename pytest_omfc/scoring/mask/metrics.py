"""The per-threshold metrics of a mask, declared once (no numpy: the plugin reads the names at load time).

A metric is a :class:`~.engine.ThresholdTable` method that gives it for every threshold row, and a
:class:`PerThreshold` line in :data:`PER_THRESHOLD`.  The per-image table's ``Optimum<name>``,
``Maximum<name>`` and ``Actual<name>`` columns, the aggregate's means, the metrics JSON and the names a gate
may use all derive from that tuple.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PER_THRESHOLD", "PerThreshold", "added_metrics", "mean_columns", "mediscore_metrics"]


@dataclass(frozen=True)
class PerThreshold:
    """A metric of one mask at each threshold: its column name (``Optimum<name>``, ``Maximum<name>``,
    ``Actual<name>`` in the per-image table, the means of those in the aggregate and the metrics JSON) and
    the :class:`~.engine.ThresholdTable` method giving it for every threshold row.  MediScore's own metrics come
    first, in its column order; this project's additions follow them in every table."""

    name: str
    method: str
    mediscore: bool = False


#: The per-threshold metrics, declared once: the per-image row, the aggregate's means, the Maximum columns and
#: the scorer's metric names derive from this tuple.  Adding one is a ThresholdTable method and one line here
#: (CONTRIBUTING, "How to add a per-threshold mask metric").
PER_THRESHOLD: tuple[PerThreshold, ...] = (
    PerThreshold("NMM", "nmm", mediscore=True),
    PerThreshold("MCC", "mcc", mediscore=True),
    PerThreshold("BWL1", "bwl1", mediscore=True),
    PerThreshold("F1", "f1"),
    PerThreshold("IoU", "iou"),
)


def mediscore_metrics() -> tuple[str, ...]:
    """The names of MediScore's per-threshold metrics, in its column order."""
    return tuple(m.name for m in PER_THRESHOLD if m.mediscore)


def added_metrics() -> tuple[str, ...]:
    """The names of this project's per-threshold metrics, after MediScore's in every table."""
    return tuple(m.name for m in PER_THRESHOLD if not m.mediscore)


def mean_columns() -> tuple[str, ...]:
    """The per-mask columns averaged in the aggregate (without the side prefix), in MediScore's order:
    OptimumThreshold, its Optimum metrics, GWL1, AUC, EER, its Maximum and Actual metrics; then this
    project's additions (:data:`PER_THRESHOLD`), Optimum, Maximum and Actual."""
    ours = added_metrics()
    return (
        "OptimumThreshold",
        *(f"Optimum{m}" for m in mediscore_metrics()),
        "GWL1",
        "AUC",
        "EER",
        *(f"{kind}{m}" for kind in ("Maximum", "Actual") for m in mediscore_metrics()),
        *(f"{kind}{m}" for kind in ("Optimum", "Maximum", "Actual") for m in ours),
    )
