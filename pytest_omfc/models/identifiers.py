"""Submission identifier grammars per edition (SUB-01...10, D-01, D-02).

Three grammars, one per edition group (D-01):

* NC2017 and MFC2018: the 7-field EXPID
  ``<TEAM>_<YEAR>_<DATA>_<TASK>_<CONDITION>_<SYS>_<VERSION>`` (NC17 App. A);
* MFC2019: ``<SYS>_<VERSION>_[OPTIONAL]`` (MFC19 App. A);
* OpenMFC: a user-defined string of letters, digits, '-' and '_' (OMFC App. A, D-02).

The pydantic models in :mod:`pytest_omfc.models.documents` document the grammars
(and give ``schemas/``); the functions here are what the SUB rules call, so that
each rule can name the one field that is wrong, without importing pydantic.
"""

from __future__ import annotations

import re

from ..editions import Edition, Task

__all__ = [
    "CONDITIONS",
    "EXPID_FIELDS",
    "SYS_RE",
    "VERSION_RE",
    "MFC19_RE",
    "OPENMFC_RE",
    "YEAR_BY_EDITION",
    "TASK_NAMES",
    "split_expid",
    "split_mfc19",
    "sys_problem",
    "version_problem",
    "mfc19_problem",
    "openmfc_bad_chars",
    "task_matches",
    "expid_task",
    "PACKAGE_FIELDS",
    "package_problem",
]

#: NC17 App. A conditions (SUB-06).
CONDITIONS = ("ImgOnly", "VidOnly", "ImgMeta", "VidMeta")
#: The seven EXPID fields in order (SUB-01).
EXPID_FIELDS = ("TEAM", "YEAR", "DATA", "TASK", "CONDITION", "SYS", "VERSION")
#: ``p-``/``c-`` then alphanumerics (SUB-07).
SYS_RE = re.compile(r"^[pc]-[A-Za-z0-9]+$")
#: an integer >= 1 (SUB-08).
VERSION_RE = re.compile(r"^[1-9][0-9]*$")
#: MFC2019 SubID (SUB-09, D-01).
MFC19_RE = re.compile(r"^[pc]-[A-Za-z0-9]+_[1-9][0-9]*(_.+)?$", re.S)
#: OpenMFC: no spaces or special characters; '-' and '_' allowed (SUB-10, D-02).
OPENMFC_RE = re.compile(r"^[A-Za-z0-9_-]+$")

#: The <YEAR> field each edition's EXPID carries (SUB-03).  NC2016 is MediScore's
#: own test data (``--ncid NC2016``); MFC2018 follows the ValidatorReadMe example.
YEAR_BY_EDITION: dict[Edition, str] = {
    Edition.NC2016: "NC2016",
    Edition.NC2017: "NC17",
    Edition.MFC2018: "MFC18",
}

#: Accepted <TASK> spellings per task (compared case-insensitively, SUB-05).  The
#: first is the plan's name; MediScore's SSD validator requires 'manipulation'
#: for every ``-vt SSD*`` mode, so EV and CAM accept it as well.
TASK_NAMES: dict[Task, tuple[str, ...]] = {
    Task.IMG: ("Manipulation",),
    Task.VID: ("Manipulation",),
    Task.SPL: ("Splice",),
    Task.PF: ("ProvenanceFiltering",),
    Task.PG: ("Provenance",),
    Task.EV: ("EventVerification", "Manipulation"),
    Task.CAM: ("Camera", "CameraVerification", "Manipulation"),
}


# --------------------------------------------------------------------------- parsing


def split_expid(sub_id: str) -> list[str]:
    """The '_'-separated fields of an EXPID (SUB-01 wants exactly 7)."""
    return sub_id.split("_")


def split_mfc19(sub_id: str) -> tuple[str, str | None, str | None]:
    """``(SYS, VERSION, OPTIONAL)`` of an MFC2019 SubID; None where the part is absent."""
    parts = sub_id.split("_", 2)
    return parts[0], parts[1] if len(parts) > 1 else None, parts[2] if len(parts) > 2 else None


def sys_problem(sys: str) -> str | None:
    """Why ``sys`` is not a SysID (SUB-07), or None."""
    if SYS_RE.match(sys):
        return None
    if not sys:
        return "SYS must be 'p-' or 'c-' then letters and digits (got an empty field)"
    if not sys.startswith(("p-", "c-")):
        return f"SYS must begin with 'p-' (primary) or 'c-' (contrastive) (got {sys!r})"
    if len(sys) == 2:
        return f"SYS must name the system after {sys!r} (got nothing after it)"
    bad = _bad_chars(sys[2:], r"[A-Za-z0-9]")
    return f"SYS must be {sys[:2]!r} then letters and digits only (got {sys!r} with {bad})"


def version_problem(version: str | None) -> str | None:
    """Why ``version`` is not an integer >= 1 (SUB-08), or None."""
    if version is None:
        return "VERSION must follow SYS after '_' (got no '_<VERSION>')"
    if VERSION_RE.match(version):
        return None
    if version.isascii() and version.isdigit() and int(version) > 0:
        return f"VERSION must be an integer >= 1 without leading zeros (got {version!r})"
    return f"VERSION must be an integer >= 1 (got {version!r})"


def mfc19_problem(sub_id: str) -> str | None:
    """Why ``sub_id`` does not match ``<SYS>_<VERSION>_[OPTIONAL]`` (SUB-09), or None."""
    if MFC19_RE.match(sub_id):
        return None
    sys, version, optional = split_mfc19(sub_id)
    why = sys_problem(sys) or version_problem(version)
    if why is None and optional == "":
        why = "OPTIONAL is empty, so the '_' after VERSION must be omitted"
    if why is None:  # only a control character can get here (MFC19_RE uses re.S)
        why = "it has characters the grammar does not allow"
    return f"the SubID must be <SYS>_<VERSION>_[OPTIONAL], e.g. p-baseline_3_splice: {why}"


def openmfc_bad_chars(sub_id: str) -> str | None:
    """The characters outside ``[A-Za-z0-9_-]`` (SUB-10, D-02), described; None when there are none."""
    if OPENMFC_RE.match(sub_id):
        return None
    return _bad_chars(sub_id, r"[A-Za-z0-9_-]")


#: The fields of an NC2017 package folder ``<TEAM>_<YEAR>_<DATA>_<SUBNUM>`` (NC17 A-b, PKG-07).
PACKAGE_FIELDS = ("TEAM", "YEAR", "DATA", "SUBNUM")


def expid_task(expid: str) -> Task | None:
    """The task an EXPID names (its <TASK> field; ``Manipulation`` under a ``Vid*`` <CONDITION> is the video
    task), or None when the name is no 7-field EXPID or names no task: what a package's EXPID is checked as."""
    fields = split_expid(expid)
    if len(fields) != len(EXPID_FIELDS):
        return None
    task, condition = fields[3].lower(), fields[4].lower()
    if task == "manipulation":
        return Task.VID if condition.startswith("vid") else Task.IMG
    return {"splice": Task.SPL, "provenancefiltering": Task.PF, "provenance": Task.PG}.get(task)


def package_problem(name: str) -> str | None:
    """Why ``name`` is not an NC2017 package name ``<TEAM>_<YEAR>_<DATA>_<SUBNUM>`` (PKG-07), or None."""
    fields = name.split("_")
    if len(fields) != len(PACKAGE_FIELDS):
        return (
            f"the package folder must be named <TEAM>_<YEAR>_<DATA>_<SUBNUM>, e.g. NIST_NC17_DRYRUN17_5 "
            f"(got {name!r}: {len(fields)} '_'-separated fields, not 4)"
        )
    empty = [f for f, v in zip(PACKAGE_FIELDS, fields, strict=True) if not v]
    if empty:
        return f"the package name {name!r} has an empty {empty[0]} field"
    if not VERSION_RE.match(fields[3]):
        return f"SUBNUM, the submission number, must be an integer >= 1 (got {fields[3]!r} in {name!r})"
    return None


def task_matches(field: str, task: Task) -> bool:
    """SUB-05: <TASK> names the index's task, case-insensitively as MediScore compares."""
    return field.lower() in {n.lower() for n in TASK_NAMES[task]}


def _bad_chars(text: str, allowed: str) -> str:
    ok = re.compile(allowed)
    bad = []
    for ch in text:
        if not (ch.isascii() and ok.fullmatch(ch)) and ch not in bad:
            bad.append(ch)
    names = [_char_name(c) for c in bad]
    return ("character " if len(names) == 1 else "characters ") + ", ".join(names)


def _char_name(ch: str) -> str:
    if ch == " ":
        return "a space"
    if ch == "\t":
        return "a tab"
    if not ch.isprintable():
        return f"U+{ord(ch):04X}"
    return repr(ch)
