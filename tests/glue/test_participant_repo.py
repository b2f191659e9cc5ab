"""A team's repository (docs/ci.md, "Your own tests beside the check"): with the options in
``[tool.pytest.ini_options]`` a bare ``pytest`` runs the team's tests and the submission's rules; with
``--omfc-submission`` on the command line it checks the submission alone, and nothing of the project's
``testpaths`` is imported (the README's first command in a fresh clone, before the test extras exist)."""

from __future__ import annotations

import shutil

import pytest
from helpers.examples import EXAMPLES

pytestmark = pytest.mark.compat

SUB = "p-baseline_3_imdl"
INDEX = "OpenMFC20_Image-IMDL-index.csv"


def _repository(pytester: pytest.Pytester, *, testpaths: bool, ini: bool) -> None:
    shutil.copytree(EXAMPLES / "submissions/imdl" / SUB, pytester.path / "submission" / SUB)
    shutil.copytree(EXAMPLES / "datasets/OpenMFC2020/indexes", pytester.path / "data/indexes")
    lines = ["[tool.pytest.ini_options]"]
    if ini:
        lines += [f'omfc_submission = "submission/{SUB}"', f'omfc_index = "data/indexes/{INDEX}"']
    if testpaths:
        lines.append('testpaths = ["tests"]')
    pytester.makepyprojecttoml("\n".join(lines) + "\n")
    tests = pytester.mkdir("tests")
    (tests / "test_model.py").write_text(
        "def test_model_loads():\n    assert True\n\n\n"
        "def test_fixture_sees_the_submission(omfc):\n"
        f"    assert omfc.submission.id == {SUB!r}\n",
        encoding="utf-8",
    )


@pytest.mark.parametrize("testpaths", [True, False], ids=["testpaths", "no-testpaths"])
def test_bare_pytest_runs_the_teams_tests_and_the_rules(pytester: pytest.Pytester, testpaths: bool) -> None:
    _repository(pytester, testpaths=testpaths, ini=True)
    result = pytester.runpytest("-p", "no:cacheprovider", "-v")
    result.assert_outcomes(passed=49)  # 47 rules once each (the walk and the ini do not collect it twice) + 2
    result.stdout.fnmatch_lines(["*tests/test_model.py::test_model_loads PASSED*"])
    result.stdout.fnmatch_lines([f"*{SUB}::SUB-10 PASSED*"])


def test_the_command_line_option_checks_the_submission_alone(pytester: pytest.Pytester) -> None:
    """The project's tests/conftest.py imports a package that is not installed: it is never imported."""
    _repository(pytester, testpaths=True, ini=False)
    (pytester.path / "tests/conftest.py").write_text("import not_installed_test_only_package\n", encoding="utf-8")
    sub, index = f"submission/{SUB}", f"data/indexes/{INDEX}"
    result = pytester.runpytest("-p", "no:cacheprovider", "--omfc-submission", sub, "--omfc-index", index)
    result.assert_outcomes(passed=47)
    assert result.ret == 0
    # with a path the path is collected too, its conftest included (here: the missing package, as pytest does)
    result = pytester.runpytest("-p", "no:cacheprovider", "--omfc-submission", sub, "--omfc-index", index, "tests")
    assert result.ret != 0 and "not_installed_test_only_package" in result.stdout.str() + result.stderr.str()
