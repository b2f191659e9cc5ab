"""What produced a report: the plugin's version, the time, the command, the options in effect, the Python and
library versions and the inputs' fingerprints.  The HTML report shows it in its Environment section and the
metrics JSON carries it under ``run``, so that a report forwarded to a team can be reproduced and matched with
its inputs.  Plain Python, no pytest: the glue gathers the command and the options and calls :func:`stamp`.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
import platform
import shlex
import stat
import sys
from collections.abc import Iterable, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["LIBRARIES", "MAX_FINGERPRINTS", "command_line", "environment", "fingerprint", "stamp"]

#: the distributions whose versions decide a result (readers, engines, the test runner)
LIBRARIES = ("pytest", "numpy", "pandas", "pillow", "zlib-ng", "h5py", "glymur", "pydantic", "jsonschema", "rich")
#: inputs fingerprinted at most (an NC2017 package names one output per EXPID): the rest are counted
MAX_FINGERPRINTS = 200
_CHUNK = 1 << 20


def environment() -> dict[str, str]:
    """Python, the platform and the installed versions of :data:`LIBRARIES` ("not installed" where absent)."""
    out = {"python": sys.version.split()[0], "implementation": platform.python_implementation()}
    out["platform"] = platform.platform(terse=True)
    for name in LIBRARIES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def fingerprint(path: Path, shown: str | None = None) -> dict[str, Any]:
    """``{"path", "bytes", "sha256"}`` of a regular file, read in chunks; ``{"path", "kind"}`` for a directory
    or a special file (never opened: a FIFO would block), ``{"path", "error"}`` when it cannot be read.
    ``shown``: the name to give (an archive member's, not where it was unpacked)."""
    shown = shown if shown is not None else str(path)
    try:
        st = os.stat(path)
    except OSError as exc:
        return {"path": shown, "error": exc.strerror or str(exc)}
    if stat.S_ISDIR(st.st_mode):
        return {"path": shown, "kind": "directory"}
    if not stat.S_ISREG(st.st_mode):
        return {"path": shown, "kind": "special file"}
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as stream:
            while chunk := stream.read(_CHUNK):
                digest.update(chunk)
    except OSError as exc:
        return {"path": shown, "error": exc.strerror or str(exc)}
    return {"path": shown, "bytes": st.st_size, "sha256": digest.hexdigest()}


def command_line(args: Sequence[str], cwd: Path) -> str:
    """The command as a shell would take it, with absolute paths under ``cwd`` made relative to it (a report
    does not show where the portal keeps its files when the command ran there)."""

    def short(arg: str) -> str:
        flag, eq, value = arg.partition("=") if arg.startswith("-") else ("", "", arg)
        if not value.startswith(os.sep):
            return arg
        try:
            rel = os.path.relpath(value, cwd)
        except ValueError:  # another drive (Windows)
            return arg
        rel = value if rel.startswith("..") else rel
        return f"{flag}{eq}{rel}" if eq else rel

    return shlex.join(short(a) for a in args)


def stamp(
    *,
    version: str,
    program: str,
    args: Sequence[str],
    cwd: Path,
    options: Mapping[str, Any],
    inputs: Iterable[tuple[Path, str | None]],
) -> dict[str, Any]:
    """The run's provenance: plugin version, UTC time, command, options in effect, environment, and the
    fingerprints of at most :data:`MAX_FINGERPRINTS` inputs (``(path, name shown or None)``, each file once),
    with their total count."""
    unique = list(dict.fromkeys((Path(p), shown) for p, shown in inputs))
    now = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0)
    return {
        "plugin_version": version,
        "time_utc": now.isoformat().replace("+00:00", "Z"),
        "command": command_line([program, *args], cwd),
        "working_directory": str(cwd),
        "options": dict(options),
        "environment": environment(),
        "inputs": [fingerprint(p, shown) for p, shown in unique[:MAX_FINGERPRINTS]],
        "inputs_total": len(unique),
    }
