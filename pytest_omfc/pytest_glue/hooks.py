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

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..scoring.families import every_option
from . import scoring as _scoring
from .compat import cache_dir, collection_anchors, loaded_conftests, move_cache, only_collect
from .state import (
    SETTINGS_KEY,
    ConfigOptions,
    UsageProblem,
    node_text,
    resolved,
)

if TYPE_CHECKING:  # imported when a submission is checked (see the module docstring)
    from ..archive import ArchiveReport
    from ..submission import CheckSettings


def pytest_addoption(parser: pytest.Parser) -> None:
    """Every option of :func:`~pytest_omfc.scoring.families.every_option`: a flag and an ini setting each."""
    group = parser.getgroup("omfc", "media-forensics submission checks (pytest-omfc)")
    for opt in every_option():
        group.addoption(opt.flag, dest=opt.ini, default=None, **opt.kwargs)
        parser.addini(opt.ini, opt.help, type=opt.ini_type, default=[] if opt.repeatable else None)


def _path(config: pytest.Config, name: str) -> Path | None:
    """A path option (parsed by its declaration), relative paths taken from where it was given."""
    from ..inputs import InputError, path_of

    try:
        return path_of(ConfigOptions(config), name)
    except InputError as exc:
        raise UsageProblem(str(exc)) from None


def resolve_settings(config: pytest.Config) -> CheckSettings | None:
    """Turn the options into :class:`Settings` (or, for an NC2017 package, ``PackageSettings`` holding one
    per EXPID) by :func:`pytest_omfc.inputs.resolve_settings`, as the API does; :class:`UsageProblem` names
    the flag to fix."""
    from ..inputs import InputError
    from ..inputs import resolve_settings as resolve

    try:
        return resolve(ConfigOptions(config), lambda sub: _unpacked(config, sub))
    except InputError as exc:
        raise UsageProblem(str(exc)) from None


#: The archive report a controller hands to its xdist workers (they never unpack again).
ARCHIVE_INPUT = "omfc_archive"


def _unpacked(config: pytest.Config, sub: Path) -> ArchiveReport | None:
    """An uploaded archive (ARC rules): unpacked once, by the controller (or the only process), into a private
    directory removed when the session ends; xdist workers read the controller's report.  None for a
    directory or a system output file."""
    from ..inputs import is_archive, unpack_upload

    if not is_archive(sub):
        return None
    worker = getattr(config, "workerinput", None)
    if worker is not None and ARCHIVE_INPUT in worker:
        from ..archive import ArchiveReport

        return ArchiveReport.from_dict(json.loads(worker[ARCHIVE_INPUT]))
    report = unpack_upload(sub, ConfigOptions(config), config.add_cleanup)
    config.pluginmanager.register(_ArchiveToWorkers(report), "omfc-archive-to-workers")
    return report


class _ArchiveToWorkers:
    """Hands the controller's archive report to every xdist worker (an optional hook: xdist may be absent)."""

    def __init__(self, report: ArchiveReport) -> None:
        self.text = json.dumps(report.as_dict())

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[ARCHIVE_INPUT] = self.text


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
    from ..inputs import is_archive

    out: list[tuple[str, Path, bool]] = []
    try:
        sub = _path(config, "omfc_submission")
        if sub is not None and not is_archive(sub):
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
    """Start, in the background and in the process that runs the items (not an xdist controller), what a large
    check or a scoring run will use while pytest collects and the system output is parsed: the pool's
    forkserver, and the ``--omfc-dask`` connection that MASK-04 and the scorers share (one per check, closed
    at the end; :class:`~pytest_omfc.work.executors.Session`).  A small check starts no process: a
    ``--omfc-dask`` connection is then set up by its first use, if any."""
    if getattr(config.option, "dist", "no") != "no" and not hasattr(config, "workerinput"):
        return
    members: tuple[CheckSettings, ...] = getattr(settings, "members", (settings,))
    size = 0
    for member in members:
        try:
            size += member.csv.stat().st_size if member.csv is not None else 0
        except OSError:
            pass
    dask = resolved(config, "omfc_dask")
    session = None
    if dask:  # opened before the forkserver starts: a LocalCluster's workers come from it too
        from ..work.executors import open_session
        from ..work.pool import resolve_jobs

        session = open_session(str(dask), jobs=resolve_jobs(settings.jobs))
        config.add_cleanup(session.close)
    if size >= WARM_BYTES:
        from ..work.pool import warm_up

        warm_up(settings.jobs)
    if session is not None:
        from ..editions import Task

        # the tasks whose masks or maps go to the cluster (MASK-04's inflating, the mask and spatial scorers)
        if settings.task in {Task.IMG, Task.SPL, Task.CAM, Task.FSL} and (
            size >= WARM_BYTES or resolved(config, "omfc_reference")
        ):
            session.start()


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
