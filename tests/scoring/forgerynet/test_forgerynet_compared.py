"""ForgeryNet spatial runs compared image by image (docs/scoring/comparison.md): ``_per_image`` metrics are the
images' mean, ``_pooled`` ones their pixel-weighted mean, so both decompose over images exactly."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from helpers.paths import EXAMPLES
from sklearn.metrics import balanced_accuracy_score, roc_auc_score

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


@pytest.mark.parametrize(
    ("submission", "task", "reference", "classes"),
    [
        ("image-classification/p-fnet_1_image", "image-classification", "image_cls_3way_ref.csv", "3"),
        ("video-classification/p-fnet_1_video", "video-classification", "video_cls_ref.csv", "2"),
    ],
    ids=["3-way", "2-way"],
)
def test_classification_metrics_are_rebuilt_from_the_rows(
    pytester: pytest.Pytester, submission: str, task: str, reference: str, classes: str
) -> None:
    """AUC by DeLong on the fake score, Acc and Acc_binary as balanced accuracies (scikit-learn's) of the rows
    kept in the metrics JSON: each reproduces the run's number."""
    out = pytester.path / "c.json"
    args = ["--omfc-submission", str(EXAMPLES / "submissions" / "forgerynet" / submission), "--omfc-edition"]
    args += ["ForgeryNet", "--omfc-task", task, "--omfc-classes", classes, "-p", "no:cacheprovider"]
    ref = EXAMPLES / "datasets" / "ForgeryNet" / reference
    assert pytester.runpytest(*args, "--omfc-reference", str(ref), f"--omfc-metrics-json={out}").ret == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    (entry,) = doc["results"]
    data = SCORERS["forgerynet-classification"].trials(entry, doc["options"])
    assert data is not None
    trials = entry["trials"]
    assert data.metrics["Acc"].statistic(data.metrics["Acc"].scores, data.metrics["Acc"].targets)(None) == (
        pytest.approx(entry["metrics"]["Acc"], abs=1e-12)
    )
    assert balanced_accuracy_score(trials["label"], trials["pred"]) == pytest.approx(entry["metrics"]["Acc"], abs=1e-12)
    if "Acc_binary" in entry["metrics"]:
        acc_bin = data.metrics["Acc_binary"]
        assert acc_bin.statistic(acc_bin.scores, acc_bin.targets)(None) == pytest.approx(entry["metrics"]["Acc_binary"])
        m_ap = data.metrics["mAP"]  # the mean of the one-vs-rest AUCs, as scikit-learn computes each
        probs, labels = np.asarray(trials["probs"]), np.asarray(trials["label"])
        one_vs_rest = [
            roc_auc_score(labels == c, probs[:, c])
            for c in range(probs.shape[1])
            if 0 < (labels == c).sum() < labels.size
        ]
        assert m_ap.statistic(m_ap.scores, m_ap.targets)(None) == pytest.approx(entry["metrics"]["mAP"], abs=1e-12)
        assert entry["metrics"]["mAP"] == pytest.approx(float(np.mean(one_vs_rest)), abs=1e-12)
    (result,) = omfc_compare(doc, doc, draws=100)["results"]
    assert result["comparison"]["AUC"]["test"] == "delong"
    assert result["comparison"]["AUC"]["baseline"] == entry["metrics"]["AUC"]
    assert {r["difference"] for r in result["comparison"].values()} == {0.0}


def test_temporal_ap_per_draw_is_the_ap_of_the_videos_drawn() -> None:
    """The AP a bootstrap draw gives (videos drawn with replacement, from the kept trials) equals what the scorer
    computes on a reference and results in which each drawn video appears as often as it was drawn."""
    from pytest_omfc.scoring.forgerynet.paired import temporal_trials
    from pytest_omfc.scoring.forgerynet.temporal import score_temporal
    from pytest_omfc.scoring.paired import Draws

    rng = np.random.default_rng(4)
    gt: dict[str, list[tuple[float, float]]] = {}
    pred: dict[str, list[tuple[float, float, float]]] = {}
    for v in range(12):
        starts = rng.uniform(0, 80, size=int(rng.integers(0, 3)))
        gt[f"v{v}"] = [(float(s), float(s + rng.uniform(5, 15))) for s in starts]
        guesses = rng.uniform(0, 90, size=int(rng.integers(1, 5)))
        pred[f"v{v}"] = [(float(s), float(s + rng.uniform(4, 16)), float(rng.random())) for s in guesses]
    report = score_temporal(gt, pred)
    data = temporal_trials(report.to_entry(), {})
    assert data is not None and data.keys == list(gt)
    stats = {name: m.on(np.arange(len(data.keys))) for name, m in data.metrics.items()}
    for name, stat in stats.items():  # the observed trials give the scorer's numbers
        assert stat(None) == pytest.approx(report.metrics[name], abs=1e-12), name
    positions = rng.integers(0, len(gt), size=(3, len(gt)))
    draws = Draws(positions)
    for r in range(3):
        drawn = [list(gt)[p] for p in sorted(positions[r])]
        copies = {f"{v}#{k}": v for k, v in enumerate(drawn)}
        again = score_temporal({c: gt[v] for c, v in copies.items()}, {c: pred[v] for c, v in copies.items()})
        for name, stat in stats.items():
            want = again.metrics[name]
            got = float(stat(draws)[r])
            assert (want is None and np.isnan(got)) or got == pytest.approx(want, abs=1e-12), (name, r)


def test_map_per_draw_is_the_map_of_the_rows_drawn() -> None:
    """mAP on a draw equals the mean of scikit-learn's one-vs-rest AUCs on the rows drawn (with repeats, tied
    scores included), classes without a positive or a negative row left out."""
    from pytest_omfc.scoring.forgerynet.paired import map_statistic
    from pytest_omfc.scoring.paired import Draws

    rng = np.random.default_rng(8)
    n, k = 40, 4
    labels = rng.integers(0, k, size=n)
    probs = np.round(rng.dirichlet(np.ones(k), size=n), 1)  # rounded: ties inside and across classes
    positions = rng.integers(0, n, size=(5, n))
    got = map_statistic(probs, labels)(Draws(positions))
    for r in range(5):
        y, p = labels[positions[r]], probs[positions[r]]
        want = [roc_auc_score(y == c, p[:, c]) for c in range(k) if 0 < (y == c).sum() < y.size]
        assert got[r] == pytest.approx(float(np.mean(want)), abs=1e-12)


def test_the_html_report_overlays_both_runs_real_fake_curves(pytester: pytest.Pytester) -> None:
    sub = EXAMPLES / "submissions" / "forgerynet" / "image-classification" / "p-fnet_1_image"
    args = ["--omfc-submission", str(sub), "--omfc-edition", "ForgeryNet", "--omfc-task", "image-classification"]
    args += [
        "--omfc-classes",
        "3",
        "--omfc-reference",
        str(EXAMPLES / "datasets" / "ForgeryNet" / "image_cls_3way_ref.csv"),
    ]
    args += ["-p", "no:cacheprovider"]
    base, page = pytester.path / "base.json", pytester.path / "r.html"
    assert pytester.runpytest(*args, f"--omfc-metrics-json={base}").ret == 0
    assert pytester.runpytest(*args, f"--omfc-baseline={base}", f"--omfc-html={page}").ret == 0
    text = page.read_text(encoding="utf-8")
    assert 'aria-label="real/fake compared with the baseline ROC"' in text and "real/fake ROC" in text
    assert "baseline base.json" in text and "this run p-fnet_1_image" in text
