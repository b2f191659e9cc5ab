"""What both pytest-side layers share: stash keys, the submission accessor, usage errors.

:mod:`.items` (rule items) and :mod:`.scoring` (score items) import this
module; it imports neither, so they never import each other's hooks.
Light: the plugin imports it at load time (the submission, with pandas, is
imported on first use).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from ..editions import Edition
from ..findings import escape

if TYPE_CHECKING:  # submission imports numpy and pandas: only when a submission is checked
    from ..submission import Checked, CheckSettings, Submission

__all__ = [
    "ConfigOptions",
    "EXTRA_ITEMS_KEY",
    "OMFC_MARK",
    "SETTINGS_KEY",
    "SUBMISSION_KEY",
    "UsageProblem",
    "given",
    "node_text",
    "resolved",
    "settings_of",
    "single_submission",
    "submission_for",
]

SETTINGS_KEY = pytest.StashKey["CheckSettings | None"]()
SUBMISSION_KEY = pytest.StashKey["dict[Path, Checked]"]()
#: Further item factories of a submission, collected after the rule and score items (the --omfc-require gates).
EXTRA_ITEMS_KEY = pytest.StashKey[list[Callable[[pytest.Collector], Iterator[pytest.Item]]]]()
#: The marker of every plugin item (``-m omfc``), made once rather than looked up by name per item.
OMFC_MARK = pytest.mark.omfc


#: A bad command line: pytest prints ``ERROR: <text>`` and exits 4.  pytest's own class (it is ``@final``:
#: not subclassed), under the name the plugin's option checks raise.
UsageProblem = pytest.UsageError


def node_text(name: str) -> str:
    """A folder's name as it stands in a node ID (and so on the terminal): control, bidi and zero-width characters
    escaped (``\\u202e``: a name must not reorder the lines it is printed on), ``::`` written ``%3A%3A`` (pytest
    reads ``::`` as the separator of node IDs, and pytest 9.2 failed to collect ``NIST_NC17_DRYRUN17_5::[x]``).
    JUnit testcase names never depend on it (:mod:`.junit`)."""
    return escape(name).replace("::", "%3A%3A")


def index_task(settings: CheckSettings) -> str | None:
    """The TaskID as the index file names it (``IMDL``, ``manipulation``...), or None for another name (a
    ForgeryNet reference): what the reports call the task."""
    import re

    m = re.match(r"^[^-]+-(?P<task>.+?)-index[^.]*\.csv$", settings.listing[1].name, re.IGNORECASE)
    return m.group("task") if m else None


def task_label(config: pytest.Config, settings: CheckSettings) -> str:
    """The task as the reports show it: ``--omfc-task`` when given, else the index's TaskID, else the code."""
    return str(config.getoption("omfc_task") or index_task(settings) or settings.task.value)


def given(config: pytest.Config, ini: str) -> tuple[Any, Path]:
    """An option's raw value and the directory a relative path in it is taken from: the command line (the
    invocation directory; before the full parse, in ``pytest_load_initial_conftests``, only
    ``known_args_namespace`` has it), else the ini file (its directory); ``(None, invocation dir)`` unset."""
    unset: tuple[Any, ...] = (None, False, [], "")
    value = config.getoption(ini)
    if value in unset:
        value = getattr(getattr(config, "known_args_namespace", None), ini, None)
    if value not in unset:
        return value, config.invocation_params.dir
    ini_value = config.getini(ini)
    if ini_value not in unset:
        return ini_value, config.inipath.parent if config.inipath else config.rootpath
    return None, config.invocation_params.dir


class ConfigOptions:
    """The plugin's option values (the command line, else the ini file) as :class:`pytest_omfc.inputs.Given`."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def raw(self, ini: str) -> tuple[Any, Path]:
        return given(self.config, ini)


def resolved(config: pytest.Config, ini: str) -> Any:
    """An option's typed value (its default when unset); :class:`UsageProblem` "<flag>: must be ... (got ...)"."""
    from ..scoring.families import option

    opt = option(ini)
    try:
        return opt.value(given(config, ini)[0])
    except ValueError as exc:
        raise UsageProblem(f"{opt.flag}: {exc}") from None


def settings_of(config: pytest.Config) -> CheckSettings | None:
    """The run's settings (None when the plugin is off)."""
    return config.stash.get(SETTINGS_KEY, None)


def _close_all(cache: dict[Path, Checked]) -> None:
    """At the end of the run: stop what a submission's rules left running (:meth:`Checked.close`)."""
    for sub in list(cache.values()):
        sub.close()


def submission_for(config: pytest.Config, settings: CheckSettings | None = None) -> Checked:
    """The process-wide parsed submission of ``settings`` (default: the run's), built on first use, never
    at collection; one per EXPID of an NC2017 package, and the package itself for its own rules."""
    cache = config.stash.get(SUBMISSION_KEY, None)
    if cache is None:
        cache = config.stash[SUBMISSION_KEY] = {}
        config.add_cleanup(lambda: _close_all(cache))
    if settings is None:
        settings = config.stash[SETTINGS_KEY]
        assert settings is not None
    sub = cache.get(settings.submission)
    if sub is None:
        from ..package import Package, PackageSettings
        from ..submission import Submission

        if isinstance(settings, PackageSettings):
            sub = Package(settings)
        elif settings.edition is Edition.ForgeryNet:  # no index: the reference lists the IDs
            from ..forgerynet.submission import ForgeryNetSettings, ForgeryNetSubmission

            assert isinstance(settings, ForgeryNetSettings)
            sub = ForgeryNetSubmission(settings)
        else:
            sub = Submission(settings)
        run = config.stash.get(SETTINGS_KEY, None)
        if run is not None and run.is_package and settings is not run:
            _keep_recent_expids(cache, run)
        cache[settings.submission] = sub
    return sub


#: Parsed EXPIDs of a package a process keeps: its items run one EXPID after another, so an EXPID is not asked
#: for again once the next ones have started; one asked for later (``-k``, an xdist worker's share) is parsed
#: again, from the same files, to the same outcomes.  A package of 1,000 EXPIDs kept every one (a peak of
#: 540 MB against 480 MB keeping two), and the collector walked all of them.
EXPIDS_KEPT = 2


def _keep_recent_expids(cache: dict[Path, Checked], run: CheckSettings) -> None:
    """Close and drop the oldest parsed EXPIDs of ``cache`` beyond :data:`EXPIDS_KEPT - 1` (the package's own
    entry stays), before another one is added."""
    expids = [path for path in cache if path != run.submission]
    for path in expids[: max(0, len(expids) - (EXPIDS_KEPT - 1))]:
        cache.pop(path).close()


def single_submission(config: pytest.Config) -> Submission:
    """The run's one submission (the fixture and scoring of a single ``<ID>/``); LookupError for an NC2017
    package, whose EXPIDs each have their own."""
    from ..submission import Submission

    sub = submission_for(config)
    if not isinstance(sub, Submission):
        raise LookupError(
            f"{sub.sub_id} is an NC2017 package: its EXPIDs are checked one by one; give one EXPID folder "
            "with --omfc-submission to use the omfc fixture on it"
        )
    return sub
