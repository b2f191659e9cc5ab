"""The reference a run scores against: the path ``--omfc-reference`` names, and, for an NC2017 package, the
reference of each EXPID's task."""

from __future__ import annotations

import re
from pathlib import Path

from ..editions import EditionTaskError, Task, parse_task
from ..paths import resolve_input
from .given import Given, InputError, text_of

__all__ = ["reference_for", "reference_path"]


def reference_path(
    given: Given, dataset_root: Path | None, *, package: bool = False, maps: bool = False
) -> Path | None:
    """The reference file (None: not given), a relative path taken from the dataset root, then from where it was
    given; a directory is accepted for a package (its tasks' references) and ForgeryNet's spatial task (the maps
    folder alone)."""
    text, base = text_of(given, "omfc_reference")
    if text is None:
        return None
    ref = resolve_input(text, base, dataset_root).resolve()
    if not (ref.is_file() or ((package or maps) and ref.is_dir())):
        what = "file (or, for a package, directory)" if package else "file or maps folder" if maps else "file"
        raise InputError(
            "omfc_reference", f"no such {what}: {ref} (a relative path is taken from the dataset root)", missing=True
        )
    return ref


def reference_for(given: Path, task: Task) -> Path | None:
    """The reference of ``task`` from what ``--omfc-reference`` names: a file (None when its name,
    ``<DataSet>-<task>-ref.csv``, gives another task), or a directory holding ``<DataSet>-<task>-ref.csv``
    directly or in a subfolder (NC2017: ``reference/manipulation/NC2017-manipulation-ref.csv``)."""
    if given.is_file():
        named = _reference_task(given)
        return given if named in (None, task) else None
    try:
        found = sorted(p for p in [*given.glob("*-ref.csv"), *given.glob("*/*-ref.csv")] if _reference_task(p) is task)
    except OSError:
        return None
    return found[0] if len(found) == 1 else None


def _reference_task(path: Path) -> Task | None:
    m = re.match(r"^(?P<ds>[^-]+)-(?P<task>.+?)-ref\.csv$", path.name, re.IGNORECASE)
    if m is None:
        return None
    try:
        return parse_task(m.group("task"))
    except EditionTaskError:
        return None
