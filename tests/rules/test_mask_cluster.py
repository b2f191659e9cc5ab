"""MASK-04's inflating on a dask cluster (``--omfc-dask``, rules/mask.py ``_Early`` and ``_spread``).

A check of a large submission with ``--omfc-dask`` sends MASK-04's inflating to the cluster: each chunk of
headers as the header pass reads it (``_Early``, one task per chunk), else one task per slice of about
``SCANS_PER_JOB`` inflated bytes (``_spread``); the verdicts do not depend on where they are computed.
The runs here lower ``SCANS_PER_JOB`` to one byte (a small plugin module, ``-p cluster_spy``) so that three
small masks are worth the cluster, and count the tasks the cluster was given:

* a real two-worker LocalCluster gives exactly the local run's verdicts (a truncated stream fails MASK-04,
  an all-black mask warns in MASK-08, a good mask passes), the two sound masks sent during the header pass;
* a scheduler where nothing listens leaves the work to this machine: the same verdicts and exit code, and
  an ``ExecutionWarning`` naming the address in pytest's warnings summary, no traceback;
* workers that do not see the submission (a stand-in executor whose every verdict is "unusable") never
  fail a mask this process reads: such masks are read again here, and a warning counts them.

Each run is a pytest subprocess with a timeout, so a regression fails instead of hanging the suite; only
127.0.0.1 is contacted.
"""

from __future__ import annotations

import importlib.util
import socket
from pathlib import Path
from typing import Any

import pytest
from helpers.fuzz import verdicts
from helpers.masks import IDS, image_case, pil_png, raw_png

from pytest_omfc import png
from pytest_omfc.errors import ExecutionError, ExecutionWarning
from pytest_omfc.rules import mask as mask_rules
from pytest_omfc.work import executors
from pytest_omfc.work.executors import DASK_INSTALL

needs_dask = pytest.mark.skipif(
    importlib.util.find_spec("distributed") is None, reason=f"dask.distributed is not installed ({DASK_INSTALL})"
)

SPY = """\
from pytest_omfc.rules import mask
from pytest_omfc.work import executors

mask.SCANS_PER_JOB = 1  # one inflated byte makes a slice: every mask of the case is its own task
tasks = []
_dask_map, _submit = executors.Executor._dask_map, executors.Executor.submit


def counting(self, fn, items, window):
    items = list(items)
    tasks.append(len(items))
    yield from _dask_map(self, fn, items, window)


def counting_submit(self, fn, item):  # MASK-04's inflating sent as the header pass goes: one task per chunk
    if self.dask is not None:
        tasks.append(f"{len(item)} during the header pass")
    return _submit(self, fn, item)


executors.Executor._dask_map, executors.Executor.submit = counting, counting_submit


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_line(f"cluster tasks: {tasks}")
"""


def closed_port() -> int:
    """A port on 127.0.0.1 where nothing listens (bound, then released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _run(case: Any, junit: Path, *extra: str) -> tuple[int, str, dict[str, tuple[str, str, bool]]]:
    res = case.pytester.runpytest_subprocess(
        *case.args,
        "-p",
        "no:cacheprovider",
        "-p",
        "cluster_spy",
        "--omfc-jobs",
        "2",
        "--junitxml",
        str(junit),
        *extra,
        timeout=180,
    )
    return int(res.ret), res.stdout.str(), verdicts(junit)


@needs_dask
def test_mask04_on_a_cluster_gives_the_local_verdicts_and_a_dead_scheduler_falls_back(
    omfc: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT"):  # this suite's own xdist worker's: the
        monkeypatch.delenv(name, raising=False)  # checks below are single processes that inflate every slice
    black = raw_png(fill=0)
    truncated = pil_png()[:-40]  # IEND and the end of the image data cut off
    files = {"mask/0042-mask.png": pil_png(), "mask/0043-mask.png": black, "mask/0044-mask.png": truncated}
    case = image_case(omfc, {i: f"mask/{i}-mask.png" for i in IDS}, files)
    omfc.write("cluster_spy.py", SPY)
    out = omfc.root / "out"
    ret, local_out, local = _run(case, out / "local.xml")
    assert "cluster tasks: []" in local_out
    assert local["MASK-04"][0] == "failure" and "1 of 3 masks are not readable" in local["MASK-04"][1]
    assert local["MASK-08"][2], "the all-black mask warns"

    ret_dask, dask_out, on_cluster = _run(case, out / "dask.xml", "--omfc-dask", "local")
    # the truncated mask has no sound header (no IEND), so only two masks are inflated: sent to the cluster as
    # the header pass found them (one chunk of headers, one task)
    assert "cluster tasks: ['2 during the header pass']" in dask_out, dask_out[-3000:]
    assert (ret_dask, on_cluster) == (ret, local)

    address = f"tcp://127.0.0.1:{closed_port()}"
    ret_dead, dead_out, fell_back = _run(case, out / "dead.xml", "--omfc-dask", address)
    assert (ret_dead, fell_back) == (ret, local)
    assert "ExecutionWarning: dask: cannot connect to the scheduler at" in dead_out, dead_out[-3000:]
    assert address in dead_out and "the masks were inflated here instead" in dead_out
    assert "Traceback" not in dead_out and "INTERNALERROR" not in dead_out


class _Settings:
    def __init__(self, dask: str | None) -> None:
        self.dask, self.jobs = dask, 1


class _Ctx:
    def __init__(self, dask: str | None) -> None:
        self.settings = _Settings(dask)


def _items(tmp_path: Path) -> list[png.DecodeItem]:
    """Three masks as MASK-04 hands them to ``_spread``: a white one, a black one, a damaged stream."""
    out = []
    for name, data in (("white", raw_png()), ("black", raw_png(fill=0)), ("bad", raw_png(idat=b"\x78\x9cnot deflate"))):
        path = tmp_path / f"{name}.png"
        path.write_bytes(data)
        h = png.read_header(str(path))
        out.append((str(path), h.width, h.height, h.bit_depth, h.colour, h.interlace, h.idat, False))
    return out


def test_workers_that_cannot_read_the_masks_never_fail_one_this_process_reads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    items = _items(tmp_path)
    here = png.decode_many(items)
    assert [verdict.state for verdict in here] == [png.NOT_BLACK, png.BLACK, png.BAD_DATA]
    sent: list[int] = []

    class Blind:  # a cluster whose workers do not see the submission: every mask "must be readable"
        def __init__(self, **kw: Any) -> None:
            pass

        def __enter__(self) -> Blind:
            return self

        def __exit__(self, *exc: object) -> None:
            return None

        def map(self, fn: Any, slices: Any, batch: int) -> Any:
            for part in slices:
                sent.append(len(part))
                yield [png.Verdict(png.BAD_DATA, "must be readable (got No such file or directory)")] * len(part)

    monkeypatch.setattr(executors, "Executor", Blind)
    weights = [png.raw_size(*item[1:6]) for item in items]
    with pytest.warns(ExecutionWarning, match=r"could not use 2 masks that this process reads \(first: .*white\.png\)"):
        got = mask_rules._spread(_Ctx("tcp://127.0.0.1:1"), png.decode_many, items, min_per_job=1, weights=weights)
    assert got == here and sum(sent) == 3 and len(sent) > 1  # one task per slice, every mask sent


def test_a_cluster_that_fails_leaves_the_masks_to_this_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    items = _items(tmp_path)

    class Down:
        def __init__(self, **kw: Any) -> None:
            pass

        def __enter__(self) -> Down:
            raise ExecutionError("dask: cannot connect to the scheduler at 'tcp://127.0.0.1:1' within 10 s")

        def __exit__(self, *exc: object) -> None:
            return None

    monkeypatch.setattr(executors, "Executor", Down)
    with pytest.warns(ExecutionWarning, match="cannot connect.*the masks were inflated here instead"):
        got = mask_rules._spread(_Ctx("tcp://127.0.0.1:1"), png.decode_many, items, min_per_job=1, weights=[1] * 3)
    assert got == png.decode_many(items)
    monkeypatch.setattr(executors, "Executor", None)  # without --omfc-dask the cluster is never asked
    assert mask_rules._spread(_Ctx(None), png.decode_many, items, min_per_job=1, weights=[1] * 3) == got
