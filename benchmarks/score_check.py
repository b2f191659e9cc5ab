"""A whole scoring check through pytest, on one process, the local pool and a dask LocalCluster, in one run.

What a portal runs: ``pytest --omfc-submission SUB --omfc-dataset DATA --omfc-task IMDL --omfc-reference
REF --omfc-metrics-json M`` on an OpenMFC2020 IMDL submission of N probes (default 300) with 1920x1080
grey system masks and binary reference masks (``score_masks.py``'s pairs, cached under the same
directory; every system mask is its own file, as uploaded, the reference masks are hard links into the
cached pool).  Every rule runs (MASK-04 inflates every system mask) and then the mask and detection
scorers.  Each mode is a fresh subprocess measured as a process tree (``benchmarks/_tree.py``: pytest, the
forkserver and its pool workers, the LocalCluster's nannies and workers), the modes interleaved round by
round, best of ``--repeat``:

* ``--omfc-jobs 1`` (no process started), ``--omfc-jobs 2`` (the local pool);
* ``--omfc-dask local`` with ``--omfc-jobs 2``: a LocalCluster of two single-threaded worker processes
  that the run starts and stops (its start, its stop and every task in the measured time);
* with ``--scaling``: the LocalCluster with 1, 2 and 4 workers (``--omfc-jobs 1/2/4``).

Prints wall and CPU time, peak PSS of the tree and the ratios against ``--omfc-jobs 2``, the time of
MASK-04's items and of the mask score item (from the JUnit XML: a LocalCluster's start is paid by the
first of them that waits for it), and checks that every mode wrote the same metrics JSON (the numbers do
not depend on where they were computed).  Asserts nothing.

``--baseline DIR``: another checkout (e.g. ``git worktree add /tmp/main main``) whose ``--omfc-dask local``
run is timed in the same rounds: before/after.

Run: ``python benchmarks/score_check.py [--probes N] [--repeat R] [--scaling] [--baseline DIR]`` (needs
``pytest-omfc[dask]`` for the cluster rows).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path

from _tree import TreeRun, run_tree  # benchmarks/_tree.py: the scripts run from this folder
from score_masks import _fresh, _ready, cache_root, mask_pairs

SUB = "p-bench_1_imdl"
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "submissions" / "imdl" / "p-baseline_3_imdl"


def build(root: Path, n: int, variants: int) -> Path:
    """The case folder: ``OpenMFC2020/`` (index, reference CSV, reference masks) and the submission ``SUB/``."""
    pool = mask_pairs(root, variants)
    case = root / f"check-{n}-{variants}"
    if _ready(case):
        return case
    _fresh(case)
    data, sub = case / "OpenMFC2020", case / SUB
    (data / "indexes").mkdir(parents=True)
    (data / "reference" / "IMDL" / "mask").mkdir(parents=True)
    (sub / "mask").mkdir(parents=True)
    ids = [f"OpenMFC2020_{i:06d}" for i in range(n)]
    index = ["TaskID|ProbeFileID|ProbeFileName|ProbeWidth|ProbeHeight|ProbeFileSize|HPDeviceID"]
    ref = ["TaskID|ProbeFileID|ProbeFileName|IsTarget|ProbeMaskFileName"]
    out = ["ProbeFileID|ConfidenceScore|OutputProbeMaskFileName|ProbeStatus|ProbeOptOutPixelValue"]
    for i, pid in enumerate(ids):
        v = i % variants
        index.append(f"Image Manipulation|{pid}|probe/{pid}.jpg|1920|1080|100000|PAR{i:04d}")
        ref.append(f"Image Manipulation|{pid}|probe/{pid}.jpg|Y|reference/IMDL/mask/{pid}-ref.png")
        out.append(f"{pid}|{(i % 97) / 97:.4f}|mask/{pid}-mask.png|Processed|")
        target = data / "reference" / "IMDL" / "mask" / f"{pid}-ref.png"
        try:
            os.link(pool / f"ref{v:03d}.png", target)
        except OSError:
            shutil.copyfile(pool / f"ref{v:03d}.png", target)
        shutil.copyfile(pool / f"sys{v:03d}.png", sub / "mask" / f"{pid}-mask.png")  # its own file, as uploaded
    (data / "indexes" / "OpenMFC20_Image-IMDL-index.csv").write_text("\n".join(index) + "\n")
    (data / "reference" / "IMDL" / "OpenMFC20_Image-IMDL-ref.csv").write_text("\n".join(ref) + "\n")
    (sub / f"{SUB}.csv").write_text("\n".join(out) + "\n")
    text = (EXAMPLE / f"{EXAMPLE.name}.txt").read_text(encoding="utf-8")
    (sub / f"{SUB}.txt").write_text(text.replace(EXAMPLE.name, SUB), encoding="utf-8")
    (case / "complete").touch()
    return case


def run(case: Path, mode: list[str], metrics: Path, junit: Path, code: Path | None = None) -> TreeRun:
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "pytest_omfc.plugin",
        "-p",
        "no:cacheprovider",
        "-q",
        "--omfc-submission",
        str(case / SUB),
        "--omfc-dataset",
        str(case / "OpenMFC2020"),
        "--omfc-task",
        "IMDL",
        "--omfc-reference",
        "reference/IMDL/OpenMFC20_Image-IMDL-ref.csv",
        "--omfc-metrics-json",
        str(metrics),
        "--junitxml",
        str(junit),
        *mode,
    ]
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as users run: the warm-up round leaves bytecode caches
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # only pytest-omfc, as a portal's environment would
    if code is not None:  # another checkout's plugin, first on the path
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(code), env.get("PYTHONPATH", "")) if p)
    return run_tree(cmd, cwd=case, env=env)


def _item_times(junit: Path) -> tuple[float, float]:
    """Seconds of MASK-04's items (the inflating) and of the mask score item, from the JUnit XML."""
    import xml.etree.ElementTree as ET

    mask04 = scoring = 0.0
    for case in ET.parse(junit).iter("testcase"):
        name, seconds = case.get("name", ""), float(case.get("time", "0"))
        if name.startswith("MASK-04"):
            mask04 += seconds
        elif name == "mask" and case.get("classname", "").endswith(".score"):
            scoring += seconds
    return mask04, scoring


def _numbers(path: Path) -> str:
    """The metrics JSON without what differs between runs of the same numbers (times, options, paths)."""
    data = json.loads(path.read_text(encoding="utf-8"))

    def strip(x: object) -> object:
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k not in {"options", "generated", "settings", "run"}}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x

    return json.dumps(strip(data), sort_keys=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--probes", type=int, default=300)
    ap.add_argument("--variants", type=int, default=16, help="distinct mask pairs")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--scaling", action="store_true", help="also a LocalCluster of 1 and 4 workers")
    ap.add_argument("--baseline", type=Path, help="another checkout whose --omfc-dask local runs in the same rounds")
    args = ap.parse_args()
    case = build(cache_root(), args.probes, args.variants)
    modes: dict[str, list[str]] = {
        "--omfc-jobs 1": ["--omfc-jobs", "1"],
        "--omfc-jobs 2 (local pool)": ["--omfc-jobs", "2"],
        "--omfc-dask local, 2 workers": ["--omfc-dask", "local", "--omfc-jobs", "2"],
    }
    if args.baseline is not None:
        modes["baseline: --omfc-dask local, 2"] = ["--omfc-dask", "local", "--omfc-jobs", "2"]
    if args.scaling:
        modes["--omfc-dask local, 1 worker"] = ["--omfc-dask", "local", "--omfc-jobs", "1"]
        modes["--omfc-dask local, 4 workers"] = ["--omfc-dask", "local", "--omfc-jobs", "4"]
    out = Path(os.environ.get("TMPDIR", "/tmp")) / f"score-check-{os.getpid()}"
    out.mkdir(exist_ok=True)
    try:
        runs: dict[str, list[TreeRun]] = {m: [] for m in modes}
        items: dict[str, list[tuple[float, float]]] = {m: [] for m in modes}
        numbers: dict[str, str] = {}
        for r in range(args.repeat + 1):  # round 0 warms the byte-code caches and the page cache
            for label, mode in modes.items():
                metrics, junit = out / f"{len(numbers)}.json", out / "junit.xml"
                code = args.baseline if label.startswith("baseline") else None
                got = run(case, mode, metrics, junit, code)
                if got.returncode not in (0, 1):
                    sys.exit(f"{label}: exit {got.returncode}\n{got.stdout[-2000:]}\n{got.stderr[-2000:]}")
                if r == 0:
                    numbers[label] = _numbers(metrics)
                    last = [ln for ln in got.stdout.splitlines() if ln.strip()]
                    print(f"  {label}: {last[-1] if last else got.stderr.strip()[-200:]}", flush=True)
                else:
                    runs[label].append(got)
                    items[label].append(_item_times(junit))
    finally:
        shutil.rmtree(out, ignore_errors=True)
    cpus = len(os.sched_getaffinity(0))
    print(f"\npytest scoring check, {args.probes} probes of 1920x1080 masks; best of {args.repeat}; {cpus} CPUs")
    print(
        f"  {'':32} {'wall s':>7} {'CPU s':>7} {'peak PSS MB':>12} {'processes':>10} {'vs jobs 2':>10} "
        f"{'MASK-04 s':>10} {'score::mask s':>14}"
    )
    pool = min(x.wall for x in runs["--omfc-jobs 2 (local pool)"])
    for label, rs in runs.items():
        wall, cpu = min(x.wall for x in rs), min(x.cpu for x in rs)
        pss, procs = min(x.peak_pss_mb for x in rs), max(x.processes for x in rs)
        mask04, scoring = min(t[0] for t in items[label]), min(t[1] for t in items[label])
        print(
            f"  {label:32} {wall:7.2f} {cpu:7.2f} {pss:12.0f} {procs:10d} {wall / pool:9.2f}x "
            f"{mask04:10.2f} {scoring:14.2f}"
        )
    same = len(set(numbers.values())) == 1
    print(f"  metrics JSON: {'identical numbers in every mode' if same else 'DIFFERENT between modes'}")


if __name__ == "__main__":
    main()
