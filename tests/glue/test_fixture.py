"""The plugin's ``omfc`` fixture (session scope) and ``omfc_score()`` (issue 13).

A user's own test file runs beside the submission items (pytester inner runs:
they do not load this directory's conftest.py, whose ``omfc`` factory would
shadow the plugin's fixture).  The dataset is test_scoring_plugin's: 4 targets
and 4 non-targets, scores T .9, T .8, N .7, T .6, N .5, T .4, N .3, N .2, so
AUC = 13/16 = 0.8125 (13 of the 16 target/non-target pairs are ordered) and
EER = 0.25.  Collection A holds T .9, N .7, T .6, N .5: AUC = 3/4 = 0.75
(.6 < .7 is the one misordered pair); collection B holds T .8, T .4, N .3,
N .2: AUC = 1.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from helpers.detection import make
from helpers.runs import run_capped

import pytest_omfc.api  # noqa: F401  (imported before the inner runs: pytester drops the modules a run imports)

QUERIES = ("--omfc-query", "Collection=='A'", "--omfc-query", "Collection=='B'")


def run_user(s: Any, code: str, *extra: str, reference: bool = True) -> dict[str, tuple[str, str]]:
    """Write ``test_user.py`` with ``code`` and run it with the submission; item name -> (outcome, text)."""
    s.case.pytester.makepyfile(test_user=code)
    args = [*s.case.args, "-p", "no:cacheprovider"] + (["--omfc-reference", str(s.reference)] if reference else [])
    rec = s.case.pytester.inline_run(*args, *extra, "test_user.py")
    out: dict[str, tuple[str, str]] = {}
    for rep in rec.getreports("pytest_runtest_logreport"):
        if rep.when == "call" or rep.outcome != "passed":
            out[rep.nodeid.rsplit("::", 1)[-1]] = (rep.outcome, str(rep.longrepr) if rep.longrepr else "")
    return out


def passed(res: dict[str, tuple[str, str]], name: str) -> None:
    outcome, text = res[name]
    assert outcome == "passed", text


# ---------------------------------------------------------------------------- scores


def test_scores_by_attribute_and_by_query(omfc: Any) -> None:
    res = run_user(
        make(omfc),
        """
import math, pytest

def test_scores(omfc):
    d = omfc.scores.detection
    assert d.labels == ["q1", "q2"]
    assert d["q1"].AUC == 0.75 and d["q2"].AUC == 1.0
    assert d["q1"].query == "Collection=='A'" and d["Collection=='B'"].AUC == 1.0 and d[1].AUC == 1.0
    assert d["q1"]["AUC@FAR"] == d["q1"].get("AUC@FAR")
    assert math.isnan(d["q1"].AUC_CI_LOWER)  # null in the metrics JSON (no --omfc-ci)
    assert d["q1"].counts["targets"] == 2
    with pytest.raises(
        LookupError, match=r"^detection has 2 results \\(q1, q2\\): pick one, e.g. " r"scores.detection\\['q1'\\]$"
    ):
        d.AUC
    with pytest.raises(AttributeError, match=r"^detection result q1 has no metric 'AUCC'; valid: TRR, AUC, EER, "):
        d["q1"].AUCC
    with pytest.raises(KeyError, match=r"detection has no result 'q3'; valid: q1, q2"):
        d["q3"]
    with pytest.raises(
        AttributeError, match=r"^mask is not scored in this run \\(task and reference\\); " r"scored: detection$"
    ):
        omfc.scores.mask
""",
        *QUERIES,
    )
    passed(res, "test_scores")
    assert res["detection[q1]"][0] == res["detection[q2]"][0] == "passed"  # the score items ran too


def test_a_single_result_reads_as_the_scorer(omfc: Any) -> None:
    res = run_user(
        make(omfc),
        """
def test_all(omfc):
    assert omfc.scores.detection.AUC == 0.8125 and omfc.scores.detection.EER == 0.25
    assert omfc.scores.detection.labels == ["all"] and omfc.scores.names == ["detection"]
""",
    )
    passed(res, "test_all")


def test_a_not_scored_result_raises_with_the_reason(omfc: Any) -> None:
    res = run_user(
        make(omfc, score={"0005": "high"}),
        """
import pytest
from pytest_omfc import NotScoredError

def test_unscored(omfc):
    r = omfc.scores.detection["all"]
    assert not r.scored and r.skipped.startswith("SCORE-01 failed: 1 ConfidenceScore value(s) are not numbers")
    with pytest.raises(NotScoredError, match=r"^AUC: detection, query all was not scored: SCORE-01 failed: "):
        omfc.scores.detection.AUC
""",
    )
    passed(res, "test_unscored")


def test_scores_without_a_reference_say_what_to_add(omfc: Any) -> None:
    res = run_user(
        make(omfc),
        """
import pytest

def test_noref(omfc):
    with pytest.raises(LookupError, match=r"^omfc.scores: nothing is scored: add --omfc-reference PATH"):
        omfc.scores
""",
        reference=False,
    )
    passed(res, "test_noref")


def test_without_a_submission_the_fixture_errors_with_the_options_to_add(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_user="def test_x(omfc):\n    pass\n")
    rec = pytester.inline_run("-p", "no:cacheprovider", "test_user.py")
    (rep,) = [r for r in rec.getreports("pytest_runtest_logreport") if r.when == "setup"]
    assert rep.failed
    assert (
        str(rep.longrepr)
        .splitlines()[0]
        .endswith(
            "the omfc fixture needs a submission: run pytest with --omfc-submission DIR --omfc-index PATH "
            "(and --omfc-reference PATH for omfc.scores)"
        )
    )


# ---------------------------------------------------------------------------- never twice


def test_each_scorer_runs_once_for_the_items_the_fixture_and_the_gates(
    omfc: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_omfc.scoring.detection import engine as detection

    calls: list[int] = []
    real = detection.score_detection

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(detection, "score_detection", counting)  # the adapter imports it when it runs
    code = """
def test_first(omfc):
    assert omfc.scores.detection["q1"].AUC == 0.75

def test_second(omfc):
    assert omfc.scores.detection["q2"].EER == 0.0
"""
    res = run_user(make(omfc), code, *QUERIES, "--omfc-require", "detection[q1]:AUC>=0.7")
    passed(res, "test_first")
    passed(res, "test_second")
    assert res["detection[q1]"][0] == "passed" and res["detection[q1]:AUC>=0.7"][0] == "passed"
    assert len(calls) == 1  # two user tests, two score items and a gate: one engine call


def test_findings_reuse_the_rule_items_outcomes(omfc: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from dataclasses import replace

    from pytest_omfc.registry import REGISTRY

    calls: list[int] = []
    rule = REGISTRY["IDX-04"]
    real = rule.check
    assert real is not None

    def counting(ctx: Any) -> Any:
        calls.append(1)
        return real(ctx)

    monkeypatch.setitem(REGISTRY, "IDX-04", replace(rule, check=counting))
    # the submission items first (named first), the user's test after them
    s = make(omfc, drop=("0008",))
    s.case.pytester.makepyfile(test_user="def test_f(omfc):\n    assert len(omfc.findings('IDX-04')) == 1\n")
    rec = s.case.pytester.inline_run(str(s.case.submission), *s.case.args, "-p", "no:cacheprovider", "test_user.py")
    outcomes = {
        r.nodeid.rsplit("::", 1)[-1]: r.outcome for r in rec.getreports("pytest_runtest_logreport") if r.when == "call"
    }
    assert outcomes["IDX-04"] == "failed" and outcomes["test_f"] == "passed"
    assert len(calls) == 1


# ---------------------------------------------------------------------------- submission, findings


def test_submission_and_findings(omfc: Any) -> None:
    res = run_user(
        make(omfc, drop=("0008",)),
        """
import pytest

def test_view(omfc):
    sub = omfc.submission
    assert (sub.id, sub.edition.value, sub.task.value) == ("p-test_1", "OpenMFC2020", "IMG")
    assert sub.rows.shape == (7, 5) and list(sub.rows["ProbeFileID"])[:2] == ["0001", "0002"]
    assert len(sub.index) == 8

def test_findings(omfc):
    (f,) = omfc.findings("IDX-04")
    expected = ("IDX-04", "error", "OpenMFC20_Image-IMDL-index.csv", 9, "0008")
    assert (f.rule, f.severity, f.file, f.line, f.key) == expected
    assert f.message == "the index trial must appear in the system output (it does not)"
    every = omfc.findings()
    assert f in every and {g.rule for g in every if g.severity == "error"} == {"IDX-02", "IDX-04", "IDX-06"}
    assert omfc.findings("IDX-05") == []
    assert omfc.findings("PROV-01") == []  # a rule of another task: nothing to find
    with pytest.raises(KeyError, match=r"unknown rule 'NOPE-1'; applicable rules: SUB-10, "):
        omfc.findings("NOPE-1")
""",
        reference=False,
    )
    passed(res, "test_view")
    passed(res, "test_findings")
    assert res["IDX-04"][0] == "failed"


def test_only_the_users_tests_with_m_not_omfc(omfc: Any) -> None:
    res = run_user(make(omfc), "def test_gate(omfc):\n    assert omfc.scores.detection.AUC >= 0.8\n", "-m", "not omfc")
    assert list(res) == ["test_gate"] and res["test_gate"][0] == "passed"


# ---------------------------------------------------------------------------- JUnit


def test_values_read_or_recorded_appear_in_junit(omfc: Any) -> None:
    s = make(omfc)
    xml = s.case.pytester.path / "out" / "junit.xml"
    res = run_user(
        s,
        """
def test_gate(omfc):
    assert omfc.scores.detection.AUC >= 0.8
    assert omfc.scores.detection["all"].EER <= 0.25
    omfc.record("team.threshold", 0.8)
""",
        "--junitxml",
        str(xml),
        *(("-o", "junit_family=xunit2")),
    )
    passed(res, "test_gate")
    case = next(c for c in ET.parse(xml).iter("testcase") if c.get("name") == "test_gate")
    props = [(p.get("name"), p.get("value")) for p in case.iter("property")]
    assert props == [("omfc.detection:AUC", "0.8125"), ("omfc.detection:EER", "0.25"), ("team.threshold", "0.8")]


# ---------------------------------------------------------------------------- omfc_score()


SCRIPT = """
import json, sys
sys.modules["pytest"] = None  # any pytest import fails
sys.modules["_pytest"] = None
from pytest_omfc import omfc_score
root = sys.argv[1]
kw = dict(submission=root + "/p-test_1", index=root + "/dataset/indexes/OpenMFC20_Image-IMDL-index.csv",
          reference="reference/OpenMFC20_Image-IMDL-ref.csv", jobs=1)
out = {"all": omfc_score(**kw).detection.AUC}
s = omfc_score(**kw, query=["Collection=='A'", "Collection=='B'"], far_stop=0.5, omfc_convention="plan")
out["q"] = [s.detection["q1"].AUC, s.detection["q2"].AUC, s.detection["q1"].FAR_STOP]
for bad in ({"far_stp": 0.5}, {"far_stop": 2}, {"convention": "nist"}):
    try:
        omfc_score(**kw, **bad)
    except (TypeError, ValueError) as exc:
        out[next(iter(bad))] = f"{type(exc).__name__}: {exc}"
out["pytest"] = sorted(
    m for m in sys.modules if m.split(".")[0] in ("pytest", "_pytest") and sys.modules[m] is not None
)
print(json.dumps(out))
"""


def test_omfc_score_needs_no_pytest(omfc: Any) -> None:
    s = make(omfc)
    script = s.case.pytester.path / "score.py"
    script.write_text(SCRIPT, encoding="utf-8")
    run = run_capped(
        [str(script), str(s.case.pytester.path)], cwd=Path(s.case.pytester.path), timeout=120, cap=2 * 1024**3
    )
    assert run.ret == 0, run.err[-3000:]
    out = json.loads(run.out.strip().splitlines()[-1])
    assert out["all"] == 0.8125
    assert out["q"] == [0.75, 1.0, 0.5]
    assert out["far_stp"].startswith(
        "TypeError: omfc_score() got an unknown option 'far_stp'; valid: score, optout, query, "
    )
    assert "far_stop" in out["far_stp"] and "erode_kernel_size" in out["far_stp"]
    assert out["far_stop"] == "ValueError: far_stop: must be a number in [0, 1] (got 2)"
    assert out["convention"] == "ValueError: convention: must be mediscore or plan (got 'nist')"
    assert out["pytest"] == []


def test_entries_with_their_own_scorer_name_and_node_types() -> None:
    """Provenance writes one item with an entry per node type, named provenance-filtering: both names reach them."""
    from pytest_omfc.scoring.registry import NotScored, ScoreResult
    from pytest_omfc.scoring.results import build_scores

    entries = [
        {
            "scorer": "provenance-filtering",
            "query": None,
            "query_kind": "all",
            "node_type": t,
            "metrics": {"NodeRecallAt50": v},
        }
        for t, v in (("all", 0.5), ("donor", 0.25))
    ]
    scores = build_scores(
        {"provenance": [ScoreResult({"entries": entries})], "temporal": [NotScored("COL-07 failed")]}, []
    )
    assert scores.names == ["provenance", "provenance-filtering", "temporal"]
    assert scores.provenance_filtering["donor"].NodeRecallAt50 == 0.25
    assert scores.provenance["all"].NodeRecallAt50 == 0.5
    assert scores["provenance"]["donor"].where == "provenance-filtering, node type donor"
    assert [e["node_type"] for e in scores.entries if "node_type" in e] == ["all", "donor"]  # no alias doubles
    assert scores.temporal.only().skipped == "COL-07 failed" and not scores.temporal["all"].scored


def test_the_fixture_report_is_the_findings_json_of_the_run(omfc: Any) -> None:
    """``omfc.report``: the document ``--omfc-findings-json`` writes (its rules), typed, from the same outcomes."""
    s = make(omfc, score={"0005": "high"})
    out = s.root / "out" / "findings.json"
    code = """
import json

def test_report(omfc):
    report = omfc.report
    assert report.verdict == "failed"
    (score01,) = [r for r in report.rules if r.rule == "SCORE-01"]
    assert score01.outcome == "failed" and score01.errors.total == 1
    assert score01.errors.findings[0].line == 4 and score01.errors.findings[0].value == "high"
    json.dump([r.model_dump() for r in report.rules], open("fixture_rules.json", "w"))
"""
    got = run_user(s, code, "--omfc-findings-json", str(out), reference=False)
    assert got["test_report"][0] == "passed", got["test_report"][1]
    written = json.loads(out.read_text())["rules"]
    from_fixture = json.loads((s.case.pytester.path / "fixture_rules.json").read_text())
    key = lambda r: (r["rule"], r["slice"] or "")  # noqa: E731
    assert sorted(from_fixture, key=key) == sorted(written, key=key)


VALIDATE_THEN_SCORE = """
import json, sys
from pytest_omfc import omfc_score, omfc_validate
import pytest_omfc.submission as parsed
root = sys.argv[1]
kw = dict(submission=root + "/p-test_1", index=root + "/dataset/indexes/OpenMFC20_Image-IMDL-index.csv")
report = omfc_validate(**kw)
parses = []
real = parsed.read_psv
parsed.read_psv = lambda *a, **k: parses.append(1) or real(*a, **k)
ref = dict(reference="reference/OpenMFC20_Image-IMDL-ref.csv", jobs=1)
reused = omfc_score(**kw, **ref, validated=report).detection.AUC
print(json.dumps({"verdict": report.verdict, "kept": report._checked is not None, "reused": reused,
                  "parses_reused": len(parses), "fresh": omfc_score(**kw, **ref).detection.AUC,
                  "parses_fresh": len(parses)}))
"""


def test_validate_then_score_reads_the_submission_once(omfc: Any) -> None:
    """``omfc_score(validated=omfc_validate(...))`` scores the parsed submission the check kept: the same AUC, and
    the index and the system output are not parsed again (a fresh ``omfc_score`` parses them)."""
    s = make(omfc)
    script = s.case.pytester.path / "both.py"
    script.write_text(VALIDATE_THEN_SCORE, encoding="utf-8")
    run = run_capped([str(script), str(s.case.pytester.path)], cwd=Path(s.case.pytester.path), timeout=120)
    assert run.ret == 0, run.err[-3000:]
    out = json.loads(run.out.strip().splitlines()[-1])
    assert out["verdict"] == "passed" and out["kept"]
    assert out["reused"] == out["fresh"] == 0.8125
    assert out["parses_reused"] == 0 and out["parses_fresh"] >= 1  # the index and the system output


def test_a_teams_test_compares_the_run_with_a_baseline(omfc: Any) -> None:
    """``omfc.compare(path)``: the run's scores against an earlier metrics JSON, as ``omfc_compare`` gives them."""
    s = make(omfc)
    base = s.root / "out" / "metrics.json"
    s.json()
    code = (
        "def test_not_worse(omfc):\n"
        f"    got = omfc.compare({str(base)!r})\n"
        "    auc = got['results'][0]['comparison']['AUC']\n"
        "    assert (auc['difference'], auc['p_value'], auc['test']) == (0.0, 1.0, 'delong')\n"
        "    assert got['results'][0]['compared_trials']['draws'] == 500\n"
    )
    passed(run_user(s, code), "test_not_worse")
