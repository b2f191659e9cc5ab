"""ARC: the uploaded archive itself (collected only when ``--omfc-submission`` names an archive).

The plans say how to pack a submission: OpenMFC ``tar cvf <SubID>.tar <SubID>`` (A-c), MFC2019 and
MFC2018 a ``<SubID>/`` folder (transmission unspecified), NC2017 ``<TEAM>_<YEAR>_<DATA>_<SUBNUM>.tgz``
holding EXPID folders (A-b, A-c; the tgz name over the ftp step's ``<EXPID>.tgz``, D-13).  A portal
unpacks what is uploaded; these rules say, before it does, what would go wrong.  The archive is read
once (:func:`pytest_omfc.archive.unpack`); each rule reports its share of what that pass found.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePosixPath

from ..archive import ArchiveProblem, ArchiveReport, archive_stem
from ..editions import NIST_GROUPS, Group
from ..findings import Finding, Report, Severity, plural
from ..package import Package
from ..registry import rule
from ..submission import Checked, NotApplicable

__all__: list[str] = []


def _report(ctx: Checked) -> ArchiveReport:
    report = ctx.settings.archive
    if report is None:  # collected only for archives; kept for the fixture's direct calls
        raise NotApplicable("the submission is a directory, not an archive")
    return report


def _findings(report: ArchiveReport, problems: list[ArchiveProblem]) -> list[Finding]:
    return [
        Finding(
            f"{p.member!r} {p.message}" if p.member else f"the archive {p.message}",
            file=f"{report.archive}:{p.member}" if p.member else report.archive,
            severity=Severity.WARNING if p.warning else None,
        )
        for p in problems
    ]


def _simple(ctx: Checked, rule_id: str, headline: Callable[[ArchiveReport, int], str]) -> Report:
    """The rule's share of what unpacking found, with its headline for ``n`` problems."""
    report = _report(ctx)
    problems = report.of(rule_id)
    return Report(_findings(report, problems), headline=headline(report, len(problems)) if problems else None)


@rule("ARC-01", "The upload is a complete, readable tar archive", groups=NIST_GROUPS, archive_only=True)
def arc_01(ctx: Checked) -> Report:
    """A zip, a truncated gzip or a corrupt tar header: what was read before stays checked by the others."""
    return _simple(ctx, "ARC-01", lambda report, n: f"{report.archive} cannot be read")


@rule("ARC-02", "The archive holds one folder named after the submission", groups=NIST_GROUPS, archive_only=True)
def arc_02(ctx: Checked) -> Report:
    """OpenMFC, MFC2019, MFC2018: ``<SubID>/`` at the top and nothing beside it (``tar cvf <SubID>.tar
    <SubID>``); packed from inside the folder, or with a ``home/user/...`` prefix, a portal finds no
    submission.  OpenMFC also names the archive ``<SubID>.tar`` (A-c): a warning otherwise."""
    report = _report(ctx)
    if report.of("ARC-01") and not report.tops:
        raise NotApplicable("nothing could be read from the archive (ARC-01)")
    found: list[Finding] = []
    where = report.archive
    tops = list(report.tops)
    folder = ctx.sub_id
    try:
        rel = PurePosixPath(ctx.dir.relative_to(report.root).as_posix())
    except ValueError:
        rel = PurePosixPath(folder)
    if tops != [folder] or len(rel.parts) != 1:
        if not tops:
            got = "nothing"
        elif len(rel.parts) > 1:
            got = f"it under the prefix {rel.parent}/"
        elif folder not in tops:
            got = "the submission's files with no folder above them: packed from inside the folder"
        else:
            shown = ", ".join(repr(t) for t in tops[:5]) + (f" and {len(tops) - 5} more" if len(tops) > 5 else "")
            got = f"{plural(len(tops), 'entry', 'entries')} at the top: {shown}"
        found.append(
            Finding(
                f"the archive must hold one folder {folder}/ at its top (got {got}); pack the folder itself from "
                f"its parent: tar cvf {folder}.tar {folder}",
                file=where,
            )
        )
    if ctx.group is Group.N17 and not isinstance(ctx, Package):
        fields = folder.split("_")  # the package name from the EXPID's <TEAM>_<YEAR>_<DATA> and SUBNUM 1
        package = "_".join(fields[:3] if len(fields) == 7 else ["TEAM", "NC17", "DATA"]) + "_1"
        found.append(
            Finding(
                f"the NC2017 plan packs EXPID folders inside a package folder <TEAM>_<YEAR>_<DATA>_<SUBNUM>/ "
                f"(got the EXPID {folder}/ at the top); e.g. mkdir {package}; mv {folder} "
                f"{package}/; tar -cvf - ./{package} | gzip > {package}.tgz",
                file=where,
            )
        )
    if ctx.group is Group.N17 and isinstance(ctx, Package) and archive_stem(report.archive) != folder:
        found.append(
            Finding(
                f"the archive should be named {folder}.tgz as the plan's tar -cvf - ./{folder} | gzip > "
                f"{folder}.tgz makes it (got {report.archive})",
                file=where,
                severity=Severity.WARNING,
            )
        )
    if ctx.group is Group.O2X:
        if archive_stem(report.archive) != folder:
            found.append(
                Finding(
                    f"the archive should be named {folder}.tar as the plan's tar cvf {folder}.tar {folder} makes it "
                    f"(got {report.archive})",
                    file=where,
                    severity=Severity.WARNING,
                )
            )
    errors = [f for f in found if f.severity is None]
    return Report(found, headline=f"{report.archive} is not packed as the plan says" if errors else None)


@rule(
    "ARC-03",
    "No member is a link, a device, a FIFO or a name outside the submission",
    groups=NIST_GROUPS,
    archive_only=True,
)
def arc_03(ctx: Checked) -> Report:
    """Absolute names, ``..``, symbolic and hard links, devices, FIFOs, names a file system cannot hold:
    a portal's ``tar xf`` would write outside its directory, hang on a FIFO or follow a link to
    ``/etc/passwd``.  Never followed and never unpacked here."""
    return _simple(ctx, "ARC-03", lambda report, n: plural(n, "unsafe member"))


@rule(
    "ARC-04", "No member is given twice, also on a case-insensitive file system", groups=NIST_GROUPS, archive_only=True
)
def arc_04(ctx: Checked) -> Report:
    """A repeated name, or ``mask/A.png`` beside ``mask/a.png``: unpacked on macOS or Windows, one file
    silently replaces the other."""
    return _simple(ctx, "ARC-04", lambda report, n: plural(n, "repeated member"))


@rule(
    "ARC-05",
    "No operating-system clutter (__MACOSX/, ._*, .DS_Store, Thumbs.db)",
    groups=NIST_GROUPS,
    severity=Severity.WARNING,
    archive_only=True,
)
def arc_05(ctx: Checked) -> Report:
    """macOS's Archive Utility and Finder, Windows' Explorer add files no plan asks for; they are left out."""
    return _simple(ctx, "ARC-05", lambda report, n: plural(n, "clutter member"))


@rule(
    "ARC-06",
    "The archive stays within the limits on members, unpacked size and expansion",
    groups=NIST_GROUPS,
    archive_only=True,
)
def arc_06(ctx: Checked) -> Report:
    """A compression bomb or a million empty members must not take a portal's disk or time; the limits
    are options (``--omfc-archive-max-entries``, ``-bytes``, ``-ratio``) and each finding names its own."""
    return _simple(ctx, "ARC-06", lambda report, n: f"{report.archive} exceeds a limit: unpacking stopped")


@rule("ARC-07", "No archive inside the archive", groups=NIST_GROUPS, archive_only=True)
def arc_07(ctx: Checked) -> Report:
    """The plans pack the submission folder once; a nested archive hides its members from every check."""
    return _simple(ctx, "ARC-07", lambda report, n: plural(n, "nested archive"))
