"""CONTRIBUTING.md's "How to add a per-threshold mask metric" works as written: its two blocks, applied to a copy
of the package, give every table the new metric (per-image Optimum, Maximum and Actual columns, the aggregate's
mean, the scorer's metric names) with the hand-computed value, and touch at most three source files."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
from helpers.mask_scoring import IDX_HEADER, OUT_HEADER, REF, REF_HEADER, SHIFTED, png_bytes
from helpers.paths import REPO
from helpers.runs import psv

import pytest_omfc

CONTRIBUTING = REPO / "CONTRIBUTING.md"
#: where each block goes in its file: before this line (the method among ThresholdTable's, the line at the end
#: of PER_THRESHOLD)
ANCHORS = {
    "pytest_omfc/scoring/mask/engine.py": "    def tpr(self) -> NDArray[np.float64]:\n",
    "pytest_omfc/scoring/mask/metrics.py": ")\n\n\ndef mediscore_metrics()",
}

SCRIPT = """
import json, sys
from pytest_omfc.scoring.mask.run import score_masks
from pytest_omfc.scoring.mask.adapter import MASK_METRICS
root = sys.argv[1]
rep = score_masks(root + "/index.csv", root + "/ref.csv", root + "/sub/sub.csv", ref_dir=root, eks=0, dks=0, ntdks=0,
                  sbin=128)
row = rep.runs[0].perimage.iloc[0]
print(json.dumps({
    "columns": [c for c in rep.runs[0].perimage.columns if "Precision" in c],
    "row": {c: row[c] for c in ("OptimumPrecision", "MaximumPrecision", "ActualPrecision")},
    "aggregate": {k: v for k, v in rep.results[0].aggregate.items() if "Precision" in k},
    "names": [m for m in MASK_METRICS if "Precision" in m],
}))
"""


def _blocks() -> dict[str, str]:
    text = CONTRIBUTING.read_text(encoding="utf-8")
    start = text.index("## How to add a per-threshold mask metric")
    section = text[start : text.index("\n## ", start)]
    out = {}
    for code in re.findall(r"```python\n(.*?)```", section, re.S):
        first, _, body = code.partition("\n")
        m = re.match(r"# (pytest_omfc/\S+\.py)", first)
        assert m, first
        out[m.group(1)] = body
    return out


def test_the_precision_recipe_adds_the_metric_everywhere(tmp_path: Path) -> None:
    blocks = _blocks()
    assert set(blocks) == set(ANCHORS) and len(blocks) <= 3
    package = Path(pytest_omfc.__file__).resolve().parent
    shutil.copytree(package, tmp_path / "pkg" / "pytest_omfc", ignore=shutil.ignore_patterns("__pycache__"))
    for rel, body in blocks.items():
        path = tmp_path / "pkg" / rel
        text = path.read_text(encoding="utf-8")
        assert text.count(ANCHORS[rel]) == 1, rel
        path.write_text(text.replace(ANCHORS[rel], body + ("\n" if rel.endswith("engine.py") else "") + ANCHORS[rel]))
    data = tmp_path / "data"
    (data / "sub" / "mask").mkdir(parents=True)
    (data / "reference").mkdir()
    (data / "reference" / "0001.png").write_bytes(png_bytes(REF))
    (data / "sub" / "mask" / "0001.png").write_bytes(png_bytes(SHIFTED))
    (data / "index.csv").write_text(psv(IDX_HEADER, [["IMDL", "0001", "probe/0001.jpg", 16, 16]]))
    (data / "ref.csv").write_text(psv(REF_HEADER, [["IMDL", "0001", "probe/0001.jpg", "Y", "reference/0001.png", "A"]]))
    (data / "sub" / "sub.csv").write_text(psv(OUT_HEADER, [["0001", 0.9, "mask/0001.png", "Processed", ""]]))
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "pkg")}
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(data)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
        cwd=tmp_path,  # not the checkout: "python -c" puts the working directory first on sys.path
    )
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout)
    # the black 8x8 squares overlap on 6x6 = 36 of the 64 pixels the system calls manipulated (thresholds 0..254)
    want = 36 / 64
    assert got["columns"] == ["OptimumPrecision", "ActualPrecision", "MaximumPrecision"]
    assert all(np.isclose(v, want) for v in got["row"].values()), got["row"]
    assert {k: round(v, 12) for k, v in got["aggregate"].items()} == {
        f"{kind}Precision": round(want, 12) for kind in ("Optimum", "Maximum", "Actual")
    }
    assert got["names"] == ["OptimumPrecision", "MaximumPrecision", "ActualPrecision"] + [
        f"{side}{kind}Precision" for side in ("p", "d") for kind in ("Optimum", "Maximum", "Actual")
    ]
