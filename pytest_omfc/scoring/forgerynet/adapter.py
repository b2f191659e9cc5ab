"""The ForgeryNet scorers' adapters and registration (engines in this folder).

Three scorers, named as their metrics-JSON entries (``"scorer": "forgerynet-classification"``,
``"forgerynet-spatial"``, ``"forgerynet-temporal"``) and so their items
``<sub>::score::forgerynet-temporal`` and so on: the NIST video scorer already owns ``temporal``,
and one name per scorer keeps ``--omfc-score`` unambiguous.  Each reads the parsed
:class:`~.submission.ForgeryNetSubmission` (``ScoringInput.parsed``) and leaves out, with a
note, the rows an FNET rule rejects (unknown or repeated IDs, probabilities that are not in
[0, 1], unusable masks, bad segments or scores); reference IDs without a scorable row are noted
too (in temporal scoring they still count: their ground truth is missed).  No pytest import.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...editions import Task
from ...findings import Unavailable, plural
from ...forgerynet.maps import too_many_pixels
from ...options import DASK
from ..registry import NotScored, Outcome, Scorer, ScoreResult, ScoringInput, register
from .options import THRESHOLD

if TYPE_CHECKING:  # numpy is imported where a scorer runs: registering must stay light (plugin load time)
    import numpy as np

    from ..paired import TrialData

__all__ = ["CLASSIFICATION", "SPATIAL", "TEMPORAL_FNET", "run_classification", "run_spatial", "run_temporal"]


def _setup(inp: ScoringInput) -> Any:
    """The parsed submission, or a :class:`NotScored` explaining why there is nothing to score."""
    sub = inp.parsed
    if sub is None:
        return NotScored("ForgeryNet scoring needs --omfc-edition ForgeryNet", fail=True)
    if inp.selective:  # a lone "*" means all trials, as for every scorer
        return NotScored(
            "ForgeryNet scoring takes no --omfc-query, --omfc-query-manipulation or "
            "--omfc-query-partition (they select NIST index rows)",
            fail=True,
        )
    return sub


def _not_scored(exc: Unavailable) -> NotScored:
    return NotScored(f"{exc.rule_id} failed: {exc.reason}")


def _tabular(inp: ScoringInput) -> Any:
    """``(submission, reference, system table)`` of a pipe-separated task, or the :class:`NotScored` why not."""
    sub = _setup(inp)
    if isinstance(sub, NotScored):
        return sub
    try:
        ref = sub.reference_or_skip()
        table = sub.sysout()
    except Unavailable as exc:
        return _not_scored(exc)
    if sorted(table.header) != sorted(sub.expected_columns):
        return NotScored(f"FNET-03 failed: the header must be {sub.header_text()} (got {'|'.join(table.header)})")
    return sub, ref, table


def _left_out(what: list[tuple[int, str, str]]) -> list[str]:
    """``left out of scoring: 2 rows with ...`` for each non-zero count of (count, noun, why)."""
    return [f"left out of scoring: {plural(n, noun)} {why}" for n, noun, why in what if n]


# ==================================================================================== classification


def run_classification(inp: ScoringInput) -> list[Outcome]:
    """``Acc``/``AUC`` (2-way) or ``Acc``/``mAP``/``AUC``/``Acc_binary`` (k-way) over the valid rows."""
    import numpy as np

    from .classification import score_binary, score_multiclass

    n = inp.positions
    got = _tabular(inp)
    if isinstance(got, NotScored):
        return [got] * n
    sub, ref, table = got
    id_ok, prob_ok = sub.id_ok, sub.prob_ok
    ok = id_ok & prob_ok
    ids = sub.sys_ids[ok].tolist()
    missing = len(ref.ids) - int(np.count_nonzero(id_ok))  # id_ok rows: known IDs, each once
    notes = _left_out(
        [
            (int(np.count_nonzero(~id_ok)), "row", "with an unknown or repeated ID (FNET-04)"),
            (int(np.count_nonzero(id_ok & ~prob_ok)), "row", "with a probability outside [0, 1] (FNET-05)"),
            (missing, "reference ID", "without a row (FNET-04)"),
        ]
    )
    counts = {"reference": len(ref.ids), "rows": len(table), "scored": len(ids)}
    if not ids:
        # nothing scored: a failure when the reference lists IDs (no score item passes on nothing)
        return [
            NotScored(
                f"0 of {len(ref.ids)} reference IDs scored: no row can be scored "
                f"({'; '.join(notes) or 'the file has no rows'})",
                fail=bool(ref.ids),
            )
        ] * n
    labels = sub.ref_labels[sub.ref_position[ok]]
    undecided = _one_class(sub.ref_labels, labels, notes)
    if isinstance(undecided, NotScored):
        return [undecided] * n
    probs = sub.probs[ok]
    threshold = float(inp.options.get("threshold", 0.5))
    k = sub.classes
    report = score_binary(labels, probs[:, 0], threshold) if k == 2 else score_multiclass(labels, probs, threshold)
    body = report.to_entry()
    entry = {
        "query": None,
        "query_kind": "all",
        "classes": k,
        "threshold": threshold,
        "metrics": body["metrics"],
        "per_class": body["per_class"],
        "counts": counts,
        "notes": notes + body["notes"],
        "trials": _classified(ids, labels, probs, threshold),
    }
    props: list[tuple[str, Any]] = [(name, float(v)) for name, v in body["metrics"].items() if v is not None]
    props += [(f"count.{name}", v) for name, v in counts.items()]
    return [ScoreResult(entry, props, undecided)]


def _classified(ids: list[str], labels: np.ndarray, probs: np.ndarray, threshold: float) -> dict[str, list[Any]]:
    """The scored rows for comparisons (docs/scoring/comparison.md): each ID, its reference label, its fake
    score (the binary AUC's), its predicted class (Acc's) and, k-way, its predicted real/fake (Acc_binary's) and
    its probabilities (mAP's)."""
    import numpy as np

    from .classification import fake_score

    k = probs.shape[1] if probs.ndim == 2 and probs.shape[1] > 1 else 2
    fake = probs[:, 0] if k == 2 else fake_score(probs)
    out: dict[str, list[Any]] = {"key": [str(i) for i in ids], "label": labels.astype(int).tolist()}
    out["fake"] = fake.astype(float).tolist()
    if k == 2:
        out["pred"] = (fake >= threshold).astype(int).tolist()
    else:
        out["pred"] = np.argmax(probs, axis=1).astype(int).tolist()
        out["pred_binary"] = (fake >= threshold).astype(int).tolist()
        out["probs"] = probs.astype(float).tolist()  # mAP's one-vs-rest AUCs
    return out


def _one_class(reference: Any, scored: Any, notes: list[str]) -> NotScored | str | None:
    """What decides a ranking metric is both classes: a reference of one class leaves AUC undefined (not
    scored, the item skips); scored rows of one class out of a two-class reference fail the item, naming the
    rows left out (the numbers stay in the metrics JSON).  None when both classes were scored."""
    import numpy as np

    kinds = ("real", "fake")
    ref_fake, got_fake = np.asarray(reference) > 0, np.asarray(scored) > 0
    if ref_fake.all() or not ref_fake.any():
        only = kinds[int(ref_fake.all())]
        return NotScored(f"the reference holds only {only} IDs: AUC and balanced accuracy are undefined")
    if got_fake.all() or not got_fake.any():
        only, other = kinds[int(got_fake.all())], kinds[int(not got_fake.all())]
        left = "; ".join(notes) or "no row names one"
        return f"only {only} IDs were scored: no {other} ID of the reference has a usable row ({left})"
    return None


_CLASS_METRICS = ("Acc", "AUC", "mAP", "Acc_binary")


def _classification_trials(entry: Mapping[str, Any], options: Mapping[str, Any]) -> TrialData | None:
    """The entry's rows for comparisons (imported only when a comparison runs)."""
    from .paired import classification_trials

    return classification_trials(entry, options)


CLASSIFICATION = register(
    Scorer(
        name="forgerynet-classification",
        title="ForgeryNet classification",
        tasks={Task.FIC: "image-classification", Task.FVC: "video-classification"},
        run=run_classification,
        options=(THRESHOLD,),
        null_keys=("metrics", "per_class", "counts", "notes", "trials"),
        trials=_classification_trials,
        headline=("AUC", "Acc"),
        metrics=_CLASS_METRICS,
    )
)


# ==================================================================================== spatial


def _grey_map(path: Path, size: tuple[int, int], reference: bool = False) -> np.ndarray | str:
    """The decoded map (uint8 grey, or bool for 1-bit), or why it cannot be used.  The header was
    checked (FNET-07/08), so the decode is bounded by the reference's size.  Read as the mask scorer
    reads masks: the rules' header pass, one zlib-ng inflate, numpy unfilter for 8-bit grey
    (:mod:`pytest_omfc.unfilter`); other PNG kinds through Pillow on the critical chunks.  A reference
    map may also be a JPEG, as ForgeryNet ships them: its grey levels as the benchmark's loaders read
    them (:func:`pytest_omfc.jpeg.decode_grey`)."""
    import numpy as np
    from PIL import Image

    from ... import jpeg, png

    # the FNET rules' header pass (submission._masks)
    header = jpeg.read_map_header(str(path)) if reference else png.read_header(str(path), follow=True)
    if header.state != png.OK:
        return header.message
    too_big = too_many_pixels(header.width, header.height)  # as the rules' header pass (submission._mask_info)
    if too_big is not None:
        return too_big
    if header.kind == "JPEG":
        if (header.width, header.height) != size:
            return f"must be {size[0]}x{size[1]} (got a JPEG of {header.width}x{header.height})"
        return jpeg.decode_grey(str(path), header)
    if (header.width, header.height) != size:
        kind = png.colour_name(header.colour, header.trns)
        return f"must be a {size[0]}x{size[1]} grey or 1-bit PNG (got {kind}, {header.width}x{header.height})"
    try:  # the image data as MASK-04 and the mask scorer read it, also for a 1-bit map Pillow decodes
        pixels = png.unfiltered(str(path), header, (0,))
    except png.PixelError as exc:
        return str(exc)
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if pixels is not None:
        return pixels
    try:
        with png.open_critical(str(path), header) as stream, Image.open(stream, formats=("PNG",)) as im:
            if im.mode not in ("L", "1") or im.size != size:
                return (
                    f"must be a {size[0]}x{size[1]} grey or 1-bit PNG (got mode {im.mode}, {im.size[0]}x{im.size[1]})"
                )
            im.load()
            return np.asarray(im)
    except Exception as exc:  # noqa: BLE001  a damaged file becomes a note, never a traceback
        return f"cannot be decoded ({type(exc).__name__}: {exc})"


#: pairs per task on a local pool (a dask task's are counted in pixels: _pair_pixels)
_SPATIAL_BATCH = 64

#: one spatial pair for a worker: (ID, system map path, its size (W, H), reference map path or None)
_Pair = tuple[str, str, tuple[int, int], "str | None"]


def _pair_pixels(pair: _Pair) -> float:
    """A pair's work: its system map's pixels (what a dask task is sized by)."""
    width, height = pair[2]
    return float(width) * float(height)


def _pair_counts(pair: _Pair) -> tuple[int, ...] | str:
    """Decode one pair and count it (:func:`.spatial.pair_counts`), or say which map is unusable: a unit of
    work for the local process pool or a dask worker (module level, plain data in and out)."""
    import numpy as np

    from .spatial import pair_counts

    rid, sys_path, (w, h), ref_path = pair
    pred = _grey_map(Path(sys_path), (w, h))
    gt = _grey_map(Path(ref_path), (w, h), reference=True) if ref_path is not None else np.zeros((h, w), np.uint8)
    if isinstance(pred, str):
        return f"{rid}: the mask {pred}"
    if isinstance(gt, str):
        return f"{rid}: the reference map {gt}"
    return pair_counts(rid, pred, gt)


def run_spatial(inp: ScoringInput) -> list[Outcome]:
    """The IoU/IoU_agree/IoU_diff/L1 maps, per image and pooled, over the rows with usable masks.  The maps
    are decoded and counted on ``--omfc-jobs`` local processes or the ``--omfc-dask`` cluster (batches of
    pairs per task), in input order; only integer counts come back."""
    import numpy as np

    from ...errors import ExecutionError
    from ...work.executors import Executor
    from .spatial import SpatialAccumulator

    n = inp.positions
    got = _tabular(inp)
    if isinstance(got, NotScored):
        return [got] * n
    sub, ref, table = got
    id_ok = sub.id_ok
    acc = SpatialAccumulator()
    bad_mask = bad_ref = undecodable = fake_scored = 0
    failed: list[str] = []
    pairs: list[_Pair] = []
    for pos in np.flatnonzero(id_ok).tolist():
        rid = sub.sys_id_list[pos]
        mask = sub.masks[pos]
        gt_info = ref.masks.get(rid)
        if mask.path is None or sub.size_problem(pos):
            bad_mask += 1
            continue
        if gt_info is None or gt_info.problem:
            bad_ref += 1
            continue
        gt_path = str(gt_info.path.absolute()) if gt_info.path is not None else None  # None: a real image
        pairs.append((rid, str(mask.path.absolute()), (mask.width, mask.height), gt_path))
    dask = inp.options.get("dask")
    try:
        with Executor(jobs=max(1, inp.jobs), dask=dask) as executor:
            # a face map costs about half a millisecond: 64 per task on a pool; on dask (whose every task costs
            # the scheduler and the workers milliseconds) a task's maps are counted in pixels (about 500 maps
            # of 256x256 a task), so the plumbing is not the work
            batch = None if dask else _SPATIAL_BATCH
            done = executor.map(_pair_counts, pairs, batch=batch, cost=_pair_pixels)
            for (rid, *_, gt_path), row in zip(pairs, done, strict=True):
                if isinstance(row, str):
                    undecodable += 1
                    failed.append(row)
                else:
                    acc.add_counts(rid, row)
                    fake_scored += gt_path is not None
    except ExecutionError as exc:
        return [NotScored(f"spatial scoring could not run: {exc}", fail=True)] * n
    scored = len(acc)
    missing = len(ref.ids) - int(np.count_nonzero(id_ok))  # id_ok rows: known IDs, each once
    notes = _left_out(
        [
            (int(np.count_nonzero(~id_ok)), "row", "with an unknown or repeated ID (FNET-04)"),
            (bad_mask, "row", "whose mask is unusable or of the wrong size (FNET-07, FNET-08)"),
            (bad_ref, "row", "whose reference map is unusable (FNET-02)"),
            (undecodable, "row", "whose map data cannot be decoded"),
            (missing, "reference ID", "without a row (FNET-04)"),
        ]
    )
    notes += failed[:5]
    counts = {"reference": len(ref.ids), "rows": len(table), "scored": scored}
    fakes = sum(1 for rid in ref.ids if (info := ref.masks.get(rid)) is not None and info.path is not None)
    if not fakes:  # what decides the maps' scores are the fake images: without one they are undefined
        return [NotScored(f"the reference holds no fake image (none of its {len(ref.ids)} IDs has a map)")] * n
    if not scored:
        return [
            NotScored(
                f"0 of {len(ref.ids)} reference images scored: no image can be scored "
                f"({'; '.join(notes) or 'the file has no rows'})",
                fail=bool(ref.ids),
            )
        ] * n
    body = acc.report().to_entry()
    entry = {
        "query": None,
        "query_kind": "all",
        "metrics": body["metrics"],
        "per_image": body["per_image"],
        "counts": counts,
        "notes": notes,
    }
    props: list[tuple[str, Any]] = [(k, float(v)) for k, v in body["metrics"].items() if v is not None]
    props += [(f"count.{k}", v) for k, v in counts.items()]
    failure = f"{plural(undecodable, 'mask')} could not be decoded: {'; '.join(failed[:5])}" if undecodable else None
    if not fake_scored:  # only real images scored: a score of nothing that matters never passes
        only_real = f"0 of {fakes} fake images scored: only real images were"
        failure = f"{failure}; {only_real}" if failure else f"{only_real} ({'; '.join(notes) or 'no row names one'})"
    return [ScoreResult(entry, props, failure)]


#: The spatial engine's metric names (``scoring/forgerynet/spatial.py``), each per image and pooled.
_SPATIAL_METRICS = tuple(
    f"{m}_{s}"
    for m in (
        "IoU@0.1",
        "IoU@0.2",
        "IoU_agree@0.1",
        "IoU_agree@0.2",
        "IoU_diff@0.01",
        "IoU_diff@0.05",
        "IoU_diff@0.1",
        "L1",
    )
    for s in ("per_image", "pooled")
)


def _spatial_trials(entry: Mapping[str, Any], options: Mapping[str, Any]) -> TrialData | None:
    """The entry's images for comparisons (imported only when a comparison runs)."""
    from .paired import spatial_trials

    return spatial_trials(entry, options)


SPATIAL = register(
    Scorer(
        name="forgerynet-spatial",
        title="ForgeryNet spatial localization",
        tasks={Task.FSL: "spatial"},
        run=run_spatial,
        options=(DASK,),  # shared with the mask scorer: one flag, one cluster setting
        null_keys=("metrics", "per_image", "counts", "notes"),
        metrics=_SPATIAL_METRICS,
        trials=_spatial_trials,
        headline=("IoU_agree@0.1_per_image", "L1_per_image"),
        # the mismatch rates (IoU@t: the paper's formula is a mismatch, whatever its name) and L1: less is better
        lower_is_better=tuple(m for m in _SPATIAL_METRICS if m.startswith(("IoU@", "L1"))),
    )
)


# ==================================================================================== temporal


def run_temporal(inp: ScoringInput) -> list[Outcome]:
    """ActivityNet AP@0.50..0.95, AP_avg and AR@1/2/5/10 over the valid predictions (top 10 per video)."""
    from .temporal import score_temporal

    n = inp.positions
    sub = _setup(inp)
    if isinstance(sub, NotScored):
        return [sub] * n
    try:
        ref = sub.reference_or_skip()
        preds = sub.predictions_or_skip()
    except Unavailable as exc:
        return [_not_scored(exc)] * n
    known = set(ref.ids)
    chosen: dict[str, list[tuple[float, float, float]]] = {}
    unknown = bad_segment = bad_score = outside = 0
    for k, vid in enumerate(preds.video):
        if vid not in known:
            unknown += 1
        elif preds.segment_problem[k]:
            bad_segment += 1
        elif preds.score_problem[k]:
            bad_score += 1
        elif sub.duration_problem(k):
            outside += 1
        else:
            chosen.setdefault(vid, []).append((preds.start[k], preds.end[k], preds.score[k]))
    notes = _left_out(
        [
            (unknown, "prediction", "in videos not in the reference (FNET-04)"),
            (bad_segment, "prediction", "with a bad segment (FNET-09)"),
            (outside, "prediction", "outside the video's duration (FNET-10)"),
            (bad_score, "prediction", "with a score that is not a finite number (FNET-11)"),
        ]
    )
    truth = sum(len(ref.segments[v]) for v in ref.ids)
    if not truth:  # AP and AR are over the fake segments: without one they are undefined (not 0)
        return [
            NotScored(f"the reference holds no fake segment in its {len(ref.ids)} videos: AP and AR are undefined")
        ] * n
    if not chosen:
        why = "; ".join(notes) or "the results list no segment"
        return [NotScored(f"0 of {len(preds.video)} predictions scored: nothing can be scored ({why})", fail=True)] * n
    report = score_temporal({vid: ref.segments[vid] for vid in ref.ids}, chosen, top_k=10)
    body = report.to_entry()
    counts = {
        "videos": len(ref.ids),
        "videos_with_ground_truth": sum(1 for v in ref.ids if ref.segments[v]),
        "ground_truth_segments": sum(len(ref.segments[v]) for v in ref.ids),
        "predictions": len(preds.video),
        "scored_predictions": sum(len(v) for v in chosen.values()),
    }
    entry = {
        "query": None,
        "query_kind": "all",
        "metrics": body["metrics"],
        "per_threshold": body["per_threshold"],
        "counts": counts,
        "notes": notes + body["notes"],
        "trials": body.get("trials"),
    }
    props: list[tuple[str, Any]] = [(k, float(v)) for k, v in body["metrics"].items() if v is not None]
    props += [(f"count.{k}", v) for k, v in counts.items()]
    return [ScoreResult(entry, props)]


def _temporal_trials(entry: Mapping[str, Any], options: Mapping[str, Any]) -> TrialData | None:
    """The entry's videos for comparisons (imported only when a comparison runs)."""
    from .paired import temporal_trials

    return temporal_trials(entry, options)


#: The temporal engine's metric names (``scoring/forgerynet/temporal.py``).
_TEMPORAL_METRICS = (*(f"AP@{t / 100:.2f}" for t in range(50, 100, 5)), "AP_avg", "AR@1", "AR@2", "AR@5", "AR@10")


TEMPORAL_FNET = register(
    Scorer(
        name="forgerynet-temporal",
        title="ForgeryNet temporal localization",
        tasks={Task.FTL: "temporal"},
        run=run_temporal,
        null_keys=("metrics", "per_threshold", "counts", "notes", "trials"),
        metrics=_TEMPORAL_METRICS,
        trials=_temporal_trials,
        headline=("AP_avg", "AR@1"),
    )
)
