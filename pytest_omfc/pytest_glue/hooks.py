"""pytest hooks: options, settings, the configuration guards, collection of the submission.

``pytest --omfc-submission DIR --omfc-index INDEX`` collects the submission
directory as a :class:`SubmissionDir` whose children are :class:`RuleItem`
objects, one per applicable rule of the registry.  The submission is parsed at
most once per process (see :mod:`pytest_omfc.submission`); under xdist each
worker rebuilds the same :class:`Settings` from the command line, and the
controller never collects.

Nothing of the submission or the dataset may configure the run: a
configfile, rootdir or conftest.py inside either is a usage error (exit 4)
pointing to the ``pytest-omfc`` entry point (:mod:`pytest_omfc.cli`), which
never reads them.

This module is imported in every pytest run of an environment where the
plugin is installed, also by test suites that never check a submission: at
module level it imports only pytest, the standard library and light modules
(editions, findings, the scorer registry's option declarations).  The rules,
the submission (numpy, pandas, pydantic, Pillow) and the engines are imported
by :func:`pytest_configure` when ``--omfc-submission`` is given
(CONTRIBUTING.md, "Keeping the plugin light"; ``tests/glue/test_lazy_imports.py``).
"""

from __future__ import annotations

import atexit
import dataclasses
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..editions import (
    FORGERYNET_CLASSES,
    FORGERYNET_TASKS,
    Edition,
    EditionTaskError,
    Task,
    infer_from_index_name,
    parse_edition,
    parse_task,
)
from ..paths import not_regular
from ..scoring.families import every_option, option
from . import scoring as _scoring
from .compat import cache_dir, collection_anchors, loaded_conftests, move_cache, only_collect
from .state import (
    SETTINGS_KEY,
    UsageProblem,
    given,
    node_text,
    resolved,
)

if TYPE_CHECKING:  # imported when a submission is checked (see the module docstring)
    from ..archive import ArchiveReport
    from ..forgerynet.submission import ForgeryNetSettings
    from ..package import PackageLayout, PackageSettings
    from ..submission import CheckSettings, Settings


def pytest_addoption(parser: pytest.Parser) -> None:
    """Every option of :func:`~pytest_omfc.scoring.families.every_option`: a flag and an ini setting each."""
    group = parser.getgroup("omfc", "media-forensics submission checks (pytest-omfc)")
    for opt in every_option():
        group.addoption(opt.flag, dest=opt.ini, default=None, **opt.kwargs)
        parser.addini(opt.ini, opt.help, type=opt.ini_type, default=[] if opt.repeatable else None)


def _option(config: pytest.Config, name: str) -> tuple[str | None, Path]:
    """The given text of an option (CLI, else ini) and the directory a relative path in it is taken from."""
    value, base = given(config, name)
    return (None if value is None else str(value)), base


def _path(config: pytest.Config, name: str) -> Path | None:
    """A path option (parsed by its declaration), relative paths taken from where it was given."""
    value, base = given(config, name)
    if value is None:
        return None
    try:
        text = option(name).parse(value)
    except ValueError as exc:
        raise UsageProblem(f"{option(name).flag}: {exc}") from None
    p = Path(text).expanduser()
    return (p if p.is_absolute() else base / p).resolve()


def resolve_settings(config: pytest.Config) -> CheckSettings | None:
    """Turn the options into :class:`Settings` (or, for an NC2017 package, ``PackageSettings`` holding one
    per EXPID); :class:`UsageProblem` names the flag to fix."""
    sub = _path(config, "omfc_submission")
    if sub is None:
        return None
    if not sub.exists():
        raise UsageProblem(f"--omfc-submission: no such file or directory: {sub}")

    csv: Path | None
    archive = _unpacked(config, sub)
    if archive is not None:
        sub_dir = _archived_submission(archive)
        csv = _find_csv(sub_dir)
    elif sub.is_file():
        sub_dir, csv = sub.parent, sub
    else:
        sub_dir, csv = sub, _find_csv(sub)

    edition_text, _ = _option(config, "omfc_edition")
    task_text, _ = _option(config, "omfc_task")
    try:
        edition = parse_edition(edition_text) if edition_text else None
    except EditionTaskError as exc:
        raise UsageProblem(f"--omfc-edition: {exc}") from None
    try:
        task = parse_task(task_text) if task_text else None
    except EditionTaskError as exc:
        raise UsageProblem(f"--omfc-task: {exc}") from None

    index = _path(config, "omfc_index")
    dataset = _path(config, "omfc_dataset")
    if dataset is not None and not dataset.is_dir():
        raise UsageProblem(f"--omfc-dataset: no such directory: {dataset}")
    if edition is Edition.ForgeryNet or (edition is None and task in FORGERYNET_TASKS):
        return _forgerynet_settings(config, sub, task, dataset)
    if task in FORGERYNET_TASKS:
        raise UsageProblem(f"--omfc-task: task {task.value} is a ForgeryNet task; add --omfc-edition ForgeryNet")
    if index is None and dataset is None:
        raise UsageProblem("--omfc-index: give the task index file (or --omfc-dataset ROOT with --omfc-task)")
    if index is not None and not index.is_file():
        raise UsageProblem(f"--omfc-index: {'not a regular file' if index.exists() else 'no such file'}: {index}")
    if csv is None and (archive is not None or not sub.is_file()):
        from ..package import find_package

        layout = find_package(sub_dir)
        if layout is not None:
            return _package_settings(config, layout, edition, task, index, dataset, archive)
    if index is None:
        assert dataset is not None
        from ..models.identifiers import expid_task

        # an EXPID's name gives its task (SUB-05): the dataset's index of that task, unless --omfc-task says
        index = _find_index(dataset, task_text, None if task_text else expid_task(sub_dir.name))
    edition, task, dataset = _edition_and_task(index, edition, task, dataset)
    return _nist_settings(config, sub_dir, csv, index, edition, task, dataset, archive)


def _edition_and_task(
    index: Path, edition: Edition | None, task: Task | None, dataset: Path | None
) -> tuple[Edition, Task, Path]:
    """What the index's name (and TaskID column) tells, where the options did not; the dataset root."""
    from ..models.columns import LAYOUTS

    if dataset is None:
        dataset = index.parent.parent if index.parent.name == "indexes" else index.parent
    inferred_edition, inferred_task = infer_from_index_name(index)
    edition = edition or inferred_edition
    task = task or inferred_task or _task_from_column(index)
    if edition is None:
        raise UsageProblem(f"--omfc-edition: cannot infer the edition from {index.name}; add --omfc-edition NAME")
    if task is None:
        raise UsageProblem(f"--omfc-task: cannot infer the task from {index.name}; add --omfc-task TASKID")
    if (edition.group, task) not in LAYOUTS:
        raise UsageProblem(f"--omfc-task: task {task.value} is not offered in {edition.value}")
    return edition, task, dataset


def _nist_settings(
    config: pytest.Config,
    sub_dir: Path,
    csv: Path | None,
    index: Path,
    edition: Edition,
    task: Task,
    dataset: Path,
    archive: ArchiveReport | None,
    shown_from: Path | None = None,
) -> Settings:
    from ..submission import Settings

    return Settings(
        submission=sub_dir,
        csv=csv,
        index=index,
        edition=edition,
        task=task,
        dataset_root=dataset,
        max_findings=resolved(config, "omfc_max_findings"),
        slices=resolved(config, "omfc_slices"),
        jobs=resolved(config, "omfc_jobs"),
        dask=resolved(config, "omfc_dask") or None,
        allow_touching_segments=resolved(config, "omfc_allow_touching_segments"),
        ignore_overlap=resolved(config, "omfc_ignore_overlap"),
        archive=archive,
        shown_from=shown_from,
    )


def _package_settings(
    config: pytest.Config,
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
    given = _edition_and_task(index, edition, task, dataset) if index is not None else None
    limit = resolved(config, "omfc_package_max_expids")
    for name in layout.expids:
        if len(members) >= limit:  # each EXPID costs its own rules' run: 3,000 of them took over 5 minutes
            unchecked.append((name, f"the package holds more than {limit} EXPID folders (--omfc-package-max-expids)"))
            continue
        want = expid_task(name) or task or (given[1] if given is not None else None)
        if want is None:
            unchecked.append(
                (
                    name,
                    "its name gives no task: <TASK>, the 4th of its 7 '_'-separated fields, must be "
                    "Manipulation, Splice, ProvenanceFiltering or Provenance",
                )
            )
            continue
        if given is not None and index is not None and given[1] is not want:
            unchecked.append(
                (
                    name,
                    f"an EXPID of task {want.value}, and the check was given the {given[1].value} "
                    f"index {index.name} only: give --omfc-dataset ROOT so that each EXPID finds "
                    "its task's index",
                )
            )
            continue
        if given is not None and index is not None:
            member_index, (member_edition, _, root) = index, given
        else:
            assert dataset is not None
            try:
                member_index = _find_index(dataset, None, want)
            except UsageProblem as exc:
                unchecked.append((name, str(exc).removeprefix("--omfc-dataset: ")))
                continue
            member_edition = edition or infer_from_index_name(member_index)[0] or Edition.NC2017
            root = dataset
        if (member_edition.group, want) not in LAYOUTS:
            unchecked.append((name, f"task {want.value} is not offered in {member_edition.value}"))
            continue
        members.append(
            _nist_settings(
                config,
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
        share = max(1, resolved(config, "omfc_slices") // len(members))
        members = [dataclasses.replace(m, slices=share) for m in members]
    first = members[0] if members else None
    return PackageSettings(
        submission=layout.folder,
        csv=None,
        edition=first.edition if first else (edition or Edition.NC2017),
        task=first.task if first else (task or Task.IMG),
        dataset_root=first.dataset_root if first else dataset,
        max_findings=resolved(config, "omfc_max_findings"),
        slices=resolved(config, "omfc_slices"),
        jobs=resolved(config, "omfc_jobs"),
        dask=resolved(config, "omfc_dask") or None,
        archive=archive,
        members=tuple(members),
        unchecked=tuple(sorted(unchecked)),
    )


#: The archive report a controller hands to its xdist workers (they never unpack again).
ARCHIVE_INPUT = "omfc_archive"


def _is_archive(path: Path) -> bool:
    from ..archive import kind_of

    return kind_of(path) is not None


def _unpacked(config: pytest.Config, sub: Path) -> ArchiveReport | None:
    """An uploaded archive (ARC rules): unpacked once, by the controller (or the only process), member by
    member into a private directory removed when the session ends; xdist workers read the controller's
    report.  None for a directory or a system output file."""
    from ..archive import UNPACKED, ArchiveLimits, ArchiveReport, private_dir, remove, unpack

    if not _is_archive(sub):
        return None
    worker = getattr(config, "workerinput", None)
    if worker is not None and ARCHIVE_INPUT in worker:
        return ArchiveReport.from_dict(json.loads(worker[ARCHIVE_INPUT]))
    from .. import private as _private

    _private.sweep()  # what runs killed before their cleanup left in TMPDIR
    folder = private_dir()

    unpacked: list[int] = [0]  # members, once unpacked: a large tree is removed by a detached rm

    def cleanup() -> None:
        remove(folder, unpacked[0])
        _private.forget(cleanup)

    config.add_cleanup(cleanup)
    atexit.register(lambda: remove(folder, unpacked[0]))  # also when pytest never reaches its cleanup
    _private.on_terminate(cleanup)  # and on SIGTERM (a portal's time-out)
    dest = folder / UNPACKED
    dest.mkdir()
    limits = ArchiveLimits(
        entries=resolved(config, "omfc_archive_max_entries"),
        total_bytes=resolved(config, "omfc_archive_max_bytes"),
        ratio=resolved(config, "omfc_archive_max_ratio"),
    )
    report = unpack(sub, dest, limits)
    unpacked[0] = report.members
    config.pluginmanager.register(_ArchiveToWorkers(report), "omfc-archive-to-workers")
    return report


class _ArchiveToWorkers:
    """Hands the controller's archive report to every xdist worker (an optional hook: xdist may be absent)."""

    def __init__(self, report: ArchiveReport) -> None:
        self.text = json.dumps(report.as_dict())

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[ARCHIVE_INPUT] = self.text


def _archived_submission(report: ArchiveReport) -> Path:
    """The submission folder inside the private directory: the archive's one top folder; when the members
    were packed without one (from inside the folder), a folder named after the archive gathers them (ARC-02
    says so)."""
    from ..archive import GATHERED, gathered_name
    from ..models.identifiers import expid_task, package_problem
    from ..package import find_package

    root = Path(report.root)
    dirs = [t for t in report.tops if (root / t).is_dir()]
    if len(report.tops) == 1 and dirs:
        folder = root / dirs[0]
        while True:  # a prefix (home/user/<SubID>/): down to the first folder holding a file, a second folder or
            # mask/, or an NC2017 package holding one EXPID folder (named as one: home/user/<SubID>/ is no package)
            inside = list(folder.iterdir())
            if len(inside) != 1 or not inside[0].is_dir() or inside[0].name == "mask":
                return folder
            if find_package(folder) and (expid_task(inside[0].name) or package_problem(folder.name) is None):
                return folder
            folder = inside[0]
    folder = root.parent / GATHERED / gathered_name(Path(report.archive).name)  # beside unpacked/, never in it
    folder.mkdir(parents=True, exist_ok=True)
    for top in report.tops:
        if (root / top).exists() or (root / top).is_symlink():
            (root / top).rename(folder / top)
    return folder


def _forgerynet_settings(
    config: pytest.Config, sub: Path, task: Task | None, dataset: Path | None
) -> ForgeryNetSettings:
    """ForgeryNet: no index, the reference lists the IDs; ``--omfc-reference`` is needed to validate."""
    names = ", ".join(t.value for t in sorted(FORGERYNET_TASKS, key=list(Task).index))
    if task is None:
        raise UsageProblem(f"--omfc-task: give the ForgeryNet task: {names}")
    if task not in FORGERYNET_TASKS:
        raise UsageProblem(f"--omfc-task: task {task.value} is not offered in ForgeryNet (must be one of {names})")
    if _option(config, "omfc_index")[0] is not None:
        raise UsageProblem("--omfc-index: ForgeryNet takes no index (the reference lists the IDs); drop it")
    ref_text, ref_base = _option(config, "omfc_reference")
    if ref_text is None:
        raise UsageProblem("--omfc-reference: ForgeryNet needs the reference (it lists the IDs to check)")
    ref = Path(ref_text).expanduser()
    if not ref.is_absolute():
        ref = (dataset / ref) if dataset is not None else (ref_base / ref)
    ref = ref.resolve()
    if not (ref.is_file() or (task is Task.FSL and ref.is_dir())):  # spatial: also the maps folder alone
        where = "the dataset root" if dataset is not None else "the current directory"
        what = "file or maps folder" if task is Task.FSL else "file"
        raise UsageProblem(f"--omfc-reference: no such {what}: {ref} (a relative path is taken from {where})")
    classes_text, _ = _option(config, "omfc_classes")
    classes = 2
    if classes_text is not None:
        allowed = FORGERYNET_CLASSES.get(task)
        if allowed is None:
            raise UsageProblem(
                f"--omfc-classes: only for image-classification and video-classification (got task {task.value})"
            )
        try:
            classes = option("omfc_classes").parse(classes_text)
        except ValueError:
            classes = -1
        if classes not in allowed:
            raise UsageProblem(
                f"--omfc-classes: must be {', '.join(map(str, allowed[:-1]))} or {allowed[-1]} for "
                f"{task.value} (got {str(classes_text).strip()!r})"
            )
    task_options = _forgerynet_task_options(config, task, dataset)
    from ..forgerynet.submission import forgerynet_settings  # numpy and pandas: only for a ForgeryNet check

    return forgerynet_settings(
        sub,
        ref,
        task,
        classes,
        dataset,
        resolved(config, "omfc_max_findings"),
        resolved(config, "omfc_jobs"),
        **task_options,
    )


def _forgerynet_task_options(config: pytest.Config, task: Task, dataset: Path | None) -> dict[str, Any]:
    """The options of one ForgeryNet task: ``--omfc-spatial-maps`` and ``--omfc-map-pixels`` (spatial),
    ``--omfc-time-unit``, ``--omfc-fps`` and ``--omfc-video-info`` (temporal); given for another task, a usage
    error.  The file is resolved as every input path is (:func:`pytest_omfc.paths.resolve_input`), the folder
    likewise (the dataset root first, then the invocation or ini directory)."""
    from ..paths import resolve_input

    maps_text, maps_base = _option(config, "omfc_spatial_maps")
    if task is not Task.FSL and _option(config, "omfc_map_pixels")[0] is not None:
        raise UsageProblem(f"--omfc-map-pixels: only for the ForgeryNet spatial task (got {task.value})")
    if task is Task.FSL:
        budget = {"map_pixels": resolved(config, "omfc_map_pixels")}
        if maps_text is None:
            return budget
        given_maps = Path(maps_text).expanduser()  # a folder: the dataset root first, then the base
        cands = (
            [given_maps]
            if given_maps.is_absolute()
            else [*([dataset / given_maps] if dataset else []), maps_base / given_maps]
        )
        maps = next((c for c in cands if c.is_dir()), cands[-1]).absolute()
        if not maps.is_dir():
            raise UsageProblem(f"--omfc-spatial-maps: no such folder: {maps}")
        return {**budget, "spatial_maps": maps}
    if maps_text is not None:
        raise UsageProblem(f"--omfc-spatial-maps: only for the ForgeryNet spatial task (got {task.value})")
    given = {name: _option(config, name)[0] is not None for name in ("omfc_time_unit", "omfc_fps", "omfc_video_info")}
    if task is not Task.FTL:
        flag = next((n for n, g in given.items() if g), None)
        if flag is not None:
            raise UsageProblem(f"--{flag.replace('_', '-')}: only for the ForgeryNet temporal task (got {task.value})")
        return {}
    unit = resolved(config, "omfc_time_unit")
    fps = resolved(config, "omfc_fps")
    if unit == "seconds" and fps is None:
        raise UsageProblem("--omfc-time-unit seconds: give the videos' frame rate with --omfc-fps")
    info_text, info_base = _option(config, "omfc_video_info")
    info = None
    if info_text is not None:
        info = resolve_input(info_text, info_base, dataset)
        if not info.is_file():
            raise UsageProblem(f"--omfc-video-info: no such file: {info}")
    return {"time_unit": unit, "fps": fps, "video_info": info}


def _find_csv(sub_dir: Path) -> Path | None:
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


def _find_index(dataset: Path, task_text: str | None, want: Task | None = None) -> Path:
    """The task's index under ``<dataset>/indexes/``: the one named ``-<task_text>-index.csv``, else the one
    whose name gives the task (``want``, else ``task_text``'s); the one index there when no task is known."""
    indexes = dataset / "indexes"
    if not indexes.is_dir():
        raise UsageProblem(f"--omfc-dataset: {dataset} has no indexes/ directory")
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
        raise UsageProblem(f"--omfc-dataset: {what} in {indexes} (found: {names}); add --omfc-index PATH")
    hint = "add --omfc-task TASKID" if not told else "add --omfc-index PATH"
    raise UsageProblem(f"--omfc-dataset: {len(found)} index files match in {indexes} ({names}); {hint}")


def _task_from_column(index: Path) -> Task | None:
    try:
        with index.open(encoding="utf-8-sig", errors="replace", newline="") as fh:
            header = [h.strip().strip('"') for h in fh.readline().strip().split("|")]
            row = [v.strip().strip('"') for v in fh.readline().strip().split("|")]
        value = dict(zip(header, row, strict=False)).get("TaskID", "")
        return parse_task(value) if value else None
    except (OSError, EditionTaskError):
        return None


# ---------------------------------------------------------------------------- isolation

ENTRY_POINT_HINT = "run pytest-omfc (python -m pytest_omfc) instead, which ignores it"


def _guarded(config: pytest.Config) -> list[tuple[str, Path, bool]]:
    """The directories nothing in which may configure the run, as far as the options tell them, never raising:
    the submission (a file submission stands for its directory), the folder of an upload given on the command
    line, and the dataset (``--omfc-dataset``, else the index's ``indexes/`` parent, else the index's
    directory); bad values are left to :func:`resolve_settings` to report.  Each with a flag: False for a
    dataset guessed as the directory that holds the index.

    Such a guess is often the current directory, and so pytest's rootdir:
    the rootdir may equal it (nothing of it is read: a configfile or
    conftest.py there is still refused, and the cache is moved).
    """
    out: list[tuple[str, Path, bool]] = []
    try:
        sub = _path(config, "omfc_submission")
        if sub is not None and not _is_archive(sub):
            out.append(("submission", sub.parent if sub.is_file() else sub, True))
        elif sub is not None and _given_on_command_line(config, "omfc_submission"):
            # an upload given on the command line: what lies beside it is the uploader's, as a submission
            # folder's content is (an ini that names the archive itself is the team's own configuration)
            out.append(("upload", sub.parent, True))
        dataset = _path(config, "omfc_dataset")
        index = _path(config, "omfc_index")
        if dataset is not None:
            out.append(("dataset", dataset, True))
        elif index is not None:
            layout = index.parent.name == "indexes"
            out.append(("dataset", index.parent.parent if layout else index.parent, layout))
        elif (ref := _path(config, "omfc_reference")) is not None:  # ForgeryNet: no index, the reference's folder
            out.append(("dataset", ref.parent, False))
    except (OSError, ValueError, RuntimeError):
        pass
    return out


def _given_on_command_line(config: pytest.Config, name: str) -> bool:
    """Whether option ``name`` came from the command line (also before the full parse), not the ini file."""
    if config.getoption(name, None) not in (None, ""):
        return True
    return getattr(getattr(config, "known_args_namespace", None), name, None) not in (None, "")


def _inside(path: Path, guarded: list[tuple[str, Path]]) -> tuple[str, Path] | None:
    """The guarded directory holding ``path`` (or equal to it), if any; an upload's folder guards only what
    lies in it directly (a folder below it, such as pytest-omfc's own private one in a TMPDIR that also
    receives uploads, is not the uploader's)."""
    try:
        path = path.resolve()
    except (OSError, RuntimeError):
        return None
    for kind, d in guarded:
        if path == d or (path.parent == d if kind == "upload" else path.is_relative_to(d)):
            return kind, d
    return None


def _refuse(what: str, path: Path, where: tuple[str, Path]) -> UsageProblem:
    kind, directory = where
    return UsageProblem(
        f"{what} {path} lies inside the {kind} directory {directory}: "
        f"it must not configure a check of that {kind}; {ENTRY_POINT_HINT}"
    )


def _check_setup(config: pytest.Config) -> list[tuple[str, Path]]:
    """Refuse a configfile or rootdir inside the submission or the dataset (a configfile beside an upload);
    return the guarded directories."""
    entries = _guarded(config)
    guarded = [(kind, d) for kind, d, _ in entries]
    if config.inipath is not None and (where := _inside(config.inipath, guarded)) is not None:
        raise _refuse("configfile", config.inipath, where)
    root = config.rootpath.resolve()
    # an upload's folder as rootdir reads nothing by itself (its configfile and conftest.py are refused apart)
    strict = [(kind, d) for kind, d, exact in entries if kind != "upload" and (exact or root != d)]
    if (where := _inside(root, strict)) is not None:
        raise _refuse("rootdir", config.rootpath, where)
    return guarded


def _initial_conftests(config: pytest.Config) -> list[Path]:
    """The conftest.py files pytest is about to import as initial conftests (see ``_set_initial_conftests``)."""
    ns = config.known_args_namespace
    if getattr(ns, "noconftest", False):
        return []
    anchors = collection_anchors(config)
    cut = Path(ns.confcutdir).resolve() if getattr(ns, "confcutdir", None) else None
    found: list[Path] = []
    for anchor in anchors:
        path = (config.invocation_params.dir / anchor.split("::")[0]).resolve()
        if not path.exists():
            continue
        directory = path if path.is_dir() else path.parent
        dirs = [d for d in (directory, *directory.parents) if cut is None or d not in cut.parents]
        dirs += [d for d in directory.glob("test*") if d.is_dir()]
        found += [d / "conftest.py" for d in dirs if (d / "conftest.py").is_file()]
    return found


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config: pytest.Config) -> None:
    """Refuse before pytest imports any conftest.py: nothing of a submission (or dataset) may configure the run.

    Runs after pytest chose its configfile and rootdir and before it imports
    the initial conftests.  What the ini's ``addopts``/``pythonpath`` made
    pytest import before this plugin was loaded cannot be undone here; the
    ``pytest-omfc`` entry point never reads such an ini.
    """
    ns = early_config.known_args_namespace
    if not ns.file_or_dir and getattr(ns, "omfc_submission", None) and early_config.inipath is not None:
        # --omfc-submission on the command line and no path: the submission alone (_add_submission), so none
        # of the project's testpaths conftests; the configfile as the anchor takes the conftest.py beside it
        # only (a file anchor has no test* folders, and the submission's own conftest.py is never imported)
        only_collect(early_config, [str(early_config.inipath)])
    guarded = _check_setup(early_config)
    for conftest in _initial_conftests(early_config):
        where = _inside(conftest, guarded)
        if where is not None:
            raise _refuse("conftest", conftest, where)


def _check_loaded(config: pytest.Config, settings: CheckSettings) -> None:
    """The same refusal after configuration: conftests already imported, or due during collection.

    Collection walks from the rootdir down to the submission and imports the
    conftest.py of each directory on the way (the submission's own is never
    imported: :class:`SubmissionDir` is not a Directory).
    """
    guarded = _check_setup(config)
    loaded = loaded_conftests(config)
    root = config.rootpath.resolve()
    chain = [d for d in settings.submission.parents if d == root or d.is_relative_to(root)]
    due = [d / "conftest.py" for d in chain if (d / "conftest.py").is_file() and not config.getoption("noconftest")]
    for conftest in loaded + due:
        where = _inside(conftest, guarded)
        if where is not None:
            raise _refuse("conftest", conftest, where)


# ---------------------------------------------------------------------------- configure


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "omfc: a pytest-omfc submission rule")
    settings = resolve_settings(config)
    config.stash[SETTINGS_KEY] = settings
    if settings is None:
        return
    _check_loaded(config, settings)
    from .items import OmfcReporter  # the rules, the submission and their libraries: only now
    from .junit import JunitNames

    config.pluginmanager.register(OmfcReporter(), "omfc-reporter")
    config.pluginmanager.register(JunitNames(config), "omfc-junit-names")
    _add_submission(config, _collection_argument(config, settings.submission))
    _keep_cache_out(config, settings)
    _warm_up(config, settings)
    _scoring.configure(config, settings.dataset_root, UsageProblem)
    xml = config.getoption("xmlpath", None)
    if xml:  # pytest writes it (not through write_atomic): refused up front like every output
        path = Path(os.path.normpath(os.path.abspath(os.path.expanduser(os.path.expandvars(xml)))))
        _scoring.refuse_output(config, "--junitxml", path, UsageProblem)
    masks = resolved(config, "omfc_html_masks")
    from . import gates as _gates
    from . import html as _html

    _html.configure(config, settings, _path(config, "omfc_html"), masks, UsageProblem)
    from . import findings_json as _findings_json

    _findings_json.configure(config, settings, _path(config, "omfc_findings_json"), UsageProblem)
    _gates.configure(config, UsageProblem)


def _add_submission(config: pytest.Config, target: str) -> None:
    """What the run collects besides the submission (docs/ci.md, "Your own tests beside the check").

    ``--omfc-submission`` on the command line: the submission and the paths given with it, none when none
    are given (``testpaths`` are not collected: ``pytest --omfc-submission DIR`` checks DIR).  The
    ``omfc_submission`` ini setting: the submission and what pytest would collect anyway (the paths given,
    else ``testpaths``, else the current directory), so a bare ``pytest`` in a team's repository runs the
    team's tests and the submission's rules.
    """
    if config.args_source == pytest.Config.ArgsSource.ARGS or not _given_on_command_line(config, "omfc_submission"):
        # not below a path already given: walking that path collects it (pytest_collect_directory), and pytest
        # before 9.0 collects only the deeper of two nested paths
        if not any(_below(target, arg, config.invocation_params.dir) for arg in config.args):
            config.args.append(target)
    else:
        config.args[:] = [target]


def _below(target: str, arg: str, invocation: Path) -> bool:
    """Whether the path ``target`` is the collection argument ``arg`` (a path or node ID) or lies inside it."""
    try:
        path = (invocation / arg.split("::")[0]).resolve()
        return Path(target).resolve().is_relative_to(path)
    except (OSError, RuntimeError, ValueError):
        return False


#: A system output of this size (about 2,000 rows) or more makes a check worth a process pool.
WARM_BYTES = 128 << 10


def _warm_up(config: pytest.Config, settings: CheckSettings) -> None:
    """Start the pool's forkserver in the background for a large check, in the process that runs the items
    (not an xdist controller), while pytest collects and the system output is parsed."""
    if getattr(config.option, "dist", "no") != "no" and not hasattr(config, "workerinput"):
        return
    members: tuple[CheckSettings, ...] = getattr(settings, "members", (settings,))
    size = 0
    for member in members:
        try:
            size += member.csv.stat().st_size if member.csv is not None else 0
        except OSError:
            pass
    if size >= WARM_BYTES:
        from ..work.pool import warm_up

        warm_up(settings.jobs)


#: The alias directory of a submission whose path pytest cannot take as a collection argument.
ALIAS_KEY = pytest.StashKey[Path]()


def _collection_argument(config: pytest.Config, submission: Path) -> str:
    """The argument that makes pytest collect the submission directory.

    pytest reads ``[`` in an argument as parametrization ("path cannot contain [] parametrization", exit
    4) and ``::`` as a node separator ("file or directory not found").  A submission named so (a
    participant's folder name is theirs to choose) is collected through a symlink named ``submission``
    in a private temporary directory (outside the submission and dataset; removed at the end); the
    collector is still the submission's, named by its real name (:func:`pytest_collect_directory`).
    """
    text = str(submission)
    if "[" not in text and "::" not in text:
        return text
    from ..private import make

    alias_dir = make("alias")
    alias = alias_dir / "submission"
    alias.symlink_to(submission, target_is_directory=True)
    config.stash[ALIAS_KEY] = alias
    config.add_cleanup(lambda: shutil.rmtree(alias_dir, ignore_errors=True))
    return str(alias)


def _keep_cache_out(config: pytest.Config, settings: CheckSettings) -> None:
    """Never write into the submission or dataset: move pytest's cache elsewhere if it would land there.

    The cache (``cacheprovider``, configured ``tryfirst``) already exists here;
    it writes only at the end of the session, so moving its directory suffices.
    The new place is per original directory, so ``--lf`` keeps working.
    """
    cachedir = cache_dir(config)
    if cachedir is None:
        return
    cachedir = cachedir.resolve()
    guarded = [settings.submission] + ([settings.dataset_root] if settings.dataset_root else [])
    if any(cachedir.is_relative_to(g.resolve()) for g in guarded):
        digest = hashlib.sha1(str(cachedir).encode()).hexdigest()[:12]
        move_cache(config, Path(tempfile.gettempdir()) / f"pytest-omfc-cache-{digest}")


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    settings = config.stash.get(SETTINGS_KEY, None)
    if settings is None:
        return None
    from ..package import PackageSettings

    if isinstance(settings, PackageSettings):
        lines = [f"omfc: package {node_text(settings.submission.name)}: {len(settings.members)} EXPID(s) to check"]
        for member in settings.members:
            lines.append(
                f"omfc:   {node_text(member.submission.name)} ({member.edition.value}, task {member.task.value}), "
                f"index {member.index}"
            )
        return lines + [f"omfc:   {node_text(name)}: not checked (PKG-10)" for name, _ in settings.unchecked]
    source, path = settings.listing
    name, edition, task = node_text(settings.submission.name), settings.edition.value, settings.task.value
    return [f"omfc: submission {name} ({edition}, task {task})", f"omfc: {source} {path}"]


def pytest_collect_directory(path: Path, parent: pytest.Collector) -> pytest.Collector | None:
    settings = parent.config.stash.get(SETTINGS_KEY, None)
    if settings is not None and (path == settings.submission or path == parent.config.stash.get(ALIAS_KEY, None)):
        # outside the rootdir (pytest-omfc's is a private directory) pytest would name it ".": use its name
        aliased = path != settings.submission
        nodeid = (
            None if path.is_relative_to(parent.config.rootpath) and not aliased else node_text(settings.submission.name)
        )
        from ..package import PackageSettings
        from .items import PackageDir, SubmissionDir

        if isinstance(settings, PackageSettings):
            return PackageDir.from_parent(parent, path=path, nodeid=nodeid)
        return SubmissionDir.from_parent(parent, path=path, nodeid=nodeid)
    return None


__all__ = ["resolve_settings"]
