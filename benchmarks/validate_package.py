"""Checking an NC2017 package of many small EXPIDs: the cost of an EXPID, whole process.

An NC2017 package (``<TEAM>_<YEAR>_<DATA>_<SUBNUM>/``) holds one folder per EXPID, each checked as a submission
of its own (47 rule items for an image manipulation EXPID).  A team that submits one EXPID per system
variant, or a portal fed a package crafted to be slow, makes this the run's cost: what is spent per EXPID,
not per trial.  The package is the bundled example's manipulation EXPID
(``examples/submissions/nc2017/NIST_NC17_DRYRUN17_5``) copied ``--expids`` times under EXPIDs of their own
(``..._p-baseline_<k>``), each description listing its own EXPID (a clean package: every rule passes), its
three trials and one 64x48 mask; the dataset is the bundled ``examples/datasets/NC2017``.  It is made once
under the benchmarks' cache folder.

Each run is ``python -m pytest_omfc --omfc-submission <package> --omfc-dataset <dataset> -q`` in a
subprocess, measured whole (wall, CPU and peak memory of the process tree, ``benchmarks/_tree.py``); the best
of ``--repeat`` runs is printed with the time per EXPID.  ``--baseline DIR`` also times the checkout at DIR
(e.g. ``git worktree add /tmp/base <commit>``) in the same rounds, interleaved, and prints the ratio: the
machine's load changes from minute to minute, a ratio measured side by side much less.  Prints; asserts nothing
(target: 1,000 such EXPIDs under 30 s on a 2-CPU machine).

Run: ``python benchmarks/validate_package.py [--expids N] [--repeat R] [--baseline DIR]``
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the scripts run from this folder
from _tree import TreeRun, run_tree  # noqa: E402
from validate_scale import cache_root  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples/submissions/nc2017/NIST_NC17_DRYRUN17_5"
TEMPLATE = "NIST_NC17_DRYRUN17_Manipulation_ImgOnly_p-baseline_3"
DATASET = REPO / "examples/datasets/NC2017"


def generate(n: int, root: Path) -> Path:
    """The package of ``n`` EXPIDs (made once, then reused)."""
    case = root / f"nc2017-package-{n}"
    package = case / EXAMPLE.name
    if (case / "complete").is_file():
        return package
    if case.exists():
        shutil.rmtree(case)
    source = EXAMPLE / TEMPLATE
    csv = (source / f"{TEMPLATE}.csv").read_text(encoding="utf-8")
    txt = (source / f"{TEMPLATE}.txt").read_text(encoding="utf-8")
    masks = {p.name: p.read_bytes() for p in (source / "mask").iterdir()}
    for k in range(1, n + 1):
        expid = TEMPLATE.replace("p-baseline_3", f"p-baseline_{k}")
        folder = package / expid
        (folder / "mask").mkdir(parents=True)
        (folder / f"{expid}.csv").write_text(csv, encoding="utf-8")
        (folder / f"{expid}.txt").write_text(txt.replace(TEMPLATE, expid), encoding="utf-8")
        for name, data in masks.items():
            (folder / "mask" / name).write_bytes(data)
    (case / "complete").write_text("", encoding="utf-8")
    return package


def run(package: Path, checkout: Path) -> TreeRun:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTHONPATH"] = os.pathsep.join([str(checkout), *filter(None, [os.environ.get("PYTHONPATH")])])
    cmd = [sys.executable, "-m", "pytest_omfc", "--omfc-submission", str(package), "--omfc-dataset", str(DATASET)]
    return run_tree([*cmd, "-q"], cwd=package.parent, env=env)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--expids", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=3, help="rounds; the best run of each checkout is kept")
    ap.add_argument("--baseline", type=Path, help="another checkout, timed in the same rounds")
    args = ap.parse_args()
    package = generate(args.expids, cache_root())
    checkouts = {"this checkout": REPO} | ({"baseline": args.baseline.resolve()} if args.baseline else {})
    runs: dict[str, list[TreeRun]] = {name: [] for name in checkouts}
    for _ in range(max(1, args.repeat)):
        for name, checkout in checkouts.items():
            got = run(package, checkout)
            if got.returncode != 0:
                tail = (got.stdout + got.stderr).strip().splitlines()[-3:]
                raise SystemExit(f"{name}: exit {got.returncode}: " + " | ".join(tail))
            runs[name].append(got)
    print(f"NC2017 package of {args.expids} EXPIDs, three trials and one mask each ({os.cpu_count()} CPUs)")
    best = {name: min(found, key=lambda r: r.wall) for name, found in runs.items()}
    for name, r in best.items():
        per = 1000 * r.wall / args.expids
        print(
            f"  {name:14} wall {r.wall:6.2f} s ({per:5.1f} ms per EXPID)  CPU {r.cpu:6.2f} s  "
            f"peak RSS {r.peak_rss_mb:5.0f} MB"
        )
    if "baseline" in best:
        print(f"  ratio this/baseline: wall {best['this checkout'].wall / best['baseline'].wall:.2f}")


if __name__ == "__main__":
    main()
