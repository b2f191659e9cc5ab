"""ForgeryNet temporal localization metrics (issue 12, docs/scoring/forgerynet.md#temporal-localization-metrics)
against ActivityNet.

The reference below is a transcription of ActivityNet's evaluation code (repository
activitynet/ActivityNet, ``Evaluation/eval_detection.py::compute_average_precision_detection``,
``Evaluation/eval_proposal.py::average_recall_vs_avg_nr_proposals`` and
``Evaluation/utils.py::segment_iou``, ``wrapper_segment_iou``, ``interpolated_prec_rec``, as read at
commit 2795199f2732a0b151b61b92b357817d1422a3aa), kept line for line, with only Python 3 spellings
(``range`` for ``xrange``, ``float``/``int`` for ``np.float``/``np.int``).  The hand-built cases of
the issue carry their arithmetic in comments; random cases compare the engine with the transcription
to 1e-12 (distinct scores, so ActivityNet's unspecified order among equal scores never matters).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pytest_omfc.scoring.forgerynet import TemporalReport, keep_top_k, score_temporal
from pytest_omfc.scoring.forgerynet.temporal import TIOU_THRESHOLDS

AP_NAMES = [f"AP@{t:.2f}" for t in TIOU_THRESHOLDS]


# ---------------------------------------------------------------- ActivityNet, transcribed
def segment_iou(target_segment, candidate_segments):  # utils.py
    tt1 = np.maximum(target_segment[0], candidate_segments[:, 0])
    tt2 = np.minimum(target_segment[1], candidate_segments[:, 1])
    # Intersection including Non-negative overlap score.
    segments_intersection = (tt2 - tt1).clip(0)
    # Segment union.
    segments_union = (
        (candidate_segments[:, 1] - candidate_segments[:, 0])
        + (target_segment[1] - target_segment[0])
        - segments_intersection
    )
    # Compute overlap as the ratio of the intersection
    # over union of two segments.
    tIoU = segments_intersection.astype(float) / segments_union
    return tIoU


def wrapper_segment_iou(target_segments, candidate_segments):  # utils.py
    if candidate_segments.ndim != 2 or target_segments.ndim != 2:
        raise ValueError("Dimension of arguments is incorrect")
    n, m = candidate_segments.shape[0], target_segments.shape[0]
    tiou = np.empty((n, m))
    for i in range(m):
        tiou[:, i] = segment_iou(target_segments[i, :], candidate_segments)
    return tiou


def interpolated_prec_rec(prec, rec):  # utils.py
    """Interpolated AP - VOCdevkit from VOC 2011."""
    mprec = np.hstack([[0], prec, [0]])
    mrec = np.hstack([[0], rec, [1]])
    for i in range(len(mprec) - 1)[::-1]:
        mprec[i] = max(mprec[i], mprec[i + 1])
    idx = np.where(mrec[1::] != mrec[0:-1])[0] + 1
    ap = np.sum((mrec[idx] - mrec[idx - 1]) * mprec[idx])
    return ap


def compute_average_precision_detection(ground_truth, prediction, tiou_thresholds=np.linspace(0.5, 0.95, 10)):  # noqa: B008 (as ActivityNet)
    npos = float(len(ground_truth))
    lock_gt = np.ones((len(tiou_thresholds), len(ground_truth))) * -1
    # Sort predictions by decreasing score order.
    sort_idx = prediction["score"].values.argsort()[::-1]
    prediction = prediction.loc[sort_idx].reset_index(drop=True)

    # Initialize true positive and false positive vectors.
    tp = np.zeros((len(tiou_thresholds), len(prediction)))
    fp = np.zeros((len(tiou_thresholds), len(prediction)))

    # Adaptation to query faster
    ground_truth_gbvn = ground_truth.groupby("video-id")

    # Assigning true positive to truly grount truth instances.
    for idx, this_pred in prediction.iterrows():
        try:
            # Check if there is at least one ground truth in the video associated.
            ground_truth_videoid = ground_truth_gbvn.get_group(this_pred["video-id"])
        except Exception:  # noqa: BLE001 (ActivityNet's bare except)
            fp[:, idx] = 1
            continue

        this_gt = ground_truth_videoid.reset_index()
        tiou_arr = segment_iou(this_pred[["t-start", "t-end"]].values, this_gt[["t-start", "t-end"]].values)
        # We would like to retrieve the predictions with highest tiou score.
        tiou_sorted_idx = tiou_arr.argsort()[::-1]
        for tidx, tiou_thr in enumerate(tiou_thresholds):
            for jdx in tiou_sorted_idx:
                if tiou_arr[jdx] < tiou_thr:
                    fp[tidx, idx] = 1
                    break
                if lock_gt[tidx, this_gt.loc[jdx]["index"]] >= 0:
                    continue
                # Assign as true positive after the filters above.
                tp[tidx, idx] = 1
                lock_gt[tidx, this_gt.loc[jdx]["index"]] = idx
                break

            if fp[tidx, idx] == 0 and tp[tidx, idx] == 0:
                fp[tidx, idx] = 1

    tp_cumsum = np.cumsum(tp, axis=1).astype(float)
    fp_cumsum = np.cumsum(fp, axis=1).astype(float)
    recall_cumsum = tp_cumsum / npos

    precision_cumsum = tp_cumsum / (tp_cumsum + fp_cumsum)

    ap = np.zeros(len(tiou_thresholds))
    for tidx in range(len(tiou_thresholds)):
        ap[tidx] = interpolated_prec_rec(precision_cumsum[tidx, :], recall_cumsum[tidx, :])

    return ap


def average_recall_vs_avg_nr_proposals(
    ground_truth,
    proposals,
    max_avg_nr_proposals=None,
    tiou_thresholds=np.linspace(0.5, 0.95, 10),  # noqa: B008 (as ActivityNet)
):
    # Get list of videos.
    video_lst = ground_truth["video-id"].unique()

    if not max_avg_nr_proposals:
        max_avg_nr_proposals = float(proposals.shape[0]) / video_lst.shape[0]

    ratio = max_avg_nr_proposals * float(video_lst.shape[0]) / proposals.shape[0]

    # Adaptation to query faster
    ground_truth_gbvn = ground_truth.groupby("video-id")
    proposals_gbvn = proposals.groupby("video-id")

    # For each video, computes tiou scores among the retrieved proposals.
    score_lst = []
    total_nr_proposals = 0
    for videoid in video_lst:
        # Get ground-truth instances associated to this video.
        ground_truth_videoid = ground_truth_gbvn.get_group(videoid)
        this_video_ground_truth = ground_truth_videoid.loc[:, ["t-start", "t-end"]].values

        # Get proposals for this video.
        try:
            proposals_videoid = proposals_gbvn.get_group(videoid)
        except Exception:  # noqa: BLE001 (ActivityNet's bare except)
            n = this_video_ground_truth.shape[0]
            score_lst.append(np.zeros((n, 1)))
            continue

        this_video_proposals = proposals_videoid.loc[:, ["t-start", "t-end"]].values

        if this_video_proposals.shape[0] == 0:
            n = this_video_ground_truth.shape[0]
            score_lst.append(np.zeros((n, 1)))
            continue

        # Sort proposals by score.
        sort_idx = proposals_videoid["score"].argsort()[::-1]
        this_video_proposals = this_video_proposals[np.asarray(sort_idx), :]

        if this_video_proposals.ndim != 2:
            this_video_proposals = np.expand_dims(this_video_proposals, axis=0)
        if this_video_ground_truth.ndim != 2:
            this_video_ground_truth = np.expand_dims(this_video_ground_truth, axis=0)

        nr_proposals = np.minimum(int(this_video_proposals.shape[0] * ratio), this_video_proposals.shape[0])
        total_nr_proposals += nr_proposals
        this_video_proposals = this_video_proposals[:nr_proposals, :]

        # Compute tiou scores.
        tiou = wrapper_segment_iou(this_video_proposals, this_video_ground_truth)
        score_lst.append(tiou)

    # Computes average recall.
    pcn_lst = np.arange(1, 101) / 100.0 * (max_avg_nr_proposals * float(video_lst.shape[0]) / total_nr_proposals)
    matches = np.empty((video_lst.shape[0], pcn_lst.shape[0]))
    positives = np.empty(video_lst.shape[0])
    recall = np.empty((tiou_thresholds.shape[0], pcn_lst.shape[0]))
    # Iterates over each tiou threshold.
    for ridx, tiou in enumerate(tiou_thresholds):
        # Inspect positives retrieved per video at different
        # number of proposals (percentage of the total retrieved).
        for i, score in enumerate(score_lst):
            # Total positives per video.
            positives[i] = score.shape[0]
            # Find proposals that satisfies minimum tiou threshold.
            true_positives_tiou = score >= tiou
            # Get number of proposals as a percentage of total retrieved.
            pcn_proposals = np.minimum((score.shape[1] * pcn_lst).astype(int), score.shape[1])

            for j, nr_proposals in enumerate(pcn_proposals):
                # Compute the number of matches for each percentage of the proposals
                matches[i, j] = np.count_nonzero((true_positives_tiou[:, :nr_proposals]).sum(axis=1))

        # Computes recall given the set of matches per video.
        recall[ridx, :] = matches.sum(axis=0) / positives.sum()

    # Recall is averaged.
    avg_recall = recall.mean(axis=0)

    # Get the average number of proposals per video.
    proposals_per_video = pcn_lst * (float(total_nr_proposals) / video_lst.shape[0])

    return recall, avg_recall, proposals_per_video


# ---------------------------------------------------------------- harness
def activitynet(gt: dict, preds: dict, top_k: int = 10) -> tuple[np.ndarray, np.ndarray]:
    """(AP per threshold, recall (10, 100)) of ActivityNet on the top-k-per-video predictions."""
    g = pd.DataFrame(
        [{"video-id": v, "t-start": float(s), "t-end": float(e)} for v, segs in gt.items() for s, e in segs],
        columns=["video-id", "t-start", "t-end"],
    )
    p = pd.DataFrame(
        [
            {"video-id": v, "t-start": float(s), "t-end": float(e), "score": sc}
            for v, segs in preds.items()
            for s, e, sc in keep_top_k(segs, top_k)
        ],
        columns=["video-id", "t-start", "t-end", "score"],
    )
    ap = compute_average_precision_detection(g, p)
    recall, _, _ = average_recall_vs_avg_nr_proposals(g, p, max_avg_nr_proposals=100)
    return ap, recall


def ap_list(r: TemporalReport) -> list[float]:
    return [r.metrics[n] for n in AP_NAMES]


def test_names_and_thresholds() -> None:
    r = score_temporal({"v": [(0, 10)]}, {"v": [(0, 10, 0.9)]})
    assert list(r.metrics) == [*AP_NAMES, "AP_avg", "AR@1", "AR@2", "AR@5", "AR@10"]
    assert AP_NAMES[0] == "AP@0.50" and AP_NAMES[-1] == "AP@0.95" and AP_NAMES[8] == "AP@0.90"
    assert [row["tIoU"] for row in r.per_threshold] == [0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95]
    entry = r.to_entry()
    assert entry["metrics"]["AP@0.50"] == 1.0 and entry["per_threshold"][0]["recall@1"] == 1.0


def test_exact_match_then_a_false_positive() -> None:
    # One GT (0,10).  Rank 1: (0,10) tIoU 1 -> TP at every t; rank 2: (20,30) tIoU 0 -> FP.
    # prec = [1, 1/2], rec = [1, 1]; interpolated: mprec = [0,1,1/2,0] -> [1,1,1/2,0], mrec = [0,1,1,1]:
    # only mrec[1] != mrec[0], so AP = (1 - 0) * 1 = 1 at every threshold.
    # AR: V=1, P=2, ratio = 100*1/2 = 50 -> keep min(100, 2) = 2; pcn[0] = 0.01*100/2 = 0.5 ->
    # int(2*0.5) = 1 proposal, the exact match: recall 1 at every t, AR@1 = 1.
    r = score_temporal({"v": [(0.0, 10.0)]}, {"v": [(20.0, 30.0, 0.2), (0.0, 10.0, 0.9)]})
    assert ap_list(r) == [1.0] * 10
    assert r.metrics["AP_avg"] == 1.0
    assert [r.metrics[f"AR@{k}"] for k in (1, 2, 5, 10)] == [1.0, 1.0, 1.0, 1.0]
    assert r.notes == ()


def test_one_prediction_overlapping_two_ground_truths() -> None:
    # GT A=(0,10), B=(2,10).  p1=(0,10) s=.9: tIoU A=10/10=1, B=8/10=0.8.
    #                         p2=(1,10) s=.8: tIoU A=9/10=0.9, B=8/9=0.889 (union 9+8-8 = 9).
    # AP: p1 takes A (the highest tIoU), once: one prediction is one TP even if it overlaps two GTs.
    #   t <= 0.85: p2 skips the locked A (0.9 >= t) and takes B (0.889 >= t): tp=[1,1] -> AP = 1.
    #   t = 0.90 (0.8999999999999999), 0.95: p2: A locked; B 0.889 < t -> FP: tp=[1,0],
    #   prec=[1,1/2], rec=[1/2,1/2] -> AP = 1/2 * 1 = 0.5.   AP_avg = (8*1 + 2*0.5)/10 = 0.9.
    # AR (no one-to-one matching): V=1, P=2, ratio=50 -> keep 2; pcn[0] = 0.5 -> 1 proposal (p1),
    #   pcn[1] = 1.0 -> 2 proposals.
    #   AR@1: p1 recalls A (1 >= t) at all 10 t and B (0.8 >= t, exactly 0.8 == linspace's 0.8) at the 7
    #   thresholds 0.50..0.80: recall 1 at 7 t, 1/2 at 3 t -> (7 + 1.5)/10 = 0.85.
    #   AR@2: B's best tIoU is 0.889 >= t at the 8 thresholds 0.50..0.85 -> (8 + 1)/10 = 0.9.
    r = score_temporal({"v": [(0.0, 10.0), (2.0, 10.0)]}, {"v": [(0.0, 10.0, 0.9), (1.0, 10.0, 0.8)]})
    assert ap_list(r) == [1.0] * 8 + [0.5, 0.5]
    assert r.metrics["AP_avg"] == pytest.approx(0.9, abs=1e-15)
    assert r.metrics["AR@1"] == pytest.approx(0.85, abs=1e-15)
    assert r.metrics["AR@2"] == pytest.approx(0.9, abs=1e-15)
    assert r.per_threshold[6]["recall@1"] == 1.0 and r.per_threshold[7]["recall@1"] == 0.5


def test_ties_in_score_follow_the_file_order() -> None:
    # Equal scores .5: the FP (20,30) comes first in the file, so it ranks first:
    # tp=[0,1], prec=[0,1/2], rec=[0,1] -> mprec=[0,0,1/2,0] -> [1/2,1/2,1/2,0]; AP = 1 * 1/2 = 0.5.
    # Listed the other way round, the TP ranks first: AP = 1.
    gt = {"v": [(0.0, 10.0)]}
    fp_first = score_temporal(gt, {"v": [(20.0, 30.0, 0.5), (0.0, 10.0, 0.5)]})
    tp_first = score_temporal(gt, {"v": [(0.0, 10.0, 0.5), (20.0, 30.0, 0.5)]})
    assert ap_list(fp_first) == [0.5] * 10
    assert ap_list(tp_first) == [1.0] * 10
    # Across videos too: the real video's FP listed first ranks first (AP 0.5), listed last ranks last (AP 1).
    assert ap_list(score_temporal({"r": [], **gt}, {"r": [(1, 2, 0.5)], "v": [(0, 10, 0.5)]})) == [0.5] * 10
    assert ap_list(score_temporal({"r": [], **gt}, {"v": [(0, 10, 0.5)], "r": [(1, 2, 0.5)]})) == [1.0] * 10
    # AR@1 uses the first of the tied proposals: FP first -> ratio = 100/2 = 50, keep 2, pcn[0] = 0.5 ->
    # 1 proposal, the FP: recall 0; TP first: recall 1.
    assert fp_first.metrics["AR@1"] == 0.0 and tp_first.metrics["AR@1"] == 1.0
    assert fp_first.metrics["AR@2"] == 1.0


def test_on_equal_tiou_the_first_listed_ground_truth_is_matched() -> None:
    # GT A=(0,10), B=(5,15); p1=(2.5,12.5) s=.9 has tIoU 7.5/12.5 = 0.6 with both: it takes A (listed first).
    # p2=(0,9) s=.8: tIoU A = 9/10 = 0.9 (A locked), B = 4/15 -> FP.  tp=[1,0] at t <= 0.6 -> AP = 1/2.
    # Had p1 taken B, p2 would have taken A (AP 1): the rule decides.  At t > 0.6, p1 is an FP and p2 takes
    # A for t <= 0.9: tp=[0,1], prec=[0,1/2], rec=[0,1/2] -> AP = 1/2 * 1/2 = 0.25 (t = 0.65 .. 0.90); t=0.95: 0.
    r = score_temporal({"v": [(0.0, 10.0), (5.0, 15.0)]}, {"v": [(2.5, 12.5, 0.9), (0.0, 9.0, 0.8)]})
    assert ap_list(r) == [0.5] * 3 + [0.25] * 6 + [0.0]


def test_video_without_ground_truth_counts_for_ap_not_ar() -> None:
    # Real video r has a prediction of score .99: rank 1, FP.  v: (0,10) s=.5 exact, TP.
    # AP: tp=[0,1], prec=[0,1/2], rec=[0,1] -> AP = 0.5 at every t.
    # AR: V=1 (r has no GT), P=2 (r's prediction counts), ratio = 100*1/2 = 50 -> v keeps min(50,1) = 1;
    # total kept 1; pcn[0] = 0.01 * 100*1/1 = 1 -> int(1*1) = 1 proposal: recall 1 -> AR@1 = 1.
    gt = {"r": [], "v": [(0.0, 10.0)]}
    r = score_temporal(gt, {"r": [(0.0, 10.0, 0.99)], "v": [(0.0, 10.0, 0.5)]})
    assert ap_list(r) == [0.5] * 10
    assert r.metrics["AR@1"] == 1.0
    assert r.notes[0].startswith("1 predictions in 1 videos without ground truth: false positives for AP")
    # A video absent from the reference behaves the same.
    assert (
        ap_list(score_temporal({"v": [(0.0, 10.0)]}, {"x": [(0.0, 10.0, 0.99)], "v": [(0.0, 10.0, 0.5)]})) == [0.5] * 10
    )


def test_video_missing_from_predictions_still_counts() -> None:
    # v1 GT (0,10) predicted exactly; v2 GT (0,5) absent from the predictions: npos = 2.
    # AP: tp=[1], rec=[1/2], prec=[1] -> AP = 1/2 * 1 = 0.5.
    # AR: V=2, P=1, ratio=200 -> v1 keeps 1, total 1; pcn[0] = 0.01*200/1 = 2 -> v1 min(int(2), 1) = 1:
    # 1 of 2 GT recalled -> AR@1 = 0.5.
    r = score_temporal({"v1": [(0.0, 10.0)], "v2": [(0.0, 5.0)]}, {"v1": [(0.0, 10.0, 0.7)]})
    assert ap_list(r) == [0.5] * 10
    assert r.metrics["AR@1"] == 0.5 and r.metrics["AR@10"] == 0.5
    assert "1 of 2 videos with ground truth have no prediction: their ground truth is missed" in r.notes
    # Listed with an empty list: the same.
    assert (
        score_temporal({"v1": [(0.0, 10.0)], "v2": [(0.0, 5.0)]}, {"v1": [(0.0, 10.0, 0.7)], "v2": []}).metrics
        == r.metrics
    )


def test_ar_counts_proposals_on_average_per_video() -> None:
    # v1 GT (0,10) with 10 predictions, the exact match ranked 2nd; v2 GT (0,5) without prediction.
    # V=2, P=10, ratio = 100*2/10 = 20 -> v1 keeps 10; pcn[0] = 0.01 * 200/10 = 0.2 -> v1 uses int(10*0.2) = 2
    # proposals at "AR@1": its GT is recalled -> AR@1 = 1/2 (the top-1-per-video reading would give 0).
    preds = [(20.0 + i, 21.0 + i, 0.9 - 0.01 * i) for i in range(9)]
    preds.insert(1, (0.0, 10.0, 0.895))
    r = score_temporal({"v1": [(0.0, 10.0)], "v2": [(0.0, 5.0)]}, {"v1": preds})
    assert r.metrics["AR@1"] == 0.5


def test_ar_predictions_in_real_videos_shrink_the_proposal_budget() -> None:
    # v: GT (0,10), 9 FPs scored above the exact match (10th).  Ten real videos with 10 predictions each.
    # V=1, P=110, ratio = 100*1/110 = 0.909 -> v keeps int(10*0.909) = 9 proposals: the match is cut, AR@10 = 0.
    # Without the real videos: ratio = 100/10 = 10 -> v keeps 10 and AR@10 = 1.  AP (top 10 kept) sees the match.
    v = [(20.0 + i, 21.0 + i, 0.9 - 0.01 * i) for i in range(9)] + [(0.0, 10.0, 0.5)]
    real = {f"r{j}": [(1.0 + i, 2.0 + i, 0.3 - 0.01 * i) for i in range(10)] for j in range(10)}
    gt = {"v": [(0.0, 10.0)], **{name: [] for name in real}}
    crowded = score_temporal(gt, {"v": v, **real})
    alone = score_temporal(gt, {"v": v})
    assert crowded.metrics["AR@10"] == 0.0 and alone.metrics["AR@10"] == 1.0
    _, recall = activitynet(gt, {"v": v, **real})
    assert recall[:, 9].tolist() == [0.0] * 10
    # AP: the match ranks 10th of 110 (all real predictions score below .5): prec 1/10, rec 1 -> AP = 0.1.
    assert ap_list(crowded) == pytest.approx([0.1] * 10, abs=1e-15)


def test_more_than_ten_predictions_keep_the_top_ten() -> None:
    # GT (0,10); 10 FPs with scores .90 .. .45 and the exact match with score .1 (11th) plus one more FP (12th):
    # top 10 keeps only the FPs -> tp all 0 -> AP = 0, AR = 0, and a note says 2 were dropped.
    # With top_k=12 the match ranks 11th: prec at rank 11 = 1/11, rec = 1 -> AP = 1/11.
    fps = [(20.0 + i, 21.0 + i, 0.9 - 0.05 * i) for i in range(10)]
    preds = {"v": [*fps, (0.0, 10.0, 0.1), (50.0, 60.0, 0.05)]}
    r = score_temporal({"v": [(0.0, 10.0)]}, preds)
    assert ap_list(r) == [0.0] * 10 and r.metrics["AR@10"] == 0.0
    assert r.notes[0] == "2 predictions beyond the top 10 of their video were dropped (1 videos)"
    r12 = score_temporal({"v": [(0.0, 10.0)]}, preds, top_k=12)
    assert ap_list(r12) == pytest.approx([1 / 11] * 10, abs=1e-15)


def test_a_huge_top_k_allocates_only_what_is_used() -> None:
    # top_k only bounds the kept predictions: the matching table is as wide as the longest kept list (2 here).
    r = score_temporal({"v": [(0.0, 10.0)]}, {"v": [(0.0, 10.0, 0.9), (20.0, 30.0, 0.2)]}, top_k=10**12)
    assert ap_list(r) == [1.0] * 10
    with pytest.raises(ValueError, match=r"top_k must be at least 1 \(got 0\)"):
        score_temporal({"v": [(0.0, 10.0)]}, {}, top_k=0)


def test_keep_top_k_is_stable() -> None:
    preds = [(0, 1, 0.5), (1, 2, 0.9), (2, 3, 0.5), (3, 4, 0.7), (4, 5, 0.5)]
    assert keep_top_k(preds, 3) == [(1, 2, 0.9), (3, 4, 0.7), (0, 1, 0.5)]
    assert keep_top_k(preds, 4) == [(1, 2, 0.9), (3, 4, 0.7), (0, 1, 0.5), (2, 3, 0.5)]
    eleven = [(i, i + 1, 0.5) for i in range(11)]
    assert keep_top_k(eleven) == eleven[:10]
    # The engine applies the same rule: eleven tied predictions, the exact match last -> dropped.
    r = score_temporal({"v": [(10.0, 11.0)]}, {"v": eleven})
    assert r.metrics["AR@10"] == 0.0 and ap_list(r) == [0.0] * 10
    r = score_temporal({"v": [(0.0, 1.0)]}, {"v": eleven})
    assert r.metrics["AR@10"] == 1.0


def test_undefined_and_empty_cases() -> None:
    r = score_temporal({"r": []}, {"r": [(0, 1, 0.5)]})
    assert r.metrics["AP@0.50"] is None and r.metrics["AP_avg"] is None and r.metrics["AR@1"] is None
    assert "no ground-truth segment in the reference: AP and AR are undefined" in r.notes
    r = score_temporal({"v": [(0, 1)]}, {})
    assert ap_list(r) == [0.0] * 10 and r.metrics["AR@1"] == 0.0
    assert "no prediction in a video with ground truth: AR is 0 (ActivityNet divides by zero here)" in r.notes
    # 1 video with GT and 1 prediction, 150 real videos with 1 prediction each: ratio = 100*1/151 < 1 ->
    # int(1 * 0.66) = 0 proposals kept: AR 0 with its reason; AP: the match ranks first -> 1.
    real = {f"r{j}": [(0.0, 1.0, 0.1)] for j in range(150)}
    r = score_temporal({"v": [(0, 1)], **{k: [] for k in real}}, {"v": [(0.0, 1.0, 0.9)], **real})
    assert r.metrics["AR@10"] == 0.0 and ap_list(r) == [1.0] * 10
    assert r.notes[-1] == (
        "the proposal budget (100 per video with ground truth, over 151 kept predictions) keeps "
        "no proposal of a video with ground truth: AR is 0 (ActivityNet divides by zero here)"
    )


@pytest.mark.parametrize("bad", [(2.0, 1.0, 0.5), (1.0, 1.0, 0.5), (0.0, float("nan"), 0.5), (0.0, 1.0, float("inf"))])
def test_bad_segments_raise_value_error(bad: tuple[float, float, float]) -> None:
    with pytest.raises(ValueError, match="prediction of video 'v' must be finite with start < end"):
        score_temporal({"v": [(0, 1)]}, {"v": [(0.0, 1.0, 0.3), bad]})


def random_case(rng: np.random.Generator) -> tuple[dict, dict]:
    """Videos with 0-3 GT segments (some real), 0-14 predictions near them or anywhere, distinct scores."""
    gt: dict[str, list] = {}
    preds: dict[str, list] = {}
    for v in range(int(rng.integers(1, 25))):
        dur = float(rng.uniform(5, 60))
        segs = []
        for _ in range(int(rng.choice([0, 1, 1, 2, 3]))):
            s = float(rng.uniform(0, dur * 0.8))
            segs.append((s, s + float(rng.uniform(0.2, dur - s))))
        gt[f"v{v}"] = segs
        if rng.random() < 0.15:
            continue  # missing from the predictions
        pl = []
        for _ in range(int(rng.integers(0, 15))):
            if segs and rng.random() < 0.6:
                s0, e0 = segs[int(rng.integers(len(segs)))]
                s, e = s0 + rng.normal(0, 0.1 * (e0 - s0)), e0 + rng.normal(0, 0.1 * (e0 - s0))
                if e <= s:
                    e = s + 0.5
            else:
                s = float(rng.uniform(0, dur))
                e = s + float(rng.uniform(0.1, 10))
            pl.append((float(s), float(e), float(rng.random())))
        preds[f"v{v}"] = pl
    if rng.random() < 0.3:
        preds["unknown"] = [(0.0, 3.0, float(rng.random()))]
    return gt, preds


@pytest.mark.parametrize("seed", range(40))
def test_random_cases_agree_with_activitynet(seed: int) -> None:
    rng = np.random.default_rng(seed)
    gt, preds = random_case(rng)
    n_kept = sum(min(len(v), 10) for v in preds.values())
    has_gt = any(gt.values())
    r = score_temporal(gt, preds)
    if not has_gt:
        assert r.metrics["AP_avg"] is None
        return
    if n_kept == 0 or not any(preds.get(v) for v, s in gt.items() if s):
        # ActivityNet divides by zero in AR here; AP is still defined.
        return
    ap, recall = activitynet(gt, preds)
    np.testing.assert_allclose(ap_list(r), ap, rtol=0, atol=1e-12)
    assert r.metrics["AP_avg"] == pytest.approx(float(np.mean(ap)), abs=1e-12)
    for k in (1, 2, 5, 10):
        np.testing.assert_allclose(
            [row[f"recall@{k}"] for row in r.per_threshold], recall[:, k - 1], rtol=0, atol=1e-12
        )
        assert r.metrics[f"AR@{k}"] == pytest.approx(float(recall.mean(axis=0)[k - 1]), abs=1e-12)


def test_random_cases_are_not_trivial() -> None:
    """The random family exercises partial AP and AR (not only 0 and 1)."""
    values = set()
    for seed in range(40):
        gt, preds = random_case(np.random.default_rng(seed))
        r = score_temporal(gt, preds)
        values |= {round(v, 6) for v in r.metrics.values() if v is not None}
    assert len(values) > 50
