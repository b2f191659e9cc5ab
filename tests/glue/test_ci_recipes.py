"""The CI recipes (issue 13): examples/ci/github-actions.yml, examples/ci/gitlab-ci.yml and
.pre-commit-hooks.yaml parse, have the structure their CI needs, and the command each one holds runs
on a bundled example as written.

Each run copies the example to a temporary directory laid out as the recipes expect (the submission
at the top, the index under dataset/indexes/), takes the recipe's ``pytest-omfc ...`` command word
for word and runs it as ``python -m pytest_omfc ...`` (the same entry point as the console script,
which a test cannot rely on being on PATH), then checks the exit code and that the files the recipe
uploads are the ones the run wrote.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import tarfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from helpers.fresh import NEEDS_FRESH, copy_of_the_repository, new_venv, shell
from helpers.paths import REPO
from helpers.runs import run_capped

import pytest_omfc

yaml = pytest.importorskip("yaml", reason="PyYAML parses the recipes (pip install pyyaml)")


EXAMPLES = REPO / "examples"
GITHUB = EXAMPLES / "ci/github-actions.yml"
GITLAB = EXAMPLES / "ci/gitlab-ci.yml"
PRE_COMMIT = REPO / ".pre-commit-hooks.yaml"
VALID = "p-baseline_3_imdl"
FAILING = "p-baseline_3_score-out-of-range"  # SCORE-03 fails (a ConfidenceScore of 1.7)
INDEX = EXAMPLES / "datasets/OpenMFC2020/indexes/OpenMFC20_Image-IMDL-index.csv"
#: Until pytest-omfc is on PyPI the recipes install its wheel, committed under vendor/ by the team.
WHEEL = f"pytest_omfc-{pytest_omfc.__version__}-py3-none-any.whl"
INSTALL = f"python -m pip install vendor/{WHEEL}"


def load(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def command(text: str) -> list[str]:
    """The ``pytest-omfc ...`` line of a ``run``/``script`` text, split as a POSIX shell would."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip().startswith("pytest-omfc ")]
    assert len(lines) == 1, text
    return shlex.split(lines[0])


def value(argv: list[str], flag: str) -> str:
    """The value of ``flag`` in ``argv`` (``--flag value`` or ``--flag=value``)."""
    for i, arg in enumerate(argv):
        if arg == flag:
            return argv[i + 1]
        if arg.startswith(f"{flag}="):
            return arg.split("=", 1)[1]
    raise AssertionError(f"{flag} not in {argv}")


def run_recipe(argv: list[str], root: Path, submission: str = VALID) -> int:
    """Lay the example out under ``root`` and run ``argv`` (a ``pytest-omfc`` command) there."""
    assert argv[0] == "pytest-omfc"
    args = list(argv[1:])
    given = value(args, "--omfc-submission")
    shutil.copytree(EXAMPLES / "submissions/imdl" / submission, root / submission)
    index = root / value(args, "--omfc-index")
    index.parent.mkdir(parents=True)
    shutil.copy(INDEX, index)
    args[args.index(given)] = submission
    if given.endswith(".tar"):  # the recipe checks the archive it packs, as the participant uploads it
        with tarfile.open(root / f"{submission}.tar", "w") as tf:
            tf.add(root / submission, arcname=submission)
        args[args.index(submission)] = f"{submission}.tar"
    run = run_capped(["-m", "pytest_omfc", *args], cwd=root, timeout=120, cap=2 * 1024**3)
    assert run.ret is not None, "timed out"
    assert "Traceback" not in run.out + run.err and "INTERNALERROR" not in run.out + run.err
    return run.ret


def check_junit(path: Path, failing: str | None) -> None:
    """The uploaded JUnit XML is the run's: one testcase per rule, ``failing`` failed with its first line."""
    cases = {tc.get("name"): tc for tc in ET.parse(path).getroot().iter("testcase")}
    assert len(cases) >= 40 and "IDX-04" in cases
    failed = sorted(n for n, tc in cases.items() if tc.find("failure") is not None)
    assert failed == ([failing] if failing else [])
    if failing:
        failure = cases[failing].find("failure")
        assert failure is not None and failure.get("message", "").startswith(f"{failing}: ")


# ---------------------------------------------------------------------------- GitHub Actions


def github_steps() -> list[dict[str, Any]]:
    doc = load(GITHUB)
    triggers = doc.get("on", doc.get(True))  # YAML 1.1 reads the key `on` as true
    assert set(triggers) == {"push", "pull_request"}
    (job,) = doc["jobs"].values()
    assert job["runs-on"] == "ubuntu-latest"
    return list(job["steps"])


def test_github_actions_structure() -> None:
    steps = github_steps()
    uses = [s.get("uses", "").split("@")[0] for s in steps]
    assert uses[0] == "actions/checkout", "the submission repository is checked out first"
    assert "actions/setup-python" in uses
    runs = [s["run"] for s in steps if "run" in s]
    assert INSTALL in runs, runs
    (check,) = [s for s in steps if "pytest-omfc --" in s.get("run", "")]
    argv = command(check["run"])
    (pack,) = [s for s in steps if s.get("run", "").startswith("tar cvf ")]
    archive, folder = shlex.split(pack["run"])[2:4]
    assert value(argv, "--omfc-submission") == archive == f"{folder}.tar" and steps.index(pack) < steps.index(check)
    (upload,) = [s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@")]
    assert upload["if"] == "always()", "reports are uploaded when the check fails too"
    paths = {p.strip() for p in upload["with"]["path"].splitlines() if p.strip()}
    assert paths == {value(argv, "--junitxml"), value(argv, "--omfc-html")}
    assert steps.index(check) < steps.index(upload)


@pytest.mark.parametrize(("submission", "ret", "failing"), [(VALID, 0, None), (FAILING, 1, "SCORE-03")])
def test_github_actions_command_runs(tmp_path: Path, submission: str, ret: int, failing: str | None) -> None:
    """The workflow's command as written: exit 0 on the valid example, 1 on a failing one, and the two
    files the upload step names are written (also when the check fails)."""
    steps = github_steps()
    argv = command(next(s["run"] for s in steps if "pytest-omfc --" in s.get("run", "")))
    assert run_recipe(argv, tmp_path, submission) == ret
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-artifact@"))
    paths = [p.strip() for p in upload["with"]["path"].splitlines() if p.strip()]
    for rel in paths:
        assert (tmp_path / rel).is_file() and (tmp_path / rel).stat().st_size > 0, rel
    check_junit(tmp_path / value(argv, "--junitxml"), failing)
    html = (tmp_path / value(argv, "--omfc-html")).read_text(encoding="utf-8")
    assert "<html" in html.lower() and (failing or "IDX-04") in html


# ---------------------------------------------------------------------------- GitLab CI


def gitlab_job() -> dict[str, Any]:
    doc = load(GITLAB)
    (job,) = doc.values()
    return dict(job)


def test_gitlab_ci_structure() -> None:
    job = gitlab_job()
    script = job["script"]
    assert INSTALL in script, script
    argv = command("\n".join(script))
    artifacts = job["artifacts"]
    assert artifacts["when"] == "always"
    assert artifacts["reports"]["junit"] == value(argv, "--junitxml")
    assert set(artifacts["paths"]) == {value(argv, "--junitxml"), value(argv, "--omfc-html")}


def test_gitlab_ci_command_runs(tmp_path: Path) -> None:
    job = gitlab_job()
    argv = command("\n".join(job["script"]))
    assert run_recipe(argv, tmp_path) == 0
    for rel in job["artifacts"]["paths"]:
        assert (tmp_path / rel).is_file(), rel
    check_junit(tmp_path / job["artifacts"]["reports"]["junit"], None)


@pytest.mark.parametrize("recipe", ["github", "gitlab"])
@pytest.mark.fresh
@NEEDS_FRESH
def test_recipe_install_line_works_in_a_fresh_environment(tmp_path: Path, recipe: str) -> None:
    """The recipe's install line as written, in a new venv, on the wheel this repository builds (what the
    team commits under vendor/); then the recipe's check with the console script it installed."""
    team, source = tmp_path / "team", tmp_path / "pytest-omfc"
    copy_of_the_repository(source)  # (a build of its own: pip wheel writes build/ beside the sources)
    wheel = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(team / "vendor"), str(source)],
        capture_output=True,
        text=True,
    )
    assert wheel.returncode == 0 and (team / "vendor" / WHEEL).is_file(), wheel.stderr[-2000:]
    env = new_venv(tmp_path / "venv")
    install = shell(INSTALL, team, env)
    assert install.returncode == 0, install.stderr[-3000:]
    lines = (
        [s["run"] for s in github_steps() if "pytest-omfc --" in s.get("run", "")]
        if recipe == "github"
        else [line for line in gitlab_job()["script"] if line.startswith("pytest-omfc ")]
    )
    argv = command(lines[0])
    shutil.copytree(EXAMPLES / "submissions/imdl" / VALID, team / VALID)
    (team / value(argv, "--omfc-index")).parent.mkdir(parents=True)
    shutil.copy(INDEX, team / value(argv, "--omfc-index"))
    if value(argv, "--omfc-submission").endswith(".tar"):
        with tarfile.open(team / f"{VALID}.tar", "w") as tf:
            tf.add(team / VALID, arcname=VALID)
    check = shell(lines[0], team, env, timeout=300)
    assert check.returncode == 0, (check.stdout + check.stderr)[-3000:]
    assert (team / value(argv, "--junitxml")).is_file()


# ---------------------------------------------------------------------------- pre-commit


def hook() -> dict[str, Any]:
    hooks = load(PRE_COMMIT)
    assert isinstance(hooks, list)
    (found,) = [h for h in hooks if h.get("id") == "omfc-validate"]
    return dict(found)


def test_pre_commit_hook_structure() -> None:
    h = hook()
    assert (h["language"], h["entry"], h["pass_filenames"]) == ("python", "pytest-omfc", False)
    assert h["always_run"] is True
    args = list(h["args"])
    assert value(args, "--omfc-submission") and value(args, "--omfc-index")
    assert "omfc-validate" in PRE_COMMIT.read_text(encoding="utf-8").split("# It runs")[0], "usage comment"


@pytest.mark.parametrize(("submission", "ret"), [(VALID, 0), (FAILING, 1)])
def test_pre_commit_hook_command_runs(tmp_path: Path, submission: str, ret: int) -> None:
    """What pre-commit runs, ``entry`` then ``args`` (no file names): 0 lets the commit through, 1 stops it."""
    h = hook()
    argv = [*shlex.split(h["entry"]), *h["args"]]
    assert run_recipe(argv, tmp_path, submission) == ret


def test_console_script_is_the_module() -> None:
    """The recipes call ``pytest-omfc``; the tests run ``python -m pytest_omfc``: the same function."""
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    assert 'pytest-omfc = "pytest_omfc.cli:run"' in text
    main = (REPO / "pytest_omfc/__main__.py").read_text(encoding="utf-8")
    assert "from pytest_omfc.cli import run" in main and "    run()" in main


# ---------------------------------------------------------------------------- the documentation site (Pages)

DOCS_WORKFLOW = REPO / ".github" / "workflows" / "docs.yml"


def docs_workflow() -> dict[str, Any]:
    doc = load(DOCS_WORKFLOW)
    assert isinstance(doc, dict)
    return dict(doc)


def test_docs_workflow_structure() -> None:
    """Built on pushes and pull requests, deployed to Pages from main only, with the permissions Pages needs."""
    doc = docs_workflow()
    triggers = doc.get("on", doc.get(True))  # YAML 1.1 reads a bare `on` as true
    assert {"push", "pull_request"} <= set(triggers) and triggers["push"]["branches"] == ["main"]
    assert doc["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    build, deploy = doc["jobs"]["build"], doc["jobs"]["deploy"]
    steps = build["steps"]
    uses = [s.get("uses", "").split("@")[0] for s in steps]
    assert uses[0] == "actions/checkout" and "actions/setup-python" in uses
    runs = [s["run"] for s in steps if "run" in s]
    assert runs[0] == "pip install -e '.[docs]'"
    build_cmd = next(r for r in runs if "sphinx" in r)
    assert " -W " in build_cmd and "--keep-going" in build_cmd, "warnings are errors"
    out = shlex.split(build_cmd)[-1]
    assert any(r == f"python docs/check_links.py {out}" for r in runs), "the built site's links are checked"
    (upload,) = [s for s in steps if s.get("uses", "").startswith("actions/upload-pages-artifact@")]
    assert upload["with"]["path"] == out and steps.index(upload) == len(steps) - 1
    assert deploy["needs"] == "build" and "refs/heads/main" in deploy["if"] and "push" in deploy["if"]
    assert deploy["environment"]["name"] == "github-pages"
    assert [s["uses"].split("@")[0] for s in deploy["steps"]] == ["actions/deploy-pages"]


def test_docs_workflow_build_steps_run(tmp_path: Path) -> None:
    """The build and link-check steps as written (the install step is this environment's), in a copy of the
    files the site is built from: the site is written where the upload step takes it."""
    pytest.importorskip("sphinx", reason="the site builds with Sphinx (pip install -e '.[docs]')")
    pytest.importorskip("myst_parser", reason="the pages are MyST Markdown (pip install -e '.[docs]')")
    pytest.importorskip("furo", reason="the site's theme is furo (pip install -e '.[docs]')")
    shutil.copytree(REPO / "docs", tmp_path / "docs", ignore=shutil.ignore_patterns("_build"))
    shutil.copy(REPO / "CONTRIBUTING.md", tmp_path / "CONTRIBUTING.md")
    steps = docs_workflow()["jobs"]["build"]["steps"]
    for step in steps:
        run = step.get("run")
        if run is None or run.startswith("pip install"):
            continue
        argv = shlex.split(run)
        assert argv[0] == "python", run
        res = run_capped(argv[1:], cwd=tmp_path, timeout=600)
        assert res.ret == 0, f"{run}:\n{res.out[-3000:]}{res.err[-3000:]}"
    upload = next(s for s in steps if s.get("uses", "").startswith("actions/upload-pages-artifact@"))
    assert (tmp_path / upload["with"]["path"] / "rules" / "mask.html").is_file()
