"""``omfc_score()`` for the ForgeryNet tasks (issue 12 x issue 13): no index, same numbers as the plugin."""

from __future__ import annotations

import json

import pytest
from helpers.paths import REPO

from pytest_omfc.api import omfc_score

EXAMPLES = REPO / "examples"
TEMPORAL = EXAMPLES / "submissions/forgerynet/temporal/p-fnet_1_temporal"
GT = EXAMPLES / "datasets/ForgeryNet/temporal_gt.json"
IMAGE = EXAMPLES / "submissions/forgerynet/image-classification/p-fnet_1_image"
IMAGE_REF = EXAMPLES / "datasets/ForgeryNet/image_cls_3way_ref.csv"


def test_temporal_numbers_equal_the_plugins_metrics_json(pytester: pytest.Pytester) -> None:
    out = pytester.path / "m.json"
    res = pytester.runpytest(
        "-p",
        "no:cacheprovider",
        f"--omfc-submission={TEMPORAL}",
        "--omfc-edition=ForgeryNet",
        "--omfc-task=temporal",
        f"--omfc-reference={GT}",
        f"--omfc-metrics-json={out}",
    )
    assert res.ret == 0
    entry = next(e for e in json.loads(out.read_text())["results"] if e["scorer"] == "forgerynet-temporal")
    got = omfc_score(submission=TEMPORAL, reference=GT, edition="ForgeryNet", task="temporal").forgerynet_temporal[
        "all"
    ]  # the one result
    for name in ("AP@0.50", "AP@0.75", "AP_avg", "AR@1", "AR@10"):
        assert got[name] == entry["metrics"][name], name
    assert 0 < got.AP_avg < 1


def test_classification_takes_classes_and_threshold() -> None:
    at_half = omfc_score(
        submission=IMAGE, reference=IMAGE_REF, edition="ForgeryNet", task="image-classification", classes=3
    )
    strict = omfc_score(
        submission=IMAGE,
        reference=IMAGE_REF,
        edition="ForgeryNet",
        task="image-classification",
        classes=3,
        threshold=1.0,
    )
    assert 0 <= at_half.forgerynet_classification.Acc_binary <= 1
    # only Acc_binary depends on the threshold; argmax Acc, mAP and AUC do not
    assert strict.forgerynet_classification.Acc == at_half.forgerynet_classification.Acc
    assert strict.forgerynet_classification.AUC == at_half.forgerynet_classification.AUC


@pytest.mark.parametrize(
    ("kwargs", "error", "text"),
    [
        ({"index": IMAGE_REF}, ValueError, "ForgeryNet takes no index"),
        ({"classes": 5}, ValueError, "classes: must be 2, 3 or 16"),
        ({"task": "IMDL"}, ValueError, "task: task IMG is not offered in ForgeryNet"),
        ({"threshold": 2}, ValueError, "threshold"),
        ({"nonsense": 1}, TypeError, "unknown option 'nonsense'"),
    ],
)
def test_bad_arguments_name_what_to_fix(kwargs: dict, error: type[Exception], text: str) -> None:
    args = {
        "submission": IMAGE,
        "reference": IMAGE_REF,
        "edition": "ForgeryNet",
        "task": "image-classification",
    } | kwargs
    with pytest.raises(error, match=text):
        omfc_score(**args)


def test_nist_still_needs_an_index() -> None:
    with pytest.raises(TypeError, match="needs index="):
        omfc_score(submission=IMAGE, reference=IMAGE_REF)


def test_a_query_is_refused_but_a_lone_star_means_all(pytester: pytest.Pytester) -> None:
    """ForgeryNet has no index rows to select: a query fails its item; "*" (MediScore's "all") is no selection."""
    base = [
        "-p",
        "no:cacheprovider",
        "-rA",
        f"--omfc-submission={TEMPORAL}",
        "--omfc-edition=ForgeryNet",
        "--omfc-task=temporal",
        f"--omfc-reference={GT}",
    ]
    res = pytester.runpytest(*base, "--omfc-query", "Label=='x'")
    assert res.ret == 1
    res.stdout.fnmatch_lines(["*forgerynet-temporal*ForgeryNet scoring takes no --omfc-query*"])
    out = pytester.path / "m.json"
    res = pytester.runpytest(*base, "--omfc-query", "*", f"--omfc-metrics-json={out}")
    assert res.ret == 0
    entry = next(e for e in json.loads(out.read_text())["results"] if e["scorer"] == "forgerynet-temporal")
    plain = omfc_score(submission=TEMPORAL, reference=GT, edition="ForgeryNet", task="temporal").forgerynet_temporal[
        "all"
    ]
    assert entry["metrics"]["AP_avg"] == plain.AP_avg
