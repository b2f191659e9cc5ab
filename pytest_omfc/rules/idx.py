"""IDX — one-to-one correspondence with the index (docs/rules/idx.md, D-07, D-28).

Keys are the composite trial keys of IDX-01 (D-28), compared as exact strings
(``0042`` is not ``42``: B-12).  Missing, extra and duplicated keys are all
errors here, unlike MediScore (B-01: SSD's missing-key message never fails;
B-02: DSD has no duplicate check; D-07: enforce set equality plus uniqueness).
IDX-07 and IDX-08 are MediScore options, not rules of a submission.
"""

from __future__ import annotations

import numpy as np

from .. import arrays
from ..findings import Finding, Report, count_is, plural
from ..registry import not_checked, rule
from ..submission import Submission

_REQ = ("CSV-01",)


def _key_label(ctx: Submission) -> str:
    return "+".join(ctx.keys)


@rule("IDX-01", "Trial keys match the index exactly (no stray white space)", requires=_REQ)
def idx_01(ctx: Submission) -> Report:
    """Every key column holds an exact, non-empty value; keys are strings (B-12: '0042' stays '0042')."""
    table = ctx.sysout()
    ctx.sys_keys  # noqa: B018  (Unavailable naming the COL rule when a key column is absent)
    found: list[tuple[int, Finding]] = []
    for col in ctx.keys:
        values = table.column(col)
        stripped = ctx.stripped(col)
        for pos in ((stripped != values) | (stripped == "")).nonzero()[0]:
            raw = values[pos]
            if raw.strip() == "":
                msg = f"{col} must not be empty"
            else:
                known = raw.strip() in _index_values(ctx, col)
                hint = "; it matches the index once stripped" if known else ""
                msg = f"{col} must match the index exactly (got surrounding white space{hint})"
            found.append((int(pos), Finding(msg, **ctx.loc(int(pos), col, raw))))
    found.sort(key=lambda pf: pf[0])
    return Report([f for _, f in found], headline=f"{count_is(len(found), 'trial key')} not exact" if found else None)


def _index_values(ctx: Submission, col: str) -> frozenset[str]:
    """The values of an index key column (stripped, as the index is read), once per index file and column."""
    return ctx.index_memo(("values", col), lambda: frozenset(ctx.index().column(col).tolist()))


@rule("IDX-02", "The number of data rows equals the index", requires=_REQ)
def idx_02(ctx: Submission) -> Report:
    """Counts exclude the header (SSD counts it, PV does not; the verdict is the same)."""
    n_sys, n_idx = len(ctx.sysout()), len(ctx.index())
    if n_sys == n_idx:
        return Report()
    f = Finding(
        f"the system output must have {plural(n_idx, 'data row')} like the index (got {n_sys})",
        file=ctx.sysout().display,
    )
    return Report([f], headline=f"{plural(n_sys, 'data row')}, the index has {n_idx}")


def _extra(ctx: Submission) -> list[Finding]:
    extra = ~arrays.isin(ctx.sys_keys, ctx.index_key_set)
    return [
        Finding(
            "the trial must exist in the index (it does not)",
            **ctx.loc(int(pos), _key_label(ctx), ctx.sys_keys[pos]),
        )
        for pos in extra.nonzero()[0]
    ]


@rule("IDX-03", "Every system trial exists in the index (no extra trials)", requires=_REQ)
def idx_03(ctx: Submission) -> Report:
    """MediScore ENFORCES it in every validator."""
    found = _extra(ctx)
    if not found:
        return Report()
    n = len(found)
    return Report(
        found, headline=f"{n} of {len(ctx.sys_keys)} system trials {'does' if n == 1 else 'do'} not exist in the index"
    )


def _missing(ctx: Submission) -> list[Finding]:
    index = ctx.index()
    gone = ~arrays.isin(ctx.index_keys, set(ctx.sys_keys.tolist()))
    return [
        Finding(
            "the index trial must appear in the system output (it does not)",
            file=index.display,
            line=index.line_of(int(pos)),
            key=ctx.index_keys[pos],
        )
        for pos in gone.nonzero()[0]
    ]


def _missing_headline(n: int, total: int) -> str:
    return f"{n} of {total} trials {'is' if n == 1 else 'are'} missing from the system output"


@rule("IDX-04", "Every index trial appears in the system output (no missing trials)", requires=_REQ)
def idx_04(ctx: Submission) -> Report:
    """An error, although SSD's message never fails the run (B-01, D-07)."""
    missing = _missing(ctx)
    if not missing:
        return Report()
    return Report(missing, headline=_missing_headline(len(missing), len(ctx.index_keys)))


def _duplicates(ctx: Submission) -> list[Finding]:
    """Every repeat of a trial key after its first row, noting whole repeated rows."""
    keys = ctx.sys_keys
    first_pos = arrays.first_positions(keys)
    dup = first_pos != np.arange(len(keys))
    if not dup.any():
        return []
    table = ctx.sysout()
    same_row = arrays.duplicated(list(zip(*(c.tolist() for c in table.columns.values()), strict=True)))
    found = []
    for pos in dup.nonzero()[0]:
        also = table.line_of(int(first_pos[pos]))
        what = "the whole row is repeated" if same_row[pos] else "with different values"
        found.append(
            Finding(
                f"the trial key must appear once (got it again, {what}; first on line {also})",
                **ctx.loc(int(pos), _key_label(ctx), keys[pos]),
            )
        )
    return found


@rule("IDX-05", "No duplicate rows or trial keys", requires=_REQ)
def idx_05(ctx: Submission) -> Report:
    """Repeated keys with different values too (MediScore finds only identical rows, and DSD none: B-02)."""
    found = _duplicates(ctx)
    if not found:
        return Report()
    n = len(found)
    return Report(found, headline=f"{plural(n, 'row')} repeat{'s' if n == 1 else ''} a trial key")


@rule("IDX-06", "One-to-one correspondence: system trial keys equal the index keys, each once", requires=_REQ)
def idx_06(ctx: Submission) -> Report:
    """Set equality plus uniqueness of the composite keys (D-07, D-28); row order is free."""
    missing, extra, dups = _missing(ctx), _extra(ctx), _duplicates(ctx)
    parts = [
        (len(missing), _missing_headline(len(missing), len(ctx.index_keys))),
        (len(extra), f"{count_is(len(extra), 'system trial')} not in the index"),
        (len(dups), f"{count_is(len(dups), 'trial key')} repeated"),
    ]
    present = [text for n, text in parts if n]
    if not present:
        return Report()
    head = (
        present[0]
        if len(present) == 1
        else "the system output does not match the index one-to-one: " + "; ".join(present)
    )
    return Report(missing + extra + dups, headline=head)


not_checked(
    "IDX-07",
    "(MediScore option) -xF/--indexFilter validates against a subset index",
    "a MediScore command-line option, not a rule of the submission",
)
not_checked(
    "IDX-08",
    "(MediScore option) -r restricts mask and status checks to target rows",
    "a MediScore command-line option, not a rule of the submission; pytest-omfc checks every row",
)
