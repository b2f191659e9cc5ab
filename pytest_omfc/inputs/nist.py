"""The NIST editions' inputs: the submission folder and its system output, the task index (given, or found in
the dataset), the edition and task (given, or read from the index's name), an NC2017 package's EXPIDs."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING

from ..editions import Edition, EditionTaskError, Task, infer_from_index_name, parse_task
from ..paths import not_regular
from .given import Given, InputError, flag, value_of

if TYPE_CHECKING:
    from ..archive import ArchiveReport
    from ..package import PackageLayout, PackageSettings
    from ..submission import Settings

__all__ = ["edition_and_task", "find_csv", "find_index", "nist_settings", "package_settings"]


def find_csv(sub_dir: Path) -> Path | None:
    """``<ID>/<ID>.csv``; else the only ``*.csv`` file (PKG-01 reports the name); else the only
    ``<ID>.<ext>`` that is not the description (PKG-02 reports the extension, e.g. ``.tsv``).
    ``None`` (CSV-08) when there is no candidate or more than one."""
    exact = sub_dir / f"{sub_dir.name}.csv"
    if not_regular(exact) is None:  # never raises (a 255-character folder name makes the file name too long)
        return exact
    try:
        files = sorted(p for p in sub_dir.iterdir() if p.is_file())
    except OSError:
        return None
    for found in (
        [p for p in files if p.suffix.lower() == ".csv"],
        [p for p in files if p.stem == sub_dir.name and p.suffix not in ("", ".txt")],
    ):
        if found:
            return found[0] if len(found) == 1 else None
    return None


def find_index(dataset: Path, task_text: str | None, want: Task | None = None) -> Path:
    """The task's index under ``<dataset>/indexes/``: the one named ``-<task_text>-index.csv``, else the one
    whose name gives the task (``want``, else ``task_text``'s); the one index there when no task is known."""
    indexes = dataset / "indexes"
    if not indexes.is_dir():
        raise InputError("omfc_dataset", f"{dataset} has no indexes/ directory")
    every = sorted(p for p in indexes.iterdir() if p.is_file() and p.name.lower().endswith("-index.csv"))
    found = every
    if task_text or want is not None:
        want = want or parse_task(str(task_text))
        suffix = f"-{task_text.strip().lower()}-index.csv" if task_text else None
        exact = [p for p in every if suffix and p.name.lower().endswith(suffix)]
        found = exact or [p for p in every if infer_from_index_name(p)[1] is want]
    if len(found) == 1:
        return found[0]
    names = ", ".join(p.name for p in (found or every)) or "none"
    told = task_text.strip() if task_text else (want.value if want is not None else None)
    if not found:
        what = f"no index file for task {told}" if told else "no index file (<DataSet>-<TaskID>-index.csv)"
        raise InputError("omfc_dataset", f"{what} in {indexes} (found: {names}); add {flag('omfc_index', 'PATH')}")
    hint = f"add {flag('omfc_task', 'TASKID')}" if not told else f"add {flag('omfc_index', 'PATH')}"
    raise InputError("omfc_dataset", f"{len(found)} index files match in {indexes} ({names}); {hint}")


def task_from_column(index: Path) -> Task | None:
    """The TaskID of the index's first row, when its name does not give the task."""
    try:
        with index.open(encoding="utf-8-sig", errors="replace", newline="") as fh:
            header = [h.strip().strip('"') for h in fh.readline().strip().split("|")]
            row = [v.strip().strip('"') for v in fh.readline().strip().split("|")]
        value = dict(zip(header, row, strict=False)).get("TaskID", "")
        return parse_task(value) if value else None
    except (OSError, EditionTaskError):
        return None


def edition_and_task(
    index: Path, edition: Edition | None, task: Task | None, dataset: Path | None
) -> tuple[Edition, Task, Path]:
    """What the index's name (and TaskID column) tells, where the options did not; the dataset root."""
    from ..models.columns import LAYOUTS

    if dataset is None:
        dataset = index.parent.parent if index.parent.name == "indexes" else index.parent
    inferred_edition, inferred_task = infer_from_index_name(index)
    edition = edition or inferred_edition
    task = task or inferred_task or task_from_column(index)
    if edition is None:
        raise InputError(
            "omfc_edition", f"cannot infer the edition from {index.name}; add {flag('omfc_edition', 'NAME')}"
        )
    if task is None:
        raise InputError("omfc_task", f"cannot infer the task from {index.name}; add {flag('omfc_task', 'TASKID')}")
    if (edition.group, task) not in LAYOUTS:
        raise InputError("omfc_task", f"task {task.value} is not offered in {edition.value}")
    return edition, task, dataset


def nist_settings(
    given: Given,
    sub_dir: Path,
    csv: Path | None,
    index: Path,
    edition: Edition,
    task: Task,
    dataset: Path,
    archive: ArchiveReport | None,
    shown_from: Path | None = None,
) -> Settings:
    """One submission folder's settings (an EXPID of a package: its names shown from the package's parent)."""
    from ..submission import Settings

    return Settings(
        submission=sub_dir,
        csv=csv,
        index=index,
        edition=edition,
        task=task,
        dataset_root=dataset,
        max_findings=value_of(given, "omfc_max_findings"),
        slices=value_of(given, "omfc_slices"),
        jobs=value_of(given, "omfc_jobs"),
        dask=value_of(given, "omfc_dask") or None,
        allow_touching_segments=value_of(given, "omfc_allow_touching_segments"),
        ignore_overlap=value_of(given, "omfc_ignore_overlap"),
        archive=archive,
        shown_from=shown_from,
    )


def package_settings(
    given: Given,
    layout: PackageLayout,
    edition: Edition | None,
    task: Task | None,
    index: Path | None,
    dataset: Path | None,
    archive: ArchiveReport | None,
) -> PackageSettings:
    """An NC2017 package: each EXPID folder checked as a submission of the task its name gives (else
    ``--omfc-task``), against ``--omfc-index`` when that is the task's, else the task's index under
    ``--omfc-dataset``.  What cannot be checked so is PKG-10's to report (the upload decides it, not the
    command line): nothing here is a usage error but a missing index and dataset."""
    from ..models.columns import LAYOUTS
    from ..models.identifiers import expid_task
    from ..package import PackageSettings

    members: list[Settings] = []
    unchecked: list[tuple[str, str]] = [
        (name, "the package holds only EXPID folders <EXPID>/ with <EXPID>/<EXPID>.csv") for name in layout.others
    ]
    # --omfc-index: the edition, task and dataset root it gives, for the EXPIDs of that task
    told = edition_and_task(index, edition, task, dataset) if index is not None else None
    limit = value_of(given, "omfc_package_max_expids")
    for name in layout.expids:
        if len(members) >= limit:  # each EXPID costs its own rules' run: 3,000 of them took over 5 minutes
            unchecked.append((name, f"the package holds more than {limit} EXPID folders (--omfc-package-max-expids)"))
            continue
        want = expid_task(name) or task or (told[1] if told is not None else None)
        if want is None:
            unchecked.append(
                (
                    name,
                    "its name gives no task: <TASK>, the 4th of its 7 '_'-separated fields, must be "
                    "Manipulation, Splice, ProvenanceFiltering or Provenance",
                )
            )
            continue
        if told is not None and index is not None and told[1] is not want:
            unchecked.append(
                (
                    name,
                    f"an EXPID of task {want.value}, and the check was given the {told[1].value} "
                    f"index {index.name} only: give --omfc-dataset ROOT so that each EXPID finds "
                    "its task's index",
                )
            )
            continue
        if told is not None and index is not None:
            member_index, (member_edition, _, root) = index, told
        else:
            assert dataset is not None
            try:
                member_index = find_index(dataset, None, want)
            except InputError as exc:
                unchecked.append((name, exc.said()))
                continue
            member_edition = edition or infer_from_index_name(member_index)[0] or Edition.NC2017
            root = dataset
        if (member_edition.group, want) not in LAYOUTS:
            unchecked.append((name, f"task {want.value} is not offered in {member_edition.value}"))
            continue
        members.append(
            nist_settings(
                given,
                layout.folder / name,
                layout.folder / name / f"{name}.csv",
                member_index,
                member_edition,
                want,
                root,
                archive,
                shown_from=layout.folder.parent,
            )
        )
    if len(members) > 1:
        # --omfc-slices N spreads a file-heavy rule over N items for xdist; a package's EXPIDs are already
        # spread, so the N slices are shared among them (at least one each): 1,000 EXPIDs of a trial or two no
        # longer carry 6,000 items that each check nothing
        share = max(1, value_of(given, "omfc_slices") // len(members))
        members = [dataclasses.replace(m, slices=share) for m in members]
    first = members[0] if members else None
    return PackageSettings(
        submission=layout.folder,
        csv=None,
        edition=first.edition if first else (edition or Edition.NC2017),
        task=first.task if first else (task or Task.IMG),
        dataset_root=first.dataset_root if first else dataset,
        max_findings=value_of(given, "omfc_max_findings"),
        slices=value_of(given, "omfc_slices"),
        jobs=value_of(given, "omfc_jobs"),
        dask=value_of(given, "omfc_dask") or None,
        archive=archive,
        members=tuple(members),
        unchecked=tuple(sorted(unchecked)),
    )
