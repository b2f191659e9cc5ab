"""The one timing helper of the benchmark scripts (each runs as ``python benchmarks/<name>.py``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, NamedTuple


class Best(NamedTuple):
    """Best wall and best CPU seconds over the runs (each the least disturbed on a shared machine), last result."""

    wall: float
    cpu: float
    result: Any


def best(fn: Callable[[], Any], repeat: int) -> Best:
    """Run ``fn`` ``repeat`` times (at least once)."""
    walls, cpus, out = [], [], None
    for _ in range(max(1, repeat)):
        w0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - w0)
        cpus.append(time.process_time() - c0)
    return Best(min(walls), min(cpus), out)
