"""The README's first command, verbatim, in a fresh copy of the repository and a fresh virtual environment
(``fresh``: slow, it installs the project and its dependencies; ``.ci/run`` runs it with ``OMFC_FRESH=1``, once
per supported Python through ``OMFC_FRESH_PYTHON``).  It must exit 0 having run the submission's items and
nothing else: no test of this repository, no import of a test-only package (none is installed there)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from helpers.fresh import FRESH, copy_of_the_repository, new_venv, shell

ROOT = Path(__file__).resolve().parents[1]

pytestmark = FRESH


def _readme_check_command() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"^pip install \. && pytest --omfc-submission .*$", text, re.M)
    assert m, "README lacks its first command"
    return m.group(0)


def test_readme_first_command_in_a_fresh_clone_and_venv(tmp_path: Path) -> None:
    clone = tmp_path / "clone"
    copy_of_the_repository(clone)
    env = new_venv(tmp_path / "venv")
    run = shell(_readme_check_command(), clone, env)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-4000:]
    summary = re.search(r"== (\d+) passed in [\d.]+s", out)
    assert summary and "failed" not in summary.group(0), out[-2000:]
    assert "collected" in out and "tests/" not in out.split("collected", 1)[1], "the repository's tests were collected"
    probe = subprocess.run(
        [
            str(tmp_path / "venv" / "bin" / "python"),
            "-c",
            "import importlib.util as u; print(u.find_spec('hypothesis') is None)",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert probe.stdout.strip() == "True", "the check ran in an environment with the test extras"
