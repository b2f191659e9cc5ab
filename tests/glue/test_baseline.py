"""``--omfc-baseline``: a run compared with an earlier run's metrics JSON, trial by trial (docs/scoring/comparison.md):
per metric the baseline, the value, the paired difference, its interval, the p-value, the test and the number
of trials paired, under ``comparison`` beside ``metrics``; a run compared with itself differs by nothing; a
baseline that cannot be compared is a usage error naming the file and what is wrong."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers.detection import TRIALS, make

from pytest_omfc.comparison import COMPARISON_KEYS


def _baseline(omfc: Any, **kw: Any) -> tuple[Any, Path]:
    s = make(omfc, **kw)
    s.json()
    base = s.root / "baseline.json"
    shutil.copy(s.root / "out" / "metrics.json", base)
    return s, base


def test_a_run_compared_with_itself_differs_by_nothing(omfc: Any) -> None:
    s, base = _baseline(omfc)
    doc = s.json("--omfc-baseline", str(base))
    (entry,) = doc["results"]
    assert doc["baseline"] == str(base)
    assert list(entry["comparison"]) == ["AUC", "EER", "AUC@FAR", "CDR@FAR"]
    for name, c in entry["comparison"].items():
        assert tuple(c) == COMPARISON_KEYS, name
        assert (c["difference"], c["p_value"], c["trials"]) == (0.0, 1.0, len(TRIALS)), name
        assert c["baseline"] == c["value"] == entry["metrics"][name]
    assert entry["comparison"]["AUC"]["test"] == "delong"
    assert entry["compared_trials"]["trials"] == len(TRIALS) and entry["compared_trials"]["run_only"] == 0


def test_a_changed_run_reports_the_paired_difference(omfc: Any) -> None:
    s, base = _baseline(omfc)
    s = make(omfc, score={"0005": "0.95", "0001": "0.1"}, drop=("0008",))  # a worse ranking, one trial missing
    doc = s.json("--omfc-baseline", str(base), "--omfc-ci-level", "0.95", "--omfc-ci-iterations", "300")
    (entry,) = doc["results"]
    auc = entry["comparison"]["AUC"]
    assert auc["baseline"] == 0.8125 and auc["value"] == entry["metrics"]["AUC"]
    assert auc["trials"] == len(TRIALS) - 1 and auc["difference"] < 0 and auc["ci_low"] < auc["difference"]
    trials = entry["compared_trials"]
    assert (trials["baseline_only"], trials["baseline_only_first"], trials["draws"], trials["level"]) == (
        1,
        ["0008"],
        300,
        0.95,
    )


def test_the_terminal_shows_the_comparison_table(omfc: Any, pytester: pytest.Pytester) -> None:
    s, base = _baseline(omfc)
    res = pytester.runpytest(*s.args("--omfc-baseline", str(base)))
    res.stdout.fnmatch_lines(
        [
            "omfc detection compared with the baseline*",
            "*metric*baseline*value*diff*interval*p*test*n*",
            "*all*AUC*0.8125*0.8125*+0.0000*[+0.0000, +0.0000]*1.0000*DeLong*8*",
            "omfc: diff = this run - baseline.json, on the n trials both scored; 90% intervals*",
        ]
    )


def _bad(root: Path, kind: str, base: Path) -> Path:
    out = root / f"bad-{kind}.json"
    doc = json.loads(base.read_text(encoding="utf-8"))
    if kind == "reference":
        doc["run"]["inputs"] = [dict(i, sha256="0" * 64) for i in doc["run"]["inputs"]]
    elif kind == "edition":
        doc["edition"] = "MFC2019"
    elif kind == "not-json":
        out.write_text("{not json", encoding="utf-8")
        return out
    elif kind == "nan":
        out.write_text(base.read_text(encoding="utf-8").replace('"AUC": 0.8125', '"AUC": NaN', 1), encoding="utf-8")
        return out
    elif kind == "array":
        doc = [doc]
    elif kind == "findings":
        doc = {"schema": "pytest-omfc-findings/1", "rules": []}
    out.write_text(json.dumps(doc), encoding="utf-8")
    return out


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        ("reference", "was scored against another reference (SHA-256 000000000000..."),
        ("edition", "is of edition 'MFC2019'"),
        ("not-json", "must be"),
        ("nan", "NaN"),
        ("array", "must be a metrics JSON object (got a JSON list)"),
        ("findings", "must be the metrics JSON of a scored run, with 'results' (got no such key)"),
        ("missing", "no such file"),
    ],
)
def test_a_baseline_that_cannot_be_compared_is_a_usage_error(
    omfc: Any, pytester: pytest.Pytester, kind: str, message: str
) -> None:
    s, base = _baseline(omfc)
    bad = s.root / "nowhere.json" if kind == "missing" else _bad(s.root, kind, base)
    res = pytester.runpytest(*s.args("--omfc-baseline", str(bad)))
    assert res.ret == pytest.ExitCode.USAGE_ERROR, res.stdout.lines[-5:]
    err = "\n".join(res.stderr.lines)
    assert "ERROR: --omfc-baseline: " in err and message in err, err
    assert "Traceback" not in err


@pytest.mark.parametrize("damage", ["strings", "lengths", "no-trials"])
def test_damaged_per_trial_data_is_not_compared_and_says_why(omfc: Any, damage: str) -> None:
    s, base = _baseline(omfc)
    doc = json.loads(base.read_text(encoding="utf-8"))
    trials = doc["results"][0]["trials"]
    if damage == "strings":
        trials["score"] = ["high"] * len(trials["score"])
    elif damage == "lengths":
        trials["score"] = trials["score"][:3]
    else:
        del doc["results"][0]["trials"]
    base.write_text(json.dumps(doc), encoding="utf-8")
    got = s.json("--omfc-baseline", str(base))
    (entry,) = got["results"]
    assert entry["comparison"] is None and entry["comparison_skipped"].startswith("the baseline's"), entry


def test_omfc_compare_returns_what_the_run_wrote(omfc: Any) -> None:
    """The API compares two metrics JSONs as ``--omfc-baseline`` does: the same numbers at the same level, draws
    and seed; a file that is no metrics JSON is a ValueError naming it."""
    from pytest_omfc import omfc_compare

    s, base = _baseline(omfc)
    s = make(omfc, score={"0005": "0.95"})
    doc = s.json("--omfc-baseline", str(base), "--omfc-ci-level", "0.8", "--omfc-ci-iterations", "200")
    got = omfc_compare(base, s.root / "out" / "metrics.json", level=0.8, draws=200, seed=77)
    (result,) = got["results"]
    (entry,) = doc["results"]
    assert (result["scorer"], result["query"], result["comparison"]) == ("detection", None, entry["comparison"])
    assert result["compared_trials"] == entry["compared_trials"]
    with pytest.raises(ValueError, match=r"^baseline: .*nowhere.json: must name an existing JSON file"):
        omfc_compare(s.root / "nowhere.json", base)


# ---------------------------------------------------------------------------- gates on differences


def test_gates_on_a_run_compared_with_itself_pass(omfc: Any) -> None:
    s, base = _baseline(omfc)
    gates = ["AUC>=baseline", "detection:AUC not worse", "EER<=baseline+0.0", "EER not worse", "AUC>=baseline-0.01"]
    res = s.run("--omfc-baseline", str(base), *[a for g in gates for a in ("--omfc-require", g)])
    assert {g: res.outcome(g) for g in gates} == dict.fromkeys(gates, "passed")


def test_gates_on_differences_fail_as_stated(omfc: Any) -> None:
    """A reversed ranking: the AUC drops from 0.8125 far below the allowance, significantly (DeLong); the EER
    rises from 0.25 to 0.75 (less is better: above the baseline), but on 8 trials the bootstrap's interval of
    the difference holds 0, so "not worse" (a test, not a comparison of two numbers) passes."""
    s, base = _baseline(omfc)
    reversed_scores = {i: str(round(1 - sc, 2)) for i, _, sc, _ in TRIALS}
    s = make(omfc, score=reversed_scores)
    res = s.run(
        "--omfc-baseline", str(base), "--omfc-require", "AUC>=baseline-0.01", "--omfc-require", "AUC not worse",
        "--omfc-require", "EER not worse", "--omfc-require", "AUC<=baseline", "--omfc-require", "EER<=baseline",
    )  # fmt: skip
    drop = res.first_line("AUC>=baseline-0.01")
    assert drop.startswith("AUC must be >= baseline-0.01 = 0.8025 (value 0.1875, baseline 0.8125, difference -0.625, ")
    assert "90% interval [" in drop and ", p " in drop and "(delong, 8 trials), detection, query all" in drop
    worse = res.first_line("AUC not worse")
    assert worse.startswith("AUC is worse than the baseline (value 0.1875, baseline 0.8125, difference -0.625")
    assert res.outcome("EER not worse") == "passed" and res.outcome("AUC<=baseline") == "passed"
    assert res.first_line("EER<=baseline").startswith("EER must be <= baseline = 0.25 (value 0.75, baseline 0.25")


def test_a_gate_on_a_difference_needs_a_baseline(omfc: Any, pytester: pytest.Pytester) -> None:
    s = make(omfc)
    res = pytester.runpytest(*s.args("--omfc-require", "AUC not worse"))
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    res.stderr.fnmatch_lines(
        ["ERROR: --omfc-require: 'AUC not worse' compares with a baseline: give --omfc-baseline PATH"]
    )


# ---------------------------------------------------------------------------- the compared HTML report

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def test_the_html_report_shows_the_comparison_and_both_runs_curves(omfc: Any) -> None:
    s, base = _baseline(omfc)
    s = make(omfc, score={"0005": "0.95"})
    page = s.root / "out" / "report.html"
    s.run("--omfc-baseline", str(base), "--omfc-ci", "--omfc-html", str(page))
    text = page.read_text(encoding="utf-8")
    assert "<h3>detection intervals" in text and "<h3>detection compared with baseline.json" in text
    assert "ROC compared with the baseline" in text and "DET compared with the baseline" in text
    assert "baseline baseline.json" in text and "this run p-test_1" in text  # the two curves' legends
    if CHROMIUM is None:
        pytest.skip("headless Chromium not found: apt-get install chromium (the page's text was checked)")
    import subprocess

    run = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
         f"--user-data-dir={s.root / 'profile'}", "--enable-logging=stderr", "--v=0", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert run.returncode == 0 and "compared with baseline.json" in run.stdout, run.stderr[-2000:]
    assert "CONSOLE" not in run.stderr and "Uncaught" not in run.stderr


def test_a_baseline_of_other_trials_pairs_nothing_and_says_so(omfc: Any) -> None:
    """200,000 trials the run does not have (a 6 MB baseline): nothing is paired, every metric says why, the run
    passes; the trials only the baseline scored are counted and the first ten named."""
    s, base = _baseline(omfc)
    doc = json.loads(base.read_text(encoding="utf-8"))
    n = 200_000
    doc["results"][0]["trials"] = {
        "key": [f"X{i}" for i in range(n)],
        "score": [0.5] * n,
        "target": [i % 2 == 0 for i in range(n)],
    }
    base.write_text(json.dumps(doc), encoding="utf-8")
    got = s.json("--omfc-baseline", str(base))
    (entry,) = got["results"]
    assert entry["compared_trials"]["trials"] == 0 and entry["compared_trials"]["baseline_only"] == n
    assert entry["compared_trials"]["baseline_only_first"] == [f"X{i}" for i in range(10)]
    assert {c["skipped"] for c in entry["comparison"].values()} == {"the paired trials lack targets or non-targets"}
    assert all(c["difference"] is None for c in entry["comparison"].values())


def test_a_baseline_past_the_size_limit_is_refused_unread(
    omfc: Any, pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pytest_omfc import comparison

    s, base = _baseline(omfc)
    monkeypatch.setattr(comparison, "MAX_BASELINE_BYTES", 1000)
    res = pytester.runpytest(*s.args("--omfc-baseline", str(base)))
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    res.stderr.fnmatch_lines(["ERROR: --omfc-baseline: *: must be a baseline metrics JSON of at most 0.0 MB (got *"])


# ---------------------------------------------------------------------------- two submissions in one run


def test_a_submission_as_baseline_is_scored_in_the_same_run(omfc: Any) -> None:
    """``--omfc-baseline`` naming a submission folder (or its upload): the second system is scored in this run
    against the same reference, with the same options, and compared as a metrics JSON would be; the gates
    and the document name it."""
    first = make(omfc)
    base = first.root / "baseline" / first.case.submission.name
    shutil.copytree(first.case.submission, base)
    s = make(omfc, score={i: str(round(1 - sc, 2)) for i, _, sc, _ in TRIALS})  # a reversed ranking
    doc = s.json("--omfc-baseline", str(base), "--omfc-require", "AUC not worse")
    (entry,) = doc["results"]
    auc = entry["comparison"]["AUC"]
    assert (auc["baseline"], auc["value"], auc["trials"]) == (0.8125, 0.1875, len(TRIALS))
    assert auc["difference"] == pytest.approx(-0.625) and doc["baseline"] == str(base)
    res = s.run("--omfc-baseline", str(base), "--omfc-require", "AUC not worse")
    assert res.first_line("AUC not worse").startswith("AUC is worse than the baseline (value 0.1875, baseline 0.8125")


def test_a_baseline_submission_that_scores_nothing_is_not_compared_and_says_so(
    omfc: Any, pytester: pytest.Pytester
) -> None:
    s = make(omfc)
    empty = s.root / "nothing-here"
    empty.mkdir()
    res = pytester.runpytest(*s.args("--omfc-baseline", str(empty)))
    assert res.ret == 0  # the run's own verdict; the comparison says why there is none
    res.stdout.fnmatch_lines(["  all not compared: the baseline has no such result"])
    assert "Traceback" not in "\n".join(res.stderr.lines + res.stdout.lines)


def test_trial_keys_from_the_baseline_are_shown_escaped(omfc: Any, pytester: pytest.Pytester) -> None:
    """A trial key of the baseline file that only it scored is named in the notes, with its control and bidi
    characters escaped (it must not rewrite the terminal)."""
    s, base = _baseline(omfc)
    doc = json.loads(base.read_text(encoding="utf-8"))
    trials = doc["results"][0]["trials"]
    trials["key"][0] = "X\x1b[2J\u202e"
    base.write_text(json.dumps(doc), encoding="utf-8")
    res = pytester.runpytest(*s.args("--omfc-baseline", str(base)))
    out = "\n".join(res.stdout.lines)
    assert "trial(s) scored by the baseline only, not paired (first: X\\x1b[2J\\u202e)" in out
    assert "\x1b[2J" not in out
