"""SUB — the submission identifier (docs/rules/sub.md, D-01, D-02).

The identifier is the name of the submission directory ``<ID>/`` (PKG-01 then
checks that the CSV carries the same name).  Each edition has its own grammar
(D-01), checked in full, beyond MediScore's ``-nc`` check (which tests only the
field count, the team, the NCID and the task):

* NC2017 / MFC2018 (and NC2016, MediScore's own test data): the 7-field EXPID,
  SUB-01 (field count) then one rule per field, SUB-02...08;
* MFC2019: ``<SYS>_<VERSION>_[OPTIONAL]``, SUB-09, with SUB-07/08 on its parts;
* OpenMFC: letters, digits, '-' and '_', SUB-10 (D-02).

All are errors: they are grammars, and the plans reject a misnamed submission.
"""

from __future__ import annotations

from ..editions import Group, Task
from ..findings import Finding, Report
from ..models.identifiers import (
    CONDITIONS,
    EXPID_FIELDS,
    TASK_NAMES,
    YEAR_BY_EDITION,
    mfc19_problem,
    openmfc_bad_chars,
    split_expid,
    split_mfc19,
    sys_problem,
    task_matches,
    version_problem,
)
from ..registry import rule
from ..submission import Submission

N17, M18, M19, O2X = Group.N17, Group.M18, Group.M19, Group.O2X
EXPID_GROUPS = {N17, M18}
_REQ = ("SUB-01",)


def _term(ctx: Submission) -> str:
    return "EXPID" if ctx.group in EXPID_GROUPS else "SubID"


def _field(ctx: Submission, name: str) -> str:
    """One EXPID field (SUB-02...08 run only after SUB-01 found 7 fields)."""
    return split_expid(ctx.sub_id)[EXPID_FIELDS.index(name)]


def _fail(ctx: Submission, column: str, value: str, message: str, headline: str, expected: str | None = None) -> Report:
    """One finding at the directory ``<ID>/``, naming the field, its value and (where stated) the value wanted."""
    found = Finding(message, file=f"{ctx.sub_id}/", column=column, value=value, expected=expected)
    return Report([found], headline=headline)


# --------------------------------------------------------------------------- NC2017 / MFC2018 EXPID


@rule(
    "SUB-01",
    "The EXPID has 7 '_'-separated fields <TEAM>_<YEAR>_<DATA>_<TASK>_<CONDITION>_<SYS>_<VERSION>",
    groups=EXPID_GROUPS,
)
def sub_01(ctx: Submission) -> Report:
    """NC17 App. A.  MediScore enforces the count (S1, S2, D1, D2); more than 7 fields mostly
    means an underscore in TEAM or SYS, an empty field means a doubled or edge '_'."""
    fields = split_expid(ctx.sub_id)
    if len(fields) == len(EXPID_FIELDS):
        return Report()
    n = len(fields)
    hints = []
    if n > len(EXPID_FIELDS):
        hints.append("TEAM and SYS must not contain '_'")
    if "" in fields:
        hints.append("'__' or a '_' at either end makes an empty field")
    hint = f"; {' and '.join(hints)}" if hints else ""
    msg = (
        f"the EXPID must have 7 '_'-separated fields <TEAM>_<YEAR>_<DATA>_<TASK>_<CONDITION>_<SYS>_<VERSION>, "
        f"e.g. NIST_NC17_DRYRUN17_Splice_ImgMeta_p-baseline_3 (got {n}{hint})"
    )
    return _fail(ctx, "EXPID", ctx.sub_id, msg, f"the EXPID {ctx.sub_id} has {n} '_'-separated fields, not 7")


@rule("SUB-02", "<TEAM> is non-empty and has no '_'", groups=EXPID_GROUPS, requires=_REQ)
def sub_02(ctx: Submission) -> Report:
    """NC17 App. A: "No underscores are allowed in the short participate team name" (an
    underscore already fails SUB-01).  Other characters (MediScore's S3/D3 '+') are not
    forbidden by the plan, and MediScore does not check them: accepted."""
    team = _field(ctx, "TEAM")
    if team:
        return Report()
    return _fail(
        ctx,
        "TEAM",
        team,
        "TEAM must be the short team name (got an empty field: the EXPID starts with '_')",
        "the TEAM field of the EXPID is empty",
    )


@rule("SUB-03", "<YEAR> is the challenge ID (NC17 for NC2017, MFC18 for MFC2018)", groups=EXPID_GROUPS, requires=_REQ)
def sub_03(ctx: Submission) -> Report:
    """NC17 App. A, VRM.  Compared exactly, as MediScore compares it with ``--ncid``;
    NC2016 (MediScore's test data) uses ``NC2016``."""
    year = _field(ctx, "YEAR")
    want = YEAR_BY_EDITION.get(ctx.edition)
    if want is None or year == want:
        return Report()
    hint = " (the case differs)" if year.lower() == want.lower() else ""
    return _fail(
        ctx,
        "YEAR",
        year,
        f"YEAR must be {want} for {ctx.edition.value} (got {year!r}{hint})",
        f"the YEAR field is {year!r}, {ctx.edition.value} needs {want}",
        want,
    )


@rule("SUB-04", "<DATA> names the dataset", groups=EXPID_GROUPS, requires=_REQ)
def sub_04(ctx: Submission) -> Report:
    """NC17 App. A ("the dataset identifier, e.g. DRYRUN17"); only emptiness is checkable."""
    data = _field(ctx, "DATA")
    if data:
        return Report()
    return _fail(
        ctx,
        "DATA",
        data,
        "DATA must name the dataset, e.g. DRYRUN17 (got an empty field)",
        "the DATA field of the EXPID is empty",
    )


@rule(
    "SUB-05",
    "<TASK> names the index's task (Manipulation, Splice, ProvenanceFiltering, Provenance)",
    groups=EXPID_GROUPS,
    requires=_REQ,
)
def sub_05(ctx: Submission) -> Report:
    """NC17 App. A; compared case-insensitively, as MediScore does (ENFORCED).  MediScore's SSD
    validator wants 'manipulation' for video, event and camera too; for EV and CAM both that
    and the task's own name are accepted."""
    task = _field(ctx, "TASK")
    if task_matches(task, ctx.task):
        return Report()
    names = " or ".join(TASK_NAMES[ctx.task])
    msg = f"TASK must be {names} to match the index {ctx.index_file.name} (got {task!r})"
    headline = f"the TASK field {task!r} does not name the {_task_word(ctx.task)} task"
    return _fail(ctx, "TASK", task, msg, headline, names)


def _task_word(task: Task) -> str:
    return {
        Task.IMG: "manipulation",
        Task.VID: "video manipulation",
        Task.SPL: "splice",
        Task.PF: "provenance filtering",
        Task.PG: "provenance",
        Task.EV: "event verification",
        Task.CAM: "camera verification",
    }[task]


@rule("SUB-06", "<CONDITION> is ImgOnly, VidOnly, ImgMeta or VidMeta", groups=EXPID_GROUPS, requires=_REQ)
def sub_06(ctx: Submission) -> Report:
    """NC17 App. A lists the four ConditionIDs (a closed list: an error).  MediScore does not
    check the field, but a Vid* condition silently turns its mask checks off."""
    cond = _field(ctx, "CONDITION")
    if cond in CONDITIONS:
        return Report()
    near = [c for c in CONDITIONS if c.lower() == cond.lower()]
    hint = f"; the case differs from {near[0]}" if near else ""
    return _fail(
        ctx,
        "CONDITION",
        cond,
        f"CONDITION must be one of {', '.join(CONDITIONS)} (got {cond!r}{hint})",
        f"the CONDITION field {cond!r} is not a ConditionID",
        f"one of {', '.join(CONDITIONS)}",
    )


# --------------------------------------------------------------------------- SYS and VERSION (NC17, MFC18, MFC19)


def _sys_version(ctx: Submission) -> tuple[str, str | None]:
    """SYS and VERSION: EXPID fields 6 and 7, or the first two parts of an MFC2019 SubID."""
    if ctx.group in EXPID_GROUPS:
        return _field(ctx, "SYS"), _field(ctx, "VERSION")
    sys, version, _ = split_mfc19(ctx.sub_id)
    return sys, version


@rule("SUB-07", "<SYS> is 'p-' or 'c-' then letters and digits", groups={N17, M18, M19}, requires=_REQ)
def sub_07(ctx: Submission) -> Report:
    """NC17 and MFC19 App. A: 'p-' for the one primary system, 'c-' for contrastive ones,
    "only alpha numerical characters"; not checked by MediScore."""
    sys, _ = _sys_version(ctx)
    why = sys_problem(sys)
    if why is None:
        return Report()
    return _fail(ctx, "SYS", sys, why, f"the SYS part {sys!r} of the {_term(ctx)} is not a SysID")


@rule("SUB-08", "<VERSION> is an integer >= 1", groups={N17, M18, M19}, requires=_REQ)
def sub_08(ctx: Submission) -> Report:
    """NC17 and MFC19 App. A: "an integer starting at 1"; not checked by MediScore (whose
    parsed field still carries '.csv')."""
    _, version = _sys_version(ctx)
    why = version_problem(version)
    if why is None:
        return Report()
    shown = "missing" if version is None else repr(version)
    return _fail(
        ctx, "VERSION", version or "", why, f"the VERSION part of the {_term(ctx)} is {shown}, not an integer >= 1"
    )


# --------------------------------------------------------------------------- MFC2019, OpenMFC


@rule("SUB-09", "The MFC2019 SubID is <SYS>_<VERSION>_[OPTIONAL]", groups={M19})
def sub_09(ctx: Submission) -> Report:
    """MFC19 App. A, grammar of D-01: ``^[pc]-[A-Za-z0-9]+_[1-9][0-9]*(_.+)?$``.  MediScore has no
    checker (its ``-nc`` check rejects every valid MFC2019 SubID)."""
    why = mfc19_problem(ctx.sub_id)
    if why is None:
        return Report()
    return _fail(ctx, "SubID", ctx.sub_id, why, f"the SubID {ctx.sub_id} does not match <SYS>_<VERSION>_[OPTIONAL]")


@rule("SUB-10", "The OpenMFC SubID has only letters, digits, '-' and '_'", groups={O2X}, tasks={Task.IMG, Task.VID})
def sub_10(ctx: Submission) -> Report:
    """OMFC App. A: "a user-defined string ... [with] no spaces or special characters".  The
    plan's own example ``p-baseline_3_imdl`` uses '-' and '_', so D-02 reads the rule as
    ``[A-Za-z0-9_-]+`` (ASCII): everything else, accented letters included, is rejected."""
    bad = openmfc_bad_chars(ctx.sub_id)
    if bad is None:
        return Report()
    msg = f"the SubID must have only letters, digits, '-' and '_', e.g. p-baseline_3_imdl (got {bad})"
    return _fail(ctx, "SubID", ctx.sub_id, msg, f"the SubID {ctx.sub_id!r} has a space or special character")
