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


def test_map_headers_read_on_a_pool_are_those_read_in_one_process(tmp_path: Path, monkeypatch) -> None:
    """The FNET rules' header pass spreads a large set of maps over ``--omfc-jobs`` processes
    (HEADERS_PER_JOB); every mask and reference map is then what one process reads, unusable ones included
    (an RGB map, a truncated one, a name leaving the folder)."""
    import shutil
    from concurrent.futures import ProcessPoolExecutor

    from PIL import Image

    from pytest_omfc.editions import Task
    from pytest_omfc.forgerynet import submission as fsub
    from pytest_omfc.work import pool

    sub = tmp_path / "p-fnet_1_spatial"
    shutil.copytree(EXAMPLE, sub)
    Image.new("RGB", (4, 4)).save(sub / "masks" / "face_0002.png")
    good = (sub / "masks" / "face_0001.png").read_bytes()
    (sub / "masks" / "face_0003.png").write_bytes(good[: len(good) // 2])
    csv = sub / "p-fnet_1_spatial.csv"
    csv.write_text(csv.read_text() + "face_0004|0.5|../../outside.png\n")
    ref = REFERENCE.parent

    def read(jobs: int) -> tuple[list[Any], dict[str, Any]]:
        settings = fsub.forgerynet_settings(sub, REFERENCE, Task.FSL, 2, ref, jobs=jobs)
        built = fsub.ForgeryNetSubmission(settings)
        return built.masks, dict(built.reference.masks)

    mapped: list[int] = []

    class Spy(ProcessPoolExecutor):
        def map(self, fn, *iterables, **kw):  # type: ignore[override]
            results = list(super().map(fn, *iterables, **kw))  # a worker's failure raises: no silent fallback
            mapped.append(len(results))
            return iter(results)

    one = read(1)
    assert mapped == []
    monkeypatch.setattr(pool, "ProcessPoolExecutor", Spy)
    monkeypatch.setattr(fsub, "HEADERS_PER_JOB", 1)
    pooled = read(2)
    assert mapped == [2, 2]  # the rows' masks, then the reference maps, each on two processes
    assert pooled == one
    problems = [m.problem for m in one[0]]
    assert problems[0] is None
    assert "must be a grey (mode L, 8-bit) or 1-bit PNG (got RGB" in problems[1]
    assert "truncated" in problems[2]
    assert "must stay inside" in problems[3]
