"""NC2017 packages: ``<TEAM>_<YEAR>_<DATA>_<SUBNUM>/`` holding several EXPID folders (NC17 A-b, A-c; PKG-10).

The package is the plan's own example (``NIST_NC17_DRYRUN17_5``, written by ``examples/make_examples.py``),
checked as a folder and as the ``.tgz`` the plan's command makes (GNU tar), with real-world breakage: one
EXPID failing, entries that are not EXPIDs, an index of one task only, an EXPID uploaded without its package.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from helpers.paths import EXAMPLES, REPO
from helpers.runs import run_capped

PKG = "NIST_NC17_DRYRUN17_5"
MANIP = "NIST_NC17_DRYRUN17_Manipulation_ImgOnly_p-baseline_3"
SPLICE = "NIST_NC17_DRYRUN17_Splice_ImgOnly_p-baseline_3"


@pytest.fixture
def here(pytester: pytest.Pytester) -> Path:
    """A copy of the example package and the NC2017 example dataset in the test's directory."""
    shutil.copytree(EXAMPLES / "submissions" / "nc2017" / PKG, pytester.path / PKG)
    shutil.copytree(EXAMPLES / "datasets" / "NC2017", pytester.path / "NC2017")
    return pytester.path


def _outcomes(rec: pytest.HookRecorder) -> dict[str, str]:
    """nodeid -> outcome of every item (its call phase, or the setup that failed)."""
    out: dict[str, str] = {}
    for rep in rec.getreports("pytest_runtest_logreport"):
        if rep.when == "call" or (rep.when == "setup" and not rep.passed):
            out[rep.nodeid] = rep.outcome
    return out


def _failure(rec: pytest.HookRecorder, nodeid: str) -> str:
    return str(next(r.longrepr for r in rec.getreports("pytest_runtest_logreport") if r.nodeid == nodeid and r.failed))


def _run(pytester: pytest.Pytester, target: str, *extra: str) -> tuple[int, dict[str, str]]:
    rec = pytester.inline_run("--omfc-submission", target, "--omfc-dataset", "NC2017", "-p", "no:cacheprovider", *extra)
    return int(rec.ret), _outcomes(rec)


def _rules_of(outcomes: dict[str, str], prefix: str) -> dict[str, str]:
    return {nodeid.rsplit("::", 1)[-1]: o for nodeid, o in outcomes.items() if nodeid.startswith(prefix + "::")}


def _verdicts(rules: dict[str, str]) -> dict[str, set[str]]:
    """Each rule's outcomes, its slices (``MASK-04[1/2]``) taken together."""
    out: dict[str, set[str]] = {}
    for name, outcome in rules.items():
        out.setdefault(name.split("[", 1)[0], set()).add(outcome)
    return out


def test_the_plans_package_checks_each_expid_as_it_checks_alone(pytester: pytest.Pytester, here: Path) -> None:
    ret, outcomes = _run(pytester, PKG)
    assert ret == 0, outcomes
    assert outcomes[f"{PKG}::PKG-10"] == "passed"
    for expid in (MANIP, SPLICE):
        packaged = _rules_of(outcomes, f"{PKG}/{expid}")
        assert "IDX-02" in packaged and "SUB-05" in packaged and "PKG-07" in packaged
        ret_alone, alone = _run(pytester, f"{PKG}/{expid}")  # its task from its name (SUB-05's <TASK> field)
        assert ret_alone == 0
        # the same rules, the same verdicts (the package shares --omfc-slices among its EXPIDs: 2 each here)
        assert _verdicts(_rules_of(alone, f"{PKG}/{expid}::{expid}")) == _verdicts(packaged)
        assert "MASK-04[1/4]" in _rules_of(alone, f"{PKG}/{expid}::{expid}") and "MASK-04[1/2]" in packaged


def test_a_package_shares_the_slices_among_its_expids(pytester: pytest.Pytester, here: Path) -> None:
    """--omfc-slices N spreads a file-heavy rule over N items; in a package the N are shared among the EXPIDs (at
    least one each): a package of 1,000 small EXPIDs carried 6,000 slice items that checked nothing."""
    for slices, want in (("8", "MASK-04[1/4]"), ("4", "MASK-04[1/2]"), ("3", "MASK-04[1/1]")):
        _, outcomes = _run(pytester, PKG, "--omfc-slices", slices)
        assert want in _rules_of(outcomes, f"{PKG}/{MANIP}"), (slices, sorted(outcomes))
    assert not any("ARC-" in n for n in outcomes)  # a folder is no upload


def test_one_failing_expid_fails_the_run_and_only_its_items(pytester: pytest.Pytester, here: Path) -> None:
    csv = here / PKG / SPLICE / f"{SPLICE}.csv"
    csv.write_text("".join(csv.read_text().splitlines(keepends=True)[:-1]))  # the last trial is missing
    result = pytester.runpytest("--omfc-submission", PKG, "--omfc-dataset", "NC2017", "-p", "no:cacheprovider")
    assert result.ret == 1
    failed = [line.split()[1] for line in result.outlines if line.startswith("FAILED ")]
    assert failed and all(f.startswith(f"{PKG}/{SPLICE}::") for f in failed), failed
    assert {f.rsplit("::", 1)[-1] for f in failed} >= {"IDX-02", "IDX-04"}
    summary = result.outlines[result.outlines.index(next(x for x in result.outlines if "verdict of each EXPID" in x)) :]
    assert f"{MANIP}: passed" in summary
    assert any(x.startswith(f"{SPLICE}: ") and "IDX-04" in x and "failed" in x for x in summary), summary


def test_junit_gives_each_expid_its_classname(pytester: pytest.Pytester, here: Path) -> None:
    xml = here / "junit.xml"
    _run(pytester, PKG, f"--junitxml={xml}")
    classes = {case.get("classname") for case in ET.parse(xml).iter("testcase")}
    assert classes == {PKG, f"{PKG}.{MANIP}", f"{PKG}.{SPLICE}"}
    props = {
        (case.get("classname"), p.get("name"), p.get("value"))
        for case in ET.parse(xml).iter("testcase")
        for p in case.iter("property")
    }
    assert (f"{PKG}.{MANIP}", "omfc.expid", MANIP) in props


def test_pkg10_names_every_entry_that_is_not_an_expid(pytester: pytest.Pytester, here: Path) -> None:
    pkg = here / PKG
    (pkg / "notes.txt").write_text("draft")
    (pkg / ".DS_Store").write_bytes(b"\0")
    (pkg / "old").mkdir()
    bad = "NIST_NC17_DRYRUN17_Forgery_ImgOnly_p-x_1"  # no such <TASK>
    (pkg / bad).mkdir()
    (pkg / bad / f"{bad}.csv").write_text("ProbeFileID|ConfidenceScore\n")
    other = "ACME_NC17_DRYRUN17_Splice_ImgOnly_p-other_1"  # another team's <TEAM>
    shutil.copytree(pkg / SPLICE, pkg / other)
    (pkg / other / f"{SPLICE}.csv").rename(pkg / other / f"{other}.csv")
    (pkg / other / f"{SPLICE}.txt").rename(pkg / other / f"{other}.txt")
    result = pytester.runpytest("--omfc-submission", PKG, "--omfc-dataset", "NC2017", "-p", "no:cacheprovider", "-rA")
    text = "\n".join(result.outlines)
    assert result.ret == 1
    assert f"FAILED {PKG}::PKG-10" in text
    assert "'notes.txt' is not checked: the package holds only EXPID folders" in text
    assert "'old' is not checked" in text
    assert f"'{bad}' is not checked: its name gives no task" in text
    assert "'.DS_Store' is left out" in text  # a warning, as ARC-05 for an archive
    assert "should be the package's NIST_NC17_DRYRUN17 (got ACME_NC17_DRYRUN17)" in text
    assert f"{PKG}/{other}::IDX-02 PASSED" in text or f"PASSED {PKG}/{other}::IDX-02" in text  # still checked


def test_a_package_name_that_is_not_the_plans(pytester: pytest.Pytester, here: Path) -> None:
    (here / PKG).rename(here / "my_results")
    result = pytester.runpytest("--omfc-submission", "my_results", "--omfc-dataset", "NC2017", "-p", "no:cacheprovider")
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "*package folder must be named <TEAM>_<YEAR>_<DATA>_<SUBNUM>*(got 'my_results': 2 '_'-separated fields*",
            "FAILED my_results::PKG-10*",
        ],
        consecutive=False,
    )


def test_with_only_one_tasks_index_the_other_expids_are_named_not_dropped(
    pytester: pytest.Pytester, here: Path
) -> None:
    index = here / "NC2017" / "indexes" / "NC2017-manipulation-index.csv"
    rec = pytester.inline_run("--omfc-submission", PKG, "--omfc-index", str(index), "-p", "no:cacheprovider")
    outcomes = _outcomes(rec)
    assert outcomes[f"{PKG}::PKG-10"] == "failed"
    assert not any(n.startswith(f"{PKG}/{SPLICE}") for n in outcomes)
    assert _rules_of(outcomes, f"{PKG}/{MANIP}")["IDX-02"] == "passed"
    text = _failure(rec, f"{PKG}::PKG-10")
    assert "an EXPID of task SPL" in text and "give --omfc-dataset ROOT" in text


def _gnu_tgz(folder: Path, out: Path) -> Path:
    """The plan's command: ``tar -cvf - ./<PKG> | gzip > <PKG>.tgz`` run in the package's parent."""
    if shutil.which("tar") is None or shutil.which("gzip") is None:
        pytest.skip("GNU tar and gzip are needed to pack as the plan says")
    out.parent.mkdir(exist_ok=True)
    with out.open("wb") as fh:
        tar = subprocess.Popen(["tar", "-cvf", "-", f"./{folder.name}"], cwd=folder.parent, stdout=subprocess.PIPE)
        subprocess.run(["gzip"], stdin=tar.stdout, stdout=fh, check=True)
        assert tar.wait() == 0
    return out


def test_the_tgz_the_plan_makes_checks_as_the_folder(pytester: pytest.Pytester, here: Path) -> None:
    upload = _gnu_tgz(here / PKG, here / "upload" / f"{PKG}.tgz")
    ret, outcomes = _run(pytester, str(upload))
    assert ret == 0, {n: o for n, o in outcomes.items() if o != "passed"}
    arc = _rules_of(outcomes, PKG)
    assert {"ARC-01", "ARC-02", "ARC-03", "PKG-10"} <= set(arc) and set(arc.values()) == {"passed"}
    folder_ret, folder = _run(pytester, PKG)
    assert {n: o for n, o in outcomes.items() if "::ARC-" not in n} == folder


def test_a_failing_member_of_an_upload_names_the_member(pytester: pytest.Pytester, here: Path) -> None:
    (here / PKG / MANIP / "mask" / "NC2017_0301.png").unlink()
    upload = _gnu_tgz(here / PKG, here / "upload" / f"{PKG}.tgz")
    result = pytester.runpytest("--omfc-submission", str(upload), "--omfc-dataset", "NC2017", "-p", "no:cacheprovider")
    assert result.ret == 1
    # the member as the archive names it (long paths are shortened in the middle)
    result.stdout.fnmatch_lines(
        [f"  {PKG}.tgz:{PKG}/NIST_NC17_DR*.csv*mask/NC2017_0301.png must name an existing file*"]
    )


def test_an_expid_uploaded_without_its_package_folder(pytester: pytest.Pytester, here: Path) -> None:
    upload = _gnu_tgz(here / PKG / MANIP, here / "upload" / f"{MANIP}.tgz")
    result = pytester.runpytest("--omfc-submission", str(upload), "--omfc-dataset", "NC2017", "-p", "no:cacheprovider")
    assert result.ret == 1
    result.stdout.fnmatch_lines(
        [
            "*the NC2017 plan packs EXPID folders inside a package folder <TEAM>_<YEAR>_<DATA>_<SUBNUM>/*"
            f"mv {MANIP} NIST_NC17_DRYRUN17_1/; tar -cvf - ./NIST_NC17_DRYRUN17_1 | gzip > NIST_NC17_DRYRUN17_1.tgz",
            f"FAILED {MANIP}::{MANIP}::ARC-02*",
        ]
    )


def test_a_package_of_another_edition_is_an_error(pytester: pytest.Pytester) -> None:
    """OpenMFC takes one <SubID>/ per submission: a folder of two is named as such, and both are checked."""
    sub = EXAMPLES / "submissions" / "imdl"
    for name in ("p-baseline_3_imdl", "p-baseline_3_rgb-mask"):
        shutil.copytree(sub / name, pytester.path / "both" / name)
    index = EXAMPLES / "datasets" / "OpenMFC2020" / "indexes" / "OpenMFC20_Image-IMDL-index.csv"
    rec = pytester.inline_run("--omfc-submission", "both", "--omfc-index", str(index), "-p", "no:cacheprovider")
    outcomes = _outcomes(rec)
    assert outcomes["both::PKG-10"] == "failed"
    assert _rules_of(outcomes, "both/p-baseline_3_rgb-mask")["MASK-05"] == "failed"
    assert _rules_of(outcomes, "both/p-baseline_3_imdl")["MASK-05"] == "passed"
    text = _failure(rec, "both::PKG-10")
    assert "only NC2017 packs several EXPID folders" in text


def _manipulation_reference(root: Path) -> Path:
    """``reference/manipulation/NC2017-manipulation-ref.csv`` (the NC2017 layout); IsTarget Y, N, N."""
    ref = root / "reference" / "manipulation" / "NC2017-manipulation-ref.csv"
    ref.parent.mkdir(parents=True)
    ids = ["NC2017_0301", "NC2017_0302", "NC2017_0303"]
    rows = "".join(f"manipulation|{i}|probe/{i}.jpg|{t}\n" for i, t in zip(ids, "YNN", strict=True))
    ref.write_text("TaskID|ProbeFileID|ProbeFileName|IsTarget\n" + rows)
    return ref.parent.parent


def test_each_expid_is_scored_against_its_tasks_reference(pytester: pytest.Pytester, here: Path) -> None:
    refs = _manipulation_reference(here / "NC2017")
    out = here / "out" / "metrics.json"
    result = pytester.runpytest(
        "--omfc-submission", PKG, "--omfc-dataset", "NC2017", "--omfc-reference", str(refs),
        "--omfc-score", "detection", "--omfc-metrics-json", str(out), "--omfc-html", str(here / "out" / "r.html"),
        "-p", "no:cacheprovider", "-rA",
    )  # fmt: skip
    assert result.ret == 0, result.stdout.str()[-3000:]
    result.stdout.fnmatch_lines([f"PASSED {PKG}/{MANIP}::score::detection"])
    assert "::score::" not in "".join(x for x in result.outlines if SPLICE in x and "PASSED" in x)
    result.stdout.fnmatch_lines([f"omfc: {SPLICE}: not scored: no reference of its task in *"])
    doc = json.loads(out.read_text())
    assert doc["package"] == PKG and [d["submission"] for d in doc["expids"]] == [MANIP]
    (entry,) = doc["expids"][0]["results"]
    # scores 0.88 (target), 0.12 and 0 (non-targets): every target above every non-target
    assert entry["scorer"] == "detection" and entry["metrics"]["AUC"] == pytest.approx(1.0)
    page = (here / "out" / "r.html").read_text()
    assert "EXPIDs of the package" in page and f"detection scores: {MANIP}" in page


def test_a_package_under_xdist(here: Path) -> None:
    """Two workers: the same items and verdicts (each worker rebuilds the package's settings)."""

    def run(*extra: str) -> list[str]:
        cmd = [sys.executable, "-m", "pytest_omfc", "--omfc-submission", PKG, "--omfc-dataset", "NC2017", "-rA", *extra]
        res = subprocess.run(cmd, cwd=here, capture_output=True, text=True, timeout=300)
        assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
        return sorted(line.split()[-1] for line in res.stdout.splitlines() if line.startswith("PASSED "))

    assert run("-n", "2") == run()


def test_the_readme_package_command_runs_as_shown() -> None:
    """docs/participants.md, "NC2017 packages": the command as printed, from the repository root, on the bundled
    package."""
    text = (REPO / "docs" / "participants.md").read_text(encoding="utf-8")
    section = text.split("## NC2017 packages", 1)[1].split("\n## ", 1)[0]
    (command,) = re.findall(r"^\$ (pytest-omfc [^\n]+)$", section, re.M)
    args = shlex.split(command)[1:]
    res = subprocess.run(
        [sys.executable, "-m", "pytest_omfc", *args], cwd=REPO, capture_output=True, text=True, timeout=300
    )
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    for expid in (MANIP, SPLICE):
        assert f"\n{expid}: passed\n" in res.stdout


@pytest.mark.parametrize("extra", [[], ["-n", "2"]], ids=["one-process", "xdist"])
@pytest.mark.parametrize("entry", ["pytest", "pytest_omfc"])
def test_a_package_folder_named_with_node_id_syntax_is_collected(tmp_path: Path, entry: str, extra: list[str]) -> None:
    """A folder may have any name: ``::`` and brackets in it once ended collection (exit 2) under pytest 9.2."""
    if extra:
        pytest.importorskip("xdist")
    folder = tmp_path / f"{PKG}::[x]"
    shutil.copytree(EXAMPLES / "submissions" / "nc2017" / PKG, folder)
    shutil.copytree(EXAMPLES / "datasets" / "NC2017", tmp_path / "NC2017")
    args = ["-m", entry, "--omfc-submission", folder.name, "--omfc-dataset", "NC2017", *extra]
    if entry == "pytest":
        args += ["-p", "no:cacheprovider"]
    run = run_capped(args, cwd=tmp_path, timeout=120)
    text = run.out + run.err
    assert run.ret == 1 and "INTERNALERROR" not in text and "error during collection" not in text, text[-3000:]
    assert f"FAILED {PKG}%3A%3A[x]::PKG-10" in text  # the package name is not the plan's: PKG-10 says so


def test_bidi_characters_in_an_expid_never_reach_the_terminal_raw(tmp_path: Path) -> None:
    """An EXPID folder named with U+202E (right-to-left override): the header, progress, failure lines and the
    per-EXPID verdicts print it escaped (\\u202e), as findings already did."""
    package = tmp_path / PKG
    shutil.copytree(EXAMPLES / "submissions" / "nc2017" / PKG, package)
    shutil.copytree(EXAMPLES / "datasets" / "NC2017", tmp_path / "NC2017")
    expid = next(p for p in sorted(package.iterdir()) if p.is_dir())
    expid.rename(package / f"{expid.name}\u202ecod.exe")
    for entry in ("pytest", "pytest_omfc"):
        args = ["-m", entry, "--omfc-submission", PKG, "--omfc-dataset", "NC2017", "-v", "-rA"]
        run = run_capped(args + (["-p", "no:cacheprovider"] if entry == "pytest" else []), cwd=tmp_path, timeout=120)
        text = run.out + run.err
        assert run.ret == 1 and "INTERNALERROR" not in text, text[-3000:]
        assert "\u202e" not in text and "\\u202e" in text


def test_a_limit_on_the_expids_checked(tmp_path: Path) -> None:
    """--omfc-package-max-expids: past it, the EXPIDs are named by PKG-10 and not checked (3,000 EXPIDs took
    over five minutes); out of its bounds, a usage error."""
    shutil.copytree(EXAMPLES / "submissions" / "nc2017" / PKG, tmp_path / PKG)
    shutil.copytree(EXAMPLES / "datasets" / "NC2017", tmp_path / "NC2017")
    base = ["-m", "pytest_omfc", "--omfc-submission", PKG, "--omfc-dataset", "NC2017"]
    run = run_capped([*base, "--omfc-package-max-expids", "1"], cwd=tmp_path, timeout=120)
    text = run.out + run.err
    assert run.ret == 1 and "1 EXPID(s) to check" in text, text[-3000:]
    assert "the package holds more than 1 EXPID folders (--omfc-package-max-expids)" in text
    bad = run_capped([*base, "--omfc-package-max-expids", "0"], cwd=tmp_path, timeout=60)
    assert bad.ret == 4 and "must be an integer from 1 to 100000 (got 0)" in bad.err


def test_a_process_keeps_few_expids_parsed_and_rebuilds_one_asked_again(
    pytester: pytest.Pytester, here: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A package's items run one EXPID after another, so a process keeps only the last parsed EXPIDs (memory and
    the collector's walks stay bounded: 1,000 EXPIDs were all kept).  One asked for again after others (items
    reordered, as ``-k`` or an xdist worker's share may) is parsed again, to the same verdicts."""
    from pytest_omfc.pytest_glue import state

    monkeypatch.setattr(state, "EXPIDS_KEPT", 1)  # the bundled package has two EXPIDs: evict at every change
    sizes: list[int] = []

    class Probe:
        @pytest.hookimpl(trylast=True)
        def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
            manip = [i for i in items if f"/{MANIP}::" in i.nodeid]
            others = [i for i in items if f"/{MANIP}::" not in i.nodeid]
            half = len(manip) // 2
            items[:] = manip[:half] + others + manip[half:]  # MANIP, then SPLICE, then MANIP again

        def pytest_runtest_teardown(self, item: pytest.Item) -> None:
            sizes.append(len(item.config.stash[state.SUBMISSION_KEY]))

    _, in_order = _run(pytester, PKG)
    rec = pytester.inline_run(
        "--omfc-submission", PKG, "--omfc-dataset", "NC2017", "-p", "no:cacheprovider", plugins=[Probe()]
    )
    assert _outcomes(rec) == in_order
    assert max(sizes) == 2  # the package's own entry and one EXPID
