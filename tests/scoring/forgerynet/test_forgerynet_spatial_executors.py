"""ForgeryNet spatial maps are decoded and counted where the mask scorer's masks are: one process, a local
pool (``--omfc-jobs``) or a dask cluster (``--omfc-dask``, shared with the mask scorer), with the same metrics.

The cluster case runs the plugin in a subprocess with a timeout, so that a regression fails fast instead
of hanging the suite; only a LocalCluster on 127.0.0.1 is started.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers.paths import REPO

from pytest_omfc.api import omfc_score

EXAMPLE = REPO / "examples" / "submissions" / "forgerynet" / "spatial" / "p-fnet_1_spatial"
REFERENCE = REPO / "examples" / "datasets" / "ForgeryNet" / "spatial_ref.csv"
HAVE_DASK = importlib.util.find_spec("distributed") is not None


def _metrics(tmp: Path, *extra: str) -> dict[str, Any]:
    out = tmp / f"m{len(list(tmp.iterdir()))}.json"
    args = [
        sys.executable,
        "-m",
        "pytest_omfc",
        "-q",
        "--omfc-submission",
        str(EXAMPLE),
        "--omfc-edition",
        "ForgeryNet",
    ]
    args += ["--omfc-task", "spatial", "--omfc-reference", str(REFERENCE), "--omfc-metrics-json", str(out), *extra]
    done = subprocess.run(args, capture_output=True, text=True, timeout=240, cwd=tmp)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    (entry,) = json.loads(out.read_text())["results"]
    return {"metrics": entry["metrics"], "per_image": entry["per_image"], "counts": entry["counts"]}


def test_a_local_pool_counts_as_one_process(tmp_path: Path) -> None:
    one = _metrics(tmp_path, "--omfc-jobs", "1")
    assert one["counts"]["scored"] == 3
    assert _metrics(tmp_path, "--omfc-jobs", "2") == one


@pytest.mark.skipif(not HAVE_DASK, reason="dask.distributed is not installed (pip install 'pytest-omfc[dask]')")
def test_a_dask_local_cluster_counts_as_one_process(tmp_path: Path) -> None:
    assert _metrics(tmp_path, "--omfc-dask", "local") == _metrics(tmp_path, "--omfc-jobs", "1")


def test_the_shared_dask_option_reaches_the_spatial_scorer_through_omfc_score() -> None:
    """``omfc_score(dask=...)`` sets the one option of both scorers that read pixels: an address where no
    scheduler listens fails the spatial result naming it, instead of being ignored."""
    if not HAVE_DASK:
        pytest.skip("dask.distributed is not installed (pip install 'pytest-omfc[dask]')")
    scores = omfc_score(
        submission=EXAMPLE, reference=REFERENCE, edition="ForgeryNet", task="spatial", dask="tcp://127.0.0.1:9"
    )
    (entry,) = scores.entries
    text = json.dumps(entry)
    assert "127.0.0.1:9" in text and "spatial scoring could not run" in text, text
