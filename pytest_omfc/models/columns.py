"""The system-output layouts and the index keys as plain data, what a check reads (no pydantic).

Generated from the models of :mod:`pytest_omfc.models.tabular` by ``python -m pytest_omfc.schemagen``, whose
``--check`` (``tests/test_schemas.py``) fails when this file and the models differ: edit the models, never
this file.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..editions import Group, Task

__all__ = ["INDEX_KEYS", "LAYOUTS", "Layout"]


@dataclass(frozen=True)
class Layout:
    """A system-output layout (COL-*): its model's name, every column in the plan's order, the required ones
    (the others may be left out of the header) and the status column that selects it."""

    name: str
    columns: tuple[str, ...]
    required: tuple[str, ...]
    status: str


_LAYOUTS: dict[str, Layout] = {
    "CameraOutput": Layout(
        name="CameraOutput",
        columns=(
            "ProbeFileID",
            "TrainCamID",
            "OutputProbeMaskFileName",
            "ConfidenceScore",
            "ProbeStatus",
            "ProbeOptOutPixelValue",
        ),
        required=(
            "ProbeFileID",
            "TrainCamID",
            "OutputProbeMaskFileName",
            "ConfidenceScore",
            "ProbeStatus",
            "ProbeOptOutPixelValue",
        ),
        status="ProbeStatus",
    ),
    "EventOutput": Layout(
        name="EventOutput",
        columns=(
            "ProbeFileID",
            "EventName",
            "ConfidenceScore",
            "ProbeStatus",
        ),
        required=(
            "ProbeFileID",
            "EventName",
            "ConfidenceScore",
            "ProbeStatus",
        ),
        status="ProbeStatus",
    ),
    "MFC18ProvenanceOutput": Layout(
        name="MFC18ProvenanceOutput",
        columns=(
            "ProvenanceProbeFileID",
            "ConfidenceScore",
            "ProvenanceOutputFileName",
            "ProvenanceProbeStatus",
        ),
        required=(
            "ProvenanceProbeFileID",
            "ConfidenceScore",
            "ProvenanceOutputFileName",
            "ProvenanceProbeStatus",
        ),
        status="ProvenanceProbeStatus",
    ),
    "MFC19ProvenanceOutput": Layout(
        name="MFC19ProvenanceOutput",
        columns=(
            "ProvenanceProbeFileID",
            "ProvenanceOutputFileName",
            "ProvenanceProbeStatus",
            "ConfidenceScore",
        ),
        required=(
            "ProvenanceProbeFileID",
            "ProvenanceOutputFileName",
            "ProvenanceProbeStatus",
        ),
        status="ProvenanceProbeStatus",
    ),
    "MFCImageOutput": Layout(
        name="MFCImageOutput",
        columns=(
            "ProbeFileID",
            "ConfidenceScore",
            "OutputProbeMaskFileName",
            "ProbeStatus",
            "ProbeOptOutPixelValue",
        ),
        required=(
            "ProbeFileID",
            "ConfidenceScore",
            "OutputProbeMaskFileName",
            "ProbeStatus",
            "ProbeOptOutPixelValue",
        ),
        status="ProbeStatus",
    ),
    "MFCSpliceOutput": Layout(
        name="MFCSpliceOutput",
        columns=(
            "ProbeFileID",
            "DonorFileID",
            "ConfidenceScore",
            "OutputProbeMaskFileName",
            "OutputDonorMaskFileName",
            "ProbeStatus",
            "DonorStatus",
            "ProbeOptOutPixelValue",
            "DonorOptOutPixelValue",
        ),
        required=(
            "ProbeFileID",
            "DonorFileID",
            "ConfidenceScore",
            "OutputProbeMaskFileName",
            "OutputDonorMaskFileName",
            "ProbeStatus",
            "DonorStatus",
        ),
        status="ProbeStatus",
    ),
    "MFCVideoOutput": Layout(
        name="MFCVideoOutput",
        columns=(
            "ProbeFileID",
            "ConfidenceScore",
            "ProbeStatus",
            "VideoFrameSegments",
            "AudioSampleSegments",
            "VideoFrameOptOutSegments",
            "OutputProbeMaskFileName",
            "ProbeOptOutPixelValue",
        ),
        required=(
            "ProbeFileID",
            "ConfidenceScore",
            "ProbeStatus",
            "VideoFrameSegments",
            "AudioSampleSegments",
            "VideoFrameOptOutSegments",
        ),
        status="ProbeStatus",
    ),
    "NC17ImageOutput": Layout(
        name="NC17ImageOutput",
        columns=(
            "ProbeFileID",
            "ConfidenceScore",
            "OutputProbeMaskFileName",
            "IsOptOut",
        ),
        required=(
            "ProbeFileID",
            "ConfidenceScore",
            "OutputProbeMaskFileName",
            "IsOptOut",
        ),
        status="IsOptOut",
    ),
    "NC17ProvenanceOutput": Layout(
        name="NC17ProvenanceOutput",
        columns=(
            "ProvenanceProbeFileID",
            "ConfidenceScore",
            "ProvenanceOutputFileName",
            "IsOptOut",
        ),
        required=(
            "ProvenanceProbeFileID",
            "ConfidenceScore",
            "ProvenanceOutputFileName",
            "IsOptOut",
        ),
        status="IsOptOut",
    ),
    "NC17SpliceOutput": Layout(
        name="NC17SpliceOutput",
        columns=(
            "ProbeFileID",
            "DonorFileID",
            "ConfidenceScore",
            "OutputProbeMaskFileName",
            "OutputDonorMaskFileName",
            "IsOptOut",
        ),
        required=(
            "ProbeFileID",
            "DonorFileID",
            "ConfidenceScore",
            "OutputProbeMaskFileName",
            "OutputDonorMaskFileName",
            "IsOptOut",
        ),
        status="IsOptOut",
    ),
    "NC17VideoOutput": Layout(
        name="NC17VideoOutput",
        columns=(
            "ProbeFileID",
            "ConfidenceScore",
            "IsOptOut",
        ),
        required=(
            "ProbeFileID",
            "ConfidenceScore",
            "IsOptOut",
        ),
        status="IsOptOut",
    ),
    "OpenMFCImageOutput": Layout(
        name="OpenMFCImageOutput",
        columns=(
            "ProbeFileID",
            "ConfidenceScore",
            "OutputProbeMaskFileName",
            "ProbeStatus",
            "ProbeOptOutPixelValue",
        ),
        required=(
            "ProbeFileID",
            "ConfidenceScore",
            "OutputProbeMaskFileName",
            "ProbeStatus",
            "ProbeOptOutPixelValue",
        ),
        status="ProbeStatus",
    ),
    "OpenMFCVideoOutput": Layout(
        name="OpenMFCVideoOutput",
        columns=(
            "ProbeFileID",
            "ConfidenceScore",
            "ProbeStatus",
            "VideoFrameSegments",
            "AudioSampleSegments",
            "VideoFrameOptOutSegments",
        ),
        required=(
            "ProbeFileID",
            "ConfidenceScore",
            "ProbeStatus",
        ),
        status="ProbeStatus",
    ),
}

#: (edition group, task) -> its layout; a pair not listed is a task the edition does not offer.
LAYOUTS: dict[tuple[Group, Task], Layout] = {
    (Group.M18, Task.CAM): _LAYOUTS["CameraOutput"],
    (Group.M18, Task.EV): _LAYOUTS["EventOutput"],
    (Group.M18, Task.IMG): _LAYOUTS["MFCImageOutput"],
    (Group.M18, Task.PF): _LAYOUTS["MFC18ProvenanceOutput"],
    (Group.M18, Task.PG): _LAYOUTS["MFC18ProvenanceOutput"],
    (Group.M18, Task.SPL): _LAYOUTS["MFCSpliceOutput"],
    (Group.M18, Task.VID): _LAYOUTS["MFCVideoOutput"],
    (Group.M19, Task.CAM): _LAYOUTS["CameraOutput"],
    (Group.M19, Task.EV): _LAYOUTS["EventOutput"],
    (Group.M19, Task.IMG): _LAYOUTS["MFCImageOutput"],
    (Group.M19, Task.PF): _LAYOUTS["MFC19ProvenanceOutput"],
    (Group.M19, Task.PG): _LAYOUTS["MFC19ProvenanceOutput"],
    (Group.M19, Task.SPL): _LAYOUTS["MFCSpliceOutput"],
    (Group.M19, Task.VID): _LAYOUTS["MFCVideoOutput"],
    (Group.N17, Task.IMG): _LAYOUTS["NC17ImageOutput"],
    (Group.N17, Task.PF): _LAYOUTS["NC17ProvenanceOutput"],
    (Group.N17, Task.PG): _LAYOUTS["NC17ProvenanceOutput"],
    (Group.N17, Task.SPL): _LAYOUTS["NC17SpliceOutput"],
    (Group.N17, Task.VID): _LAYOUTS["NC17VideoOutput"],
    (Group.O2X, Task.IMG): _LAYOUTS["OpenMFCImageOutput"],
    (Group.O2X, Task.VID): _LAYOUTS["OpenMFCVideoOutput"],
}

#: The columns that key a trial in the index and the system output (IDX-01), per task.
INDEX_KEYS: dict[Task, tuple[str, ...]] = {
    Task.CAM: (
        "ProbeFileID",
        "TrainCamID",
    ),
    Task.EV: (
        "ProbeFileID",
        "EventName",
    ),
    Task.IMG: ("ProbeFileID",),
    Task.PF: ("ProvenanceProbeFileID",),
    Task.PG: ("ProvenanceProbeFileID",),
    Task.SPL: (
        "ProbeFileID",
        "DonorFileID",
    ),
    Task.VID: ("ProbeFileID",),
}
