"""Run a command and measure its whole process tree: wall time, CPU time and peak memory of every process.

``resource.RUSAGE_CHILDREN`` counts only the descendants that were waited for, one by one, and its
``ru_maxrss`` is the largest single process: the workers of a forkserver pool (children of the forkserver,
which nobody waits for) and xdist's workers running side by side are missed or not summed.  So the tree is
sampled from ``/proc`` every few milliseconds: each process's CPU time as last seen (plus what the waited
children report, whichever is larger), and the sum of the resident sizes (RSS, pages shared between
forked workers counted in each) and of the proportional set sizes (PSS, shared pages divided among their
users) at each sample; the largest sums are the peaks.  A process living less than one interval may be
missed; the pool and xdist workers live for the whole run.  Linux only.
"""

from __future__ import annotations

import os
import resource
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path

_TICK = os.sysconf("SC_CLK_TCK")
_PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass(frozen=True)
class TreeRun:
    wall: float  # seconds
    cpu: float  # seconds, user + system, every process of the tree
    peak_rss_mb: float  # the largest sum of the processes' resident sizes
    peak_pss_mb: float  # the largest sum of their proportional set sizes
    largest_rss_mb: float  # the largest resident size of one process
    processes: int  # how many processes were seen
    returncode: int
    stdout: str
    stderr: str


def descendants(root: int) -> list[int]:
    """``root`` and its descendants, from each thread's ``children`` list (no scan of all of /proc)."""
    todo, seen = [root], []
    while todo:
        pid = todo.pop()
        seen.append(pid)
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                todo.extend(int(c) for c in Path(f"/proc/{pid}/task/{tid}/children").read_text().split())
            except (OSError, ValueError):
                pass
    return seen


def cpu_seconds(pids: list[int]) -> float:
    """The user + system CPU seconds the processes ``pids`` have used so far (those still alive)."""
    total = 0.0
    for pid in pids:
        got = _sample(pid)
        total += got[0] if got is not None else 0.0
    return total


def _sample(pid: int) -> tuple[float, int, int] | None:
    """CPU seconds, RSS and PSS bytes of one process (None once it is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        fields = stat[stat.rindex(")") + 2 :].split()
        cpu = (int(fields[11]) + int(fields[12])) / _TICK
        rss = int(fields[21]) * _PAGE
        pss = rss
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            if line.startswith("Pss:"):
                pss = int(line.split()[1]) * 1024
                break
        return cpu, rss, pss
    except (OSError, ValueError, IndexError):
        return None


def run_tree(
    cmd: list[str], *, cwd: Path | None = None, env: dict[str, str] | None = None, interval: float = 0.02
) -> TreeRun:
    """Run ``cmd`` to its end, sampling its process tree every ``interval`` seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    cpu_of: dict[int, float] = {}
    peak_rss = peak_pss = largest = 0
    out: list[str] = []
    err: list[str] = []
    readers = [
        threading.Thread(target=lambda: out.append(proc.stdout.read() if proc.stdout else "")),
        threading.Thread(target=lambda: err.append(proc.stderr.read() if proc.stderr else "")),
    ]
    for r in readers:
        r.start()
    while proc.poll() is None:
        rss = pss = 0
        for pid in descendants(proc.pid):
            got = _sample(pid)
            if got is None:
                continue
            cpu_of[pid] = max(cpu_of.get(pid, 0.0), got[0])
            rss += got[1]
            pss += got[2]
            largest = max(largest, got[1])
        peak_rss, peak_pss = max(peak_rss, rss), max(peak_pss, pss)
        time.sleep(interval)
    wall = time.perf_counter() - t0
    for r in readers:
        r.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    waited = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return TreeRun(
        wall=wall,
        cpu=max(sum(cpu_of.values()), waited),
        peak_rss_mb=peak_rss / 2**20,
        peak_pss_mb=peak_pss / 2**20,
        largest_rss_mb=largest / 2**20,
        processes=len(cpu_of),
        returncode=proc.returncode,
        stdout="".join(out),
        stderr="".join(err),
    )
