"""Each scorer's presentation is its view (report/views/): one number format, one row builder, no engine."""

from __future__ import annotations

import math

from pytest_omfc.report.views import VIEWS, fmt, summary_rows, view_for
from pytest_omfc.scoring import families  # noqa: F401  (registers the scorers)
from pytest_omfc.scoring.registry import SCORERS


def test_one_spelling_for_an_undefined_metric() -> None:
    """Undefined reads NaN in every table (as MediScore prints it); ``-`` is kept for a result not scored."""
    assert [fmt(None), fmt(math.nan), fmt(0.5), fmt(1)] == ["NaN", "NaN", "0.5000", "1.0000"]
    entry = {"scorer": "provenance-graph", "metrics": {"MeanSimNLO": None}, "counts": {"trials": 2}}
    assert view_for("provenance").row(entry, {}) == ["graph", "2", "NaN", "NaN", "NaN", "NaN"]
    fnet = {"metrics": {"Acc": None}, "counts": {"reference": 3, "scored": 0}, "classes": 2}
    assert view_for("forgerynet-classification").row(fnet, {})[-4:] == ["NaN"] * 4
    rows, notes, _ = summary_rows(view_for("temporal"), [(0, {"metrics": None, "skipped": "why"})], {})
    assert rows == [("all", "-", "-", "-", "-", "-")] and notes == ["all not scored: why"]


def test_every_built_in_scorer_has_its_view() -> None:
    assert set(VIEWS) == set(SCORERS)
    assert all(view_for(name) is VIEWS[name] for name in SCORERS)


def test_a_scorer_without_a_view_shows_its_first_metrics() -> None:
    view = view_for("unknown", ("A", "B", "C", "D", "E", "F", "G"))
    assert view.columns({}) == ["A", "B", "C", "D", "E", "F"]
    assert view.row({"metrics": {"A": 0.25}}, {}) == ["0.2500"] + ["NaN"] * 5
