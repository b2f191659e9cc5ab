"""The HTML report in a real browser: headless Chromium (Debian's ``chromium``) renders the report of the
bundled IMDL example (a failing rule, detection and mask scores; see test_html_report.example_case).

``--dump-dom`` gives the DOM after the page's script ran: the text (verdict, rule IDs, a metric) and the
filter, driven from the address.  ``--screenshot`` gives the pixels: the page is not blank and the
overlay colours of the evaluation plan's figure are there.  Every Chromium call has a 60 s timeout and
its own profile directory.  Skips where Chromium is absent (.ci/run installs it when it can).
``OMFC_SCREENSHOT=docs/html-report.png`` also saves the screenshot of docs/outputs.md (cropped, reduced).
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from helpers.html import REF_REL, example_case, text_of
from helpers.runs import run_capped
from PIL import Image

from pytest_omfc.report import COLOURS

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
_AS_LIMIT = resource.getrlimit(resource.RLIMIT_AS)[0]
pytestmark = [
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="headless Chromium not found: apt-get install chromium "
        "(Debian's package; .ci/run installs it when it can)",
    ),
    # V8 reserves tens of GB of address space up front: under an RLIMIT_AS cap Chromium dies with SIGTRAP
    pytest.mark.skipif(
        _AS_LIMIT != resource.RLIM_INFINITY,
        reason=f"Chromium cannot start under an address-space limit (RLIMIT_AS = {_AS_LIMIT} bytes)",
    ),
]


def chromium(profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    cmd = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-extensions",
        f"--user-data-dir={profile}",
        *args,
    ]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=False)


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The report, made once for the module (a subprocess run of the plugin on the example copy)."""
    root = tmp_path_factory.mktemp("html")
    sub, index = example_case(root)
    res = run_capped(
        [
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--omfc-submission",
            str(sub),
            "--omfc-index",
            str(index),
            "--omfc-reference",
            REF_REL,
            "--omfc-html",
            "report.html",
        ],
        cwd=root,
        timeout=120,
    )
    assert res.ret == pytest.ExitCode.TESTS_FAILED, res.out[-2000:]
    return root / "report.html"


def test_the_page_text_in_chromium(report: Path, tmp_path: Path) -> None:
    run = chromium(tmp_path / "profile", "--dump-dom", report.as_uri())
    assert run.returncode == 0, run.stderr[-2000:]
    dom = run.stdout
    text = text_of(dom)
    assert "Failed: 1 rule failed and 0 warnings" in text
    assert "SCORE-03: 1 of 4 scores are outside [0, 1] (showing 1)" in text
    for rule in ("SCORE-03", "IDX-04", "MASK-05", "CSV-01"):
        assert re.search(rf"<td>(<a [^>]*>)?{rule}(</a>)?</td>", dom), rule
    assert re.search(r'<td class="num">0\.6744</td>', dom)  # the mask scorer's OptimumMCC over the 3 probes
    assert '<div id="filters">' in dom  # the script ran (the Content-Security-Policy allowed it) and showed the filter
    assert len(re.findall(r"<tr data-family[^>]*>", dom)) > 30 and " hidden" not in "".join(
        re.findall(r"<tr data-family[^>]*>", dom)
    )


def test_the_environment_section_renders_collapsed(report: Path, tmp_path: Path) -> None:
    run = chromium(tmp_path / "profile", "--dump-dom", report.as_uri())
    assert run.returncode == 0, run.stderr[-2000:]
    section = re.search(r'<details id="environment">(.*?)</details>', run.stdout, re.S)
    assert section is not None and "<summary>Environment</summary>" in section.group(1)
    assert ' open=""' not in section.group(0)[:40]  # collapsed until the reader opens it
    assert re.search(r"<code>[0-9a-f]{64}</code>", section.group(1))  # an input's SHA-256


def test_the_filter_from_the_address(report: Path, tmp_path: Path) -> None:
    run = chromium(tmp_path / "profile", "--dump-dom", report.as_uri() + "?status=failed")
    assert run.returncode == 0, run.stderr[-2000:]
    shown = re.findall(r'<tr data-family="(\w+)" data-status="(\w+)">', run.stdout)
    assert shown == [("SCORE", "failed")]  # every other row carries hidden=""


def test_the_screenshot_is_not_blank_and_shows_the_overlay_colours(report: Path, tmp_path: Path) -> None:
    shot = tmp_path / "shot.png"
    run = chromium(
        tmp_path / "profile", "--hide-scrollbars", f"--screenshot={shot}", "--window-size=1280,2000", report.as_uri()
    )
    assert run.returncode == 0 and shot.is_file(), run.stderr[-2000:]
    with Image.open(shot) as im:
        rgb = np.asarray(im.convert("RGB"))
    assert rgb.shape[:2] == (2000, 1280)
    flat = rgb.reshape(-1, 3)
    packed = (flat[:, 0].astype(np.uint32) << 16) | (flat[:, 1].astype(np.uint32) << 8) | flat[:, 2]
    counts = np.bincount(packed, minlength=1 << 24)
    assert np.count_nonzero(counts) > 200, np.count_nonzero(
        counts
    )  # text, tables, plots, thumbnails: not one flat colour
    assert counts.max() < 0.9 * len(flat)  # no colour (the white background) fills the page
    # each overlay colour on more pixels than its 12x12 legend swatch: the thumbnails are drawn
    for name in ("TP", "FN", "FP", "NS"):
        near = (np.abs(flat.astype(int) - np.array(COLOURS[name])) <= 8).all(axis=1).sum()
        assert near >= 400, (name, COLOURS[name], int(near))
    target = os.environ.get("OMFC_SCREENSHOT")
    if target:
        _save_for_readme(shot, Path(target))


def _save_for_readme(shot: Path, target: Path) -> None:
    """The top of the page down to the thumbnails, reduced to 900 px wide, as PNG (about 250 KB)."""
    with Image.open(shot) as im:
        rgb = np.asarray(im.convert("RGB"))
    rows = np.flatnonzero((rgb != 255).any(axis=(1, 2)))
    page = Image.fromarray(rgb[: min(rgb.shape[0], int(rows.max()) + 16), :1280])
    small = page.resize((900, round(page.height * 900 / 1280)), Image.Resampling.LANCZOS)
    target.parent.mkdir(parents=True, exist_ok=True)
    small.save(target, optimize=True)
