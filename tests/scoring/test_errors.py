"""The scoring errors' classes decide the verdict; no decision reads a message (issue 18, typed errors)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from pytest_omfc import errors
from pytest_omfc.scoring.registry import not_scored

PACKAGE = Path(errors.__file__).resolve().parent / "scoring"


@pytest.mark.parametrize(
    ("exc", "fail"),
    [
        (errors.SetupError("reference lacks column(s) ['IsTarget']"), True),
        (errors.QueryError("query 'x' (q) cannot be evaluated", ["x"]), True),
        (errors.ExecutionError("a scoring process died"), True),
        (errors.ScoringError("anything else"), True),
        (ValueError("an engine bug"), True),
        (errors.SubmissionError("system output has no rows"), False),
        (errors.Undefined("no trial left after merging reference, system output and index"), False),
        # the text does not matter: a set-up error worded like a submission one still fails, and the reverse
        (errors.SetupError("system output has no rows"), True),
        (errors.SubmissionError("reference lacks column(s) ['IsTarget']"), False),
    ],
)
def test_the_class_decides_fail_or_skip(exc: Exception, fail: bool) -> None:
    outcome = not_scored(exc)
    assert (outcome.fail, outcome.reason) == (fail, str(exc))


def test_query_error_is_a_setup_error_carrying_the_unknown_columns() -> None:
    err = errors.QueryError("query 'Colour==1' (q) cannot be evaluated", ["Colour"])
    assert isinstance(err, errors.SetupError) and err.unknown == ("Colour",)


def test_no_adapter_decides_by_message_text() -> None:
    """The adapters (scoring/<family>/adapter.py) never call startswith/match/search on an exception's text."""
    adapters = sorted(PACKAGE.glob("*/adapter.py"))
    assert len(adapters) == 5
    for path in adapters:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("startswith", "match")
            ):
                target = ast.unparse(node.func.value)
                assert "msg" not in target and "exc" not in target, f"{path.name}:{node.lineno}: {ast.unparse(node)}"
