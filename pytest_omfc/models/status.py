"""Status enumerations per edition and task (RULES.md STATUS-01...07)."""

from __future__ import annotations

import enum

__all__ = [
    "IsOptOut",
    "ProbeStatus",
    "VideoProbeStatus",
    "OpenMFCProbeStatus",
    "DonorStatus",
    "EventProbeStatus",
    "ProvenanceProbeStatus",
    "DETECTION_OPTED_OUT",
    "LOCALIZATION_OPTED_OUT",
]


class IsOptOut(str, enum.Enum):
    """NC2017 opt-out flag (STATUS-01)."""

    Y = "Y"
    N = "N"


class ProbeStatus(str, enum.Enum):
    """MFC2018/MFC2019 image, camera and splice probe status (STATUS-02, STATUS-05)."""

    Processed = "Processed"
    NonProcessed = "NonProcessed"
    OptOutAll = "OptOutAll"
    OptOutDetection = "OptOutDetection"
    OptOutLocalization = "OptOutLocalization"
    FailedValidation = "FailedValidation"


class VideoProbeStatus(str, enum.Enum):
    """MFC2019 video probe status: STATUS-02 plus the temporal/spatial opt-outs (STATUS-03)."""

    Processed = "Processed"
    NonProcessed = "NonProcessed"
    OptOutAll = "OptOutAll"
    OptOutDetection = "OptOutDetection"
    OptOutLocalization = "OptOutLocalization"
    OptOutTemporal = "OptOutTemporal"
    OptOutSpatial = "OptOutSpatial"
    FailedValidation = "FailedValidation"


class OpenMFCProbeStatus(str, enum.Enum):
    """OpenMFC has no opt-out statuses (STATUS-04, D-09)."""

    Processed = "Processed"
    NonProcessed = "NonProcessed"
    FailedValidation = "FailedValidation"


class DonorStatus(str, enum.Enum):
    """Splice donor status; four values as the plan's text gives (STATUS-05, D-23)."""

    Processed = "Processed"
    NonProcessed = "NonProcessed"
    OptOutLocalization = "OptOutLocalization"
    FailedValidation = "FailedValidation"


class EventProbeStatus(str, enum.Enum):
    """Event verification status (STATUS-06)."""

    Processed = "Processed"
    NonProcessed = "NonProcessed"
    OptOut = "OptOut"
    FailedValidation = "FailedValidation"


class ProvenanceProbeStatus(str, enum.Enum):
    """Provenance status (STATUS-07)."""

    Processed = "Processed"
    NonProcessed = "NonProcessed"
    OptOut = "OptOut"
    FailedValidation = "FailedValidation"


#: Statuses whose detection score must be 0 in MFC2019 (SCORE-04).
DETECTION_OPTED_OUT = frozenset({"NonProcessed", "OptOutAll", "OptOutDetection", "OptOut"})
#: Statuses under which no localization output is expected (STATUS-10).
LOCALIZATION_OPTED_OUT = frozenset({"OptOutAll", "OptOutLocalization", "OptOut", "Y"})
