"""The bootstrap interval's bounds come from ``sorted(values)`` as MediScore's Python 2.7 sorts a list holding
NaN (scoring/detection/timsort.py).  Python 3.13 places NaN elsewhere, and the bundled example's AUC interval
moved from 0.75-1.0 to 0.6667-1.0 there.  Compared here with Python 2.7 itself (pyenv's build, where present)
on random lists of NaN, ties and runs, and with the bundled example's 500 bootstrap values on every Python."""

from __future__ import annotations

import json
import math
import random
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from pytest_omfc.scoring.detection import bootstrap, engine
from pytest_omfc.scoring.detection.timsort import sort_like_python2

pytestmark = pytest.mark.compat

PYTHON2 = next(
    (str(p) for p in sorted(Path(f"{Path.home()}/.pyenv/versions").glob("2.7*/bin/python")) if p.exists()),
    shutil.which("python2.7"),
)


def _case(rng: random.Random) -> list[float]:
    n = rng.choice([0, 1, 2, 5, 31, 32, 33, 63, 64, 65, 100, 257, 500, 1000, 2049])
    pool = [math.nan, 0.0, 0.25, 0.5, 0.75, 1.0, rng.random()]
    values = [rng.choice(pool) if rng.random() < 0.8 else rng.random() for _ in range(n)]
    if n and rng.random() < 0.3:  # long ascending and descending runs, as a bootstrap's values often have
        cut = rng.randrange(n)
        values[:cut] = sorted(v for v in values[:cut] if not math.isnan(v)) + [math.nan] * sum(
            math.isnan(v) for v in values[:cut]
        )
        values[cut:] = values[cut:][::-1]
    return values


def _key(values: list[float]) -> list[str]:
    return [repr(v) for v in values]


@pytest.mark.skipif(PYTHON2 is None, reason="Python 2.7 is not installed (pyenv's 2.7 build compares the sort)")
def test_the_sort_is_python_2_7s() -> None:
    rng = random.Random(20261128)
    cases = [_case(rng) for _ in range(400)]
    text = "\n".join(json.dumps(c) for c in cases)
    script = "import json,sys\nfor line in sys.stdin:\n    print(json.dumps(sorted(json.loads(line))))\n"
    assert PYTHON2 is not None
    run = subprocess.run([PYTHON2, "-c", script], input=text, capture_output=True, text=True, check=True)
    expected = [json.loads(line) for line in run.stdout.splitlines()]
    for case, want in zip(cases, expected, strict=True):
        assert _key(sort_like_python2(case)) == _key(want), case


def test_the_bundled_examples_interval_on_every_python() -> None:
    """AUC 0.75 with two targets and two non-targets (examples/.../p-baseline_3_imdl): MediScore's interval is
    0.75-1.0 (Python 2.7 and 3.10-3.12 agree; 3.13's own sort gave 0.6667)."""
    scores = np.array([0.93, 0.08, 0.71, 0.0])
    targets = np.array([True, True, False, False])
    ci = bootstrap.bootstrap_ci(scores, targets, ci_level=0.9, metric_fns={"AUC": engine.auc_mediscore})
    assert ci["AUC"] == (0.75, 1.0)


def test_without_nan_it_is_sorted() -> None:
    values = [0.5, -0.0, 0.0, 1.0, 0.5, -1.0]
    assert _key(sort_like_python2(values)) == _key(sorted(values))
