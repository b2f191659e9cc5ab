"""glibc's allocator, set for processes that score pixels: freed mask-sized arrays are reused, not unmapped.

A mask scorer allocates and frees arrays of a mask's size (2 MB for a 1920x1080 mask, 16 MB as
int64) many times per mask.  With glibc's defaults such an array is ``mmap``-ed, or freed at the top of
the heap and trimmed, so the next one is mapped afresh and every page of it faults in again: 2,000 to
5,000 page faults and 5 to 13 ms of system time per 1920x1080 mask in ``benchmarks/score_masks.py``'s
runs (dask's nannies make it worse by starting workers with ``MALLOC_TRIM_THRESHOLD_=65536``).
:func:`reuse_freed_memory` raises the mmap threshold to glibc's largest (32 MiB) and the trim threshold
to 64 MiB, both fixed (which also ends glibc's dynamic adjustment): arrays of a mask's size then come
from the heap and are reused, and a process keeps at most 64 MiB of freed memory for that.

It is called, once per process, where scoring work runs (:mod:`pytest_omfc.work.executors`: this
process, a local pool's workers, dask workers).  Elsewhere than glibc (musl, macOS, Windows) it does
nothing and returns False.
"""

from __future__ import annotations

import ctypes
import sys

__all__ = ["MMAP_THRESHOLD", "TRIM_THRESHOLD", "in_force", "reuse_freed_memory"]

#: glibc's ``mallopt`` parameters (malloc.h)
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
#: glibc's largest mmap threshold on 64-bit (DEFAULT_MMAP_THRESHOLD_MAX; mallopt refuses more)
MMAP_THRESHOLD = 32 * 1024 * 1024
#: freed memory a process keeps at the top of its heap before returning it to the system
TRIM_THRESHOLD = 64 * 1024 * 1024

_applied: bool | None = None


def reuse_freed_memory() -> bool:
    """Set glibc's thresholds in this process (once); True when they are in force."""
    global _applied
    if _applied is not None:
        return _applied
    _applied = False
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    if not hasattr(libc, "gnu_get_libc_version"):  # not glibc (musl's mallopt does nothing)
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    _applied = bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))
    return _applied


def in_force(_item: object = None) -> bool:
    """Has :func:`reuse_freed_memory` set the thresholds in this process?  (An item function, for tests.)"""
    return bool(_applied)
