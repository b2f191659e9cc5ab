"""What installing pytest-omfc costs a pytest run that does not use it, and the start-up of one that does.

Every pytest run of an environment loads the ``pytest11`` entry point, also a
team's unrelated test suite, so loading the plugin must cost (almost) nothing.
Each figure is the median wall time of ``--runs`` fresh subprocesses, the
modes interleaved round by round so that a change of machine load hits all
of them alike:

* a one-test run (``def test_one(): pass``) with ``-p no:omfc`` (the plugin
  disabled; every other installed plugin loads, as in a team's environment)
  against the same run with the plugin loaded and unused; the difference is
  the overhead, printed with the ratio;
* the same pair with plugin autoload off (``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1``)
  and the plugin named by ``-p pytest_omfc.plugin``: only pytest and the plugin;
* ``python -X importtime -c "import pytest_omfc.plugin"``: the cumulative import time of the
  entry-point module (pytest included) and the count of modules it imports;
* the start-up of a check: the smallest bundled example (OpenMFC2020 VMD, 3 trials,
  all rules), through ``pytest --omfc-submission`` and through ``python -m pytest_omfc``;
  and through ``pytest`` as a wheel install meets it where pytest may not write byte code
  (``PYTHONDONTWRITEBYTECODE=1``, a read-only ``site-packages``, the first run of a fresh CI
  environment): pytest marks an installed plugin's whole package for assertion rewriting, which a
  checkout on ``PYTHONPATH`` does not get, so a small ``-p`` module marks ``pytest_omfc`` as the
  wheel's entry point would;
* a lower bound of MediScore's validator's start-up, in the same rounds: its ``validator.py`` imports
  numpy, pandas, OpenCV (``cv2``) and ``multiprocessing`` before anything else (it then reads both CSV
  files and checks the masks in a process pool); MediScore (Python 2) is not in this environment, so
  ``python -c "import numpy, pandas, multiprocessing, cv2"`` (``cv2`` when it is installed) stands for it:
  the validator cannot start faster than its imports;
* the start-up of a process pool: a process that imports the mask scorer and runs four trivial
  items on the plugin's local pool of two (``Executor(jobs=2)``: the forkserver, its preloaded
  modules, two workers), whole process; and a process that imports only what the pools' forkserver
  preloads (``pytest_omfc.work.pool.PRELOAD``), the forkserver's own start-up.

Byte code is cached in a temporary ``PYTHONPYCACHEPREFIX`` (``PYTHONDONTWRITEBYTECODE`` is
dropped) and one untimed round runs first, so the figures are those of an installed package with
its ``.pyc`` files, not of compiling the sources in every run; nothing is written into the checkout.

``--repo DIR`` measures another checkout's plugin (its directory goes first on
``PYTHONPATH``; the installed entry point ``omfc = pytest_omfc.plugin`` then
loads that code); ``--baseline DIR`` also times that checkout's plugin (e.g. the main branch
before a change) in the same rounds, and prints its overhead beside this one's.  Prints; asserts
nothing.

Run: ``python benchmarks/plugin_overhead.py [--runs N] [--repo DIR] [--baseline DIR]``
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.metadata import entry_points
from importlib.util import find_spec
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
ONE_TEST = "def test_one():\n    pass\n"
POOL_MODE = "a local pool of two: mask scorer imported, 4 items"
PRELOAD_MODE = "the pools' forkserver preload alone (python -c)"
PRELOAD_CODE = (  # older checkouts (a --baseline) have the pools at pytest_omfc.pool
    "try:\n    import pytest_omfc.work.pool as p\nexcept ImportError:\n    import pytest_omfc.pool as p\n"
    "for m in p.PRELOAD: __import__(m)"
)
#: What pytest does for a plugin installed from a wheel (``_mark_plugins_for_rewrite``): mark its package.
AS_WHEEL = """\
import sys

for finder in sys.meta_path:
    if hasattr(finder, "mark_rewrite"):
        finder.mark_rewrite("pytest_omfc")
"""
#: MediScore's validator's imports (tools/Validator/validator.py), cv2 only when installed here.
MEDISCORE_IMPORTS = "numpy, pandas, multiprocessing" + (", cv2" if find_spec("cv2") is not None else "")
MEDISCORE_MODE = f"lower bound of MediScore's validator: python -c 'import {MEDISCORE_IMPORTS}'"
WHEEL_MODE = "start-up: VMD example (3 trials), pytest, as a wheel, no byte code written"
POOL_START = """\
import operator

if __name__ == "__main__":
    import pytest_omfc.scoring.mask.run  # what score_masks has imported when its pool starts
    from pytest_omfc.work.executors import Executor

    with Executor(jobs=2) as ex:
        assert list(ex.map(operator.neg, range(4))) == [0, -1, -2, -3]
"""


def _env(repo: Path, pycache: Path, *, autoload: bool = True) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_") and k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(repo), os.environ.get("PYTHONPATH", "")) if p)
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    env.pop("CI", None)
    if not autoload:
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return env


def _wall(args: list[str], cwd: Path, env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    took = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(args)}\n{proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    return took


def _import_profile(repo: Path, cwd: Path, pycache: Path) -> tuple[float, int, list[str]]:
    """Cumulative import time of pytest_omfc.plugin (s), modules imported, heavy ones among them."""
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import pytest_omfc.plugin"],
        cwd=cwd,
        env=_env(repo, pycache),
        capture_output=True,
        text=True,
        timeout=600,
    )
    rows = re.findall(r"^import time:\s+\d+ \|\s+(\d+) \|( *)(\S+)", proc.stderr, re.MULTILINE)
    top = [int(cum) for cum, indent, name in rows if name == "pytest_omfc.plugin"]
    heavy = sorted(
        {name.split(".")[0] for _, _, name in rows}
        & {"pandas", "numpy", "PIL", "pydantic", "h5py", "rich", "glymur", "jsonschema", "scipy"}
    )
    return (top[0] / 1e6 if top else float("nan")), len(rows), heavy


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=11, help="fresh subprocesses per mode (median; default 11)")
    parser.add_argument(
        "--repo", type=Path, default=HERE, help="the checkout whose plugin is measured (default: this one)"
    )
    parser.add_argument("--baseline", type=Path, help="another checkout timed in the same rounds (before/after)")
    ns = parser.parse_args(argv)
    repo = ns.repo.resolve()
    baseline = ns.baseline.resolve() if ns.baseline else None
    examples = repo / "examples"
    vmd = examples / "submissions" / "vmd" / "p-baseline_3_vmd"
    vmd_index = examples / "datasets" / "OpenMFC2020" / "indexes" / "OpenMFC20_Video-VMD-index.csv"
    installed = any(ep.value == "pytest_omfc.plugin" for ep in entry_points(group="pytest11"))
    if not installed:
        print(
            "note: the pytest11 entry point is not installed; '-p no:omfc' changes nothing and the "
            "'loaded' runs name the plugin with -p"
        )

    with tempfile.TemporaryDirectory(prefix="omfc-overhead-") as tmp:
        cwd = Path(tmp) / "run"
        cwd.mkdir()
        pycache = Path(tmp) / "pycache"
        (cwd / "test_one.py").write_text(ONE_TEST, encoding="utf-8")
        base = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "test_one.py"]
        (cwd / "pool_start.py").write_text(POOL_START, encoding="utf-8")
        (cwd / "omfc_as_wheel.py").write_text(AS_WHEEL, encoding="utf-8")
        check = ["--omfc-submission", str(vmd), "--omfc-index", str(vmd_index)]
        wheel = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "omfc_as_wheel", *check]
        modes: dict[str, tuple[list[str], dict[str, str]]] = {
            "one test, -p no:omfc": ([*base, "-p", "no:omfc"], _env(repo, pycache)),
            "one test, plugin loaded, unused": (
                base + ([] if installed else ["-p", "pytest_omfc.plugin"]),
                _env(repo, pycache),
            ),
            "one test, autoload off, bare pytest": (base, _env(repo, pycache, autoload=False)),
            "one test, autoload off, -p pytest_omfc.plugin": (
                [*base, "-p", "pytest_omfc.plugin"],
                _env(repo, pycache, autoload=False),
            ),
            "start-up: VMD example (3 trials), pytest": (
                ["-m", "pytest", "-q", "-p", "no:cacheprovider", *check],
                _env(repo, pycache),
            ),
            "start-up: VMD example (3 trials), python -m pytest_omfc": (
                ["-m", "pytest_omfc", "-q", *check],
                _env(repo, pycache),
            ),
            WHEEL_MODE: (wheel, _env(repo, pycache) | {"PYTHONDONTWRITEBYTECODE": "1"}),
            MEDISCORE_MODE: (["-c", f"import {MEDISCORE_IMPORTS}"], _env(repo, pycache)),
            POOL_MODE: (["pool_start.py"], _env(repo, pycache)),
            PRELOAD_MODE: (["-c", PRELOAD_CODE], _env(repo, pycache)),
        }
        if baseline is not None:
            modes |= {
                "baseline: one test, plugin loaded, unused": (
                    modes["one test, plugin loaded, unused"][0],
                    _env(baseline, pycache),
                ),
                "baseline: one test, autoload off, -p pytest_omfc.plugin": (
                    [*base, "-p", "pytest_omfc.plugin"],
                    _env(baseline, pycache, autoload=False),
                ),
                "baseline: start-up: VMD example (3 trials), pytest": (
                    modes["start-up: VMD example (3 trials), pytest"][0],
                    _env(baseline, pycache),
                ),
                "baseline: start-up: VMD example (3 trials), python -m pytest_omfc": (
                    modes["start-up: VMD example (3 trials), python -m pytest_omfc"][0],
                    _env(baseline, pycache),
                ),
                f"baseline: {WHEEL_MODE}": (wheel, _env(baseline, pycache) | {"PYTHONDONTWRITEBYTECODE": "1"}),
                f"baseline: {POOL_MODE}": (["pool_start.py"], _env(baseline, pycache)),
                f"baseline: {PRELOAD_MODE}": (["-c", PRELOAD_CODE], _env(baseline, pycache)),
            }
        times: dict[str, list[float]] = {name: [] for name in modes}
        for i in range(ns.runs + 1):  # round 0 writes the byte code: not timed
            for name, (args, env) in modes.items():
                took = _wall(args, cwd, env)
                if i:
                    times[name].append(took)
        imp, count, heavy = _import_profile(repo, cwd, pycache)

    med = {name: statistics.median(t) for name, t in times.items()}
    print(
        f"plugin of {repo}{f' (baseline: {baseline})' if baseline else ''} (python {sys.version.split()[0]}, "
        f"median of {ns.runs} fresh runs each, load average {os.getloadavg()[0]:.1f})"
    )
    width = max(map(len, med))
    for name, value in med.items():
        print(f"  {name:<{width}}  {value:6.3f} s  (min {min(times[name]):.3f})")
    for off, on in (
        ("one test, -p no:omfc", "one test, plugin loaded, unused"),
        ("one test, autoload off, bare pytest", "one test, autoload off, -p pytest_omfc.plugin"),
    ):
        print(
            f"  overhead of the unused plugin ({on.split(', ', 1)[1]} vs {off.split(', ', 1)[1]}): "
            f"{med[on] - med[off]:+.3f} s, ratio {med[on] / med[off]:.2f}"
        )
        if baseline is not None:
            was = med[f"baseline: {on}"]
            print(
                f"    baseline: {was - med[off]:+.3f} s, ratio {was / med[off]:.2f}; "
                f"this checkout's run takes {med[on] / was:.2f} of the baseline's"
            )
    check, floor = med["start-up: VMD example (3 trials), python -m pytest_omfc"], med[MEDISCORE_MODE]
    print(
        f"  the check through python -m pytest_omfc takes {check:.3f} s, {check - floor:+.3f} s over MediScore's "
        f"validator's imports alone ({floor:.3f} s; the target was at or below the validator's start-up)"
    )
    print(
        f"  import pytest_omfc.plugin: {imp:.3f} s cumulative (pytest included), {count} modules; "
        f"heavy libraries imported: {', '.join(heavy) or 'none'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
