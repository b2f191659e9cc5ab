"""The README is generated where it can be, and what it says by hand is checked.

* the options, rule table, D-xx and B-xx blocks equal what ``python -m pytest_omfc.docgen`` writes;
* every registered rule ID, and every D-xx / B-xx the package cites, exists in RULES.md
  (read from ../shared/spec beside the checkout; skipped where it is absent);
* the quick-start commands name files that exist, ``.ci/run`` runs exactly the README's
  test command, and the pasted failure output is what the plugin prints.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers.paths import REPO
from helpers.runs import SHARED, Case

from pytest_omfc import REGISTRY, docgen

ROOT = REPO
README = ROOT / "README.md"
RULES_MD = SHARED / "spec" / "RULES.md"
TEST_COMMAND = "pip install -e '.[test]' && pytest -n 2"


@pytest.fixture(scope="module")
def rules_md() -> str:
    """RULES.md beside the checkout; skips where it is absent (as the conformance fixture does)."""
    if not RULES_MD.is_file():
        pytest.skip(f"RULES.md not found at {RULES_MD} (CI has it beside the checkout)")
    return RULES_MD.read_text(encoding="utf-8")


def _section(text: str, number: int) -> str:
    m = re.search(rf"^## {number}\. .*?(?=^## \d+\. |\Z)", text, re.S | re.M)
    assert m, f"RULES.md has no section {number}"
    return m.group(0)


def _table_ids(text: str) -> set[str]:
    return set(re.findall(r"^\| \*{0,2}([A-Z]+-\d\d)\*{0,2} \|", text, re.M))


# ------------------------------------------------------------------ generated blocks


def test_readme_blocks_are_up_to_date() -> None:
    stale = docgen.drift(README.read_text(encoding="utf-8"))
    assert stale == [], f"README blocks {stale} are stale; run: python -m pytest_omfc.docgen"


def test_rule_table_lists_every_registered_rule() -> None:
    text = README.read_text(encoding="utf-8")
    block = text.split("<!-- rules:start -->", 1)[1].split("<!-- rules:end -->", 1)[0]
    for r in REGISTRY.values():
        if r.check is None:
            assert f"* **{r.id}** " in block, r.id
        else:
            assert f"\n| {r.id} | " in block, r.id


def test_readme_lists_every_option() -> None:
    """Every --omfc-* flag pytest knows is in a generated README table, scoring flags with their MediScore twin."""
    from pytest_omfc.scoring.families import every_option

    text = README.read_text(encoding="utf-8")
    flags = [o.flag for o in every_option()]
    assert len(flags) == len(set(flags)) > 40
    for flag in flags:
        assert re.search(rf"^\| `{re.escape(flag)}[ `]", text, re.M), flag


def test_docgen_check_and_rewrite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    stale = tmp_path / "README.md"
    stale.write_text("".join(f"<!-- {n}:start -->\nSTALE-BODY\n<!-- {n}:end -->\n" for n in docgen.BLOCKS))
    assert docgen.main(["--check", str(stale)]) == 1
    assert (
        "out of date: options, scoring-options, conventions, rules, choices, defects, gate-metrics"
        in capsys.readouterr().out
    )
    assert docgen.main([str(stale)]) == 0
    assert docgen.main(["--check", str(stale)]) == 0
    assert "STALE-BODY" not in stale.read_text()
    broken = tmp_path / "broken.md"
    broken.write_text("no markers\n")
    assert docgen.main([str(broken)]) == 1
    assert "has no <!-- options:start -->" in capsys.readouterr().out


# ------------------------------------------------------------------ IDs against RULES.md


def test_registry_ids_exist_in_rules_md(rules_md: str) -> None:
    known = _table_ids(_section(rules_md, 2))
    assert len(known) == 143, "RULES.md section 2 is expected to define 143 rule IDs"
    # FNET (ForgeryNet), ARC (the uploaded archive) and PKG-10 (the NC2017 package folder, which RULES.md's
    # PKG-07 leaves "not checked") are this project's own, not in RULES.md
    own = {"PKG-10"}
    nist = {rid for rid, r in REGISTRY.items() if r.family not in ("FNET", "ARC") and rid not in own}
    assert sorted(nist - known) == []
    assert sorted(known - nist) == [], "every RULES.md rule is checked or listed as not checkable"


def test_cited_resolutions_and_defects_exist(rules_md: str) -> None:
    resolutions = _table_ids(_section(rules_md, 3))
    defects = _table_ids(_section(rules_md, 4))
    cited = {cid: list(where) for cid, where in docgen.citations().items()}
    for path in [
        *sorted((ROOT / "tests").rglob("*.py")),
        README,
        ROOT / "CONTRIBUTING.md",
        ROOT / "examples" / "make_examples.py",
    ]:
        for cid in docgen.CITE_RE.findall(path.read_text(encoding="utf-8")):
            cited.setdefault(cid, []).append(path.relative_to(ROOT).as_posix())
    unknown = {cid: where for cid, where in cited.items() if cid not in (resolutions if cid[0] == "D" else defects)}
    assert unknown == {}, "cited IDs that RULES.md sections 3/4 do not define"


def test_docgen_summaries_cover_rules_md(rules_md: str) -> None:
    assert set(docgen.CHOICES) == _table_ids(_section(rules_md, 3))
    assert set(docgen.DEFECTS) == _table_ids(_section(rules_md, 4))


def test_cited_ids_have_summaries() -> None:
    """Works without RULES.md: an ID docgen has no line for is a typo or a new resolution."""
    cited = docgen.citations()
    assert sorted(c for c in cited if c not in docgen.CHOICES and c not in docgen.DEFECTS) == []


# ------------------------------------------------------------------ hand-written parts


def test_quick_start_commands() -> None:
    text = README.read_text(encoding="utf-8")
    m = re.search(r"^pip install \. && pytest --omfc-submission (\S+) --omfc-index (\S+)$", text, re.M)
    assert m, "README lacks the one-line check of the valid example"
    assert (ROOT / m.group(1) / f"{Path(m.group(1)).name}.csv").is_file()
    assert (ROOT / m.group(2)).is_file()
    assert f"\n{TEST_COMMAND}\n" in text
    for name in (
        "## Scoring",
        "## Performance",
        "## Choices where the plans and MediScore disagree",
        "## MediScore defects not copied",
    ):
        assert f"\n{name}\n" in text, name


def test_ci_runs_exactly_the_readme_test_command() -> None:
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    commands = [ln.strip() for ln in script.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    install, test = TEST_COMMAND.split(" && ")
    assert install in commands
    assert any(c == test or c.startswith(test + " ||") for c in commands), "the README's pytest command"
    assert "-eq 5" in script, ".ci/run must turn exit status 5 (no tests ran) into a failure"


def test_pasted_failure_output_is_real(pytester: pytest.Pytester) -> None:
    text = README.read_text(encoding="utf-8")
    block = text.split("<!-- output:start -->", 1)[1].split("<!-- output:end -->", 1)[0]
    m = re.search(r"--omfc-submission (\S+) --omfc-index (\S+)", block)
    assert m
    failure = [ln for ln in block.splitlines() if re.match(r"^[A-Z]+-\d\d: |^  \S+\.csv:\d+ ", ln)]
    rule_id = failure[0].split(":", 1)[0]
    res = Case(pytester, ROOT / m.group(1), ROOT / m.group(2)).run()
    assert res.failed() == [rule_id]
    assert res.text(rule_id).splitlines() == failure
    counts = re.search(r"collected (\d+) items.*== 1 failed, (\d+) passed in ", block, re.S)
    assert counts, "the pasted output lacks the item counts"
    # the items themselves: not the helper's merged entry of a sliced rule (MASK-04 beside MASK-04[1/4]...)
    items = {r: o for r, (o, _) in res.reports.items() if not any(k.startswith(f"{r}[") for k in res.reports)}
    passed = sum(1 for outcome in items.values() if outcome == "passed")
    assert (int(counts.group(1)), int(counts.group(2))) == (len(items), passed), "re-paste the output"


def test_the_performance_section_quotes_benchmarks_as_they_run() -> None:
    """Every benchmark script the README's Performance section names exists, every option it shows for the
    script is one the script declares (with a value among the declared choices), and the rows the section
    quotes are ones the script prints (their labels are in its source): figures come from benchmark output."""
    import re

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    perf = readme.split("\n## Performance\n", 1)[1].split("\n## ", 1)[0]
    checked = 0
    current: str | None = None  # a paragraph without a script name continues the one before
    for paragraph in perf.split("\n\n"):
        named = sorted(set(re.findall(r"benchmarks/([a-z][a-z_]*\.py)", paragraph)))  # not the _helpers
        if len(named) > 1:
            current = None
            continue
        current = named[0] if named else current
        if current is None:
            continue
        scripts = [current]
        source = (REPO / "benchmarks" / current).read_text(encoding="utf-8")
        for code in re.findall(r"`([^`]*)`", paragraph):
            for flag, value in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)(?:[ =]([a-z][a-z0-9-]*))?", code):
                if flag.startswith("--omfc-") or flag in ("--help",):
                    continue  # the plugin's options (checked by the option tests)
                assert f'"{flag}"' in source, f"README shows {flag} for {scripts[0]}, which does not declare it"
                if value and "choices" in source.split(f'"{flag}"', 1)[1].split("\n", 1)[0]:
                    assert f'"{value}"' in source, f"README shows {flag} {value}; {scripts[0]} has no such choice"
                checked += 1
    labels = {  # rows quoted in the README -> what the script prints
        "score_masks.py": ["decode floor: Pillow, both PNGs", "OpenJPEG decode alone", "plugin's reference read"],
        "score_provenance.py": ["whole runs", "with mappings", "scores only"],
        "score_forgerynet.py": ["lines/s", "maps/s", "spatial runs"],
        "validate_scale.py": ["floor", "MediScore"],
    }
    for script, needles in labels.items():
        source = (REPO / "benchmarks" / script).read_text(encoding="utf-8")
        for needle in needles:
            assert needle in source, f"{script} no longer prints {needle!r}, which the README quotes"
    assert checked >= 5
