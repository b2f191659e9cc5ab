"""IDX — one-to-one correspondence with the index (RULES.md 2.6, D-07, D-28).

Keys are the composite trial keys of IDX-01, compared as exact strings
(``0042`` is not ``42``: B-12).  Missing, extra and duplicated keys are all
fatal here, unlike MediScore (B-01, B-02).
"""

from __future__ import annotations

from ..findings import Finding
from ..findings import Report
from ..registry import not_checked
from ..registry import rule
from ..submission import Submission

_REQ = ("CSV-01",)



@rule("IDX-01", "Trial keys match the index exactly (no stray white space)", requires=_REQ)
def idx_01(ctx: Submission) -> Report:
    sys_keys = ctx.sys_keys
    index_set = set(ctx.index_keys)
    found = []
    stripped = sys_keys.str.strip()
    for pos in ((stripped != sys_keys) | (sys_keys == "")).to_numpy().nonzero()[0]:
        raw = sys_keys.iloc[pos]
        hint = " (it matches the index once stripped)" if raw.strip() in index_set else ""
        if raw == "":
            msg = "the trial key must not be empty"
        else:
            msg = f"the trial key must match the index exactly (got surrounding white space{hint})"
        found.append(Finding(msg, **ctx.loc(int(pos), "+".join(ctx.keys), raw)))
    return Report(found, headline=f"{len(found)} trial key(s) are not exact" if found else None)


@rule("IDX-02", "The number of data rows equals the index", requires=_REQ)
def idx_02(ctx: Submission) -> Report:
    n_sys, n_idx = len(ctx.sysout()), len(ctx.index())
    if n_sys == n_idx:
        return Report()
    f = Finding(f"the system output must have {n_idx} data rows like the index (got {n_sys})", file=ctx.sysout().display)
    return Report([f], headline=f"{n_sys} data rows, the index has {n_idx}")


@rule("IDX-03", "Every system trial exists in the index (no extra trials)", requires=_REQ)
def idx_03(ctx: Submission) -> Report:
    index_set = set(ctx.index_keys)
    extra = ~ctx.sys_keys.isin(index_set)
    found = [Finding("the trial must exist in the index (it does not)", **ctx.loc(int(pos), "+".join(ctx.keys), ctx.sys_keys.iloc[pos]))
             for pos in extra.to_numpy().nonzero()[0]]
    if not found:
        return Report()
    return Report(found, headline=f"{len(found)} of {len(ctx.sys_keys)} system trials do not exist in the index")


@rule("IDX-04", "Every index trial appears in the system output (no missing trials)", requires=_REQ)
def idx_04(ctx: Submission) -> Report:
    missing = _missing(ctx)
    if not missing:
        return Report()
    return Report(missing, headline=f"{len(missing)} of {len(ctx.index_keys)} trials are missing from the system output")


def _missing(ctx: Submission) -> list[Finding]:
    sys_set = set(ctx.sys_keys)
    index = ctx.index()
    gone = ~ctx.index_keys.isin(sys_set)
    return [Finding("the index trial must appear in the system output (it does not)",
                    file=index.display, line=index.line_of(int(pos)), key=ctx.index_keys.iloc[pos])
            for pos in gone.to_numpy().nonzero()[0]]


def _duplicates(ctx: Submission) -> list[Finding]:
    keys = ctx.sys_keys
    dup = keys.duplicated(keep="first")
    first_line = {}
    table = ctx.sysout()
    for pos, k in enumerate(keys):
        first_line.setdefault(k, table.line_of(pos))
    return [Finding(f"the trial key must appear once (also on line {first_line[keys.iloc[pos]]})",
                    **ctx.loc(int(pos), "+".join(ctx.keys), keys.iloc[pos]))
            for pos in dup.to_numpy().nonzero()[0]]


@rule("IDX-05", "No duplicate rows or trial keys", requires=_REQ)
def idx_05(ctx: Submission) -> Report:
    found = _duplicates(ctx)
    if not found:
        return Report()
    return Report(found, headline=f"{len(found)} row(s) repeat a trial key")


@rule("IDX-06", "One-to-one correspondence: system trial keys equal the index keys, each once", requires=_REQ)
def idx_06(ctx: Submission) -> Report:
    missing = _missing(ctx)
    index_set = set(ctx.index_keys)
    extra_pos = (~ctx.sys_keys.isin(index_set)).to_numpy().nonzero()[0]
    extra = [Finding("the trial must exist in the index (it does not)", **ctx.loc(int(p), "+".join(ctx.keys), ctx.sys_keys.iloc[p]))
             for p in extra_pos]
    dups = _duplicates(ctx)
    parts = [(len(missing), f"{len(missing)} of {len(ctx.index_keys)} trials are missing from the system output"),
             (len(extra), f"{len(extra)} system trials are not in the index"),
             (len(dups), f"{len(dups)} trial keys are repeated")]
    present = [text for n, text in parts if n]
    if not present:
        return Report()
    head = present[0] if len(present) == 1 else "the system output does not match the index one-to-one: " + "; ".join(present)
    return Report(missing + extra + dups, headline=head)


not_checked("IDX-07", "(MediScore option) -xF/--indexFilter validates against a subset index",
            "a MediScore command-line option, not a rule of the submission")
not_checked("IDX-08", "(MediScore option) -r restricts mask and status checks to target rows",
            "a MediScore command-line option, not a rule of the submission; pytest-omfc checks every row")
