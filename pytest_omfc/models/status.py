"""Status enumerations per edition and task (STATUS-01...07).

These enums are the single source of the allowed values: the output models
of :mod:`.tabular` type their status columns with them, and the STATUS rules
list their values in messages.  The sets at the end give the meanings of
STATUS-09 that the SCORE and STATUS consistency rules rely on.
"""

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
    "FAILED_VALIDATION",
    "MEDISCORE_ISOPTOUT_EXTRA",
    "LOCALIZATION_ONLY",
    "NO_MASK_M19",
    "NO_SEGMENTS_M19",
    "NO_VIDEO_MASK_M19",
    "values",
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


def values(status_enum: type[enum.Enum]) -> tuple[str, ...]:
    """The allowed values of a status enum, in the plan's order (for messages and ``isin``)."""
    return tuple(str(m.value) for m in status_enum)


#: Statuses whose detection score must be 0 in MFC2019 (SCORE-04).
DETECTION_OPTED_OUT = frozenset({"NonProcessed", "OptOutAll", "OptOutDetection", "OptOut"})
#: Statuses under which no localization output is expected, in any edition (MaskScorer's view).
LOCALIZATION_OPTED_OUT = frozenset({"OptOutAll", "OptOutLocalization", "OptOut", "Y"})
#: The status NIST (or the participant) gives a row that failed validation (STATUS-08, SCORE-07).
FAILED_VALIDATION = "FailedValidation"
#: IsOptOut values MediScore accepts besides Y/N; the NC2017 plan does not (STATUS-01).
MEDISCORE_ISOPTOUT_EXTRA = frozenset({"Detection", "Localization", "FailedValidation"})
#: MFC2019 "localization only": a row with this status should carry localization output (STATUS-09).
LOCALIZATION_ONLY = frozenset({"OptOutDetection"})
#: MFC2019 statuses under which an image (probe, donor, camera) mask should be blank (STATUS-10).
NO_MASK_M19 = frozenset({"OptOutAll", "OptOutLocalization"})
#: MFC2019 video statuses under which the localization segments should be empty (STATUS-10).
NO_SEGMENTS_M19 = frozenset({"OptOutAll", "OptOutLocalization", "OptOutTemporal"})
#: MFC2019 video statuses under which the (optional) spatial mask should be blank (STATUS-10, D-10).
NO_VIDEO_MASK_M19 = frozenset({"OptOutAll", "OptOutLocalization", "OptOutSpatial"})
