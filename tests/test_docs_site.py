"""The documentation site: it builds with warnings as errors, every internal link and anchor of the built
pages resolves, and every command shown in a ``console`` block runs as shown.

A ``console`` block (a fenced block whose info string is ``console``) in README.md or under docs/ is a
claim: each ``$ `` line is a command, and the lines under it are output it prints, in that order (lines
may be left out; durations and the ``===`` of pytest's banners are not compared). The commands run in a
copy of ``examples/`` (so they may write files), with ``pytest`` and ``pytest-omfc`` of this environment,
at 80 columns, as on a reader's terminal (not as on a CI runner, where pytest prints whole failure
messages). Blocks with another info string (or none) are illustrations and run nowhere.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers.paths import EXAMPLES, REPO

DOCS = REPO / "docs"
#: where a reader's clone is shown to be, in place of the run's temporary directory
SHOWN_ROOT = "~/pytest-omfc"
_FENCE = re.compile(r"^```console\n(.*?)^```$", re.S | re.M)


def _markdown_files() -> list[Path]:
    return [REPO / "README.md", *sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts)]


def console_blocks() -> list[tuple[str, int, str]]:
    """(file, line, block text) of every ``console`` block."""
    out = []
    for path in _markdown_files():
        text = path.read_text(encoding="utf-8")
        for m in _FENCE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            out.append((path.relative_to(REPO).as_posix(), line, m.group(1)))
    return out


def _normal(line: str) -> str:
    """A line as compared: durations and the width of pytest's ``===`` banners do not matter."""
    line = re.sub(r"\b\d+\.\d+s\b", "<t>s", line.rstrip())
    line = line.strip("= ") if line.startswith("==") else line
    return re.sub(r"-{8,}", "--", line)


def _commands(block: str) -> list[tuple[str, list[str]]]:
    """(command, claimed output lines) of a block; a ``\\`` at the end of a line continues the command."""
    out: list[tuple[str, list[str]]] = []
    lines = block.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("$ "):
            command = line[2:]
            while command.endswith("\\") and i + 1 < len(lines):
                i += 1
                command = command[:-1] + " " + lines[i].strip()
            out.append((command, []))
        elif out:
            out[-1][1].append(line)
        else:
            raise AssertionError(f"a console block must start with a '$ ' command line (got {line!r})")
        i += 1
    return out


def _run(command: str, cwd: Path) -> tuple[int, str]:
    # pytest prints each failure's whole message in the short summary when it believes it runs on CI
    # (CI or BUILD_NUMBER set), whatever the width: the blocks show what a reader's terminal prints
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_") and k not in ("CI", "BUILD_NUMBER")}
    env.update(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        COLUMNS="80",
        NO_COLOR="1",
        HOME=str(cwd),
    )
    proc = subprocess.run(
        ["bash", "-c", command], cwd=cwd, env=env, capture_output=True, text=True, timeout=300, check=False
    )
    return proc.returncode, (proc.stdout + proc.stderr).replace(str(cwd), SHOWN_ROOT)


def missing_lines(claimed: list[str], printed: str) -> list[str]:
    """The claimed lines not found, in order, in what was printed (empty when the claim holds)."""
    actual = [_normal(line) for line in printed.splitlines()]
    at = 0
    for n, line in enumerate(claimed):
        want = _normal(line)
        if not want:
            continue
        try:
            at = actual.index(want, at) + 1
        except ValueError:
            return claimed[n:]
    return []


@pytest.mark.parametrize(("where", "line", "block"), [pytest.param(*b, id=f"{b[0]}:{b[1]}") for b in console_blocks()])
def test_console_blocks_run_as_shown(tmp_path: Path, where: str, line: int, block: str) -> None:
    shutil.copytree(EXAMPLES, tmp_path / "examples", symlinks=True)
    for command, claimed in _commands(block):
        _, printed = _run(command, tmp_path)
        missing = missing_lines(claimed, printed)
        assert not missing, (
            f"{where}:{line}: `{command}` does not print, in this order, the lines shown; first not found:\n"
            f"  {missing[0]}\nwhat it printed:\n{printed}"
        )


def test_commands_run_as_on_a_readers_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """On a CI runner (CI or BUILD_NUMBER set) pytest prints whole failure messages in its short summary, so
    the blocks' commands run without them, at 80 columns."""
    monkeypatch.setenv("CI", "true")
    monkeypatch.setenv("BUILD_NUMBER", "7")
    _, printed = _run('echo "[${CI-unset}] [${BUILD_NUMBER-unset}] [$COLUMNS]"', tmp_path)
    assert printed.strip() == "[unset] [unset] [80]"


def test_there_are_console_blocks_in_the_readme_and_the_site() -> None:
    blocks = [where for where, _, _ in console_blocks()]
    assert "README.md" in blocks
    assert len([f for f in blocks if f.startswith("docs/")]) >= 5, blocks


def test_the_comparison_can_fail() -> None:
    printed = "a\nb 0.64s\n==== c ====\n"
    assert missing_lines(["a", "b 1.20s", "c"], printed) == []
    assert missing_lines(["a", "======= c ======="], printed) == []
    assert missing_lines(["b 0.64s", "a"], printed) == ["a"]  # order matters
    assert missing_lines(["d"], printed) == ["d"]


# ------------------------------------------------------------------ the site


sphinx = pytest.importorskip("sphinx", reason="the site builds with Sphinx (pip install -e '.[docs]')")


def _build(out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(DOCS), str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("myst_parser", reason="the pages are MyST Markdown (pip install -e '.[docs]')")
    pytest.importorskip("furo", reason="the site's theme is furo (pip install -e '.[docs]')")
    out = tmp_path_factory.mktemp("site") / "html"
    proc = _build(out)
    assert proc.returncode == 0, f"the site does not build clean (warnings are errors):\n{proc.stderr}"
    return out


def _check_links(site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(DOCS / "check_links.py"), str(site)], capture_output=True, text=True, check=False
    )


def test_the_site_builds_and_every_internal_link_resolves(site: Path) -> None:
    proc = _check_links(site)
    assert proc.returncode == 0, proc.stdout
    assert (site / "rules" / "mask.html").is_file()
    assert 'id="mask-06"' in (site / "rules" / "mask.html").read_text(encoding="utf-8")


def test_the_link_check_finds_a_missing_page_and_a_missing_anchor(site: Path, tmp_path: Path) -> None:
    broken = tmp_path / "html"
    shutil.copytree(site, broken)
    index = broken / "index.html"
    index.write_text(
        index.read_text(encoding="utf-8") + '<a href="rules/mask.html#mask-99">x</a><a href="nowhere.html">y</a>',
        encoding="utf-8",
    )
    proc = _check_links(broken)
    assert proc.returncode == 1
    assert "index.html: rules/mask.html#mask-99: no anchor #mask-99 in mask.html" in proc.stdout
    assert "index.html: nowhere.html: no such file" in proc.stdout


def test_a_broken_cross_reference_fails_the_build(tmp_path: Path) -> None:
    pytest.importorskip("myst_parser", reason="the pages are MyST Markdown (pip install -e '.[docs]')")
    pytest.importorskip("furo", reason="the site's theme is furo (pip install -e '.[docs]')")
    docs = tmp_path / "docs"
    shutil.copytree(DOCS, docs, ignore=shutil.ignore_patterns("_build"))
    (tmp_path / "CONTRIBUTING.md").write_text((REPO / "CONTRIBUTING.md").read_text(encoding="utf-8"), encoding="utf-8")
    page = docs / "getting-started.md"
    page.write_text(page.read_text(encoding="utf-8") + "\nSee [the rule](rules/mask.md#mask-99).\n", encoding="utf-8")
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html", str(docs), str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert proc.returncode != 0
    assert "mask-99" in proc.stderr


# ------------------------------------------------------------------ the README and the repository


def test_the_readme_is_short_and_leads_into_the_site() -> None:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    for page in ("docs/rules/index.md", "docs/options.md", "docs/portals.md", "docs/scoring/masks.md"):
        assert f"]({page}" in text, page
        assert (REPO / page).is_file(), page


def test_no_pointer_outside_the_repository() -> None:
    """Comments, docstrings and pages cite the project's own docs, never the specification files beside the
    checkout (RULES.md, METRICS.md) that a clone does not have.  tests/helpers/paths.py names them once, as
    the data the specification tests read (skipped where absent)."""
    offenders = []
    exempt = {Path(__file__).resolve(), (REPO / "tests" / "helpers" / "paths.py").resolve()}
    roots = ["pytest_omfc", "tests", "benchmarks", "examples", "docs", ".ci"]
    files = [REPO / "README.md", REPO / "CONTRIBUTING.md"]
    for root in roots:
        files += [p for p in (REPO / root).rglob("*") if p.suffix in {".py", ".md", ".yml", ".yaml", ".txt", ""}]
    for path in files:
        if not path.is_file() or "_build" in path.parts or path.resolve() in exempt:
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for name in ("RULES.md", "METRICS.md", "shared/spec"):
            if name in text:
                offenders.append(f"{path.relative_to(REPO)}: {name}")
    assert not offenders, "\n".join(offenders)
