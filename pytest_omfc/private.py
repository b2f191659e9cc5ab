"""The run's private directories in TMPDIR: made with a marker, removed at the end, on SIGTERM and SIGINT, and by
the next run when a run was killed before it could.

Every directory a run makes there (the ``pytest-omfc`` command's configuration folder, an upload's unpacked
members, the alias of a submission folder pytest cannot name, dask's scratch space) is ``pytest-omfc-<kind>-*``
with a :data:`MARKER` file holding the process ID that made it.  :func:`sweep` removes those whose process is
gone (owned by this user, marked, their process no longer running): a run killed with SIGKILL or at a wall
limit leaves nothing for long.  No pytest import.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType

__all__ = ["DETACH_MEMBERS", "MARKER", "PREFIX", "forget", "make", "on_terminate", "remove", "sweep"]

PREFIX = "pytest-omfc-"
MARKER = ".pytest-omfc-private"


def make(kind: str) -> Path:
    """A new private directory (mode 0700) ``<TMPDIR>/pytest-omfc-<kind>-*``, marked with this process's ID."""
    path = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{kind}-"))
    (path / MARKER).write_text(f"{os.getpid()}\n", encoding="ascii")
    return path


#: Members of an unpacked upload past which its removal is handed to a detached ``rm`` (:func:`remove`).
DETACH_MEMBERS = 10_000


def remove(path: str | Path, *, detach: bool = False) -> None:
    """Remove a private directory and everything in it (never fails).

    With ``detach`` (a tree of many files: removing 100,000 members took minutes on a busy disk, after the
    verdict, and a portal's kill meanwhile lost the exit code), the directory is first renamed to
    ``pytest-omfc-trash-*`` beside it (one ``rename``: the run's name is free at once) and an ``rm -rf`` in a
    session of its own removes it while this process exits with its code.  The trash keeps its marker, so
    :func:`sweep` removes what a killed ``rm`` left."""
    path = Path(path)
    if detach:
        trash = path.with_name(f"{PREFIX}trash-{os.getpid()}-{secrets.token_hex(4)}")
        rm = shutil.which("rm")
        try:
            os.rename(path, trash)
        except OSError:
            trash = path
        if rm is not None and trash != path:
            try:
                subprocess.Popen(  # noqa: S603  a fixed program on a path this process made
                    [rm, "-rf", "--", str(trash)],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,
                    close_fds=True,
                )
                return
            except OSError:
                pass
        path = trash
    shutil.rmtree(path, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True


def sweep(directory: str | Path | None = None) -> list[Path]:
    """Remove the private directories of runs that were killed (see the module docstring); returns them."""
    removed: list[Path] = []
    root = Path(directory or tempfile.gettempdir())
    try:
        entries = list(os.scandir(root))
    except OSError:
        return removed
    for entry in entries:
        if not entry.name.startswith(PREFIX):
            continue
        try:
            st = entry.stat(follow_symlinks=False)
            if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
                continue
            pid = int((Path(entry.path) / MARKER).read_text(encoding="ascii").strip())
        except (OSError, ValueError):
            continue  # not one of ours, or being made right now
        if pid != os.getpid() and not _alive(pid):
            remove(entry.path)
            removed.append(Path(entry.path))
    return removed


_CLEANUPS: list[Callable[[], None]] = []


def on_terminate(cleanup: Callable[[], None]) -> None:
    """Run ``cleanup`` when SIGTERM arrives (a portal's time-out), then end the process as SIGTERM would, by
    raising it again with the default action; :func:`forget` it once it ran the ordinary way.  The handler is
    installed from the main thread only, and never over a handler of the process's own."""
    _CLEANUPS.append(cleanup)
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
        signal.signal(signal.SIGTERM, _terminate)


def forget(cleanup: Callable[[], None]) -> None:
    """The cleanup ran (or is no longer needed): SIGTERM need not run it."""
    while cleanup in _CLEANUPS:
        _CLEANUPS.remove(cleanup)


def _terminate(signum: int, frame: FrameType | None) -> None:
    try:
        for cleanup in reversed(_CLEANUPS):
            try:
                cleanup()
            except Exception:  # noqa: BLE001, S110  one failing cleanup must not keep the others from running
                pass
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)
