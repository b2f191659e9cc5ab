"""ForgeryNet temporal forgery localization: ActivityNet AP and AR
(docs/scoring/forgerynet.md#temporal-localization-metrics).

Pure numpy, no pytest.  Reproduces ActivityNet's ``Evaluation/`` code
(``eval_detection.compute_average_precision_detection``, ``utils.segment_iou``,
``utils.interpolated_prec_rec`` and ``eval_proposal.average_recall_vs_avg_nr_proposals`` with
``max_avg_nr_proposals=100``, as BSN/BMN call it), vectorised, with these conventions (docs/scoring/forgerynet.md
quotes them):

* **Top 10.**  Only the ``top_k`` (10) highest-scored predictions of each video are kept, exactly
  10 where there are more.  Ties in score are broken by order of appearance: the earlier
  prediction of the video's list (the file order) ranks first (:func:`keep_top_k`).  The same
  order is used everywhere a score order is needed: the global AP ranking (descending score, ties
  by order of appearance over the whole file: videos in file order, then each video's list) and
  the per-video proposal order of AR.  ActivityNet itself sorts with ``argsort()[::-1]`` on numpy's
  unstable quicksort, so its order among equal scores is not specified (for small arrays it is
  the *later* one first); with distinct scores the two agree exactly.
* **tIoU** (``segment_iou``): ``inter = max(0, min(e1, e2) - max(s1, s2))``,
  ``union = (e_gt - s_gt) + (e_pred - s_pred) - inter``, continuous, no ``+1``.
* **AP@t**, t in ``np.linspace(0.5, 0.95, 10)`` (the exact float64 values, e.g. ``0.8999999999999999``),
  named ``AP@0.50`` ... ``AP@0.95``: predictions ranked globally; each one, in turn, matches the
  unmatched ground truth of its video with the highest tIoU among those with tIoU ``>= t``
  (ActivityNet visits the ground truth by descending tIoU and stops at the first below t; on equal
  tIoU the ground truth listed first in the reference is taken: again a stable rule where
  ActivityNet's order is numpy's); otherwise it is a false positive.  A prediction in a video
  without ground truth (a real video, or one absent from the reference) is a false positive.
  ``npos`` is the number of ground-truth segments of all videos; a video the predictions omit
  still counts (its ground truth is missed).  Precision and recall are cumulated and interpolated
  as VOC 2011 (``interpolated_prec_rec``).  No prediction at all: AP = 0.  No ground truth at all:
  AP undefined (``None``, note).  ``AP_avg`` is the mean of the 10.
* **AR@K**, K in 1, 2, 5, 10: ActivityNet's ``average_recall_vs_avg_nr_proposals`` with
  ``max_avg_nr_proposals=100``, over the videos with ground truth only: ``ratio = 100 V / P``
  (V videos with ground truth, P kept predictions of *all* videos, real ones included), each video
  keeps ``min(int(n_v ratio), n_v)`` proposals, then at step K it uses the top
  ``min(int(n_v' * pcn[K-1]), n_v')`` with ``pcn = arange(1, 101) / 100 * (100 V / kept total)``,
  and a ground truth is recalled if any of them has tIoU ``>= t`` (no one-to-one matching).
  ``AR@K`` is the mean over the 10 thresholds of that recall.  K is an *average* number of
  proposals per video: with exactly 10 predictions in every video with ground truth and none
  elsewhere it is the top K of each video; when some videos with ground truth have fewer (or no)
  predictions the others get more than K each (and when real videos carry many predictions,
  fewer).  ActivityNet divides by zero when no proposal of a video with ground truth is kept
  (none predicted, or a budget below one per video); here AR is 0 with a note naming the cause.
  Predictions in videos without ground truth count in P but are never recalled.

Speed: the greedy matching is sequential only within a video, so it runs as at most ``top_k``
vectorised steps over all videos with the same number of ground-truth segments at once, for all 10
thresholds together; AP is then summed over the true positives' global ranks only (the same float64
terms ActivityNet sums); AR uses the running maximum of tIoU along each video's proposal order.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np

__all__ = [
    "AR_AT",
    "TIOU_THRESHOLDS",
    "TemporalReport",
    "keep_top_k",
    "score_temporal",
    "segment_iou",
    "resampled_ar",
    "weighted_ap",
]

#: ActivityNet's thresholds, the exact float64 values (``np.linspace(0.5, 0.95, 10)``).
TIOU_THRESHOLDS: np.ndarray = np.linspace(0.5, 0.95, 10)
#: The K of ``AR@K``.
AR_AT: tuple[int, ...] = (1, 2, 5, 10)
#: ``max_avg_nr_proposals`` of ``average_recall_vs_avg_nr_proposals`` as BSN/BMN call it.
MAX_AVG_NR_PROPOSALS = 100


@dataclass(frozen=True)
class TemporalReport:
    """AP@t, AP_avg and AR@K, a per-threshold table and notes."""

    metrics: dict[str, float | None]
    per_threshold: list[dict[str, Any]]
    notes: tuple[str, ...] = ()
    #: what AP is made of, video by video (docs/scoring/comparison.md): the videos (``key``, reference order),
    #: their ground-truth segments (``gt``), and the kept predictions in AP's order (descending score, ties by
    #: appearance): each one's video (``video``, an index into ``key``) and its TP flags as bits (``tp``, bit t:
    #: a TP at the t-th tIoU threshold); for AR, each video's kept proposals (``proposals``) and the segments its
    #: first m proposals recall at each threshold (``recalled[video][t][m - 1]``, m up to the most kept in a video)
    trials: dict[str, list[Any]] | None = None

    def to_entry(self) -> dict[str, Any]:
        """Builtin types only, for the metrics JSON."""
        out: dict[str, Any] = {
            "metrics": {k: (None if v is None else float(v)) for k, v in self.metrics.items()},
            "per_threshold": [
                {k: (None if v is None else float(v)) for k, v in row.items()} for row in self.per_threshold
            ],
            "notes": list(self.notes),
        }
        if self.trials is not None:
            out["trials"] = self.trials
        return out


def segment_iou(ps: np.ndarray, pe: np.ndarray, gs: np.ndarray, ge: np.ndarray) -> np.ndarray:
    """tIoU of predictions ``[ps, pe]`` and ground truths ``[gs, ge]`` (broadcast), as ActivityNet."""
    inter = np.clip(np.minimum(pe, ge) - np.maximum(ps, gs), 0, None)
    union = (ge - gs) + (pe - ps) - inter
    return inter / union


def keep_top_k(preds: Sequence[tuple[float, float, float]], k: int = 10) -> list[tuple[float, float, float]]:
    """The ``k`` highest-scored ``(start, end, score)``, by descending score; equal scores keep file order."""
    order = sorted(range(len(preds)), key=lambda i: -float(preds[i][2]))  # sorted() is stable
    return [tuple(preds[i]) for i in order[:k]]  # type: ignore[misc]


def _segments(lists: Iterable[Sequence[Sequence[float]]], width: int, what: str) -> np.ndarray:
    """The ``(n, width)`` float64 array of all segments of all videos (C-level iteration, no tuple copies)."""
    widths = np.fromiter(map(len, chain.from_iterable(lists)), dtype=np.int64)
    if np.any(widths != width):
        raise ValueError(f"every {what} must have {width} numbers (got {int(widths[widths != width][0])})")
    flat = np.fromiter(chain.from_iterable(chain.from_iterable(lists)), dtype=np.float64, count=widths.size * width)
    return flat.reshape(-1, width)


def _flatten_gt(ground_truth: Mapping[str, Sequence[tuple[float, float]]]) -> tuple[np.ndarray, np.ndarray]:
    counts = np.fromiter(map(len, ground_truth.values()), dtype=np.int64, count=len(ground_truth))
    arr = _segments(ground_truth.values(), 2, "ground-truth segment")
    if arr.size and not np.all(np.isfinite(arr)):
        raise ValueError("ground-truth segments must be finite numbers")
    if np.any(arr[:, 1] < arr[:, 0]):
        bad = int(np.flatnonzero(arr[:, 1] < arr[:, 0])[0])
        vid = list(ground_truth)[int(np.searchsorted(np.cumsum(counts), bad, side="right"))]
        raise ValueError(f"ground-truth segment of video {vid!r} must have start <= end (got {arr[bad].tolist()})")
    return counts, arr


def _flatten_pred(
    predictions: Mapping[str, Sequence[tuple[float, float, float]]], code_of: dict[str, int]
) -> tuple[np.ndarray, np.ndarray, int]:
    """(video code per prediction, (n, 3) array, number of codes incl. videos absent from the reference)."""
    codes: list[int] = []
    counts: list[int] = []
    n_codes = len(code_of)
    for vid, segs in predictions.items():
        c = code_of.get(vid)
        if c is None:
            c = n_codes
            n_codes += 1
        codes.append(c)
        counts.append(len(segs))
    arr = _segments(predictions.values(), 3, "prediction")
    pv = np.repeat(np.array(codes, dtype=np.int64), np.array(counts, dtype=np.int64))
    bad = ~np.all(np.isfinite(arr), axis=1) | ~(arr[:, 1] > arr[:, 0])
    if np.any(bad):
        i = int(np.flatnonzero(bad)[0])
        vid = list(predictions)[int(np.searchsorted(np.cumsum(counts), i, side="right"))]
        raise ValueError(f"prediction of video {vid!r} must be finite with start < end (got {arr[i].tolist()})")
    return pv, arr, n_codes


def _interpolated_ap(tp_ranks: np.ndarray, npos: int) -> float:
    """VOC 2011 interpolated AP (ActivityNet ``interpolated_prec_rec``) from the 0-based global ranks of the TPs.

    ActivityNet builds precision and recall at every rank; recall only moves at a TP, and the
    running maximum of precision from the right is always reached at a TP, so the sum it forms
    has one term per TP (``(m/npos - (m-1)/npos) * max_{m' >= m} m'/(rank_m' + 1)``), plus a zero
    term when recall ends below 1.  The same float64 operations on the same terms in the same
    order give the same value, at O(TP) cost instead of O(predictions).
    """
    r = np.sort(tp_ranks)
    m = np.arange(1, r.size + 1, dtype=np.float64)
    prec = m / (r + 1.0)  # tp_cumsum / (tp_cumsum + fp_cumsum) at the TP
    mprec = np.maximum.accumulate(prec[::-1])[::-1]
    rec = m / float(npos)
    prev = np.concatenate([[0.0], rec[:-1]])
    terms = (rec - prev) * mprec
    if r.size == 0 or rec[-1] != 1.0:
        terms = np.append(terms, 0.0)  # mrec's closing 1 with mprec 0
    return float(np.sum(terms))


def weighted_ap(tp_bits: np.ndarray, weights: np.ndarray, npos: int, n_thr: int) -> list[float]:
    """AP at each threshold of kept predictions in AP's order, each counted ``weights`` times in a row (a video
    drawn twice by a bootstrap brings its predictions twice): the AP of that list, as :func:`score_temporal`
    computes it."""
    expanded = np.repeat(tp_bits, weights)
    return [_interpolated_ap(np.flatnonzero(expanded & (1 << t)), npos) for t in range(n_thr)]


def resampled_ar(
    counts: np.ndarray,
    gt: np.ndarray,
    proposals: np.ndarray,
    recalled: np.ndarray,
    *,
    max_avg_nr_proposals: int = MAX_AVG_NR_PROPOSALS,
) -> np.ndarray:
    """AR@K (for K in :data:`AR_AT`) of the videos counted ``counts`` times each, as :func:`score_temporal` computes
    it on files in which each video appears that often: ActivityNet's proposal budget (``max_avg_nr_proposals``
    per video with ground truth, shared in proportion to each video's proposals) over the videos drawn."""
    c = np.asarray(counts, dtype=np.int64)
    npos = int(c @ gt)
    if npos == 0:
        return np.full(len(AR_AT), np.nan)
    has_gt = gt > 0
    n_gt_videos = int(c[has_gt].sum())
    n_kept = int(c @ proposals)
    if n_gt_videos == 0 or n_kept == 0:
        return np.zeros(len(AR_AT))
    ratio = max_avg_nr_proposals * float(n_gt_videos) / n_kept
    nr = np.where(has_gt, np.minimum((proposals * ratio).astype(np.int64), proposals), 0)
    total_nr = int(c @ nr)
    if total_nr == 0:
        return np.zeros(len(AR_AT))
    pcn = np.arange(1, 101) / 100.0 * (max_avg_nr_proposals * float(n_gt_videos) / total_nr)
    out = np.empty(len(AR_AT))
    videos = np.arange(gt.size)
    for jj, k in enumerate(AR_AT):
        m = np.minimum((nr * pcn[k - 1]).astype(np.int64), nr)
        got = np.where(m >= 1, recalled[videos, :, np.maximum(m - 1, 0)].T, 0)  # (n_thr, videos)
        out[jj] = float(np.mean((got @ c) / float(npos)))
    return out


def score_temporal(
    ground_truth: Mapping[str, Sequence[tuple[float, float]]],
    predictions: Mapping[str, Sequence[tuple[float, float, float]]],
    top_k: int = 10,
    *,
    max_avg_nr_proposals: int = MAX_AVG_NR_PROPOSALS,
) -> TemporalReport:
    """AP@0.50..0.95, AP_avg and AR@1/2/5/10 of ``predictions`` against ``ground_truth``.

    ``ground_truth`` lists every reference video (real ones with no segment); ``predictions`` may
    omit videos.  Raises ``ValueError`` on a non-finite value or a segment with end before start
    (the FNET validation rules reject those first).
    """
    if top_k < 1:
        raise ValueError(f"top_k must be at least 1 (got {top_k})")
    thr = TIOU_THRESHOLDS
    n_thr = thr.size
    code_of = {vid: i for i, vid in enumerate(ground_truth)}
    gt_counts, gt = _flatten_gt(ground_truth)
    pv, pred, n_codes = _flatten_pred(predictions, code_of)
    notes: list[str] = []

    # Ground truth indexed by video code (reference order kept inside a video).
    n_gt_codes = len(code_of)
    gcount = np.zeros(n_codes, dtype=np.int64)
    gcount[:n_gt_codes] = gt_counts
    gstart = np.zeros(n_codes, dtype=np.int64)
    gstart[:n_gt_codes] = np.cumsum(gt_counts) - gt_counts
    npos = int(gt.shape[0])

    # Top k per video: order by video, descending score, appearance; rank inside the video.
    n_all = pred.shape[0]
    appearance = np.arange(n_all)
    by_video = np.lexsort((appearance, -pred[:, 2], pv))
    first_of_video = np.r_[True, pv[by_video][1:] != pv[by_video][:-1]] if n_all else np.zeros(0, bool)
    group_start = np.maximum.accumulate(np.where(first_of_video, np.arange(n_all), 0)) if n_all else appearance
    rank_sorted = np.arange(n_all) - group_start
    kept_sorted = rank_sorted < top_k
    n_dropped = int(np.count_nonzero(~kept_sorted))
    if n_dropped:
        n_vids = int(np.unique(pv[by_video][~kept_sorted]).size)
        notes.append(f"{n_dropped} predictions beyond the top {top_k} of their video were dropped ({n_vids} videos)")
    kidx = by_video[kept_sorted]  # kept predictions, by video then rank (file indices)
    krank = rank_sorted[kept_sorted]
    kv = pv[kidx]
    n_kept = kidx.size
    ps, pe = pred[kidx, 0], pred[kidx, 1]
    has_gt = gcount[kv] > 0
    n_fp_vid = int(np.unique(kv[~has_gt]).size)
    if n_fp_vid:
        notes.append(
            f"{int(np.count_nonzero(~has_gt))} predictions in {n_fp_vid} videos without ground truth: "
            "false positives for AP, not counted for AR"
        )
    vids_gt = np.flatnonzero(gcount > 0)
    n_pred_per_code = np.bincount(kv, minlength=n_codes)
    missing = int(np.count_nonzero(n_pred_per_code[vids_gt] == 0))
    if missing:
        notes.append(
            f"{missing} of {vids_gt.size} videos with ground truth have no prediction: their ground truth is missed"
        )

    # Per kept prediction: TP at each threshold (greedy matching), and for AR the data below.
    tp = np.zeros((n_thr, n_kept), dtype=bool)
    ar_cols = np.array(AR_AT) - 1
    matched_ar = np.zeros((n_thr, ar_cols.size), dtype=np.int64)

    # AR set-up (ActivityNet: proposals of all videos count in the ratio; only GT videos are scored).
    ar_possible = vids_gt.size > 0 and n_kept > 0
    nr_keep = np.zeros(n_codes, dtype=np.int64)
    pcn_lst = np.zeros(100)
    if ar_possible:
        ratio = max_avg_nr_proposals * float(vids_gt.size) / n_kept
        n_v = n_pred_per_code[vids_gt]
        nr = np.minimum((n_v * ratio).astype(np.int64), n_v)
        nr_keep[vids_gt] = nr
        total_nr = int(nr.sum())
        if total_nr > 0:
            pcn_lst = np.arange(1, 101) / 100.0 * (max_avg_nr_proposals * float(vids_gt.size) / total_nr)
        else:
            ar_possible = False

    # Videos with ground truth and predictions, grouped by their number of ground-truth segments.
    row_code = np.full(n_codes, -1, dtype=np.int64)
    width = int(krank.max()) + 1 if n_kept else 1  # columns: at most top_k, never more than used
    # per video with ground truth: the segments recalled at each threshold by its first m proposals, m = 1..width
    # (what AR@K of a resample of videos is made of, docs/scoring/comparison.md)
    recalled = np.zeros((n_codes, n_thr, width), dtype=np.int64)
    # Kept predictions of videos with ground truth, sorted by that count once (each group is a slice).
    kg = gcount[kv]
    by_count = np.argsort(kg, kind="stable")
    kg_sorted = kg[by_count]
    for g in np.unique(kg_sorted[kg_sorted > 0]):
        sel = by_count[np.searchsorted(kg_sorted, g, "left") : np.searchsorted(kg_sorted, g, "right")]
        vids = np.unique(kv[sel])
        nv = vids.size
        row_code[vids] = np.arange(nv)
        slot = np.full((nv, width), -1, dtype=np.int64)
        slot[row_code[kv[sel]], krank[sel]] = sel
        valid = slot >= 0
        si = np.where(valid, slot, 0)
        gi = gstart[vids][:, None] + np.arange(g)[None, :]
        tiou = segment_iou(ps[si][:, :, None], pe[si][:, :, None], gt[gi, 0][:, None, :], gt[gi, 1][:, None, :])
        tiou = np.where(valid[:, :, None], tiou, -np.inf)  # (nv, width, g)
        # AP: greedy in score order inside each video, all thresholds at once.
        locked = np.zeros((n_thr, nv, g), dtype=bool)
        for p in range(width):
            col = tiou[:, p, :]  # (nv, g)
            cand = (col[None, :, :] >= thr[:, None, None]) & ~locked
            best = np.argmax(np.where(cand, col[None, :, :], -1.0), axis=2)  # first index on equal tIoU
            hit = np.take_along_axis(cand, best[:, :, None], axis=2)[:, :, 0] & valid[None, :, p]
            t_idx, v_idx = np.nonzero(hit)
            locked[t_idx, v_idx, best[t_idx, v_idx]] = True
            tp[:, slot[valid[:, p], p]] = hit[:, valid[:, p]]
        # AR: a GT is recalled at step j when the best tIoU over the first m_j proposals is >= t.
        prefmax = np.maximum.accumulate(tiou, axis=1)  # (nv, width, g)
        got = np.count_nonzero(prefmax[:, :, None, :] >= thr[None, None, :, None], axis=3)  # (nv, width, n_thr)
        recalled[vids] = got.transpose(0, 2, 1)
        if ar_possible:
            nrv = nr_keep[vids]
            for jj, j in enumerate(ar_cols):
                m = np.minimum((nrv * pcn_lst[j]).astype(np.int64), nrv)
                ok = m >= 1
                if not np.any(ok):
                    continue
                best_prefix = prefmax[np.flatnonzero(ok), m[ok] - 1, :]  # (n_ok, g)
                matched_ar[:, jj] += np.count_nonzero(best_prefix[None, :, :] >= thr[:, None, None], axis=(1, 2))
        row_code[vids] = -1

    metrics: dict[str, float | None] = {}
    per_threshold: list[dict[str, Any]] = []
    ap: list[float | None]
    trials: dict[str, list[Any]] | None = None
    if npos == 0:
        notes.append("no ground-truth segment in the reference: AP and AR are undefined")
        ap = [None] * n_thr
    else:
        order = np.lexsort((kidx, -pred[kidx, 2]))  # descending score, ties by appearance
        rank = np.empty(n_kept, dtype=np.int64)
        rank[order] = np.arange(n_kept)
        ap = [_interpolated_ap(rank[tp[t]], npos) for t in range(n_thr)]
        bits = (tp.astype(np.int64) << np.arange(n_thr, dtype=np.int64)[:, None]).sum(axis=0)
        names = [*ground_truth, *(vid for vid in predictions if vid not in code_of)]
        trials = {
            "key": names,
            "gt": gcount.tolist(),
            "video": kv[order].tolist(),
            "tp": bits[order].tolist(),
            "proposals": n_pred_per_code.tolist(),
            "recalled": recalled.tolist(),
        }
    ar: np.ndarray | None = None
    if npos:
        if ar_possible:
            recall = matched_ar / float(npos)  # (n_thr, len(AR_AT))
            ar = recall.mean(axis=0)
        else:
            why = (
                "no prediction in a video with ground truth"
                if not np.any(n_pred_per_code[vids_gt])
                else f"the proposal budget ({max_avg_nr_proposals} per video with ground truth, over {n_kept} "
                "kept predictions) keeps no proposal of a video with ground truth"
            )
            notes.append(f"{why}: AR is 0 (ActivityNet divides by zero here)")
            recall = np.zeros((n_thr, ar_cols.size))
            ar = recall.mean(axis=0)
    for t in range(n_thr):
        metrics[f"AP@{thr[t]:.2f}"] = ap[t]
    metrics["AP_avg"] = None if npos == 0 else float(np.mean([a for a in ap if a is not None]))
    for jj, k in enumerate(AR_AT):
        metrics[f"AR@{k}"] = None if ar is None else float(ar[jj])
    for t in range(n_thr):
        row: dict[str, Any] = {"tIoU": round(float(thr[t]), 2), "AP": ap[t]}
        for jj, k in enumerate(AR_AT):
            row[f"recall@{k}"] = None if ar is None else float(recall[t, jj])
        per_threshold.append(row)
    return TemporalReport(metrics, per_threshold, tuple(notes), trials)
