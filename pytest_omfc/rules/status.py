"""STATUS — IsOptOut / ProbeStatus / DonorStatus / ProvenanceProbeStatus (docs/rules/status.md).

The allowed values come from the enums of :mod:`pytest_omfc.models.status`
(the single source, also used by the output models).  Enumerations are
closed lists, hence errors; the consistency rules (STATUS-08...10) describe
what NIST will do with a row and are warnings.  When a file carries another
status column than its layout's (IsOptOut in an MFC file, say), the column
lookup raises ``Unavailable`` and the rule is skipped naming the layout's COL
rule.
"""

from __future__ import annotations

import enum
from collections.abc import Callable

import numpy as np

from .. import arrays
from ..editions import Group, Task
from ..findings import Finding, Report, Severity, plural
from ..models.status import (
    FAILED_VALIDATION,
    LOCALIZATION_ONLY,
    MEDISCORE_ISOPTOUT_EXTRA,
    NO_MASK_M19,
    NO_SEGMENTS_M19,
    NO_VIDEO_MASK_M19,
    DonorStatus,
    EventProbeStatus,
    IsOptOut,
    OpenMFCProbeStatus,
    ProbeStatus,
    ProvenanceProbeStatus,
    VideoProbeStatus,
    values,
)
from ..registry import ALL_GROUPS, rule
from ..submission import NotApplicable, Submission

N17, M18, M19, O2X = Group.N17, Group.M18, Group.M19, Group.O2X
IMG, VID, SPL, PF, PG, EV, CAM = Task.IMG, Task.VID, Task.SPL, Task.PF, Task.PG, Task.EV, Task.CAM

PROBE_MASK, DONOR_MASK = "OutputProbeMaskFileName", "OutputDonorMaskFileName"
SEGMENT_COLUMNS = ("VideoFrameSegments", "AudioSampleSegments")

Note = Callable[[str], "str | None"]


# --------------------------------------------------------------------------- enumerations


def _got(raw: str, allowed: tuple[str, ...], note: Note | None) -> str:
    """The "(got ...)" part: the value, plus why it is near a valid one."""
    if raw == "":
        return "an empty field"
    if raw.strip() in allowed:
        return f"{raw!r} with surrounding white space"
    folded = {a.lower(): a for a in allowed}
    if raw.strip().lower() in folded:
        return f"{raw!r}; the values are case-sensitive: {folded[raw.strip().lower()]}"
    extra = note(raw) if note else None
    return f"{raw!r}; {extra}" if extra else repr(raw)


def _bad_values(
    ctx: Submission, column: str, status_enum: type[enum.Enum], note: Note | None = None
) -> tuple[list[Finding], int]:
    """Findings for every row whose ``column`` is not one of the enum's values (exact match)."""
    series = ctx.column(column)
    allowed = values(status_enum)
    bad = np.flatnonzero(~arrays.isin(series, frozenset(allowed)))
    listed = ", ".join(allowed)
    found = [
        Finding(
            f"{column} must be one of {listed} (got {_got(series[p], allowed, note)})",
            **ctx.loc(int(p), column, series[p]),
            expected=f"one of {listed}",
        )
        for p in bad
    ]
    return found, len(series)


def _enumeration(ctx: Submission, column: str, status_enum: type[enum.Enum], note: Note | None = None) -> Report:
    found, n = _bad_values(ctx, column, status_enum, note)
    if not found:
        return Report()
    return Report(found, headline=f"{len(found)} of {n} {column} values are not recognized")


def _mediscore_isoptout(raw: str) -> str | None:
    if raw in MEDISCORE_ISOPTOUT_EXTRA:
        return "MediScore accepts it, but the NC2017 plan allows only Y and N"
    return None


def _openmfc_optout(raw: str) -> str | None:
    if raw.startswith("OptOut"):
        return "OpenMFC has no opt-out statuses (D-09)"
    return None


@rule("STATUS-01", "NC2017: IsOptOut is Y or N", groups={N17}, tasks={IMG, VID, SPL, PF, PG})
def status_01(ctx: Submission) -> Report:
    """NC17 §5.1.1, §5.2 list only Y and N. MediScore also accepts Detection, Localization and
    FailedValidation; we follow the plan and say so in the message."""
    return _enumeration(ctx, "IsOptOut", IsOptOut, _mediscore_isoptout)


@rule(
    "STATUS-02",
    "ProbeStatus is one of the six MFC values (case-sensitive, not blank)",
    groups={M18, M19},
    tasks={IMG, CAM},
)
def status_02(ctx: Submission) -> Report:
    """MFC19 §5.1.1, §5.1.1.3, §5.4; MediScore enforces it too."""
    return _enumeration(ctx, "ProbeStatus", ProbeStatus)


@rule("STATUS-03", "Video ProbeStatus is one of the eight MFC video values", groups={M18, M19}, tasks={VID})
def status_03(ctx: Submission) -> Report:
    """MFC19 §5.1.1: STATUS-02 plus OptOutTemporal and OptOutSpatial. MFC2018 video has the same
    layout in MediScore, so the same list applies."""
    return _enumeration(ctx, "ProbeStatus", VideoProbeStatus)


@rule(
    "STATUS-04",
    "OpenMFC: ProbeStatus is Processed, NonProcessed or FailedValidation (D-09)",
    groups={O2X},
    tasks={IMG, VID},
)
def status_04(ctx: Submission) -> Report:
    """OMFC §5.1, §5.3 have no opt-out statuses; MediScore accepts the MFC list (D-09: reject)."""
    return _enumeration(ctx, "ProbeStatus", OpenMFCProbeStatus, _openmfc_optout)


@rule(
    "STATUS-05",
    "Splice: ProbeStatus per STATUS-02, DonorStatus one of four values (D-23)",
    groups={M18, M19},
    tasks={SPL},
)
def status_05(ctx: Submission) -> Report:
    """MFC19 §5.1.1.3 gives four donor values (D-23). Unlike MediScore, which checks statuses only
    while it checks masks, both columns are checked on every row."""
    probe, n = _bad_values(ctx, "ProbeStatus", ProbeStatus)
    donor, _ = _bad_values(ctx, "DonorStatus", DonorStatus)
    if not probe and not donor:
        return Report()
    parts = [
        f"{len(found)} of {n} {col} values" for col, found in (("ProbeStatus", probe), ("DonorStatus", donor)) if found
    ]
    return Report(probe + donor, headline=" and ".join(parts) + " are not recognized")


@rule(
    "STATUS-06",
    "Event verification: ProbeStatus is Processed, NonProcessed, OptOut or FailedValidation",
    groups={M18, M19},
    tasks={EV},
)
def status_06(ctx: Submission) -> Report:
    """MFC19 §5.3 ("OptOut for tasks without localization"); MediScore rejects OptOutAll (EV1)."""
    return _enumeration(ctx, "ProbeStatus", EventProbeStatus)


@rule(
    "STATUS-07",
    "Provenance: ProvenanceProbeStatus is Processed, NonProcessed, OptOut or FailedValidation",
    groups={M18, M19},
    tasks={PF, PG},
)
def status_07(ctx: Submission) -> Report:
    """MFC19 §5.2. MediScore's provenance validator does not check it (B-06)."""
    return _enumeration(ctx, "ProvenanceProbeStatus", ProvenanceProbeStatus)


# --------------------------------------------------------------------------- meanings


def _blank(series: np.ndarray) -> np.ndarray:
    """Blank fields (no mask, MASK-01)."""
    return np.fromiter((not v.strip() for v in series.tolist()), dtype=bool, count=len(series))


def _no_segments(series: np.ndarray) -> np.ndarray:
    """``[]`` (or blank): no interval given. Anything else counts as carrying segments."""
    return np.fromiter(("".join(v.split()) in ("[]", "") for v in series.tolist()), dtype=bool, count=len(series))


@rule(
    "STATUS-08",
    "FailedValidation rows are excused from mask and interval checks and scored as failed",
    groups=ALL_GROUPS,
    tasks={IMG, VID, SPL, CAM},
    severity=Severity.WARNING,
)
def status_08(ctx: Submission) -> Report:
    """MFC19 §5.1.1.3, OMFC §5.3, MediScore's ReadMe: NIST (``--output_revised_system``) or the
    participant sets FailedValidation; the row's masks and intervals are then not checked and the
    trial is scored as failed. Listed so the participant sees what NIST will do. NC2017 files get
    it through MediScore's IsOptOut=FailedValidation, which STATUS-01 rejects."""
    what = {
        IMG: ("mask", "mask"),
        CAM: ("mask", "mask"),
        VID: ("segment and mask", "segments"),
        SPL: ("probe mask", "probe mask"),
    }[ctx.task]
    cols = [(ctx.status_name, what)]
    if ctx.task is SPL and ctx.status_name == "ProbeStatus":
        cols.append(("DonorStatus", ("donor mask", "donor mask")))
    found: list[Finding] = []
    for col, (checks, ignored) in cols:
        for p in np.flatnonzero(ctx.column(col) == FAILED_VALIDATION):
            found.append(
                Finding(
                    f"NIST skips this row's {checks} checks and scores the trial as failed "
                    f"(score 0, {ignored} ignored)",
                    **ctx.loc(int(p), col, FAILED_VALIDATION),
                )
            )
    if not found:
        return Report()
    found.sort(key=lambda f: f.line or 0)
    rows = len({f.line for f in found})
    verb = "is" if rows == 1 else "are"
    return Report(
        found,
        headline=f"{plural(rows, 'FailedValidation row')} {verb} excused from mask and interval "
        f"checks and scored as failed",
    )


@rule(
    "STATUS-09",
    "MFC2019 status meanings: OptOutDetection rows carry localization output",
    groups={M19},
    severity=Severity.WARNING,
)
def status_09(ctx: Submission) -> Report:
    """MFC19 §5.1.1.3: OptOutDetection = "did perform localization". A blank mask (or ``[]`` for
    video) reads as "nothing manipulated", which contradicts the status; OptOutAll says "not
    processed"."""
    if ctx.task in (EV, PF, PG):
        raise NotApplicable(f"no status of the {ctx.task.value} task carries localization output")
    status = ctx.column("ProbeStatus")
    chosen = arrays.isin(status, LOCALIZATION_ONLY)
    if ctx.task is VID:
        empty = np.logical_and.reduce([_no_segments(ctx.column(c)) for c in SEGMENT_COLUMNS])
        if ctx.has_column(PROBE_MASK):
            empty = empty & _blank(ctx.column(PROBE_MASK))
        got = "VideoFrameSegments=[] and AudioSampleSegments=[] and no mask"
        need = "segments or a mask"
    else:
        empty = _blank(ctx.column(PROBE_MASK))
        got = f"a blank {PROBE_MASK}, which is scored as 'nothing manipulated'"
        need = "a mask"
    found = [
        Finding(
            f"OptOutDetection means localization only, so the row should carry {need} (got {got})",
            **ctx.loc(int(p), "ProbeStatus", status[p]),
        )
        for p in np.flatnonzero(chosen & empty)
    ]
    if not found:
        return Report()
    return Report(
        found, headline=f"{len(found)} of {int(chosen.sum())} OptOutDetection rows carry no localization output"
    )


@rule(
    "STATUS-10",
    "MFC2019: rows that opt out of localization carry no mask, OptOutTemporal no segments",
    groups={M19},
    tasks={IMG, SPL, CAM, VID},
    severity=Severity.WARNING,
)
def status_10(ctx: Submission) -> Report:
    """Implied by MFC19 §5.1.1.3 (and D-10 for OptOutSpatial): output under an opt-out is not
    scored, so carrying it is a contradiction worth a warning. MediScore does not check it."""
    checks: list[tuple[str, frozenset[str], str, Callable[[np.ndarray], np.ndarray]]] = []
    if ctx.task is VID:
        checks += [("ProbeStatus", NO_SEGMENTS_M19, c, _no_segments) for c in SEGMENT_COLUMNS]
        if ctx.has_column(PROBE_MASK):
            checks.append(("ProbeStatus", NO_VIDEO_MASK_M19, PROBE_MASK, _blank))
    else:
        checks.append(("ProbeStatus", NO_MASK_M19, PROBE_MASK, _blank))
        if ctx.task is SPL:
            checks.append(("DonorStatus", NO_MASK_M19, DONOR_MASK, _blank))
    found: list[Finding] = []
    for status_col, statuses, out_col, is_empty in checks:
        status = ctx.column(status_col)
        output = ctx.column(out_col)
        want = "[]" if is_empty is _no_segments else "blank"
        for p in np.flatnonzero(arrays.isin(status, statuses) & ~is_empty(output)):
            found.append(
                Finding(
                    f"{status_col}={status[p]} opts out of this output, so {out_col} should be "
                    f"{want} (got {output[p]!r}, which is not scored)",
                    **ctx.loc(int(p), out_col, output[p]),
                )
            )
    if not found:
        return Report()
    found.sort(key=lambda f: f.line or 0)
    rows = len({f.line for f in found})
    verb = "carries localization output its" if rows == 1 else "carry localization output their"
    return Report(found, headline=f"{plural(rows, 'row')} {verb} status opts out of")
