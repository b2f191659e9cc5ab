"""The ForgeryNet page's commands (docs/scoring/forgerynet.md) run on the bundled examples and give the numbers
the page quotes (issue 12).

The examples' verdicts (valid ones pass, invalid ones fail the rules EXPECTED.json lists) are checked
by ``tests/test_examples.py`` with the NIST ones.
"""

from __future__ import annotations

import json
import re

import pytest
from helpers.paths import REPO

ROOT = REPO
WHOLE = (ROOT / "docs" / "scoring" / "forgerynet.md").read_text(encoding="utf-8").split("\n## ", 1)[0]
OFFICIAL, SECTION = WHOLE.split("**This project's own formats**", 1)  # the benchmark's own files come first
COMMANDS = [ln for ln in SECTION.splitlines() if ln.startswith("pytest --omfc-submission examples/")]
ROWS = re.findall(r"^\| (image, 3-way|video, 2-way|spatial|temporal) \| (.+) \|$", SECTION, re.M)
OFFICIAL_COMMANDS = [ln for ln in OFFICIAL.splitlines() if ln.startswith("pytest --omfc-submission examples/")]
OFFICIAL_ROWS = re.findall(
    r"^\| (image|video|temporal|spatial), [^|]*against `[a-z_]+\.txt`[^|]* \| (.+) \|$", OFFICIAL, re.M
)


def test_the_readme_quotes_one_command_and_one_row_per_task() -> None:
    assert len(COMMANDS) == 4 and len(ROWS) == 4


@pytest.mark.parametrize("k", range(4), ids=["image", "video", "spatial", "temporal"])
def test_readme_command_gives_the_quoted_numbers(pytester: pytest.Pytester, k: int) -> None:
    args = [str(ROOT / a) if a.startswith("examples/") else a for a in COMMANDS[k].split()[1:]]
    out = pytester.path / "metrics.json"
    result = pytester.runpytest(*args, "--omfc-metrics-json", str(out), "-p", "no:cacheprovider")
    assert result.ret == 0, result.stdout.str()[-3000:]
    (entry,) = json.loads(out.read_text())["results"]
    assert entry["notes"] == [] or k == 3, entry["notes"]  # temporal: the real video's prediction is a noted FP
    quoted = dict(pair.rsplit(" ", 1) for pair in ROWS[k][1].split(", "))
    got = {name: f"{entry['metrics'][name]:.4f}" for name in quoted}
    assert got == quoted
    result.stdout.fnmatch_lines(["*omfc ForgeryNet * scores*"])


def test_the_readme_leads_with_the_official_files() -> None:
    assert len(OFFICIAL_COMMANDS) == 4 and len(OFFICIAL_ROWS) == 4
    assert WHOLE.index("**The benchmark's own files**") < WHOLE.index("**This project's own formats**")


@pytest.mark.parametrize("k", range(4), ids=["image-list", "video-list", "temporal-video-list", "spatial-image-list"])
def test_readme_official_command_gives_the_quoted_numbers(pytester: pytest.Pytester, k: int) -> None:
    """The commands on the benchmark's own files (a prediction file named by --omfc-submission, an image or
    video list as the reference), run as shown, give the table's metrics."""
    args = [str(ROOT / a) if a.startswith("examples/") else a for a in OFFICIAL_COMMANDS[k].split()[1:]]
    out = pytester.path / "metrics.json"
    result = pytester.runpytest(*args, "--omfc-metrics-json", str(out), "-p", "no:cacheprovider")
    assert result.ret == 0, result.stdout.str()[-3000:]
    (entry,) = json.loads(out.read_text())["results"]
    quoted = dict(pair.rsplit(" ", 1) for pair in OFFICIAL_ROWS[k][1].split(", "))
    assert {name: f"{entry['metrics'][name]:.4f}" for name in quoted} == quoted
