"""CSV — the file dialect (RULES.md 2.4).

The parser (:mod:`pytest_omfc.csvio`) files what it sees under CSV-01...04;
these checks only hand those findings out, so the file is read once.
"""

from __future__ import annotations

from ..findings import Finding
from ..findings import Report
from ..findings import Severity
from ..findings import Unavailable
from ..registry import rule
from ..submission import Submission


def _parse_findings(ctx: Submission, rule_id: str) -> list[Finding]:
    res = ctx.sysout_parse
    if res.fatal and res.fatal[0] == "CSV-08":
        raise Unavailable("CSV-08", res.fatal[1])
    return list(res.issues.get(rule_id, []))


@rule("CSV-08", "The system output file and the index file exist")
def csv_08(ctx: Submission) -> Report:
    res = ctx.sysout_parse
    if res.fatal and res.fatal[0] == "CSV-08":
        candidates = sorted(p.name for p in ctx.dir.iterdir() if p.is_file())
        got = ", ".join(candidates[:5]) or "an empty directory"
        f = Finding(f"the system output {ctx.sub_id}/{ctx.sub_id}.csv must exist (got {got})", file=ctx.sub_id + "/")
        return Report([f], headline="the system output file is missing")
    return Report()


@rule("CSV-01", "Fields are separated by '|'", requires=("CSV-08",))
def csv_01(ctx: Submission) -> Report:
    found = _parse_findings(ctx, "CSV-01")
    return Report(found, headline="the system output is not '|'-separated" if found else None)


@rule("CSV-02", "The first record is a header with exact, case-sensitive names", requires=("CSV-08",))
def csv_02(ctx: Submission) -> Report:
    found = _parse_findings(ctx, "CSV-02")
    return Report(found, headline=f"{len(found)} problem(s) with the header line" if found else None)


@rule("CSV-03", "One record per line, every record with the header's number of fields", requires=("CSV-08",))
def csv_03(ctx: Submission) -> Report:
    found = _parse_findings(ctx, "CSV-03")
    bad = [f for f in found if f.severity is not Severity.WARNING]
    if bad and ctx.sysout_parse.table is None:
        return Report(found, headline="the system output is not a text file")
    n = len(bad) or len(found)
    return Report(found, headline=f"{n} malformed record(s)" if found else None)


@rule("CSV-04", "Field values are not quoted", severity=Severity.WARNING, requires=("CSV-08",))
def csv_04(ctx: Submission) -> Report:
    found = _parse_findings(ctx, "CSV-04")
    return Report(found, headline="quoted field values (MediScore strips standard quoting)" if found else None)


_BLANK_LOOKALIKES = {"nan", "none", "null", "na", "n/a", "-"}


@rule("CSV-05", "An empty field is an empty string", severity=Severity.WARNING, requires=("CSV-01",))
def csv_05(ctx: Submission) -> Report:
    """Optional text columns must be truly empty, not 'NaN'/'None'/' ' (they would name a mask file)."""
    table = ctx.sysout()
    found: list[Finding] = []
    for col in ("OutputProbeMaskFileName", "OutputDonorMaskFileName", "ProbeOptOutPixelValue", "DonorOptOutPixelValue"):
        if not table.has(col):
            continue
        values = table.df[col].astype(str)
        stripped = values.str.strip()
        mask = ((stripped == "") & (values != "")) | stripped.str.lower().isin(_BLANK_LOOKALIKES)
        for pos in mask.to_numpy().nonzero()[0]:
            found.append(Finding("an empty field must be empty (got a placeholder)", **ctx.loc(int(pos), col, values.iloc[pos])))
    return Report(found, headline=f"{len(found)} field(s) hold a placeholder instead of being empty" if found else None)


@rule("CSV-06", "Columns follow the plan's order, with no other columns", severity=Severity.WARNING, requires=("CSV-01",))
def csv_06(ctx: Submission) -> Report:
    from ..models import all_columns

    table = ctx.sysout()
    expected = all_columns(ctx.layout)
    extra = [c for c in table.header if c not in expected and c.strip() not in expected]
    if table.has("IsOptOut") and ctx.status_name != "IsOptOut":
        extra = [c for c in extra if c != "IsOptOut"]  # COL-04 speaks of it
    found = [Finding(f"column must not be there: the plan lists {', '.join(expected)} (got extra column {c!r})",
                     file=table.display, line=1, column=c) for c in extra]
    present = [c for c in table.header if c in expected]
    order = [c for c in expected if c in present]
    if present != order:
        found.append(Finding(f"columns must be in the order {' | '.join(order)} (got {' | '.join(present)})",
                             file=table.display, line=1))
    return Report(found, headline="the columns differ from the plan's layout" if found else None)


@rule("CSV-07", "The index file has the extension .csv and is '|'-separated")
def csv_07(ctx: Submission) -> Report:
    index = ctx.settings.index
    found: list[Finding] = []
    if index.suffix != ".csv":
        found.append(Finding(f"the index file must have the extension .csv (got {index.suffix!r})", file=index.name))
    res = ctx.index_parse
    if res.table is None:
        assert res.fatal is not None
        found.append(Finding(f"the index must be a '|'-separated table ({res.fatal[1]})", file=index.name))
    else:
        missing = [c for c in ctx.keys if not res.table.has(c)]
        if missing:
            found.append(Finding(f"the index must have the key column(s) {', '.join(ctx.keys)} (missing {', '.join(missing)})",
                                 file=index.name, line=1))
    return Report(found, headline=f"the index file {index.name} cannot be used" if found else None)
