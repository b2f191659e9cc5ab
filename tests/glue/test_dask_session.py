"""A check with ``--omfc-dask`` opens one dask connection, shared by MASK-04 and the scorers, and closes it.

A real LocalCluster (two worker processes on 127.0.0.1) and a real check in a pytest subprocess: an
OpenMFC IMDL submission with a reference, MASK-04 worth the cluster (``SCANS_PER_JOB = 1`` in a small ``-p``
module, as tests/rules/test_mask_cluster.py does) and the mask scorer.  The module counts
the connections opened (``executors._open``), the tasks each executor sends, and checks at the very end
of the process that the session was closed; the metrics are those of the same check without dask.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from helpers.mask_scoring import NOKERN, REF, SHIFTED, MaskCase

from pytest_omfc.work.executors import DASK_INSTALL

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("distributed") is None, reason=f"dask.distributed is not installed ({DASK_INSTALL})"
)

SPY = """\
import atexit
import os

from pytest_omfc.rules import mask
from pytest_omfc.work import executors

mask.SCANS_PER_JOB = 1  # every mask of the case is its own MASK-04 task
opened, tasks = [], []
_open, _dask_map, _submit = executors._open, executors.Executor._dask_map, executors.Executor.submit


def counting_open(dask, workers, timeout):
    opened.append((dask, workers))
    return _open(dask, workers, timeout)


def counting_map(self, fn, items, window):
    items = list(items)
    tasks.append(f"map: {len(items)} tasks")
    yield from _dask_map(self, fn, items, window)


def counting_submit(self, fn, item):
    if self.dask is not None:
        tasks.append(f"submit: {len(item)} masks")
    return _submit(self, fn, item)


executors._open, executors.Executor._dask_map, executors.Executor.submit = counting_open, counting_map, counting_submit


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(f"dask opened: {opened}; tasks: {tasks}")


@atexit.register
def closed():
    os.write(1, f"session left open: {executors._SESSION is not None}\\n".encode())
"""


def _metrics(path: Path) -> Any:
    """The metrics JSON without its run stamp (time, command line: what differs between two runs)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    data.pop("run")
    return data


def test_one_local_cluster_serves_mask04_and_the_scorer_and_is_closed(
    omfc: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT"):  # this suite's xdist worker's
        monkeypatch.delenv(name, raising=False)
    c = MaskCase(omfc, {"0001": REF, "0002": SHIFTED, "0003": REF})
    omfc.write("dask_spy.py", SPY)
    out = omfc.root / "out"
    runs = {}
    for label, extra in (("here", ()), ("dask", ("--omfc-dask", "local"))):
        res = c.case.pytester.runpytest_subprocess(
            *c.case.args,
            "-p",
            "no:cacheprovider",
            "-p",
            "dask_spy",
            "--omfc-reference",
            str(c.reference),
            "--omfc-jobs",
            "2",
            "--omfc-metrics-json",
            str(out / f"{label}.json"),
            *NOKERN,
            *extra,
            timeout=180,
        )
        text = res.stdout.str()
        assert res.ret == 0, text[-3000:]
        assert "session left open: False" in text, text[-3000:]
        runs[label] = text
    assert "dask opened: []; tasks: []" in runs["here"]
    # one LocalCluster of --omfc-jobs workers; MASK-04 sent its 3 masks as the header pass found them (one chunk
    # of headers: one task), the scorer its 3 masks (together far less than a task's pixels: one task)
    want = "dask opened: [('local', 2)]; tasks: ['submit: 3 masks', 'map: 1 tasks']"
    assert want in runs["dask"], runs["dask"][-3000:]
    assert _metrics(out / "dask.json") == _metrics(out / "here.json")


def test_the_connection_is_set_up_ahead_only_for_a_check_that_sends_masks_to_the_cluster(
    omfc: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scored check of a mask task starts the connection at configure time; a check whose task sends nothing
    to the cluster (video manipulation: detection and temporal scores) never opens one, and both end with no
    session left (in-process runs; ``_open`` is counted, not run)."""
    from helpers.temporal import VideoCase

    from pytest_omfc.work import executors

    opened: list[str] = []

    def fake_open(dask: str, workers: int, timeout: float) -> Any:
        opened.append(dask)
        return executors._Connection(None, distributed=None)

    monkeypatch.setattr(executors, "_open", fake_open)
    video = VideoCase(omfc)
    res = video.run("--omfc-dask", "local")
    assert res.ret == 0 and opened == [] and executors._SESSION is None
    c = MaskCase(omfc, {"0001": REF})
    args = ["-p", "no:cacheprovider", "--omfc-reference", str(c.reference), "--omfc-dask", "local", "-k", "CSV"]
    res = c.case.pytester.runpytest(*c.case.args, *args)  # what uses the cluster deselected: set up ahead anyway
    assert res.ret == 0 and opened == ["local"] and executors._SESSION is None
