"""The executors of work/executors.py: local processes and dask, in input order, with bounded work in flight.

* ``_windowed`` keeps at most ``window`` items submitted and not yet yielded, reading its input lazily;
* ``map_ordered`` and ``Executor.map`` give every result in input order on one process, a pool and a real
  LocalCluster (in a capped subprocess), batched or not, and re-raise the item function's own exception;
* every process that scores runs with the allocator setting of work/alloc.py (which turns freshly faulted
  pages of mask-sized arrays into reused ones), also the workers of a LocalCluster the plugin starts.

The check's shared dask connection is tested in tests/work/test_session.py.
"""

from __future__ import annotations

import importlib.util
import math
import operator
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from concurrent.futures import Future

import pytest
from helpers.paths import REPO
from helpers.runs import run_capped

from pytest_omfc.errors import ExecutionError
from pytest_omfc.work import executors
from pytest_omfc.work.executors import DASK_INSTALL, Executor, map_ordered

needs_dask = pytest.mark.skipif(
    importlib.util.find_spec("distributed") is None, reason=f"dask.distributed is not installed ({DASK_INSTALL})"
)
#: address-space cap of a child (and of the cluster processes it starts, which inherit it)
CAP = 2_000_000_000


def test_the_executor_keeps_a_bounded_window_in_flight_and_yields_in_order() -> None:
    """16,000 items never mean 16,000 pending futures: at most ``window`` are submitted and not yet yielded."""
    read = submitted = 0

    def items() -> Iterator[int]:
        nonlocal read
        for i in range(16_000):
            read += 1
            yield i

    def submit(item: int) -> Future[int]:
        nonlocal submitted
        submitted += 1
        fut: Future[int] = Future()
        fut.set_result(item * item)
        return fut

    out: list[int] = []
    most = 0
    for value in executors._windowed(submit, items(), window=4):
        most = max(most, submitted - len(out))
        assert read <= len(out) + 5  # the input is read lazily, one window ahead at most
        out.append(value)
    assert out == [i * i for i in range(16_000)]
    assert most == 4


@pytest.mark.parametrize("jobs", [1, 2])
def test_map_ordered_runs_in_order_locally_and_starts_nothing_for_no_items(jobs: int) -> None:
    assert list(map_ordered(operator.neg, range(50), jobs=jobs, window=3)) == [-i for i in range(50)]
    with Executor(jobs=jobs) as ex:
        assert list(ex.map(operator.neg, [])) == [] and ex._pool is None
        assert list(ex.map(operator.neg, [7])) == [-7] and ex._pool is None  # one item: no pool
    with pytest.raises(ValueError, match="math domain error"):  # fn's own exception, not swallowed
        list(map_ordered(math.sqrt, [4, -1, 9], jobs=jobs))
    with pytest.raises(ExecutionError, match=r"jobs must be >= 1 \(got 0\)"):
        list(map_ordered(operator.neg, range(3), jobs=0))


@pytest.mark.parametrize("batch", [1, 3, 16, 100])
def test_batched_tasks_yield_every_item_in_order(batch: int) -> None:
    """Items go to the workers ``batch`` at a time (the default on dask: a task's own cost is paid once per
    batch); what comes back is every result in input order, whatever the last batch's size."""
    with Executor(jobs=2) as ex:
        assert list(ex.map(operator.neg, range(50), window=2, batch=batch)) == [-i for i in range(50)]
        with pytest.raises(ValueError, match="math domain error"):
            list(ex.map(math.sqrt, [4, 9, -1, 16], batch=batch))
        with pytest.raises(ExecutionError, match=r"batch must be >= 1 \(got 0\)"):
            list(ex.map(operator.neg, range(3), batch=0))


@needs_dask
def test_map_ordered_on_a_local_cluster_matches_the_builtin_map() -> None:
    """Also: the LocalCluster's workers run without dask's MALLOC_TRIM_THRESHOLD_ (twice the CPU per mask),
    and every task runs with the allocator setting of pytest_omfc/work/alloc.py (also on a cluster the plugin
    did not start)."""
    code = f"""
    import operator, os, sys
    sys.path.insert(0, {str(REPO)!r})
    from pytest_omfc.work import alloc
    from pytest_omfc.work.executors import Executor
    with Executor(jobs=2, dask="local") as ex:
        print(list(ex.map(operator.neg, range(40), window=5)) == [-i for i in range(40)])
        print(list(ex.map(os.getenv, ["MALLOC_TRIM_THRESHOLD_", "OMP_NUM_THREADS"])))
        print(all(ex.map(alloc.in_force, range(8), batch=1)), all(ex.map(alloc.in_force, range(40))))
    """
    start = time.monotonic()
    out = run_capped(["-c", textwrap.dedent(code)], cwd=REPO, timeout=90, cap=CAP)
    assert out.ret == 0, out.err[-3000:]
    assert out.out.splitlines()[-3:] == ["True", "[None, '1']", "True True"]
    assert time.monotonic() - start < 60


@needs_dask
def test_a_local_cluster_takes_no_fixed_port() -> None:
    """Checks run side by side on a portal, each with its LocalCluster: the scheduler's HTTP server (dask puts it on
    8787 even without a dashboard) takes a free port of 127.0.0.1, so a second cluster neither warns that 8787 is
    in use nor binds a known port."""
    code = f"""
    import operator, socket, sys, warnings
    sys.path.insert(0, {str(REPO)!r})
    from pytest_omfc.work.executors import Executor
    taken = socket.socket()
    try:
        taken.bind(("127.0.0.1", 8787))
        taken.listen()
    except OSError:  # in use already: as good
        pass
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with Executor(jobs=1, dask="local") as ex:
            print(list(ex.map(operator.neg, [1, 2], batch=1)))
    print([str(w.message).splitlines()[0] for w in seen if "already in use" in str(w.message)])
    """
    out = run_capped(["-c", textwrap.dedent(code)], cwd=REPO, timeout=90, cap=CAP)
    assert out.ret == 0, out.err[-3000:]
    assert out.out.splitlines()[-2:] == ["[-1, -2]", "[]"]


def test_scoring_processes_reuse_freed_arrays_instead_of_faulting_them_in_again() -> None:
    """pytest_omfc/work/alloc.py: freeing and allocating a mask-sized array again costs page faults with glibc's
    defaults (every page of a fresh mmap faults in) and almost none once the thresholds are set."""
    if not sys.platform.startswith("linux"):
        pytest.skip("glibc's allocator: Linux only")
    code = f"""
    import resource, sys
    sys.path.insert(0, {str(REPO)!r})
    import numpy as np
    from pytest_omfc.work import alloc
    if sys.argv[1] == "1":
        assert alloc.reuse_freed_memory() and alloc.in_force()
    def faults():
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        for _ in range(50):  # what a mask score does: a 2 MB mask, 16 MB of int64 counts, their cumsum
            mask = np.ones(2_000_000, dtype=np.uint8)
            counts = mask.astype(np.int64)
            total = np.cumsum(counts)
            del mask, counts, total
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
    faults()
    print(faults())
    """
    counts = []
    for setting in ("0", "1"):
        out = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code), setting], capture_output=True, text=True, timeout=60
        )
        assert out.returncode == 0, out.stderr[-2000:]
        counts.append(int(out.stdout.split()[-1]))
    default, tuned = counts
    assert default > 20_000, counts  # 50 rounds of ~1,600 pages (32 MB of int64), faulted in afresh
    assert tuned < 1_000, counts


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_executor_sets_the_allocator_where_it_scores(jobs: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """In this process (jobs=1) and in every pool worker (jobs=2) the item function runs with the setting."""
    from pytest_omfc.work import alloc

    monkeypatch.setattr(alloc, "_applied", None)  # as in a fresh process (an earlier test may have set it here)
    with Executor(jobs=jobs) as ex:
        assert list(ex.map(alloc.in_force, range(8))) == [alloc.reuse_freed_memory()] * 8
