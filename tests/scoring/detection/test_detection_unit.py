"""Unit tests of the detection engine: docs/scoring/detection.md#checked-against-mediscore unit vectors, bootstrap,
errors, conventions, plots."""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pandas as pd
import pytest
from PIL import Image

from pytest_omfc.report.plots import probit, write_plots
from pytest_omfc.scoring import ScoringError, convention_table, score_detection, score_trials
from pytest_omfc.scoring.detection.bootstrap import bootstrap_ci, ci_bounds_index
from pytest_omfc.scoring.detection.engine import (
    auc_interpolated,
    auc_mediscore,
    cdr_at_far,
    eer_interpolated,
    eer_mediscore,
    roc_curve,
    trr,
)
from pytest_omfc.scoring.merge import find_journal_tables, partition_query

# --- docs/scoring/detection.md#checked-against-mediscore unit vectors (DetectionScorerUnitTest.py)
# -----------------------------------------

S1, Y1 = [0.0345, 0.0209, 0.0165, 0.0149], [True, False, True, False]
S2 = [0.0345, 0.0209, 0.0209, 0.0165, 0.0165, 0.0165, 0.0149]
Y2 = [True, False, False, True, False, True, False]


def test_roc_points_unit_vector_1() -> None:
    roc = roc_curve(np.array(S1), np.array(Y1))
    np.testing.assert_allclose(roc.fpr, [0, 0.5, 0.5, 1])
    np.testing.assert_allclose(roc.tpr, [0.5, 0.5, 1, 1])
    assert auc_mediscore(roc.fpr, roc.tpr) == pytest.approx(0.75)
    for stop, want in zip((0.1, 0.3, 0.5, 0.7, 0.9), (0, 0, 0.25, 0.25, 0.25), strict=True):
        assert auc_mediscore(roc.fpr, roc.tpr, stop) == pytest.approx(want)
    assert eer_mediscore(roc.fpr, roc.tpr) == pytest.approx(0.5)
    assert cdr_at_far(roc.fpr, roc.tpr, 0.5) == pytest.approx(0.5)


def test_roc_points_unit_vector_2_ties() -> None:
    roc = roc_curve(np.array(S2), np.array(Y2))
    np.testing.assert_allclose(roc.fpr, [0, 0.5, 0.75, 1])
    np.testing.assert_allclose(roc.tpr, [1 / 3, 1 / 3, 1, 1])
    assert auc_mediscore(roc.fpr, roc.tpr) == pytest.approx(7 / 12)
    for stop, want in zip((0.2, 0.4, 0.6, 0.8, 1.0), (0, 0, 1 / 6, 1 / 3, 7 / 12), strict=True):
        assert auc_mediscore(roc.fpr, roc.tpr, stop) == pytest.approx(want)
    assert eer_mediscore(roc.fpr, roc.tpr) == pytest.approx(7 / 12)


def test_prepend_rule_of_sklearn_0_17() -> None:
    """(0,0) is prepended only when the top score group holds a non-target (docs/scoring/detection.md#roc-points)."""
    top_target = roc_curve(np.array([0.9, 0.5, 0.1]), np.array([True, False, False]))
    assert top_target.fpr[0] == 0 and top_target.tpr[0] == 1.0
    top_nontarget = roc_curve(np.array([0.9, 0.5, 0.1]), np.array([False, True, False]))
    assert (top_nontarget.fpr[0], top_nontarget.tpr[0]) == (0.0, 0.0)
    assert top_nontarget.thresholds[0] == pytest.approx(1.9)


def test_drop_intermediate_changes_eer() -> None:
    """A point exactly midway on a straight run is dropped before EER is read (docs/scoring/detection.md#roc-points,
    docs/scoring/detection.md#eer)."""
    s = np.array([5, 4, 3, 2, 1.0])
    y = np.array([True, False, False, False, True])
    roc = roc_curve(s, y)
    # fps 0,1,2,3,3 / tps 1,1,1,1,2: the two midway points of the flat run are dropped.
    np.testing.assert_allclose(roc.fpr, [0, 1, 1])
    np.testing.assert_allclose(roc.tpr, [0.5, 0.5, 1])
    # |fpr - fnr| = .5, .5, 1 -> first point -> EER 0.25; without dropping it would be (1/3 + .5)/2.
    assert eer_mediscore(roc.fpr, roc.tpr) == pytest.approx(0.25)


def test_single_class_semantics() -> None:
    """No non-targets: AUC 0, EER/CDR NaN; no targets: AUC NaN (docs/scoring/detection.md)."""
    only_t = roc_curve(np.array([0.2, 0.1]), np.array([True, True]))
    assert auc_mediscore(only_t.fpr, only_t.tpr) == 0
    assert math.isnan(eer_mediscore(only_t.fpr, only_t.tpr))
    assert math.isnan(cdr_at_far(only_t.fpr, only_t.tpr, 0.1))
    only_nt = roc_curve(np.array([0.2, 0.1]), np.array([False, False]))
    assert math.isnan(auc_mediscore(only_nt.fpr, only_nt.tpr))


def test_cdr_interpolation_and_vertical_segment() -> None:
    fpr, tpr = np.array([0.0, 0.2, 0.2, 1.0]), np.array([0.1, 0.3, 0.6, 1.0])
    assert cdr_at_far(fpr, tpr, 0.2) == pytest.approx(0.3)  # lowest tpr on the vertical segment
    assert cdr_at_far(fpr, tpr, 0.1) == pytest.approx(0.2)  # halfway between (0,.1) and (.2,.3)
    assert cdr_at_far(np.array([0.0, 0.05]), np.array([0.5, 0.8]), 0.1) == pytest.approx(0.8 + 0.2 * 0.05 / 0.95)


def test_plan_eer_and_partial_auc_interpolate() -> None:
    fpr, tpr = np.array([0.0, 0.5, 1.0]), np.array([0.0, 1.0, 1.0])
    # fpr - fnr goes -1 -> 0.5: crossing at t = 2/3 of the first segment, fpr = 1/3.
    assert eer_interpolated(fpr, tpr) == pytest.approx(1 / 3)
    assert eer_mediscore(fpr, tpr) == pytest.approx(0.25)
    # Up to fpr 0.25: triangle under the line tpr = 2 fpr -> 0.25 * 0.5 / 2.
    assert auc_interpolated(fpr, tpr, 0.25) == pytest.approx(0.0625)
    assert auc_mediscore(fpr, tpr, 0.25) == 0.0


def test_trr_rounds_like_python_2() -> None:
    """round(0.125, 2) is 0.13 in Python 2 (half away from zero), 0.12 in Python 3."""
    assert trr(1, 8) == 0.13
    assert trr(6, 7) == 0.86
    assert trr(1, 8, "plan") == 0.125


# --- bootstrap ---------------------------------------------------------------------------------------


def _naive_mediscore_ci(s: np.ndarray, y: np.ndarray, level: float, far: float) -> list[float]:
    """MediScore's compute_ci loop written out literally (docs/scoring/detection.md#bootstrap-confidence-intervals)."""
    rng = np.random.RandomState(77)
    idx = np.arange(s.size)
    aucs, paucs, cdrs = [], [], []
    for _ in range(500):
        pick = rng.choice(idx, s.size)
        roc = roc_curve(s[pick], y[pick])
        aucs.append(float(auc_mediscore(roc.fpr, roc.tpr, 1)))
        paucs.append(float(auc_mediscore(roc.fpr, roc.tpr, far)))
        cdrs.append(float(cdr_at_far(roc.fpr, roc.tpr, far)))
    lo, hi = ci_bounds_index(level, 500)
    out: list[float] = []
    for vals in (aucs, paucs, cdrs):
        vals = sorted(vals)
        out += [vals[lo], vals[hi]]
    return out


@pytest.mark.parametrize(("n", "level"), [(7, 0.95), (60, 0.9), (301, 0.9)])
def test_group_count_bootstrap_equals_naive_loop(n: int, level: float) -> None:
    rng = np.random.default_rng(n)
    s = np.round(rng.normal(size=n), 1)  # coarse rounding: many ties
    y = rng.random(n) < 0.4
    fns = {
        "AUC": lambda f, t: auc_mediscore(f, t, 1.0),
        "AUC@FAR": lambda f, t: auc_mediscore(f, t, 0.1),
        "CDR@FAR": lambda f, t: cdr_at_far(f, t, 0.1),
    }
    got = bootstrap_ci(s, y, ci_level=level, metric_fns=fns)
    flat = [*got["AUC"], *got["AUC@FAR"], *got["CDR@FAR"]]
    want = _naive_mediscore_ci(s, y, level, 0.1)
    np.testing.assert_array_equal(np.array(flat), np.array(want))


def test_ci_indices() -> None:
    assert ci_bounds_index(0.9, 500) == (25, 475)
    assert ci_bounds_index(0.95, 500) == (12, 487)


def test_ci_is_seedable() -> None:
    rng = np.random.default_rng(1)
    s, y = rng.normal(size=200), rng.random(200) < 0.5
    a = score_trials(s, y, ci=True).metrics
    b = score_trials(s, y, ci=True, seed=78).metrics
    assert a["AUC_CI_LOWER"] <= a["AUC"] <= a["AUC_CI_UPPER"]
    assert (a["AUC_CI_LOWER"], a["AUC_CI_UPPER"]) != (b["AUC_CI_LOWER"], b["AUC_CI_UPPER"])
    assert score_trials(s, y).metrics["AUC_CI_LOWER"] is None


# --- files, merge, queries, errors -------------------------------------------------------------------


def _write(path: Path, rows: list[dict[str, str]]) -> Path:
    pd.DataFrame(rows).to_csv(path, sep="|", index=False)
    return path


@pytest.fixture
def trio(tmp_path: Path) -> tuple[Path, Path, Path]:
    """Six trials, ids with leading zeros, F6 missing from the system output."""
    ids = ["0042", "42", "F3", "F4", "F5", "F6"]
    tgt = ["Y", "N", "Y", "N", "Y", "N"]
    coll = ["A", "A", "B", "B", "A", "B"]
    ref = _write(
        tmp_path / "t-ref.csv",
        [
            {"TaskID": "manipulation", "ProbeFileID": i, "IsTarget": t, "Collection": c}
            for i, t, c in zip(ids, tgt, coll, strict=True)
        ],
    )
    idx = _write(
        tmp_path / "t-index.csv",
        [{"TaskID": "manipulation", "ProbeFileID": i, "ProbeWidth": str(100 * (k + 1))} for k, i in enumerate(ids)],
    )
    sysf = _write(
        tmp_path / "t-sys.csv",
        [
            {"ProbeFileID": i, "ConfidenceScore": str(s), "ProbeStatus": st}
            for i, s, st in zip(
                ids[:5],
                [0.9, 0.1, 0.8, 0.7, 0.2],
                ["Processed", "Processed", "NonProcessed", "Processed", "OptOutDetection"],
                strict=True,
            )
        ],
    )
    return idx, ref, sysf


def test_ids_stay_strings_and_missing_trial_dropped(trio) -> None:
    idx, ref, sysf = trio
    res = score_detection(idx, ref, sysf).results[0]
    assert res.counts == {
        "targets": 3,
        "nontargets": 2,
        "scored": 5,
        "total": 5,
        "missing_system": 1,
        "index_unmatched": 0,
        "opted_out": 0,
    }
    # Y scores .9 .8 .2, N scores .1 .7 -> 5 of 6 pairs ordered.
    assert res.metrics["AUC"] == pytest.approx(5 / 6)
    assert res.metrics["TRR"] == 1.0


def test_plan_convention_keeps_missing_trials_and_changes_trr(trio) -> None:
    idx, ref, sysf = trio
    plan = score_detection(idx, ref, sysf, convention="plan").results[0]
    assert plan.counts["scored"] == 6 and plan.counts["nontargets"] == 3
    assert plan.metrics["TRR"] == pytest.approx(5 / 6)  # 5 responses out of 6 trials
    assert plan.metrics["FAR_STOP"] == 0.05
    # Missing F6 (non-target) scored at the minimum 0.1: targets .9 .8 .2 beat 3, 3 and 2 of the
    # non-targets .1 .7 .1 -> AUC 8/9.
    assert plan.metrics["AUC"] == pytest.approx(8 / 9)


def test_optout_status_sets_per_convention(trio) -> None:
    idx, ref, sysf = trio
    ms = score_detection(idx, ref, sysf, optout=True).results[0]
    assert ms.sys_response == "tr"
    assert ms.counts["scored"] == 4 and ms.metrics["TRR"] == 0.8  # OptOutDetection removed
    plan = score_detection(idx, ref, sysf, optout=True, convention="plan").results[0]
    assert plan.counts["scored"] == 3  # NonProcessed and the missing trial also removed
    assert plan.metrics["TRR"] == pytest.approx(0.5)


def test_queries_q_qm_qp(trio) -> None:
    idx, ref, sysf = trio
    q = score_detection(idx, ref, sysf, query=["Collection == ['A']", "ProbeWidth >= 300"], strict=False)
    assert [r.query_kind for r in q] == ["q", "q"]
    assert q.results[0].counts["scored"] == 3 and q.results[0].metrics["TRR"] == 0.6
    assert q.results[1].counts["scored"] == 3  # F3 F4 F5 (F6 missing): numeric comparison on ProbeWidth
    qm = score_detection(idx, ref, sysf, query_manipulation="Collection == ['A']").results[0]
    assert (qm.counts["targets"], qm.counts["nontargets"]) == (2, 2)
    qp = score_detection(idx, ref, sysf, query_partition="Collection == ['A', 'B'] & ProbeWidth >= 100", strict=False)
    assert [r.query for r in qp] == [
        "Collection == ['A'] & ProbeWidth >= 100",
        "Collection == ['B'] & ProbeWidth >= 100",
    ]
    assert qp.results[0].metrics == q.results[0].metrics


def test_partition_query_does_not_split_inside_words() -> None:
    assert partition_query("Purpose==['remove','landscape'] and Operation==['Band']") == [
        "Purpose == ['remove'] & Operation == ['Band']",
        "Purpose == ['landscape'] & Operation == ['Band']",
    ]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"query": "NoSuchColumn == ['x']"}, "NoSuchColumn"),
        ({"query": "Collection == ["}, "cannot be evaluated"),
        ({"query": "a", "query_manipulation": "b"}, "mutually exclusive"),
        ({"query": "Collection == ['Z']"}, "no trials"),
        ({"far_stop": 1.5}, "far_stop"),
        ({"task": "provenance"}, "unknown detection task"),
    ],
)
def test_bad_arguments_raise_scoring_error(trio, kwargs, message) -> None:
    idx, ref, sysf = trio
    with pytest.raises(ScoringError, match=message):
        score_detection(idx, ref, sysf, **kwargs)


def test_bad_inputs_raise_scoring_error(trio, tmp_path: Path) -> None:
    idx, ref, sysf = trio
    no_score = _write(tmp_path / "s2.csv", [{"ProbeFileID": "F3", "Score": "1"}])
    with pytest.raises(ScoringError, match="ConfidenceScore"):
        score_detection(idx, ref, no_score)
    garbage = _write(tmp_path / "s3.csv", [{"ProbeFileID": "F3", "ConfidenceScore": "high"}])
    with pytest.raises(ScoringError, match="not numbers"):
        score_detection(idx, ref, garbage)
    other_idx = _write(tmp_path / "i2.csv", [{"TaskID": "manipulation", "ProbeFileID": "ZZ"}])
    with pytest.raises(ScoringError, match="does not match the index"):
        score_detection(other_idx, ref, sysf)
    only_targets = _write(tmp_path / "r2.csv", [{"TaskID": "manipulation", "ProbeFileID": "F3", "IsTarget": "Y"}])
    one_trial = _write(tmp_path / "i3.csv", [{"TaskID": "manipulation", "ProbeFileID": "F3"}])
    with pytest.raises(ScoringError, match="no non-target"):
        score_detection(one_trial, only_targets, sysf)
    with pytest.raises(ScoringError, match="not found"):
        score_detection(idx, tmp_path / "absent.csv", sysf)


def test_journal_tables_found_beside_reference(tmp_path: Path) -> None:
    ref = _write(tmp_path / "X-ref.csv", [{"ProbeFileID": "a", "IsTarget": "Y"}])
    assert find_journal_tables(ref) is None
    _write(tmp_path / "X-ref-probejournaljoin.csv", [{"ProbeFileID": "a", "JournalName": "j"}])
    _write(tmp_path / "X-ref-journalmask.csv", [{"JournalName": "j", "Operation": "Blur"}])
    jt = find_journal_tables(ref)
    assert jt is not None and list(jt.mask.columns) == ["JournalName", "Operation"]


def test_to_dict_is_plain_json(trio) -> None:
    idx, ref, sysf = trio
    report = score_detection(idx, ref, sysf, ci=True, n_bootstrap=50)
    d = report.to_dict()
    json.dumps(d, allow_nan=False)

    def walk(o) -> None:
        assert type(o) in (dict, list, str, int, float, bool, type(None)), type(o)
        for v in o.values() if isinstance(o, dict) else o if isinstance(o, list) else ():
            walk(v)

    walk(d)
    res = d["results"][0]
    assert res["query"] is None and res["query_kind"] == "all"
    assert set(res["roc"]) == {"fpr", "tpr", "thresholds"}
    assert "| Topic |" in convention_table()


# --- plots -------------------------------------------------------------------------------------------


def test_probit_matches_normal_quantiles() -> None:
    ps = np.array([1e-6, 0.001, 0.02, 0.3, 0.5, 0.9, 0.99, 1 - 1e-6])
    want = [NormalDist().inv_cdf(p) for p in ps]
    np.testing.assert_allclose(probit(ps), want, atol=1e-8)


def test_plots_written_as_png_and_svg(trio, tmp_path: Path) -> None:
    idx, ref, sysf = trio
    report = score_detection(idx, ref, sysf, query=["Collection == ['A']", "Collection == ['B']"], strict=False)
    paths = write_plots(report, tmp_path / "plots", title="Unit")
    assert sorted(p.name for p in paths) == ["det.png", "det.svg", "roc.png", "roc.svg"]
    with Image.open(tmp_path / "plots" / "roc.png") as img:
        assert img.size == (800, 600)
        assert len(img.getcolors(maxcolors=1 << 16) or []) > 3  # something besides white was drawn
    svg = ET.parse(tmp_path / "plots" / "roc.svg").getroot()
    texts = [t.text or "" for t in svg.iter("{http://www.w3.org/2000/svg}text")]
    assert "Unit ROC" in texts
    assert any("AUC=" in t and "T#=" in t and "NT#=" in t for t in texts)
