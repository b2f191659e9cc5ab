"""CONTRIBUTING.md's "How to add a scorer" works as written: its code block registers a toy scorer that
the registry lists, whose adapter scores, and whose engine errors become fail or skip by their class."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pandas as pd
import pytest

from pytest_omfc.editions import Task
from pytest_omfc.scoring import errors
from pytest_omfc.scoring.registry import SCORERS, NotScored, ScoreResult, ScoringInput
from pytest_omfc.scoring.scorers import bounded, integer

CONTRIBUTING = Path(__file__).resolve().parents[1] / "CONTRIBUTING.md"


def _snippet() -> str:
    text = CONTRIBUTING.read_text(encoding="utf-8")
    section = text[text.index("## How to add a scorer") :]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None, "the section has no python block"
    # the block is written for pytest_omfc/scoring/scorers.py: make its relative imports absolute
    return code.group(1).replace("from .", "from pytest_omfc.scoring.")


@dataclass
class _Result:
    query: str | None
    kind: str
    metrics: dict[str, float]


def _input(has_column: bool) -> ScoringInput:
    table = SimpleNamespace(has=lambda col: has_column, df=pd.DataFrame({"OutputFoo": ["1"]}))
    return ScoringInput(
        system=table,
        index=None,
        column_rule="COL-99",
        reference=Path("ref.csv"),
        task=Task.PG,  # type: ignore[arg-type]
        submission=Path("."),
        dataset_root=None,
        queries=(),
        query_partition=None,
        optout=False,
        convention="mediscore",
        jobs=1,
        options={"level": 3},
    )


@pytest.fixture
def toy() -> Any:
    behaviour: dict[str, Any] = {"raise": None}

    def score_foo(index: Any, reference: Any, system: Any, level: int) -> Any:
        if behaviour["raise"] is not None:
            raise behaviour["raise"]
        return SimpleNamespace(results=[_Result(None, "all", {"Foo": level / 10})])

    namespace: dict[str, Any] = {"Task": Task, "bounded": bounded, "integer": integer, "score_foo": score_foo}
    exec(compile(_snippet(), str(CONTRIBUTING), "exec"), namespace)  # our own documentation
    try:
        yield namespace["FOO"], behaviour
    finally:
        SCORERS.pop("foo", None)


def test_the_snippet_registers_a_scorer_that_scores(toy: Any) -> None:
    foo, _ = toy
    assert SCORERS["foo"] is foo and foo.applies(Task.PG, ["FooColumn"]) and not foo.applies(Task.PG, ["Other"])
    assert foo.options[0].parse("7") == 7
    with pytest.raises(ValueError, match="must be an integer from 1 to 9"):
        foo.options[0].parse("10")
    [out] = foo.run(_input(True))
    assert isinstance(out, ScoreResult) and out.entry["metrics"] == {"Foo": 0.3} and out.properties == [("Foo", 0.3)]
    [absent] = foo.run(_input(False))
    assert absent == NotScored("COL-99 failed: column OutputFoo is absent")


@pytest.mark.parametrize(
    ("exc", "fail"),
    [
        (errors.SetupError("reference lacks FooColumn"), True),
        (errors.SubmissionError("system output has no rows"), False),
    ],
)
def test_the_snippet_lets_the_error_class_decide(toy: Any, exc: Exception, fail: bool) -> None:
    foo, behaviour = toy
    behaviour["raise"] = exc
    [out] = foo.run(_input(True))
    assert out == NotScored(str(exc), fail=fail)
