"""ForgeryNet spatial runs compared image by image (docs/scoring/comparison.md): ``_per_image`` metrics are the
images' mean, ``_pooled`` ones their pixel-weighted mean, so both decompose over images exactly."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers.paths import EXAMPLES

from pytest_omfc import omfc_compare
from pytest_omfc.scoring.families import SCORERS
from pytest_omfc.scoring.paired import MeanOf, mean_statistic

SPATIAL = EXAMPLES / "submissions" / "forgerynet" / "spatial" / "p-fnet_1_spatial"
REFERENCE = EXAMPLES / "datasets" / "ForgeryNet" / "spatial_ref.csv"


def _run(pytester: pytest.Pytester, out: Path) -> dict:
    args = ["--omfc-submission", str(SPATIAL), "--omfc-edition", "ForgeryNet", "--omfc-task", "spatial"]
    res = pytester.runpytest(
        *args, "--omfc-reference", str(REFERENCE), f"--omfc-metrics-json={out}", "-p", "no:cacheprovider"
    )
    assert res.ret == 0
    return json.loads(out.read_text(encoding="utf-8"))


def test_every_spatial_metric_is_rebuilt_from_its_images(pytester: pytest.Pytester) -> None:
    doc = _run(pytester, pytester.path / "a.json")
    (entry,) = doc["results"]
    data = SCORERS["forgerynet-spatial"].trials(entry, doc["options"])
    assert data is not None and sorted(data.metrics) == sorted(entry["metrics"])
    for name, measure in data.metrics.items():
        assert isinstance(measure, MeanOf)
        assert mean_statistic(measure.values, measure.weights)(None) == pytest.approx(entry["metrics"][name], abs=1e-12)
    assert data.metrics["L1_pooled"].weights is not None and data.metrics["L1_per_image"].weights is None
    compared = omfc_compare(doc, doc, draws=200)
    (result,) = compared["results"]
    assert {r["difference"] for r in result["comparison"].values()} == {0.0}
