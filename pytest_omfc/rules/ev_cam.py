"""EV / CAM — event and camera verification rules (docs/rules/ev.md, D-22).

EV-01 and CAM-01 restate the index correspondence per probe, so that a
participant sees "this probe lacks Hurricane_Sandy" or "the index's camera
is X" rather than only the composite keys of IDX-03/IDX-04.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np

from ..editions import Group, Task
from ..findings import Finding, Report, Severity
from ..registry import rule
from ..submission import NotApplicable, Submission
from .desc import description

M18, M19 = Group.M18, Group.M19
PROBE, EVENT, CAMERA = "ProbeFileID", "EventName", "TrainCamID"


def _names(items: list[str], limit: int = 5) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def _pairs(ctx: Submission, second: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(probe, second) of each row of the system output, and of each row of the index."""
    index = ctx.index()
    return (
        list(zip(ctx.column(PROBE).tolist(), ctx.column(second).tolist(), strict=True)),
        list(zip(index.column(PROBE).tolist(), index.column(second).tolist(), strict=True)),
    )


def _first(pairs: list[tuple[str, str]]) -> dict[str, int]:
    """Each probe's first row."""
    first: dict[str, int] = {}
    for pos, (p, _) in enumerate(pairs):
        first.setdefault(p, pos)
    return first


@rule("EV-01", "One row per (ProbeFileID, EventName) pair of the index", groups={M18, M19}, tasks={Task.EV})
def ev_01(ctx: Submission) -> Report:
    """MFC19 §4.1.5, §5.3: every probe appears once per candidate event. MediScore only warns
    about a missing pair (B-01); here a probe whose rows differ from its index events is an error."""
    sys, idx = _pairs(ctx, EVENT)
    sys_counts = Counter(sys)
    idx_pairs = dict.fromkeys(idx)  # each pair once, in index order
    odd = sorted(
        {pair for pair, n in sys_counts.items() if n > 1 or pair not in idx_pairs}
        | {pair for pair in idx_pairs if pair not in sys_counts}
    )  # by probe, then event
    if not odd:
        return Report()
    missing: dict[str, list[str]] = {}
    extra: dict[str, list[str]] = {}
    repeated: dict[str, list[str]] = {}
    for p, x in odd:
        n = sys_counts.get((p, x), 0)
        if n == 0:
            missing.setdefault(p, []).append(x)
        elif (p, x) not in idx_pairs:
            extra.setdefault(p, []).append(x)
        else:
            repeated.setdefault(p, []).append(f"{x} ({n} times)")
    expected = Counter(p for p, _ in idx_pairs)
    got = Counter(p for p, _ in sys)
    first_sys, first_idx = _first(sys), _first(idx)
    bad = {p for p, _ in odd}
    order = list(dict.fromkeys([p for p, _ in sys if p in bad] + [p for p, _ in idx if p in bad]))
    sys_table, idx_table = ctx.sysout(), ctx.index()
    found = []
    for p in order:
        n_exp, n_got = expected.get(p, 0), got.get(p, 0)
        if n_exp == 0:
            msg = f"probe {p} must have no rows: it is not in the index (got {n_got})"
        else:
            parts = [f"got {n_got}"]
            if p in missing:
                parts.append(f"missing {_names(missing[p])}")
            if p in extra:
                parts.append(f"not in the index: {_names(extra[p])}")
            if p in repeated:
                parts.append(f"repeated: {_names(repeated[p])}")
            msg = f"probe {p} must have {n_exp} rows, one per event of the index ({'; '.join(parts)})"
        table, pos = (sys_table, first_sys[p]) if p in first_sys else (idx_table, first_idx[p])
        found.append(Finding(msg, file=table.display, line=table.line_of(pos), key=p, column=EVENT))
    n_probes = len({p for p, _ in sys} | {p for p, _ in idx})
    return Report(found, headline=f"{len(found)} of {n_probes} probes do not have one row per event of the index")


@rule("EV-02", "No masks for event verification", groups={M18, M19}, tasks={Task.EV}, severity=Severity.WARNING)
def ev_02(ctx: Submission) -> Report:
    """MFC19 §5.3 has no mask column; MediScore forces ``neglectMask`` for SSD-event. A mask given
    anyway is ignored, which the participant should know."""
    table = ctx.sysout()
    found = []
    for col in (c for c in table.columns if "mask" in c.lower()):
        series = table.column(col)
        for p in np.flatnonzero(ctx.stripped(col) != ""):
            found.append(
                Finding(
                    f"event verification takes no masks, so this value is ignored (got {series[p]!r})",
                    **ctx.loc(int(p), col, series[p]),
                )
            )
    if not found:
        return Report()
    found.sort(key=lambda f: f.line or 0)
    return Report(found, headline=f"{len(found)} mask values are given, which event verification ignores")


@rule("CAM-01", "TrainCamID equals the index's value for the probe", groups={M18, M19}, tasks={Task.CAM})
def cam_01(ctx: Submission) -> Report:
    """MFC19 §4.1.6, §5.4: the trial is the (probe, camera) pair given by the index; MediScore only
    reports the composite key as absent from the index (C0)."""
    sys, idx = _pairs(ctx, CAMERA)
    idx_pairs = dict.fromkeys(idx)  # each pair once, in index order
    bad = [pos for pos, pair in enumerate(sys) if pair not in idx_pairs]
    if not bad:
        return Report()
    wanted = {sys[pos][0] for pos in bad}
    cams: dict[str, list[str]] = {}
    for p, x in idx_pairs:
        if p in wanted:
            cams.setdefault(p, []).append(x)
    found = []
    for pos in bad:
        p, cam = sys[pos]
        allowed = cams.get(p, [])
        expected = None
        if not allowed:
            msg = f"TrainCamID must match the index, which has no row for probe {p} (got {cam!r})"
        elif len(allowed) == 1:
            msg = f"TrainCamID must be {allowed[0]}, the index's value for this probe (got {cam!r})"
            expected = str(allowed[0])
        else:
            msg = f"TrainCamID must be one of {_names(allowed)}, the index's values for this probe (got {cam!r})"
            expected = f"one of {_names(allowed)}"
        found.append(Finding(msg, **ctx.loc(int(pos), CAMERA, cam), expected=expected))
    return Report(
        found, headline=f"{len(found)} of {len(sys)} rows have a TrainCamID the index does not give for their probe"
    )


_TRAIN = re.compile(r"train", re.I)
_TEST = re.compile(r"test", re.I)
_TRAIN_SET = re.compile(r"\b(image|video|multimedia|mixed)s?\b", re.I)
_TEST_SET = re.compile(r"\b(image|video)s?\b", re.I)
_CONDITION = re.compile(r"condition", re.I)
_SENTENCE_END = re.compile(r"[.\n]")
#: "<training set> <1-5 non-word characters> <testing set>", e.g. "Multimedia -> Image", after "condition".
_PAIR = re.compile(r"\b(?:image|video|multimedia)s?\b\W{1,5}(?:image|video)s?\b", re.I)


def _states_condition(text: str) -> bool:
    """Does a sentence say "condition ... <set> -> <set>"?  Linear in ``len(text)``.

    Same verdict as ``condition[^.\\n]*?<pair>``, which rescanned the rest of the sentence
    from every "condition" (quadratic: 47 s for a 160 KB line).  Here the next pair and the
    next sentence end after each "condition" are found by searches that only move forward.
    """
    pair: re.Match[str] | None = None
    stop = -1  # the first '.' or newline at or after the current "condition" (len(text) if none)
    for m in _CONDITION.finditer(text):
        if pair is None or pair.start() < m.end():
            pair = _PAIR.search(text, m.end())
            if pair is None:
                return False
        if stop < m.end():
            end = _SENTENCE_END.search(text, m.end())
            stop = end.start() if end else len(text)
        if pair.start() < stop:
            return True
    return False


@rule(
    "CAM-02",
    "The camera train-test condition is indicated (D-22)",
    groups={M19},
    tasks={Task.CAM},
    severity=Severity.WARNING,
    requires=("PKG-03",),
)
def cam_02(ctx: Submission) -> Report:
    """MFC19 §2.1.6: "when results are submitted, the training-testing condition must be
    indicated". The SubID has no field for it (D-22), so we look for it in the system description:
    a training set (Image, Video, Multimedia) and a testing set (Image, Video). A heuristic, hence a
    warning.  The description is the DESC rules' (read once, at most 64 KiB, never a FIFO)."""
    desc = description(ctx)
    if desc.text is None:
        raise NotApplicable(f"the system description {desc.display} is not text (DESC-01 reports it)")
    text = desc.text
    sentences = re.split(r"[\n.;]", text)
    both = _states_condition(text)
    has_train = both or any(_TRAIN.search(s) and _TRAIN_SET.search(s) for s in sentences)
    has_test = both or any(_TEST.search(s) and _TEST_SET.search(s) for s in sentences)
    if has_train and has_test:
        return Report()
    lacking = [
        what
        for what, ok in (
            ("the training set (Image, Video or Multimedia)", has_train),
            ("the testing set (Image or Video)", has_test),
        )
        if not ok
    ]
    f = Finding(
        f"the camera train-test condition must be indicated, e.g. 'Train-test condition: training Image, "
        f"testing Video' (got no mention of {' nor '.join(lacking)})",
        file=desc.display,
    )
    return Report([f], headline="the system description does not state the camera train-test condition")
