"""``pytest-omfc`` speaks pytest's common switches (--version, -x, --co, --color, -k) and names what it refuses."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers.examples import EXAMPLES
from helpers.runs import run_capped

import pytest_omfc

pytestmark = pytest.mark.compat

INDEX = str(EXAMPLES / "datasets/OpenMFC2020/indexes/OpenMFC20_Image-IMDL-index.csv")
VALID = str(EXAMPLES / "submissions/imdl/p-baseline_3_imdl")
BAD = str(EXAMPLES / "submissions/imdl/p-baseline_3_bad-status")


def _cli(tmp_path: Path, *args: str) -> tuple[int | None, str, str]:
    run = run_capped(["-m", "pytest_omfc", *args], cwd=tmp_path, timeout=120)
    return run.ret, run.out, run.err


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_version_prints_the_one_version(tmp_path: Path, flag: str) -> None:
    ret, out, _ = _cli(tmp_path, flag)
    assert ret == 0 and out.startswith(f"pytest-omfc {pytest_omfc.__version__} (pytest {pytest.__version__}, Python ")


def test_collect_only_lists_the_rule_items(tmp_path: Path) -> None:
    ret, out, _ = _cli(tmp_path, "--omfc-submission", VALID, "--omfc-index", INDEX, "--co", "-q")
    lines = [line for line in out.splitlines() if "::" in line]
    assert ret == 0 and "p-baseline_3_imdl::p-baseline_3_imdl::SUB-10" in lines and len(lines) > 20
    assert " passed" not in out  # nothing ran


def test_exitfirst_stops_at_the_first_failure(tmp_path: Path) -> None:
    ret, out, _ = _cli(tmp_path, "--omfc-submission", BAD, "--omfc-index", INDEX, "-x", "--color", "no")
    assert ret == 1 and "stopping after 1 failures" in out and "\x1b[" not in out
    full_ret, full_out, _ = _cli(
        tmp_path, "--omfc-submission", BAD, "--omfc-index", INDEX, "--color=yes", "-k", "not MASK"
    )
    assert full_ret == 1 and "\x1b[" in full_out and "deselected" in full_out


def test_an_unknown_switch_is_named(tmp_path: Path) -> None:
    ret, _, err = _cli(tmp_path, "--omfc-submission", VALID, "--lf")
    assert ret == 4 and "unrecognized arguments: --lf" in err and "plain pytest" in err


_ENDING = """\
import atexit, sys, threading, time
from pytest_omfc import cli
atexit.register(lambda: print("exit handler ran", flush=True))
if sys.argv[1] == "thread":  # a thread still running when the check is over (it printed during the run, the
    checked = threading.Event()  # run's output capture took its line on a slow machine)
    check = cli.main
    def main_then_mark(*args, **kwargs):
        try:
            return check(*args, **kwargs)
        finally:
            checked.set()
    cli.main = main_then_mark
    def late():
        checked.wait()
        time.sleep(0.3)
        print("thread finished", flush=True)
    threading.Thread(target=late).start()
sys.argv = ["pytest-omfc", *sys.argv[2:]]
cli.run()
"""


@pytest.mark.parametrize(("submission", "code"), [(VALID, 0), (BAD, 1)])
@pytest.mark.parametrize("thread", ["none", "thread"])
def test_the_command_ends_as_a_normal_exit_would(tmp_path: Path, submission: str, code: int, thread: str) -> None:
    """``run()`` skips the interpreter's teardown, nothing else: the exit code is pytest's, the whole report reaches
    a pipe (the last line is pytest's summary), the exit handlers run, and a thread still running is waited for
    (the normal exit)."""
    script = tmp_path / "ending.py"
    script.write_text(_ENDING, encoding="utf-8")
    ret, out, _ = _cli_script(tmp_path, script, thread, "--omfc-submission", submission, "--omfc-index", INDEX, "-v")
    lines = out.splitlines()
    assert ret == code
    assert "exit handler ran" in lines
    assert any(" passed" in line and line.startswith("=") for line in lines)
    assert ("thread finished" in lines) is (thread == "thread")
    assert sum("::SUB-10 PASSED" in line for line in lines) == 1  # -v lists every item: nothing cut


def _cli_script(tmp_path: Path, script: Path, *args: str) -> tuple[int | None, str, str]:
    run = run_capped([str(script), *args], cwd=tmp_path, timeout=120)
    return run.ret, run.out, run.err


def test_the_command_runs_without_log_capture(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The checks log nothing: ``pytest-omfc`` leaves pytest's per-item log capture out (``-p no:logging``), as it
    leaves out the cache; the verdict is the same."""
    from pytest_omfc.cli import main

    seen: dict[str, bool] = {}

    class Probe:
        def pytest_configure(self, config: pytest.Config) -> None:
            seen["logging blocked"] = config.pluginmanager.is_blocked("logging")
            seen["cache blocked"] = config.pluginmanager.is_blocked("cacheprovider")

    monkeypatch.chdir(tmp_path)
    assert main(["--omfc-submission", VALID, "--omfc-index", INDEX, "-q"], own_process=False, plugins=[Probe()]) == 0
    assert seen == {"logging blocked": True, "cache blocked": True}


_GC = """\
import gc, sys
from pytest_omfc.cli import main
threshold, frozen = gc.get_threshold()[0], gc.get_freeze_count()  # the interpreter's own (700; 2000 in 3.13)
seen = []
class Probe:
    def pytest_sessionfinish(self, session):
        now = gc.get_threshold()[0]
        seen.append((now if now != threshold else "unchanged", gc.get_freeze_count() > frozen))
own = sys.argv[1] == "own"
main(sys.argv[2:], own_process=own, plugins=[Probe()])
print("GC", *seen[0])
"""


@pytest.mark.parametrize("own", ["own", "library"])
def test_the_command_tunes_the_collector_of_its_own_process_only(tmp_path: Path, own: str) -> None:
    """The command's own process freezes what collection loaded and collects the youngest generation less often
    (a package of 1,000 EXPIDs spent a tenth of its run in full collections); called as a library
    (``omfc_validate``), it leaves the caller's collector as it was."""
    from pytest_omfc.cli import YOUNG_THRESHOLD

    script = tmp_path / "gc_probe.py"
    script.write_text(_GC, encoding="utf-8")
    ret, out, err = _cli_script(tmp_path, script, own, "--omfc-submission", VALID, "--omfc-index", INDEX, "-q")
    assert ret == 0, err
    line = next(line for line in out.splitlines() if line.startswith("GC "))
    assert line == (f"GC {YOUNG_THRESHOLD} True" if own == "own" else "GC unchanged False")
