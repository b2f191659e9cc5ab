"""Nothing of a run is left in TMPDIR after any exit (pytest_omfc/private.py): the private folders are marked,
removed at the end, on SIGTERM (a portal's time-out), and by the next run when a run was killed outright;
pytest's and xdist's temporary folders live inside the run's own."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest
from helpers.paths import EXAMPLES

from pytest_omfc import private

SUB = "p-baseline_3_imdl"
INDEX = EXAMPLES / "datasets/OpenMFC2020/indexes/OpenMFC20_Image-IMDL-index.csv"

#: The pytest-omfc command whose unpacking waits 60 s once done: time to send it a signal mid-run.
SLOW = (
    "import sys, time\n"
    "import pytest_omfc.archive as a\n"
    "real = a.unpack\n"
    "def slow(*args, **kw):\n"
    "    out = real(*args, **kw)\n"
    "    print('unpacked', flush=True)\n"
    "    time.sleep(60)\n"
    "    return out\n"
    "a.unpack = slow\n"
    "from pytest_omfc.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def _upload(tmp_path: Path) -> Path:
    archive = tmp_path / f"{SUB}.tar"
    with tarfile.open(archive, "w") as tf:
        tf.add(EXAMPLES / "submissions/imdl" / SUB, arcname=SUB)
    return archive


def _env(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    env["TMPDIR"] = str(tmp)
    return env


def _check(tmp_path: Path, tmp: Path, *args: str) -> None:
    """pytest-omfc on the valid example packed as an upload, with TMPDIR=``tmp``: every rule passes."""
    upload = str(_upload(tmp_path))
    run = subprocess.run(
        [sys.executable, "-m", "pytest_omfc", "--omfc-submission", upload, "--omfc-index", str(INDEX), *args],
        cwd=tmp_path,
        env=_env(tmp),
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]


def test_sigterm_mid_run_leaves_nothing(tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    archive = _upload(tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "-c", SLOW, "--omfc-submission", str(archive), "--omfc-index", str(INDEX)],
        cwd=tmp_path,
        env=_env(tmp),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "unpacked"
        assert len(list(tmp.iterdir())) >= 2  # the command's own folder and the unpacked upload
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == -signal.SIGTERM
    assert list(tmp.iterdir()) == []


def test_a_killed_runs_folders_are_removed_by_the_next_run(tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale = tmp / "pytest-omfc-archive-stale"
    (stale / "unpacked").mkdir(parents=True)
    (stale / private.MARKER).write_text(dead.stdout)
    alive = tmp / "pytest-omfc-archive-alive"
    alive.mkdir()
    (alive / private.MARKER).write_text(f"{os.getpid()}\n")
    unmarked = tmp / "pytest-omfc-archive-unmarked"
    unmarked.mkdir()
    _check(tmp_path, tmp)
    assert sorted(p.name for p in tmp.iterdir()) == ["pytest-omfc-archive-alive", "pytest-omfc-archive-unmarked"]


@pytest.mark.parametrize("args", [["-n", "2"], []], ids=["xdist", "one-process"])
def test_a_run_leaves_nothing_in_tmpdir(tmp_path: Path, args: list[str]) -> None:
    pytest.importorskip("xdist")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    started = time.time()
    _check(tmp_path, tmp, *args)
    assert list(tmp.iterdir()) == [], f"left after {time.time() - started:.0f} s"


def _gone(tmp: Path, seconds: float = 60) -> list[str]:
    """What is left in ``tmp`` once it empties, or after ``seconds``."""
    end = time.monotonic() + seconds
    while list(tmp.iterdir()) and time.monotonic() < end:
        time.sleep(0.1)
    return [p.name for p in tmp.iterdir()]


def test_a_large_tree_is_renamed_at_once_and_removed_by_a_detached_rm(tmp_path: Path) -> None:
    """Removing 100,000 unpacked members took minutes after the verdict, and a kill meanwhile lost the exit code:
    a large tree is renamed (its own name is free at once) and a detached rm removes the trash."""
    tmp = tmp_path / "tmp"
    tree = tmp / "pytest-omfc-archive-big"
    (tree / "unpacked").mkdir(parents=True)
    (tree / private.MARKER).write_text(f"{os.getpid()}\n")
    for k in range(200):
        (tree / "unpacked" / f"m{k}").write_bytes(b"x")
    private.remove(tree, detach=True)
    assert not tree.exists()
    assert _gone(tmp) == []


def test_the_detached_removal_is_an_rm_of_the_renamed_tree_in_its_own_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the run leaves to the detached process: the renamed tree (its marker inside), and an ``rm -rf`` of
    exactly that path in a session of its own (a signal to the run's process group does not stop it)."""
    started: list[tuple[list[str], dict[str, object]]] = []
    monkeypatch.setattr(private.subprocess, "Popen", lambda args, **kw: started.append((args, kw)))
    tree = tmp_path / "pytest-omfc-archive-big"
    (tree / "unpacked").mkdir(parents=True)
    (tree / private.MARKER).write_text(f"{os.getpid()}\n")
    private.remove(tree, detach=True)
    [(args, kw)] = started
    [trash] = list(tmp_path.iterdir())
    assert trash.name.startswith("pytest-omfc-trash-") and (trash / private.MARKER).is_file()
    assert args[1:] == ["-rf", "--", str(trash)] and kw["start_new_session"] is True


def test_trash_a_killed_rm_left_is_swept(tmp_path: Path) -> None:
    tmp = tmp_path / "tmp"
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    trash = tmp / "pytest-omfc-trash-12-ab"
    (trash / "unpacked").mkdir(parents=True)
    (trash / private.MARKER).write_text(dead.stdout)
    assert private.sweep(tmp) == [trash] and not trash.exists()


def test_an_upload_of_many_members_exits_with_its_code_and_leaves_nothing(tmp_path: Path) -> None:
    """An upload of more than DETACH_MEMBERS members: the verdict's exit code (every rule passes: 0), and
    TMPDIR empties once the detached rm is done."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    archive = tmp_path / f"{SUB}.tar"
    with tarfile.open(archive, "w") as tf:
        tf.add(EXAMPLES / "submissions/imdl" / SUB, arcname=SUB)
        info = tarfile.TarInfo(f"{SUB}/extra")
        info.type = tarfile.DIRTYPE
        tf.addfile(info)
        for k in range(private.DETACH_MEMBERS + 1):
            tf.addfile(tarfile.TarInfo(f"{SUB}/extra/{k}"))
    run = subprocess.run(
        [sys.executable, "-m", "pytest_omfc", "--omfc-submission", str(archive), "--omfc-index", str(INDEX), "-q"],
        cwd=tmp_path,
        env=_env(tmp),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode in (0, 1), run.stdout[-2000:] + run.stderr[-2000:]
    assert "Traceback" not in run.stdout + run.stderr
    assert _gone(tmp) == []
