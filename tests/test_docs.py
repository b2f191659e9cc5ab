"""The documentation is generated where it can be, and what it says by hand is checked.

* the generated pages and blocks under docs/ equal what ``python -m pytest_omfc.docgen`` writes (the rule
  reference, the option tables, the choices and defects, the conventions, the gate metrics);
* every registered rule has its page entry and its sources (``pytest_omfc.rules.catalog``); every rule ID and
  every D-xx / B-xx the package cites exists in the specification beside the checkout (skipped where it is
  absent), and every quotation of a plan is the plan's own text;
* the README's two commands name files that exist, ``.ci/run`` runs exactly its test command, and the
  pasted failure output is what the plugin prints.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers.paths import REPO, SPEC_PLANS, SPEC_RULES
from helpers.runs import Case

from pytest_omfc import REGISTRY, docgen
from pytest_omfc.rules.catalog import SOURCES

ROOT = REPO
README = ROOT / "README.md"
DOCS = ROOT / "docs"
TEST_COMMAND = "pip install -e '.[test,docs]' && pytest -n 2"


@pytest.fixture(scope="module")
def rules_md() -> str:
    """The rule catalogue beside the checkout; skips where it is absent (as the conformance fixture does)."""
    if not SPEC_RULES.is_file():
        pytest.skip(f"the rule catalogue is not at {SPEC_RULES} (CI has it beside the checkout)")
    return SPEC_RULES.read_text(encoding="utf-8")


def _section(text: str, number: int) -> str:
    m = re.search(rf"^## {number}\. .*?(?=^## \d+\. |\Z)", text, re.S | re.M)
    assert m, f"the rule catalogue has no section {number}"
    return m.group(0)


def _table_ids(text: str) -> set[str]:
    return set(re.findall(r"^\| \*{0,2}([A-Z]+-\d\d)\*{0,2} \|", text, re.M))


# ------------------------------------------------------------------ generated pages and blocks


def test_docs_are_up_to_date() -> None:
    stale = docgen.drift(DOCS)
    assert stale == [], f"docs {stale} are stale; run: python -m pytest_omfc.docgen"


def test_rule_table_links_every_registered_rule_to_its_page() -> None:
    text = (DOCS / "rules" / "index.md").read_text(encoding="utf-8")
    block = text.split("<!-- rules:start -->", 1)[1].split("<!-- rules:end -->", 1)[0]
    for r in REGISTRY.values():
        link = f"[{r.id}]({r.family.lower()}.md#{r.id.lower()})"
        assert (f"* **{link}** " if r.check is None else f"\n| {link} | ") in block, r.id
        page = (DOCS / "rules" / f"{r.family.lower()}.md").read_text(encoding="utf-8")
        assert f"\n## {r.id}\n" in page, r.id


def test_every_rule_has_its_sources() -> None:
    assert set(SOURCES) == set(REGISTRY), "pytest_omfc/rules/catalog.py and the registry differ"
    for rid, src in SOURCES.items():
        assert src.plans and src.mediscore, rid
        assert bool(src.quote) == bool(src.quoted_from), rid
        for cid in docgen.CITE_RE.findall(src.mediscore):
            assert cid in docgen.CHOICES or cid in docgen.DEFECTS, (rid, cid)


def _plain(text: str) -> str:
    text = text.replace("\\_", "_").replace("**", "").replace("\u2018", "'").replace("\u2019", "'")
    return re.sub(r"\s+", " ", text)


def test_every_quotation_is_the_plans_own_text() -> None:
    missing = [k for k, path in SPEC_PLANS.items() if not path.is_file()]
    if missing:
        pytest.skip(f"the evaluation plans are not beside the checkout ({SPEC_PLANS[missing[0]]})")
    plans = {k: _plain(path.read_text(encoding="utf-8")) for k, path in SPEC_PLANS.items()}
    quoted = 0
    for rid, src in SOURCES.items():
        if not src.quote:
            continue
        plan = src.quoted_from.split()[0]
        for sentence in re.split(r"(?<=[.:])\s+", _plain(src.quote)):
            assert sentence in plans[plan], f"{rid}: not in the {plan} plan: {sentence!r}"
        quoted += 1
    assert quoted >= 50


def test_docs_list_every_option() -> None:
    """Every --omfc-* flag pytest knows is in a generated options table, scoring flags with their MediScore twin."""
    from pytest_omfc.scoring.families import every_option

    text = (DOCS / "options.md").read_text(encoding="utf-8")
    flags = [o.flag for o in every_option()]
    assert len(flags) == len(set(flags)) > 40
    for flag in flags:
        assert re.search(rf"^\| `{re.escape(flag)}[ `]", text, re.M), flag


def test_docgen_check_and_rewrite(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs = tmp_path / "docs"
    for page, names in docgen.PAGES.items():
        (docs / page).parent.mkdir(parents=True, exist_ok=True)
        (docs / page).write_text("".join(f"<!-- {n}:start -->\nSTALE-BODY\n<!-- {n}:end -->\n" for n in names))
    (docs / "rules" / "gone.md").write_text(docgen.GENERATED + "\n# a family that no longer exists\n")
    assert docgen.main(["--check", str(docs)]) == 1
    out = capsys.readouterr().out
    assert "options.md: options, options.md: scoring-options" in out
    assert "rules/mask.md" in out and "rules/gone.md (no such family)" in out
    assert docgen.main([str(docs)]) == 0
    assert docgen.main(["--check", str(docs)]) == 0
    assert "STALE-BODY" not in (docs / "options.md").read_text()
    assert not (docs / "rules" / "gone.md").exists()
    (docs / "ci.md").write_text("no markers\n")
    assert docgen.main([str(docs)]) == 1
    assert "no <!-- gate-metrics:start -->" in capsys.readouterr().out


# ------------------------------------------------------------------ IDs against the specification


def test_registry_ids_exist_in_the_catalogue(rules_md: str) -> None:
    known = _table_ids(_section(rules_md, 2))
    assert len(known) == 143, "the catalogue is expected to define 143 rule IDs"
    # FNET (ForgeryNet), ARC (the uploaded archive) and PKG-10 (the NC2017 package folder, which the
    # catalogue's PKG-07 leaves "not checked") are this project's own
    own = {"PKG-10"}
    nist = {rid for rid, r in REGISTRY.items() if r.family not in ("FNET", "ARC") and rid not in own}
    assert sorted(nist - known) == []
    assert sorted(known - nist) == [], "every catalogue rule is checked or listed as not checkable"


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
    assert unknown == {}, "cited IDs that the choices and defects pages do not define"


def test_docgen_summaries_cover_the_catalogue(rules_md: str) -> None:
    assert set(docgen.CHOICES) == _table_ids(_section(rules_md, 3))
    assert set(docgen.DEFECTS) == _table_ids(_section(rules_md, 4))


def test_cited_ids_have_summaries() -> None:
    """Works without the catalogue: an ID docgen has no line for is a typo or a new resolution."""
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


def test_ci_runs_exactly_the_readme_test_command() -> None:
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    commands = [ln.strip() for ln in script.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    install, test = TEST_COMMAND.split(" && ")
    assert install in commands
    assert any(re.search(rf"(^|\s){re.escape(test)}(\s|$)", c) for c in commands), "the README's pytest command"
    assert re.search(r"-(eq|ne) 5\b", script), ".ci/run must turn exit status 5 (no tests ran) into a failure"


def test_pasted_failure_output_is_real(pytester: pytest.Pytester) -> None:
    """docs/participants.md's whole failing run: the failure text line for line, and the item counts."""
    text = (DOCS / "participants.md").read_text(encoding="utf-8")
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


def test_the_performance_page_quotes_benchmarks_as_they_run() -> None:
    """Every benchmark script docs/performance.md names exists, every option it shows for the script is one
    the script declares (with a value among the declared choices), and the rows the page quotes are ones the
    script prints (their labels are in its source): figures come from benchmark output."""
    perf = (DOCS / "performance.md").read_text(encoding="utf-8")
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
                assert f'"{flag}"' in source, f"the page shows {flag} for {scripts[0]}, which does not declare it"
                if value and "choices" in source.split(f'"{flag}"', 1)[1].split("\n", 1)[0]:
                    assert f'"{value}"' in source, f"the page shows {flag} {value}; {scripts[0]} has no such choice"
                checked += 1
    labels = {  # rows quoted in docs/performance.md -> what the script prints
        "score_masks.py": ["decode floor: Pillow, both PNGs", "OpenJPEG decode alone", "plugin's reference read"],
        "score_provenance.py": ["whole runs", "with mappings", "scores only"],
        "score_forgerynet.py": ["lines/s", "maps/s", "spatial runs"],
        "validate_scale.py": ["floor", "MediScore", "median wall", "alternate runs", "MASK-04 on a dask cluster"],
        "score_cluster.py": ["ForgeryNet spatial", "cluster overhead", "one local process"],
        "plugin_overhead.py": ["lower bound of MediScore's validator", "as a wheel, no byte code written"],
        "compare_runs.py": [
            "scoring one run",
            "omfc_compare(a, b) in a fresh process",
            "--omfc-baseline, less without",
        ],
    }
    for script, needles in labels.items():
        source = (REPO / "benchmarks" / script).read_text(encoding="utf-8")
        for needle in needles:
            assert needle in source, f"{script} no longer prints {needle!r}, which docs/performance.md quotes"
    assert checked >= 5


def test_rule_pages_show_what_the_broken_examples_print() -> None:
    """Every rule a bundled broken example fails (an NC2017 package's EXPIDs each as a submission of its task)
    has that example's failure on its page, as the run prints it today (docgen runs the checks)."""
    import json

    from helpers.paths import EXAMPLES

    expected = json.loads((EXAMPLES / "EXPECTED.json").read_text(encoding="utf-8"))
    wanted = {rid for e in expected.values() for rid in e["fails"]}
    found = docgen.example_findings(EXAMPLES)
    assert set(found) == wanted
    for rid, (where, text) in found.items():
        assert text.startswith(f"{rid}: ") and "\n  " in text, rid
        page = (DOCS / "rules" / f"{REGISTRY[rid].family.lower()}.md").read_text(encoding="utf-8")
        assert f"`{where}` fails it:\n\n```text\n{text}\n```" in page, rid


#: What the user documentation must not carry: the development journal (issue numbers, commit hashes, "this
#: session", "the last stop"...) and paths outside the repository.  A commit hash is a word of 7 to 12 hex digits
#: with at least one digit and one letter (SHA-256 examples are 64 long).
_JOURNAL = re.compile(
    r"\b[Ii]ssues? ?#?\d"
    r"|\b(?:this|last|previous|earlier|that) (?:session|stop)\b"
    r"|\bsessions' runs\b"
    r"|\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,12}\b"
    r"|\.\./shared"
    r"|development machine"
)


def test_the_user_docs_carry_no_development_journal() -> None:
    pages = [README, *sorted(DOCS.rglob("*.md"))]
    hits = [
        f"{page.relative_to(ROOT)}:{n}: {m.group(0)!r}"
        for page in pages
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
        for m in _JOURNAL.finditer(line)
    ]
    assert hits == [], "\n".join(hits)


def test_the_comparison_example_is_what_the_run_prints(pytester: pytest.Pytester) -> None:
    """docs/scoring/comparison.md's example, run as the page shows it: the baseline run, the copy edited by the
    page's sed expression, the compared run; the pasted table is the one it prints, row for row."""
    import shutil

    text = (DOCS / "scoring" / "comparison.md").read_text(encoding="utf-8")
    block = text.split("<!-- output:start -->", 1)[1].split("<!-- output:end -->", 1)[0]
    commands, output = block.split("```text", 1)
    sub = re.search(r"--omfc-submission (examples/\S+)", commands)
    index = re.search(r"--omfc-index (\S+)", commands)
    sed = re.search(r"sed -i 's/(.+?)/(.+?)/' (\S+)", commands)
    gate = re.search(r'--omfc-require "([^"]+)"', commands)
    assert sub and index and sed and gate
    common = ["-p", "no:cacheprovider", "--omfc-index", str(ROOT / index.group(1))]
    common += ["--omfc-reference", "reference/IMDL/OpenMFC20_Image-IMDL-ref.csv"]
    base = pytester.path / "baseline.json"
    assert (
        pytester.runpytest("--omfc-submission", str(ROOT / sub.group(1)), *common, f"--omfc-metrics-json={base}").ret
        == 0
    )
    copy = pytester.path / Path(sub.group(1)).name
    shutil.copytree(ROOT / sub.group(1), copy)
    csv = pytester.path / sed.group(3)
    pattern = sed.group(1).replace("|", r"\|")  # sed's basic regular expression: '|' is a character
    edited = re.sub(pattern, sed.group(2), csv.read_text(encoding="utf-8"), flags=re.M)
    assert edited != csv.read_text(encoding="utf-8")
    csv.write_text(edited, encoding="utf-8")
    res = pytester.runpytest(
        "--omfc-submission", str(copy), *common, "--omfc-score", "detection", "--omfc-baseline", "baseline.json",
        "--omfc-require", gate.group(1),
    )  # fmt: skip
    assert res.ret == 0
    printed = [ln.rstrip() for ln in res.stdout.lines]
    start = printed.index("omfc detection compared with the baseline")
    end = next(i for i in range(start, len(printed)) if printed[i].startswith("omfc: diff = "))
    pasted = [ln.rstrip() for ln in output.strip().strip("`").strip().splitlines()]
    assert printed[start : end + 1] == pasted
