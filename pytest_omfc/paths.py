"""Resolving file references from the system output without leaving the submission.

A mask, HDF5 or JSON reference must be a relative path that stays inside the
submission directory: no ``..`` escape, no absolute path, no symlink leading
outside (D-24, PKG-04...06).  An unsafe reference is reported and the
file outside is never opened.  The same holds for the submission's own files,
``<ID>.csv`` (PKG-01) and ``<ID>.txt`` (PKG-03).

:func:`not_regular` tells what a path is when it is not a regular file (a FIFO
must never be opened for reading: ``open`` blocks until a writer comes).
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path, PurePosixPath

from . import members

__all__ = ["WINDOWS_ABS", "mode_kind", "not_regular", "resolve_input", "resolve_inside"]

#: a Windows absolute path: ``C:\\x``, ``C:/x``, ``\\\\server`` (a drive letter alone is not: "a::b.csv" is a name)
WINDOWS_ABS = re.compile(r"^([A-Za-z]:[\\/]|[\\/]{2})")


def resolve_inside(
    sub_dir: Path, ref: str, within: str = "the submission directory", cache: dict[str, Path] | None = None
) -> tuple[Path | None, str | None]:
    """``(path, None)`` for a safe reference, else ``(None, why)`` in "must ... (got ...)" form; ``within`` names
    ``sub_dir`` in the message.

    ``cache`` (one dict per caller and run) keeps the real path of ``sub_dir`` and of each directory met, so
    that a folder of 200,000 maps costs one ``lstat`` per file instead of a full resolution of every path
    component: a file that is itself a link is still resolved in full."""
    text = ref.strip()
    if not text:
        return None, "must name a file (got an empty path)"
    norm = text.replace("\\", "/")
    if norm.startswith("/") or WINDOWS_ABS.match(text):
        return None, f"must be a path relative to {within} (got absolute path {text!r})"
    if ".." in PurePosixPath(norm).parts:
        return None, f"must stay inside {within} (got '..' in {text!r})"
    if cache is not None:
        found = _inside_cached(sub_dir, norm, within, cache)
        if found is not None:
            return found
    path = sub_dir / norm
    try:
        if cache is None:
            real = path.resolve()
            root = sub_dir.resolve()
        else:
            root = cache.get(str(sub_dir)) or cache.setdefault(str(sub_dir), sub_dir.resolve())
            if os.path.islink(path):
                real = path.resolve()
            else:
                parent = path.parent
                real = (cache.get(str(parent)) or cache.setdefault(str(parent), parent.resolve())) / path.name
    except (OSError, RuntimeError) as exc:  # symlink loops
        return None, f"cannot be resolved ({exc})"
    if not real.is_relative_to(root):
        return None, f"must stay inside {within} (got a symlink to {real})"
    return path, None


def _inside_cached(
    sub_dir: Path, norm: str, within: str, cache: dict[str, Path]
) -> tuple[Path | None, str | None] | None:
    """:func:`resolve_inside` with ``cache`` for a plain name in a folder already resolved (a map among
    200,000): string work and one ``lstat``, no path object but the one returned.  None: not that case
    (a first visit of the folder, a name pathlib would normalise, a link), the caller resolves in full."""
    folder, _, name = norm.rpartition("/")
    if not name or name == "." or "//" in norm or "/./" in f"/{folder}/":
        return None
    base = str(sub_dir)
    parent = f"{base}/{folder}" if folder else base
    root, real_parent = cache.get(base), cache.get(parent)
    if root is None or real_parent is None:
        return None
    joined = f"{parent}/{name}"
    if os.path.islink(joined):
        return None
    top, where = str(root), str(real_parent)
    if not (where == top or where.startswith(top.rstrip("/") + "/")):
        return None, f"must stay inside {within} (got a symlink to {real_parent / name})"
    return Path(joined), None


def mode_kind(mode: int) -> str:
    """What a file of this ``st_mode`` is, for "(got a FIFO)" messages."""
    for test, name in (
        (stat.S_ISREG, "a regular file"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "a special file"


def not_regular(path: Path) -> str | None:
    """None for a regular file (symlinks followed); else what it is: "no such file", "a FIFO", ...

    Only ``stat`` is called: nothing is opened.
    """
    try:
        if members.locate(path) is not None:  # an archive member read in place: a regular file
            return None
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "a broken symlink" if os.path.islink(path) else "no such file"
    except OSError as exc:
        return f"a file that cannot be examined ({exc.strerror or exc})"
    return None if stat.S_ISREG(mode) else mode_kind(mode)


def resolve_input(value: str | Path, base: Path, dataset_root: Path | None) -> Path:
    """An input path given on the command line or in an ini file (a reference, journal, node or world
    table), made absolute in one place, the same under ``pytest`` and ``pytest-omfc``.

    A relative path is looked up in the dataset root first (where NIST ships these tables), then in
    ``base`` (the directory the command was run from, or the ini file's); the first that is a regular
    file or a directory wins (a directory: an NC2017 package's reference folder, a ForgeryNet maps
    folder; the caller says which it takes), else ``base / value`` (whose absence the caller reports).
    ``pytest-omfc`` calls this before it moves into its private directory, so the private directory is
    never a base.
    """
    path = Path(str(value)).expanduser()
    if path.is_absolute():
        return path
    cands = ([dataset_root / path] if dataset_root is not None else []) + [base / path]
    return next((c for c in cands if not_regular(c) is None or c.is_dir()), cands[-1]).absolute()
