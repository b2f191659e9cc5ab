"""The check's one dask connection (``work/executors.py``: :class:`Session`) and tasks sized by their cost.

A session is opened once per check (the plugin, at configure time), set up in the background, and used
by every :class:`Executor` of the process given the same ``dask`` value: MASK-04's inflating and each
scorer share one LocalCluster or one scheduler connection instead of each starting its own.  These tests
put a stand-in connection (a client that runs each task at once) behind ``executors._open`` and count
what is opened and closed; ``tests/glue/test_dask_session.py`` runs a real check on a real LocalCluster.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import Future
from importlib.util import find_spec
from typing import Any

import pytest

from pytest_omfc.errors import ExecutionError
from pytest_omfc.work import executors
from pytest_omfc.work.executors import DASK_INSTALL, DASK_MAX_BATCH, DASK_TASK_COST, Executor, open_session


class _Client:
    """A dask client stand-in: each task runs at submit time; counts tasks and closes."""

    def __init__(self) -> None:
        self.tasks: list[Any] = []
        self.closed = 0

    def submit(self, fn: Any, *args: Any, pure: bool = True) -> Future[Any]:
        self.tasks.append(args[-1])
        fut: Future[Any] = Future()
        fut.set_result(fn(*args))
        return fut

    def nthreads(self) -> dict[str, int]:
        return {"a": 1, "b": 1}

    def close(self) -> None:
        self.closed += 1


class _Opener:
    """``executors._open`` replaced: records each opening (dask value, workers), may wait or fail."""

    def __init__(self, fail: str | None = None, gate: threading.Event | None = None) -> None:
        self.opened: list[tuple[str, int]] = []
        self.clients: list[_Client] = []
        self.fail, self.gate = fail, gate

    def __call__(self, dask: str, workers: int, timeout: float) -> Any:
        if self.gate is not None:
            assert self.gate.wait(10)
        self.opened.append((dask, workers))
        if self.fail:
            raise ExecutionError(self.fail)
        client = _Client()
        self.clients.append(client)
        return executors._Connection(client, distributed=None)


@pytest.fixture
def opener(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Opener]:
    got = _Opener()
    monkeypatch.setattr(executors, "_open", got)
    yield got
    if executors._SESSION is not None:
        executors._SESSION.close()


def _square(x: int) -> int:
    return x * x


def test_every_executor_of_a_check_shares_the_sessions_one_connection(opener: _Opener) -> None:
    session = open_session(" local ", jobs=3).start()
    for _ in range(3):  # MASK-04, then two scorers: one connection, opened once, with the check's workers
        with Executor(jobs=2, dask="local") as ex:
            assert list(ex.map(_square, range(40), batch=4)) == [i * i for i in range(40)]
    assert opener.opened == [("local", 3)]
    assert opener.clients[0].closed == 0, "an executor never closes the check's connection"
    session.close()
    assert opener.clients[0].closed == 1 and executors._SESSION is None
    session.close()  # idempotent
    assert opener.clients[0].closed == 1


def test_without_a_session_or_for_another_address_an_executor_opens_and_closes_its_own(opener: _Opener) -> None:
    with Executor(jobs=2, dask="local") as ex:
        assert list(ex.map(_square, [1, 2, 3])) == [1, 4, 9]
    assert opener.opened == [("local", 2)] and opener.clients[0].closed == 1
    open_session("tcp://127.0.0.1:1", jobs=2)  # a session for another value: not this executor's
    with Executor(jobs=None, dask="local") as ex:
        assert list(ex.map(_square, [1, 2])) == [1, 4]
    assert opener.opened == [("local", 2), ("local", 2)] and opener.clients[1].closed == 1


def test_a_local_cluster_has_the_workers_asked_for(opener: _Opener) -> None:
    for jobs, workers in ((1, 1), (4, 4), (None, 2)):
        with Executor(jobs=jobs, dask="local") as ex:
            list(ex.map(_square, [1, 2]))
        assert opener.opened[-1] == ("local", workers)


def test_a_session_that_cannot_start_is_the_same_error_for_every_use_and_is_tried_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    failing = _Opener(fail="dask: cannot connect to the scheduler at 'tcp://127.0.0.1:1' within 10 s")
    monkeypatch.setattr(executors, "_open", failing)
    session = open_session("tcp://127.0.0.1:1", jobs=2).start()
    try:
        for _ in range(2):
            with pytest.raises(
                ExecutionError, match=r"^dask: cannot connect to the scheduler at 'tcp://127\.0\.0\.1:1'"
            ):
                with Executor(jobs=2, dask="tcp://127.0.0.1:1") as ex:
                    list(ex.map(_square, [1, 2]))
        assert len(failing.opened) == 1
    finally:
        session.close()


def test_a_session_opens_on_its_first_use_when_not_started_and_close_waits_for_a_start_under_way(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lazy = _Opener()
    monkeypatch.setattr(executors, "_open", lazy)
    session = open_session("local", jobs=2)  # a small check: nothing started at configure time
    assert lazy.opened == []
    with Executor(jobs=2, dask="local") as ex:
        assert list(ex.map(_square, [2, 3])) == [4, 9]
    assert lazy.opened == [("local", 2)]
    session.close()
    assert lazy.clients[0].closed == 1

    gate = threading.Event()
    slow = _Opener(gate=gate)
    monkeypatch.setattr(executors, "_open", slow)
    session = open_session("local", jobs=2).start()
    closer = threading.Thread(target=session.close)
    closer.start()
    closer.join(0.2)
    assert closer.is_alive(), "close waits for the start under way"
    gate.set()
    closer.join(10)
    assert not closer.is_alive() and slow.clients[0].closed == 1, "what the start opened is closed"
    with pytest.raises(ExecutionError, match="was closed"):
        session.connection()


def test_a_new_session_closes_the_one_before(opener: _Opener) -> None:
    first = open_session("local", jobs=2).start()
    first.connection()
    open_session("local", jobs=2)
    assert opener.clients[0].closed == 1 and executors._SESSION is not first


def test_tasks_are_sized_by_the_cost_of_their_items_in_input_order(opener: _Opener) -> None:
    full_hd = 1920 * 1080
    small = 640 * 480
    costs = [full_hd] * 40 + [small] * 300 + [0] * 20 + [1] * (DASK_MAX_BATCH + 10)
    items = list(range(len(costs)))
    with Executor(jobs=2, dask="local") as ex:
        got = list(ex.map(_square, items, cost=lambda i: costs[i]))
    assert got == [i * i for i in items]
    sizes = [len(task) for task in opener.clients[0].tasks]
    assert sum(sizes) == len(items)
    per_hd = DASK_TASK_COST // full_hd  # 16 masks of 1920x1080
    assert sizes[:2] == [per_hd, per_hd]
    assert max(sizes) == DASK_MAX_BATCH, "a task holds at most DASK_MAX_BATCH items"
    small_tasks = [len(t) for t in opener.clients[0].tasks if all(40 <= i < 340 for i in t)]
    assert small_tasks and min(small_tasks) >= DASK_TASK_COST // small, "small masks: many per task"
    unknown = [len(chunk) for chunk in executors._by_cost(range(40), lambda i: 0)]
    assert unknown == [per_hd, per_hd, 40 - 2 * per_hd], "an unknown cost counts as a 1920x1080 mask"
    # a cost on a local pool or in this process changes nothing: one item at a time
    with Executor(jobs=1) as ex:
        assert list(ex.map(_square, items[:5], cost=lambda i: costs[i])) == [0, 1, 4, 9, 16]


def _where(_: int) -> tuple[int, bool, bool]:
    """In a task: the worker's parent, whether dask.distributed was imported before the task module, profiling."""
    import os
    import sys

    import dask.config

    return os.getppid(), "distributed" in sys.modules, bool(dask.config.get("distributed.worker.profile.enabled"))


@pytest.mark.skipif(find_spec("distributed") is None, reason=f"dask.distributed is not installed ({DASK_INSTALL})")
def test_a_local_clusters_workers_come_from_the_forkserver_and_do_not_profile() -> None:
    """dask would spawn each worker from this process (a fresh interpreter importing dask.distributed); they are
    forked by the pools' forkserver instead, so their parent is not this process, and dask's stack sampler is
    off."""
    import os

    with Executor(jobs=2, dask="local") as ex:
        got = list(ex.map(_where, range(4), batch=1))
    parents = {parent for parent, _, _ in got}
    assert os.getpid() not in parents and all(imported for _, imported, _ in got)
    assert not any(profiling for _, _, profiling in got)


@pytest.mark.skipif(find_spec("distributed") is None, reason=f"dask.distributed is not installed ({DASK_INSTALL})")
def test_a_local_session_has_the_forkserver_preload_dask_before_anything_starts_it(
    opener: _Opener, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plugin opens the session before a large check's warm-up starts the forkserver, so the LocalCluster's
    workers it forks find dask.distributed imported; a session for a scheduler address changes nothing."""
    from pytest_omfc.work import pool

    monkeypatch.setattr(pool, "_preload", list(pool.PRELOAD))
    open_session("tcp://127.0.0.1:1", jobs=2)
    assert pool._preload == pool.PRELOAD
    open_session("local", jobs=2)
    assert pool._preload == [*pool.PRELOAD, *pool.DASK_PRELOAD]
