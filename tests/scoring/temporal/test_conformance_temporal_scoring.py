"""Conformance of the video temporal engine with MediScore's checkfiles
(docs/scoring/temporal.md#checked-against-mediscore).

MediScore's command (``integration_tests.sh``): ``-c 5 --query "*" "Operation == 'PasteFrames'"``.
``scores_probes.csv`` (every probe of both queries) and ``scores.csv`` (the means) are compared
to 1e-9, the probe sets exactly; ``query_table_join.csv`` gives the queries.  The data are read in
place; a missing file skips the test and names it.
"""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from helpers.paths import REPO

from pytest_omfc.scoring.temporal.engine import TemporalReport, score_temporal

REPO_ROOT = REPO
TS = REPO_ROOT.parent / "shared" / "conformance" / "mediscore" / "test_suite" / "videoTemporalLocalizationScorerTests"
CHECK = TS / "checkfiles" / "test_1_0"
INPUTS = {
    "index": TS / "test_case_1_videotemploc-index.csv",
    "reference": TS / "test_case_1_videotemploc-ref.csv",
    "system": TS / "test_case_1_system_output.csv",
    "journal_join": TS / "test_case_1_videotemploc-ref-probejournaljoin.csv",
    "journal_mask": TS / "test_case_1_videotemploc-ref-journalmask.csv",
}
EXPECTED = {name: CHECK / f"{name}.csv" for name in ("scores", "scores_probes", "query_table_join")}


def _need(*paths: Path) -> None:
    for p in paths:
        if not p.is_file():
            pytest.skip(f"MediScore conformance file not found: {p}")


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh, delimiter="|"))


@pytest.fixture(scope="module")
def report() -> TemporalReport:
    _need(*INPUTS.values(), EXPECTED["query_table_join"])
    queries = [r["query"] for r in sorted(_rows(EXPECTED["query_table_join"]), key=lambda r: int(r["id"]))]
    assert queries == ["*", "Operation == 'PasteFrames'"]
    return score_temporal(
        INPUTS["index"],
        INPUTS["reference"],
        INPUTS["system"],
        journal_join=INPUTS["journal_join"],
        journal_mask=INPUTS["journal_mask"],
        query=queries,
        collar=5,
    )


def test_scores_probes_match_checkfile(report: TemporalReport) -> None:
    _need(EXPECTED["scores_probes"])
    expected: dict[int, dict[str, float]] = {}
    for r in _rows(EXPECTED["scores_probes"]):
        expected.setdefault(int(r["query"]), {})[r["ProbeFileID"]] = float(r["MCC"])
    assert sorted(expected) == [res.position for res in report.results]
    for res in report.results:
        assert res.error is None
        got = {t.probe: t.mcc for t in res.trials if t.status == "scored"}
        assert set(got) == set(expected[res.position]), res.query
        for probe, value in expected[res.position].items():
            assert got[probe] == pytest.approx(value, abs=1e-9), (res.query, probe)
        assert not res.failed


def test_scores_match_checkfile(report: TemporalReport) -> None:
    _need(EXPECTED["scores"])
    expected = {int(r["query"]): float(r["MCC"]) for r in _rows(EXPECTED["scores"])}
    assert {res.position: res.metrics["MCC"] for res in report.results} == pytest.approx(expected, abs=1e-9)
    assert expected == {0: pytest.approx(0.384672767869, abs=1e-12), 1: pytest.approx(0.603811913734, abs=1e-12)}


def test_worked_example_probe_2582(report: TemporalReport) -> None:
    """docs/scoring/temporal.md#checked-against-mediscore: ref [200,398], sys [200,270], collars [195,205], [393,403]:
    TP 65, FN 123, FP 0, TN 791."""
    trial = next(t for t in report.results[0].trials if t.probe.startswith("2582"))
    assert (trial.tp, trial.fn, trial.fp, trial.tn) == (65.0, 123.0, 0.0, 791.0)
    assert trial.mcc == pytest.approx(0.547007017098, abs=1e-12)
