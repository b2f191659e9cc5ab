"""CSV — file dialect (docs/rules/csv.md).

The reader (:mod:`pytest_omfc.csvio`) files every dialect problem under its
rule while parsing once; these checks only report them.  When the file cannot
be read as a table at all, the rule that says why fails (CSV-08 missing,
CSV-02 empty, CSV-03 binary, CSV-01 not ``|``-separated, D-11) and the others
are skipped naming it.  Severities where the plans leave them open are listed
in :mod:`pytest_omfc.csvio`; CSV-04/05/06 are warnings (VRM "should", not
enforced by MediScore).
"""

from __future__ import annotations

import os
from collections import Counter

from ..findings import Finding, Report, Severity, Unavailable, plural
from ..registry import rule
from ..submission import Submission


def _parse_report(ctx: Submission, rule_id: str) -> Report:
    """This rule's reader findings (kept ones, the rest counted in ``dropped``); with the headline
    set when it is the rule that made the file unreadable.

    When another rule made the file unreadable and this one has nothing to
    say, there is nothing to judge: :class:`Unavailable` names that rule.
    """
    res = ctx.sysout_parse
    found = list(res.issues.get(rule_id, []))
    dropped = dict(res.dropped.get(rule_id, {}))
    if res.fatal is not None:
        fatal_rule, reason = res.fatal
        if fatal_rule == rule_id:
            return Report(found, headline=reason, dropped=dropped)
        if not found:
            raise Unavailable(fatal_rule, reason)
    return Report(found, dropped=dropped)


def _counts(ctx: Submission, rule_id: str) -> tuple[Counter[str], Counter[str]]:
    """Every finding of the reader for ``rule_id`` (kept or not) counted by kind: (errors, warnings)."""
    errors: Counter[str] = Counter()
    warnings: Counter[str] = Counter()
    for (kind, sev), n in ctx.sysout_parse.kinds.get(rule_id, Counter()).items():
        (warnings if sev is Severity.WARNING else errors)[kind] += n
    return errors, warnings


@rule("CSV-08", "The system output file and the index file exist")
def csv_08(ctx: Submission) -> Report:
    """The system output ``<ID>/<ID>.csv`` exists and is a regular, readable file (a missing index
    is a usage error, exit 4).  A FIFO or other special file is never opened (it would block)."""
    res = ctx.sysout_parse
    if not res.fatal or res.fatal[0] != "CSV-08":
        return Report()
    if res.issues.get("CSV-08"):
        return Report(res.issues["CSV-08"], headline=res.fatal[1])
    try:
        names = sorted(p.name for p in ctx.dir.iterdir() if p.is_file())
    except OSError:
        names = []
    if ctx.sysout_path is not None and os.path.lexists(ctx.sysout_path):
        f = Finding(f"the system output must be a readable file ({res.fatal[1]})", file=res.display)
    else:
        got = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "") if names else "an empty directory"
        deeper = _one_level_down(ctx)
        if deeper is not None:
            got += f"; {deeper} is one folder too deep: move it to {ctx.sub_id}/{ctx.sub_id}.csv"
        f = Finding(f"the system output {ctx.sub_id}/{ctx.sub_id}.csv must exist (got {got})", file=f"{ctx.sub_id}/")
    return Report([f], headline=res.fatal[1])


def _one_level_down(ctx: Submission) -> str | None:
    """``<ID>/out/<ID>.csv``: the system output one folder too deep (a writer's own layout), as shown."""
    try:
        folders = sorted(p for p in ctx.dir.iterdir() if p.is_dir() and not p.is_symlink())
    except OSError:
        return None
    for folder in folders[:50]:  # a submission has a few folders (mask/); never list a mask folder
        candidate = folder / f"{ctx.sub_id}.csv"
        if candidate.is_file():
            return ctx.display(candidate)
    return None


@rule("CSV-01", "Fields are separated by '|'", requires=("CSV-08",))
def csv_01(ctx: Submission) -> Report:
    """A header without '|' is fatal (D-11: a comma-separated file must fail, as in MediScore)."""
    return _parse_report(ctx, "CSV-01")


@rule("CSV-02", "The first record is a header with exact, case-sensitive names", requires=("CSV-08",))
def csv_02(ctx: Submission) -> Report:
    """Empty file, BOM, names with white space, empty or duplicate names (see :mod:`pytest_omfc.csvio`)."""
    rep = _parse_report(ctx, "CSV-02")
    if rep.headline or not rep.findings:
        return rep
    errors, warnings = (sum(c.values()) for c in _counts(ctx, "CSV-02"))
    head = f"{plural(errors or warnings, 'problem')} with the header line"
    return Report(
        rep.findings,
        headline=head,
        warning_headline=f"{plural(warnings, 'problem')} with the header line",
        dropped=rep.dropped,
    )


#: The reader's kinds of CSV-03 findings (see :mod:`pytest_omfc.csvio`), as counted in headlines.
_CSV03_KINDS = {
    "utf8": ("line is not UTF-8 text", "lines are not UTF-8 text"),
    "width": ("record has the wrong number of fields", "records have the wrong number of fields"),
    "blank": ("blank line", "blank lines"),
    "trailing": ("record ends with an extra '|'", "records end with an extra '|'"),
}


def _kind_counts(counts: Counter[str]) -> str:
    """``2 blank lines; 1 record has the wrong number of fields`` from counts by kind."""
    words = [_CSV03_KINDS.get(kind, ("malformed record", "malformed records")) for kind in counts]
    return "; ".join(f"{n} {one if n == 1 else many}" for (one, many), n in zip(words, counts.values(), strict=False))


@rule("CSV-03", "One record per line, every record with the header's number of fields", requires=("CSV-08",))
def csv_03(ctx: Submission) -> Report:
    """Binary or non-UTF-8 text and ragged records are errors; blank lines and a trailing '|' are warnings."""
    rep = _parse_report(ctx, "CSV-03")
    if rep.headline or not rep.findings:
        return rep
    errors, warnings = _counts(ctx, "CSV-03")
    return Report(
        rep.findings,
        headline=_kind_counts(errors or warnings),
        warning_headline=_kind_counts(warnings),
        dropped=rep.dropped,
    )


@rule("CSV-04", "Field values are not quoted", severity=Severity.WARNING, requires=("CSV-08",))
def csv_04(ctx: Submission) -> Report:
    """VRM/PVRM "should" (not checked by MediScore): a warning; quotes are removed as pandas does."""
    rep = _parse_report(ctx, "CSV-04")
    if rep.headline or not rep.findings:
        return rep
    n = rep.total
    return Report(
        rep.findings,
        headline=f"{plural(n, 'line')} {'has' if n == 1 else 'have'} quoted fields (MediScore strips standard quoting)",
        dropped=rep.dropped,
    )


_OPTIONAL_TEXT = (
    "OutputProbeMaskFileName",
    "OutputDonorMaskFileName",
    "ProbeOptOutPixelValue",
    "DonorOptOutPixelValue",
)


@rule("CSV-05", "An empty field is an empty string", severity=Severity.WARNING, requires=("CSV-01",))
def csv_05(ctx: Submission) -> Report:
    """Optional columns are left truly empty, not 'NaN'/'None'/' ' (MediScore reads with na_filter=False:
    such a placeholder names a mask file or a pixel value; MASK/OOPIX report the consequence)."""
    table = ctx.sysout()
    found: list[Finding] = []
    for col in _OPTIONAL_TEXT:
        if not table.has(col):
            continue
        values = table.column(col)
        for pos in ctx.placeholders(col).nonzero()[0]:
            found.append(
                Finding(
                    f"a blank {col} should be an empty field (got a placeholder)",
                    **ctx.loc(int(pos), col, values[pos]),
                )
            )
    return Report(
        found,
        headline=f"{plural(len(found), 'field')} hold{'s' if len(found) == 1 else ''} a placeholder instead of "
        "being empty"
        if found
        else None,
    )


@rule(
    "CSV-06", "Columns follow the plan's order, with no other columns", severity=Severity.WARNING, requires=("CSV-01",)
)
def csv_06(ctx: Submission) -> Report:
    """VRM: "in the specified order ... and no other column"; MediScore checks neither, so a warning.

    Only the layout's required columns are held to the plan's order: the
    optional ones (D-05 segment columns, D-06 ConfidenceScore, D-16) have no
    position in the plans.
    """
    table = ctx.sysout()
    expected = list(ctx.layout.columns)
    named = [c for c in table.header if c.strip()]  # empty names are CSV-02's
    extra = [c for c in named if c not in expected and c.strip() not in expected]
    if table.has("IsOptOut") and ctx.status_name != "IsOptOut":
        extra = [c for c in extra if c != "IsOptOut"]  # COL-04 speaks of it
    found = [
        Finding(
            f"a column should not be there: the plan lists {', '.join(expected)} (got {c!r})",
            file=table.display,
            line=_header_line(ctx),
            column=c,
        )
        for c in extra
    ]
    required = ctx.layout.required
    present = list(dict.fromkeys(c for c in named if c in required))  # duplicates are CSV-02's
    order = [c for c in required if c in present]
    if present != order:
        found.append(
            Finding(
                f"the columns should be in the order {' | '.join(order)} (got {' | '.join(present)})",
                file=table.display,
                line=_header_line(ctx),
            )
        )
    if not found:
        return Report()
    parts = ([f"{plural(len(extra), 'extra column')}"] if extra else []) + (
        ["the columns are out of order"] if present != order else []
    )
    return Report(found, headline=" and ".join(parts))


def _header_line(ctx: Submission) -> int:
    return ctx.sysout().header_line


@rule("CSV-07", "The index file has the extension .csv and is '|'-separated")
def csv_07(ctx: Submission) -> Report:
    """MediScore ENFORCES the .csv extension; an index that is no '|' table or lacks the key columns
    cannot be used by any IDX rule (they are skipped naming CSV-07)."""
    index = ctx.index_file
    res = ctx.index_parse
    found: list[Finding] = []
    head: str | None = None
    if res.table is None:
        assert res.fatal is not None
        found += [f for fs in res.issues.values() for f in fs if f.severity is not Severity.WARNING]
        found = found or [Finding(f"the index must be a '|'-separated table ({res.fatal[1]})", file=index.name)]
        head = res.fatal[1]
    else:
        missing = [c for c in ctx.keys if not res.table.has(c)]
        if missing:
            found.append(
                Finding(
                    f"the index must have the key column(s) {', '.join(ctx.keys)} (missing {', '.join(missing)})",
                    file=index.name,
                    line=1,
                )
            )
            head = ctx.index_lacks(missing)
        bad = [f for rid in ("CSV-01", "CSV-03") for f in res.issues.get(rid, []) if f.severity is not Severity.WARNING]
        if bad:
            found += bad
            head = head or f"the index {index.name} has {plural(len(bad), 'malformed record')}"
    if index.suffix != ".csv":
        found.insert(
            0,
            Finding(
                f"the index file must have the extension .csv (got {index.suffix or 'none'!r})",
                file=index.name,
                expected=".csv",
            ),
        )
        head = head or f"the index {index.name} does not have the extension .csv"
    return Report(found, headline=head)
