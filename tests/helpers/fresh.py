"""New virtual environments for the ``fresh`` tests (tests/test_install.py, tests/glue/test_ci_recipes.py):
each installs what a user would into an empty environment, so they run only with ``OMFC_FRESH=1`` (.ci/run)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .paths import REPO

#: Skips a fresh test unless OMFC_FRESH is set.
NEEDS_FRESH = pytest.mark.skipif(
    not os.environ.get("OMFC_FRESH"), reason="installs into a new venv: set OMFC_FRESH=1 (.ci/run)"
)
#: The marks of a fresh test module (``pytestmark = FRESH``).
FRESH = [pytest.mark.fresh, NEEDS_FRESH]


def new_venv(dest: Path) -> dict[str, str]:
    """A new virtual environment with pip (for ``OMFC_FRESH_PYTHON``, else this interpreter), and the
    environment variables of a shell in which it is activated."""
    python = os.environ.get("OMFC_FRESH_PYTHON", sys.executable)
    uv = shutil.which("uv")
    if uv:  # a venv with pip for any interpreter, also one without ensurepip (Debian's python3.11-minimal)
        subprocess.run([uv, "venv", "-q", "--seed", "-p", python, str(dest)], check=True)
    else:
        subprocess.run([python, "-m", "venv", str(dest)], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "VIRTUAL_ENV", "PYTHON"))}
    env["PATH"] = f"{dest / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(dest)
    return env


def shell(command: str, cwd: Path, env: dict[str, str], timeout: float = 1200) -> subprocess.CompletedProcess[str]:
    """``command`` run by bash as written in a README or recipe."""
    return subprocess.run(["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def copy_of_the_repository(dest: Path) -> None:
    """The files a clone has (tracked and new, not ignored), without git's history."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        src = REPO / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
