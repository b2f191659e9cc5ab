"""Scoring items (``--omfc-reference``): numbers, JUnit properties, metrics JSON, plots, skips and failures.

A tiny OpenMFC2020 IMDL dataset with hand-computable numbers: 4 targets and 4
non-targets, scores (descending) T .9, T .8, N .7, T .6, N .5, T .4, N .3, N .2,
so AUC = 13/16, EER = .25 (docs/scoring/detection.md).  MediScore's own sample data
(``conformance`` fixture) check the numbers against docs/scoring/detection.md#checked-against-mediscore
"""

from __future__ import annotations

import json
import math
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from helpers.detection import OUT_HEADER, REF_HEADER, REF_REL, TRIALS, make
from helpers.paths import REPO
from helpers.runs import psv
from PIL import Image

from pytest_omfc.scoring import convention_table

ALL = {"AUC": 0.8125, "EER": 0.25, "AUC@FAR": 0.0, "CDR@FAR": 0.5, "TRR": 1.0, "FAR_STOP": 0.1}


def props(res: Any, rid: str) -> dict[str, Any]:
    return dict(res.props[rid])


def assert_metrics(got: dict[str, Any], want: dict[str, float]) -> None:
    for name, value in want.items():
        assert got[name] == pytest.approx(value, abs=1e-6), name


# ---------------------------------------------------------------------------- on / off


def test_without_reference_nothing_is_scored(omfc):
    s = make(omfc)
    res = s.case.run()
    assert res.outcome("IDX-04") == "passed"  # the rules ran
    assert not [r for r in res.reports if r.startswith("detection")]
    out = s.case.pytester.runpytest(*s.case.args, "-p", "no:cacheprovider")
    assert "omfc detection scores" not in out.stdout.str()


def test_scores_all_trials_into_user_properties(omfc):
    res = make(omfc).run()
    assert res.outcome("detection") == "passed", res.text("detection")
    assert res.ret == 0, res.failed()  # the dataset passes every rule: exit 1 elsewhere comes from scoring
    p = props(res, "detection")
    assert_metrics(p, ALL)
    assert p["omfc.score"] == "detection" and p["query_kind"] == "all" and p["SYS_RESPONSE"] == "all"
    assert (p["count.targets"], p["count.nontargets"], p["count.missing_system"]) == (4, 4, 0)
    assert math.isnan(p["AUC_CI_LOWER"])  # no --omfc-ci: None in JSON, NaN here (MediScore prints 0)
    assert all(type(v) in (str, int, float) for _, v in res.props["detection"])


def test_reference_relative_to_dataset_root(omfc):
    s = make(omfc)
    res = s.case.run("--omfc-reference", REF_REL)
    assert res.outcome("detection") == "passed", res.text("detection")
    assert_metrics(props(res, "detection"), {"AUC": 0.8125})


def test_summary_table_shows_the_auc(omfc):
    s = make(omfc)
    out = s.case.pytester.runpytest(*s.args("--omfc-query", "Collection==['A']", "--omfc-query", "IsTarget==['Y']"))
    out.stdout.fnmatch_lines(
        [
            f"omfc: scoring detection against {s.reference} (convention mediscore, FAR stop 0.1)",
            "omfc detection scores*",
            "*result*T#*NT#*AUC*EER*AUC@FAR*CDR@FAR*TRR*",
            "*q1*2*2*0.7500*",
            "*q2*-*",
            "omfc: convention mediscore, FAR stop 0.1",
            "  q1: Collection==['A']",
        ]
    )


# ---------------------------------------------------------------------------- options


def test_far_stop(omfc):
    p = props(make(omfc).run("--omfc-far-stop", "0.3"), "detection")
    assert_metrics(p, {"FAR_STOP": 0.3, "AUC@FAR": 0.125, "CDR@FAR": 0.75, "AUC": 0.8125})


def test_ci_level_and_iterations(omfc):
    s = make(omfc)
    p90 = props(s.run("--omfc-ci"), "detection")
    assert_metrics(p90, {"CI_LEVEL": 0.9, "AUC_CI_LOWER": 0.6, "AUC_CI_UPPER": 1.0})
    p80 = props(s.run("--omfc-ci", "--omfc-ci-level", "0.8"), "detection")
    assert_metrics(p80, {"CI_LEVEL": 0.8, "AUC_CI_LOWER": 2 / 3, "AUC_CI_UPPER": 1.0})
    one = props(s.run("--omfc-ci", "--omfc-ci-iterations", "1"), "detection")
    assert one["AUC_CI_LOWER"] == one["AUC_CI_UPPER"]  # one resample: both bounds are its AUC


def test_ini_settings_and_command_line_precedence(omfc):
    """Every scoring option is also an ini setting: paths relative to the ini file, queries as a line list;
    the command line wins."""
    s = make(omfc)
    s.case.pytester.makeini(f"""
        [pytest]
        omfc_reference = dataset/{REF_REL}
        omfc_ci = true
        omfc_far_stop = 0.2
        omfc_query =
            Collection==['A']
            Collection==['B']
        omfc_metrics_json = out/from-ini.json
    """)
    res = s.case.run()
    q1, q2 = props(res, "detection[q1]"), props(res, "detection[q2]")
    assert (q1["query"], q2["query"], q1["FAR_STOP"]) == ("Collection==['A']", "Collection==['B']", 0.2)
    assert q1["AUC_CI_UPPER"] >= q1["AUC"] >= q1["AUC_CI_LOWER"] and q1["CI_LEVEL"] == 0.9
    doc = json.loads((s.root / "out" / "from-ini.json").read_text(encoding="utf-8"))
    assert [r["query"] for r in doc["results"]] == ["Collection==['A']", "Collection==['B']"]
    assert doc["options"]["far_stop"] == 0.2 and doc["options"]["ci"] is True
    cli = s.case.run("--omfc-far-stop", "0.3", "--omfc-query", "IsTarget==['Y'] or Collection==['A']")
    assert "detection[q2]" not in cli.props
    assert (props(cli, "detection[q1]")["FAR_STOP"], props(cli, "detection[q1]")["query"]) == (
        0.3,
        "IsTarget==['Y'] or Collection==['A']",
    )


def test_seed_makes_the_bootstrap_reproducible(omfc):
    s = make(omfc)

    def ci(seed: str) -> tuple[float, float]:
        p = props(s.run("--omfc-ci", "--omfc-seed", seed), "detection")
        return p["AUC_CI_LOWER"], p["CDR_CI_LOWER@FAR"]

    assert ci("1") == ci("1") == pytest.approx((0.466667, 0.4), abs=1e-6)
    assert ci("2") == pytest.approx((0.75, 0.333333), abs=1e-6)  # the default 77 gives (0.6, 0.6)


def test_optout(omfc):
    """docs/scoring/detection.md#opt-out: --optOut drops OptOutAll; TRR = round(7/8, 2); SYS_RESPONSE 'tr'."""
    s = make(omfc, status={"0001": "OptOutAll"})
    assert_metrics(props(s.run(), "detection"), {"AUC": 0.8125, "TRR": 1.0})
    p = props(s.run("--omfc-optout"), "detection")
    assert_metrics(p, {"AUC": 0.75, "TRR": 0.88})
    assert (p["SYS_RESPONSE"], p["count.opted_out"], p["count.targets"]) == ("tr", 1, 3)


def test_repeatable_queries_one_item_each(omfc):
    res = make(omfc).run("--omfc-query", "Collection==['A']", "--omfc-query", "Collection==['B']")
    assert [res.outcome(r) for r in ("detection[q1]", "detection[q2]")] == ["passed", "passed"]
    assert_metrics(
        props(res, "detection[q1]"), {"AUC": 0.75, "TRR": 0.5}
    )  # TRR keeps the full denominator (docs/scoring/detection.md#trr)
    assert_metrics(props(res, "detection[q2]"), {"AUC": 1.0, "TRR": 0.5})
    assert props(res, "detection[q2]")["query"] == "Collection==['B']"


def test_query_partition(omfc):
    res = make(omfc).run("--omfc-query-partition", "Collection==['A','B']")
    assert_metrics(props(res, "detection[qp1]"), {"AUC": 0.75})
    assert_metrics(props(res, "detection[qp2]"), {"AUC": 1.0})
    assert props(res, "detection[qp2]")["query"] == "Collection == ['B']"


def test_query_manipulation_uses_the_journal_tables(omfc):
    """1.10: -qm keeps targets with a matching journal operation (0003 has two) and every non-target."""
    res = make(omfc).run(
        "--omfc-query-manipulation", "Operation==['PasteSplice']", "--omfc-query-manipulation", "Purpose==['remove']"
    )
    p1, p2 = props(res, "detection[qm1]"), props(res, "detection[qm2]")
    assert_metrics(p1, {"AUC": 0.875, "TRR": 0.75})
    assert (p1["count.targets"], p1["count.nontargets"]) == (2, 4)
    assert_metrics(p2, {"AUC": 0.75, "TRR": 0.88})  # 0002 .8, 0003 .6, 0004 .4
    assert p2["count.targets"] == 3


def test_query_manipulation_without_journal_tables_fails_naming_them(omfc):
    res = make(omfc, journal=False).run("--omfc-query-manipulation", "Operation==['PasteSplice']")
    assert res.outcome("detection[qm1]") == "failed"
    assert res.first_line("detection[qm1]") == (
        "score::detection: query \"Operation==['PasteSplice']\" (qm) cannot be evaluated: UndefinedVariableError: "
        "name 'Operation' is not defined; unknown column(s) ['Operation'] (no journal tables "
        "OpenMFC20_Image-IMDL-ref-probejournaljoin.csv and OpenMFC20_Image-IMDL-ref-journalmask.csv beside the "
        "reference)"
    )


def test_a_zero_auc_at_far_by_convention_has_a_footnote(omfc):
    """The whole set: AUC@FAR 0 beside CDR@FAR 0.5 (two targets above every non-target: a vertical step at FAR 0).
    The terminal explains the 0 under the table; the plan convention integrates to the FAR stop and has none."""
    s = make(omfc)
    out = s.case.pytester.runpytest(*s.args())
    out.stdout.fnmatch_lines(
        ["omfc: convention mediscore, FAR stop 0.1", "  AUC@FAR 0 beside CDR@FAR 0.5000 is MediScore's convention*"]
    )
    plan = s.case.pytester.runpytest(*s.args("--omfc-convention", "plan"))
    assert "is MediScore's convention, not a sign of a poor detector" not in plan.stdout.str()


def test_convention_plan_keeps_missing_trials(omfc):
    """docs/scoring/conventions.md, docs/scoring/detection.md#inputs-and-merge: MediScore drops trials missing from
    the output; the plan scores them at the minimum."""
    s = make(omfc, drop=("0008",))
    ms = props(s.run(), "detection")
    assert_metrics(ms, {"AUC": 0.75, "TRR": 1.0, "FAR_STOP": 0.1})
    assert (ms["count.nontargets"], ms["count.missing_system"]) == (3, 1)
    plan = props(s.run("--omfc-convention", "plan"), "detection")
    assert_metrics(plan, {"AUC": 0.8125, "TRR": 0.875, "FAR_STOP": 0.05, "AUC@FAR": 0.025, "CDR@FAR": 0.5})
    assert (plan["count.nontargets"], plan["count.missing_system"]) == (4, 1)


# ---------------------------------------------------------------------------- JSON, JUnit, plots


def test_metrics_json_says_what_produced_it(omfc):
    """``run``: version, UTC time, the command, the options given, the libraries, the inputs' fingerprints."""
    import hashlib

    s = make(omfc)
    doc = s.json("--omfc-query", "Collection==['A']")
    run = doc["run"]
    assert list(run) == ["plugin_version", "time_utc", "command", "working_directory", "options", "environment",
                         "inputs", "inputs_total"]  # fmt: skip
    assert run["plugin_version"] == doc["plugin_version"] and run["time_utc"].endswith("Z")
    assert "--omfc-query" in run["command"] and run["options"]["--omfc-query"] == ["Collection==['A']"]
    assert {"python", "pytest", "numpy", "pandas", "pillow"} <= set(run["environment"])
    by_name = {Path(i["path"]).name: i for i in run["inputs"]}
    csv = s.case.submission / f"{s.case.submission.name}.csv"
    assert by_name[csv.name]["sha256"] == hashlib.sha256(csv.read_bytes()).hexdigest()
    assert by_name[csv.name]["bytes"] == csv.stat().st_size
    assert {s.case.index.name, s.reference.name} <= set(by_name)
    assert run["inputs_total"] == len(run["inputs"])


def test_metrics_json_shape(omfc):
    doc = make(omfc).json("--omfc-query", "Collection==['A']", "--omfc-query", "IsTarget==['Y']", "--omfc-ci")
    assert list(doc) == ["plugin_version", "edition", "task", "submission", "reference", "options", "results", "run"]
    assert (doc["edition"], doc["task"], doc["submission"]) == ("OpenMFC2020", "IMDL", "p-test_1")
    assert doc["reference"].endswith(REF_REL)
    assert doc["options"] == {
        "far_stop": 0.1,
        "ci": True,
        "ci_level": 0.9,
        "ci_iterations": 500,
        "seed": 77,
        "optout": False,
        "convention": "mediscore",
        "query_kind": "q",
        "queries": ["Collection==['A']", "IsTarget==['Y']"],
        "query_partition": None,
    }
    first, second = doc["results"]
    # "notes" only with a footnote: here AUC@FAR 0 beside CDR@FAR 0.5 (MediScore's convention, a step at FAR 0)
    assert list(first) == ["scorer", "query", "query_kind", "metrics", "counts", "roc", "trials", "notes", "intervals"]
    trials = first["trials"]  # what a later run is compared with, trial by trial (docs/scoring/comparison.md)
    assert list(trials) == ["key", "score", "target"]
    assert len(trials["key"]) == len(trials["score"]) == first["counts"]["scored"]
    assert sum(trials["target"]) == first["counts"]["targets"]
    assert first["scorer"] == "detection" and first["metrics"]["AUC@FAR"] == 0 and first["metrics"]["CDR@FAR"] > 0
    assert first["notes"] == [
        "AUC@FAR 0 beside CDR@FAR 0.5000 is MediScore's convention, not a sign of a poor detector: it adds "
        "trapezoids only up to the last ROC point at or below the FAR stop, and this ROC climbs at FAR 0, a "
        "vertical step with no area; --omfc-convention plan integrates up to the FAR stop"
    ]
    assert (first["query"], first["query_kind"]) == ("Collection==['A']", "q")
    assert first["metrics"]["AUC"] == 0.75 and first["metrics"]["AUC_CI_UPPER"] == 1.0
    assert {"targets": 2, "nontargets": 2}.items() <= first["counts"].items()
    assert list(first["roc"]) == ["fpr", "tpr", "thresholds"] and first["roc"]["fpr"][-1] == 1.0
    assert second["metrics"] is None and "no non-target trials" in second["skipped"]


def test_metrics_json_full_precision_and_null_for_nan(omfc):
    doc = make(omfc, drop=("0005",)).json()  # 3 non-targets: AUC 11/12
    m = doc["results"][0]["metrics"]
    assert m["AUC"] == pytest.approx(11 / 12, abs=1e-15) and m["AUC"] != round(
        m["AUC"], 6
    )  # not rounded like MediScore
    assert m["AUC_CI_LOWER"] is None  # MediScore prints NaN/0 without --ci
    assert doc["options"]["query_kind"] == "all" and doc["results"][0]["query"] is None


def test_junit_properties_xunit1(omfc, tmp_path):
    xml = tmp_path / "junit.xml"
    make(omfc).run("--junitxml", str(xml), "-o", "junit_family=xunit1")
    case = next(tc for tc in ET.parse(xml).iter("testcase") if tc.get("name") == "detection")
    got = {p.get("name"): p.get("value") for p in case.iter("property")}
    assert float(got["AUC"]) == pytest.approx(0.8125) and float(got["EER"]) == 0.25
    assert (got["count.targets"], got["query_kind"], got["SYS_RESPONSE"]) == ("4", "all", "all")


def test_plots_png_and_svg(omfc):
    s = make(omfc)
    plots = s.root / "out" / "plots"
    s.run("--omfc-plots", str(plots), "--omfc-query", "Collection==['A']", "--omfc-query", "Collection==['B']")
    assert sorted(p.name for p in plots.iterdir()) == ["det.png", "det.svg", "roc.png", "roc.svg"]
    with Image.open(plots / "roc.png") as im:
        im.load()
        assert im.format == "PNG" and im.size[0] > 100
    svg = (plots / "roc.svg").read_text(encoding="utf-8")
    assert svg.lstrip().startswith("<") and "</svg>" in svg
    assert "AUC=0.7500" in svg and "T#=2, NT#=2" in svg and "AUC=1.0000" in svg


def test_unwritable_metrics_json_fails_the_run(omfc):
    s = make(omfc)
    omfc.write("out/blocker", "a file where a directory is needed")
    out = s.case.pytester.runpytest(*s.args("--omfc-metrics-json", str(s.root / "out" / "blocker" / "m.json")))
    assert out.ret == pytest.ExitCode.TESTS_FAILED
    out.stdout.fnmatch_lines(["omfc: ERROR --omfc-metrics-json: cannot write */out/blocker/m.json: *"])


def test_readme_quotes_the_convention_table():
    """docs/scoring/conventions.md shows convention_table() verbatim (docgen block), four cells a row (a bare '|'
    would add cells)."""
    table = convention_table()
    assert table in (REPO / "docs" / "scoring" / "conventions.md").read_text(encoding="utf-8")
    assert {len(re.split(r"(?<!\\)\|", line)) for line in table.splitlines()} == {6}


# ---------------------------------------------------------------------------- what scoring needs


def test_failing_sub_pkg_mask_rules_do_not_stop_scoring(omfc):
    """Only the output, index and reference matter: a bad SubID, no description, a missing mask, a missing trial."""
    s = make(omfc, sub_id="bad id", description=None, drop=("0008",))
    rows = psv(
        OUT_HEADER, [[i, sc, "mask/none.png" if i == "0001" else "", "Processed", ""] for i, _, sc, _ in TRIALS[:-1]]
    )
    omfc.write("bad id/bad id.csv", rows)
    res = s.run()
    assert {"SUB-10", "PKG-03", "MASK-03", "IDX-04"} <= set(res.failed()) and res.ret == 1
    assert res.outcome("detection") == "passed", res.text("detection")
    assert_metrics(props(res, "detection"), {"AUC": 0.75})


@pytest.mark.parametrize(
    ("kw", "first_line"),
    [
        pytest.param(
            {"csv_text": "ProbeFileID,ConfidenceScore\n0001,0.9\n"},
            "score::detection skipped: CSV-01 failed: p-test_1/p-test_1.csv is not '|'-separated",
            id="comma",
        ),
        pytest.param(
            {"csv_text": psv(["ProbeFileID", "Score"], [["0001", 0.9]])},
            "score::detection skipped: COL-02 failed: column ConfidenceScore is absent",
            id="no-score-column",
        ),
        pytest.param(
            {"score": {"0005": "high", "0006": "x"}},
            "score::detection skipped: SCORE-01 failed: 2 ConfidenceScore value(s) are not numbers "
            "(first p-test_1/p-test_1.csv:4: 'high')",
            id="non-numeric",
        ),
        pytest.param(
            {"reference": psv(REF_HEADER, [["IMDL", i, f"probe/{i}.jpg", "Y", c] for i, _, _, c in TRIALS])},
            "score::detection skipped: all trials: no non-target trials (targets=8, non-targets=0); "
            "AUC and EER are undefined",
            id="no-nontargets",
        ),
    ],
)
def test_unscorable_submission_is_skipped_with_the_reason(omfc, kw, first_line):
    res = make(omfc, **kw).run()
    assert res.outcome("detection") == "skipped"
    assert res.first_line("detection") == first_line


@pytest.mark.parametrize(
    ("kw", "extra", "first_line"),
    [
        pytest.param(
            {"reference": psv(REF_HEADER, [["IMDL", f"9{i}", f"probe/{i}.jpg", t, c] for i, t, _, c in TRIALS])},
            (),
            "score::detection: reference does not match the index: none of the 8 index rows is in the "
            "reference (joined on ['TaskID', 'ProbeFileID', 'ProbeFileName'])",
            id="reference-vs-index",
        ),
        pytest.param(
            {"reference": psv(["TaskID", "ProbeFileID"], [["IMDL", i] for i, *_ in TRIALS])},
            (),
            "score::detection: reference lacks column(s) ['IsTarget']; it has ['TaskID', 'ProbeFileID']",
            id="reference-columns",
        ),
        # issue 9 (3): a trial listed twice was scored twice, a trial the reference lacks silently dropped
        pytest.param(
            {
                "reference": psv(
                    REF_HEADER, [["IMDL", i, f"probe/{i}.jpg", t, c] for i, t, _, c in TRIALS + TRIALS[2:3]]
                )
            },
            (),
            "score::detection: reference lists 1 trial more than once ('0005'); each trial must have one row",
            id="reference-duplicate",
        ),
        pytest.param(
            {
                "reference": psv(
                    REF_HEADER, [["IMDL", i, f"probe/{i}.jpg", t, c] for i, t, _, c in TRIALS[:5] + TRIALS[6:]]
                )
            },
            (),
            "score::detection: reference lacks 1 of the 8 index trials ('0004'); a reference must cover every "
            "trial of the index",
            id="reference-lacks-a-trial",
        ),
        pytest.param(
            {},
            ("--omfc-query", "Colour==['A']"),
            "score::detection: query \"Colour==['A']\" (q) cannot be evaluated: UndefinedVariableError: "
            "name 'Colour' is not defined; unknown column(s) ['Colour']",
            id="unknown-column",
        ),
        pytest.param(
            {},
            ("--omfc-query", "Collection=="),
            "score::detection: query 'Collection==' (q) cannot be evaluated: SyntaxError: "
            "invalid syntax (<unknown>, line 1)",
            id="does-not-parse",
        ),
        pytest.param(
            {},
            ("--omfc-query-partition", "Collection==[A]"),
            "score::detection: partition query 'Collection==[A]': cannot parse list in 'Collection==[A]'",
            id="partition-does-not-parse",
        ),
    ],
)
def test_bad_scoring_setup_fails_the_item(omfc, kw, extra, first_line):
    res = make(omfc, **kw).run(*extra)
    rid = next(r for r in res.reports if r.startswith("detection"))
    assert res.outcome(rid) == "failed"
    assert res.first_line(rid) == first_line
    assert "Traceback" not in res.text(rid)


def test_one_bad_query_does_not_hide_the_others(omfc):
    res = make(omfc).run(
        "--omfc-query", "Collection==['A']", "--omfc-query", "Colour==['A']", "--omfc-query", "IsTarget==['N']"
    )
    assert res.outcome("detection[q1]") == "passed"
    assert res.outcome("detection[q2]") == "failed"
    assert res.outcome("detection[q3]") == "skipped"
    assert res.first_line("detection[q3]") == (
        "score::detection skipped: q query \"IsTarget==['N']\": no target trials (targets=0, non-targets=4); "
        "AUC and EER are undefined"
    )


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (("--omfc-far-stop", "2"), "--omfc-far-stop: must be a number in [0, 1] (got '2')"),
        (("--omfc-ci-level", "1"), "--omfc-ci-level: must be a number strictly between 0 and 1 (got '1')"),
        (("--omfc-ci-iterations", "0"), "--omfc-ci-iterations: must be an integer from 1 to 10000 (got 0)"),
        (
            ("--omfc-query", "a", "--omfc-query-partition", "b"),
            "--omfc-query and --omfc-query-partition are mutually exclusive (as MediScore's -q, -qm and -qp)",
        ),
    ],
)
def test_bad_options_are_usage_errors(omfc, extra, message):
    s = make(omfc)
    out = s.case.pytester.runpytest(*s.args(*extra))
    assert out.ret == pytest.ExitCode.USAGE_ERROR
    assert f"ERROR: {message}" in out.stderr.str()


def test_outputs_never_go_into_the_submission(omfc):
    s = make(omfc)
    target = s.case.submission / "metrics.json"
    out = s.case.pytester.runpytest(*s.args("--omfc-metrics-json", str(target)))
    assert out.ret == pytest.ExitCode.USAGE_ERROR
    assert f"--omfc-metrics-json: must not point into the submission directory {s.case.submission}" in out.stderr.str()
    assert not target.exists()


def test_missing_reference_is_a_usage_error(omfc):
    s = make(omfc)
    out = s.case.pytester.runpytest(*s.case.args, "--omfc-reference", "reference/nope.csv")
    assert out.ret == pytest.ExitCode.USAGE_ERROR
    assert "--omfc-reference: no such file:" in out.stderr.str()


# ---------------------------------------------------------------------------- MediScore's data
# (docs/scoring/detection.md#checked-against-mediscore)

SAMPLE = "detectionScorerTests/sample"
ME = "D_NC2016_Manipulation_ImgOnly_p-me_{}"
CONFORMANCE_CASES = [
    pytest.param(
        ME.format(1),
        (),
        "detection",
        {"TRR": 1.0, "AUC": 0.333333, "EER": 0.708333, "AUC@FAR": 0.0, "CDR@FAR": 0.25},
        id="c2_1",
    ),
    pytest.param(
        ME.format(1),
        ("--omfc-query-manipulation", "Purpose==['remove']"),
        "detection[qm1]",
        {"TRR": 0.86, "AUC": 0.388889, "EER": 0.666667, "AUC@FAR": 0.0, "CDR@FAR": 0.333333},
        id="c2_12-qm",
    ),
    pytest.param(
        ME.format(3),
        ("--omfc-optout",),
        "detection",
        {"TRR": 0.86, "AUC": 0.388889, "EER": 0.666667, "AUC@FAR": 0.0, "CDR@FAR": 0.333333},
        id="c2_6-optout",
    ),
    pytest.param(
        ME.format(4),
        ("--omfc-optout",),
        "detection",
        {"TRR": 0.57, "AUC": 0.333333, "EER": 0.833333, "AUC@FAR": 0.0, "CDR@FAR": 0.333333},
        id="c2_8-optout-probestatus",
    ),
    pytest.param(
        ME.format(3),
        ("--omfc-query-manipulation", "Operation==['PasteSplice']", "--omfc-ci", "--omfc-ci-level", "0.95"),
        "detection[qm1]",
        {
            "TRR": 0.86,
            "AUC": 0.388889,
            "EER": 0.666667,
            "CDR@FAR": 0.333333,
            "AUC_CI_LOWER": 0.0,
            "AUC_CI_UPPER": 0.625,
            "CDR_CI_LOWER@FAR": 0.0,
            "CDR_CI_UPPER@FAR": 0.5,
        },
        id="c4_4-ci",
    ),
]


@pytest.mark.parametrize(("sub", "extra", "rid", "want"), CONFORMANCE_CASES)
def test_mediscore_sample_numbers(pytester, conformance, tmp_path, sub, extra, rid, want):
    ref_dir = conformance / SAMPLE / "reference"
    xml, js = tmp_path / "junit.xml", tmp_path / "metrics.json"
    rec = pytester.inline_run(
        "-p",
        "no:cacheprovider",
        "--omfc-submission",
        str(conformance / SAMPLE / sub),
        "--omfc-index",
        str(ref_dir / "NC2016-manipulation-index.csv"),
        "--omfc-reference",
        str(ref_dir / "NC2016-manipulation-ref.csv"),
        "--junitxml",
        str(xml),
        "-o",
        "junit_family=xunit1",
        "--omfc-metrics-json",
        str(js),
        *extra,
    )
    reps = [r for r in rec.getreports("pytest_runtest_logreport") if r.when == "call" and r.nodeid.endswith(rid)]
    assert [r.outcome for r in reps] == ["passed"]
    assert_metrics(dict(reps[0].user_properties), want)
    case = next(tc for tc in ET.parse(xml).iter("testcase") if tc.get("name") == rid)
    assert_metrics({p.get("name"): float(p.get("value")) for p in case.iter("property") if p.get("name") in want}, want)
    doc = json.loads(js.read_text(encoding="utf-8"))
    assert (doc["edition"], doc["task"]) == ("NC2016", "manipulation")
    assert_metrics(doc["results"][0]["metrics"], want)


def test_scoring_reasons_are_tamed(omfc):
    """Issue 9 (3): a hostile value quoted in a scoring skip reason is shortened and escaped like rule messages."""
    res = make(omfc, score={"0001": "x" * 300_000 + "\u2028\x1b[31m"}).run()
    rid = next(r for r in res.reports if r.startswith("detection"))
    assert res.outcome(rid) == "skipped"
    text = res.text(rid)
    assert max(len(line) for line in text.splitlines()) <= 1000
    assert "xxxx\\u2028\\x1b[31m') (300017 characters)" in text
    assert "\u2028" not in text and "\x1b" not in text
