"""DESC — the system description ``<ID>/<ID>.txt`` (docs/rules/desc.md, D-12).

All DESC findings are warnings: the plans require the description's content
(App. A-a) but do not make the validator reject a submission over it, and
MediScore never reads the file.  Every rule needs PKG-03 (the file exists);
the description is read once per process (:func:`description`), never when it
is not a regular file, and at most :data:`MAX_BYTES` (64 KiB): a larger file is
a DESC-01/DESC-02 warning and only its head is checked.  Every pattern runs in
linear time in the text's length (possessive runs of blanks, no lazy scans).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from .. import arrays
from ..editions import Group, Task
from ..findings import Finding, Report, Severity, plural, shorten
from ..models import status as st
from ..models.description import (
    MAX_BYTES,
    OPT_OUT_WORDS,
    SECTIONS_NC17_MFC19,
    SECTIONS_OPENMFC,
    Section,
    SystemDescription,
    read_description,
)
from ..paths import resolve_inside
from ..registry import rule
from ..submission import NotApplicable, Submission

N17, M18, M19, O2X = Group.N17, Group.M18, Group.M19, Group.O2X
_REQ = ("PKG-03",)

#: Status values that mean "not processed" or "opted out" (DESC-03); FailedValidation is the
#: validator's verdict, not the system's choice, so it needs no explanation.
_NOT_PROCESSED = frozenset(
    v.value
    for enum in (
        st.IsOptOut,
        st.ProbeStatus,
        st.VideoProbeStatus,
        st.DonorStatus,
        st.EventProbeStatus,
        st.ProvenanceProbeStatus,
    )
    for v in enum
) - {"Processed", "N", "FailedValidation"}
#: MFC2019 (and MFC2018) pixel and frame opt-outs, which DESC-03 also wants explained.
_PIXEL_COLUMNS = ("ProbeOptOutPixelValue", "DonorOptOutPixelValue", "VideoFrameOptOutSegments")


@dataclass(frozen=True)
class _Text:
    display: str
    text: str | None  # None: not text at all
    problem: str | None  # why it is not UTF-8 text
    size: int = 0  # bytes on disk
    truncated: bool = False  # only the first MAX_BYTES were read


def description(ctx: Submission) -> _Text:
    """The description's head, read once per process for every rule that needs it (DESC-*, CAM-02)."""
    return ctx.memo("desc.text", lambda: _read(ctx))


def _read(ctx: Submission) -> _Text:
    safe, unsafe = resolve_inside(ctx.dir, ctx.description_path.name)
    display = ctx.display(ctx.description_path)
    if safe is None:
        return _Text(display, None, unsafe)
    got = read_description(safe)
    return _Text(display, got.text, got.problem, got.size, got.truncated)


def _size(n: int) -> str:
    return f"{n / 2**20:.1f} MiB" if n >= 2**20 else f"{n / 2**10:.0f} KiB"


def _sections(ctx: Submission) -> tuple[Section, ...]:
    return SECTIONS_OPENMFC if ctx.group is O2X else SECTIONS_NC17_MFC19


def _parsed(ctx: Submission) -> tuple[_Text, SystemDescription]:
    """The description, parsed; NotApplicable when it is not text (DESC-01/02 say so)."""
    desc = description(ctx)
    if desc.text is None:
        rid = "DESC-02" if ctx.group is O2X else "DESC-01"
        raise NotApplicable(f"the system description {desc.display} is not text ({rid} reports it)")
    return desc, SystemDescription.parse(desc.text, _sections(ctx))


def _term(ctx: Submission) -> str:
    return "EXPID" if ctx.group in (N17, M18) else "SubID"


# --------------------------------------------------------------------------- DESC-01 / DESC-02


def _has_sections(ctx: Submission) -> Report:
    """The plan's sections are there, each recognised by its name in a heading (see
    :mod:`pytest_omfc.models.description`); the file must be UTF-8 text, and a description
    over :data:`MAX_BYTES` is reported here too (only its head is read and checked)."""
    desc = description(ctx)
    sections = _sections(ctx)
    found: list[Finding] = []
    if desc.problem:
        found.append(Finding(f"the system description {desc.problem}", file=desc.display))
    if desc.truncated:
        found.append(
            Finding(
                f"the system description should be at most {_size(MAX_BYTES)}, a few pages of text "
                f"(got {_size(desc.size)}); only its first {_size(MAX_BYTES)} were checked",
                file=desc.display,
            )
        )
    if desc.text is None:
        return Report(found, headline=f"the system description {desc.display} is not text")
    if not desc.text.strip():
        found.append(
            Finding(
                f"the description should have the plan's {len(sections)} sections (got an empty file)",
                file=desc.display,
            )
        )
        return Report(found, headline="the system description is empty")
    missing = SystemDescription.parse(desc.text, sections).missing(sections)
    for name in missing:
        found.append(
            Finding(f"the description should have a section {name!r} (got no heading naming it)", file=desc.display)
        )
    if not found:
        return Report()
    if missing:
        head = f"the description lacks {len(missing)} of {len(sections)} sections: {', '.join(missing)}"
    elif desc.problem:
        head = "the system description is not UTF-8 text"
    else:
        head = f"the system description is larger than {_size(MAX_BYTES)} ({_size(desc.size)})"
    return Report(found, headline=head)


rule(
    "DESC-01",
    "The description has the six sections of NC17/MFC19 App. A-a",
    groups={N17, M19},
    severity=Severity.WARNING,
    requires=_REQ,
)(_has_sections)
rule(
    "DESC-02",
    "The OpenMFC description has the five sections of App. A-a (no OptOut section, D-12)",
    groups={O2X},
    tasks={Task.IMG, Task.VID},
    severity=Severity.WARNING,
    requires=_REQ,
)(_has_sections)


# --------------------------------------------------------------------------- DESC-03


def _opted_out(ctx: Submission) -> tuple[np.ndarray, list[str]]:
    """Rows that are opted out or not processed (status, and MFC pixel/frame opt-outs), and why."""
    table = ctx.sysout()
    hit = np.zeros(len(table), dtype=bool)
    reasons: list[str] = []
    columns = [ctx.status_name] + (["DonorStatus"] if ctx.task is Task.SPL and table.has("DonorStatus") else [])
    for col in columns:
        values = ctx.stripped(col)
        mask = arrays.isin(values, _NOT_PROCESSED)
        if mask.any():
            kinds = sorted(set(values[mask].tolist()))
            reasons.append(f"{plural(int(mask.sum()), 'row')} with {col} {' or '.join(kinds)}")
            hit |= mask
    if ctx.group in (M18, M19):
        for col in _PIXEL_COLUMNS:
            if not table.has(col):
                continue
            values = ctx.stripped(col)
            mask = ~arrays.isin(values, ("", "[]"))
            if mask.any():
                reasons.append(f"{plural(int(mask.sum()), 'row')} with {col} set")
                hit |= mask
    return hit, reasons


@rule(
    "DESC-03",
    "The description says how trials (and MFC2019 pixels) were chosen for opt-out or non-processing",
    severity=Severity.WARNING,
    requires=_REQ,
)
def desc_03(ctx: Submission) -> Report:
    """NC17 §2.1.1.2 and A-a §3, MFC19 §2.2 and A-a §3, OMFC §5.3.  Checked only when some row
    is opted out or NonProcessed: the description must mention opting out or non-processing
    ("opt", "opt-out", "non-processed", "not processed"), or give a real OptOut Criteria
    section (not "none").  OpenMFC has no OptOut section, so Section 2 (System Description)
    must say it (D-12).  Section names alone do not count."""
    desc, parsed = _parsed(ctx)
    hit, reasons = _opted_out(ctx)
    if not hit.any():
        return Report()
    if ctx.group is O2X:
        body = parsed.body("System Description")
        scope = (
            "Section 2 (System Description)"
            if body is not None
            else "the description (it has no System Description section)"
        )
        if OPT_OUT_WORDS.search(body if body is not None else parsed.prose()):
            return Report()
        msg = f"{scope} should say how the trials not processed were chosen (D-12)"
    else:
        optout = parsed.body("OptOut Criteria")
        if (optout is not None and not parsed.says_nothing(optout)) or OPT_OUT_WORDS.search(parsed.prose()):
            return Report()
        got = (
            f"an OptOut Criteria section that says {shorten(optout, 30)!r}"
            if optout is not None
            else "no OptOut Criteria section"
        )
        msg = f"the description should say how trials were chosen for opt-out or non-processing (got {got})"
    first = int(hit.nonzero()[0][0])
    table = ctx.sysout()
    f = Finding(
        f"{msg}; the system output has {'; '.join(reasons)}, e.g. line {table.line_of(first)} [{ctx.sys_keys[first]}]",
        file=desc.display,
    )
    n = int(hit.sum())
    verb = "is" if n == 1 else "are"
    return Report(
        [f],
        headline=f"{n} of {len(table)} trials {verb} opted out or not processed, but the description does not say how",
    )


# --------------------------------------------------------------------------- DESC-04


#: What may not touch an ID for it to count as a whole word (DESC-04).
_WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


def _whole_word(text: str, word: str, ignore_case: bool = False) -> str | None:
    """The first occurrence of ``word`` in ``text`` with no ASCII letter, digit, '_' or '-' on either side, as
    written in ``text``; None if there is none.  ``ignore_case`` compares as ``re.IGNORECASE`` does.

    Found with ``str.find``: a pattern compiled per submission ID cost about a millisecond per EXPID of a
    package (the ``re`` module's cache holds 512 patterns).  Text outside ASCII, compared without case, goes
    to ``re`` itself, whose Unicode case folding ``str.lower`` does not reproduce."""
    if ignore_case and not (text.isascii() and word.isascii()):
        m = re.compile(rf"(?<![A-Za-z0-9_-]){re.escape(word)}(?![A-Za-z0-9_-])", re.I).search(text)
        return m.group(0) if m else None
    hay, needle = (text.lower(), word.lower()) if ignore_case else (text, word)
    at = hay.find(needle)
    while at >= 0 and needle:
        end = at + len(needle)
        if (at == 0 or hay[at - 1] not in _WORD_CHARS) and (end == len(hay) or hay[end] not in _WORD_CHARS):
            return text[at:end]
        at = hay.find(needle, at + 1)
    return None


@rule("DESC-04", "The description lists the submission's own ID", severity=Severity.WARNING, requires=_REQ)
def desc_04(ctx: Submission) -> Report:
    """All A-a, Section 1: "List all the submission IDs for which system outputs were
    submitted"; the ID must appear as a whole word, exactly."""
    desc, parsed = _parsed(ctx)
    sid, term = ctx.sub_id, _term(ctx)
    text = desc.text or ""
    if _whole_word(text, sid) is not None:
        return Report()
    other_case = _whole_word(text, sid, ignore_case=True)
    if other_case is not None:
        got = f"it only with a different case, {other_case!r}"
    else:
        listed = parsed.body("Experiment or Submission Identifier(s)")
        first_line = listed.strip().splitlines()[0] if listed and listed.strip() else ""
        got = f"no mention of it; Section 1 lists {shorten(first_line, 50)!r}" if first_line else "no mention of it"
    f = Finding(f"the description should list the {term} {sid} (got {got})", file=desc.display)
    return Report([f], headline=f"the description does not list the {term} {sid}")
