"""``pytest-omfc``: the portal-safe way to run the checks (also ``python -m pytest_omfc``).

A plain ``pytest --omfc-submission DIR`` lets pytest look for its ini file
and conftest.py files around the paths it is given, so files shipped in a
submission (or lying beside the index) could configure the run: ``addopts``,
``pythonpath``, plugins, conftest code.  This command runs pytest with
nothing taken from either side:

* its own configuration (``-c`` on an empty ``pytest.ini`` in a private
  temporary directory, which is also ``--rootdir`` and ``--confcutdir``), so
  no ini search happens;
* no conftest.py (``--noconftest``), no cache (``-p no:cacheprovider``) and no log capture
  (``-p no:logging``: the checks log nothing);
* only the plugins it names: autoloading is off (``--disable-plugin-autoload``
  and ``PYTEST_DISABLE_PLUGIN_AUTOLOAD=1``, which xdist workers inherit, as
  they re-read this command line), then ``-p pytest_omfc.plugin`` and, with
  ``-n``, ``-p xdist.plugin``;
* ``PYTEST_ADDOPTS`` and ``PYTEST_PLUGINS`` are ignored (removed from the
  environment of the run and its workers; a note says so on stderr);
* every option value is passed as ``--opt=value``, so none looks like a path;
* pytest starts in the private directory (paths given relative to the
  current directory are made absolute first), so node IDs read
  ``<ID>::<ID>::<RULE>`` and nothing is resolved from a directory the
  command happened to be started in.

It accepts the plugin's options, ``--version`` and a few reporting options of pytest
(``-n``, ``-q``, ``-v``, ``-k``, ``-r``, ``-x``, ``--tb``, ``--co``, ``--color``, ``--junitxml``, and
``-o`` for ``junit_*`` and ``console_output_style`` only).  The exit codes are
pytest's: 0 all rules pass, 1 a rule fails, 4 a usage error.
"""

from __future__ import annotations

import argparse
import atexit
import importlib.util
import os
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

import pytest

from .options import OUTPUT_PATHS, Option
from .paths import resolve_input
from .private import forget, make, on_terminate, remove, sweep
from .scoring.families import every_option

__all__ = ["build_parser", "pytest_args", "main", "run", "version_line", "IGNORED_ENV", "OVERRIDE_PREFIXES"]

#: Environment variables that would add options or plugins behind the command line's back.
IGNORED_ENV = ("PYTEST_ADDOPTS", "PYTEST_PLUGINS")

#: ``-o`` keys accepted (reporting only): anything else could undo the isolation (addopts, pythonpath, ...).
OVERRIDE_PREFIXES = ("junit_", "console_output_style")

PLUGINS = ("pytest_omfc.plugin",)

#: Options holding paths taken from the current directory (made absolute before pytest starts elsewhere).
PATH_OPTIONS = ("omfc_submission", "omfc_index", "omfc_dataset", *OUTPUT_PATHS, "junitxml")


class UsageExit(Exception):
    """A bad command line: one ``ERROR:`` line, exit code 4 (pytest's usage error)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        if message.startswith("unrecognized arguments"):
            message += (
                " (pytest-omfc takes the plugin's options and the pytest switches listed by pytest-omfc --help; "
                "plain pytest takes the others, without the isolation)"
            )
        raise UsageExit(message)


def _omfc_options() -> list[Option]:
    return every_option()


def build_parser() -> argparse.ArgumentParser:
    """The command line: the plugin's options and pytest's reporting options, nothing else."""
    parser = _Parser(
        prog="pytest-omfc",
        allow_abbrev=False,
        description="Check a media-forensics submission with pytest, isolated from anything in the "
        "submission or the dataset (no ini file, conftest.py, cache or autoloaded plugin).",
        epilog="Exit codes are pytest's: 0 every rule passes, 1 a rule fails, 4 a usage error.",
    )
    group = parser.add_argument_group("checks (as the pytest plugin's options)")
    for opt in _omfc_options():
        kw = {k: v for k, v in opt.kwargs.items() if k in ("action", "metavar", "help", "choices")}
        group.add_argument(opt.flag, dest=opt.ini, default=None, **kw)
    parser.add_argument("-V", "--version", action="store_true", help="print the versions of pytest-omfc and pytest")
    rep = parser.add_argument_group("reporting (passed to pytest)")
    rep.add_argument("-n", "--numprocesses", metavar="N", help="pytest-xdist worker processes (a number or auto)")
    rep.add_argument("-q", "--quiet", action="count", default=0, help="less output (repeatable)")
    rep.add_argument("-v", "--verbose", action="count", default=0, help="more output (repeatable)")
    rep.add_argument("-k", dest="keyword", metavar="EXPRESSION", help="run only the rule items matching the expression")
    rep.add_argument("-r", dest="reportchars", metavar="CHARS", help="short summary of (f)ailed, (s)kipped, ... items")
    rep.add_argument("--tb", choices=["auto", "long", "short", "line", "native", "no"], help="failure text style")
    rep.add_argument("-x", "--exitfirst", action="store_true", help="stop at the first failing rule")
    rep.add_argument(
        "--co", "--collect-only", dest="collectonly", action="store_true", help="list the rule items, run none"
    )
    rep.add_argument("--color", choices=["yes", "no", "auto"], help="colour the terminal output")
    rep.add_argument(
        "--junitxml", metavar="PATH", help="write a JUnit XML report (never into the submission or dataset)"
    )
    rep.add_argument(
        "-o",
        "--override-ini",
        dest="override_ini",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=f"ini override, only for keys starting with {' or '.join(OVERRIDE_PREFIXES)}",
    )
    return parser


def _override(value: str) -> str:
    key = value.split("=", 1)[0].strip()
    if "=" not in value or not key.startswith(OVERRIDE_PREFIXES):
        allowed = ", ".join(p + ("*" if p.endswith("_") else "") for p in OVERRIDE_PREFIXES)
        raise UsageExit(f"-o {key or value}: not accepted by pytest-omfc (only {allowed}, as KEY=VALUE)")
    return value


def _input_options() -> tuple[str, ...]:
    """Input tables looked up in the dataset root, then the current directory: the reference and every
    scorer option whose value is a PATH (journal, node and world tables)."""
    return tuple(o.ini for o in every_option() if o.reads_file and o.ini not in PATH_OPTIONS)


def _absolute(ns: argparse.Namespace, cwd: Path) -> None:
    """Make the path options absolute against ``cwd`` before pytest runs in its private directory; input
    tables by :func:`pytest_omfc.paths.resolve_input`, exactly as the plugin resolves them under plain
    pytest (the dataset root first, then ``cwd``), so a command line means the same either way."""
    for dest in PATH_OPTIONS:
        value = getattr(ns, dest)
        if value is not None:
            setattr(ns, dest, os.path.join(cwd, os.path.expanduser(value)))
    dataset = ns.omfc_dataset
    if dataset is None and ns.omfc_index is not None:
        parent = Path(ns.omfc_index).parent
        dataset = str(parent.parent if parent.name == "indexes" else parent)
    for dest in _input_options():
        value = getattr(ns, dest, None)
        if value is not None:
            setattr(ns, dest, str(resolve_input(value, cwd, Path(dataset) if dataset else None)))


def pytest_args(ns: argparse.Namespace, private: Path) -> list[str]:
    """pytest's command line for ``ns``: isolation first, then every value in ``--opt=value`` form."""
    args = [
        f"--config-file={private / 'pytest.ini'}",
        f"--rootdir={private}",
        f"--confcutdir={private}",
        f"--basetemp={private / 'basetemp'}",  # pytest's and xdist's temporary folders, removed with it
        "--noconftest",
        "-p",
        "no:cacheprovider",
        "--assert=plain",  # nothing to rewrite: checks raise their own failures
        # pytest's unraisable-exception plugin runs gc.collect() five times at exit to surface exceptions
        # raised in __del__ by test code (0.2 s with pandas and the models loaded, benchmarks/
        # validate_scale.py's 1-probe run); a check runs no test code
        "-p",
        "no:unraisableexception",
        # pytest's log capture wraps each phase of each item in handlers (a tenth of a package of 1,000 EXPIDs'
        # run, 47,000 items); the checks log nothing, and the command takes none of pytest's --log options.
        # A library's warning still reaches stderr (Python's last-resort handler).
        "-p",
        "no:logging",
    ]
    if pytest.version_tuple >= (8, 4):  # the flag (pytest 8.4+) reaches xdist workers with the command line
        args.append("--disable-plugin-autoload")
    for name in PLUGINS:
        args += ["-p", name]
    if ns.numprocesses is not None:
        if importlib.util.find_spec("xdist") is None:
            raise UsageExit("-n: needs pytest-xdist (pip install pytest-xdist)")
        args += ["-p", "xdist.plugin", f"--numprocesses={ns.numprocesses}"]  # the module: any pytest loads it by name
    args += ["-q"] * ns.quiet + ["-v"] * ns.verbose
    if ns.keyword is not None:
        args.append(f"-k{ns.keyword}")
    if ns.reportchars is not None:
        args.append(f"-r{ns.reportchars}")
    if ns.tb is not None:
        args.append(f"--tb={ns.tb}")
    if ns.exitfirst:
        args.append("--exitfirst")
    if ns.collectonly:
        args.append("--collect-only")
    if ns.color is not None:
        args.append(f"--color={ns.color}")
    if ns.junitxml is not None:
        args.append(f"--junitxml={ns.junitxml}")
    args += [f"--override-ini={_override(v)}" for v in ns.override_ini]
    for opt in _omfc_options():
        value = getattr(ns, opt.ini)
        if value is None or value is False:
            continue
        if opt.is_flag:
            args.append(opt.flag)
        elif opt.repeatable:
            args += [f"{opt.flag}={v}" for v in value]
        else:
            args.append(f"{opt.flag}={value}")
    return args


def version_line() -> str:
    """``pytest-omfc X.Y.Z (pytest A.B.C, Python D.E.F)``: what ``--version`` prints."""
    from ._version import __version__

    return f"pytest-omfc {__version__} (pytest {pytest.__version__}, Python {sys.version.split()[0]})"


class _FreezeAfterCollection:
    """What is loaded once the items are collected (pandas, numpy, the models, the rules) lives as long as the
    ``pytest-omfc`` process: out of the cyclic collector's sight, no collection walks it again (pytest's own
    ``gc.collect()`` at exit took 0.2 s with it, a 1-probe check's sixth).

    The youngest generation is then collected every :data:`YOUNG_THRESHOLD` allocations instead of 700 (2,000
    from Python 3.13): the run keeps what it makes (pytest keeps three reports per item), and the full
    collections that the default triggered walked all of it again and again (18 of them, 3.3 s of a 30 s
    package of 1,000 EXPIDs, 47,000 items; with this, 2 of them and 0.6 s, and the same peak memory).  Side
    effects on the whole process, so only in the command's own process, never from the plugin inside someone
    else's pytest."""

    @pytest.hookimpl(trylast=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        import gc

        gc.freeze()
        gc.set_threshold(YOUNG_THRESHOLD, *gc.get_threshold()[1:])


#: Allocations between collections of the youngest generation in the command's own process (Python's default:
#: 700, and 2,000 from 3.13).
YOUNG_THRESHOLD = 10_000


class _Command:
    """The command as the user typed it and where, for the reports' Environment section
    (``pytest_glue.scoring.run_stamp``): pytest itself sees the private directory and the built arguments."""

    def __init__(self, args: Sequence[str], cwd: Path) -> None:
        self.omfc_command = ("pytest-omfc", list(args), cwd)


def main(argv: Sequence[str] | None = None, *, own_process: bool = True, plugins: Sequence[object] = ()) -> int:
    """Run the checks in isolation; returns pytest's exit code.  ``own_process=False`` (a library call,
    :func:`pytest_omfc.validation.omfc_validate`) leaves the caller's garbage collector alone; ``plugins`` are
    the caller's own objects for the run (what it keeps of it)."""
    given = list(sys.argv[1:] if argv is None else argv)
    if given[:1] == ["leaderboard"]:  # pytest-omfc leaderboard RUN.json ...: no check, no pytest session
        from .leaderboard import main as leaderboard

        return leaderboard(given[1:])
    parser = build_parser()
    try:
        ns = parser.parse_args(given)
        if ns.version:
            print(version_line())
            return int(pytest.ExitCode.OK)
        if ns.omfc_submission is None:
            raise UsageExit("--omfc-submission: give the submission directory")
        sweep()  # what runs killed before their cleanup left in TMPDIR
        private = make("run")
    except UsageExit as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return int(pytest.ExitCode.USAGE_ERROR)
    saved = {k: os.environ.get(k) for k in (*IGNORED_ENV, "PYTEST_DISABLE_PLUGIN_AUTOLOAD")}
    cwd = Path.cwd()

    def cleanup() -> None:
        os.chdir(cwd)
        remove(private)
        forget(cleanup)

    try:
        (private / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        _absolute(ns, cwd)
        args = pytest_args(ns, private)
        for name in IGNORED_ENV:
            if os.environ.pop(name, None):
                print(f"pytest-omfc: {name} is ignored (options come only from this command line)", file=sys.stderr)
        os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
        os.chdir(private)
        on_terminate(cleanup)
        typed = list(sys.argv[1:] if argv is None else argv)
        extra: list[object] = [_Command(typed, cwd), *plugins] + ([_FreezeAfterCollection()] if own_process else [])
        return int(pytest.main(args, plugins=extra))
    except UsageExit as exc:
        print(f"ERROR: {exc}", file=sys.stderr)
        return int(pytest.ExitCode.USAGE_ERROR)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        cleanup()


def run() -> NoReturn:
    """The ``pytest-omfc`` script and ``python -m pytest_omfc``: :func:`main`, then the process ends without the
    interpreter's teardown, unless a thread is still running.

    What a normal exit does last is free every object of the run one by one: 2.4 s after a package of 1,000
    EXPIDs (47,000 items), about a tenth of the run, once the verdict is printed, the outputs written and the
    private directory removed.  The exit handlers (:mod:`atexit`) still run and the streams are flushed.  A
    thread still running that is not a daemon (the plugin leaves none: its pools are shut down when the run
    ends) gets the normal exit, which waits for it."""
    code = main()
    main_thread = threading.main_thread()
    exit_handlers = getattr(atexit, "_run_exitfuncs", None)
    busy = any(t.is_alive() and not t.daemon for t in threading.enumerate() if t is not main_thread)
    if busy or exit_handlers is None:
        sys.exit(code)
    exit_handlers()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed or broken pipe: the exit code still says how the run went
            pass
    os._exit(code)
