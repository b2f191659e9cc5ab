"""PKG — the layout of the submission directory (docs/rules/pkg.md).

PKG-01...03 name the two files every submission holds; PKG-07 (NC2017),
PKG-08 (MFC2019) and PKG-09 (OpenMFC, and MFC2018 which has no plan) share
one check of the whole directory.  Where masks, HDF5 and JSON files live is
PKG-04...06's (the MASK, VMASK and PROV modules).  Nothing here opens a file.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..archive import is_junk
from ..editions import Group, Task
from ..findings import Finding, Report, Severity, Unavailable, plural
from ..models.identifiers import package_problem
from ..package import Package
from ..paths import not_regular, resolve_inside
from ..registry import ALL_GROUPS, ALL_TASKS, rule
from ..submission import Submission

N17, M18, M19, O2X = Group.N17, Group.M18, Group.M19, Group.O2X

#: Columns whose non-blank values name a mask under mask/ (PKG-04, PKG-05).
MASK_COLUMNS = ("OutputProbeMaskFileName", "OutputDonorMaskFileName")
#: Provenance output lives in jsons/ by convention (PKG-06, PVRM).
JSON_DIR = "jsons"
#: Files that may be a misnamed description (named in PKG-03's message).
_DOC_SUFFIXES = (".txt", ".md", ".pdf", ".doc", ".docx", ".rtf")


def _csv_path(ctx: Submission) -> Path:
    path = ctx.sysout_path
    if path is None:
        raise Unavailable("CSV-08", f"no system output {ctx.sub_id}/{ctx.sub_id}.csv")
    return path


@rule("PKG-01", "The system output is <ID>/<ID>.csv: its name is the directory's")
def pkg_01(ctx: Submission) -> Report:
    """NC17 §5.1.1, MFC19 §5.1.1, OMFC §5.1 ("must follow the naming convention
    <SubID>/<SubID>.csv"); MediScore enforces it under ``-nc``.  A symlink that leaves the
    submission is not ``<ID>/<ID>.csv``: it fails here, as an unsafe reference does (D-24),
    and the file it points to is never opened (the CSV rules are skipped naming PKG-01)."""
    path = _csv_path(ctx)
    if ctx.sysout_unsafe:
        f = Finding(f"the system output {ctx.sysout_unsafe}", file=ctx.display(path))
        return Report([f], headline=f"the system output {path.name} points outside the submission")
    if path.stem == ctx.sub_id:
        return Report()
    f = Finding(
        f"the system output must be named after its directory, {ctx.sub_id}.csv (got {path.name})",
        file=ctx.display(path),
    )
    return Report([f], headline=f"the system output {path.name} is not named after its directory {ctx.sub_id}/")


@rule("PKG-02", "The system output has the extension .csv")
def pkg_02(ctx: Submission) -> Report:
    """Same sources; MediScore compares the extension exactly (``csv``, case-sensitive)."""
    path = _csv_path(ctx)
    if path.suffix == ".csv":
        return Report()
    got = repr(path.suffix) if path.suffix else "no extension"
    msg = f"the system output must have the extension '.csv' (got {got})"
    f = Finding(msg, file=ctx.display(path), expected=".csv")
    return Report([f], headline=f"the system output {path.name} does not end in .csv")


@rule("PKG-03", "The system description <ID>/<ID>.txt is present")
def pkg_03(ctx: Submission) -> Report:
    """NC17, MFC19 and OMFC A-b: every submission holds its description (an error: the plans
    make it part of the package; MediScore does not look)."""
    path = ctx.description_path
    _, unsafe = resolve_inside(ctx.dir, path.name)
    if unsafe and path.is_symlink():
        f = Finding(f"the system description {unsafe}", file=ctx.display(path))
        return Report([f], headline=f"the system description {path.name} points outside the submission")
    kind = not_regular(path)  # stat only: a FIFO is never opened
    if kind is None:
        return Report()
    if kind != "no such file":
        got = f"{kind}, not a regular file"
    else:
        try:
            others = sorted(p.name for p in ctx.dir.iterdir() if p.is_file() and p.suffix.lower() in _DOC_SUFFIXES)
        except OSError:
            others = []
        got = f"no such file; the directory has {', '.join(others)}" if others else "no such file"
    f = Finding(f"the system description must be the text file {path.name} (got {got})", file=ctx.display(path))
    state = "is missing" if kind == "no such file" else "is not a regular file"
    return Report([f], headline=f"the system description {path.name} {state}")


# --------------------------------------------------------------------------- the whole directory


def _mask_rows(ctx: Submission) -> tuple[int, str | None]:
    """How many rows name a mask, and the first reference; (0, None) when the CSV is unusable."""
    try:
        table = ctx.sysout()
    except Unavailable:
        return 0, None
    cols = [c for c in MASK_COLUMNS if table.has(c)]
    if not cols:
        return 0, None
    named = {c: ctx.stripped(c) != "" for c in cols}
    rows = np.logical_or.reduce(list(named.values())).nonzero()[0]
    if not len(rows):
        return 0, None
    pos = int(rows[0])
    col = next(c for c in cols if named[c][pos])
    return len(rows), f"line {table.line_of(pos)} {col}={table.column(col)[pos]!r}"


def _referenced_tops(ctx: Submission) -> set[str]:
    """Top-level entries the provenance output names (PKG-06: JSONs may live anywhere inside)."""
    if ctx.task not in (Task.PF, Task.PG) or not ctx.has_column("ProvenanceOutputFileName"):
        return set()
    refs = (ref.strip().replace("\\", "/") for ref in ctx.column("ProvenanceOutputFileName").tolist())
    return {ref.lstrip("./").split("/")[0] for ref in refs if ref}


def _layout(ctx: Submission) -> Report:
    """The directory holds <ID>.csv, <ID>.txt and mask/ (mask/ needed only when a row names a
    mask; jsons/ and referenced JSON folders allowed for provenance).  Anything else at the top
    is a warning: NIST unpacks the directory as it is, and stray files travel with it."""
    sid = ctx.sub_id
    csv_name, txt_name = f"{sid}.csv", f"{sid}.txt"
    where = f"{sid}/"
    errors: list[Finding] = []
    parts: list[tuple[str, str]] = []  # (short phrase, sentence)
    for name, what in ((csv_name, "system output"), (txt_name, "system description")):
        kind = not_regular(ctx.dir / name)
        if kind == "no such file":
            errors.append(Finding(f"the directory must hold the {what} {name} (got no such file)", file=where))
            parts.append((f"{name} is missing", f"{name} is missing from {where}"))
        elif kind is not None:
            errors.append(Finding(f"the {what} {name} must be a regular file (got {kind})", file=where))
            parts.append((f"{name} is not a regular file", f"{name} in {where} is not a regular file"))
    mask_dir = ctx.dir / "mask"
    n_rows, first = _mask_rows(ctx)
    if n_rows and not mask_dir.is_dir():
        got = "a file named mask" if mask_dir.exists() else "no mask/ directory"
        rows = f"{plural(n_rows, 'row')} name{'s' if n_rows == 1 else ''} a mask"
        errors.append(Finding(f"the directory must hold mask/ since {rows}, e.g. {first} (got {got})", file=where))
        parts.append((f"no mask/ directory though {rows}", f"{where} has no mask/ directory but {rows}"))
    allowed = {csv_name, txt_name, "mask"}
    expected = f"{csv_name}, {txt_name} and mask/"
    if ctx.task in (Task.PF, Task.PG):
        allowed |= {JSON_DIR} | _referenced_tops(ctx)
        expected = f"{csv_name}, {txt_name}, mask/ and the JSON directory {JSON_DIR}/"
    try:
        entries = sorted(ctx.dir.iterdir(), key=lambda p: p.name)
    except OSError as exc:
        raise Unavailable("CSV-08", f"the directory {where} cannot be listed: {exc.strerror or exc}") from None
    extra = [p for p in entries if p.name not in allowed]
    warnings = [
        Finding(
            f"the directory should hold only {expected} (got the {'directory' if p.is_dir() else 'file'} {p.name!r})",
            file=where,
            severity=Severity.WARNING,
        )
        for p in extra
    ]
    if extra:
        n = f"{len(extra)} unexpected entr{'y' if len(extra) == 1 else 'ies'}"
        parts.append((n, f"{where} holds {n}"))
    if not parts:
        return Report()
    if len(parts) == 1:
        head = parts[0][1]
    else:
        head = f"{where} does not have the plan's layout: " + "; ".join(short for short, _ in parts)
    return Report(errors + warnings, headline=head)


# NC2017 A-b/A-c also prescribe the enclosing <TEAM>_<YEAR>_<DATA>_<SUBNUM>/ folder (PKG-10, when the
# package is what is checked), the .tgz named as D-13 resolves (ARC-02, for an upload), the FTP upload and
# the e-mail with the md5 (not checkable).
rule("PKG-07", "NC2017: <EXPID>/ holds <EXPID>.txt, <EXPID>.csv and mask/", groups={N17})(_layout)
# MFC2019 A-b: the same content; transmission is not specified.
rule("PKG-08", "MFC2019: <SubID>/ holds <SubID>.txt, <SubID>.csv and mask/", groups={M19})(_layout)
# OMFC A-b/A-c: the same content; the tar file, its public URL and the web form are not checkable.
# MFC2018 has no plan (MS-only): it follows the same layout.
rule(
    "PKG-09",
    "OpenMFC (and MFC2018): <SubID>/ holds <SubID>.txt, <SubID>.csv and mask/ (tar and upload not checkable)",
    groups={O2X, M18},
    tasks=ALL_TASKS,
)(_layout)


@rule(
    "PKG-10",
    "NC2017: the package <TEAM>_<YEAR>_<DATA>_<SUBNUM>/ holds EXPID folders, each checked",
    groups=ALL_GROUPS,
    package_only=True,
)
def pkg_10(ctx: Package) -> Report:
    """NC17 A-b ("all system output submissions must be formatted according to the following directory
    structure: <TEAM>_<YEAR>_<DATA>_<SUBNUM>/<EXPID>/...") and A-c ("a submission file can contain
    multiple EXPIDs").  Collected only for a package: a folder with no system output of its own and
    EXPID folders inside.  Every entry that is not checked as an EXPID is an error naming why (clutter
    such as ``.DS_Store`` a warning, as ARC-05); an EXPID whose TEAM, YEAR and DATA differ from the
    package's a warning (the plan composes the package name from them and the submission number).
    Another edition's plan has one ``<SubID>/`` per submission: a package there is an error."""
    name = ctx.sub_id
    where = f"{name}/"
    found: list[Finding] = []
    if ctx.group is not N17:
        found.append(
            Finding(
                f"only NC2017 packs several EXPID folders in one package folder; {ctx.edition.value} takes one "
                f"<SubID>/ per submission: check each folder by itself (got {plural(len(ctx.expids), 'EXPID')})",
                file=where,
            )
        )
    why = package_problem(name)
    if why is not None:
        found.append(Finding(why, file=where, value=name))
    for entry, reason in ctx.settings.unchecked:
        junk = is_junk(entry)
        found.append(
            Finding(
                f"{entry!r} is left out: {reason}" if junk else f"{entry!r} is not checked: {reason}",
                file=f"{where}{entry}",
                severity=Severity.WARNING if junk else None,
            )
        )
    prefix = name.split("_")[:3]
    if why is None:
        for expid in ctx.expids:
            fields = expid.split("_")
            if len(fields) == 7 and fields[:3] != prefix:
                found.append(
                    Finding(
                        f"the EXPID's <TEAM>_<YEAR>_<DATA> should be the package's {'_'.join(prefix)} "
                        f"(got {'_'.join(fields[:3])})",
                        file=f"{where}{expid}/",
                        severity=Severity.WARNING,
                    )
                )
    errors = [f for f in found if f.severity is None]
    if not errors:
        return Report(found, headline=None)
    return Report(
        found, headline=f"the package {where} does not have the NC2017 layout: {plural(len(errors), 'error')}"
    )
