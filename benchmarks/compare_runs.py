"""Comparing two scored runs against scoring one, on the same data, in one invocation.

Two cases, each a baseline run and a second run of a changed system on the same OpenMFC IMDL reference:

* detection: ``--trials`` probes (default 16,000), half targets, scored with ``--omfc-ci
  --omfc-ci-iterations D`` (D = ``--draws``, default 2,000) and written with ``--omfc-metrics-json``;
* masks: ``--masks`` probes (default 2,000) with 128x96 PNG masks, scored by the mask scorer (``--omfc-score
  mask``).

Each run is a ``pytest-omfc`` process timed as a whole process tree (``benchmarks/_tree.py``, the best of
``--repeat``).  The comparison is timed twice: ``omfc_compare(a.json, b.json, draws=D)`` in a fresh process,
and the second run with ``--omfc-baseline a.json`` against the same run without it (what the comparison adds
to a run).  Then ``--runs`` (default 100) metrics JSON files like the detection baseline's, each with its own
scores (the baseline's plus noise, their metrics recomputed by the engine), are ranked by ``pytest-omfc
leaderboard ... -o board.html``.  Prints the times and the ratios against scoring one run; asserts nothing
(targets: a comparison costs at most 1.5 times scoring one run; a 100-run leaderboard page under 5 s).

Run: ``python benchmarks/compare_runs.py [--trials N] [--masks M] [--draws D] [--runs K] [--repeat R]``
"""

from __future__ import annotations

import argparse
import io
import os
import sys
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the scripts run from this folder
from _tree import TreeRun, run_tree  # noqa: E402

INDEX = "OpenMFC20_Image-IMDL-index.csv"
REFERENCE = "OpenMFC20_Image-IMDL-ref.csv"
W, H = 128, 96


def cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path("/tmp")) / "pytest-omfc-bench" / "compare"


def _png(pixels: np.ndarray) -> bytes:
    out = io.BytesIO()
    Image.fromarray(pixels, mode="L").save(out, format="PNG")
    return out.getvalue()


def _box(rng: np.random.Generator, jitter: int) -> np.ndarray:
    """A 0 (manipulated) box on 255, placed near the centre, moved by up to ``jitter`` pixels."""
    m = np.full((H, W), 255, dtype=np.uint8)
    dx, dy = (int(v) for v in rng.integers(-jitter, jitter + 1, size=2)) if jitter else (0, 0)
    m[30 + dy : 66 + dy, 40 + dx : 88 + dx] = 0
    return m


def generate(n: int, masks: bool, root: Path) -> tuple[Path, Path, Path, Path]:
    """The index, the reference and the two submissions of one case (made once, then reused)."""
    case = root / (f"masks-{n}" if masks else f"detection-{n}")
    index, ref = case / "dataset" / "indexes" / INDEX, case / "dataset" / "reference" / REFERENCE
    subs = case / "a" / "p-bench_1", case / "b" / "p-bench_1"
    if (case / "complete").is_file():
        return index, ref, *subs
    rng = np.random.default_rng(2026)
    ids = [f"P{i:06d}" for i in range(n)]
    target = rng.random(n) < 0.5
    index.parent.mkdir(parents=True, exist_ok=True)
    ref.parent.mkdir(parents=True, exist_ok=True)
    rows = ["TaskID|ProbeFileID|ProbeFileName|ProbeWidth|ProbeHeight"]
    rows += [f"manipulation|{p}|probe/{p}.jpg|{W}|{H}" for p in ids]
    index.write_text("\n".join(rows) + "\n", encoding="utf-8")
    head = "TaskID|ProbeFileID|ProbeFileName|IsTarget" + ("|ProbeMaskFileName" if masks else "")
    refs = [head]
    if masks:
        (ref.parent / "mask").mkdir(exist_ok=True)
        template = _png(_box(rng, 0))
    for p, t in zip(ids, target, strict=True):
        name = f"|reference/mask/{p}.png" if masks and t else ("|" if masks else "")
        refs.append(f"manipulation|{p}|probe/{p}.jpg|{'Y' if t else 'N'}{name}")
        if masks and t:
            (ref.parent / "mask" / f"{p}.png").write_bytes(template)
    ref.write_text("\n".join(refs) + "\n", encoding="utf-8")
    base = np.round(rng.normal(loc=np.where(target, 0.8, 0.0), scale=1.0), 4)
    for k, sub in enumerate(subs):
        scores = base if k == 0 else np.round(base + rng.normal(scale=0.3, size=n), 4)
        (sub / "mask").mkdir(parents=True, exist_ok=True)
        lines = ["ProbeFileID|ConfidenceScore|OutputProbeMaskFileName|ProbeStatus|ProbeOptOutPixelValue"]
        for p, s, t in zip(ids, scores, target, strict=True):
            mask = ""
            if masks and t:
                mask = f"mask/{p}.png"
                (sub / mask).write_bytes(_png(_box(rng, 4 if k == 0 else 10)))
            lines.append(f"{p}|{s}|{mask}|Processed|")
        (sub / f"{sub.name}.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (sub / f"{sub.name}.txt").write_text("a benchmark system\n", encoding="utf-8")
    (case / "complete").write_text("", encoding="utf-8")
    return index, ref, *subs


def _best(cmd: list[str], repeat: int, cwd: Path) -> TreeRun:
    runs = [run_tree(cmd, cwd=cwd) for _ in range(max(1, repeat))]
    for r in runs:
        if r.returncode not in (0, 1):
            raise SystemExit(f"{' '.join(cmd)} exited {r.returncode}:\n{r.stdout[-2000:]}\n{r.stderr[-2000:]}")
    return min(runs, key=lambda r: r.wall)


def case(name: str, n: int, masks: bool, draws: int, repeat: int, root: Path) -> None:
    index, ref, sub_a, sub_b = generate(n, masks, root)
    out = root / "out"
    out.mkdir(exist_ok=True)
    a, b = out / f"{name}-a.json", out / f"{name}-b.json"
    score = ["--omfc-score", "mask"] if masks else ["--omfc-score", "detection", "--omfc-ci"]
    common = ["--omfc-index", str(index), "--omfc-reference", str(ref), *score, "--omfc-ci-iterations", str(draws)]
    run = [sys.executable, "-m", "pytest_omfc", "-q"]
    one = _best([*run, "--omfc-submission", str(sub_a), *common, "--omfc-metrics-json", str(a)], repeat, out)
    _best([*run, "--omfc-submission", str(sub_b), *common, "--omfc-metrics-json", str(b)], 1, out)
    plain = _best([*run, "--omfc-submission", str(sub_b), *common], repeat, out)
    compared = _best([*run, "--omfc-submission", str(sub_b), *common, "--omfc-baseline", str(a)], repeat, out)
    code = (
        "from pytest_omfc import omfc_compare; "
        f"r = omfc_compare({str(a)!r}, {str(b)!r}, draws={draws}, level=0.9); print(len(r['results']))"
    )
    api = _best([sys.executable, "-c", code], repeat, out)
    print(f"{name}: {n} {'probes with masks' if masks else 'trials'}, {draws} draws")
    print(f"  {'scoring one run':<44}{one.wall:>8.2f} s wall {one.cpu:>8.2f} s CPU")
    print(f"  {'omfc_compare(a, b) in a fresh process':<44}{api.wall:>8.2f} s wall {api.cpu:>8.2f} s CPU"
          f"   {api.wall / one.wall:>5.2f}x scoring one run")  # fmt: skip
    added = compared.wall - plain.wall
    print(f"  {'a run with --omfc-baseline, less without':<44}{added:>8.2f} s wall"
          f"{'':>15}   {added / one.wall:>5.2f}x scoring one run")  # fmt: skip


def leaderboard(n_runs: int, root: Path, repeat: int) -> None:
    """``n_runs`` runs made from the detection baseline's metrics JSON, ranked by the leaderboard command."""
    import json

    from pytest_omfc.scoring import score_trials

    out = root / "out"
    base = json.loads((out / "detection-a.json").read_text(encoding="utf-8"))
    entry = base["results"][0]
    scores = np.asarray(entry["trials"]["score"], dtype=float)
    targets = np.asarray(entry["trials"]["target"], dtype=bool)
    rng = np.random.default_rng(7)
    board_dir = root / f"board-{n_runs}"
    board_dir.mkdir(exist_ok=True)
    files = []
    for k in range(n_runs):
        noisy = np.round(scores + rng.normal(scale=0.2 + 0.01 * k, size=scores.size), 4)
        result = score_trials(noisy, targets)
        doc = json.loads(json.dumps(base))
        doc["submission"] = f"p-team{k:03d}_1"
        doc["results"][0]["metrics"] = {
            **entry["metrics"],
            **{m: v for m, v in result.metrics.items() if v is not None},
        }
        doc["results"][0]["trials"] = {**entry["trials"], "score": noisy.tolist()}
        path = board_dir / f"run-{k:03d}.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        files.append(str(path))
    cmd = [sys.executable, "-m", "pytest_omfc", "leaderboard", *files, "-o", str(board_dir / "board.html")]
    run = _best(cmd, repeat, board_dir)
    size = sum(Path(f).stat().st_size for f in files) / 2**20
    print(f"leaderboard: {n_runs} runs of {scores.size} trials ({size:.0f} MB of metrics JSON), ranked by AUC")
    print(f"  {'pytest-omfc leaderboard ... -o board.html':<44}{run.wall:>8.2f} s wall {run.cpu:>8.2f} s CPU")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--trials", type=int, default=16_000)
    ap.add_argument("--masks", type=int, default=2_000)
    ap.add_argument("--draws", type=int, default=2_000)
    ap.add_argument("--runs", type=int, default=100, help="runs on the leaderboard")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each; the best is kept")
    args = ap.parse_args()
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    case("detection", args.trials, False, args.draws, args.repeat, root)
    case("masks", args.masks, True, args.draws, args.repeat, root)
    leaderboard(args.runs, root, args.repeat)
    print(
        "targets: a comparison costs at most 1.5x scoring one run, a 100-run leaderboard under 5 s; wall and CPU "
        "of every process of the tree"
    )


if __name__ == "__main__":
    main()
