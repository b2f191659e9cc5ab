"""Benchmark of the ForgeryNet engines (pytest_omfc.scoring.forgerynet) against their references.

Prints, in one run, with the numbers of both sides compared before the times:

1. **Classification**: 200,000 image predictions, 16-way (probabilities rounded to 4 decimals, so
   ties occur): ``score_multiclass`` (Acc, mAP, AUC, Acc_binary, per-class AUC and recall) against
   scikit-learn doing the same work: ``roc_auc_score`` per class (16) and for the fake score,
   ``balanced_accuracy_score`` for Acc and Acc_binary.  Also 2-way on the same number of rows.
2. **Temporal**: 20,000 videos with 10 predicted segments each (30 % real videos without ground
   truth, 1-2 ground-truth segments in the others; distinct scores so that ActivityNet's order is
   defined): ``score_temporal`` against the straightforward per-prediction, per-threshold loop of
   ActivityNet (the transcription of ``compute_average_precision_detection`` and
   ``average_recall_vs_avg_nr_proposals`` kept in tests/scoring/forgerynet/test_forgerynet_metrics_temporal.py).  The
   transcription costs about 12 ms per video, so by default it runs on the first
   ``--baseline-videos`` (2,000) videos, where both are timed and compared; the engine is also timed
   on all of them.  ``--baseline-videos 20000`` compares on the full set (several minutes).
3. **Spatial**: ``--maps`` (500) pairs of 256x256 grey maps through ``score_spatial`` against the
   formulas evaluated per pixel in float64.
4. **Spatial runs**: ``--run-maps`` (2,000) 256x256 PNG map pairs scored by the plugin in a subprocess
   (``pytest-omfc``: the FNET rules, then decoding and counting), on one process, ``--omfc-jobs 2`` and
   ``--omfc-dask local``: maps per second and CPU of the process tree (``benchmarks/_tree.py``), the
   reference given as ``ID|Label|MaskFileName`` and as the image list with its maps folder (the maps are
   written once, under the cache of ``validate_scale.py``: :func:`spatial_inputs`).
5. **Files**: reading ``--lines`` (1,000,000) lines of the benchmark's own image list, a video list of
   a tenth as many videos, and a model's plain prediction lines, against the same data in this
   project's pipe-separated form read by the NIST CSV reader (``read_psv``): lines per second of each.

Times are the best of ``--repeat`` runs, CPU time of the process (fairer on a shared machine) and
wall time.  Asserts nothing.

Run: ``PYTHONPATH=. python benchmarks/score_forgerynet.py [--images N] [--videos V] [--baseline-videos B]``
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from _timing import best  # benchmarks/_timing.py: the scripts run from this folder

from pytest_omfc.scoring.forgerynet import (
    score_binary,
    score_multiclass,
    score_spatial,
    score_temporal,
)
from pytest_omfc.scoring.forgerynet.classification import fake_score

TESTS = Path(__file__).resolve().parent.parent / "tests"


def _best(fn: Callable[[], Any], repeat: int) -> tuple[float, float, Any]:
    """(best CPU seconds, best wall seconds, last result) over ``repeat`` runs."""
    b = best(fn, repeat)
    return b.cpu, b.wall, b.result


def _row(name: str, t: tuple[float, float, Any], ref: tuple[float, float, Any] | None = None) -> None:
    ratio = f"{ref[0] / t[0]:9.1f}x" if ref is not None and t[0] > 0 else ""
    print(f"  {name:58s} cpu {t[0]:8.3f} s  wall {t[1]:8.3f} s  {ratio}")


def classification(n: int, k: int, repeat: int) -> None:
    from sklearn.metrics import balanced_accuracy_score, roc_auc_score  # reference only

    rng = np.random.default_rng(2024)
    y = rng.integers(0, k, n)
    logits = rng.normal(size=(n, k)) + 1.5 * np.eye(k)[y]
    p = np.exp(logits)
    p = np.round(p / p.sum(axis=1, keepdims=True), 4)

    def sk_multi() -> dict[str, Any]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            aucs = [roc_auc_score(y == c, p[:, c]) for c in range(k)]
            fake = fake_score(p)
            return {
                "Acc": balanced_accuracy_score(y, p.argmax(axis=1)),
                "mAP": float(np.mean(aucs)),
                "AUC": roc_auc_score(y != 0, fake),
                "Acc_binary": balanced_accuracy_score(y != 0, fake >= 0.5),
                "per_class": aucs,
            }

    sk = _best(sk_multi, repeat)
    eng = _best(lambda: score_multiclass(y, p), repeat)
    r, ref = eng[2], sk[2]
    diff = max(abs(r.metrics[m] - ref[m]) for m in ("Acc", "mAP", "AUC", "Acc_binary"))
    diff = max(diff, max(abs(row["AUC"] - a) for row, a in zip(r.per_class, ref["per_class"], strict=True)))
    print(f"classification, {n} images, {k}-way ({np.unique(p).size} distinct probabilities), best of {repeat}")
    print(f"  engine {', '.join(f'{m} {r.metrics[m]:.9f}' for m in r.metrics)}")
    print(f"  max |engine - scikit-learn| over Acc, mAP, AUC, Acc_binary and the {k} class AUCs: {diff:.1e}")
    _row(f"scikit-learn: {k + 1} roc_auc_score + 2 balanced_accuracy_score", sk)
    _row("score_multiclass", eng, sk)

    yb = (rng.random(n) < 0.5).astype(int)
    sb = np.round(np.clip(rng.normal(np.where(yb == 1, 0.6, 0.4), 0.2), 0, 1), 4)

    def sk_bin() -> tuple[float, float]:
        return roc_auc_score(yb, sb), balanced_accuracy_score(yb, sb >= 0.5)

    skb = _best(sk_bin, repeat)
    engb = _best(lambda: score_binary(yb, sb), repeat)
    db = max(abs(engb[2].metrics["AUC"] - skb[2][0]), abs(engb[2].metrics["Acc"] - skb[2][1]))
    print(f"  2-way, {n} images: max |engine - scikit-learn| {db:.1e}")
    _row("scikit-learn: roc_auc_score + balanced_accuracy_score", skb)
    _row("score_binary", engb, skb)


def temporal_data(n_videos: int, seed: int = 7) -> tuple[dict[str, list], dict[str, list]]:
    rng = np.random.default_rng(seed)
    gt: dict[str, list] = {}
    preds: dict[str, list] = {}
    for v in range(n_videos):
        dur = float(rng.uniform(10, 60))
        segs = []
        if rng.random() < 0.7:
            for _ in range(int(rng.integers(1, 3))):
                s = float(rng.uniform(0, dur * 0.7))
                segs.append((s, s + float(rng.uniform(1, dur - s))))
        vid = f"video_{v:06d}"
        gt[vid] = segs
        pl = []
        for _ in range(10):
            if segs and rng.random() < 0.5:
                s0, e0 = segs[int(rng.integers(len(segs)))]
                s = s0 + rng.normal(0, 0.15 * (e0 - s0))
                e = max(e0 + rng.normal(0, 0.15 * (e0 - s0)), s + 0.1)
            else:
                s = float(rng.uniform(0, dur))
                e = s + float(rng.uniform(0.5, 10))
            pl.append((float(s), float(e), float(rng.random())))
        preds[vid] = pl
    return gt, preds


def temporal(n_videos: int, n_base: int, repeat: int) -> None:
    sys.path.insert(0, str(TESTS))
    from test_forgerynet_metrics_temporal import (
        activitynet,  # the transcription of ActivityNet
    )

    gt, preds = temporal_data(n_videos)
    n_base = min(n_base, n_videos)
    sub = list(gt)[:n_base]
    gt_b, preds_b = {v: gt[v] for v in sub}, {v: preds[v] for v in sub}
    n_segs = sum(map(len, preds.values()))
    print(
        f"temporal, {n_videos} videos, {n_segs} predicted segments, "
        f"{sum(map(len, gt.values()))} ground-truth segments, best of {repeat}"
    )
    base = _best(lambda: activitynet(gt_b, preds_b), 1)
    eng_b = _best(lambda: score_temporal(gt_b, preds_b), repeat)
    ap, recall = base[2]
    r = eng_b[2]
    d_ap = max(abs(r.metrics[f"AP@{t:.2f}"] - a) for t, a in zip(np.linspace(0.5, 0.95, 10), ap, strict=True))
    d_ar = max(abs(r.metrics[f"AR@{k}"] - recall.mean(axis=0)[k - 1]) for k in (1, 2, 5, 10))
    print(
        f"  on the first {n_base} videos: max |engine - ActivityNet| AP@t {d_ap:.1e}, AR@K {d_ar:.1e}; "
        f"AP_avg {r.metrics['AP_avg']:.9f}, AR@1 {r.metrics['AR@1']:.9f}, AR@10 {r.metrics['AR@10']:.9f}"
    )
    _row(f"ActivityNet per-prediction/per-threshold loop, {n_base} videos", base)
    _row(f"score_temporal, {n_base} videos", eng_b, base)
    if n_videos > n_base:
        eng = _best(lambda: score_temporal(gt, preds), repeat)
        _row(f"score_temporal, {n_videos} videos", eng)
        print(f"  all {n_videos} videos: AP_avg {eng[2].metrics['AP_avg']:.9f}, AR@1 {eng[2].metrics['AR@1']:.9f}")


def spatial(n_maps: int, repeat: int) -> None:
    rng = np.random.default_rng(11)
    pairs = [
        (
            f"img{i:05d}",
            rng.integers(0, 256, (256, 256)).astype(np.uint8),
            (rng.random((256, 256)) < 0.3).astype(np.uint8) * rng.integers(0, 256, (256, 256)).astype(np.uint8),
        )
        for i in range(n_maps)
    ]

    def direct() -> list[list[float]]:
        rows = []
        for _, pm, gm in pairs:
            p, g = pm / 255.0, gm / 255.0
            d = np.abs(p - g)
            rows.append(
                [np.mean((p >= t) != (g >= t)) for t in (0.1, 0.2)]
                + [np.mean(d <= t) for t in (0.01, 0.05, 0.1)]
                + [float(np.mean(d))]
            )
        return rows

    base = _best(direct, repeat)
    eng = _best(lambda: score_spatial(pairs), repeat)
    names = ["IoU@0.1", "IoU@0.2", "IoU_diff@0.01", "IoU_diff@0.05", "IoU_diff@0.1", "L1"]
    diff = max(
        abs(row[n] - b)
        for row, brow in zip(eng[2].per_image, base[2], strict=True)
        for n, b in zip(names, brow, strict=True)
    )
    print(f"spatial, {n_maps} pairs of 256x256 maps, best of {repeat}: max |engine - per-pixel float64| {diff:.1e}")
    _row("per-pixel float64 formulas (numpy)", base)
    _row("score_spatial (integer rules, one bincount)", eng, base)


def spatial_inputs(n: int) -> Path:
    """n pairs of 256x256 PNG maps (a quarter of the images real: no reference map), written once under the
    benchmarks' cache (``validate_scale.py``'s ``cache_root()``): ``p-bench_1/`` with its pipe-separated
    predictions and ``masks/``, and ``data/`` with ``spatial_ref.csv``, ``image_list.txt`` and
    ``spatial_localize/``.  Returns the folder holding both."""
    import io
    import shutil

    from PIL import Image
    from validate_scale import cache_root

    d = cache_root() / f"forgerynet-spatial-{n}"
    if (d / "complete").exists():
        return d
    shutil.rmtree(d, ignore_errors=True)

    def png(a: np.ndarray) -> bytes:
        buf = io.BytesIO()
        Image.fromarray(a).save(buf, format="PNG")
        return buf.getvalue()

    rng = np.random.default_rng(3)
    sub = d / "p-bench_1"
    (sub / "masks").mkdir(parents=True)
    (d / "data" / "spatial_localize" / "val").mkdir(parents=True)
    yy, xx = np.mgrid[:256, :256]
    rows, ref_rows, lst = [], [], []
    for i in range(n):
        name = f"val/img{i:06d}.jpg"
        fake = i % 4 != 0
        cy, cx, r = rng.integers(60, 196), rng.integers(60, 196), rng.integers(20, 60)
        blob = ((yy - cy) ** 2 + (xx - cx) ** 2 < r * r).astype(np.uint8)
        pred = (blob * rng.integers(100, 255)).astype(np.uint8)
        (sub / "masks" / f"{i:06d}.png").write_bytes(png(pred))
        if fake:
            gt = np.roll(blob, 7, axis=1) * np.uint8(200)
            (d / "data" / "spatial_localize" / f"{name[:-4]}.png").write_bytes(png(gt))
        rows.append(f"{name}|0.9|masks/{i:06d}.png")
        ref_rows.append(f"{name}|{int(fake)}|{'spatial_localize/' + name[:-4] + '.png' if fake else ''}")
        lst.append(f"{name} {int(fake)} {int(fake)} {int(fake)}")
    (sub / "p-bench_1.csv").write_text("ID|Score|MaskFileName\n" + "\n".join(rows) + "\n")
    (d / "data" / "spatial_ref.csv").write_text("ID|Label|MaskFileName\n" + "\n".join(ref_rows) + "\n")
    (d / "data" / "image_list.txt").write_text("\n".join(lst) + "\n")
    (d / "complete").write_text("")
    return d


def spatial_runs(n: int) -> None:
    """The plugin on n spatial map pairs: maps per second on one process, two local processes and a LocalCluster."""
    import importlib.util

    from _tree import run_tree

    d = spatial_inputs(n)
    sub = d / "p-bench_1"
    print(f"\nspatial runs: {n} pairs of 256x256 PNG maps through pytest-omfc (process tree, one run each)")
    modes: list[tuple[str, list[str]]] = [
        ("one process", ["--omfc-jobs", "1"]),
        ("--omfc-jobs 2", ["--omfc-jobs", "2"]),
    ]
    if importlib.util.find_spec("distributed") is not None:
        modes.append(("--omfc-dask local (2 workers)", ["--omfc-dask", "local", "--omfc-jobs", "2"]))
    for ref_name in ("spatial_ref.csv", "image_list.txt"):
        for label, extra in modes:
            cmd = [sys.executable, "-m", "pytest_omfc", "-q", "--omfc-submission", str(sub)]
            cmd += ["--omfc-edition", "ForgeryNet", "--omfc-task", "spatial"]
            cmd += ["--omfc-reference", str(d / "data" / ref_name), *extra]
            run = run_tree(cmd)
            if run.returncode != 0:
                raise SystemExit(f"exit {run.returncode}: {run.stdout[-1500:]}{run.stderr[-1500:]}")
            print(
                f"  {ref_name:<16} {label:<30} {run.wall:6.2f} s wall {run.cpu:6.2f} s CPU "
                f"{n / run.wall:8.0f} maps/s  peak {run.peak_pss_mb:.0f} MB PSS ({run.processes} processes)"
            )


def files(n: int, repeat: int) -> None:
    """The benchmark's own lists and prediction lines against the same rows as pipe-separated files."""
    import tempfile

    from pytest_omfc.csvio import read_psv
    from pytest_omfc.forgerynet.lists import read_image_list, read_plain_predictions, read_video_list

    rng = np.random.default_rng(5)
    k = rng.integers(0, 16, n)
    names = [f"val_release/{c}/{i:08x}9f3c2b7e/{i:08x}bb/frame{i % 300:05d}.jpg" for i, c in enumerate(k.tolist())]
    scores = rng.random(n)
    videos = n // 10
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "image_list.txt").write_text(
            "".join(f"{nm} {int(c > 0)} {min(int(c), 2)} {c}\n" for nm, c in zip(names, k.tolist(), strict=True))
        )
        (d / "image_ref.csv").write_text(
            "ID|Label\n" + "".join(f"{nm}|{int(c > 0)}\n" for nm, c in zip(names, k.tolist(), strict=True))
        )
        (d / "preds.txt").write_text("".join(f"{nm} {v:.6f}\n" for nm, v in zip(names, scores.tolist(), strict=True)))
        (d / "preds.csv").write_text(
            "ID|Score\n" + "".join(f"{nm}|{v:.6f}\n" for nm, v in zip(names, scores.tolist(), strict=True))
        )
        (d / "video_list.txt").write_text(
            "".join(
                f"3 {names[i].replace('frame', 'video')} 0 10 0 10 35 1 45 30 0 1 2 {int(k[i]) % 9}\n"
                for i in range(videos)
            )
        )
        print(f"\nfiles: {n:,} images, {videos:,} videos; lines per second (best of {repeat}, CPU time)")
        cases: list[tuple[str, Callable[[], Any], int]] = [
            ("image list (official)", lambda: read_image_list(d / "image_list.txt", "l", 16), n),
            ("ID|Label reference (pipe-separated)", lambda: read_psv(d / "image_ref.csv", "r", strip_values=True), n),
            (
                "plain prediction lines (official)",
                lambda: read_plain_predictions(d / "preds.txt", "p", ["Score"], None),
                n,
            ),
            ("ID|Score output (pipe-separated)", lambda: read_psv(d / "preds.csv", "c"), n),
            ("video list (official, 3 segments each)", lambda: read_video_list(d / "video_list.txt", "v", 2), videos),
        ]
        for name, fn, rows in cases:
            cpu, wall, _ = _best(fn, repeat)
            print(f"  {name:<42} {cpu:6.2f} s CPU {wall:6.2f} s wall  {rows / cpu:>12,.0f} lines/s")
        from _tree import run_tree

        print(f"  whole runs of pytest-omfc (2-way classification of {n:,} images, rules and score, process tree):")
        sub = d / "p-bench_1"
        sub.mkdir()
        (d / "preds.csv").rename(sub / "p-bench_1.csv")
        for name, submission, reference in (
            ("plain lines against the image list", d / "preds.txt", d / "image_list.txt"),
            ("ID|Score against ID|Label", sub, d / "image_ref.csv"),
        ):
            cmd = [sys.executable, "-m", "pytest_omfc", "-q", "--omfc-submission", str(submission)]
            cmd += [
                "--omfc-edition",
                "ForgeryNet",
                "--omfc-task",
                "image-classification",
                "--omfc-reference",
                str(reference),
            ]
            run = run_tree(cmd)
            if run.returncode != 0:
                raise SystemExit(f"exit {run.returncode}: {run.stdout[-1500:]}{run.stderr[-1500:]}")
            print(f"    {name:<40} {run.wall:6.2f} s wall {run.cpu:6.2f} s CPU  peak {run.peak_rss_mb:.0f} MB RSS")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--images", type=int, default=200_000)
    ap.add_argument("--classes", type=int, default=16)
    ap.add_argument("--videos", type=int, default=20_000)
    ap.add_argument("--baseline-videos", type=int, default=2_000)
    ap.add_argument("--maps", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--lines", type=int, default=1_000_000, help="lines of the list benchmark (files)")
    ap.add_argument("--run-maps", type=int, default=2_000, help="map pairs of the whole spatial runs")
    ap.add_argument("--only", choices=("classification", "temporal", "spatial", "spatial-runs", "files"))
    args = ap.parse_args()
    if args.only in (None, "classification"):
        classification(args.images, args.classes, args.repeat)
    if args.only in (None, "temporal"):
        temporal(args.videos, args.baseline_videos, args.repeat)
    if args.only in (None, "spatial"):
        spatial(args.maps, args.repeat)
    if args.only in (None, "spatial-runs"):
        spatial_runs(args.run_maps)
    if args.only in (None, "files"):
        files(args.lines, args.repeat)


if __name__ == "__main__":
    main()
