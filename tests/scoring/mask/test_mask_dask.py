"""Mask scoring on dask.distributed (the executor behind it: tests/work/test_executors.py).

* A real LocalCluster of two worker processes scores a multi-probe case (good, bad and missing masks,
  a repeated mask pair, ``sbin`` for Maximum/Actual, two ``-q`` queries) and gives exactly the local
  run's per-probe table, aggregates, stddevs and reasons, in the same order.
* A scheduler address where nothing listens (a closed port on 127.0.0.1) and a scheduler without
  workers fail fast with a ScoringError naming the address.
* Without dask importable, ``dask=...`` says in one line what to install.

Cluster cases run in a subprocess with a timeout (and an address-space cap where dask allows one), so
that a regression fails fast instead of hanging the suite.  Only 127.0.0.1 is ever contacted.
"""

from __future__ import annotations

import importlib.util
import pickle
import resource
import socket
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from helpers.mask_files import REF, Data, png_header_only
from helpers.paths import REPO

from pytest_omfc.scoring.merge import ScoringError
from pytest_omfc.work.executors import DASK_INSTALL

ROOT = REPO
HAVE_DASK = importlib.util.find_spec("distributed") is not None
needs_dask = pytest.mark.skipif(not HAVE_DASK, reason=f"dask.distributed is not installed ({DASK_INSTALL})")
#: address-space cap of a child (and of the cluster processes it starts, which inherit it)
CAP = 2_000_000_000
OPTIONS: dict[str, Any] = {"sbin": 128, "query": ["ConfidenceScore > 0.5", "ConfidenceScore <= 0.5"]}


def multi_probe_case(root: Path) -> Data:
    """Seven probes: k false positives for k = 0..3, a grey mask, a non-PNG, a missing mask, a bomb header."""
    d = Data(root)
    for k in range(4):
        sysmask = REF.copy()
        sysmask[3, :k] = 0
        d.trial(f"fp{k}", system=sysmask, score=0.2 + 0.2 * k)
    grey = np.full((4, 4), 255, dtype=np.uint8)
    grey[:2, :2] = [[10, 200], [90, 130]]
    grey[2, 3] = 60
    d.trial("grey", system=grey, score=0.9)
    d.trial("notpng", system=b"\xff\xd8 not a png", score=0.1)
    d.trial("absent", system=None, score=0.3)
    d.trial("bomb", system=png_header_only(60000, 60000), score=0.7)
    d.trial("same", system=REF, score=0.6)
    d.sys[-1]["OutputProbeMaskFileName"] = d.sys[0]["OutputProbeMaskFileName"]  # the same pair as fp0: scored once
    d.ref[-1]["ProbeMaskFileName"] = d.ref[0]["ProbeMaskFileName"]
    return d


def run_child(code: str, timeout: float = 90, cap: int | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter (rootdir on sys.path), optionally under RLIMIT_AS, with a timeout."""

    def limit() -> None:
        if cap is not None:
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=str(ROOT),
        check=False,
        preexec_fn=limit,
    )


def closed_port() -> int:
    """A port on 127.0.0.1 where nothing listens (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# --- a real LocalCluster gives the local run's results ----------------------------------------------

CLUSTER = """
import pickle, sys
sys.path.insert(0, {root!r})
import distributed
from pytest_omfc.scoring.mask.run import score_masks
submitted = []
_submit = distributed.Client.submit
def counting_submit(self, tuned, fn, item, **kw):  # every task: _tuned(fn, item) (the allocator setting)
    assert tuned.__name__ == "_tuned", tuned
    inner = fn.args[0] if hasattr(fn, "func") else fn  # a batch: functools.partial(_apply_all, fn)
    submitted.extend([inner.__name__] * (len(item) if hasattr(fn, "func") else 1))
    return _submit(self, tuned, fn, item, **kw)
distributed.Client.submit = counting_submit
tmp = {tmp!r}
rep = score_masks(tmp + "/index.csv", tmp + "/ref.csv", tmp + "/sys/sys.csv", ref_dir=tmp,
                  eks=0, dks=0, ntdks=0, jobs=2, dask="local", **{options!r})
with open(tmp + "/dask.pickle", "wb") as fh:
    pickle.dump(rep, fh)
print(len(submitted), sorted(set(submitted)))
"""


@needs_dask
def test_a_local_cluster_scores_exactly_as_the_local_run(tmp_path: Path) -> None:
    d = multi_probe_case(tmp_path)
    local = d.score(jobs=1, **OPTIONS)  # also writes the tables the child reads
    out = run_child(CLUSTER.format(root=str(ROOT), tmp=str(tmp_path), options=OPTIONS), cap=CAP)
    assert out.returncode == 0, out.stderr[-3000:]
    # 9 trials, 8 distinct (mask, reference) pairs: each sent once to the cluster, as paths (in one batch)
    assert out.stdout.splitlines()[-1] == "8 ['_score_job']"
    with open(tmp_path / "dask.pickle", "rb") as fh:
        remote = pickle.load(fh)
    assert len(remote.runs) == len(local.runs) == 1
    mine, theirs = local.runs[0], remote.runs[0]
    pd.testing.assert_frame_equal(theirs.perimage, mine.perimage, check_exact=True)
    assert list(theirs.perimage["ProbeFileID"]) == [
        "fp0",
        "fp1",
        "fp2",
        "fp3",
        "grey",
        "notpng",
        "absent",
        "bomb",
        "same",
    ]
    assert theirs.not_scored == mine.not_scored and len(mine.not_scored) == 2
    assert [r.query for r in remote.results] == ["ConfidenceScore > 0.5", "ConfidenceScore <= 0.5"]
    for a, b in zip(remote.results, local.results, strict=True):
        assert (a.query, a.kind, a.n_rows) == (b.query, b.kind, b.n_rows)
        assert dict(a.aggregate) == dict(b.aggregate)
        assert dict(a.stddev) == dict(b.stddev)
    # the numbers are the case's, not two identical empty tables
    row = mine.perimage.set_index("ProbeFileID")
    assert row.loc[["fp0", "absent", "same"], "OptimumMCC"].tolist() == [1.0, 0.0, 1.0]
    assert 0 < row.loc["fp3", "OptimumMCC"] < row.loc["fp1", "OptimumMCC"] < 1
    assert row.loc["notpng", "NotScoredReason"].startswith("notpng.png: must be a PNG file (got ")
    assert row.loc["bomb", "NotScoredReason"].startswith("bomb.png: declared size 60000x60000 (HxW) exceeds")


# --- addresses that cannot serve fail fast, naming the address --------------------------------------

BAD_ADDRESS = """
import sys, time
sys.path.insert(0, {root!r})
from pytest_omfc.scoring.mask.run import score_masks
from pytest_omfc.scoring.merge import ScoringError
address = {address!r}
if address == "no-workers":
    import distributed
    cluster = distributed.LocalCluster(n_workers=0, processes=False, dashboard_address=None)
    address = cluster.scheduler_address
if address == "junk":  # a server that is no dask scheduler: it answers bytes that read as a 3 EiB frame
    import socket, threading
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    def serve():
        while True:
            conn, _ = server.accept()
            try:
                conn.sendall(b"HTTP/1.1 400 Bad Request\\r\\n\\r\\n" * 64)
            except OSError:
                pass
    threading.Thread(target=serve, daemon=True).start()
    address = "tcp://127.0.0.1:%d" % server.getsockname()[1]
tmp = {tmp!r}
start = time.monotonic()
try:
    score_masks(tmp + "/index.csv", tmp + "/ref.csv", tmp + "/sys/sys.csv", ref_dir=tmp, dask=address,
                dask_timeout=1.5)
except ScoringError as exc:
    print(f"{{time.monotonic() - start:.1f}}")
    print(address)
    print(exc)
else:
    print("no error")
"""


@needs_dask
@pytest.mark.parametrize("address", ["closed-port", "no-workers", "junk"])
def test_a_scheduler_that_cannot_serve_is_a_scoring_error_naming_it(tmp_path: Path, address: str) -> None:
    d = Data(tmp_path)
    d.trial("a")
    d.trial("b")
    d.score()
    target = f"tcp://127.0.0.1:{closed_port()}" if address == "closed-port" else address
    out = run_child(BAD_ADDRESS.format(root=str(ROOT), tmp=str(tmp_path), address=target), timeout=60, cap=CAP)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.splitlines()
    assert lines[0] != "no error", out.stdout
    elapsed, named, message = float(lines[0]), lines[1], "\n".join(lines[2:])
    assert elapsed < 15, f"{elapsed} s to give up on {named}"
    expected = {
        "closed-port": (f"dask: cannot connect to the scheduler at '{named}' within 1.5 s",),
        "no-workers": (f"dask: the scheduler at '{named}' has no workers within 1.5 s",),
        "junk": (
            f"dask: the address '{named}' does not speak the dask protocol",
            f"dask: cannot connect to the scheduler at '{named}' within 1.5 s",
        ),
    }[address]
    assert message.startswith(expected), message
    assert "\n" not in message and "Traceback" not in out.stderr


@pytest.mark.parametrize("value", ["", "   ", "tcp://127.0.0.1:1\nx"])
def test_a_dask_value_that_names_nothing_is_refused_before_any_work(tmp_path: Path, value: str) -> None:
    d = Data(tmp_path)
    d.trial("a")
    with pytest.raises(ScoringError, match=r"^dask must be 'local' or a scheduler address such as tcp://host:8786"):
        d.score(dask=value)


# --- dask not installed --------------------------------------------------------------------------------


def test_without_dask_the_error_says_what_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("dask", "dask.distributed", "distributed"):
        monkeypatch.setitem(sys.modules, name, None)  # "import distributed" now raises ImportError
    d = Data(tmp_path)
    d.trial("a")
    d.trial("b")
    expected = "dask scoring needs dask.distributed: pip install 'pytest-omfc[dask]'"
    for address in ("local", "tcp://127.0.0.1:8786"):
        with pytest.raises(ScoringError) as info:
            d.score(dask=address)
        assert str(info.value) == expected
    assert d.score().runs[0].perimage["OptimumMCC"].tolist() == [1.0, 1.0]  # without dask=, nothing changes
