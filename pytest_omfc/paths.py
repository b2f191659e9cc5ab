"""Resolving file references from the system output without leaving the submission.

A mask, HDF5 or JSON reference must be a relative path that stays inside the
submission directory: no ``..`` escape, no absolute path, no symlink leading
outside (RULES.md D-24, PKG-04...06).  An unsafe reference is reported and the
file outside is never opened.
"""

from __future__ import annotations

import re
from pathlib import Path
from pathlib import PurePosixPath

__all__ = ["resolve_inside"]

_WINDOWS_ABS = re.compile(r"^([A-Za-z]:|[\\/]{2})")


def resolve_inside(sub_dir: Path, ref: str) -> tuple[Path | None, str | None]:
    """``(path, None)`` for a safe reference, else ``(None, why)`` in "must ... (got ...)" form."""
    text = ref.strip()
    if not text:
        return None, "must name a file (got an empty path)"
    norm = text.replace("\\", "/")
    if norm.startswith("/") or _WINDOWS_ABS.match(text):
        return None, f"must be a path relative to the submission directory (got absolute path {text!r})"
    if ".." in PurePosixPath(norm).parts:
        return None, f"must stay inside the submission directory (got '..' in {text!r})"
    path = sub_dir / norm
    try:
        real = path.resolve()
        root = sub_dir.resolve()
    except (OSError, RuntimeError) as exc:  # symlink loops
        return None, f"cannot be resolved ({exc})"
    if not real.is_relative_to(root):
        return None, f"must stay inside the submission directory (got a symlink to {real})"
    return path, None
