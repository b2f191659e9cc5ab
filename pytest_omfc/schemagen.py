"""Generate ``schemas/``: one JSON Schema per model of :data:`SCHEMA_MODELS`.

    python -m pytest_omfc.schemagen [--check] [DIR]      # DIR defaults to ./schemas

Portal pipelines and other tools can validate rows and documents with these
files without importing pytest-omfc.  The files are derived, never edited:
``--check`` exits 1 and lists the drift (what CI runs through
``tests/test_schemas.py``); without it the directory is rewritten and JSON
files that no model produces any more are removed.

Two things the pydantic schema alone would get wrong for a system-output row
are filled in from the column matrix: ``required`` lists the required
*columns* (a blank mask name is a value, but the column itself is required,
COL-*), and ``ConfidenceScore`` carries the edition's range ([0, 1] for
MFC2019 and OpenMFC, SCORE-03, D-03), which pydantic enforces in a validator.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from .models import SCHEMA_MODELS as NIST_MODELS
from .models import OutputRow, required_columns
from .scoring.forgerynet import models as forgerynet

__all__ = [
    "SCHEMA_MODELS",
    "SCHEMA_DIALECT",
    "ID_PREFIX",
    "schema_for",
    "render",
    "expected_files",
    "drift",
    "write",
    "main",
]

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
ID_PREFIX = "urn:pytest-omfc:schema:"

#: Every model with a JSON Schema in ``schemas/``, by file stem: the NIST editions' and ForgeryNet's.
SCHEMA_MODELS: dict[str, type[BaseModel]] = dict(
    sorted({**NIST_MODELS, **{f"forgerynet.{n}": getattr(forgerynet, n) for n in forgerynet.__all__}}.items())
)


def schema_for(stem: str, model: type[BaseModel]) -> dict[str, Any]:
    """The JSON Schema of ``model`` as written to ``<stem>.json``."""
    schema: dict[str, Any] = model.model_json_schema(mode="validation")
    if isinstance(model, type) and issubclass(model, OutputRow):
        _as_row_of_columns(schema, model)
    schema["$schema"] = SCHEMA_DIALECT
    schema["$id"] = ID_PREFIX + stem
    schema["title"] = stem
    return schema


def _as_row_of_columns(schema: dict[str, Any], model: type[OutputRow]) -> None:
    schema["required"] = required_columns(model)
    score = schema.get("properties", {}).get("ConfidenceScore")
    if score is None or not model.score_range:
        return
    low, high = model.score_range
    for branch in score.get("anyOf", [score]):
        if branch.get("type") == "number":
            branch["minimum"], branch["maximum"] = low, high


def render(schema: dict[str, Any]) -> str:
    """Stable text: sorted keys, 2-space indent, trailing newline."""
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def expected_files() -> dict[str, str]:
    """File name -> content for every schema model."""
    return {f"{stem}.json": render(schema_for(stem, model)) for stem, model in sorted(SCHEMA_MODELS.items())}


def drift(directory: Path) -> list[str]:
    """What differs between ``directory`` and the models (empty when up to date)."""
    want = expected_files()
    have = {p.name for p in directory.glob("*.json")} if directory.is_dir() else set()
    out = [f"missing: {name}" for name in sorted(set(want) - have)]
    out += [f"stale (no model): {name}" for name in sorted(have - set(want))]
    out += [
        f"out of date: {name}"
        for name in sorted(set(want) & have)
        if (directory / name).read_text(encoding="utf-8") != want[name]
    ]
    return out


def write(directory: Path) -> list[str]:
    """Bring ``directory`` up to date; returns what changed."""
    changes = drift(directory)
    directory.mkdir(parents=True, exist_ok=True)
    want = expected_files()
    for name, text in want.items():
        path = directory / name
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8", newline="\n")
    for path in directory.glob("*.json"):
        if path.name not in want:
            path.unlink()
    return changes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pytest_omfc.schemagen", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report drift; exit 1 if there is any")
    parser.add_argument(
        "directory",
        nargs="?",
        default="schemas",
        type=Path,
        metavar="DIR",
        help="where the schemas live (default: ./schemas)",
    )
    args = parser.parse_args(argv)
    if args.check:
        problems = drift(args.directory)
        for line in problems:
            print(f"{args.directory}/{line.split(': ', 1)[1]}: {line.split(': ', 1)[0]}")
        if problems:
            print(f"{len(problems)} schema file(s) drifted; run: python -m pytest_omfc.schemagen {args.directory}")
            return 1
        print(f"{len(expected_files())} schemas in {args.directory} are up to date")
        return 0
    changes = write(args.directory)
    print(
        f"{len(expected_files())} schemas in {args.directory}"
        + (f"; {len(changes)} updated" if changes else "; unchanged")
    )
    for line in changes:
        print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
