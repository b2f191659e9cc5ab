"""CONTRIBUTING.md's "How to add a scorer" works as written: its blocks make a family folder whose line in
``families.py`` registers a scorer that the registry lists, that scores, whose engine errors become fail or
skip by their class, and that the generic view shows."""

from __future__ import annotations

import importlib
import re
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pandas as pd
import pytest
from helpers.paths import REPO

import pytest_omfc.scoring
from pytest_omfc import errors
from pytest_omfc.editions import Task
from pytest_omfc.report.views import summary_rows, view_for
from pytest_omfc.scoring.registry import SCORERS, NotScored, ScoreResult, ScoringInput

CONTRIBUTING = REPO / "CONTRIBUTING.md"


def _blocks() -> tuple[dict[str, str], str]:
    """The family's files (path under scoring/foo/ -> text) and the line for families.py."""
    text = CONTRIBUTING.read_text(encoding="utf-8")
    start = text.index("## How to add a scorer")
    section = text[start : text.index("\n## ", start)]
    files: dict[str, str] = {}
    line = ""
    for code in re.findall(r"```python\n(.*?)```", section, re.S):
        first = code.splitlines()[0]
        m = re.fullmatch(r"# pytest_omfc/scoring/foo/(\w+\.py)", first)
        if m:
            files[m.group(1)] = code
        else:
            line = code
    assert set(files) == {"engine.py", "options.py", "adapter.py"}, sorted(files)
    assert line.startswith("from .foo import adapter"), line
    return files, line


@pytest.fixture
def foo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    files, line = _blocks()
    folder = tmp_path / "foo"
    folder.mkdir()
    (folder / "__init__.py").write_text("", encoding="utf-8")
    for name, code in files.items():
        (folder / name).write_text(code, encoding="utf-8")
    monkeypatch.setattr(pytest_omfc.scoring, "__path__", [*pytest_omfc.scoring.__path__, str(tmp_path)])
    namespace: dict[str, Any] = {"__name__": "pytest_omfc.scoring._toy", "__package__": "pytest_omfc.scoring"}
    try:
        exec(compile(line, str(CONTRIBUTING), "exec"), namespace)  # our own documentation
        yield namespace["foo"].FOO, importlib.import_module("pytest_omfc.scoring.foo.engine")
    finally:
        SCORERS.pop("foo", None)
        for name in [m for m in sys.modules if m.startswith("pytest_omfc.scoring.foo")]:
            del sys.modules[name]


def _input(has_column: bool) -> ScoringInput:
    table = SimpleNamespace(has=lambda col: has_column, df=pd.DataFrame({"OutputFoo": ["1"]}))
    return ScoringInput(
        system=table,  # type: ignore[arg-type]
        index=None,
        column_rule="COL-99",
        reference=Path("ref.csv"),
        task=Task.PG,
        submission=Path("."),
        dataset_root=None,
        queries=(),
        query_partition=None,
        optout=False,
        convention="mediscore",
        jobs=1,
        options={"level": 3},
    )


def test_the_family_registers_a_scorer_that_scores(foo: Any) -> None:
    scorer, _ = foo
    assert SCORERS["foo"] is scorer and scorer.applies(Task.PG, ["FooColumn"]) and not scorer.applies(Task.PG, ["X"])
    assert scorer.options[0].parse("7") == 7
    with pytest.raises(ValueError, match="must be an integer from 1 to 9"):
        scorer.options[0].parse("10")
    [out] = scorer.run(_input(True))
    assert isinstance(out, ScoreResult) and out.entry["metrics"] == {"Foo": 0.3} and out.properties == [("Foo", 0.3)]
    [absent] = scorer.run(_input(False))
    assert absent == NotScored("COL-99 failed: column OutputFoo is absent")
    # without a view of its own, the generic view shows its metrics
    view = view_for("foo", scorer.metrics)
    rows, _, _ = summary_rows(view, [(0, out.entry)], {})
    assert view.columns({}) == ["Foo"] and rows == [("all", "0.3000")]


@pytest.mark.parametrize(
    ("exc", "fail"),
    [
        (errors.SetupError("reference lacks FooColumn"), True),
        (errors.SubmissionError("system output has no rows"), False),
    ],
)
def test_the_error_class_decides(foo: Any, monkeypatch: pytest.MonkeyPatch, exc: Exception, fail: bool) -> None:
    scorer, engine = foo

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise exc

    monkeypatch.setattr(engine, "score_foo", refuse)
    [out] = scorer.run(_input(True))
    assert out == NotScored(str(exc), fail=fail)


def test_the_engine_as_written_skips_an_empty_output(foo: Any) -> None:
    scorer, _ = foo
    inp = _input(True)
    empty = SimpleNamespace(has=lambda col: True, df=pd.DataFrame({"OutputFoo": []}))
    [out] = scorer.run(ScoringInput(**{**inp.__dict__, "system": empty}))
    assert out == NotScored("system output has no rows", fail=False)
