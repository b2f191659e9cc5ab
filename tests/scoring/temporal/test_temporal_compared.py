"""Temporal localization runs compared trial by trial (docs/scoring/comparison.md): the MCC is the mean of the
per-probe MCCs over the probes scored, so the paired bootstrap's difference is the difference of those means."""

from __future__ import annotations

import shutil
from typing import Any

import pytest
from helpers.temporal import VideoCase


def test_a_temporal_run_compared_with_a_better_one(omfc: Any) -> None:
    case = VideoCase(omfc)
    _, base_doc = case.json()
    base = case.root / "baseline.json"
    shutil.copy(case.root / "out" / "metrics.json", base)
    _, same = case.json("--omfc-baseline", str(base))
    (entry,) = same["results"]
    assert entry["comparison"]["MCC"]["difference"] == 0.0 and entry["comparison"]["MCC"]["p_value"] == 1.0
    better = VideoCase(omfc, sys_rows={"v1": ["Processed", "[[21, 41], [61, 81]]", "[]", "[]"]})
    _, doc = better.json("--omfc-baseline", str(base))
    (entry,) = doc["results"]
    mcc = entry["comparison"]["MCC"]
    per_probe = {t["ProbeFileID"]: t["MCC"] for t in entry["per_trial"]}
    base_probe = {t["ProbeFileID"]: t["MCC"] for t in base_doc["results"][0]["per_trial"]}
    assert mcc["test"] == "paired-bootstrap" and mcc["trials"] == 2
    assert mcc["difference"] == pytest.approx(sum(per_probe.values()) / 2 - sum(base_probe.values()) / 2)
    assert mcc["difference"] > 0 and (mcc["baseline"], mcc["value"]) == (
        base_doc["results"][0]["metrics"]["MCC"],
        entry["metrics"]["MCC"],
    )
