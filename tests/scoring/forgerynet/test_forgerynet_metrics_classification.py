"""ForgeryNet classification metrics (issue 12, docs/scoring/forgerynet.md#classification-metrics): hand-computed
cases and scikit-learn.

scikit-learn (the ``test`` extra) is the reference for ROC AUC (``roc_auc_score``, average rank on
ties) and balanced accuracy (``balanced_accuracy_score``); the engine does not import it.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from pytest_omfc.scoring.forgerynet import score_binary, score_multiclass
from pytest_omfc.scoring.forgerynet.classification import fake_score, roc_auc

sklearn_metrics = pytest.importorskip("sklearn.metrics")


def sk_balanced(y: np.ndarray, p: np.ndarray) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "y_pred contains classes not in y_true"
        return float(sklearn_metrics.balanced_accuracy_score(y, p))


def test_binary_hand_computed() -> None:
    # Pairs (positive, negative): (.4,.1) yes, (.4,.6) no, (.9,.1) yes, (.9,.6) yes -> AUC = 3/4.
    # Fake iff score >= .5: predicted [0,1,0,1]: recall(0) = 1/2, recall(1) = 1/2 -> Acc = 1/2.
    r = score_binary(np.array([0, 0, 1, 1]), np.array([0.1, 0.6, 0.4, 0.9]))
    assert r.metrics == {"Acc": 0.5, "AUC": 0.75}
    assert r.per_class == [{"class": 0, "n": 2, "recall": 0.5}, {"class": 1, "n": 2, "recall": 0.5}]
    assert r.notes == ()
    assert r.to_entry() == {"metrics": {"Acc": 0.5, "AUC": 0.75}, "per_class": r.per_class, "notes": []}


def test_binary_ties_and_threshold_boundary() -> None:
    # labels [0,1,0,1], scores [.5,.5,.2,.8]: pairs (.5 vs .5) tie = 1/2, (.5 vs .2) 1, (.8 vs .5) 1, (.8 vs .2) 1
    # -> AUC = 3.5/4 = 0.875.  A score equal to the threshold is fake (>=): predicted [1,1,0,1]:
    # recall(0) = 1/2, recall(1) = 2/2 -> Acc = 0.75.  With threshold 0.51: [0,0,0,1] -> (1 + 1/2)/2 = 0.75 too,
    # and with 0.81: [0,0,0,0] -> (1 + 0)/2 = 0.5.
    y, s = np.array([0, 1, 0, 1]), np.array([0.5, 0.5, 0.2, 0.8])
    r = score_binary(y, s)
    assert r.metrics == {"Acc": 0.75, "AUC": 0.875}
    assert r.per_class[0]["recall"] == 0.5 and r.per_class[1]["recall"] == 1.0
    assert score_binary(y, s, threshold=0.51).metrics["Acc"] == 0.75
    assert score_binary(y, s, threshold=0.81).metrics["Acc"] == 0.5


def test_binary_one_class_and_absent_predicted_class() -> None:
    # Only real samples: AUC undefined; predicted [0,1]: class 1 is not in the reference, so Acc is
    # the recall of class 0 alone = 1/2 (scikit-learn: same, with a warning).
    r = score_binary(np.array([0, 0]), np.array([0.1, 0.7]))
    assert r.metrics == {"Acc": 0.5, "AUC": None}
    assert r.notes == (
        (
            "Acc: class 1 predicted but absent from the reference: left out of the mean "
            "(as scikit-learn's balanced_accuracy_score)"
        ),
        "AUC undefined: only one class in the reference",
    )
    assert r.per_class[1] == {"class": 1, "n": 0, "recall": None}
    assert sk_balanced(np.array([0, 0]), np.array([0, 1])) == 0.5
    empty = score_binary(np.array([], dtype=int), np.array([]))
    assert empty.metrics == {"Acc": None, "AUC": None}


def test_multiclass_hand_computed() -> None:
    # argmax: row0 .6 -> 0; row1 .5 -> 1; row2 .8 -> 2; row3 (.4,.4,.2) tie -> first index 0.
    # recall: class 0 1/1, class 1 1/1, class 2 1/2 (row3 wrong) -> Acc = (1 + 1 + 1/2)/3 = 0.8333...
    # One-vs-rest AUC: class 0: positive .6 vs negatives .2 .1 .4 -> 1; class 1: .5 vs .2 .1 .4 -> 1;
    # class 2: positives .8 .2 vs negatives .2 .3: (.8,.2) 1, (.8,.3) 1, (.2,.2) 1/2, (.2,.3) 0 -> 2.5/4 = .625.
    # mAP = (1 + 1 + .625)/3 = 0.875.  Fake score P1+P2 = .4 .8 .9 .6, fake = [0,1,1,1] -> AUC 1;
    # fake iff >= .5: [0,1,1,1] -> Acc_binary 1.
    y = np.array([0, 1, 2, 2])
    p = np.array([[0.6, 0.2, 0.2], [0.2, 0.5, 0.3], [0.1, 0.1, 0.8], [0.4, 0.4, 0.2]])
    r = score_multiclass(y, p)
    assert r.metrics == {"Acc": pytest.approx(2.5 / 3, abs=1e-15), "mAP": 0.875, "AUC": 1.0, "Acc_binary": 1.0}
    assert r.per_class == [
        {"class": 0, "n": 1, "AUC": 1.0, "recall": 1.0},
        {"class": 1, "n": 1, "AUC": 1.0, "recall": 1.0},
        {"class": 2, "n": 2, "AUC": 0.625, "recall": 0.5},
    ]
    assert r.notes == ()


def test_multiclass_class_without_positive_is_left_out_of_map() -> None:
    # k=3 but no sample of class 2: its AUC is undefined, mAP averages classes 0 and 1 only.
    # class 0: positives .7 .6 vs negative .1 -> 1; class 1: positive .8 vs negatives .2 .3 -> 1 -> mAP = 1.
    y = np.array([0, 0, 1])
    p = np.array([[0.7, 0.2, 0.1], [0.6, 0.3, 0.1], [0.1, 0.8, 0.1]])
    r = score_multiclass(y, p)
    assert r.metrics["mAP"] == 1.0
    assert r.per_class[2] == {"class": 2, "n": 0, "AUC": None, "recall": None}
    assert r.notes == (
        (
            "mAP: class 2 has no positive or no negative sample: its AUC is undefined and left out "
            "of the mean (2 of 3 classes averaged)"
        ),
    )


def test_fake_score_is_summed_left_to_right() -> None:
    rng = np.random.default_rng(7)
    p = rng.dirichlet(np.ones(16), size=200)
    expected = []
    for row in p:
        acc = 0.0
        for v in row[1:]:
            acc += float(v)
        expected.append(acc)
    assert fake_score(p).tolist() == expected


@pytest.mark.parametrize("seed", range(6))
def test_binary_against_sklearn(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 400
    y = (rng.random(n) < 0.3).astype(int)
    s = np.round(np.clip(rng.normal(np.where(y == 1, 0.6, 0.4), 0.2), 0, 1), 2)  # 2 decimals: many ties
    r = score_binary(y, s)
    assert r.metrics["AUC"] == pytest.approx(sklearn_metrics.roc_auc_score(y, s), abs=1e-12)
    assert r.metrics["Acc"] == pytest.approx(sk_balanced(y, (s >= 0.5).astype(int)), abs=1e-15)
    assert len(np.unique(s)) < n / 4


@pytest.mark.parametrize(("seed", "k"), [(0, 3), (1, 16), (2, 16), (3, 9), (4, 2)])
def test_multiclass_against_sklearn(seed: int, k: int) -> None:
    rng = np.random.default_rng(seed)
    n = 600
    y = rng.integers(0, k, n)
    logits = rng.normal(size=(n, k)) + 1.5 * np.eye(k)[y]
    p = np.round(np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True), 2)  # ties in argmax and ranks
    r = score_multiclass(y, p, threshold=0.6)
    pred = np.argmax(p, axis=1)
    aucs = [sklearn_metrics.roc_auc_score(y == c, p[:, c]) for c in range(k)]
    fake = fake_score(p)
    assert r.metrics["Acc"] == pytest.approx(sk_balanced(y, pred), abs=1e-15)
    assert [row["AUC"] for row in r.per_class] == pytest.approx(aucs, abs=1e-12)
    assert r.metrics["mAP"] == pytest.approx(float(np.mean(aucs)), abs=1e-12)
    assert r.metrics["AUC"] == pytest.approx(sklearn_metrics.roc_auc_score(y != 0, fake), abs=1e-12)
    assert r.metrics["Acc_binary"] == pytest.approx(sk_balanced(y != 0, fake >= 0.6), abs=1e-15)
    recall = sklearn_metrics.recall_score(y, pred, labels=list(range(k)), average=None, zero_division=0)
    assert [row["recall"] for row in r.per_class] == pytest.approx(recall.tolist(), abs=1e-15)
    assert np.any(np.sort(p, axis=1)[:, -1] == np.sort(p, axis=1)[:, -2])  # argmax ties did occur


def test_roc_auc_large_ties_exact() -> None:
    # 1000 positives all at .5 and 3000 negatives all at .5: every pair ties -> exactly 1/2.
    pos = np.r_[np.ones(1000, bool), np.zeros(3000, bool)]
    assert roc_auc(pos, np.full(4000, 0.5)) == 0.5
    # -0.0 and 0.0 are one tie group (as scikit-learn's np.diff-based thresholds).
    assert roc_auc(np.array([True, False]), np.array([0.0, -0.0])) == 0.5


@pytest.mark.parametrize(
    ("labels", "probs", "message"),
    [
        (np.array([0, 3]), np.full((2, 3), 1 / 3), "labels must be in 0..2 (got 0..3)"),
        (np.array([0, 1]), np.array([[0.5, np.nan], [0.5, 0.5]]), "probabilities must be finite"),
        (np.array([0, 1, 1]), np.full((2, 3), 1 / 3), "labels must be a 1-D array of 2 values"),
    ],
)
def test_bad_input_raises_value_error(labels: np.ndarray, probs: np.ndarray, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        score_multiclass(labels, probs)
