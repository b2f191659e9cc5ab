"""SCORE — ConfidenceScore (docs/rules/score.md, D-03, D-04, D-06).

Scores are read once as float64 (``ctx.scores``, NaN where the text is not a
number) and every check is a vectorised mask over them; messages quote the
submitted text, so ``1e400`` is shown as written, not as ``inf``.
"""

from __future__ import annotations

import numpy as np

from .. import arrays
from ..editions import Group, Task
from ..findings import Finding, Report, Severity, plural
from ..models.status import DETECTION_OPTED_OUT, FAILED_VALIDATION
from ..registry import rule
from ..submission import NotApplicable, Submission

N17, M18, M19, O2X = Group.N17, Group.M18, Group.M19, Group.O2X
IMG, VID, SPL, PF, PG, EV, CAM = Task.IMG, Task.VID, Task.SPL, Task.PF, Task.PG, Task.EV, Task.CAM
SCORE = "ConfidenceScore"
_REQ = ("SCORE-01",)


def _score_text(ctx: Submission) -> np.ndarray:
    """The raw ConfidenceScore text (stripped).

    MFC2019 provenance output has no ConfidenceScore (COL-13, D-06): there the
    rule has nothing to check when the column is absent.
    """
    table = ctx.sysout()
    if ctx.group is M19 and ctx.task in (PF, PG) and not table.has(SCORE):
        raise NotApplicable("ConfidenceScore is optional in MFC2019 provenance output and absent (D-06)")
    return ctx.stripped(SCORE)


def _got(text: str, value: float) -> str:
    """Why a score text is not a finite real, for "(got ...)"."""
    if text == "":
        return "an empty field"
    if np.isnan(value):
        return f"{text!r}, which is not a number" if text.lower() in ("nan", "+nan", "-nan") else repr(text)
    if "inf" in text.lower():
        return f"{text!r}, an infinite value"
    return f"{text!r}, which overflows to infinity"


def _fmt(value: float) -> str:
    return f"{value:g}"


@rule("SCORE-01", "ConfidenceScore is present and a finite real number (D-03, D-06)")
def score_01(ctx: Submission) -> Report:
    """Every edition: a finite real (D-03). MediScore's SSD lets nan and inf through; DSD does not.

    Applies to provenance in every edition too: NC2017 and MFC2018 require the
    column (COL-12); MFC2019 makes it optional but numeric when present (D-06).
    """
    text = _score_text(ctx)
    scores = ctx.scores
    bad = np.flatnonzero(~np.isfinite(scores))
    found = [
        Finding(
            f"ConfidenceScore must be a finite real number (got {_got(text[p], scores[p])})",
            **ctx.loc(int(p), SCORE, text[p]),
            expected="a finite real number",
        )
        for p in bad
    ]
    if not found:
        return Report()
    return Report(found, headline=f"{len(found)} of {len(scores)} scores are not finite real numbers")


@rule(
    "SCORE-02",
    "NC2017: any real score, but scores must rank the trials (not all equal)",
    groups={N17},
    tasks={IMG, VID, SPL},
    severity=Severity.WARNING,
    requires=_REQ,
)
def score_02(ctx: Submission) -> Report:
    """Any real is allowed (NC17 fn 1), but larger must mean more likely manipulated: one constant
    score over all processed (``IsOptOut=N``) trials ranks nothing, so the AUC is meaningless."""
    scores = ctx.scores
    if ctx.has_column("IsOptOut"):
        processed = ctx.column("IsOptOut") == "N"
    else:
        processed = np.ones(len(scores), bool)
    s = scores[processed]
    if s.size < 2 or np.unique(s).size > 1:
        return Report()
    f = Finding(
        f"ConfidenceScore should vary across processed trials, larger meaning more likely manipulated "
        f"(got {_fmt(s[0])} on all {s.size})",
        file=ctx.sysout().display,
        column=SCORE,
    )
    return Report([f], headline=f"all {s.size} processed trials have the same score {_fmt(s[0])}")


@rule(
    "SCORE-03",
    "ConfidenceScore is in [0, 1] (MFC2019, OpenMFC; D-03)",
    groups={M19, O2X},
    tasks={IMG, VID, SPL, EV, CAM},
    requires=_REQ,
)
def score_03(ctx: Submission) -> Report:
    """MFC19 fn 1 and OMFC fn 1: a real in [0, 1]. MediScore never checks it (D-03)."""
    text = _score_text(ctx)
    scores = ctx.scores
    bad = np.flatnonzero((scores < 0) | (scores > 1))
    found = [
        Finding(
            f"ConfidenceScore must be in [0, 1] (got {text[p]})",
            **ctx.loc(int(p), SCORE, text[p]),
            expected="a number in [0, 1]",
        )
        for p in bad
    ]
    if not found:
        return Report()
    return Report(found, headline=f"{len(found)} of {len(scores)} scores are outside [0, 1]")


def _zero_for(ctx: Submission, statuses: frozenset[str], what: str) -> Report:
    """Rows whose status is in ``statuses`` must score exactly 0."""
    text = _score_text(ctx)
    status = ctx.status()
    scores = ctx.scores
    chosen = arrays.isin(status, statuses)
    bad = np.flatnonzero(chosen & (scores != 0))
    col = ctx.status_name
    found = [
        Finding(
            f"ConfidenceScore must be 0 for {col}={status[p]} (got {text[p]})",
            **ctx.loc(int(p), SCORE, text[p]),
            expected="0",
        )
        for p in bad
    ]
    if not found:
        return Report()
    return Report(found, headline=f"{len(found)} of {int(chosen.sum())} {what} trials have a non-zero score")


@rule(
    "SCORE-04",
    "MFC2019: the score is 0 for NonProcessed and detection-opted-out trials (D-04)",
    groups={M19},
    tasks={IMG, VID, SPL, EV, CAM, PF, PG},
    requires=_REQ,
)
def score_04(ctx: Submission) -> Report:
    """MFC19 §2.2: "must be 0" for NonProcessed, OptOutAll, OptOutDetection and OptOut (D-04).
    MediScore does not check it, and its own valid_ev/valid_cam samples break it."""
    return _zero_for(ctx, DETECTION_OPTED_OUT, "non-processed or opted-out")


@rule(
    "SCORE-05", "OpenMFC: the score is 0 for NonProcessed trials (D-04)", groups={O2X}, tasks={IMG, VID}, requires=_REQ
)
def score_05(ctx: Submission) -> Report:
    """OMFC §5.3: "The confidence scores for non-processed trials must be 0." (D-04)."""
    return _zero_for(ctx, frozenset({"NonProcessed"}), "NonProcessed")


@rule(
    "SCORE-06",
    "NC2017: opted-out trials share one constant score below every processed trial's",
    groups={N17},
    tasks={IMG, VID, SPL, PF, PG},
    severity=Severity.ERROR,
    requires=_REQ,
)
def score_06(ctx: Submission) -> Report:
    """NC17 §2.1.1.2: "The confidence score for opted out trials **must** be a constant value less than the
    values of all the processed trials" (D-04), so an error, although NC2017 words most rules as "should"."""
    text = _score_text(ctx)
    status = ctx.status()
    scores = ctx.scores
    out = status == "Y"
    if not out.any():
        return Report()
    opted = scores[out]
    processed = scores[status == "N"]
    display = ctx.sysout().display
    found: list[Finding] = []
    parts: list[str] = []
    distinct = np.unique(opted)
    if distinct.size > 1:
        shown = ", ".join(_fmt(v) for v in distinct[:5]) + (", ..." if distinct.size > 5 else "")
        found.append(
            Finding(
                f"opted-out trials must share one constant score (got {distinct.size} different scores: {shown})",
                file=display,
                column=SCORE,
            )
        )
        parts.append(f"opted-out trials have {distinct.size} different scores")
    if processed.size:
        low = processed.min()
        high = np.flatnonzero(out & (scores >= low))
        found += [
            Finding(
                f"an opted-out trial's score must be lower than every processed trial's "
                f"(got {text[p]}; the lowest processed score is {_fmt(low)})",
                **ctx.loc(int(p), SCORE, text[p]),
            )
            for p in high
        ]
        if high.size:
            parts.append(
                f"{high.size} of {int(out.sum())} opted-out trials score at least the lowest "
                f"processed score {_fmt(low)}"
            )
    if not found:
        return Report()
    return Report(found, headline="; ".join(parts))


@rule(
    "SCORE-07",
    "FailedValidation trials are scored 0 by NIST",
    groups={M19, O2X},
    severity=Severity.WARNING,
    requires=_REQ,
)
def score_07(ctx: Submission) -> Report:
    """MFC19 §5.1.1.3, OMFC §5.3: a probe (or donor) in FailedValidation "will be given a score of 0".
    Scorer-side, so a warning naming the rows whose submitted score NIST replaces."""
    text = _score_text(ctx)
    status = ctx.status()
    failed = status == FAILED_VALIDATION
    if ctx.task is SPL and ctx.has_column("DonorStatus"):
        failed = failed | (ctx.column("DonorStatus") == FAILED_VALIDATION)
    scores = ctx.scores
    bad = np.flatnonzero(failed & (scores != 0))
    found = [
        Finding(
            f"NIST scores a FailedValidation trial as 0, so this score is replaced (got {text[p]})",
            **ctx.loc(int(p), SCORE, text[p]),
        )
        for p in bad
    ]
    if not found:
        return Report()
    return Report(
        found, headline=f"{plural(len(found), 'FailedValidation trial')} with a non-zero score will be scored 0 by NIST"
    )
