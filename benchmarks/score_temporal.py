"""Benchmark of video temporal localization scoring (pytest_omfc.scoring.temporal) against a per-frame baseline.

Generates its inputs in a temporary directory: N videos (default 2,000) with FrameCount 300 to
54,000 (10 s to 30 min at 30 fps), each with 1 to 4 journal operations holding up to 50 reference
intervals in all (some touching, some zero-length, some overlapping), a system output with
segments near the reference (shifted ends, misses, false alarms, some running past the last
frame so MediScore's truncation matters), opt-out segments on about a third of the videos, and
about 5 % of the probes not ``Processed``.  Layouts are MediScore's
``videoTemporalLocalizationScorerTests`` ones (index, probe-journal join, journal mask, system output).

It prints, in one run:

1. a check: every per-probe MCC and every query's mean of the engine equals the baseline's
   (both round to 12 decimals as MediScore; compared to 1e-9), for each mode;
2. wall and CPU time of the engine and of the baseline per mode, on the same files (both read the
   CSVs: the whole run is timed), the per-trial (per-video) cost and the ratio;
   plus one mode on videos 100 times longer (the same interval counts): the engine's cost follows the
   intervals, the baseline's the frames;
3. the engine's CPU time at N/4, N/2 and N videos (linearity), and the peak RSS (VmHWM).

The baseline is the straightforward implementation: ``csv`` and ``json`` reading, per video a
boolean array per frame cell (cell k is the continuous piece [k, k+1), k = 1 .. FrameCount - 1;
the generated endpoints are integers, so cells are exact), reference, system, collars and opt-out
segments painted by slices, TP/TN/FP/FN by counting, MCC from the counts.  It shares no code with
the engine (which sweeps interval endpoints and never allocates per frame), so agreement is a real
cross-check.

Run: ``PYTHONPATH=. python benchmarks/score_temporal.py [--quick] [--videos N] [--repeat R] [--collar C] [--profile]``
(about a minute on 2 CPUs with the defaults; ``--quick`` a few seconds; ``--profile`` prints the
engine's cProfile on the two-query mode, the 20 functions of largest own time, and stops)
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import random
import resource
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from _timing import best  # benchmarks/_timing.py: the scripts run from this folder

from pytest_omfc.scoring.temporal.engine import TemporalReport, score_temporal

SEED = 2019
OPERATIONS = ("PasteFrames", "Clone", "Blur", "DropFrames")
QUERY = "Operation == 'PasteFrames'"
#: FrameCount factor of the long-video mode (the same numbers of intervals, 100 times the frames).
LONG = 100


# --------------------------------------------------------------------------- inputs


def _intervals(rng: random.Random, fc: int, n: int) -> list[list[int]]:
    """n reference intervals inside [1, fc]: mostly short, some touching the previous one, a few zero-length."""
    out: list[list[int]] = []
    for _ in range(n):
        r = rng.random()
        if out and r < 0.1:  # touching the previous interval: merged by the union, no collar between them
            a = out[-1][1]
        else:
            a = rng.randint(1, fc - 1)
        if r > 0.97:
            b = a  # zero-length: no reference, but collars at its ends
        else:
            b = min(fc, a + rng.randint(1, max(2, fc // 40)))
        out.append([a, b])
    return out


def generate(root: Path, videos: int, seed: int = SEED, scale: int = 1) -> dict[str, Path]:
    """Write the four tables under ``root`` (FrameCount times ``scale``); returns their paths."""
    rng = random.Random(seed)
    index = [["TaskID", "ProbeFileID", "ProbeFileName", "ProbeWidth", "ProbeHeight", "FrameCount"]]
    join = [["ProbeFileID", "JournalName", "StartNodeID", "EndNodeID"]]
    mask = [["JournalName", "StartNodeID", "EndNodeID", "Operation", "VideoFrame"]]
    system = [
        [
            "ProbeFileID",
            "ConfidenceScore",
            "ProbeStatus",
            "VideoFrameSegments",
            "AudioSampleSegments",
            "VideoFrameOptOutSegments",
        ]
    ]
    for v in range(videos):
        pid = f"V{v:05d}"
        fc = rng.randint(300, 54_000) * scale
        index.append(["manipulation-video", pid, f"probe/{pid}.mp4", "1920", "1080", str(fc)])
        n_ops = rng.randint(1, 4)
        total = rng.randint(1, 50)
        split = sorted(rng.sample(range(1, total), n_ops - 1)) if total > n_ops else []
        counts = [b - a for a, b in zip([0, *split], [*split, total], strict=True)] if split else [total]
        ref: list[list[int]] = []
        jname = f"J{v:05d}"
        for k, n in enumerate(counts):
            ivs = _intervals(rng, fc, n)
            ref += ivs
            join.append([pid, jname, f"n{k}", f"n{k + 1}"])
            mask.append([jname, f"n{k}", f"n{k + 1}", OPERATIONS[(v + k) % len(OPERATIONS)], json.dumps(ivs)])
        segs: list[list[int]] = []
        for a, b in ref:
            if rng.random() < 0.2:
                continue  # a miss
            a2 = max(1, a + rng.randint(-30, 30) * scale)
            b2 = max(a2, b + rng.randint(-30, 30) * scale)
            if rng.random() < 0.05:
                b2 = fc + rng.randint(1, 500)  # past the last frame: truncated as MediScore does
            segs.append([a2, b2])
        for _ in range(rng.randint(0, 5)):  # false alarms
            a = rng.randint(1, fc - 1)
            segs.append([a, min(fc, a + rng.randint(1, 300) * scale)])
        optout: list[list[int]] = []
        if rng.random() < 0.35:
            for _ in range(rng.randint(1, 3)):
                a = rng.randint(1, fc - 1)
                optout.append([a, min(fc, a + rng.randint(1, 200) * scale)])
        status = "Processed" if rng.random() < 0.95 else rng.choice(("OptOutTemporal", "NonProcessed"))
        system.append([pid, f"{rng.random():.4f}", status, json.dumps(segs), "[]", json.dumps(optout)])
    root.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, rows in (("index", index), ("join", join), ("mask", mask), ("system", system)):
        paths[name] = root / f"{name}.csv"
        with paths[name].open("w", newline="") as fh:
            csv.writer(fh, delimiter="|", lineterminator="\n").writerows(rows)
    return paths


def subset(full: dict[str, Path], root: Path, videos: int) -> dict[str, Path]:
    """The first ``videos`` probes of every table (for the linearity figures)."""
    keep = {f"V{v:05d}" for v in range(videos)}
    journals = {f"J{v:05d}" for v in range(videos)}
    root.mkdir(parents=True, exist_ok=True)
    out = {}
    for name, path in full.items():
        lines = path.read_text().splitlines(keepends=True)
        col, wanted = (0, journals) if name == "mask" else (1 if name == "index" else 0, keep)
        out[name] = root / path.name
        out[name].write_text(lines[0] + "".join(ln for ln in lines[1:] if ln.split("|")[col] in wanted))
    return out


# --------------------------------------------------------------------------- baseline: per-frame arrays


def _read(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh, delimiter="|"))


def _union(ivs: list[list[float]]) -> list[list[float]]:
    """Sort each pair, sort by start, merge while start <= current end (touching intervals merge)."""
    out: list[list[float]] = []
    for a, b in sorted(sorted(iv) for iv in ivs):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def _paint(cells: Any, ivs: list[list[float]], fc: int) -> None:
    """Set the cells [k, k+1) covered by each interval, clipped to the video [1, fc]."""
    for a, b in ivs:
        lo, hi = max(int(a), 1), min(int(b), fc)
        if hi > lo:
            cells[lo - 1 : hi - 1] = True


def baseline(p: dict[str, Path], queries: list[str], collar: int) -> list[tuple[list[tuple[str, float | None]], float]]:
    """Per query: [(probe, MCC or None when opted out)] and the mean MCC of the scored probes."""
    import numpy as np  # the painting needs arrays; counting is plain sums

    fc_of = {r["ProbeFileID"]: int(r["FrameCount"]) for r in _read(p["index"])}
    sysrows = {r["ProbeFileID"]: r for r in _read(p["system"])}
    ops: dict[str, list[tuple[str, list[list[float]]]]] = {}
    mask = {(r["JournalName"], r["StartNodeID"], r["EndNodeID"]): r for r in _read(p["mask"])}
    for r in _read(p["join"]):
        m = mask[(r["JournalName"], r["StartNodeID"], r["EndNodeID"])]
        ops.setdefault(r["ProbeFileID"], []).append((m["Operation"], json.loads(m["VideoFrame"])))
    results = []
    for q in queries:
        want = None if q == "*" else q.split("'")[1]  # only "*" and "Operation == 'X'" are generated
        probes: list[tuple[str, float | None]] = []
        for pid, entries in ops.items():
            chosen = [ivs for op, ivs in entries if want is None or op == want]
            if not chosen:
                continue
            s = sysrows[pid]
            if s["ProbeStatus"] != "Processed":
                probes.append((pid, None))
                continue
            fc = fc_of[pid]
            ref_u = _union([iv for ivs in chosen for iv in ivs])
            ref, sys_, no = (np.zeros(fc - 1, dtype=bool) for _ in range(3))
            _paint(ref, ref_u, fc)
            _paint(sys_, _union(json.loads(s["VideoFrameSegments"])), fc)
            _paint(no, _union(json.loads(s["VideoFrameOptOutSegments"])), fc)
            if collar:
                _paint(no, [[x - collar, x + collar] for iv in ref_u for x in iv], fc)
            ok = ~no
            tp = int(np.count_nonzero(ref & sys_ & ok))
            fn = int(np.count_nonzero(ref & ~sys_ & ok))
            fp = int(np.count_nonzero(~ref & sys_ & ok))
            tn = int(np.count_nonzero(ok)) - tp - fn - fp
            den = math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
            probes.append((pid, round((tp * tn - fp * fn) / den if den else 0.0, 12)))
        scored = [v for _, v in probes if v is not None]
        results.append((probes, round(sum(scored) / len(scored), 12) if scored else math.nan))
    return results


# --------------------------------------------------------------------------- engine, check, timing


def engine(p: dict[str, Path], queries: list[str], collar: int) -> TemporalReport:
    return score_temporal(
        p["index"], None, p["system"], journal_join=p["join"], journal_mask=p["mask"], query=queries, collar=collar
    )


def check(p: dict[str, Path], queries: list[str], collar: int) -> tuple[int, list[float]]:
    """Engine == baseline to 1e-9 on every per-probe MCC and every mean; returns (values compared, means)."""
    rep = engine(p, queries, collar)
    base = baseline(p, queries, collar)
    compared = 0
    for res, (probes, mean) in zip(rep.results, base, strict=True):
        assert not res.failed, [t.reason for t in res.failed[:3]]
        got = {t.probe: (t.mcc if t.status == "scored" else None) for t in res.trials}
        assert set(got) == {pid for pid, _ in probes}, "different trials"
        for pid, want in probes:
            a = got[pid]
            assert (a is None and want is None) or (a is not None and want is not None and abs(a - want) <= 1e-9), (
                f"query {res.query!r} probe {pid}: engine {a} baseline {want}"
            )
            compared += 1
        assert abs(res.mcc - mean) <= 1e-9, f"query {res.query!r} mean: engine {res.mcc} baseline {mean}"
        compared += 1
    return compared, [r.mcc for r in rep.results]


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Best (wall, CPU) seconds over ``repeat`` runs: the least disturbed on a shared machine."""
    b = best(fn, repeat)
    return b.wall, b.cpu


def profile(p: dict[str, Path], queries: list[str], collar: int) -> None:
    """The engine's cProfile (after one warm-up run), largest own time first."""
    import cProfile
    import pstats

    engine(p, queries, collar)
    prof = cProfile.Profile()
    prof.runcall(engine, p, queries, collar)
    pstats.Stats(prof).sort_stats("tottime").print_stats(20)


def vm_hwm() -> float:
    """This process's peak RSS in MB (VmHWM)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="200 videos, 1 repeat (a smoke run)")
    ap.add_argument("--videos", type=int, default=None, help="videos (default 2,000; --quick 200)")
    ap.add_argument("--repeat", type=int, default=None, help="best of R runs (default 3; --quick 1)")
    ap.add_argument("--collar", type=int, default=5, help="collar of the collar modes (default 5, as test_1_0)")
    ap.add_argument("--profile", action="store_true", help="cProfile the engine on the two-query mode and stop")
    args = ap.parse_args()
    videos = args.videos or (200 if args.quick else 2000)
    repeat = args.repeat or (1 if args.quick else 3)
    with tempfile.TemporaryDirectory(prefix="omfc-bench-temporal-") as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        full = generate(root / "full", videos)
        sizes = sorted({max(1, videos // 4), max(1, videos // 2), videos})
        paths = {n: (full if n == videos else subset(full, root / f"n{n}", n)) for n in sizes}
        idx = _read(full["index"])
        frames = sum(int(r["FrameCount"]) for r in idx)
        n_ref = sum(len(json.loads(r["VideoFrame"])) for r in _read(full["mask"]))
        print(
            f"pytest-omfc temporal scoring benchmark: {videos} videos, {frames:,} frames in all, {n_ref} reference "
            f"intervals; inputs ready in {time.perf_counter() - t0:.1f} s; best of {repeat}"
        )

        if args.profile:
            profile(full, ["*", QUERY], args.collar)
            return
        modes = [
            ("'*', collar 0", ["*"], 0),
            (f"'*', collar {args.collar}", ["*"], args.collar),
            (f"'*' + {QUERY}, collar {args.collar}", ["*", QUERY], args.collar),
        ]
        for name, queries, collar in modes:
            n_cmp, means = check(full, queries, collar)
            print(
                f"check {name}: engine == baseline to 1e-9 on {n_cmp} values; mean MCC "
                + ", ".join(f"{m:.6f}" for m in means)
            )

        long = generate(root / "long", videos, scale=LONG)
        n_cmp, means = check(long, ["*"], args.collar)
        print(
            f"check '*', collar {args.collar}, FrameCount x {LONG}: engine == baseline to 1e-9 on {n_cmp} values; "
            f"mean MCC {means[0]:.6f}"
        )
        rows = [(name, full, queries, collar) for name, queries, collar in modes]
        rows.append((f"'*', collar {args.collar}, FrameCount x {LONG}", long, ["*"], args.collar))
        print(
            f"\n{'mode':<44}{'engine wall':>12}{'CPU':>8}{'ms/video':>10}{'baseline wall':>15}{'CPU':>8}"
            f"{'ms/video':>10}{'base/eng CPU':>14}"
        )
        for name, tables, queries, collar in rows:
            we, ce = timed(partial(engine, tables, queries, collar), repeat)
            wb, cb = timed(partial(baseline, tables, queries, collar), repeat)
            print(
                f"{name:<44}{we:>11.2f}s{ce:>7.2f}s{1000 * ce / videos:>10.3f}{wb:>14.2f}s{cb:>7.2f}s"
                f"{1000 * cb / videos:>10.3f}{cb / ce:>13.1f}x"
            )

        name, queries, collar = modes[1]
        cells = []
        for n in sizes:
            _, c = timed(partial(engine, paths[n], queries, collar), repeat)
            cells.append(f"{n} videos {c:.2f} s ({1000 * c / n:.3f} ms/video)")
        print(f"\nlinearity, engine CPU ({name}): " + "; ".join(cells))
        print(f"process peak RSS (VmHWM): {vm_hwm():.0f} MB")


if __name__ == "__main__":
    main()
