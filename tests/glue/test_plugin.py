"""Plugin behaviour: options and ini settings, usage errors, collection, exit codes, item names, failure
texts, JUnit XML, parsing once per process, and never writing into the submission or dataset."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from helpers.columns import IMG_IDX, MFC_IMG, layout_case
from helpers.plugin import COUNTER
from helpers.runs import DEFAULT_DESCRIPTION, RunOutcome, psv, snapshot

IDS = ["0042", "0043", "0044", "0045", "0046"]
INDEX = "dataset/indexes/OpenMFC20_Image-IMDL-index.csv"


def missing_case(omfc: Any, sys_ids: list[str] = IDS[:1]) -> Any:
    """An OpenMFC IMDL case whose system output lacks all but ``sys_ids`` of 5 index trials."""
    return layout_case(
        omfc, trials=[{"ProbeFileID": i} for i in sys_ids], index_trials=[{"ProbeFileID": i} for i in IDS]
    )


def outcomes(rec: pytest.HookRecorder) -> RunOutcome:
    """Rule ID -> (outcome, text) of an inline run, as conftest's Case.run reads them."""
    reports: dict[str, tuple[str, str]] = {}
    props: dict[str, list[tuple[str, Any]]] = {}
    for rep in rec.getreports("pytest_runtest_logreport"):
        if rep.when != "call":
            continue
        rid = rep.nodeid.rsplit("::", 1)[-1]
        text = str(rep.longrepr) if rep.failed else (rep.longrepr[2].removeprefix("Skipped: ") if rep.skipped else "")
        reports[rid] = (rep.outcome, text)
        props[rid] = list(rep.user_properties)
    return RunOutcome(ret=int(rec.ret), reports=reports, props=props)


# ---------------------------------------------------------------------------- options


def test_options_are_ini_settings_and_the_command_line_wins(omfc, pytester):
    missing_case(omfc)
    pytester.makeini(f"[pytest]\nomfc_submission = p-test_1\nomfc_index = {INDEX}\nomfc_max_findings = 1\n")
    res = outcomes(pytester.inline_run("-p", "no:cacheprovider"))
    assert res.first_line("IDX-04") == "IDX-04: 4 of 5 trials are missing from the system output (showing 1)"
    res = outcomes(pytester.inline_run("-p", "no:cacheprovider", "--omfc-max-findings", "2"))
    assert res.first_line("IDX-04") == "IDX-04: 4 of 5 trials are missing from the system output (showing 2)"


USAGE = [
    pytest.param(
        ["--omfc-submission", "nope", "--omfc-index", INDEX],
        "ERROR: --omfc-submission: no such file or directory: {root}/nope",
        id="no-submission",
    ),
    pytest.param(
        ["--omfc-submission", "p-test_1", "--omfc-index", "dataset/indexes/nope-IMDL-index.csv"],
        "ERROR: --omfc-index: no such file: {root}/dataset/indexes/nope-IMDL-index.csv",
        id="no-index",
    ),
    pytest.param(
        ["--omfc-submission", "p-test_1", "--omfc-dataset", "nowhere"],
        "ERROR: --omfc-dataset: no such directory: {root}/nowhere",
        id="no-dataset",
    ),
    pytest.param(
        ["--omfc-submission", "p-test_1"],
        "ERROR: --omfc-index: give the task index file (or --omfc-dataset ROOT with --omfc-task)",
        id="neither",
    ),
    pytest.param(
        ["--omfc-submission", "p-test_1", "--omfc-index", "plain.csv"],
        "ERROR: --omfc-edition: cannot infer the edition from plain.csv; add --omfc-edition NAME",
        id="no-edition",
    ),
    pytest.param(
        ["--omfc-submission", "p-test_1", "--omfc-index", "notask.csv", "--omfc-edition", "OpenMFC2020"],
        "ERROR: --omfc-task: cannot infer the task from notask.csv; add --omfc-task TASKID",
        id="no-task",
    ),
    pytest.param(
        ["--omfc-submission", "p-test_1", "--omfc-index", INDEX, "--omfc-task", "splice"],
        "ERROR: --omfc-task: task SPL is not offered in OpenMFC2020",
        id="task-not-offered",
    ),
    pytest.param(
        ["--omfc-submission", "p-test_1", "--omfc-index", INDEX, "--omfc-max-findings", "many"],
        "ERROR: --omfc-max-findings: must be an integer from -1 to 1000 (got 'many')",
        id="bad-number",
    ),
]


@pytest.mark.parametrize(("args", "line"), USAGE)
def test_usage_error_names_the_flag(omfc, pytester, args, line):
    """A bad command line stops the run with exit code 4 and one line naming the flag to fix."""
    layout_case(omfc)
    pytester.path.joinpath("plain.csv").write_text(psv(IMG_IDX, [["IMDL", "0042", "p.jpg", 1, 1]]))
    pytester.path.joinpath("notask.csv").write_text(psv(IMG_IDX[1:], [["0042", "p.jpg", 1, 1]]))
    result = pytester.runpytest(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert [ln for ln in result.errlines if ln] == [line.format(root=pytester.path)]


def test_task_from_the_taskid_column(omfc, pytester):
    """An index named otherwise gives its task through its TaskID column (here with a BOM and quotes)."""
    layout_case(omfc)
    rows = [['"IMDL"', i, f"probe/{i}.jpg", 640, 480] for i in ("0042", "0043", "0044")]
    pytester.path.joinpath("myindex.csv").write_text("\ufeff" + psv([f'"{h}"' for h in IMG_IDX], rows))
    result = pytester.runpytest(
        "--omfc-submission",
        "p-test_1",
        "--omfc-index",
        "myindex.csv",
        "--omfc-edition",
        "openmfc2020",
        "-p",
        "no:cacheprovider",
    )
    assert "omfc: submission p-test_1 (OpenMFC2020, task IMG)" in result.outlines
    assert result.ret == 0, result.stdout.str()


def test_dataset_and_task_locate_the_index(omfc, pytester):
    """--omfc-dataset ROOT --omfc-task IMDL finds indexes/*-IMDL-index.csv; task names are case-insensitive."""
    layout_case(omfc)
    omfc.write("dataset/indexes/OpenMFC20_Video-VMD-index.csv", psv(IMG_IDX, [["VMD", "v1", "v.mp4", 1, 1]]))
    result = pytester.runpytest(
        "--omfc-submission", "p-test_1", "--omfc-dataset", "dataset", "--omfc-task", "imdl", "-p", "no:cacheprovider"
    )
    assert f"omfc: index {pytester.path / INDEX}" in result.outlines
    assert result.ret == 0, result.stdout.str()
    result = pytester.runpytest("--omfc-submission", "p-test_1", "--omfc-dataset", "dataset")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.errlines[0] == (
        f"ERROR: --omfc-dataset: 2 index files match in {pytester.path / 'dataset/indexes'} "
        "(OpenMFC20_Image-IMDL-index.csv, OpenMFC20_Video-VMD-index.csv); add --omfc-task TASKID"
    )


# ---------------------------------------------------------------------------- collection, exit codes, names


def test_collects_only_the_submission_without_positional_paths(omfc, pytester):
    case = layout_case(omfc)
    pytester.makepyfile(test_other="def test_other():\n    pass\n")
    rec = pytester.inline_run(*case.args, "-p", "no:cacheprovider")
    names = [rep.nodeid for rep in rec.getreports("pytest_runtest_logreport") if rep.when == "call"]
    assert names and all("::p-test_1::" in n for n in names)
    assert rec.ret == 0
    rec = pytester.inline_run("test_other.py", *case.args, "-p", "no:cacheprovider")
    names = [rep.nodeid for rep in rec.getreports("pytest_runtest_logreport") if rep.when == "call"]
    assert "test_other.py::test_other" in names
    assert "p-test_1::p-test_1::IDX-06" in names


def test_warnings_never_fail_the_run(omfc, pytester):
    """Quoted values: CSV-04 is a warning; it is listed after the run, and the exit code stays 0."""
    case = layout_case(omfc)
    text = case.submission.joinpath("p-test_1.csv").read_text()
    case.submission.joinpath("p-test_1.csv").write_text(text.replace("|Processed|", '|"Processed"|'))
    result = pytester.runpytest(*case.args, "-p", "no:cacheprovider")
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        [
            "*= omfc warnings (they do not fail the run) =*",
            "CSV-04: 3 lines have quoted fields (MediScore strips standard quoting) (showing 3)",
        ]
    )


def test_item_names_hold_the_submission_and_the_rule(omfc, pytester, tmp_path_factory):
    """Also for a submission outside the rootdir."""
    case = layout_case(omfc, sub_id="p-baseline_3_imdl")
    rec = pytester.inline_run(*case.args, "-p", "no:cacheprovider", "--collect-only")
    items = [i.nodeid for i in rec.getcalls("pytest_collection_finish")[0].session.items]
    assert "p-baseline_3_imdl::p-baseline_3_imdl::IDX-06" in items

    elsewhere = tmp_path_factory.mktemp("elsewhere")
    sub = elsewhere / "p-baseline_3_imdl"
    sub.mkdir()
    sub.joinpath("p-baseline_3_imdl.csv").write_text(case.submission.joinpath("p-baseline_3_imdl.csv").read_text())
    sub.joinpath("p-baseline_3_imdl.txt").write_text(DEFAULT_DESCRIPTION.format(sub_id="p-baseline_3_imdl"))
    rec = pytester.inline_run(
        "--omfc-submission",
        str(sub),
        "--omfc-index",
        str(case.index),
        "-p",
        "no:cacheprovider",
        "--rootdir",
        str(pytester.path),
    )
    assert rec.getcalls("pytest_collection_finish")[0].session.config.rootpath == pytester.path
    calls = [rep for rep in rec.getreports("pytest_runtest_logreport") if rep.when == "call"]
    idx06 = [rep for rep in calls if rep.nodeid.endswith("p-baseline_3_imdl::IDX-06")]
    assert len(idx06) == 1 and idx06[0].passed
    assert not pytester.path.joinpath("p-baseline_3_imdl").samefile(sub)
    assert rec.ret == 0


# ---------------------------------------------------------------------------- failure texts

MISSING_ROWS = [
    f"  OpenMFC20_Image-IMDL-index.csv:{n} [{i}]: the index trial must appear in the system output (it does not)"
    for n, i in zip(range(3, 7), IDS[1:], strict=False)
]


@pytest.mark.parametrize(
    ("limit", "expected"),
    [
        (
            "2",
            [
                "IDX-06: 4 of 5 trials are missing from the system output (showing 2)",
                *MISSING_ROWS[:2],
                "  ... and 2 more (4 in all)",
            ],
        ),
        ("-1", ["IDX-06: 4 of 5 trials are missing from the system output (showing 4)", *MISSING_ROWS]),
    ],
    ids=["2", "all"],
)
def test_failure_text_and_truncation(omfc, limit, expected):
    """Headline (rule, count, total), then file:line [key] per finding, then how many more."""
    res = missing_case(omfc).run("--omfc-max-findings", limit)
    assert res.text("IDX-06").splitlines() == expected


def test_a_rule_that_cannot_run_is_skipped_naming_the_cause(omfc):
    case = layout_case(omfc)
    case.submission.joinpath("p-test_1.csv").write_text(psv([",".join(MFC_IMG)], [["0042,0.5,,Processed,"]]))
    res = case.run()
    assert res.outcome("IDX-06") == "skipped"
    assert res.text("IDX-06") == "IDX-06 skipped: CSV-01 failed: p-test_1/p-test_1.csv is not '|'-separated"
    assert ("omfc.skipped", "CSV-01 failed: p-test_1/p-test_1.csv is not '|'-separated") in res.props["IDX-06"]
    assert res.ret == 1


# ---------------------------------------------------------------------------- JUnit XML


def junit(path: Path) -> dict[str, ET.Element]:
    """Test case name (the rule ID) -> <testcase>."""
    return {tc.get("name", ""): tc for tc in ET.parse(path).getroot().iter("testcase")}


@pytest.mark.parametrize("family", ["xunit1", "xunit2"])
def test_junit_has_one_testcase_per_rule_with_message_and_warnings(omfc, pytester, family):
    """The failure ``message`` is the first line; warnings are ``omfc.warning`` properties.

    pytest (8 and later) writes a testcase's ``<properties>`` in both families, so
    warnings reach xunit2 reports too; the default family is kept.
    """
    case = missing_case(omfc, IDS[:1] + IDS[:1])  # a duplicate key and 4 missing trials
    text = case.submission.joinpath("p-test_1.csv").read_text()
    case.submission.joinpath("p-test_1.csv").write_text(text.replace("|Processed|", '|"Processed"|'))
    xml = pytester.path / "out.xml"
    rec = pytester.inline_run(*case.args, "-p", "no:cacheprovider", f"--junitxml={xml}", "-o", f"junit_family={family}")
    ran = [rep for rep in rec.getreports("pytest_runtest_logreport") if rep.when == "call"]
    cases = junit(xml)
    rules = [tc for name, tc in cases.items() if name[:3] in ("CSV", "COL", "IDX")]
    assert len(cases) == len(ran) and len(rules) >= 17
    failure = cases["IDX-06"].find("failure")
    assert failure is not None
    assert failure.get("message") == (
        "IDX-06: the system output does not match the index one-to-one: 4 of 5 trials are "
        "missing from the system output; 1 trial key is repeated (showing 5)"
    )
    assert failure.text is not None and MISSING_ROWS[0] in failure.text
    props = {p.get("name"): p.get("value") for p in cases["CSV-04"].iter("property")}
    assert props["omfc.rule"] == "CSV-04"
    assert (
        props["omfc.warning"].splitlines()[0]
        == "CSV-04: 2 lines have quoted fields (MediScore strips standard quoting) (showing 2)"
    )
    assert cases["CSV-04"].find("failure") is None


# ---------------------------------------------------------------------------- once per process, nothing written


def test_parsed_once_per_process_and_never_at_collection(omfc, pytester):
    """read_psv runs once for the system output and once for the index, however many items use them."""
    case = missing_case(omfc)
    pytester.makeconftest(COUNTER)
    rec = pytester.inline_run(*case.args, "-p", "no:cacheprovider", "--collect-only")
    assert json.loads(pytester.path.joinpath("calls-main.json").read_text()) == []
    assert len(rec.getcalls("pytest_collection_finish")[0].session.items) >= 17
    rec = pytester.inline_run(*case.args, "-p", "no:cacheprovider")
    assert len([r for r in rec.getreports("pytest_runtest_logreport") if r.when == "call"]) >= 17
    assert sorted(json.loads(pytester.path.joinpath("calls-main.json").read_text())) == [
        "OpenMFC20_Image-IMDL-index.csv",
        "p-test_1.csv",
    ]


def test_nothing_is_written_into_the_submission_or_dataset(omfc, pytester, monkeypatch):
    """Runs with pytest's cache on: from the project, and from inside the submission as rootdir (refused: exit 4)."""
    case = missing_case(omfc)
    dataset = pytester.path / "dataset"
    before = snapshot(case.submission, dataset)
    pytester.inline_run(*case.args, f"--junitxml={pytester.path / 'a.xml'}")
    assert snapshot(case.submission, dataset) == before
    assert pytester.path.joinpath(".pytest_cache").is_dir()  # the cache still works where it belongs

    monkeypatch.chdir(case.submission)
    rec = pytester.inline_run(
        "--omfc-submission", ".", "--omfc-index", str(case.index), "--rootdir", ".", "-p", "no:benchmark"
    )  # pytest-benchmark (not ours) makes ./.benchmarks
    assert rec.ret == pytest.ExitCode.USAGE_ERROR  # a rootdir inside the submission (tests/hostile/test_security.py)
    assert snapshot(case.submission, dataset) == before


def test_a_conftest_in_the_submission_is_not_imported(omfc, pytester):
    """A participant's conftest.py inside the submission must not run (nor write __pycache__ there)."""
    case = layout_case(omfc)
    marker = pytester.path / "conftest-ran"
    case.submission.joinpath("conftest.py").write_text(
        f"from pathlib import Path\nPath({str(marker)!r}).write_text('x')\n"
    )
    res = case.run()
    assert not marker.exists()
    assert res.outcome("IDX-06") == "passed"


@pytest.mark.parametrize("what", ["pytest.ini", "conftest.py"])
def test_a_config_beside_an_uploaded_archive_is_refused(pytester, what):
    """An upload given on the command line: an ini or conftest.py beside it is the uploader's, never run."""
    import shutil
    import tarfile

    from helpers.examples import EXAMPLES

    uploads = pytester.mkdir("uploads")
    with tarfile.open(uploads / "p-baseline_3_imdl.tar", "w") as tf:
        tf.add(EXAMPLES / "submissions/imdl/p-baseline_3_imdl", arcname="p-baseline_3_imdl")
    shutil.copytree(EXAMPLES / "datasets/OpenMFC2020/indexes", pytester.path / "data" / "indexes")
    marker = pytester.path / "ran"
    code = f"from pathlib import Path\nPath({str(marker)!r}).write_text('x')\n"
    (uploads / what).write_text("[pytest]\naddopts = -p no:cacheprovider\n" if what == "pytest.ini" else code)
    os.chdir(uploads)  # a portal run in the uploads folder: pytest finds the ini there, or the conftest.py
    res = pytester.runpytest_subprocess(
        "--omfc-submission", "p-baseline_3_imdl.tar", "--omfc-index", "../data/indexes/OpenMFC20_Image-IMDL-index.csv"
    )
    assert res.ret == pytest.ExitCode.USAGE_ERROR, res.stdout.str() + res.stderr.str()
    assert f"lies inside the upload directory {uploads}" in res.stderr.str()
    assert not marker.exists()
