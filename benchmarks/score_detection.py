"""Benchmark of the detection engine on 16,000 synthetic trials.

Times ``score_trials`` without CI and with the default 500-iteration MediScore
bootstrap, the full file pipeline
(``score_detection`` on CSVs), and scikit-learn's ``roc_auc_score`` as a
reference point. Prints wall times and ratios; asserts nothing.

Run: ``PYTHONPATH=. python3 benchmarks/score_detection.py [--trials N] [--repeat R]``
Target: <= 1 s for scoring with CI on a 2-core machine.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
from _timing import best  # benchmarks/_timing.py: the scripts run from this folder

from pytest_omfc.scoring import score_detection, score_trials


def _best(fn: Callable[[], object], repeat: int) -> float:
    """Best wall time of ``repeat`` runs (least disturbed by other load)."""
    return best(fn, repeat).wall


def synthetic(n: int, seed: int = 2024) -> tuple[np.ndarray, np.ndarray]:
    """Half targets, overlapping normal scores rounded to 4 decimals (so ties occur)."""
    rng = np.random.default_rng(seed)
    y = rng.random(n) < 0.5
    s = np.round(rng.normal(loc=np.where(y, 0.8, 0.0), scale=1.0), 4)
    return s, y


def write_files(tmp: Path, s: np.ndarray, y: np.ndarray) -> tuple[Path, Path, Path]:
    ids = [f"P{i:06d}" for i in range(s.size)]
    ref = pd.DataFrame(
        {
            "TaskID": "manipulation",
            "ProbeFileID": ids,
            "IsTarget": np.where(y, "Y", "N"),
            "Collection": np.where(np.arange(s.size) % 2 == 0, "A", "B"),
        }
    )
    idx = pd.DataFrame({"TaskID": "manipulation", "ProbeFileID": ids, "ProbeWidth": "1024", "ProbeHeight": "768"})
    sysf = pd.DataFrame({"ProbeFileID": ids, "ConfidenceScore": s, "IsOptOut": "N"})
    paths = tmp / "index.csv", tmp / "ref.csv", tmp / "sys.csv"
    for df, p in zip((idx, ref, sysf), paths, strict=True):
        df.to_csv(p, sep="|", index=False)
    return paths


def _peak_mb(trials: int, ci: bool) -> float:
    """The peak resident memory (VmHWM) of a fresh process that scores ``trials`` trials, with or without the
    500-iteration bootstrap: the difference is what the bootstrap holds."""
    here = str(Path(__file__).resolve().parent)
    code = (
        f"import sys; sys.path.insert(0, {here!r}); from score_detection import synthetic, score_trials; "
        f"s, y = synthetic({trials}); score_trials(s, y, ci={ci}); "
        "print([l for l in open('/proc/self/status') if l.startswith('VmHWM')][0].split()[1])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return int(out.stdout.strip().splitlines()[-1]) / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=16_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    s, y = synthetic(args.trials)
    print(f"{args.trials} trials ({int(y.sum())} targets, {np.unique(s).size} distinct scores), best of {args.repeat}")

    from sklearn.metrics import roc_auc_score  # reference point only; not a dependency of the engine

    t_sk = _best(lambda: roc_auc_score(y, s), args.repeat)
    t_noci = _best(lambda: score_trials(s, y), args.repeat)
    t_ci = _best(lambda: score_trials(s, y, ci=True), args.repeat)
    with tempfile.TemporaryDirectory() as tmp:
        idx, ref, sysf = write_files(Path(tmp), s, y)
        t_file = _best(lambda: score_detection(idx, ref, sysf, ci=True), args.repeat)
        t_file_noci = _best(lambda: score_detection(idx, ref, sysf), args.repeat)
        qs = ["Collection == ['A']", "Collection == ['B']"]
        t_query = _best(lambda: score_detection(idx, ref, sysf, query=qs, ci=True), args.repeat)

    res = score_trials(s, y, ci=True)
    auc_sk = roc_auc_score(y, s)
    print(f"AUC engine {res.metrics['AUC']:.9f}  sklearn {auc_sk:.9f}  diff {abs(res.metrics['AUC'] - auc_sk):.1e}")
    print(f"AUC 90% CI [{res.metrics['AUC_CI_LOWER']:.6f}, {res.metrics['AUC_CI_UPPER']:.6f}]")
    rows = [
        ("sklearn roc_auc_score (AUC only)", t_sk),
        ("score_trials, no CI", t_noci),
        ("score_trials, CI 500 (mediscore bootstrap)", t_ci),
        ("score_detection from CSV files, no CI", t_file_noci),
        ("score_detection from CSV files, CI 500", t_file),
        ("score_detection, 2 queries (8k trials each), CI", t_query),
    ]
    print(f"{'case':46s} {'wall s':>9s} {'x sklearn':>10s}")
    for name, t in rows:
        print(f"{name:46s} {t:9.4f} {t / t_sk:10.1f}")
    verdict = "meets" if t_file <= 1.0 else "misses"
    print(f"target <= 1 s with CI (file pipeline): {t_file:.3f} s -> {verdict} the target")
    for n in sorted({2_000, args.trials, 10 * args.trials}):
        with_ci, without = _peak_mb(n, True), _peak_mb(n, False)
        print(
            f"peak memory, {n} trials, fresh process: {with_ci:.0f} MB with the bootstrap, {without:.0f} MB without "
            f"(the bootstrap holds {with_ci - without:.0f} MB)"
        )


if __name__ == "__main__":
    main()
