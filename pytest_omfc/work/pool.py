"""The process pools' one start policy, and a small pool for file-heavy checks (``--omfc-jobs``).

``map_slices(fn, items, jobs)`` cuts ``items`` into at most ``jobs``
contiguous slices, runs ``fn(slice) -> list`` on each in its own process and
returns the concatenated results in the order of ``items``: the verdict never
depends on the number of processes.  ``fn`` must be a module-level function
(it is pickled by reference) and items and results plain data.

Workers come from a *forkserver* (spawn where that is unavailable), never
from ``fork()`` of the pytest process: a forked child would inherit whatever
the parent holds open, h5py files included.  :func:`context` is that policy for
every pool of the plugin (this one and the scorers' :class:`~pytest_omfc.scoring.
executors.Executor`).  The workers live for one call
and hold nothing afterwards.  Small inputs and ``jobs <= 1``
run in the calling process; so does everything if the pool cannot start, as
a check must not fail because of the machine.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import TypeVar

import numpy as np

__all__ = [
    "context",
    "cpu_count",
    "preload_dask",
    "start_forkserver",
    "cut",
    "map_slices",
    "resolve_jobs",
    "scoring_pool",
    "slices_worth",
    "warm_up",
    "xdist_worker",
]

T = TypeVar("T")
R = TypeVar("R")

#: Below this many items per process the pool costs more than it saves.
MIN_PER_JOB = 2000


def cpu_count() -> int:
    """The CPUs this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def xdist_worker() -> bool:
    """Is this process a pytest-xdist worker (the other items of the run go to other processes)?"""
    return bool(os.environ.get("PYTEST_XDIST_WORKER"))


def resolve_jobs(jobs: int | None) -> int:
    """``--omfc-jobs``: 0 (the default) means one per CPU.

    Under pytest-xdist the CPUs are shared among the workers, so each one gets
    its share (at least 1) instead of every worker starting a pool per CPU.
    """
    n = int(jobs or 0)
    if n <= 0:
        n = cpu_count()
        workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT")
        if workers and workers.isdigit() and int(workers) > 0:
            n = max(1, n // int(workers))
    return max(1, n)


#: Imported once by the forkserver, so that each worker it forks starts with them: the PNG reader (MASK-04's
#: inflating, the header passes) and one mask side's scoring (numpy, Pillow, zlib-ng; not pandas, which
#: the tables need and the workers do not).  A worker's function from elsewhere imports its module itself.
PRELOAD = ["pytest_omfc.png", "pytest_omfc.scoring.mask.job"]
#: Also imported by the forkserver when a check uses a LocalCluster (:func:`preload_dask`), whose workers it
#: then starts: each begins with dask.distributed imported instead of importing it (0.3 s of CPU a worker).
DASK_PRELOAD = ["distributed"]
_preload = list(PRELOAD)


def context() -> multiprocessing.context.BaseContext:
    """Where worker processes come from: a forkserver, else spawn (never a fork of this process)."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(_preload)  # read when the forkserver starts (once per process)
    return ctx


def preload_dask() -> None:
    """Have the forkserver also import :data:`DASK_PRELOAD` (a check with ``--omfc-dask local``); no effect
    once it runs."""
    _preload[:] = [*PRELOAD, *DASK_PRELOAD]


def start_forkserver() -> bool:
    """Start the forkserver now (with :func:`context`'s preload) unless it runs; False where there is none
    or it cannot start (the pools then fall back as they do)."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return False
    context()
    from multiprocessing import forkserver

    try:
        forkserver.ensure_running()
    except Exception:  # noqa: BLE001  the first pool starts it (or falls back to this process) as before
        return False
    return True


def scoring_pool(jobs: int) -> ProcessPoolExecutor:
    """A pool of ``jobs`` long-lived workers started by :func:`context`, each with the allocator setting of
    the processes that score (:func:`.alloc.reuse_freed_memory`): the executors' local pool and MASK-04's
    inflating started during the header pass.  The caller shuts it down."""
    from .alloc import reuse_freed_memory

    return ProcessPoolExecutor(max_workers=jobs, mp_context=context(), initializer=reuse_freed_memory)


def map_slices(
    fn: Callable[[list[T]], list[R]],
    items: Sequence[T],
    jobs: int | None,
    *,
    min_per_job: float = MIN_PER_JOB,
    weights: Sequence[float] | None = None,
) -> list[R]:
    """``fn`` over contiguous slices of ``items`` in up to ``jobs`` processes; results in input order.

    ``min_per_job`` is the smallest slice worth a process: below ``2 * min_per_job``
    items everything runs here.  With ``weights`` (the cost of each item, e.g. the
    bytes a mask inflates to), ``min_per_job`` counts in that unit and the slices
    get about equal weight, so that one huge item does not leave the other
    processes idle behind it.
    """
    items = list(items)
    n = min(resolve_jobs(jobs), slices_worth(items, min_per_job, weights))
    if n <= 1:
        return fn(items)
    slices = cut(items, n, weights)
    if len(slices) <= 1:
        return fn(items)
    try:
        with ProcessPoolExecutor(max_workers=len(slices), mp_context=context()) as pool:
            parts = list(pool.map(fn, slices))
    except Exception:  # no processes here (sandbox, limits, a broken pool): do the work in this process
        return fn(items)
    out: list[R] = []
    for part in parts:
        out.extend(part)
    return out


def slices_worth(items: Sequence[T], min_per_job: float, weights: Sequence[float] | None = None) -> int:
    """How many slices of at least ``min_per_job`` (items, or the unit of ``weights``) ``items`` make, at least 1."""
    total = float(np.sum(weights)) if weights is not None else float(len(items))
    return max(1, min(len(items), int(total // max(1.0, float(min_per_job)))))


def cut(items: Sequence[T], n: int, weights: Sequence[float] | None = None) -> list[list[T]]:
    """``items`` in at most ``n`` contiguous slices of about equal weight (each item's cost; default 1 each).

    One item heavier than a slice's share stands alone, so fewer slices may come back; none is empty."""
    items = list(items)
    if n <= 1 or len(items) <= 1:
        return [items] if items else []
    cost = np.ones(len(items)) if weights is None else np.asarray(weights, dtype=np.float64)
    total = float(cost.sum())
    cuts = np.searchsorted(np.cumsum(cost), total * np.arange(1, n) / n, side="right")
    bounds = [0, *sorted(set(int(c) for c in cuts if 0 < c < len(items))), len(items)]
    return [items[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


def warm_up(jobs: int | None) -> threading.Thread | None:
    """Start the forkserver (and its :data:`PRELOAD` imports) in the background, so that the
    first pool of a large check finds it ready instead of waiting for it; None when no pool will run here
    (``jobs`` resolves to 1, as under xdist on few CPUs, or there is no forkserver).  The caller decides
    that the check is large enough to need a pool: a small one never starts a process."""
    if resolve_jobs(jobs) <= 1 or "forkserver" not in multiprocessing.get_all_start_methods():
        return None
    context()  # the preload list, before the forkserver starts
    thread = threading.Thread(target=start_forkserver, name="pytest-omfc-forkserver", daemon=True)
    thread.start()
    return thread
