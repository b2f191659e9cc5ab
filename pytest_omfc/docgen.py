"""Generate the README's reference sections from the code, so they cannot drift.

    python -m pytest_omfc.docgen [--check] [README]      # README defaults to ./README.md

Seven blocks of the README are rewritten between HTML comment markers:

* ``options``: what is checked and how (:data:`pytest_omfc.options.CHECK_OPTIONS`) and the ini names;
* ``scoring-options``: the scoring set-up and every scorer's options
  (:func:`pytest_omfc.scoring.families.every_option`), with the MediScore option each stands for;
* ``conventions``: :func:`pytest_omfc.scoring.convention_table` (MediScore or the plans);
* ``gate-metrics``: each scorer's metric names (``Scorer.metrics``), which ``--omfc-require`` accepts;
* ``rules``: the rule table from :data:`pytest_omfc.REGISTRY` (ID, title, editions, tasks,
  severity), then the rules no check can decide, with the reason;
* ``choices``: the RULES.md section 3 resolutions (D-xx) the package cites, one line each;
* ``defects``: the MediScore defects (B-xx) the package cites as not copied.

``--check`` rewrites nothing and exits 1 when a block differs (``tests/test_docs.py``
runs the same comparison).  The one-line summaries of D-xx and B-xx live here
because RULES.md is not shipped with the package; a cited ID without a summary
is reported as unknown.
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

__all__ = ["BLOCKS", "CHOICES", "DEFECTS", "citations", "blocks", "update", "drift", "main"]

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

#: RULES.md section 3: the resolution pytest-omfc follows, one line each.
CHOICES: dict[str, str] = {
    "D-01": "A SubID grammar per edition: the full NC2017/MFC2018 EXPID (CONDITION, `p-`/`c-` SYS and integer VERSION "
    "included), MFC2019 `<SYS>_<VERSION>_[OPTIONAL]`, OpenMFC a free string; MediScore's `-nc` knows only the NC2017 "
    "EXPID.",
    "D-02": "OpenMFC SubIDs may hold letters, digits, `-` and `_` only (the plan's own example `p-baseline_3_imdl` "
    "uses both).",
    "D-03": "ConfidenceScore must be a finite real in every edition, and in [0, 1] for MFC2019 and OpenMFC (MediScore "
    "checks no range and lets NaN/inf through).",
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
    "D-20": "Provenance nodes must carry `fileid`, and `file`/`fileid` must be the path and ID the index gives.",
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

#: RULES.md section 4: the MediScore defect, and what pytest-omfc does instead.
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
BLOCKS = ("options", "scoring-options", "conventions", "rules", "choices", "defects", "gate-metrics")


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


def conventions_block() -> str:
    from .scoring import convention_table

    return convention_table()


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
        lines.append(f"| {r.id} | {_cell(r.title)} | {_editions(r.groups)} | {_tasks(r.tasks)} | {_severity(r)} |")
    lines += ["", "Not checked (no check on the submission can decide them):", ""]
    for r in skipped:
        lines.append(f"* **{r.id}** {_cell(r.title)}: {_cell(r.not_checked or '')}")
    return "\n".join(lines)


def _cited_block(table: dict[str, str], prefix: str) -> str:
    cited = {k: v for k, v in citations().items() if k.startswith(prefix)}
    lines = []
    for cid, where in cited.items():
        summary = table.get(cid, "(unknown ID: not in RULES.md; fix the citation)")
        lines.append(f"* **{cid}** {summary} ({', '.join(f'`{w}`' for w in where)})")
    return "\n".join(lines) or "(none cited yet)"


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
    }


# ------------------------------------------------------------------ README


def _pattern(name: str) -> re.Pattern[str]:
    start, end = re.escape(START.format(name=name)), re.escape(END.format(name=name))
    return re.compile(f"{start}\n?(.*?)\n?{end}", re.S)


def update(text: str) -> str:
    """``text`` with every marked block regenerated; a missing marker pair is an error."""
    for name, body in blocks().items():
        pattern = _pattern(name)
        if not pattern.search(text):
            raise ValueError(f"README has no {START.format(name=name)} ... {END.format(name=name)} block")
        block = f"{START.format(name=name)}\n{body}\n{END.format(name=name)}"
        text = pattern.sub(functools.partial(_constant, block), text, count=1)
    return text


def drift(text: str) -> list[str]:
    """Names of the blocks that differ from the code (empty when up to date)."""
    want = blocks()
    out = []
    for name in BLOCKS:
        m = _pattern(name).search(text)
        if m is None or m.group(1) != want[name]:
            out.append(name)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pytest_omfc.docgen", description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only report drift; exit 1 if there is any")
    parser.add_argument("readme", nargs="?", default="README.md", type=Path, metavar="README")
    args = parser.parse_args(argv)
    text = args.readme.read_text(encoding="utf-8")
    stale = drift(text)
    if args.check:
        if stale:
            print(f"{args.readme}: out of date: {', '.join(stale)}; run: python -m pytest_omfc.docgen {args.readme}")
            return 1
        print(f"{args.readme}: up to date")
        return 0
    try:
        new = update(text)
    except ValueError as exc:
        print(f"{args.readme}: {exc}")
        return 1
    if new != text:
        args.readme.write_text(new, encoding="utf-8", newline="\n")
    print(f"{args.readme}: " + (f"updated {', '.join(stale)}" if stale else "up to date"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
