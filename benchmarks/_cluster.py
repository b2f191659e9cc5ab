"""A dask scheduler and two single-threaded workers on 127.0.0.1, started as docs/portals.md tells a portal.

``with scheduler() as (address, workers):`` starts ``dask scheduler`` and ``dask worker --nworkers 2
--nthreads 1`` (dask's own settings, the nanny's ``MALLOC_TRIM_THRESHOLD_=65536`` included: every task
sets the allocator itself), waits for the workers to connect and yields the address, the worker
processes' PIDs and the scheduler's, whose CPU a benchmark reads from ``/proc`` (``_tree.cpu_seconds``)
before and after each run: they are not in the measured process tree.  Both are stopped on exit.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager

from _tree import descendants  # benchmarks/_tree.py: the scripts run from this folder


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def scheduler(settle: float = 4.0) -> Iterator[tuple[str, list[int], list[int]]]:
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")}  # dask's nanny sets its own
    sched = subprocess.Popen(
        ["dask", "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    worker = subprocess.Popen(
        ["dask", "worker", address, "--nworkers", "2", "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        start_new_session=True,
    )
    try:
        time.sleep(settle)  # the workers connect
        yield address, descendants(worker.pid), descendants(sched.pid)
    finally:
        for proc in (worker, sched):
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)
