"""``--omfc-ci``: every metric that is an average over trials gets an interval (docs/scoring/comparison.md), in the
metrics JSON (``intervals``), the JUnit properties (``<metric>.ci_low``/``.ci_high``) and the terminal; a metric
without a trial unit says why it has none."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from helpers.detection import TRIALS, make


def _delong_interval(y: np.ndarray, s: np.ndarray, level: float) -> tuple[float, float]:
    """The AUC's interval from DeLong's variance, written from the definitions (O(m n))."""
    x, z = s[y], s[~y]
    psi = (x[:, None] > z[None, :]) + 0.5 * (x[:, None] == z[None, :])
    auc = psi.mean()
    var = psi.mean(axis=1).var(ddof=1) / x.size + psi.mean(axis=0).var(ddof=1) / z.size
    q = {0.9: 1.6448536269514722, 0.95: 1.959963984540054}[level]
    return max(0.0, auc - q * math.sqrt(var)), min(1.0, auc + q * math.sqrt(var))


def test_every_average_gets_an_interval_and_the_rest_say_why(omfc: Any) -> None:
    s = make(omfc)
    doc = s.json("--omfc-ci", "--omfc-ci-level", "0.95", "--omfc-ci-iterations", "300")
    (entry,) = doc["results"]
    iv = entry["intervals"]
    y = np.array([t == "Y" for _, t, _, _ in TRIALS])
    scores = np.array([sc for _, _, sc, _ in TRIALS])
    assert (iv["AUC"]["ci_low"], iv["AUC"]["ci_high"]) == pytest.approx(_delong_interval(y, scores, 0.95), abs=1e-12)
    assert iv["AUC"]["method"] == "delong" and iv["AUC"]["trials"] == len(TRIALS)
    assert iv["EER"]["method"] == "bootstrap" and iv["EER"]["ci_low"] <= entry["metrics"]["EER"] <= iv["EER"]["ci_high"]
    assert iv["TRR"]["ci_low"] is None and iv["TRR"]["why"].startswith("no per-trial values of it")
    assert not any("CI_" in name for name in iv)  # MediScore's own interval columns are not given intervals


def test_intervals_reach_junit_and_the_terminal(omfc: Any, pytester: pytest.Pytester) -> None:
    s = make(omfc)
    res = s.run("--omfc-ci")
    props = dict(res.props["detection"])
    assert props["AUC.ci_low"] <= props["AUC"] <= props["AUC.ci_high"]
    out = pytester.runpytest(*s.args("--omfc-ci"))
    out.stdout.fnmatch_lines(
        [
            "omfc detection intervals*",
            "*metric*value*interval*method*n*",
            "*all*AUC*0.8125*DeLong*8*",
            "omfc: 90% intervals over trials: DeLong's for an AUC, else the percentile bootstrap (500 draws, seed 77)",
            "  all: TRR, FAR_STOP: no per-trial values of it in the result*",
        ]
    )


def test_without_the_switch_there_are_none(omfc: Any) -> None:
    (entry,) = make(omfc).json()["results"]
    assert "intervals" not in entry


@pytest.mark.parametrize(
    ("args", "scorer"),
    [
        (["--omfc-submission", "submissions/imdl/p-baseline_3_imdl", "--omfc-index",
          "datasets/OpenMFC2020/indexes/OpenMFC20_Image-IMDL-index.csv", "--omfc-reference",
          "reference/IMDL/OpenMFC20_Image-IMDL-ref.csv"], "mask"),
        (["--omfc-submission", "submissions/forgerynet/spatial/p-fnet_1_spatial", "--omfc-edition", "ForgeryNet",
          "--omfc-task", "spatial", "--omfc-reference", "datasets/ForgeryNet/spatial_ref.csv"], "forgerynet-spatial"),
        (["--omfc-submission", "submissions/forgerynet/temporal/p-fnet_1_temporal", "--omfc-edition", "ForgeryNet",
          "--omfc-task", "temporal", "--omfc-reference", "datasets/ForgeryNet/temporal_gt.json"],
         "forgerynet-temporal"),
        (["--omfc-submission", "submissions/forgerynet/image-classification/p-fnet_1_image", "--omfc-edition",
          "ForgeryNet", "--omfc-task", "image-classification", "--omfc-classes", "3", "--omfc-reference",
          "datasets/ForgeryNet/image_cls_3way_ref.csv"], "forgerynet-classification"),
    ],
    ids=["mask", "forgerynet-spatial", "forgerynet-temporal", "forgerynet-classification"],
)  # fmt: skip
def test_each_family_gives_its_averages_intervals(pytester: pytest.Pytester, args: list[str], scorer: str) -> None:
    """The bundled examples with --omfc-ci: every metric with a trial unit has an interval holding its value."""
    from helpers.paths import EXAMPLES

    given = [str(EXAMPLES / a) if a.startswith(("submissions/", "datasets/")) else a for a in args]
    out = pytester.path / "m.json"
    res = pytester.runpytest(*given, "--omfc-ci", f"--omfc-metrics-json={out}", "-p", "no:cacheprovider")
    assert res.ret == 0, res.stdout.lines[-20:]
    import json

    (entry,) = [r for r in json.loads(out.read_text(encoding="utf-8"))["results"] if r["scorer"] == scorer]
    with_interval = {m: iv for m, iv in entry["intervals"].items() if iv["ci_low"] is not None}
    assert with_interval, entry["intervals"]
    for metric, iv in with_interval.items():
        assert iv["ci_low"] - 1e-12 <= entry["metrics"][metric] <= iv["ci_high"] + 1e-12, (metric, iv)
