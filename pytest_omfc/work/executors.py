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
  ``jobs`` is None), one thread each, no dashboard, started on the first map and closed with the executor.
* ``dask="tcp://host:8786"`` (any other string): the scheduler of an existing cluster.  A scheduler that
  cannot be reached within ``connect_timeout`` seconds is an :class:`~.errors.ExecutionError` naming the address.

A check opens one :class:`Session` (:func:`open_session`, the plugin at configure time): its connection is
set up in the background while pytest collects, and every executor of the process with the same ``dask``
value uses it instead of its own, so that MASK-04's inflating and the scorers share one cluster.

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
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import CancelledError, Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from functools import partial
from importlib.util import find_spec
from itertools import chain, islice
from pathlib import Path
from typing import Any, Protocol, TypeVar

from .. import private
from ..errors import ExecutionError
from .alloc import reuse_freed_memory
from .pool import preload_dask, scoring_pool, start_forkserver

__all__ = ["DASK_INSTALL", "LOCAL", "Executor", "Session", "check_dask", "map_ordered", "open_session"]

T = TypeVar("T")
R = TypeVar("R")
R_co = TypeVar("R_co", covariant=True)

#: Items per dask task when they carry no cost: with one task per mask the cluster cost 6.6 ms of CPU a mask
#: more than one local process, with 16 per task 2.5 ms (benchmarks/score_cluster.py, 1920x1080 masks of
#: about 35 ms each).
DASK_BATCH = 16
#: The work of one dask task when the items say what each costs (``cost=``; pixels for masks): 16 masks of
#: 1920x1080, the measured batch above, whatever the masks' size, so that small masks are not sent a few
#: milliseconds of work per task.
DASK_TASK_COST = 16 * 1920 * 1080
#: At most this many items per task, whatever their cost (the task's results come back in one message).
DASK_MAX_BATCH = 4096
#: the ``dask`` value that starts a LocalCluster for the call
LOCAL = "local"
#: what to install for ``dask=...`` (one line, quoted in the error)
DASK_INSTALL = "pip install 'pytest-omfc[dask]'"
#: dask's nannies start workers with MALLOC_TRIM_THRESHOLD_=65536, which turns off glibc's dynamic mmap
#: threshold: every mask-sized array is then mmapped and page-faulted afresh.  Each task sets the allocator
#: itself (_tuned); the LocalCluster's workers are also started without the variable, for what they
#: allocate outside the tasks.
_TRIM = "distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_"
#: How a LocalCluster's nannies start their workers: dask's default spawns a fresh interpreter that imports
#: dask.distributed (0.3 s of CPU) and then the scorer.  The pools' forkserver (never a fork of this process)
#: forks them instead, with both imported (:func:`.pool.preload_dask`); it is started before dask first asks
#: for a forkserver, so dask's own preload list (pandas included) is not the one it runs with.
_METHOD = "distributed.worker.multiprocessing-method"
#: A LocalCluster's workers do not sample their threads' stacks every 10 ms (dask's statistical profiler,
#: for a dashboard the plugin does not start).
_PROFILE = "distributed.worker.profile.enabled"


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
        self._own: _Connection | None = None
        self._distributed: Any = None

    def __enter__(self) -> Executor:  # noqa: PYI034  (typing.Self needs 3.11; the package allows 3.10)
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Shut the process pool down and close the dask connection this executor opened (whichever were started)."""
        pool, own = self._pool, self._own
        self._pool = self._own = self._client = None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        if own is not None:  # a shared connection (Session) is closed by its owner, at the end of the check
            own.close()

    def ready(self) -> bool:
        """Whether :meth:`submit` would start the work without waiting for a cluster that is still starting
        (the check's :class:`Session` in the background); a local pool is always ready."""
        if self.dask is None or self._client is not None:
            return True
        session = _SESSION
        return session is not None and session.dask == self.dask and session.settled()

    def submit(self, fn: Callable[[T], R], item: T) -> _Result[R]:
        """Start ``fn(item)`` on the local pool of ``jobs`` processes or the dask cluster (a task each); its
        ``result()`` gives the value or raises what ``fn`` raised.  For a caller that streams its work as it
        finds it (MASK-04's inflating during the header pass); failures to start are
        :class:`~.errors.ExecutionError`."""
        if self.dask is not None:
            return self._connect().submit(_tuned, fn, item, pure=False)
        if self._pool is None:
            self._pool = scoring_pool(max(1, self.jobs or 1))
        return self._pool.submit(fn, item)

    def map(
        self,
        fn: Callable[[T], R],
        items: Iterable[T],
        *,
        window: int | None = None,
        batch: int | None = None,
        cost: Callable[[T], float] | None = None,
    ) -> Iterator[R]:
        """Yield ``fn(item)`` for every item, in input order, with at most ``window`` tasks in flight.

        ``batch``: items per task (default on a dask cluster, whose every task costs the scheduler and the
        network milliseconds of CPU: consecutive items of :data:`DASK_TASK_COST` together by ``cost(item)``
        (a mask's pixels), else :data:`DASK_BATCH`; 1 in a local pool).

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
        if batch is None and cost is not None and self.dask is not None:
            for results in self.map(partial(_apply_all, fn), _by_cost(work, cost), window=window, batch=1):
                yield from results
            return
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
        """The dask Client (set up once): the check's shared connection (:class:`Session`) when one is open for
        this ``dask`` value, else one of this executor's own (a new LocalCluster, or the scheduler at
        ``self.dask``), closed with it."""
        if self._client is not None:
            return self._client
        assert self.dask is not None
        session = _SESSION
        if session is not None and session.dask == self.dask:
            conn = session.connection()
        else:
            conn = self._own = _open(self.dask, _workers(self.jobs), self.connect_timeout)
        self._distributed, self._client = conn.distributed, conn.client
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


def _workers(jobs: int | None) -> int:
    """The worker processes of a LocalCluster: ``jobs`` (2 when not given)."""
    return jobs if jobs is not None and jobs >= 1 else 2


@dataclass
class _Connection:
    """A dask client and what was started for it (a LocalCluster and its scratch folder), closed together."""

    client: Any
    distributed: Any
    cluster: Any = None
    scratch: Path | None = None

    def close(self) -> None:
        client, cluster, scratch = self.client, self.cluster, self.scratch
        self.client = self.cluster = self.scratch = None
        try:
            if client is not None:
                client.close()
            if cluster is not None:
                cluster.close()
        finally:
            if scratch is not None:  # the LocalCluster's scratch space, a private folder of this run
                private.remove(scratch)


def _open(dask: str, workers: int, timeout: float) -> _Connection:
    """A new connection for ``dask``: a LocalCluster of ``workers`` processes, or the scheduler at that address
    (with at least one worker within ``timeout`` seconds).  Failures are :class:`~.errors.ExecutionError`."""
    forked = False
    if dask == LOCAL and find_spec("distributed") is not None:
        preload_dask()  # the workers will come from the pools' forkserver: started first, it imports
        forked = start_forkserver()  # dask.distributed while this process does the same
    distributed = _import_distributed()
    import dask.config as dask_config  # after distributed, whose import loads its config defaults

    if dask == LOCAL:
        conn = _Connection(None, distributed, scratch=private.make("dask"))  # not dask-scratch-space/ in TMPDIR
        settings: dict[str, Any] = {_TRIM: None, _PROFILE: False, **({_METHOD: "forkserver"} if forked else {})}
        try:
            with dask_config.set(settings):
                conn.cluster = distributed.LocalCluster(
                    local_directory=str(conn.scratch),
                    n_workers=workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    # no dashboard, and the scheduler's own HTTP server (health, metrics) on a free port of
                    # 127.0.0.1, not on 8787: checks run side by side on a portal, each with its LocalCluster
                    scheduler_kwargs={"dashboard": False, "dashboard_address": ":0"},
                    silence_logs=logging.ERROR,
                )
            conn.client = distributed.Client(conn.cluster, timeout=timeout)
        except (OSError, RuntimeError, TimeoutError, asyncio.TimeoutError) as exc:
            conn.close()
            raise ExecutionError(f"dask: cannot start a LocalCluster of {workers} workers ({_line(exc)})") from None
        return conn
    try:
        conn = _Connection(distributed.Client(dask, timeout=timeout), distributed)
    except (OSError, TimeoutError, asyncio.TimeoutError, ValueError, TypeError) as exc:
        raise ExecutionError(
            f"dask: cannot connect to the scheduler at {dask!r} within {timeout:g} s "
            f"({type(exc).__name__}: {_line(exc)})"
        ) from None
    except (MemoryError, OverflowError) as exc:  # what answers there read a junk frame length: 3 EiB
        raise ExecutionError(
            f"dask: the address {dask!r} does not speak the dask protocol (its answer read as a frame of "
            f"impossible size: {type(exc).__name__})"
        ) from None
    try:
        conn.client.wait_for_workers(1, timeout=timeout)
    except (OSError, TimeoutError, asyncio.TimeoutError) as exc:
        conn.close()
        raise ExecutionError(
            f"dask: the scheduler at {dask!r} has no workers within {timeout:g} s ({_line(exc)})"
        ) from None
    return conn


class Session:
    """The dask connection of a whole check: opened once (in the background with :meth:`start`, while pytest
    collects and the rules run), used by every :class:`Executor` of this process given the same ``dask``
    value (MASK-04's inflating and each scorer), closed by its owner at the end (:meth:`close`).

    Without a session each executor opens and closes its own: importing dask.distributed, starting a
    LocalCluster and stopping it cost about a second, paid once per check instead of once per use.  A failed
    start is the :class:`~.errors.ExecutionError` every use raises (MASK-04 then inflates locally, a scorer
    fails), as an executor's own connection would.  Made by :func:`open_session`.
    """

    def __init__(self, dask: str, *, jobs: int | None, connect_timeout: float = 10.0) -> None:
        check_dask(dask)
        self.dask = dask.strip()
        self.workers = _workers(jobs)
        if self.dask == LOCAL and find_spec("distributed") is not None:
            preload_dask()  # before the pools' forkserver starts (a large check's warm-up starts it next)
        self.connect_timeout = connect_timeout
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._conn: _Connection | None = None
        self._error: BaseException | None = None
        self._closed = False

    def start(self) -> Session:  # noqa: PYI034  (typing.Self needs 3.11)
        """Open the connection in a background thread (once); :meth:`connection` waits for it."""
        with self._lock:
            if self._thread is None and not self._closed:
                self._thread = threading.Thread(target=self._open, name="pytest-omfc-dask", daemon=True)
                self._thread.start()
        return self

    def _open(self) -> None:
        try:
            self._conn = _open(self.dask, self.workers, self.connect_timeout)
        except BaseException as exc:  # noqa: BLE001  handed to the first use, in its thread
            self._error = exc

    def settled(self) -> bool:
        """Whether the start is over (opened or failed): :meth:`connection` then answers at once."""
        thread = self._thread
        return thread is not None and not thread.is_alive()

    def connection(self) -> _Connection:
        """The open connection, started now if :meth:`start` was not called; raises what its start raised."""
        self.start()
        if self._thread is not None:
            self._thread.join()
        if self._closed:
            raise ExecutionError(f"dask: the connection to {self.dask!r} was closed")
        if isinstance(self._error, ExecutionError):
            raise ExecutionError(str(self._error)) from None
        if self._error is not None:
            raise self._error
        assert self._conn is not None
        return self._conn

    def close(self) -> None:
        """Wait for a start under way, close the connection, and forget the session (idempotent)."""
        global _SESSION
        with self._lock:
            self._closed, thread = True, self._thread
        if thread is not None:
            thread.join()
        conn, self._conn = self._conn, None
        if _SESSION is self:
            _SESSION = None
        if conn is not None:
            conn.close()


#: The session of this process's check, if one is open (:func:`open_session`).
_SESSION: Session | None = None


def open_session(dask: str, *, jobs: int | None, connect_timeout: float = 10.0) -> Session:
    """Open this process's :class:`Session` for ``dask`` (closing one open before); started by its
    :meth:`Session.start` or by its first use.  The caller closes it."""
    global _SESSION
    if _SESSION is not None:
        _SESSION.close()
    _SESSION = Session(dask, jobs=jobs, connect_timeout=connect_timeout)
    return _SESSION


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


def _by_cost(items: Iterable[T], cost: Callable[[T], float]) -> Iterator[list[T]]:
    """Consecutive items in lists of about :data:`DASK_TASK_COST` (an item of cost 0 or less counts as a
    1920x1080 mask: its size is unknown), at most :data:`DASK_MAX_BATCH` items each."""
    chunk: list[T] = []
    total = 0.0
    for item in items:
        c = cost(item)
        chunk.append(item)
        total += c if c > 0 else 1920 * 1080
        if total >= DASK_TASK_COST or len(chunk) >= DASK_MAX_BATCH:
            yield chunk
            chunk, total = [], 0.0
    if chunk:
        yield chunk


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
