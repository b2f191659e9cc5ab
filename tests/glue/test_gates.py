"""Metric gates ``--omfc-require`` (issue 13): items ``<sub>::require::GATE``, usage errors, the ini form.

The dataset is test_scoring_plugin's (detection only: its reference has no
mask column): AUC = 13/16 = 0.8125, EER = 0.25 over all trials; collection A
AUC = 3/4 = 0.75, collection B AUC = 1 (see tests/glue/test_fixture.py).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

import pytest
from helpers.detection import make
from helpers.paths import REPO

from pytest_omfc.pytest_glue.gates import Gate, parse_gate, resolve
from pytest_omfc.pytest_glue.scoring import ScoringSettings

QUERIES = ("--omfc-query", "Collection=='A'", "--omfc-query", "Collection=='B'")


def gates(s: Any, *texts: str, extra: tuple[str, ...] = ()) -> Any:
    """Run with one ``--omfc-require`` per text (and ``extra`` options)."""
    return s.run(*[a for g in texts for a in ("--omfc-require", g)], *extra)


def test_a_met_gate_passes_and_records_the_value(omfc: Any) -> None:
    res = gates(make(omfc), "AUC>=0.8", "detection:EER <= 0.25")
    assert res.outcome("AUC>=0.8") == "passed" and res.outcome("detection:EER<=0.25") == "passed"  # no blanks in names
    assert dict(res.props["AUC>=0.8"]) == {"omfc.require": "AUC>=0.8", "omfc.detection:AUC": 0.8125}
    assert res.ret == 0


def test_a_missed_gate_fails_with_value_bound_and_query(omfc: Any) -> None:
    res = gates(make(omfc), "AUC>=0.90", "EER<0.25", "TRR==1")
    assert res.outcome("AUC>=0.90") == "failed" and res.ret == 1
    assert res.first_line("AUC>=0.90") == "AUC must be >= 0.9 (got 0.8125, detection, query all)"
    assert res.first_line("EER<0.25") == "EER must be < 0.25 (got 0.25, detection, query all)"
    assert res.outcome("TRR==1") == "passed"


def test_gates_on_queries(omfc: Any) -> None:
    res = gates(make(omfc), "detection[q1]:AUC>0.8", "detection[q2]:AUC==1", "AUC>=0.8", extra=QUERIES)
    assert (
        res.first_line("detection[q1]:AUC>0.8")
        == "AUC must be > 0.8 (got 0.75, detection, query q1 \"Collection=='A'\")"
    )
    assert res.outcome("detection[q2]:AUC==1") == "passed"
    # without a result label every result must meet it: q1 misses (0.75), q2 meets (1.0)
    assert res.first_line("AUC>=0.8") == "AUC must be >= 0.8 (got 0.75, detection, query q1 \"Collection=='A'\")"


def test_every_missing_result_is_listed(omfc: Any) -> None:
    res = gates(make(omfc), "AUC>=1.5", extra=QUERIES)
    assert res.text("AUC>=1.5").splitlines() == [
        "AUC>=1.5: 2 of 2 results miss it",
        "AUC must be >= 1.5 (got 0.75, detection, query q1 \"Collection=='A'\")",
        "AUC must be >= 1.5 (got 1, detection, query q2 \"Collection=='B'\")",
    ]


def test_a_gate_on_a_not_scored_result_fails_with_the_reason(omfc: Any) -> None:
    res = gates(make(omfc, score={"0005": "high"}), "AUC>=0.8")
    assert res.outcome("detection") == "skipped" and res.outcome("AUC>=0.8") == "failed"
    assert res.first_line("AUC>=0.8") == (
        "AUC cannot be checked: detection, query all was not scored: SCORE-01 failed: 1 ConfidenceScore value(s) "
        "are not numbers (first p-test_1/p-test_1.csv:4: 'high')"
    )


def test_the_ini_form_one_gate_per_line(omfc: Any) -> None:
    s = make(omfc)
    s.case.pytester.makeini("[pytest]\nomfc_require =\n    AUC>=0.8\n    detection:EER<=0.2\n")
    res = s.run()
    assert res.outcome("AUC>=0.8") == "passed"
    assert res.first_line("detection:EER<=0.2") == "EER must be <= 0.2 (got 0.25, detection, query all)"


def test_junit_carries_the_gate_failure_message(omfc: Any) -> None:
    s = make(omfc)
    xml = s.root / "out" / "junit.xml"
    gates(s, "AUC>=0.9", extra=("--junitxml", str(xml)))
    case = next(c for c in ET.parse(xml).iter("testcase") if c.get("name") == "AUC>=0.9")
    failure = case.find("failure")
    assert failure is not None and failure.get("message") == "AUC must be >= 0.9 (got 0.8125, detection, query all)"


# ---------------------------------------------------------------------------- usage errors (exit 4)


@pytest.mark.parametrize(
    ("gate", "message"),
    [
        pytest.param(
            "AUC>>0.8",
            "'AUC>>0.8' is not a gate: must be [scorer[result]:]metric OP bound with OP one of "
            ">=, >, <=, <, == and bound a number or baseline[+-number], or [scorer[result]:]metric not worse "
            '(e.g. "AUC>=0.8", "mask:OptimumMCC>0.3", "detection[q1]:EER<=0.2", "AUC>=baseline-0.01", '
            '"AUC not worse")',
            id="operator",
        ),
        pytest.param("AUC>=high", "'AUC>=high': the bound must be a number (got 'high')", id="bound"),
        pytest.param(
            "AUCC>=0.8",
            "'AUCC>=0.8': unknown metric AUCC; valid: detection: TRR, AUC, EER, FAR_STOP, AUC@FAR, "
            "CDR@FAR, CI_LEVEL, AUC_CI_LOWER, AUC_CI_UPPER, AUC_CI_LOWER@FAR, AUC_CI_UPPER@FAR, CDR_CI_LOWER@FAR, "
            "CDR_CI_UPPER@FAR",
            id="metric",
        ),
        pytest.param(
            "detection:MCC>0",
            "'detection:MCC>0': unknown metric MCC of detection; valid: TRR, AUC, EER, FAR_STOP, "
            "AUC@FAR, CDR@FAR, CI_LEVEL, AUC_CI_LOWER, AUC_CI_UPPER, AUC_CI_LOWER@FAR, AUC_CI_UPPER@FAR, "
            "CDR_CI_LOWER@FAR, CDR_CI_UPPER@FAR",
            id="metric-of-scorer",
        ),
        pytest.param(
            "mask:OptimumMCC>0.3",
            "'mask:OptimumMCC>0.3': mask is not scored in this run (task IMG, reference "
            "OpenMFC20_Image-IMDL-ref.csv); scored: detection",
            id="scorer-not-running",
        ),
        pytest.param(
            "detector:AUC>0.3", "'detector:AUC>0.3': detector is not a scorer; scored: detection", id="scorer"
        ),
        pytest.param(
            "detection[q1]:AUC>0.3", "'detection[q1]:AUC>0.3': detection has no result 'q1'; valid: all", id="label"
        ),
    ],
)
def test_a_bad_gate_is_a_usage_error_naming_the_valid_ones(omfc: Any, gate: str, message: str) -> None:
    s = make(omfc)
    out = s.case.pytester.runpytest(*s.args("--omfc-require", "AUC>=0.5", "--omfc-require", gate))
    assert out.ret == pytest.ExitCode.USAGE_ERROR
    assert f"ERROR: --omfc-require: {message}" in out.stderr.lines


def test_a_gate_needs_a_reference(omfc: Any) -> None:
    s = make(omfc)
    out = s.case.pytester.runpytest(*s.case.args, "-p", "no:cacheprovider", "--omfc-require", "AUC>=0.5")
    assert out.ret == pytest.ExitCode.USAGE_ERROR
    assert (
        "ERROR: --omfc-require: needs --omfc-reference PATH (nothing is scored without a reference)" in out.stderr.lines
    )


# ---------------------------------------------------------------------------- grammar and resolution (no run)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("AUC>=0.80", Gate("AUC>=0.80", "AUC", ">=", 0.8)),
        (" mask : OptimumMCC > .3 ", Gate("mask:OptimumMCC>.3", "OptimumMCC", ">", 0.3, "mask")),
        ("detection[q1]:EER<=2e-1", Gate("detection[q1]:EER<=2e-1", "EER", "<=", 0.2, "detection", "q1")),
        ("detection:AUC@FAR<0.5", Gate("detection:AUC@FAR<0.5", "AUC@FAR", "<", 0.5, "detection")),
        (
            "provenance-graph:MeanSimNLO==1",
            Gate("provenance-graph:MeanSimNLO==1", "MeanSimNLO", "==", 1.0, "provenance-graph"),
        ),
    ],
)
def test_grammar(text: str, want: Gate) -> None:
    assert parse_gate(text) == want


@pytest.mark.parametrize(
    "text", ["", "AUC", "AUC=0.8", "AUC=>0.8", ">=0.8", "AUC>=", "AUC>=nan", "a:b:AUC>1", "AUC>=0.8 x"]
)
def test_malformed(text: str) -> None:
    with pytest.raises(ValueError, match="is not a gate|the bound must be a number"):
        parse_gate(text)


def _settings(*scorers: str, queries: tuple[tuple[str, str], ...] = ()) -> ScoringSettings:
    from pathlib import Path

    return ScoringSettings(
        reference=Path("ref.csv"),
        metrics_json=None,
        plots=None,
        optout=False,
        queries=queries,
        convention="mediscore",
        query_partition=None,
        scorers=scorers,
    )


def test_a_metric_of_two_scorers_needs_the_prefix() -> None:
    with pytest.raises(
        ValueError,
        match=r"^'AUC>=0.8': AUC is a metric of detection and mask: name the scorer "
        r"\(detection:AUC or mask:AUC\)$",
    ):
        resolve(parse_gate("AUC>=0.8"), _settings("detection", "mask"), "IMG", "ref.csv")
    assert resolve(parse_gate("OptimumMCC>0.3"), _settings("detection", "mask"), "IMG", "ref.csv").scorer == "mask"
    q = _settings("detection", queries=(("a", "q"), ("b", "q")))
    assert resolve(parse_gate("detection[q2]:AUC>0"), q, "IMG", "ref.csv").label == "q2"


def test_declared_metrics_cover_the_engines_results() -> None:
    """Scorer.metrics (what gates accept up front) names every numeric key the engines write."""

    from pytest_omfc import omfc_score
    from pytest_omfc.scoring.registry import SCORERS

    ex = REPO / "examples"
    scores = omfc_score(
        submission=ex / "submissions" / "imdl" / "p-baseline_3_imdl",
        index=ex / "datasets" / "OpenMFC2020" / "indexes" / "OpenMFC20_Image-IMDL-index.csv",
        reference="reference/IMDL/OpenMFC20_Image-IMDL-ref.csv",
        jobs=1,
    )
    for name in ("detection", "mask"):
        (result,) = scores[name]
        assert result.scored, result.skipped
        assert set(result.metric_names()) <= set(SCORERS[name].metrics), name
    assert scores.mask.OptimumMCC == pytest.approx(0.2613272742677202)


def test_gates_and_the_fixture_under_xdist(omfc: Any) -> None:
    """Every worker collects the same gate items (it rebuilds them from the command line) and scores alone."""
    s = make(omfc)
    s.case.pytester.makepyfile(test_user="def test_auc(omfc):\n    assert omfc.scores.detection.AUC == 0.8125\n")
    res = s.case.pytester.runpytest_subprocess(
        *s.args("--omfc-require", "AUC>=0.8", "--omfc-require", "EER<0.25"), "test_user.py", "-n", "2", "-rA"
    )
    res.stdout.fnmatch_lines_random(
        [
            "PASSED test_user.py::test_auc",
            "PASSED *p-test_1::require::AUC>=0.8",
            "FAILED *p-test_1::require::EER<0.25*",
            "EER must be < 0.25 (got 0.25, detection, query all)",
        ]
    )
    assert res.ret == 1


# ---------------------------------------------------------------------------- hostile gate texts (issue 17)


@pytest.mark.parametrize(
    "text",
    [
        "detection[" + " " * 100_000 + "q1",
        "detection[" + " " * 100_000 + "q1]:AUC>=",
        " " * 100_000 + "AUC" + " " * 100_000 + ">=" + " " * 100_000 + "x",
        "a:" * 50_000 + "AUC>=1",
        "[" * 100_000 + "AUC>=1",
    ],
)
def test_a_pathological_gate_is_refused_at_once(text: str) -> None:
    """The one-piece regex backtracked: "detection[" + 3,000 blanks + "q1" took 33 s, 10,000 over a minute.
    The parser now splits the text in one pass; a hang guard, not a speed claim (it takes milliseconds)."""
    import time

    start = time.monotonic()
    with pytest.raises(ValueError, match="is not a gate|the bound must be a number"):
        parse_gate(text)
    assert time.monotonic() - start < 5


def test_junit_name_equals_the_gate_text(omfc: Any) -> None:
    """The JUnit testcase name is the gate as given, blanks removed (a label's brackets included)."""
    s = make(omfc)
    xml = s.root / "out" / "junit.xml"
    gates(s, "detection[q1]:AUC>=0", "detection [ q2 ] : EER <= 1", extra=("--junitxml", str(xml), *QUERIES))
    names = [c.get("name") for c in ET.parse(xml).iter("testcase") if c.get("classname", "").endswith(".require")]
    assert names == ["detection[q1]:AUC>=0", "detection[q2]:EER<=1"]


@pytest.mark.parametrize("flag", ["--omfc-metrics-json", "--omfc-plots", "--omfc-per-probe-csv"])
def test_a_scoring_output_needs_a_reference_never_silently_nothing(omfc: Any, flag: str) -> None:
    """A validation-only run asked for the metrics JSON (or the plots, the per-probe CSV) used to exit 0 and write
    nothing; it is a usage error naming the flag and what it needs, and nothing is written."""
    s = make(omfc)
    target = s.root / "out" / "thing"
    out = s.case.pytester.runpytest(*s.case.args, "-p", "no:cacheprovider", flag, str(target))
    assert out.ret == pytest.ExitCode.USAGE_ERROR
    assert any(line.startswith(f"ERROR: {flag}: needs --omfc-reference PATH") for line in out.stderr.lines)
    assert not target.exists()
