"""FNET — ForgeryNet-style benchmarks (the ForgeryNet paper and the benchmark's files; this project's own family).

Image and video forgery classification (2-, 3- and n-way), spatial forgery localization and
temporal forgery localization (ActivityNet formats).  The reference lists the IDs (there is no
index).  Severities follow the issue's words: "warning" where it says so (k-way sums, more than
10 segments per video), else error.  One addition where the issue is silent: a reference video
that the temporal results omit is a warning, not an error, because the issue says such videos
"still count" (their ground truth are misses).  Every finding names the file, the line (or the
JSON path, e.g. ``results["vid7"][3].segment``), the ID, the value and what was expected.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from ..editions import Group, Task
from ..findings import Finding, Report, Severity, plural
from ..forgerynet.hints import SAMPLE, near_miss
from ..forgerynet.submission import SUM_TOLERANCE, TOP_PREDICTIONS, ForgeryNetSubmission, json_path, show_json
from ..registry import rule
from ..submission import NotApplicable, Submission

__all__: list[str] = []

FNET = {Group.FNET}
ALL = {Task.FIC, Task.FSL, Task.FVC, Task.FTL}
CSV_TASKS = {Task.FIC, Task.FSL, Task.FVC}
CLASSIFICATION = {Task.FIC, Task.FVC}

#: Reader rules whose findings are warnings (csvio: CSV-04 quoting); the others are errors here.
_WARNING_READER_RULES = {"CSV-04"}


def _ctx(ctx: Submission) -> ForgeryNetSubmission:
    assert isinstance(ctx, ForgeryNetSubmission)
    return ctx


# ------------------------------------------------------------------ files


@rule(
    "FNET-01",
    "The system output exists and parses ('|'-separated CSV, or ActivityNet result JSON)",
    groups=FNET,
    tasks=ALL,
)
def fnet_01(sub: Submission) -> Report:
    """Classification and spatial: ``<SubID>/<SubID>.csv`` read by the NIST reader (bounded by the
    reference); temporal: ``<SubID>/<SubID>.json``, an object whose ``results`` maps video IDs to lists
    of prediction objects (size bounded, duplicate keys refused)."""
    ctx = _ctx(sub)
    if ctx.is_temporal:
        preds = ctx.predictions
        if preds.fatal is not None:
            return Report(
                [Finding(preds.fatal.removeprefix(ctx.json_display + " "), file=ctx.json_display)], headline=preds.fatal
            )
        n = len(preds.structure)
        return Report(
            preds.structure,
            headline=f"{plural(n, 'entry', 'entries')} of the results are not prediction lists/objects" if n else None,
        )
    res = ctx.sysout_parse
    found: list[Finding] = []
    dropped: dict[Severity | None, int] = {}
    for rule_id, issues in res.issues.items():
        sev = Severity.WARNING if rule_id in _WARNING_READER_RULES else Severity.ERROR
        found += [f if f.severity else _sev(f, sev) for f in issues]
        for s, n in res.dropped.get(rule_id, {}).items():
            dropped[s or sev] = dropped.get(s or sev, 0) + n
    if res.fatal is not None:
        if not found:
            found = [Finding(f"the system output {res.fatal[1].removeprefix(res.display + ' ')}", file=res.display)]
        return Report(found, headline=res.fatal[1], dropped=dropped)
    errors = sum(1 for f in found if f.severity is Severity.ERROR) + dropped.get(Severity.ERROR, 0)
    warnings = sum(1 for f in found if f.severity is Severity.WARNING) + dropped.get(Severity.WARNING, 0)
    return Report(
        found,
        headline=f"{plural(errors, 'problem')} reading {res.display}" if errors else None,
        warning_headline=f"{plural(warnings, 'warning')} reading {res.display}" if warnings else None,
        dropped=dropped,
    )


def _sev(f: Finding, sev: Severity) -> Finding:
    from dataclasses import replace

    return replace(f, severity=sev)


@rule(
    "FNET-02",
    "The reference parses: each ID once, labels 0..k-1, readable maps or ActivityNet ground truth",
    groups=FNET,
    tasks=ALL,
)
def fnet_02(sub: Submission) -> Report:
    """The reference is the dataset's, but a wrong ``--omfc-reference`` or ``--omfc-classes`` must fail
    loudly (every other FNET rule needs it and is skipped naming this one)."""
    ctx = _ctx(sub)
    ref = ctx.reference
    if ref.fatal is not None:
        found = ref.problems or [
            Finding(f"the reference {ref.fatal.removeprefix(ref.display + ' ')}", file=ref.display)
        ]
        return Report(found, headline=f"the reference {ref.fatal}")
    n = len(ref.problems)
    return Report(ref.problems, headline=f"{plural(n, 'problem')} in the reference {ref.display}" if n else None)


@rule(
    "FNET-03",
    "The columns are ID|Score (2-way), ID|P0|...|P<k-1> (k = --omfc-classes) or ID|Score|MaskFileName (spatial)",
    groups=FNET,
    tasks=CSV_TASKS,
    requires=("FNET-01",),
)
def fnet_03(sub: Submission) -> Report:
    """The number of probability columns must match ``--omfc-classes`` (2: one ``Score`` column)."""
    ctx = _ctx(sub)
    table = ctx.sysout()
    want = ctx.expected_columns
    got = list(table.header)
    if sorted(got) == sorted(want):
        return Report()
    probs = [c for c in got if c == "Score" or (c.startswith("P") and c[1:].isdigit())]
    what = f"--omfc-classes {ctx.classes}" if ctx.task in CLASSIFICATION else "spatial localization"
    detail = ""
    if ctx.task in CLASSIFICATION and probs and len(probs) != len(ctx.prob_columns):
        detail = f"; {plural(len(probs), 'probability column')} found, {len(ctx.prob_columns)} expected"
    f = Finding(
        f"the header must be {'|'.join(want)} for {what} (got {'|'.join(got)}){detail}",
        file=table.display,
        line=table.header_line,
        column="header",
        value="|".join(got),
    )
    return Report([f], headline=f"the header must be {'|'.join(want)} (got {'|'.join(got)})")


# ------------------------------------------------------------------ IDs


@rule(
    "FNET-04",
    "Every reference ID appears exactly once and no unknown ID appears",
    groups=FNET,
    tasks=ALL,
    requires=("FNET-01", "FNET-02", "FNET-03"),
)
def fnet_04(sub: Submission) -> Report:
    """Classification and spatial: one row per reference ID.  Temporal: a video of the reference that
    the results omit is a warning (such videos "still count", their segments as misses: ActivityNet's AP);
    an unknown video is an error (duplicate keys already fail FNET-01).  When every unknown ID is a reference
    ID with a fixed prefix cut or added, without its leading zeros, or cut to its file name, the headline says
    so (:mod:`.hints`)."""
    ctx = _ctx(sub)
    ref = ctx.reference_or_skip()
    if ctx.is_temporal:
        return _temporal_ids(ctx)
    table = ctx.sysout()
    ids = ctx.sys_ids
    position = ctx.ref_position
    is_known = position >= 0
    again = ctx.repeats[0]
    repeated = again & is_known
    first = ~again & is_known
    # the first line of each repeated ID only (a million good rows build nothing)
    repeated_ids = set(ids[repeated].tolist())
    firsts = np.flatnonzero(first & ids.isin(repeated_ids).to_numpy()) if repeated_ids else np.empty(0, np.int64)
    first_line = dict(zip(ids.iloc[firsts].tolist(), table.lines[firsts].tolist(), strict=False))
    found: list[Finding] = []
    for pos in np.flatnonzero(~is_known | repeated).tolist():  # findings for the bad rows only
        rid, line = ids.iat[pos], table.line_of(pos)
        if not is_known[pos]:
            found.append(
                Finding(
                    f"ID must be one of the {len(ref.ids)} reference IDs of {ref.display} (got an unknown ID)",
                    file=table.display,
                    line=line,
                    key=rid,
                    column="ID",
                    value=rid,
                )
            )
        else:
            found.append(
                Finding(
                    f"ID must appear once (got it again; first on line {first_line[rid]})",
                    file=table.display,
                    line=line,
                    key=rid,
                    column="ID",
                    value=rid,
                )
            )
    unknown, repeated_n = int(np.count_nonzero(~is_known)), int(np.count_nonzero(repeated))
    hit = np.zeros(len(ref.ids), dtype=bool)
    hit[position[first]] = True
    missing = [ref.ids[i] for i in np.flatnonzero(~hit).tolist()]
    for rid in missing:
        found.append(
            Finding(
                f"the reference ID must have a row in {table.display} (got none)",
                file=ref.display,
                line=ref.lines.get(rid),
                key=rid,
                column="ID",
                value=rid,
            )
        )
    parts = [f"{len(missing)} of {len(ref.ids)} reference IDs are missing"] if missing else []
    if unknown:
        hint = near_miss(ids[~is_known].head(SAMPLE).tolist(), ref.ids)
        parts += [plural(unknown, "unknown ID") + (f": {hint}" if hint else "")]
    parts += [f"{plural(repeated_n, 'ID')} repeated"] if repeated_n else []
    return Report(found, headline="; ".join(parts) if parts else None)


def _temporal_ids(ctx: ForgeryNetSubmission) -> Report:
    ref = ctx.reference
    preds = ctx.predictions_or_skip()
    known = set(ref.ids)
    listed = set(preds.videos)
    display = ctx.json_display
    found = [
        Finding(
            f"the video must be one of the {len(known)} reference videos of {ref.display} (got an unknown video)",
            file=display,
            key=vid,
            column=json_path(vid),
            value=vid,
        )
        for vid in preds.videos
        if vid not in known
    ]
    unknown = len(found)
    missing = [vid for vid in ref.ids if vid not in listed]
    found += [
        Finding(
            "the reference video should be listed in the results (got none; it still counts: its segments are misses)",
            file=ref.display,
            key=vid,
            column=json_path(vid, root="database"),
            value=vid,
            severity=Severity.WARNING,
        )
        for vid in missing
    ]
    hint = near_miss([f.key for f in found[: min(unknown, SAMPLE)] if f.key], ref.ids) if unknown else None
    head = f"{plural(unknown, 'unknown video')} in the results" + (f": {hint}" if hint else "") if unknown else None
    warn = (
        f"{len(missing)} of {len(ref.ids)} reference videos are not in the results (they count as misses)"
        if missing
        else None
    )
    return Report(found, headline=head or warn, warning_headline=warn if head else None)


# ------------------------------------------------------------------ probabilities


@rule(
    "FNET-05",
    "Probabilities are finite numbers in [0, 1]",
    groups=FNET,
    tasks=CSV_TASKS,
    requires=("FNET-01", "FNET-03"),
)
def fnet_05(sub: Submission) -> Report:
    """``Score`` (2-way, spatial) and every ``P<i>`` (k-way); such rows are left out of scoring."""
    ctx = _ctx(sub)
    table = ctx.sysout()
    p = ctx.probs
    with np.errstate(invalid="ignore"):
        bad = ~(np.isfinite(p) & (p >= 0) & (p <= 1))
    rows, cols = np.nonzero(bad)
    names = ctx.prob_columns
    found = []
    for pos, c in zip(rows.tolist(), cols.tolist(), strict=False):
        raw = str(table.df[names[c]].iat[pos])
        found.append(
            Finding(
                f"{names[c]} must be a probability, a finite number in [0, 1] (got {raw.strip()!r})",
                **ctx.loc(pos, names[c], raw),
            )
        )
    nrows = len(set(rows.tolist()))
    return Report(
        found,
        headline=f"{nrows} of {plural(len(table), 'row')} have a probability that is not a finite number in [0, 1]"
        if found
        else None,
    )


@rule(
    "FNET-06",
    "k-way probabilities sum to 1 within 1e-6",
    groups=FNET,
    tasks=CLASSIFICATION,
    severity=Severity.WARNING,
    requires=("FNET-01", "FNET-03"),
)
def fnet_06(sub: Submission) -> Report:
    """A warning: scoring uses the probabilities as given (argmax, and P1+...+P<k-1> as the
    fake score).  Rows failing FNET-05 are not judged again here."""
    ctx = _ctx(sub)
    if len(ctx.prob_columns) < 2:
        raise NotApplicable("2-way classification has one Score column: there is no sum to check")
    table = ctx.sysout()
    ok = ctx.prob_ok
    sums = ctx.probs.sum(axis=1)
    # + 1e-12: a sum that is 1 +- 1e-6 in decimal (e.g. '0.500001|0.5') must not fail on float64 rounding
    bad = np.nonzero(ok & (np.abs(sums - 1.0) > SUM_TOLERANCE + 1e-12))[0]
    cols = f"P0+...+P{len(ctx.prob_columns) - 1}"
    found = [
        Finding(
            f"{cols} should be 1 within {SUM_TOLERANCE:g} (got {sums[pos]:.9g})",
            **ctx.loc(int(pos), cols, f"{sums[pos]:.9g}"),
        )
        for pos in bad.tolist()
    ]
    return Report(
        found,
        headline=f"{len(bad)} of {plural(len(table), 'row')} have probabilities that do not sum to 1"
        if found
        else None,
    )


# ------------------------------------------------------------------ masks


@rule(
    "FNET-07",
    "Masks exist inside the submission and are grey (mode L) or 1-bit PNGs",
    groups=FNET,
    tasks={Task.FSL},
    requires=("FNET-01", "FNET-03"),
)
def fnet_07(sub: Submission) -> Report:
    """``MaskFileName`` is relative to the CSV's folder and must stay inside the submission; only the
    PNG header is read (signature, IHDR, chunk CRCs), as for the NIST masks."""
    ctx = _ctx(sub)
    found = [
        Finding(f"MaskFileName {m.problem}", **ctx.loc(pos, "MaskFileName", m.name))
        for pos, m in enumerate(ctx.masks)
        if m.problem
    ]
    return Report(found, headline=f"{len(found)} of {plural(len(ctx.masks), 'mask')} cannot be used" if found else None)


@rule(
    "FNET-08",
    "Masks have the size of the reference map",
    groups=FNET,
    tasks={Task.FSL},
    requires=("FNET-01", "FNET-02", "FNET-03"),
)
def fnet_08(sub: Submission) -> Report:
    """Compared from the PNG headers; rows with an unusable mask (FNET-07) or an unknown ID (FNET-04)
    are not judged here, and a real image without a reference map has no size to match."""
    ctx = _ctx(sub)
    ctx.reference_or_skip()
    found = []
    for pos in range(len(ctx.masks)):
        why = ctx.size_problem(pos)
        if why:
            found.append(Finding(f"MaskFileName {why}", **ctx.loc(pos, "MaskFileName", ctx.masks[pos].name)))
    return Report(
        found, headline=f"{len(found)} of {plural(len(ctx.masks), 'mask')} have the wrong size" if found else None
    )


# ------------------------------------------------------------------ segments


@rule(
    "FNET-09",
    "Segments are [start, end]: two finite numbers with start < end",
    groups=FNET,
    tasks={Task.FTL},
    requires=("FNET-01",),
)
def fnet_09(sub: Submission) -> Report:
    """ActivityNet's ``segment_iou`` needs ``start < end`` (a zero or negative length has no tIoU); such
    predictions are left out of scoring."""
    ctx = _ctx(sub)
    p = ctx.predictions_or_skip()
    found = [
        Finding(
            f"segment {why}",
            file=ctx.json_display,
            key=p.video[k],
            column=json_path(p.video[k], p.index[k], "segment"),
            value=show_json(p.segment_value[k]),
        )
        for k, why in enumerate(p.segment_problem)
        if why
    ]
    return Report(
        found, headline=f"{len(found)} of {plural(len(p.video), 'prediction')} have a bad segment" if found else None
    )


@rule(
    "FNET-10",
    "Segments lie inside [0, duration] when the reference gives the video's duration",
    groups=FNET,
    tasks={Task.FTL},
    requires=("FNET-01", "FNET-02"),
)
def fnet_10(sub: Submission) -> Report:
    """Seconds outside the video cannot be forged; a reference without ``duration`` bounds nothing."""
    ctx = _ctx(sub)
    ctx.reference_or_skip()
    p = ctx.predictions_or_skip()
    found = []
    for k in range(len(p.video)):
        why = ctx.duration_problem(k)
        if why:
            found.append(
                Finding(
                    f"segment {why}",
                    file=ctx.json_display,
                    key=p.video[k],
                    column=json_path(p.video[k], p.index[k], "segment"),
                    value=show_json(p.segment_value[k]),
                )
            )
    head = f"{len(found)} of {plural(len(p.video), 'prediction')} leave the video's duration" if found else None
    durations = ctx.reference.durations
    bounded = sum(1 for k, v in enumerate(p.video) if p.segment_problem[k] is None and durations.get(v) is not None)
    if head and bounded >= 3 and len(found) == bounded:
        head += (
            ": every prediction leaves its video, so the results and the reference's durations are in different "
            "units (frames against seconds?)"
        )
    scale = _scale_warning(ctx)
    warn = None
    if scale is not None:
        found.append(scale)
        warn = "the predicted segments are far shorter than the reference's fake segments: a unit mismatch?"
    return Report(found, headline=head or warn, warning_headline=warn if head else None)


#: How many times shorter than the reference's fake segments the predicted ones must be (medians) for FNET-10 to
#: warn of a unit mismatch: seconds read as frames are some 25 times shorter; honest predictions are not 10.
SCALE_FACTOR = 10.0


def _scale_warning(ctx: ForgeryNetSubmission) -> Finding | None:
    """A warning when the valid predicted segments are, by their median length, :data:`SCALE_FACTOR` times or more
    shorter than the reference's fake segments: scored so, every tIoU is tiny and AP is 0 with no other sign."""
    p = ctx.predictions
    lengths = [p.end[k] - p.start[k] for k in range(len(p.video)) if p.segment_problem[k] is None]
    truth = [e - s for segs in ctx.reference.segments.values() for s, e in segs]
    if len(lengths) < 3 or not truth:
        return None
    mine, theirs = float(np.median(lengths)), float(np.median(truth))
    if mine <= 0 or theirs / mine < SCALE_FACTOR:
        return None
    if ctx.reference_kind == "video-list" and ctx.settings.time_unit == "frames":
        advice = "predictions written in seconds? give --omfc-time-unit seconds and --omfc-fps FPS"
    else:
        advice = "are the results and the reference in the same unit?"
    return Finding(
        f"the predicted segments should be in the reference's unit (got a median length of {mine:g} against "
        f"{theirs:g} for the reference's fake segments, {theirs / mine:.0f} times shorter: every tIoU would be "
        f"tiny and AP near 0); {advice}",
        file=ctx.json_display,
        severity=Severity.WARNING,
    )


@rule("FNET-11", "Segment scores are finite numbers", groups=FNET, tasks={Task.FTL}, requires=("FNET-01",))
def fnet_11(sub: Submission) -> Report:
    """Any finite number ranks (ActivityNet sorts by score); NaN or an infinity cannot be ranked."""
    ctx = _ctx(sub)
    p = ctx.predictions_or_skip()
    found = [
        Finding(
            f"score {why}",
            file=ctx.json_display,
            key=p.video[k],
            column=json_path(p.video[k], p.index[k], "score"),
            value=show_json(p.score_value[k]),
        )
        for k, why in enumerate(p.score_problem)
        if why
    ]
    return Report(
        found,
        headline=f"{len(found)} of {plural(len(p.video), 'prediction')} have a score that is not a finite number"
        if found
        else None,
    )


@rule(
    "FNET-12",
    f"At most {TOP_PREDICTIONS} predictions per video (only the top {TOP_PREDICTIONS} are scored)",
    groups=FNET,
    tasks={Task.FTL},
    severity=Severity.WARNING,
    requires=("FNET-01",),
)
def fnet_12(sub: Submission) -> Report:
    """A warning: the scorer keeps the 10 highest-scored predictions of each video."""
    ctx = _ctx(sub)
    p = ctx.predictions_or_skip()
    counts = Counter(p.video)
    found = [
        Finding(
            f"should have at most {TOP_PREDICTIONS} predictions (got {n}): only the {TOP_PREDICTIONS} "
            "highest-scored are scored",
            file=ctx.json_display,
            key=vid,
            column=json_path(vid),
            value=str(n),
        )
        for vid, n in counts.items()
        if n > TOP_PREDICTIONS
    ]
    return Report(
        found,
        headline=f"{plural(len(found), 'video')} have more than {TOP_PREDICTIONS} predictions; "
        f"only the top {TOP_PREDICTIONS} of each are scored"
        if found
        else None,
    )
