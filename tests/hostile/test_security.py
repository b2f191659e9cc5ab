"""Hostile submissions: nothing shipped in a submission (or lying beside the index) may run or decide the verdict.

The submission is the bad-status example (STATUS-04 fails: the honest verdict is exit 1) plus an ini file
whose ``addopts = -p helper -k "not 04"`` with ``pythonpath = .`` would import ``helper.py`` (which writes a
marker file) and deselect the failing rule, or a ``conftest.py`` that writes a marker.

* ``pytest-omfc`` (run as ``python -m pytest_omfc``, also with ``-n 2``) ignores all of it: exit 1, no marker.
* The plain ``pytest`` form refuses (exit 4, one line naming the file and pointing to pytest-omfc) when the
  configfile, the rootdir or a conftest.py lies inside the submission or the dataset directory.
* ``--junitxml`` into the submission or the dataset is refused like ``--omfc-metrics-json``.

Nothing is ever written into the submission or the dataset (``snapshot()``).  Every run is a subprocess
under an address-space limit and a timeout (``run_capped``).
"""

from __future__ import annotations

import os
import shutil
import sysconfig
from dataclasses import dataclass
from pathlib import Path

import pytest
from helpers.examples import EXAMPLES
from helpers.runs import Capped, run_capped, snapshot

BAD = EXAMPLES / "submissions" / "imdl" / "p-baseline_3_bad-status"
INDEX_NAME = "OpenMFC20_Image-IMDL-index.csv"
HINT = "run pytest-omfc (python -m pytest_omfc) instead, which ignores it"

#: The four ini files pytest reads, each asking to import helper.py and to deselect STATUS-04.
INIS = {
    "pytest.ini": '[pytest]\npythonpath = .\naddopts = -p helper -k "not 04"\n',
    "tox.ini": '[pytest]\npythonpath = .\naddopts = -p helper -k "not 04"\n',
    "setup.cfg": '[tool:pytest]\npythonpath = .\naddopts = -p helper -k "not 04"\n',
    "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["."]\naddopts = "-p helper -k \'not 04\'"\n',
}
#: The same without the plugin, for the plain form (pytest imports ``-p`` plugins before any plugin can refuse).
INIS_NO_PLUGIN = {name: text.replace("-p helper ", "") for name, text in INIS.items()}


@dataclass
class Hostile:
    root: Path  # the working directory (holds the submission and the dataset)
    sub: Path
    dataset: Path
    index: Path
    marker: Path  # written by helper.py / conftest.py if they ever run

    def frozen(self) -> dict[str, tuple[int, int]]:
        return snapshot(self.sub, self.dataset)

    def helper(self, where: Path, name: str = "helper.py") -> None:
        where.joinpath(name).write_text(f"from pathlib import Path\nPath({str(self.marker)!r}).write_text({name!r})\n")


@pytest.fixture
def hostile(tmp_path: Path) -> Hostile:
    """The bad-status example and its dataset copied under ``tmp_path``, with helper.py in the submission."""
    sub = Path(shutil.copytree(BAD, tmp_path / BAD.name))
    dataset = Path(shutil.copytree(EXAMPLES / "datasets" / "OpenMFC2020", tmp_path / "OpenMFC2020"))
    h = Hostile(tmp_path, sub, dataset, dataset / "indexes" / INDEX_NAME, tmp_path / "MARKER")
    h.helper(sub)
    return h


def entry_point(h: Hostile, *extra: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> Capped:
    """The quick-start command through pytest-omfc, with relative paths as a portal would give them."""
    cwd = cwd or h.root
    return run_capped(
        [
            "-m",
            "pytest_omfc",
            "--omfc-submission",
            os.path.relpath(h.sub, cwd),
            "--omfc-index",
            os.path.relpath(h.index, cwd),
            "-rf",
            *extra,
        ],
        cwd=cwd,
        env=env,
    )


def plain(h: Hostile, *extra: str, cwd: Path | None = None) -> Capped:
    """The quick-start plain pytest command (values space-separated, so pytest sees them as paths)."""
    cwd = cwd or h.root
    return run_capped(
        [
            "-m",
            "pytest",
            "--omfc-submission",
            os.path.relpath(h.sub, cwd),
            "--omfc-index",
            os.path.relpath(h.index, cwd),
            "-rf",
            *extra,
        ],
        cwd=cwd,
    )


def assert_honest(res: Capped, h: Hostile) -> None:
    """Exit 1 because STATUS-04 fails, and nothing of the submission ran."""
    assert res.ret == pytest.ExitCode.TESTS_FAILED, (res.ret, res.out[-3000:], res.err[-3000:])
    assert "FAILED p-baseline_3_bad-status::p-baseline_3_bad-status::STATUS-04" in res.out
    assert "STATUS-04: 2 of 4 ProbeStatus values are not recognized (showing 2)" in res.out.splitlines()
    assert not h.marker.exists(), f"{h.marker.read_text()} ran"


def refusal(what: str, path: Path, kind: str, directory: Path) -> str:
    return (
        f"ERROR: {what} {path} lies inside the {kind} directory {directory}: "
        f"it must not configure a check of that {kind}; {HINT}"
    )


# ---------------------------------------------------------------------------- the entry point ignores it all


@pytest.mark.parametrize("ini", sorted(INIS))
def test_entry_point_ignores_an_ini_in_the_submission(hostile, ini):
    hostile.sub.joinpath(ini).write_text(INIS[ini])
    before = hostile.frozen()
    assert_honest(entry_point(hostile), hostile)
    assert hostile.frozen() == before


@pytest.mark.parametrize("ini", sorted(INIS))
def test_entry_point_ignores_an_ini_beside_the_index(hostile, ini):
    """An ini (and helper.py) in the dataset's indexes/ directory: not adopted, no .pytest_cache beside it."""
    hostile.index.parent.joinpath(ini).write_text(INIS[ini])
    hostile.helper(hostile.index.parent)
    before = hostile.frozen()
    assert_honest(entry_point(hostile), hostile)
    assert hostile.frozen() == before


def test_entry_point_from_inside_the_submission_ignores_its_conftest_and_modules(hostile):
    """Started in the submission: its conftest.py, pytest.ini and a module shadowing pandas never run."""
    hostile.helper(hostile.sub, "conftest.py")
    hostile.helper(hostile.sub, "pandas.py")
    hostile.sub.joinpath("pytest.ini").write_text(INIS["pytest.ini"])
    before = hostile.frozen()
    assert_honest(entry_point(hostile, cwd=hostile.sub), hostile)
    assert hostile.frozen() == before


def test_entry_point_with_xdist_and_a_hostile_environment(hostile):
    """-n 2: the workers get only the named plugins; PYTEST_ADDOPTS and PYTEST_PLUGINS are ignored."""
    hostile.sub.joinpath("pytest.ini").write_text(INIS["pytest.ini"])
    hostile.helper(hostile.sub, "conftest.py")
    env = dict(
        os.environ,
        PYTEST_ADDOPTS="-p helper -k 'not 04'",
        PYTEST_PLUGINS="helper",
        PYTHONPATH=os.pathsep.join(filter(None, [os.environ.get("PYTHONPATH"), str(hostile.sub)])),
    )
    before = hostile.frozen()
    res = entry_point(hostile, "-n", "2", cwd=hostile.sub, env=env)
    assert_honest(res, hostile)
    assert "created: 2/2 workers" in res.out
    assert (
        "benchmark:" not in res.out and "plugins:" not in res.out
    )  # no autoloaded plugin (pytest-benchmark is installed)
    assert "pytest-omfc: PYTEST_ADDOPTS is ignored (options come only from this command line)" in res.err
    assert "pytest-omfc: PYTEST_PLUGINS is ignored (options come only from this command line)" in res.err
    assert hostile.frozen() == before


@pytest.mark.parametrize("key", ["addopts", "pythonpath", "omfc_slices"])
def test_entry_point_refuses_ini_overrides_beyond_reporting(hostile, key):
    res = entry_point(hostile, "-o", f"{key}=x")
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    assert res.errlines == [
        f"ERROR: -o {key}: not accepted by pytest-omfc (only junit_*, console_output_style, as KEY=VALUE)"
    ]


def test_entry_point_rejects_unknown_options_and_paths(hostile):
    """A positional path (pytest would collect it) is a usage error."""
    res = entry_point(hostile, str(hostile.sub))
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    assert res.errlines[0].startswith("ERROR: unrecognized arguments: ")


# ---------------------------------------------------------------------------- the plain form refuses


@pytest.mark.parametrize("ini", sorted(INIS_NO_PLUGIN))
def test_plain_pytest_refuses_an_ini_in_the_submission(hostile, ini):
    path = hostile.sub / ini
    path.write_text(INIS_NO_PLUGIN[ini])
    before = hostile.frozen()
    res = plain(hostile)
    assert res.ret == pytest.ExitCode.USAGE_ERROR, (res.ret, res.out[-3000:])
    assert res.errlines == [refusal("configfile", path, "submission", hostile.sub)]
    assert hostile.frozen() == before


def test_plain_pytest_refuses_a_pyproject_beside_the_index(hostile):
    """It used to be adopted, and .pytest_cache was written beside it."""
    path = hostile.index.parent / "pyproject.toml"
    path.write_text(INIS_NO_PLUGIN["pyproject.toml"])
    before = hostile.frozen()
    res = plain(hostile)
    assert res.ret == pytest.ExitCode.USAGE_ERROR, (res.ret, res.out[-3000:])
    assert res.errlines == [refusal("configfile", path, "dataset", hostile.dataset)]
    assert hostile.frozen() == before


def test_plain_pytest_refuses_a_conftest_in_the_submission_before_importing_it(hostile):
    """Started from inside the submission, pytest would import its conftest.py as an initial conftest."""
    hostile.helper(hostile.sub, "conftest.py")
    before = hostile.frozen()
    res = plain(hostile, cwd=hostile.sub)
    assert res.ret == pytest.ExitCode.USAGE_ERROR, (res.ret, res.out[-3000:])
    assert res.errlines == [refusal("conftest", hostile.sub / "conftest.py", "submission", hostile.sub)]
    assert not hostile.marker.exists()
    assert hostile.frozen() == before


def test_plain_pytest_refuses_a_rootdir_in_the_dataset(hostile):
    """--rootdir inside the dataset (pytest would look for conftest.py and write its cache there)."""
    before = hostile.frozen()
    res = plain(hostile, f"--rootdir={hostile.index.parent}")
    assert res.ret == pytest.ExitCode.USAGE_ERROR, (res.ret, res.out[-3000:])
    assert res.errlines == [refusal("rootdir", hostile.index.parent, "dataset", hostile.dataset)]
    assert hostile.frozen() == before


@pytest.mark.parametrize("kind", ["submission", "dataset"])
@pytest.mark.parametrize("form", ["plain", "entry-point"])
def test_junitxml_into_the_submission_or_dataset_is_refused(hostile, kind, form):
    directory = hostile.sub if kind == "submission" else hostile.dataset
    xml = directory / "report.xml"
    before = hostile.frozen()
    res = (plain if form == "plain" else entry_point)(hostile, f"--junitxml={os.path.relpath(xml, hostile.root)}")
    assert res.ret == pytest.ExitCode.USAGE_ERROR, (res.ret, res.out[-3000:])
    assert res.errlines == [f"ERROR: --junitxml: must not point into the {kind} directory {directory} (got {xml})"]
    assert hostile.frozen() == before


def test_plain_pytest_still_runs_an_honest_check(hostile):
    """No hostile file: the plain form runs (the refusal is about files inside the submission or dataset)."""
    before = hostile.frozen()
    res = plain(hostile, "-p", "no:cacheprovider")
    assert_honest(res, hostile)
    assert hostile.frozen() == before


def test_console_script_is_the_entry_point(hostile):
    """The installed ``pytest-omfc`` script (pyproject ``[project.scripts]``) runs the isolated check."""
    script = Path(sysconfig.get_path("scripts")) / "pytest-omfc"
    if not script.is_file():
        pytest.skip(f"pytest-omfc is not installed in this environment ({script} is absent): pip install -e .")
    hostile.sub.joinpath("pytest.ini").write_text(INIS["pytest.ini"])
    before = hostile.frozen()
    res = run_capped(
        [str(script), "--omfc-submission", str(hostile.sub), "--omfc-index", str(hostile.index), "-rf"],
        cwd=hostile.root,
    )
    assert_honest(res, hostile)
    assert hostile.frozen() == before


def test_resolve_inside_with_its_cache_refuses_what_it_refuses_without(tmp_path: Path) -> None:
    """The cached resolution (real paths of the folders kept, one lstat per file) gives the same verdict as a
    full resolution, for a linked file, a linked folder, '..', an absolute path and plain files, also when
    the same folders are met again."""
    from pytest_omfc.paths import resolve_inside

    root = tmp_path / "maps"
    (root / "a" / "b").mkdir(parents=True)
    (root / "a" / "b" / "ok.png").write_bytes(b"x")
    outside = tmp_path / "outside"
    (outside / "c").mkdir(parents=True)
    (outside / "c" / "x.png").write_bytes(b"x")
    (root / "a" / "file-link.png").symlink_to(outside / "c" / "x.png")
    (root / "dir-link").symlink_to(outside / "c")
    (root / "a" / "inner-link.png").symlink_to(root / "a" / "b" / "ok.png")
    cases = [
        "a/b/ok.png",
        "a/file-link.png",
        "dir-link/x.png",
        "a/inner-link.png",
        "../outside/c/x.png",
        "/etc/passwd",
        "a/b/missing.png",
        "dir-link/missing.png",
    ]
    spelled = ["a/./b/ok.png", "a//b/ok.png", "./a/b/ok.png", "a/b/ok.png/", "a/b/.", "top.png", "dir-link/./x.png"]
    cache: dict[str, Path] = {}
    for _ in range(2):  # the second round reads the folders from the cache (string work, one lstat)
        for ref in cases + spelled:
            plain = resolve_inside(root, ref)
            cached = resolve_inside(root, ref, cache=cache)
            assert plain == cached, ref
    verdicts = {ref: resolve_inside(root, ref, cache=cache)[1] is None for ref in cases}
    assert verdicts == {
        "a/b/ok.png": True,
        "a/file-link.png": False,
        "dir-link/x.png": False,
        "a/inner-link.png": True,
        "../outside/c/x.png": False,
        "/etc/passwd": False,
        "a/b/missing.png": True,
        "dir-link/missing.png": False,
    }
