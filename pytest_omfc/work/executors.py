"""Where per-item scoring work runs: in this process, a local process pool, or a dask.distributed cluster.

Scorers (mask now; provenance and temporal later) describe each unit of work as a small picklable item
(file paths and parameters, never arrays) and a pure, module-level function that never raises for bad
input (it returns a reason instead).  :func:`map_ordered` runs that function over the items and yields
the results **in input order**, whichever executor runs them, so a run gives the same numbers on one
core, on ``jobs`` processes or on a cluster.  A scorer that maps several times (once per ``-qm`` query)
opens one :class:`Executor` and calls its :meth:`Executor.map`, so that a cluster is set up only once.

* ``dask=None``: ``jobs <= 1`` runs in this process; ``jobs > 1`` a local process pool of ``jobs``, started
  as every pool of the plugin (:func:`pytest_omfc.work.pool.context`: a forkserver, never a fork of this process).
* ``dask="local"``: a ``dask.distributed.LocalCluster`` on 127.0.0.1 of ``jobs`` worker processes (2 when
  ``jobs`` is None or 1: one worker would only add overhead), one thread each, no dashboard, started on
  the first map and closed with the executor.
* ``dask="tcp://host:8786"`` (any other string): the scheduler of an existing cluster.  A scheduler that
  cannot be reached within ``connect_timeout`` seconds is an :class:`~.errors.ExecutionError` naming the address.

The workers open the files the items name, so they must see the same paths as this process: a shared
file system, or the same mount at the same place on every worker; paths are sent as absolute paths.
Remote workers also need pytest-omfc (the same version) installed, since the function is sent by
reference to its module.  Wherever ``fn`` runs (this process, a pool worker, a dask task), glibc's
allocator is set first (:func:`pytest_omfc.work.alloc.reuse_freed_memory`), so that freed mask-sized arrays
are reused instead of faulted in afresh; also in a dask worker whose nanny set ``MALLOC_TRIM_THRESHOLD_``.

Memory stays bounded by the items in flight, not by the number of items: at most ``window`` items are
submitted and not yet yielded (default: twice the workers), and each result is handed over as soon as
every earlier one has been.  A 16,000-mask run therefore never holds 16,000 pending futures or results
inside the executor.

dask is an optional extra: without it ``dask=...`` raises an :class:`~.errors.ExecutionError` saying what to install.
"""

from __future__ import annotations

import asyncio  # asyncio.TimeoutError, which dask raises: not the built-in TimeoutError before Python 3.11
import logging
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from functools import partial
from itertools import chain, islice
from pathlib import Path
from typing import Any, Protocol, TypeVar

from .. import private
from ..errors import ExecutionError
from .alloc import reuse_freed_memory
from .pool import scoring_pool

__all__ = ["DASK_INSTALL", "LOCAL", "Executor", "check_dask", "map_ordered"]

T = TypeVar("T")
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)

#: Items per dask task: with one task per mask the cluster cost 6.6 ms of CPU a mask more than one local
#: process, with 16 per task 2.5 ms (benchmarks/score_cluster.py, 1920x1080 masks of about 35 ms each).
DASK_BATCH = 16
#: the ``dask`` value that starts a LocalCluster for the call
LOCAL = "local"
#: what to install for ``dask=...`` (one line, quoted in the error)
DASK_INSTALL = "pip install 'pytest-omfc[dask]'"
#: dask's nannies start workers with MALLOC_TRIM_THRESHOLD_=65536, which turns off glibc's dynamic mmap
#: threshold: every mask-sized array is then mmapped and page-faulted afresh.  Each task sets the allocator
#: itself (_tuned); the LocalCluster's workers are also started without the variable, for what they
#: allocate outside the tasks.
_TRIM = "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_"


class _Result(Protocol[R_co]):  # concurrent.futures.Future and distributed.Future alike
    def result(self) -> R_co: ...


def _line(text: object, width: int = 300) -> str:
    """Exception text fit for a one-line error: whitespace runs collapsed, non-printables escaped, cut."""
    flat = " ".join(str(text).split())
    flat = flat if flat.isprintable() else flat.encode("unicode_escape").decode("ascii")
    return flat if len(flat) <= width else f"{flat[: width - 30]}... ({len(flat)} chars)"


def check_dask(dask: str | None) -> None:
    """Refuse a ``dask`` value that cannot name an executor (before any work is read or sent)."""
    if dask is None:
        return
    if not isinstance(dask, str) or not dask.strip() or not dask.strip().isprintable():
        raise ExecutionError(
            f"dask must be '{LOCAL}' or a scheduler address such as tcp://host:8786 (got {_line(repr(dask), 80)})"
        )


class Executor:
    """One executor for a scoring call: started on the first non-empty :meth:`map`, closed on exit.

    Use it as a context manager when a scorer maps several times (one map per ``-qm`` query): a
    LocalCluster or a scheduler connection is then set up once.  ``jobs``/``dask``/``connect_timeout``
    as in :func:`map_ordered`.
    """

    def __init__(self, *, jobs: int | None = 1, dask: str | None = None, connect_timeout: float = 10.0) -> None:
        check_dask(dask)
        if jobs is not None and jobs < 1:
            raise ExecutionError(f"jobs must be >= 1 (got {jobs})")
        self.jobs = jobs
        self.dask = dask.strip() if dask is not None else None
        self.connect_timeout = connect_timeout
        self._pool: ProcessPoolExecutor | None = None
        self._client: Any = None
        self._cluster: Any = None
        self._distributed: Any = None
        self._scratch: Path | None = None

    def __enter__(self) -> Executor:  # noqa: PYI034  (typing.Self needs 3.11; the package allows 3.10)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Shut the process pool, the client and the LocalCluster down (whichever were started)."""
        pool, client, cluster = self._pool, self._client, self._cluster
        self._pool = self._client = self._cluster = None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
        scratch, self._scratch = self._scratch, None
        if scratch is not None:  # the LocalCluster's scratch space, a private folder of this run
            private.remove(scratch)

    def map(
        self, fn: Callable[[T], R], items: Iterable[T], *, window: int | None = None, batch: int | None = None
    ) -> Iterator[R]:
        """Yield ``fn(item)`` for every item, in input order, with at most ``window`` tasks in flight.

        ``batch``: items per task (default :data:`DASK_BATCH` on a dask cluster, whose every task costs
        the scheduler and the network milliseconds of CPU; 1 in a local pool).

        ``fn`` must be a module-level function (it is pickled by reference) and should not raise: an
        exception it raises is re-raised here.  Executor failures (a dead process pool, an unreachable
        scheduler, a lost worker) become :class:`~.errors.ExecutionError`.  Nothing starts while ``items`` is empty;
        a single item runs in this process unless dask was asked for.
        """
        if window is not None and window < 1:
            raise ExecutionError(f"window must be >= 1 (got {window})")
        it = iter(items)
        head = list(islice(it, 2))
        if not head:
            return
        work = chain(head, it)
        size = batch if batch is not None else (DASK_BATCH if self.dask is not None else 1)
        if size < 1:
            raise ExecutionError(f"batch must be >= 1 (got {size})")
        if size > 1 and (self.dask is not None or (self.jobs or 1) > 1):
            chunks = iter(lambda: list(islice(work, size)), [])
            for results in self.map(partial(_apply_all, fn), chunks, window=window, batch=1):
                yield from results
            return
        if self.dask is not None:
            yield from self._dask_map(fn, work, window)
        elif self.jobs is None or self.jobs <= 1 or len(head) == 1:
            reuse_freed_memory()
            yield from map(fn, work)
        else:
            yield from self._pool_map(fn, work, self.jobs, window)

    def _pool_map(self, fn: Callable[[T], R], items: Iterable[T], jobs: int, window: int | None) -> Iterator[R]:
        if self._pool is None:
            self._pool = scoring_pool(jobs)
        pool = self._pool

        def submit(item: T) -> Future[R]:
            return pool.submit(fn, item)

        try:
            yield from _windowed(submit, items, window or 2 * jobs)
        except BrokenProcessPool as exc:
            self.close()
            raise ExecutionError(f"a scoring process died ({_line(exc)}); try fewer jobs") from None

    def _connect(self) -> Any:
        """The dask Client (started once): a new LocalCluster, or the scheduler at ``self.dask``."""
        if self._client is not None:
            return self._client
        distributed = self._distributed = _import_distributed()
        import dask.config as dask_config  # after distributed, whose import loads its config defaults

        address, timeout = self.dask, self.connect_timeout
        if address == LOCAL:
            workers = self.jobs if self.jobs is not None and self.jobs > 1 else 2
            try:
                self._scratch = private.make("dask")  # not dask-scratch-space/ in TMPDIR, left behind
                with dask_config.set({_TRIM: None}):  # see _TRIM
                    self._cluster = distributed.LocalCluster(
                        local_directory=str(self._scratch),
                        n_workers=workers,
                        threads_per_worker=1,
                        processes=True,
                        dashboard_address=None,
                        silence_logs=logging.ERROR,
                    )
                self._client = distributed.Client(self._cluster, timeout=timeout)
            except (OSError, RuntimeError, TimeoutError, asyncio.TimeoutError) as exc:
                self.close()
                raise ExecutionError(f"dask: cannot start a LocalCluster of {workers} workers ({_line(exc)})") from None
            return self._client
        try:
            self._client = distributed.Client(address, timeout=timeout)
        except (OSError, TimeoutError, asyncio.TimeoutError, ValueError, TypeError) as exc:
            raise ExecutionError(
                f"dask: cannot connect to the scheduler at {address!r} within {timeout:g} s "
                f"({type(exc).__name__}: {_line(exc)})"
            ) from None
        except (MemoryError, OverflowError) as exc:  # what answers there read a junk frame length: 3 EiB
            raise ExecutionError(
                f"dask: the address {address!r} does not speak the dask protocol (its answer read as a frame of "
                f"impossible size: {type(exc).__name__})"
            ) from None
        try:
            self._client.wait_for_workers(1, timeout=timeout)
        except (OSError, TimeoutError, asyncio.TimeoutError) as exc:
            self.close()
            raise ExecutionError(
                f"dask: the scheduler at {address!r} has no workers within {timeout:g} s ({_line(exc)})"
            ) from None
        return self._client

    def _dask_map(self, fn: Callable[[T], R], items: Iterable[T], window: int | None) -> Iterator[R]:
        client = self._connect()
        address = self.dask
        threads = sum(client.nthreads().values()) or 1

        def submit(item: T) -> Any:
            return client.submit(_tuned, fn, item, pure=False)

        killed = getattr(self._distributed, "KilledWorker", None)
        try:
            yield from _windowed(submit, items, window or 2 * threads)
        except ImportError as exc:  # raised on a worker that lacks the scorer's module
            raise ExecutionError(
                f"dask: a worker of {address!r} cannot import the scorer ({_line(exc)}); "
                "install pytest-omfc on the workers"
            ) from None
        except (OSError, TimeoutError, asyncio.TimeoutError, CancelledError) as exc:
            raise ExecutionError(
                f"dask: the cluster at {address!r} failed ({type(exc).__name__}: {_line(exc)})"
            ) from None
        except Exception as exc:
            if isinstance(killed, type) and isinstance(exc, killed):
                raise ExecutionError(f"dask: a worker of {address!r} died while scoring ({_line(exc)})") from None
            raise


def map_ordered(
    fn: Callable[[T], R],
    items: Iterable[T],
    *,
    jobs: int | None = 1,
    dask: str | None = None,
    window: int | None = None,
    connect_timeout: float = 10.0,
) -> Iterator[R]:
    """Yield ``fn(item)`` for every item, in input order, on the executor ``jobs``/``dask`` name.

    A one-shot :class:`Executor`: started for this call and closed when the iterator is exhausted or
    closed.  ``window`` bounds the items in flight (default: twice the workers).
    """
    with Executor(jobs=jobs, dask=dask, connect_timeout=connect_timeout) as ex:
        yield from ex.map(fn, items, window=window)


def _apply_all(fn: Callable[[T], R], items: list[T]) -> list[R]:
    """``fn`` over one batch of items (a task of :meth:`Executor.map` with ``batch > 1``)."""
    return [fn(item) for item in items]


def _tuned(fn: Callable[[T], R], item: T) -> R:
    """``fn(item)`` in a process whose allocator reuses freed arrays (:mod:`pytest_omfc.work.alloc`; a dask task)."""
    reuse_freed_memory()
    return fn(item)


def _windowed(submit: Callable[[T], _Result[R]], items: Iterable[T], window: int) -> Iterator[R]:
    """Submit while fewer than ``window`` results wait; yield the oldest one first (input order)."""
    pending: deque[_Result[R]] = deque()
    for item in items:
        if len(pending) >= window:
            yield pending.popleft().result()
        pending.append(submit(item))
    while pending:
        yield pending.popleft().result()


def _import_distributed() -> Any:
    try:
        import distributed  # optional, and slow to import: only when asked for
    except ImportError:
        raise ExecutionError(f"dask scoring needs dask.distributed: {DASK_INSTALL}") from None
    return distributed
