"""Full validation of an OpenMFC IMDL submission at evaluation scale, through pytest.

Generates once (cached outside the repository) an index and a submission of N
probes: 40% 1920x1080 and 60% 640x480 grey PNG masks, 2% of the probes with no
mask.  The masks are real PNG files, one encoded image per size hard-linked
(or copied) under ``mask/``.  pytest-omfc inflates each file (device and
inode) once, so hard links make its MASK-04/08 decode pass cost two inflates;
``--distinct`` copies every mask instead (a separate cached dataset), which is
what a real submission costs: one inflate of ~0.5-4 ms per mask.  Then runs ``pytest --omfc-submission ...`` in a
subprocess and prints the wall time, the peak memory of the pytest process,
the time per 1,000 probes for several N (linearity) and the ratio against a
naive validator measured in the same run: pandas reading the CSV plus Pillow
decoding every mask in full.  Prints; asserts nothing.

Run: ``python benchmarks/validate_scale.py [--probes N] [--repeat R] [--jobs J]``
Target on a 2-core machine: 16,000 probes in <= 3 s, <= 300 MB, linear in N.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

SUB_ID = "p-bench_1"
INDEX_NAME = "OpenMFC20_Image-IMDL-index.csv"
SIZES = ((1920, 1080), (640, 480))
DESCRIPTION = """\
1. Submission Identifier(s): {sub_id}
2. System Description: benchmark system; NonProcessed trials are system failures.
3. OptOut Criteria: none
4. System Hardware Description and Runtime Computation: 2 CPU cores.
5. Training Data and Knowledge Sources: none.
6. References: none.
"""


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME")
    return Path(base) / "pytest-omfc-bench" if base else Path("/tmp/pytest-omfc-bench")


def _mask_png(width: int, height: int) -> bytes:
    """A white mask with a black rectangle (0 = manipulated), encoded once per size."""
    from PIL import Image

    a = np.full((height, width), 255, dtype=np.uint8)
    a[height // 4 : height // 2, width // 3 : width // 2] = 0
    buf = io.BytesIO()
    Image.fromarray(a, mode="L").save(buf, format="PNG")
    return buf.getvalue()


def generate(n: int, root: Path, distinct: bool = False) -> tuple[Path, Path]:
    """The dataset index and the submission directory for ``n`` probes (made once, then reused).

    ``distinct``: every mask is its own file (a copy), not a hard link to one template per size."""
    case = root / (f"imdl-{n}-distinct" if distinct else f"imdl-{n}")
    index = case / "dataset" / "indexes" / INDEX_NAME
    sub = case / SUB_ID
    if (case / "complete").is_file():
        return index, sub
    if case.exists():
        shutil.rmtree(case)
    (sub / "mask").mkdir(parents=True)
    index.parent.mkdir(parents=True)
    rng = np.random.default_rng(n)
    ids = np.array([f"OpenMFC20_{i:06d}" for i in range(n)])
    big = rng.random(n) < 0.40
    no_mask = rng.random(n) < 0.02
    width = np.where(big, SIZES[0][0], SIZES[1][0])
    height = np.where(big, SIZES[0][1], SIZES[1][1])
    pd.DataFrame(
        {
            "TaskID": "IMDL",
            "ProbeFileID": ids,
            "ProbeFileName": [f"probe/{i}.jpg" for i in ids],
            "ProbeWidth": width,
            "ProbeHeight": height,
        }
    ).to_csv(index, sep="|", index=False)
    templates = {}
    for w, h in SIZES:
        templates[(w, h)] = case / f"template-{w}x{h}.png"
        templates[(w, h)].write_bytes(_mask_png(w, h))
    masks = np.where(no_mask, "", np.char.add(np.char.add("mask/", ids), "-mask.png"))
    for name, w, h in zip(masks, width, height, strict=False):
        if name:
            src, dst = templates[(int(w), int(h))], sub / name
            try:
                if distinct:
                    raise OSError("copy wanted")
                os.link(src, dst)
            except OSError:
                shutil.copyfile(src, dst)
    scores = np.round(rng.random(n), 4)
    pd.DataFrame(
        {
            "ProbeFileID": ids,
            "ConfidenceScore": scores,
            "OutputProbeMaskFileName": masks,
            "ProbeStatus": "Processed",
            "ProbeOptOutPixelValue": "",
        }
    ).to_csv(sub / f"{SUB_ID}.csv", sep="|", index=False)
    (sub / f"{SUB_ID}.txt").write_text(DESCRIPTION.format(sub_id=SUB_ID))
    (case / "complete").write_text("ok\n")
    return index, sub


def _child_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


#: Load only pytest-omfc (and xdist when -n is given), not every plugin installed here (set by --all-plugins).
ISOLATE = True


def run_pytest(index: Path, sub: Path, jobs: int | None, extra: list[str]) -> tuple[float, int, str, float]:
    """Wall time, exit status, last output line and CPU time (user + system) of one pytest subprocess."""
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "--omfc-submission",
        str(sub),
        "--omfc-index",
        str(index),
        "-p",
        "no:cacheprovider",
        "-q",
        *extra,
    ]
    if jobs is not None:
        cmd += ["--omfc-jobs", str(jobs)]
    env = dict(os.environ)
    if ISOLATE:
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
        cmd[3:3] = ["-p", "pytest_omfc.plugin"] + (
            ["-p", "xdist.plugin"] if any(a.startswith("-n") for a in extra) else []
        )
    cpu0, t0 = _child_cpu(), time.perf_counter()
    proc = subprocess.run(cmd, cwd=sub.parent, capture_output=True, text=True, env=env)
    wall, cpu = time.perf_counter() - t0, _child_cpu() - cpu0
    lines = [ln for ln in proc.stdout.splitlines() if ln.strip()]
    return wall, proc.returncode, (lines[-1] if lines else proc.stderr.strip()[-200:]), cpu


def best_run(index: Path, sub: Path, repeat: int, jobs: int | None, extra: list[str]) -> tuple[float, int, str, float]:
    runs = [run_pytest(index, sub, jobs, extra) for _ in range(repeat)]
    return min(runs, key=lambda r: r[0])


def _session(line: str) -> float:
    """The duration in pytest's summary line ('44 passed in 0.67s'); NaN when absent."""
    m = re.search(r" in ([0-9.]+)s", line)
    return float(m.group(1)) if m else float("nan")


def naive(index: Path, sub: Path) -> tuple[float, float]:
    """What a straightforward validator does: read the CSV with pandas, decode every mask with Pillow.

    Returns wall and CPU time (this process)."""
    from PIL import Image

    t0, c0 = time.perf_counter(), time.process_time()
    idx = pd.read_csv(index, sep="|", dtype=str, na_filter=False)
    df = pd.read_csv(sub / f"{SUB_ID}.csv", sep="|", dtype=str, na_filter=False)
    dims = dict(
        zip(
            idx["ProbeFileID"],
            zip(idx["ProbeWidth"].astype(int), idx["ProbeHeight"].astype(int), strict=False),
            strict=False,
        )
    )
    bad = 0
    for pid, name in zip(df["ProbeFileID"], df["OutputProbeMaskFileName"], strict=False):
        if not name:
            continue
        with Image.open(sub / name) as im:
            a = np.asarray(im)
        bad += a.ndim != 2 or (a.shape[1], a.shape[0]) != dims[pid]
    assert bad == 0
    return time.perf_counter() - t0, time.process_time() - c0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--probes", type=int, default=16_000)
    ap.add_argument("--repeat", type=int, default=3, help="pytest runs per N; the best is kept")
    ap.add_argument("--jobs", type=int, default=None, help="--omfc-jobs for the runs (default: the plugin's)")
    ap.add_argument("--no-baseline", action="store_true", help="skip the (slow) naive full-decode baseline")
    ap.add_argument(
        "--distinct",
        action="store_true",
        help="copy every mask instead of hard-linking two templates (every mask is then inflated)",
    )
    ap.add_argument(
        "--all-plugins",
        action="store_true",
        help="let pytest load every installed plugin (default: only pytest-omfc, and xdist with -n)",
    )
    ap.add_argument("pytest_args", nargs="*", help="extra pytest arguments, e.g. -n 2")
    args = ap.parse_args()
    global ISOLATE
    ISOLATE = not args.all_plugins
    root = cache_root()
    n = args.probes
    ns = sorted({max(1, n // 4), max(1, n // 2), n})

    t0 = time.perf_counter()
    cases = {k: generate(k, root, args.distinct) for k in ns}
    print(f"datasets under {root} ready in {time.perf_counter() - t0:.1f} s (cached for later runs)")

    index, sub = cases[n]
    run_pytest(index, sub, args.jobs, args.pytest_args)  # warm the page cache and the bytecode
    wall, rc, last, cpu = best_run(index, sub, args.repeat, args.jobs, args.pytest_args)
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    n_masks = sum(1 for _ in (sub / "mask").iterdir())
    plugins = "all installed plugins" if args.all_plugins else "only pytest-omfc (PYTEST_DISABLE_PLUGIN_AUTOLOAD)"
    files = "distinct files" if args.distinct else "hard links to 2 files"
    print(f"\n{n} probes, {n_masks} masks ({files}), {plugins}: pytest exit {rc}, '{last}'")
    print(f"  wall time     {wall:6.2f} s   (target <= 3 s)")
    print(f"  CPU time      {cpu:6.2f} s   (user + system, all processes; robust against other load)")
    print(f"  load average  {os.getloadavg()[0]:6.2f}     on {os.cpu_count()} CPUs (other load inflates wall time)")
    print(f"  peak memory   {peak_mb:6.0f} MB  (pytest process and its workers; target <= 300 MB)")

    empty_idx, empty_sub = generate(1, root)
    one = best_run(empty_idx, empty_sub, args.repeat, args.jobs, args.pytest_args)
    fixed, fixed_cpu = one[0], one[3]
    print(f"\nlinearity (best of {args.repeat}; fixed cost = a 1-probe run: interpreter, imports, collection):")
    print(f"  {'probes':>8} {'wall s':>8} {'CPU s':>7} {'CPU - fixed':>12} {'session s':>10} {'session ms / 1000':>18}")
    print(f"  {1:>8} {fixed:>8.2f} {fixed_cpu:>7.2f} {'':>12} {_session(one[2]):>10.2f}")
    for k in ns:
        w, _, line, c = (
            (wall, rc, last, cpu) if k == n else best_run(*cases[k], args.repeat, args.jobs, args.pytest_args)
        )
        t = _session(line)
        print(f"  {k:>8} {w:>8.2f} {c:>7.2f} {c - fixed_cpu:>12.2f} {t:>10.2f} {t / k * 1e6:>18.1f}")
    print("  (session = the time pytest reports for running the items, without start-up)")

    if not args.no_baseline:
        t_naive, c_naive = naive(index, sub)
        print(
            f"\nnaive baseline (pandas + Pillow full decode of every mask, in this process): "
            f"{t_naive:.2f} s wall, {c_naive:.2f} s CPU"
        )
        print(
            f"  pytest-omfc with all its rules is {t_naive / wall:.1f}x faster in wall time, "
            f"{c_naive / cpu:.1f}x in CPU time (its interpreter start-up included)"
        )


if __name__ == "__main__":
    main()
