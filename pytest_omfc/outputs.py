"""Where a run may write, and how: one definition for every output (the JUnit XML, the metrics JSON and its side
tables, the HTML report, the per-probe CSV, the plots).

A path is writable when it is a new file or an existing regular file (never a symbolic link, a FIFO, a device or
a directory), it lies outside every guarded place (the submission folder, the uploaded archive, the dataset, the
private folder an archive was unpacked into) and it is none of the files the run reads (index, reference,
journal tables ...).  :func:`why_not_writable` says why not, in "must ... (got ...)" form, before anything runs;
:func:`write_atomic` writes through a temporary file in the target's folder renamed over the target, so a reader
never sees half a file and a FIFO put in the file's place meanwhile is replaced, never opened (opening one for
writing blocks until a reader comes: a run would hang).

No pytest import: the pytest glue (a usage error, exit 4) and the Python API share it.
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from .paths import mode_kind

__all__ = ["Guarded", "why_not_folder", "why_not_writable", "write_atomic"]

#: ``(what it is, its path)``: "submission directory", "uploaded archive", "dataset directory", ...
Guarded = tuple[str, Path]


def _real(path: Path) -> Path:
    """``path`` absolute with its folder resolved (the name itself is not followed: a link is refused apart)."""
    absolute = Path(os.path.abspath(os.path.expanduser(path)))
    try:
        return absolute.parent.resolve() / absolute.name
    except (OSError, RuntimeError):
        return absolute


def why_not_writable(path: Path, guarded: Sequence[Guarded] = (), inputs: Sequence[Path] = ()) -> str | None:
    """Why the run must not write ``path`` ("must ... (got ...)"), or None when it may."""
    st, why = _entry(path, stat.S_ISREG, "a regular file", "a file path")
    if why is not None:
        return why
    real = _real(path)
    if (why := _inside(path, real, guarded)) is not None:
        return why
    for read in inputs:
        try:
            same = _real(read) == real or (st is not None and os.path.samefile(read, real))
        except OSError:
            same = False
        if same:
            return f"must not overwrite a file the run reads (got {path}, which is {read})"
    return None


def why_not_folder(path: Path, guarded: Sequence[Guarded] = ()) -> str | None:
    """Why the run must not write files into the folder ``path`` (``--omfc-plots``), or None when it may."""
    _, why = _entry(path, stat.S_ISDIR, "a folder", "a folder")
    return why if why is not None else _inside(path, _real(path), guarded)


def _entry(
    path: Path, right_kind: Callable[[int], bool], kind: str, what: str
) -> tuple[os.stat_result | None, str | None]:
    """``(lstat, None)`` when ``path`` is new or of ``right_kind`` (never a link), else ``(_, why not)``."""
    try:
        st = os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):  # a new file (a folder in its way fails when written)
        return None, None
    except OSError as exc:
        return None, f"must be {what} the run can examine (got {path}: {exc.strerror or exc})"
    if stat.S_ISLNK(st.st_mode):
        return st, f"must not be a symbolic link (got {path}, a link to {os.readlink(path)})"
    if not right_kind(st.st_mode):
        return st, f"must be {kind} or a new one (got {path}, {mode_kind(st.st_mode)})"
    return st, None


def _inside(path: Path, real: Path, guarded: Sequence[Guarded]) -> str | None:
    for kind, place in guarded:
        try:
            place = place.resolve()
        except (OSError, RuntimeError):
            pass
        if real == place:
            return f"must not be the {kind} (got {path})"
        if real.is_relative_to(place):
            return f"must not point into the {kind} {place} (got {path})"
    return None


def write_atomic(path: Path, data: str | bytes) -> None:
    """Write ``data`` (text as UTF-8) to ``path`` through a temporary file in its folder renamed over it; the
    folder is made when missing.  The file gets the mode a plain ``open(path, "w")`` would (0666 less the
    umask).  OSError propagates, and no temporary file is left."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        umask = os.umask(0)
        os.umask(umask)
        os.fchmod(fd, 0o666 & ~umask)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data.encode("utf-8") if isinstance(data, str) else data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
