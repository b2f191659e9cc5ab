"""COL — required columns per edition and task (docs/rules/col.md).

The required columns come from the output models of
:mod:`pytest_omfc.models.tabular`; each layout-owning COL rule (the mapping
:data:`pytest_omfc.submission.COLUMN_RULE`) runs the same check on its model.
All are errors: MediScore ENFORCES them, and where it does not, the plans
follow the resolutions D-05 (OpenMFC VMD/VGMD: 3 columns), D-06 (MFC2019
provenance: no ConfidenceScore) and D-08 (splice status columns are required).
Names are matched exactly, as MediScore does (``"ProbeFileID "`` is absent).
"""

from __future__ import annotations

from ..editions import Group, Task
from ..findings import Finding, Report, Severity
from ..registry import rule
from ..submission import Submission

N17, M18, M19, O2X = Group.N17, Group.M18, Group.M19, Group.O2X
_REQ = ("CSV-01",)


def _required_present(ctx: Submission) -> Report:
    """Every required column of the edition's layout is in the header."""
    table = ctx.sysout()
    missing = [c for c in ctx.layout.required if not table.has(c)]
    found = []
    for c in missing:
        near = [h for h in table.header if h.strip().lower() == c.lower()]
        got = f"got {near[0]!r}, which differs only in case" if near else f"the header is {' | '.join(table.header)}"
        found.append(
            Finding(
                f"the required column {c} must be present ({got})", file=table.display, line=table.header_line, column=c
            )
        )
    if not found:
        return Report()
    head = (
        f"the required column {missing[0]} is absent"
        if len(missing) == 1
        else f"{len(missing)} required columns are absent: {', '.join(missing)}"
    )
    return Report(found, headline=head)


_LAYOUT_RULES: list[tuple[str, str, set[Group], set[Task]]] = [
    (
        "COL-01",
        "NC2017 image output: ProbeFileID, ConfidenceScore, OutputProbeMaskFileName, IsOptOut",
        {N17},
        {Task.IMG},
    ),
    (
        "COL-02",
        "MFC/OpenMFC image output: ProbeFileID, ConfidenceScore, OutputProbeMaskFileName, ProbeStatus, "
        "ProbeOptOutPixelValue",
        {M18, M19, O2X},
        {Task.IMG},
    ),
    ("COL-05", "NC2017 video output: ProbeFileID, ConfidenceScore, IsOptOut", {N17}, {Task.VID}),
    (
        "COL-06",
        "MFC video output: ProbeFileID, ConfidenceScore, ProbeStatus and the three segment columns",
        {M18, M19},
        {Task.VID},
    ),
    ("COL-07", "OpenMFC VMD/VGMD output: ProbeFileID, ConfidenceScore, ProbeStatus (D-05)", {O2X}, {Task.VID}),
    (
        "COL-08",
        "Splice output: the five base columns plus the edition's status columns (D-08)",
        {N17, M18, M19},
        {Task.SPL},
    ),
    (
        "COL-10",
        "Event verification output: ProbeFileID, EventName, ConfidenceScore, ProbeStatus",
        {M18, M19},
        {Task.EV},
    ),
    (
        "COL-11",
        "Camera output: ProbeFileID, TrainCamID, OutputProbeMaskFileName, ConfidenceScore, ProbeStatus, "
        "ProbeOptOutPixelValue",
        {M18, M19},
        {Task.CAM},
    ),
    (
        "COL-12",
        "NC2017/MFC2018 provenance output: ProvenanceProbeFileID, ConfidenceScore, ProvenanceOutputFileName, status",
        {N17, M18},
        {Task.PF, Task.PG},
    ),
    (
        "COL-13",
        "MFC2019 provenance output: ProvenanceProbeFileID, ProvenanceOutputFileName, ProvenanceProbeStatus (D-06)",
        {M19},
        {Task.PF, Task.PG},
    ),
]

for _id, _title, _groups, _tasks in _LAYOUT_RULES:
    rule(_id, _title, groups=_groups, tasks=_tasks, requires=_REQ)(_required_present)


@rule(
    "COL-03",
    "One opt-out column, IsOptOut or ProbeStatus, is present",
    tasks={Task.IMG, Task.VID, Task.CAM},
    requires=_REQ,
)
def col_03(ctx: Submission) -> Report:
    """MediScore ENFORCES it for SSD; EV accepts only ProbeStatus (COL-10)."""
    table = ctx.sysout()
    if table.has("IsOptOut") or table.has("ProbeStatus"):
        return Report()
    f = Finding(
        f"either IsOptOut or ProbeStatus must be a column (the header is {' | '.join(table.header)})",
        file=table.display,
        line=table.header_line,
    )
    return Report([f], headline="neither IsOptOut nor ProbeStatus is a column")


@rule(
    "COL-04",
    "Not both IsOptOut and ProbeStatus (or ProvenanceProbeStatus)",
    severity=Severity.WARNING,
    tasks={Task.IMG, Task.VID, Task.SPL, Task.PF, Task.PG},
    requires=_REQ,
)
def col_04(ctx: Submission) -> Report:
    """MediScore only warns ("advised"); its validators then disagree on which column is used."""
    table = ctx.sysout()
    other = "ProvenanceProbeStatus" if ctx.task in (Task.PF, Task.PG) else "ProbeStatus"
    if table.has("IsOptOut") and table.has(other):
        f = Finding(
            f"only one status column should be given: the {ctx.edition.value} layout uses {ctx.status_name} "
            f"(got both IsOptOut and {other}; MediScore's validators then disagree on which is used)",
            file=table.display,
            line=table.header_line,
        )
        return Report([f], headline=f"both IsOptOut and {other} are columns")
    return Report()


@rule(
    "COL-09",
    "ProbeOptOutPixelValue and DonorOptOutPixelValue come together or not at all",
    groups={M18, M19},
    tasks={Task.SPL},
    requires=_REQ,
)
def col_09(ctx: Submission) -> Report:
    """MediScore ENFORCES the pair for splice."""
    table = ctx.sysout()
    p, d = table.has("ProbeOptOutPixelValue"), table.has("DonorOptOutPixelValue")
    if p == d:
        return Report()
    have, lack = (
        ("ProbeOptOutPixelValue", "DonorOptOutPixelValue") if p else ("DonorOptOutPixelValue", "ProbeOptOutPixelValue")
    )
    f = Finding(
        f"{lack} must be a column when {have} is (got {have} alone)",
        file=table.display,
        line=table.header_line,
        column=lack,
    )
    return Report([f], headline=f"{have} without {lack}")
