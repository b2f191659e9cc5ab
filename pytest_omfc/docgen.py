"""Generate the documentation's reference pages and blocks from the code, so that they cannot drift.

    python -m pytest_omfc.docgen [--check] [DOCS]      # DOCS defaults to ./docs

Whole pages are written for the rule reference: ``rules/<family>.md``, one per rule family (every rule's
editions, tasks, severity, plan sections, the plan's sentence, MediScore's behaviour; from
:data:`pytest_omfc.REGISTRY` and :data:`pytest_omfc.rules.catalog.SOURCES`).  Blocks between HTML comment
markers are rewritten in the hand-written pages (:data:`PAGES`):

* ``options`` (options.md): what is checked and how (:data:`pytest_omfc.options.CHECK_OPTIONS`), ini names;
* ``scoring-options`` (options.md): the scoring set-up and every scorer's options
  (:func:`pytest_omfc.scoring.families.every_option`), with the MediScore option each stands for;
* ``conventions`` (scoring/conventions.md): :func:`pytest_omfc.scoring.convention_table`;
* ``gate-metrics`` (ci.md): each scorer's metric names (``Scorer.metrics``), which ``--omfc-require`` accepts;
* ``rules`` (rules/index.md): every rule in one table, linked to its page, and the rules no check can decide;
* ``choices`` (rules/choices.md): the resolutions (D-xx) where the plans and MediScore disagree;
* ``defects`` (rules/defects.md): the MediScore defects (B-xx) not copied;
* ``columns`` (editions.md): the system-output columns of every edition and task.

``--check`` rewrites nothing and exits 1 when a page or block differs (``tests/test_docs.py`` runs the same
comparison).  The D-xx and B-xx texts are this project's own and live here, with the modules citing them.
"""

from __future__ import annotations

import argparse
import functools
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from . import rules as _rules  # noqa: F401  (fills the registry)
from .editions import Group, Task
from .registry import ALL_GROUPS, ALL_TASKS, REGISTRY, Rule

if TYPE_CHECKING:
    from .options import Option
    from .submission import Checked

__all__ = [
    "BLOCKS",
    "PAGES",
    "CHOICES",
    "DEFECTS",
    "FAMILIES",
    "citations",
    "blocks",
    "pages",
    "update",
    "drift",
    "main",
]

PACKAGE = Path(__file__).resolve().parent
CITE_RE = re.compile(r"\b([DB]-\d\d)\b")

GROUP_NAMES = {
    Group.N17: "NC2017",
    Group.M18: "MFC2018",
    Group.M19: "MFC2019",
    Group.O2X: "OpenMFC",
    Group.FNET: "ForgeryNet",
}
TASK_ORDER = [Task.IMG, Task.VID, Task.SPL, Task.PF, Task.PG, Task.EV, Task.CAM, Task.FIC, Task.FSL, Task.FVC, Task.FTL]

#: Where the plans contradict each other or MediScore, or are ambiguous: the resolution pytest-omfc follows.
CHOICES: dict[str, str] = {
    "D-01": "A SubID grammar per edition: the full NC2017/MFC2018 EXPID (CONDITION, `p-`/`c-` SYS and integer VERSION "
    "included), MFC2019 `<SYS>_<VERSION>_[OPTIONAL]`, OpenMFC a free string; MediScore's `-nc` knows only the NC2017 "
    "EXPID.",
    "D-02": "OpenMFC SubIDs may hold letters, digits, `-` and `_` only (the plan's own example `p-baseline_3_imdl` "
    "uses both).",
    "D-03": "ConfidenceScore must be a finite real in every edition, and in [0, 1] for MFC2019 and OpenMFC (MediScore "
    "checks no range and lets NaN/inf through). A number is written as pandas reads one (MediScore reads the file "
    "with pandas): ASCII digits with an optional sign, point and exponent; `nan`, `1_000` and other digits are not "
    "numbers, and `1e400` is infinite. The rules and the scorers read it with one parser (`arrays.parse_floats`), "
    "correctly rounded.",
    "D-04": "NonProcessed and detection-opted-out trials must score 0 in MFC2019, NonProcessed ones in OpenMFC "
    "(errors); NC2017 opt-outs must share one constant below every processed score (an error: NC17 §2.1.1.2 says "
    '"must").',
    "D-05": "OpenMFC VMD/VGMD accept the plan's 3-column file (MediScore demands the segment columns); segment "
    "columns, if present, are validated.",
    "D-06": "MFC2019 provenance needs no ConfidenceScore (numeric if present); NC2017 needs ConfidenceScore and "
    "IsOptOut.",
    "D-07": "Trial keys must equal the index's keys exactly, each once; missing and duplicated keys are errors "
    "(MediScore misses both).",
    "D-08": "A splice file without its status columns fails (MediScore only prints an ERROR line).",
    "D-09": "OpenMFC statuses are Processed, NonProcessed and FailedValidation only; `OptOut*` values fail.",
    "D-10": "OptOutSpatial means detection and temporal localization done, spatial localization not done.",
    "D-11": 'The separator is `|`; a comma-separated "CSV" fails.',
    "D-12": "OpenMFC descriptions should say in Section 2 (System Description) how non-processed trials were chosen, "
    "as A-a has no OptOut section (a warning).",
    "D-13": "NC2017 archives are named `<TEAM>_<YEAR>_<DATA>_<SUBNUM>.tgz`, not `<EXPID>.tgz` (not checkable: the "
    "plugin sees the unpacked directory).",
    "D-14": "1-, 2-, 4- and 8-bit greyscale masks are accepted (decoders expand them to 0-255); 16-bit masks fail.",
    "D-15": "HDF5 video-mask groups are 0-indexed start frames, `0 <= g < FrameCount`, while segments are 1-based.",
    "D-16": "MFC2019 video mask columns are optional and not evaluated: VMASK findings are warnings, except a "
    "reference that leaves the submission.",
    "D-17": "Audio sample segments are not bounded by the video FrameCount: only `start >= 1`, and `end <=` a sample "
    "count where the index gives one.",
    "D-18": "Intervals of one list must be pairwise disjoint whatever their order (closed intervals; touching "
    "endpoints overlap, as in MediScore, unless `--omfc-allow-touching-segments`).",
    "D-19": "A blank or missing provenance JSON is an error (not a crash) unless the trial is NonProcessed/OptOut "
    "(MFC2019) or IsOptOut=Y (NC2017).",
    "D-20": "Provenance nodes must carry `fileid`, and `file`/`fileid` must be the path and ID the index gives. "
    "MFC2018 has no plan here: its submissions get the content checks of NC2017 and MFC2019 (PROV-06 to PROV-10, "
    "PROV-13 to PROV-15) "
    "as warnings, so a graph those plans reject does not pass MFC2018 silently.",
    "D-21": "NC2017 filtering lists hold 200 nodes (more is an error, fewer a warning), MFC2019 lists at most 500 "
    "(fewer than 300 a warning); the probe must be among them.",
    "D-22": "The camera train/test condition has no field in the SubID or the CSV: it is looked for in the system "
    "description.",
    "D-23": "DonorStatus accepts the four values of the plan's text (FailedValidation included).",
    "D-24": "Mask references must be relative, without `..`, and resolve under `<ID>/mask/` (a warning in NC2017, "
    'which says "should"); a mask, HDF5 or JSON reference leaving the submission is an error and is never opened.',
    "D-25": "A blank OutputProbeMaskFileName is accepted in the 5-column OpenMFC image file (masks are optional).",
    "D-26": "Mask sizes are compared with the index ProbeWidth x ProbeHeight (DonorWidth x DonorHeight for donor "
    "masks).",
    "D-27": 'NC2017 5.1.1.2\'s "index file" holding scores is read as the system output file.',
    "D-28": "One-to-one correspondence uses the composite trial key of IDX-01 (splice, event and camera tasks).",
}

#: MediScore defects, and what pytest-omfc does instead.
DEFECTS: dict[str, str] = {
    "B-01": "SSD's missing-key error never fails the run: here a trial missing from the output fails IDX-04.",
    "B-02": "DSD's duplicate-row check is commented out: here duplicate pairs fail IDX-05.",
    "B-03": "DSD passes files without status columns: here they fail COL-08.",
    "B-04": "A blank line crashes DSD: here it is a CSV-03 warning with its line number.",
    "B-05": "ProvenanceValidator ignores `-t`: here the JSON schema follows the task.",
    "B-06": "ProvenanceValidator checks neither scores, statuses nor the NCID: here they are checked.",
    "B-07": "A reversed interval is reported as unreadable (`.foramt` typo): here VSEG-03 says start > end.",
    "B-08": "Audio segments are bounded by the video FrameCount: here they are not (D-17).",
    "B-09": "The overlap test depends on the order of the intervals: here every pair is compared.",
    "B-10": "`-xF` still checks the row count: no subset-index mode is copied.",
    "B-11": "Camera `-r` queries a column that does not exist and crashes: not copied.",
    "B-12": "System IDs are read as numbers (`0042` becomes `42`): here every field stays a string.",
    "B-13": "MediScore HEAD fails every SSD-family run without `-np`: not copied.",
    "B-14": "MediScore's test harnesses print PASSED whatever happens: every test here asserts outcomes and exit "
    "codes.",
    "B-15": "The FailedValidation warning prints a literal `{}`: here messages name the trial.",
}

START, END = "<!-- {name}:start -->", "<!-- {name}:end -->"
BLOCKS = ("options", "scoring-options", "conventions", "rules", "choices", "defects", "gate-metrics", "columns")


# ------------------------------------------------------------------ citations


def citations(root: Path = PACKAGE) -> dict[str, list[str]]:
    """D-xx/B-xx ID -> the package modules citing it (this module's tables excluded)."""
    out: dict[str, set[str]] = {}
    for path in sorted(root.rglob("*.py")):
        if path.resolve() == Path(__file__).resolve():
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for cid in CITE_RE.findall(text):
            out.setdefault(cid, set()).add(path.relative_to(root).as_posix())
    return {k: sorted(v) for k, v in sorted(out.items())}


# ------------------------------------------------------------------ rendering


def _cell(text: str) -> str:
    """Markdown-safe text: '|' would split a cell, '<ID>' read as an HTML tag, '_' and '*' as emphasis."""
    for char in "\\|<>_*":
        text = text.replace(char, "\\" + char)
    return text.replace("\n", " ")


def _editions(groups: frozenset[Group]) -> str:
    if groups == ALL_GROUPS:
        return "all"
    return ", ".join(GROUP_NAMES[g] for g in Group if g in groups)


def _tasks(tasks: frozenset[Task]) -> str:
    if tasks == ALL_TASKS:
        return "all"
    return ", ".join(t.value for t in TASK_ORDER if t in tasks)


def _severity(r: Rule) -> str:
    text = r.severity.value
    others = sorted({s.value for s in r.severity_by_group.values()} - {text})
    for sev in others:
        names = ", ".join(
            GROUP_NAMES[g] for g in Group if r.severity_by_group.get(g) and r.severity_by_group[g].value == sev
        )
        text += f" ({sev} in {names})"
    return text


def _option_cells(opt: Option) -> tuple[str, str]:
    """The 'Option' and 'ini setting' cells of one option."""
    kw = opt.kwargs
    metavar = kw.get("metavar") or ("{" + ",".join(kw["choices"]) + "}" if "choices" in kw else None)
    shown = f"`{opt.flag} {metavar}`" if metavar else f"`{opt.flag}`"
    return shown, (f"`{opt.ini} = true`" if opt.is_flag else f"`{opt.ini}`")


def options_block() -> str:
    """What is checked and how: :data:`pytest_omfc.options.CHECK_OPTIONS`."""
    from .options import CHECK_OPTIONS

    lines = ["| Option | ini setting | Meaning |", "|---|---|---|"]
    for opt in CHECK_OPTIONS:
        shown, ini_shown = _option_cells(opt)
        lines.append(f"| {shown} | {ini_shown} | {_cell(opt.help)} |")
    return "\n".join(lines)


def scoring_options_block() -> str:
    """The scoring set-up, then every scorer's options, with MediScore's equivalents."""
    from .options import CHECK_OPTIONS
    from .scoring.families import every_option

    checks = {o.ini for o in CHECK_OPTIONS}
    lines = ["| Option | ini setting | MediScore | Meaning |", "|---|---|---|---|"]
    for opt in every_option():
        if opt.ini in checks:
            continue
        shown, ini_shown = _option_cells(opt)
        ms = opt.mediscore
        ms_shown = f"`{ms}`" if ms.startswith("-") and " " not in ms else _cell(ms)
        lines.append(f"| {shown} | {ini_shown} | {ms_shown} | {_cell(opt.help)} |")
    return "\n".join(lines)


def _constant(value: str, _match: re.Match[str]) -> str:
    """A replacement that is ``value`` as it is (``re.sub`` would read backslashes in a string)."""
    return value


def gate_metrics_block() -> str:
    """Each scorer's metric names (``Scorer.metrics``): what ``--omfc-require`` and ``omfc.scores`` accept."""
    from .scoring.registry import SCORERS

    lines = ["| Scorer | Metrics |", "|---|---|"]
    for scorer in SCORERS.values():
        lines.append(f"| `{scorer.name}` | {', '.join(f'`{m}`' for m in scorer.metrics) or '(none declared)'} |")
    return "\n".join(lines)


def columns_block() -> str:
    """The system-output columns of every NIST edition group and task (the COL rules' layouts)."""
    from .models.tabular import LAYOUTS, optional_columns, required_columns

    lines = ["| Edition | Task | Required columns | Optional columns |", "|---|---|---|---|"]
    for (group, task), model in sorted(
        LAYOUTS.items(), key=lambda kv: (list(Group).index(kv[0][0]), TASK_ORDER.index(kv[0][1]))
    ):
        required = ", ".join(f"`{c}`" for c in required_columns(model))
        optional = ", ".join(f"`{c}`" for c in optional_columns(model)) or "none"
        lines.append(f"| {GROUP_NAMES[group]} | {task.value} | {required} | {optional} |")
    return "\n".join(lines)


def conventions_block() -> str:
    from .scoring import convention_table

    return convention_table()


#: Rule family -> the title of its page (the rule IDs' prefix).
FAMILIES: dict[str, str] = {
    "ARC": "The uploaded archive",
    "SUB": "The submission identifier (SubID, EXPID)",
    "PKG": "Directory layout and packaging",
    "DESC": "The system description",
    "CSV": "The file dialect",
    "COL": "Required columns",
    "IDX": "Correspondence with the index",
    "SCORE": "ConfidenceScore",
    "STATUS": "Probe, donor and provenance statuses",
    "MASK": "Image masks",
    "OOPIX": "Opt-out pixel values",
    "VMASK": "MFC2019 video masks (HDF5)",
    "VSEG": "Video frame and audio sample segments",
    "PROV": "Provenance output (JSON)",
    "EV": "Event verification",
    "CAM": "Camera verification",
    "RUN": "The validator run",
    "PROTO": "Protocol rules",
    "FNET": "ForgeryNet-style benchmarks",
}
GENERATED = "<!-- generated by `python -m pytest_omfc.docgen` from the rule registry: do not edit -->"
_CITED_LINK = re.compile(r"\b([DB])-(\d\d)\b")


def _family_page(family: str) -> str:
    return f"{family.lower()}.md"


def _link_citations(text: str) -> str:
    """D-xx and B-xx in ``text`` as links to their entries on the choices and defects pages."""

    def repl(m: re.Match[str]) -> str:
        page = "choices" if m.group(1) == "D" else "defects"
        return f"[{m.group(0)}]({page}.md#{m.group(1).lower()}-{m.group(2)})"

    return _CITED_LINK.sub(repl, text)


def rules_block() -> str:
    checked = [r for r in REGISTRY.values() if r.check is not None]
    skipped = [r for r in REGISTRY.values() if r.check is None]
    lines = [
        f"{len(checked)} rules are checked and {len(skipped)} are listed as not checkable. "
        "Tasks: IMG image manipulation (IMDL, IGMDL, manipulation-image), VID video (VMD, VGMD, "
        "manipulation-video), SPL splice, PF provenance filtering, PG provenance graph building, "
        'EV event verification, CAM camera verification; "all" means every NIST edition and task. ForgeryNet '
        "(FNET rules): image-classification, spatial, video-classification, temporal. A warning never fails the run.",
        "",
        "| ID | Rule | Editions | Tasks | Severity |",
        "|---|---|---|---|---|",
    ]
    for r in checked:
        link = f"[{r.id}]({_family_page(r.family)}#{r.id.lower()})"
        lines.append(f"| {link} | {_cell(r.title)} | {_editions(r.groups)} | {_tasks(r.tasks)} | {_severity(r)} |")
    lines += ["", "Not checked (no check on the submission can decide them):", ""]
    for r in skipped:
        link = f"[{r.id}]({_family_page(r.family)}#{r.id.lower()})"
        lines.append(f"* **{link}** {_cell(r.title)}: {_cell(r.not_checked or '')}")
    return "\n".join(lines)


def _quote(text: str) -> str:
    """The plan's sentence as a Markdown block quote (``<`` and ``*`` kept literal)."""
    for char in "\\<>*_[]":
        text = text.replace(char, "\\" + char)
    return "> " + text


def example_findings(examples: Path) -> dict[str, tuple[str, str]]:
    """Rule ID -> (example, the failure as the run prints it: the summary line and the first finding), for every
    rule a bundled broken example fails (``examples/EXPECTED.json``); empty where the examples are absent.

    The examples are checked in-process, as ``omfc_score`` builds a submission, so these texts are what the
    plugin prints today; ``--check`` reruns them.
    """
    import json

    from .findings import render
    from .registry import Part
    from .submission import Settings, Submission

    listing = examples / "EXPECTED.json"
    if not listing.is_file():
        return {}
    out: dict[str, tuple[str, str]] = {}
    for name, entry in sorted(json.loads(listing.read_text(encoding="utf-8")).items()):
        wanted = [rid for rid in entry.get("fails", {}) if rid not in out and rid in REGISTRY]
        if not wanted:
            continue  # (an NC2017 package's EXPIDs are listed one by one, each with its task's index)
        sub_dir = examples / name
        sub: Checked
        if entry.get("edition") == "ForgeryNet":
            from .editions import parse_task
            from .forgerynet.submission import ForgeryNetSubmission, forgerynet_settings

            ref = examples / entry["reference"]
            given = sub_dir / entry["file"] if "file" in entry else sub_dir  # a prediction file, named itself
            settings = forgerynet_settings(given, ref, parse_task(entry["task"]), entry.get("classes", 2), None)
            sub = ForgeryNetSubmission(settings)
        else:
            from .editions import infer_from_index_name

            index = examples / entry["index"]
            edition, task = infer_from_index_name(index)
            assert edition is not None and task is not None, index
            csv = sub_dir / f"{sub_dir.name}.csv"
            sub = Submission(
                Settings(
                    submission=sub_dir,
                    csv=csv if csv.is_file() else None,
                    index=index,
                    edition=edition,
                    task=task,
                    slices=1,
                    jobs=1,
                )
            )
        for rid in wanted:
            rule = REGISTRY[rid]
            outcome = sub.outcome(rule, Part(0, 1) if rule.sliced else None)
            if outcome.errors:
                out[rid] = (f"examples/{name}", render(rid, outcome.headline, outcome.errors[:1], 1))
    return out


def family_page(family: str, examples: dict[str, tuple[str, str]] | None = None) -> str:
    """The rule reference page of one family: every rule, where it comes from, what MediScore does and, where a
    bundled example breaks it, what the plugin prints."""
    from .rules.catalog import SOURCES

    rules = [r for r in REGISTRY.values() if r.family == family]
    lines = [GENERATED, "", f"# {family}: {FAMILIES[family]}", ""]
    for r in rules:
        src = SOURCES[r.id]
        lines += [f"## {r.id}", "", f"**{_cell(r.title)}**", ""]
        facts = [
            ("Editions", _editions(r.groups)),
            ("Tasks", _tasks(r.tasks)),
            ("Severity", "not checked" if r.check is None else _severity(r)),
            ("Plans", _cell(src.plans)),
        ]
        if r.requires:
            facts.append(
                ("Runs after", ", ".join(f"[{q}]({_family_page(q.split('-')[0])}#{q.lower()})" for q in r.requires))
            )
        lines += ["| | |", "|---|---|"] + [f"| {k} | {v} |" for k, v in facts] + [""]
        if src.quote:
            lines += [_quote(src.quote) + f" ({src.quoted_from})", ""]
        if r.check is None:
            lines += [f"Not checked: {_cell(r.not_checked or '')}.", ""]
        lines += [f"**What MediScore does.** {_link_citations(src.mediscore)}", ""]
        if examples and r.id in examples:
            where, text = examples[r.id]
            lines += [f"**Example.** `{where}` fails it:", "", "```text", text, "```", ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def _cited_block(table: dict[str, str], prefix: str) -> str:
    cited = {k: v for k, v in citations().items() if k.startswith(prefix)}
    lines = []
    for cid, where in cited.items():
        summary = table.get(cid, "(unknown ID: no summary in docgen; fix the citation)")
        lines += [f"## {cid}", "", f"{summary} ({', '.join(f'`{w}`' for w in where)})", ""]
    return "\n".join(lines).rstrip("\n") or "(none cited yet)"


def blocks() -> dict[str, str]:
    """Block name -> generated Markdown."""
    return {
        "options": options_block(),
        "scoring-options": scoring_options_block(),
        "conventions": conventions_block(),
        "rules": rules_block(),
        "choices": _cited_block(CHOICES, "D-"),
        "defects": _cited_block(DEFECTS, "B-"),
        "gate-metrics": gate_metrics_block(),
        "columns": columns_block(),
    }


#: The CI recipes shown whole on the CI page (block name -> file under examples/ci/), so that they cannot drift.
RECIPES = {"recipe-github-actions": "github-actions.yml", "recipe-gitlab-ci": "gitlab-ci.yml"}


#: Hand-written page (relative to docs/) -> the generated blocks it holds.
PAGES: dict[str, tuple[str, ...]] = {
    "options.md": ("options", "scoring-options"),
    "ci.md": ("gate-metrics", *RECIPES),
    "scoring/conventions.md": ("conventions",),
    "rules/index.md": ("rules",),
    "rules/choices.md": ("choices",),
    "rules/defects.md": ("defects",),
    "editions.md": ("columns",),
}


def pages(examples: Path | None = None) -> dict[str, str]:
    """Generated whole page (relative to docs/) -> its Markdown: one per rule family, with the findings of the
    bundled broken examples under ``examples`` (none when it is None)."""
    families = list(dict.fromkeys(r.family for r in REGISTRY.values()))
    found = example_findings(examples) if examples is not None else {}
    return {f"rules/{_family_page(f)}": family_page(f, found) for f in families}


# ------------------------------------------------------------------ the docs tree


def _pattern(name: str) -> re.Pattern[str]:
    start, end = re.escape(START.format(name=name)), re.escape(END.format(name=name))
    return re.compile(f"{start}\n?(.*?)\n?{end}", re.S)


def update(text: str, names: tuple[str, ...] = BLOCKS, generated: dict[str, str] | None = None) -> str:
    """``text`` with the marked blocks ``names`` regenerated; a missing marker pair is an error."""
    made = generated if generated is not None else blocks()
    for name in names:
        pattern = _pattern(name)
        if not pattern.search(text):
            raise ValueError(f"no {START.format(name=name)} ... {END.format(name=name)} block")
        block = f"{START.format(name=name)}\n{made[name]}\n{END.format(name=name)}"
        text = pattern.sub(functools.partial(_constant, block), text, count=1)
    return text


def recipe_blocks(folder: Path) -> dict[str, str]:
    """The CI recipes under ``folder`` (examples/ci/ beside the docs; this checkout's when there is none there)
    as fenced YAML blocks, each under its file name."""
    if not folder.is_dir():
        folder = Path(__file__).resolve().parents[1] / "examples" / "ci"
    out = {}
    for name, file in RECIPES.items():
        text = (folder / file).read_text(encoding="utf-8").rstrip("\n")
        out[name] = f"`examples/ci/{file}`:\n\n```yaml\n{text}\n```"
    return out


def _expected(docs: Path) -> tuple[dict[str, str], dict[str, str]]:
    """The generated blocks and whole pages for ``docs`` (the bundled examples beside it give the findings and
    the CI recipes)."""
    examples = docs.resolve().parent / "examples"
    return {**blocks(), **recipe_blocks(examples / "ci")}, pages(examples)


def _orphans(docs: Path, want: dict[str, str]) -> list[Path]:
    """Generated pages of rule families that no longer exist."""
    return [
        path
        for path in sorted((docs / "rules").glob("*.md"))
        if path.relative_to(docs).as_posix() not in want and path.read_text(encoding="utf-8").startswith(GENERATED)
    ]


def drift(docs: Path, expected: tuple[dict[str, str], dict[str, str]] | None = None) -> list[str]:
    """What differs from the code under ``docs`` (``page`` or ``page: block``); empty when up to date."""
    made, want = expected or _expected(docs)
    out = []
    for page, names in PAGES.items():
        path = docs / page
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
        for name in names:
            m = _pattern(name).search(text)
            if m is None or m.group(1) != made[name]:
                out.append(f"{page}: {name}")
    for page, body in want.items():
        path = docs / page
        if not path.is_file() or path.read_text(encoding="utf-8") != body:
            out.append(page)
    out += [f"{path.relative_to(docs).as_posix()} (no such family)" for path in _orphans(docs, want)]
    return out


def write(docs: Path) -> list[str]:
    """Regenerate every block and page under ``docs``; returns what changed."""
    expected = _expected(docs)
    stale = drift(docs, expected)
    made, want = expected
    for page, names in PAGES.items():
        path = docs / page
        text = path.read_text(encoding="utf-8")
        new = update(text, names, made)
        if new != text:
            path.write_text(new, encoding="utf-8", newline="\n")
    for page, body in want.items():
        path = docs / page
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file() or path.read_text(encoding="utf-8") != body:
            path.write_text(body, encoding="utf-8", newline="\n")
    for path in _orphans(docs, want):
        path.unlink()
    return stale


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pytest_omfc.docgen", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report drift; exit 1 if there is any")
    parser.add_argument("docs", nargs="?", default="docs", type=Path, metavar="DOCS")
    args = parser.parse_args(argv)
    if args.check:
        stale = drift(args.docs)
        if stale:
            print(f"{args.docs}: out of date: {', '.join(stale)}; run: python -m pytest_omfc.docgen {args.docs}")
            return 1
        print(f"{args.docs}: up to date")
        return 0
    try:
        stale = write(args.docs)
    except (OSError, ValueError) as exc:
        print(f"{args.docs}: {exc}")
        return 1
    print(f"{args.docs}: " + (f"updated {', '.join(stale)}" if stale else "up to date"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
