"""The private pytest APIs the plugin cannot do without, each in one place with the reason (pytest 8 and 9).

Everything else in :mod:`pytest_omfc.pytest_glue` uses pytest's public API.  When pytest changes one of
these, this module is the only place to adapt, and each use falls back to a safe answer.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

# Why: ``repr_failure`` must return a TerminalRepr whose ``reprcrash`` is the first line of the report:
# pytest takes the JUnit ``failure message``, the short summary and ``--tb=line`` from it (a plain string
# puts the whole report there), and only these classes survive xdist's report serialisation.
from _pytest._code.code import ReprExceptionInfo, ReprFileLocation, ReprTracebackNative, TerminalRepr

# Why: the submission is collected by a path collector that is not a ``pytest.Directory``.  A Directory
# imports the ``conftest.py`` of its path (code shipped in the submission would run and write
# ``__pycache__`` there); ``pytest.File`` is for one file.  pytest exports no other path collector.
from _pytest.nodes import FSCollector

# Why: a rule's skip is reported at the rule item's location (``_use_item_location``), not at the line
# of the plugin that raised it; ``pytest.skip`` has no public parameter for that.
from _pytest.outcomes import Skipped

__all__ = [
    "FSCollector",
    "skip_here",
    "TerminalRepr",
    "cache_dir",
    "collection_anchors",
    "failure_repr",
    "leave_unrewritten",
    "loaded_conftests",
    "move_cache",
    "name_testcase",
    "only_collect",
]


def failure_repr(path: Path | str, text: str) -> TerminalRepr:
    """A failure shown as ``text`` whose first line is the crash message (see the import's reason)."""
    first = text.split("\n", 1)[0]
    return ReprExceptionInfo(
        reprtraceback=ReprTracebackNative([text + "\n"]), reprcrash=ReprFileLocation(str(path), 1, first)
    )


def collection_anchors(config: pytest.Config) -> list[str]:
    """The paths pytest will collect from (and take initial conftests beside), as pytest decides them.

    Why: ``Config._decide_args`` is how pytest turns the command line, ``testpaths`` and the invocation
    directory into those paths; the plugin must refuse a ``conftest.py`` inside the submission or dataset
    before pytest imports it.  Fallback: the invocation directory (pytest's own default)."""
    ns = config.known_args_namespace
    try:
        anchors, _ = config._decide_args(
            args=ns.file_or_dir,
            pyargs=ns.pyargs,
            testpaths=config.getini("testpaths"),
            invocation_dir=config.invocation_params.dir,
            rootpath=config.rootpath,
            warn=False,
        )
        return [str(a) for a in anchors]
    except Exception:  # noqa: BLE001  a private API: fall back rather than break the run
        return [str(config.invocation_params.dir)]


def loaded_conftests(config: pytest.Config) -> list[Path]:
    """The ``conftest.py`` files pytest has imported so far.

    Why: the plugin checks that none of them lies inside the submission or dataset; pytest keeps the list
    only in ``PytestPluginManager._conftest_plugins``.  Fallback: none known."""
    modules: Any = getattr(config.pluginmanager, "_conftest_plugins", ())
    return [Path(m.__file__) for m in modules if getattr(m, "__file__", None)]


def move_cache(config: pytest.Config, directory: Path) -> Path | None:
    """Point pytest's cache at ``directory`` when it would write into a guarded place; return where it was.

    Why: ``Cache._cachedir`` is fixed when the cache plugin configures, before this plugin knows the
    submission and dataset; the cache writes only at the end of the session, so moving the directory
    suffices.  Returns None (and moves nothing) without a cache."""
    cache = getattr(config, "cache", None)
    current = getattr(cache, "_cachedir", None)
    if cache is None or current is None:
        return None
    cache._cachedir = directory
    return Path(current)


def cache_dir(config: pytest.Config) -> Path | None:
    """Where pytest's cache will write (None without a cache); see :func:`move_cache`."""
    current = getattr(getattr(config, "cache", None), "_cachedir", None)
    return Path(current) if current is not None else None


def skip_here(reason: str) -> Skipped:
    """A skip reported at the raising item's location (see the import's reason): ``raise skip_here(...)``."""
    return Skipped(reason, _use_item_location=True)


def leave_unrewritten(package: str) -> None:
    """Take ``package`` off the list of modules whose asserts pytest rewrites.

    Why: pytest marks every top-level package of a distribution with a ``pytest11`` entry point for assertion
    rewriting (and ``-p NAME`` marks ``NAME``).  A marked module is not loaded from its ``.pyc`` but parsed,
    rewritten and compiled by pytest from source, which pytest caches in files of its own only where it may
    write byte code: with ``PYTHONDONTWRITEBYTECODE``, a read-only ``site-packages`` or in the first run of a
    fresh CI environment, a check then compiles every module of the plugin it imports, on every run.  The
    plugin's asserts are internal invariants that gain nothing from rewriting.  pytest has no public API to
    unmark a package (``PYTEST_DONT_REWRITE`` in a docstring still parses and compiles the module): the set is
    the rewriting import hook's ``_must_rewrite``, found on ``sys.meta_path``.  Fallback: nothing changes (the
    modules are rewritten, as before).  Call it before the package's other modules are imported."""
    for finder in sys.meta_path:
        marked = getattr(finder, "_must_rewrite", None)
        if isinstance(marked, set):
            marked.discard(package)


def name_testcase(config: pytest.Config, report: pytest.TestReport, classname: str, name: str) -> None:
    """Set the JUnit testcase's ``classname`` and ``name`` of ``report`` when ``--junitxml`` is writing.

    Why: pytest derives both from the node ID, whose parse of ``[`` changed in pytest 9.2 (``junit.py`` says
    how); pytest's public API sets testcase attributes only from a test function's fixture
    (``record_xml_attribute``).  The XML writer is ``config.stash[_pytest.junitxml.xml_key]``; its
    ``node_reporter(report)`` is the testcase being built, whose ``add_attribute`` values pytest keeps over its
    own (``record_testreport`` restores "user-defined attributes").  Fallback: pytest's own names."""
    try:
        from _pytest.junitxml import xml_key

        xml = config.stash.get(xml_key, None)
        if xml is None:
            return
        prefix = getattr(xml, "prefix", None)
        reporter = xml.node_reporter(report)
        reporter.add_attribute("classname", f"{prefix}.{classname}" if prefix else classname)
        reporter.add_attribute("name", name)
    except Exception:  # noqa: BLE001  a private API: fall back rather than break the run
        return


def only_collect(early_config: pytest.Config, anchors: list[str]) -> None:
    """Make ``anchors`` the paths pytest takes its initial conftests from, before it imports any (``tryfirst``
    in ``pytest_load_initial_conftests``).

    Why: with no path on the command line, pytest imports the initial conftests of its ``testpaths`` (a
    project's ``tests/conftest.py``, with whatever test-only packages it imports) before any plugin knows what
    the run collects.  A run given ``--omfc-submission`` on the command line collects the submission alone and
    must not import them.  pytest decides the anchors from the early parse,
    ``Config.known_args_namespace.file_or_dir``; the full parse that follows reads the command line again, so
    nothing else changes.  Fallback: none needed (the attribute is set on pytest's own namespace)."""
    early_config.known_args_namespace.file_or_dir = list(anchors)
