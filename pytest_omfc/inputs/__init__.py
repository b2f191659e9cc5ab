"""What a run checks, resolved once from option values, for every entry point: the plugin (from the command
line and ini files), ``omfc_score()`` and ``omfc_validate()`` (from keyword arguments).

:func:`resolve_settings` turns the options into the settings of one submission folder, an NC2017 package (one
settings per EXPID) or a ForgeryNet submission, unpacking an uploaded archive through the caller's
``unpacked`` (which owns its clean-up); :func:`reference_path` finds the reference.  Nothing here imports
pytest: a bad option is an :class:`InputError` naming it, which the plugin words as a usage error
(``--omfc-index: ...``, exit 4) and the API as :class:`ValueError` or :class:`FileNotFoundError`
(``index: ...``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from ..editions import FORGERYNET_TASKS, Edition, EditionTaskError, parse_edition, parse_task
from .archive import archived_submission, is_archive, unpack_upload
from .forgerynet import forgerynet_inputs
from .given import Given, InputError, Values, flag, path_of, text_of, value_of
from .nist import edition_and_task, find_csv, find_index, nist_settings, package_settings
from .reference import reference_for, reference_path

if TYPE_CHECKING:
    from ..archive import ArchiveReport
    from ..submission import CheckSettings

__all__ = [
    "Given",
    "InputError",
    "Values",
    "archived_submission",
    "find_csv",
    "find_index",
    "is_archive",
    "path_of",
    "reference_for",
    "reference_path",
    "resolve_settings",
    "text_of",
    "unpack_upload",
    "value_of",
]

#: Unpacks an uploaded archive for the caller (None for a folder or a system output file).
Unpacked = Callable[[Path], "ArchiveReport | None"]


def resolve_settings(given: Given, unpacked: Unpacked) -> CheckSettings | None:
    """The settings of what ``--omfc-submission`` names (None: not given): a folder, a system output file, an
    archive (unpacked by ``unpacked``), an NC2017 package or a ForgeryNet submission; :class:`InputError`
    names the option to fix."""
    sub = path_of(given, "omfc_submission")
    if sub is None:
        return None
    if not sub.exists():
        raise InputError("omfc_submission", f"no such file or directory: {sub}", missing=True)

    csv: Path | None
    archive = unpacked(sub)
    if archive is not None:
        sub_dir = archived_submission(archive)
        csv = find_csv(sub_dir)
    elif sub.is_file():
        sub_dir, csv = sub.parent, sub
    else:
        sub_dir, csv = sub, find_csv(sub)

    edition, task = _named(given, "omfc_edition", parse_edition), _named(given, "omfc_task", parse_task)
    task_text = text_of(given, "omfc_task")[0]
    index = path_of(given, "omfc_index")
    dataset = path_of(given, "omfc_dataset")
    if dataset is not None and not dataset.is_dir():
        raise InputError("omfc_dataset", f"no such directory: {dataset}", missing=True)
    if edition is Edition.ForgeryNet or (edition is None and task in FORGERYNET_TASKS):
        return forgerynet_inputs(given, sub, task, dataset)
    if task in FORGERYNET_TASKS:
        raise InputError(
            "omfc_task", f"task {task.value} is a ForgeryNet task; add {flag('omfc_edition', 'ForgeryNet')}"
        )
    if index is None and dataset is None:
        raise InputError(
            "omfc_index",
            f"give the task index file (or {flag('omfc_dataset', 'ROOT')} with {flag('omfc_task')})",
        )
    if index is not None and not index.is_file():
        raise InputError(
            "omfc_index",
            f"{'not a regular file' if index.exists() else 'no such file'}: {index}",
            missing=not index.exists(),
        )
    if csv is None and (archive is not None or not sub.is_file()):
        from ..package import find_package

        layout = find_package(sub_dir)
        if layout is not None:
            return package_settings(given, layout, edition, task, index, dataset, archive)
    if index is None:
        assert dataset is not None
        from ..models.identifiers import expid_task

        # an EXPID's name gives its task (SUB-05): the dataset's index of that task, unless --omfc-task says
        index = find_index(dataset, task_text, None if task_text else expid_task(sub_dir.name))
    edition, task, dataset = edition_and_task(index, edition, task, dataset)
    return nist_settings(given, sub_dir, csv, index, edition, task, dataset, archive)


_T = TypeVar("_T")


def _named(given: Given, ini: str, parse: Callable[[str], _T]) -> _T | None:
    """An edition or task option parsed by its name (None: not given); :class:`InputError` naming the option."""
    text = text_of(given, ini)[0]
    try:
        return parse(text) if text else None
    except EditionTaskError as exc:
        raise InputError(ini, str(exc)) from None
