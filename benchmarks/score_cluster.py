"""Mask scoring on a dask.distributed cluster against local processes, on the same masks, in one run.

Uses ``score_masks.py``'s whole-run case (N probes of 1920x1080 PNG reference and system masks, cached
under the same directory) and scores it with ``pytest_omfc.scoring.mask.score_masks``; with ``--task
spatial``, ``score_forgerynet.py``'s spatial case instead (``--probes`` pairs of 256x256 PNG maps, the
pipe-separated reference) scored with ``pytest_omfc.omfc_score`` (the FNET rules' reading, then the
pairs on the executor):

* one local process (``jobs=1``) and a local pool (``jobs=2``), each in a subprocess measured as a
  process tree (``benchmarks/_tree.py``);
* ``dask=tcp://127.0.0.1:<port>``: a ``dask scheduler`` and a ``dask worker --nworkers 2 --nthreads 1``
  started here on 127.0.0.1 as docs/portals.md tells a portal to start them (dask's own settings,
  ``MALLOC_TRIM_THRESHOLD_=65536`` from the nanny included: each task sets the allocator itself), left
  running across the repeats; the workers' CPU is read from ``/proc`` before and after each run and
  added to the client's;
* ``dask="local"``: a LocalCluster of 2 single-threaded workers that the run starts and stops itself (its
  workers are the run's children, in its process tree), put against the local pool.

Prints wall time, CPU time, CPU per mask, the per-mask overhead of the cluster (its CPU per mask minus
one local process's) and the speed-up of two dask workers over one local process.  Targets (issue):
overhead <= 2 ms per mask, two workers >= 1.7x one local process.  For masks it also starts two plain
processes together, each scoring every other probe with ``jobs=1`` (no pool, no cluster): their speed-up over
one process is what two CPUs of the machine give at all, and the pool and the cluster are put against it.
Asserts nothing.

Run: ``python benchmarks/score_cluster.py [--probes N] [--repeat R] [--batch B]
[--task spatial]`` (needs pytest-omfc[dask]; ``--batch 1`` is one task per mask)
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sys
import tempfile
import time
from pathlib import Path

from _cluster import scheduler  # benchmarks/_cluster.py
from _tree import cpu_seconds, run_tree  # benchmarks/_tree.py: the scripts run from this folder
from score_masks import cache_root, run_inputs


def child(
    case: Path, jobs: int, dask: str | None, batch: int | None, task: str = "masks", half: int | None = None
) -> None:
    """Inside the measured subprocess: score the case (or every other probe of it, from ``half``), print one
    JSON line."""
    from pytest_omfc.scoring.mask import score_masks
    from pytest_omfc.work import executors

    if batch is not None:  # 1920x1080 masks per dask task (the shipped default: executors.DASK_TASK_COST, 16)
        executors.DASK_TASK_COST = batch * 1920 * 1080
    if task == "spatial":
        from pytest_omfc import omfc_score

        t0 = time.perf_counter()
        scores = omfc_score(
            submission=case / "p-bench_1",
            reference=case / "data" / "spatial_ref.csv",
            edition="ForgeryNet",
            task="spatial",
            jobs=jobs,
            **({"dask": dask} if dask else {}),
        )
        res = scores["forgerynet-spatial"].only()
        metrics = res.metrics or {}
        scored = res.counts.get("scored", 0)
        print(json.dumps({"wall": time.perf_counter() - t0, "iou": metrics.get("IoU@0.1_img"), "n": scored}))
        return

    tables = case
    if half is not None:  # the probes half, half + 2, ... of each table (the same mix of masks), files as they are
        tables = Path(tempfile.mkdtemp(prefix="omfc-half-"))
        for name in ("index.csv", "ref.csv", "sys.csv"):
            head, *rows = (case / name).read_text(encoding="utf-8").splitlines()
            (tables / name).write_text("\n".join([head, *rows[half::2]]) + "\n", encoding="utf-8")
    t0 = time.perf_counter()
    try:
        report = score_masks(
            tables / "index.csv",
            tables / "ref.csv",
            tables / "sys.csv",
            sys_dir=case,
            ref_dir=case,
            jobs=jobs,
            dask=dask,
        )
    finally:
        if tables != case:  # the half's tables only; the masks stay in the cache
            shutil.rmtree(tables, ignore_errors=True)
    agg = report.results[0].aggregate
    print(json.dumps({"wall": time.perf_counter() - t0, "mcc": agg.get("OptimumMCC"), "n": agg.get("ScoreableTrials")}))


def measure(
    case: Path, jobs: int, dask: str | None, workers: list[int], batch: int | None, task: str
) -> tuple[float, float, float, dict]:
    """(wall, score wall, CPU of the client tree plus the cluster's workers, result) of one scoring run."""
    before = cpu_seconds(workers)
    cmd = [sys.executable, __file__, "--child", str(case), "--jobs", str(jobs)] + (["--dask", dask] if dask else [])
    cmd += ["--batch", str(batch)] if batch is not None else []
    cmd += ["--task", task]
    run = run_tree(cmd, cwd=Path(__file__).parent)
    if run.returncode != 0:
        raise RuntimeError(run.stderr[-2000:])
    data = json.loads(run.stdout.strip().splitlines()[-1])
    if not data.get("n"):  # a run that scored nothing (workers that cannot see the files) is not a time
        raise RuntimeError(f"the run scored nothing: {data}")
    return run.wall, float(data["wall"]), run.cpu + cpu_seconds(workers) - before, data


def measure_halves(case: Path) -> tuple[float, float, float, dict]:
    """Two plain processes (``jobs=1``) started together, each scoring every other probe: what two CPUs of
    this machine give at best, with no pool, cluster or scheduling at all (the ceiling of the speed-up)."""
    cmd = [sys.executable, __file__, "--child", str(case), "--jobs", "1", "--task", "masks", "--half"]
    script = " & ".join(shlex.join([*cmd, str(k)]) for k in (0, 1)) + " & wait"
    run = run_tree(["sh", "-c", script], cwd=Path(__file__).parent)
    if run.returncode != 0:
        raise RuntimeError(run.stderr[-2000:])
    halves = [json.loads(line) for line in run.stdout.strip().splitlines()[-2:]]
    if len(halves) != 2 or not all(h.get("n") for h in halves):
        raise RuntimeError(f"a half scored nothing: {run.stdout[-500:]}")
    return run.wall, max(float(h["wall"]) for h in halves), run.cpu, {"n": sum(h["n"] for h in halves)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--probes", type=int, default=300)
    ap.add_argument("--variants", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--child", type=Path)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--dask")
    ap.add_argument("--batch", type=int, help="masks per dask task (default: the shipped DASK_TASK_COST, 16 masks)")
    ap.add_argument("--task", choices=("masks", "spatial"), default="masks", help="what is scored")
    ap.add_argument("--half", type=int, choices=(0, 1), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        child(args.child, args.jobs, args.dask, args.batch, args.task, args.half)
        return
    if args.task == "spatial":
        from score_forgerynet import spatial_inputs

        case = spatial_inputs(args.probes)
    else:
        case = run_inputs(cache_root(), args.probes, args.variants)
    with scheduler() as (address, workers, _):
        rows = []
        for label, jobs, dask in (
            ("one local process (jobs=1)", 1, None),
            ("local pool (jobs=2)", 2, None),
            ("dask, 2 workers x 1 thread", 1, address),
            ("dask local (its own cluster)", 2, "local"),
        ):
            runs = [
                measure(case, jobs, dask, workers if dask and dask != "local" else [], args.batch, args.task)
                for _ in range(args.repeat)
            ]
            rows.append((label, min(runs, key=lambda r: r[0])))
        local = rows.pop()  # printed last: it starts and stops a LocalCluster of 2 in the run
        if args.task == "masks":
            runs = [measure_halves(case) for _ in range(args.repeat)]
            rows.append(("two plain processes, half each", min(runs, key=lambda r: r[0])))
        n = args.probes
        what = (
            "score_masks on {n} probes of 1920x1080 PNG masks"
            if args.task == "masks"
            else "omfc_score, ForgeryNet spatial, on {n} pairs of 256x256 PNG maps"
        )
        unit = "mask" if args.task == "masks" else "pair"
        print(f"{what.format(n=n)}; best of {args.repeat}; {os.cpu_count()} CPUs")
        print(f"  {'':<30} {'wall s':>7} {'scoring s':>9} {'CPU s':>7} {'CPU ms/' + unit:>11}")
        for label, (wall, score, cpu, _) in [*rows, local]:
            print(f"  {label:<30} {wall:7.2f} {score:9.2f} {cpu:7.2f} {1000 * cpu / n:11.1f}")
        one, dask_row = rows[0][1], rows[2][1]
        print(
            f"  cluster overhead: {1000 * (dask_row[2] - one[2]) / n:+.1f} ms of CPU per {unit} (target <= 2 ms); "
            f"two dask workers are {one[1] / dask_row[1]:.2f}x one local process in scoring time (target >= 1.7x)"
        )
        print(
            f"  dask local against the local pool: {local[1][0] / rows[1][1][0]:.2f}x its wall time "
            "(target <= 1.0x; the cluster's start and stop are in the run)"
        )
        if args.task == "masks":
            ceiling = one[1] / rows[3][1][1]
            pool_share, dask_share = one[1] / rows[1][1][1] / ceiling, one[1] / dask_row[1] / ceiling
            print(
                f"  the machine's ceiling: two plain processes score {ceiling:.2f}x as fast as one; the local pool "
                f"reaches {pool_share:.0%} of it, the dask workers {dask_share:.0%}; the cluster's CPU per mask is "
                f"{1000 * (dask_row[2] - rows[3][1][2]) / n:+.1f} ms against the two plain processes' (both CPUs busy)"
            )


if __name__ == "__main__":
    main()
