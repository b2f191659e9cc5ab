"""Generate ``schemas/``: one JSON Schema per model of :data:`SCHEMA_MODELS`; and the plain column table
:mod:`pytest_omfc.models.columns` that a check reads instead of the models.

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
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from .models import forgerynet
from .models.documents import SCHEMA_MODELS as NIST_MODELS
from .models.findings import FindingsDocument
from .models.tabular import OutputRow, required_columns

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
    "COLUMNS_MODULE",
    "columns_source",
    "columns_drift",
]

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
ID_PREFIX = "urn:pytest-omfc:schema:"

#: Every model with a JSON Schema in ``schemas/``, by file stem: the NIST editions' and ForgeryNet's.
SCHEMA_MODELS: dict[str, type[BaseModel]] = dict(
    sorted(
        {
            **NIST_MODELS,
            **{f"forgerynet.{n}": getattr(forgerynet, n) for n in forgerynet.__all__},
            "findings.FindingsDocument": FindingsDocument,
        }.items()
    )
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


#: The column table a check reads instead of the pydantic models (:mod:`pytest_omfc.models.columns`).
COLUMNS_MODULE = Path(__file__).resolve().parent / "models" / "columns.py"

_COLUMNS_HEAD = '''"""The system-output layouts and the index keys as plain data, what a check reads (no pydantic).

Generated from the models of :mod:`pytest_omfc.models.tabular` by ``python -m pytest_omfc.schemagen``, whose
``--check`` (``tests/test_schemas.py``) fails when this file and the models differ: edit the models, never
this file.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..editions import Group, Task

__all__ = ["INDEX_KEYS", "LAYOUTS", "Layout"]


@dataclass(frozen=True)
class Layout:
    """A system-output layout (COL-*): its model's name, every column in the plan's order, the required ones
    (the others may be left out of the header) and the status column that selects it."""

    name: str
    columns: tuple[str, ...]
    required: tuple[str, ...]
    status: str
'''


def _tuple(names: Sequence[str], indent: str) -> str:
    """A tuple of strings as ruff formats it: inline when empty or one, else one per line."""
    if len(names) <= 1:
        return "(" + "".join(f'"{n}",' for n in names) + ")"
    inner = "".join(f'{indent}    "{n}",\n' for n in names)
    return f"(\n{inner}{indent})"


def columns_source() -> str:
    """The text of :data:`COLUMNS_MODULE`, generated from the output and index models."""
    from .models.tabular import INDEX_MODELS, LAYOUTS, all_columns

    by_name = {model.__name__: model for model in LAYOUTS.values()}
    out = [_COLUMNS_HEAD, "", "_LAYOUTS: dict[str, Layout] = {"]
    for name, model in sorted(by_name.items()):
        out += [
            f'    "{name}": Layout(',
            f'        name="{name}",',
            f"        columns={_tuple(all_columns(model), '        ')},",
            f"        required={_tuple(required_columns(model), '        ')},",
            f'        status="{model.status}",',
            "    ),",
        ]
    out += ["}", "", "#: (edition group, task) -> its layout; a pair not listed is a task the edition does not offer."]
    out += ["LAYOUTS: dict[tuple[Group, Task], Layout] = {"]
    for (group, task), model in sorted(LAYOUTS.items(), key=lambda kv: (kv[0][0].name, kv[0][1].name)):
        out.append(f'    (Group.{group.name}, Task.{task.name}): _LAYOUTS["{model.__name__}"],')
    out += ["}", "", "#: The columns that key a trial in the index and the system output (IDX-01), per task."]
    out += ["INDEX_KEYS: dict[Task, tuple[str, ...]] = {"]
    for task, index_model in sorted(INDEX_MODELS.items(), key=lambda kv: kv[0].name):
        out.append(f"    Task.{task.name}: {_tuple(index_model.key, '    ')},")  # type: ignore[attr-defined]
    out += ["}", ""]
    return "\n".join(out)


def columns_drift() -> list[str]:
    """``["out of date: models/columns.py"]`` when the column table differs from the models, else ``[]``."""
    have = COLUMNS_MODULE.read_text(encoding="utf-8") if COLUMNS_MODULE.is_file() else ""
    return [] if have == columns_source() else ["out of date: pytest_omfc/models/columns.py"]


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
        for line in columns_drift():
            print(f"{line.split(': ', 1)[1]}: {line.split(': ', 1)[0]}")
            problems.append(line)
        if problems:
            print(f"{len(problems)} schema file(s) drifted; run: python -m pytest_omfc.schemagen {args.directory}")
            return 1
        print(f"{len(expected_files())} schemas in {args.directory} are up to date")
        return 0
    changes = write(args.directory)
    if columns_drift():
        COLUMNS_MODULE.write_text(columns_source(), encoding="utf-8", newline="\n")
        changes.append("updated: pytest_omfc/models/columns.py")
    print(
        f"{len(expected_files())} schemas in {args.directory}"
        + (f"; {len(changes)} updated" if changes else "; unchanged")
    )
    for line in changes:
        print("  " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
