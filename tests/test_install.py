"""The README's first command, verbatim, in a fresh copy of the repository and a fresh virtual environment
(``fresh``: slow, it installs the project and its dependencies; ``.ci/run`` runs it with ``OMFC_FRESH=1``, once
per supported Python through ``OMFC_FRESH_PYTHON``).  It must exit 0 having run the submission's items and
nothing else: no test of this repository, no import of a test-only package (none is installed there)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytestmark = [
    pytest.mark.fresh,
    pytest.mark.skipif(not os.environ.get("OMFC_FRESH"), reason="installs into a new venv: set OMFC_FRESH=1 (.ci/run)"),
]


def _readme_check_command() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"^pip install \. && pytest --omfc-submission .*$", text, re.M)
    assert m, "README lacks its first command"
    return m.group(0)


def _copy_of_the_repository(dest: Path) -> None:
    """The files a clone has (tracked and new, not ignored), without git's history."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)


def _venv(python: str, dest: Path) -> None:
    uv = shutil.which("uv")
    if uv:  # a venv with pip for any interpreter, also one without ensurepip (Debian's python3.11-minimal)
        subprocess.run([uv, "venv", "-q", "--seed", "-p", python, str(dest)], check=True)
    else:
        subprocess.run([python, "-m", "venv", str(dest)], check=True)


def test_readme_first_command_in_a_fresh_clone_and_venv(tmp_path: Path) -> None:
    python = os.environ.get("OMFC_FRESH_PYTHON", sys.executable)
    clone, venv = tmp_path / "clone", tmp_path / "venv"
    _copy_of_the_repository(clone)
    _venv(python, venv)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "VIRTUAL_ENV", "PYTHON"))}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(venv)
    command = _readme_check_command()
    run = subprocess.run(["bash", "-c", command], cwd=clone, env=env, capture_output=True, text=True, timeout=1200)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-4000:]
    summary = re.search(r"== (\d+) passed in [\d.]+s", out)
    assert summary and "failed" not in summary.group(0), out[-2000:]
    assert "collected" in out and "tests/" not in out.split("collected", 1)[1], "the repository's tests were collected"
    probe = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import importlib.util as u; print(u.find_spec('hypothesis') is None)"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert probe.stdout.strip() == "True", "the check ran in an environment with the test extras"
