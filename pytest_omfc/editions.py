"""Editions, tasks and how to infer them from an index file.

The rule reference speaks of edition groups (``N17``, ``M18``, ``M19``, ``O2x``) and task
codes (``IMG``, ``VID``, ``SPL``, ``PF``, ``PG``, ``EV``, ``CAM``); the index
files and the command line speak of edition names and TaskIDs.  This module is
the one place that maps between the two.
"""

from __future__ import annotations

import enum
import re
from pathlib import Path

__all__ = [
    "Edition",
    "Group",
    "Task",
    "TASK_IDS",
    "FORGERYNET_CLASSES",
    "FORGERYNET_TASKS",
    "NIST_GROUPS",
    "NIST_TASKS",
    "EditionTaskError",
    "parse_edition",
    "parse_task",
    "infer_from_index_name",
]


class EditionTaskError(ValueError):
    """An edition or task name that cannot be understood."""


class Group(str, enum.Enum):
    """Edition groups of docs/rules/index.md (NC2016 follows NC2017)."""

    N17 = "N17"
    M18 = "M18"
    M19 = "M19"
    O2X = "O2x"
    FNET = "FNET"  # ForgeryNet-style benchmarks: no NIST edition group, its own FNET rules


class Edition(str, enum.Enum):
    NC2016 = "NC2016"
    NC2017 = "NC2017"
    MFC2018 = "MFC2018"
    MFC2019 = "MFC2019"
    OpenMFC2020 = "OpenMFC2020"
    OpenMFC2021 = "OpenMFC2021"
    ForgeryNet = "ForgeryNet"

    @property
    def group(self) -> Group:
        return _GROUP[self]


_GROUP = {
    Edition.NC2016: Group.N17,
    Edition.NC2017: Group.N17,
    Edition.MFC2018: Group.M18,
    Edition.MFC2019: Group.M19,
    Edition.OpenMFC2020: Group.O2X,
    Edition.OpenMFC2021: Group.O2X,
    Edition.ForgeryNet: Group.FNET,
}


class Task(str, enum.Enum):
    """Task codes of docs/rules/index.md."""

    IMG = "IMG"
    VID = "VID"
    SPL = "SPL"
    PF = "PF"
    PG = "PG"
    EV = "EV"
    CAM = "CAM"
    # ForgeryNet tasks; the value is the name given to --omfc-task
    FIC = "image-classification"
    FSL = "spatial"
    FVC = "video-classification"
    FTL = "temporal"


#: The NIST edition groups and tasks (a rule's default scope: "all" in the rule reference means these).
NIST_GROUPS: frozenset[Group] = frozenset(g for g in Group if g is not Group.FNET)
FORGERYNET_TASKS: frozenset[Task] = frozenset({Task.FIC, Task.FSL, Task.FVC, Task.FTL})
#: ``--omfc-classes`` per classification task (docs/scoring/forgerynet.md#classification-metrics: 16-way images, 9-way
# videos); 2 is the default.
FORGERYNET_CLASSES: dict[Task, tuple[int, ...]] = {Task.FIC: (2, 3, 16), Task.FVC: (2, 3, 9)}
NIST_TASKS: frozenset[Task] = frozenset(t for t in Task if t not in FORGERYNET_TASKS)


#: TaskIDs accepted on the command line and in index names (lower case).
TASK_IDS: dict[str, Task] = {
    "imdl": Task.IMG,
    "igmdl": Task.IMG,
    "vmd": Task.VID,
    "vgmd": Task.VID,
    "manipulation": Task.IMG,
    "manipulation-image": Task.IMG,
    "manipulation-video": Task.VID,
    "splice": Task.SPL,
    "provenancefiltering": Task.PF,
    "provenance": Task.PG,
    "eventverification": Task.EV,
    "evenverification": Task.EV,  # sic: MediScore's MFC18 test data
    "camera": Task.CAM,
    "cameraverification": Task.CAM,
    "image-classification": Task.FIC,
    "spatial": Task.FSL,
    "video-classification": Task.FVC,
    "temporal": Task.FTL,
}

_EDITION_ALIASES: list[tuple[re.Pattern[str], Edition]] = [
    (re.compile(r"^openmfc(20)?21", re.I), Edition.OpenMFC2021),
    (re.compile(r"^openmfc(20)?(20)?", re.I), Edition.OpenMFC2020),
    (re.compile(r"^mfc(20)?19", re.I), Edition.MFC2019),
    (re.compile(r"^mfc(20)?18", re.I), Edition.MFC2018),
    (re.compile(r"^nc(20)?17", re.I), Edition.NC2017),
    (re.compile(r"^nc(20)?16", re.I), Edition.NC2016),
    (re.compile(r"^forgerynet$", re.I), Edition.ForgeryNet),
]


def parse_edition(text: str) -> Edition:
    """Edition from a name such as ``OpenMFC2020``, ``MFC19`` or ``NC2017_Dev1``."""
    for pattern, edition in _EDITION_ALIASES:
        if pattern.match(text.strip()):
            return edition
    raise EditionTaskError(f"unknown edition {text!r}: must be one of {', '.join(e.value for e in Edition)}")


def parse_task(text: str, edition: Edition | None = None) -> Task:
    """Task from a TaskID (case-insensitive), e.g. ``IMDL`` or ``manipulation-video``.

    In the NC editions ``manipulation`` alone names the image task; the video
    task is ``manipulation-video``.
    """
    key = text.strip().lower().replace("_", "-").replace(" ", "-")
    if key in TASK_IDS:
        return TASK_IDS[key]
    if key.replace("-", "") in TASK_IDS:
        return TASK_IDS[key.replace("-", "")]
    raise EditionTaskError(f"unknown task {text!r}: must be one of {', '.join(sorted(TASK_IDS))}")


def infer_from_index_name(path: Path) -> tuple[Edition | None, Task | None]:
    """Edition and task from ``<DataSet_Name>-<TaskID>-index.csv``; None where unknown."""
    name = path.name
    m = re.match(r"^(?P<ds>[^-]+)-(?P<task>.+?)-index[^.]*\.csv$", name, re.I)
    if not m:
        return None, None
    edition: Edition | None
    task: Task | None
    try:
        edition = parse_edition(m.group("ds"))
    except EditionTaskError:
        edition = None
    try:
        task = parse_task(m.group("task"))
    except EditionTaskError:
        task = None
    return edition, task
