"""Index rows and system-output rows for every edition x task (docs/editions.md).

The output models are the column matrix: their field order is the column
order (CSV-06), a field marked ``optional_column`` may be left out of the
header (COL-06 mask columns, COL-07 segment columns, COL-13 score), and every
other field is a required column.  The COL rules and the JSON Schemas in
``schemas/`` are both derived from these classes.
"""

from __future__ import annotations

import math
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, field_validator
from pydantic.config import JsonDict

from ..editions import Group, Task
from .status import (
    DonorStatus,
    EventProbeStatus,
    IsOptOut,
    OpenMFCProbeStatus,
    ProbeStatus,
    ProvenanceProbeStatus,
    VideoProbeStatus,
)

__all__ = [
    "IndexRow",
    "OutputRow",
    "INDEX_MODELS",
    "LAYOUTS",
    "layouts_for",
    "required_columns",
    "optional_columns",
    "all_columns",
    "key_columns",
    "status_column",
]

OPTIONAL: JsonDict = {"x-column": "optional"}
MaskName = Annotated[str, Field(description="Path relative to the submission directory, under mask/; blank = no mask")]
PixelValue = Annotated[int | None, Field(description="Opt-out pixel value 0-255, blank = none (OOPIX-01/02)")]
Segments = Annotated[str, Field(description="JSON list of [start, end] frame or sample intervals (VSEG-01)")]


def _finite(v: float) -> float:
    if not math.isfinite(v):
        raise ValueError("must be a finite real number")
    return v


# --------------------------------------------------------------------------- index rows


class IndexRow(BaseModel):
    """A row of a NIST index file; extra columns are allowed."""

    model_config = ConfigDict(extra="allow")
    key: ClassVar[tuple[str, ...]] = ("ProbeFileID",)

    TaskID: str
    ProbeFileID: str
    ProbeFileName: str
    ProbeWidth: int
    ProbeHeight: int


class ImageIndexRow(IndexRow):
    """Image manipulation index (IMDL, IGMDL, manipulation-image)."""


class VideoIndexRow(IndexRow):
    """Video manipulation index; FrameCount bounds the frame segments (VSEG-05)."""

    FrameCount: int | None = None


class SpliceIndexRow(IndexRow):
    key: ClassVar[tuple[str, ...]] = ("ProbeFileID", "DonorFileID")
    DonorFileID: str
    DonorFileName: str
    DonorWidth: int
    DonorHeight: int


class EventIndexRow(IndexRow):
    key: ClassVar[tuple[str, ...]] = ("ProbeFileID", "EventName")
    EventName: str


class CameraIndexRow(IndexRow):
    key: ClassVar[tuple[str, ...]] = ("ProbeFileID", "TrainCamID")
    TrainCamID: str


class ProvenanceIndexRow(BaseModel):
    model_config = ConfigDict(extra="allow")
    key: ClassVar[tuple[str, ...]] = ("ProvenanceProbeFileID",)

    TaskID: str
    ProvenanceProbeFileID: str
    ProvenanceProbeFileName: str
    ProvenanceProbeWidth: int | None = None
    ProvenanceProbeHeight: int | None = None


INDEX_MODELS: dict[Task, type[BaseModel]] = {
    Task.IMG: ImageIndexRow,
    Task.VID: VideoIndexRow,
    Task.SPL: SpliceIndexRow,
    Task.EV: EventIndexRow,
    Task.CAM: CameraIndexRow,
    Task.PF: ProvenanceIndexRow,
    Task.PG: ProvenanceIndexRow,
}

# --------------------------------------------------------------------------- output rows


class OutputRow(BaseModel):
    """Base of the system-output row models (one per edition group x task x layout)."""

    model_config = ConfigDict(extra="forbid")
    groups: ClassVar[tuple[Group, ...]] = ()
    task: ClassVar[Task]
    status: ClassVar[str] = "ProbeStatus"  # the status column that selects this layout
    score_range: ClassVar[tuple[float, float] | None] = None

    @field_validator("ConfidenceScore", mode="after", check_fields=False)
    @classmethod
    def _score_in_range(cls, v: float | None) -> float | None:
        if v is None:
            return v
        _finite(v)
        if cls.score_range and not (cls.score_range[0] <= v <= cls.score_range[1]):
            raise ValueError(f"must be in [{cls.score_range[0]}, {cls.score_range[1]}]")
        return v


class NC17ImageOutput(OutputRow):
    """NC2017 image manipulation (COL-01)."""

    groups = (Group.N17,)
    task = Task.IMG
    status = "IsOptOut"
    ProbeFileID: str
    ConfidenceScore: float
    OutputProbeMaskFileName: MaskName = ""
    IsOptOut: IsOptOut


class MFCImageOutput(OutputRow):
    """MFC2018/MFC2019 image manipulation (COL-02)."""

    groups = (Group.M18, Group.M19)
    task = Task.IMG
    score_range = (0.0, 1.0)
    ProbeFileID: str
    ConfidenceScore: float
    OutputProbeMaskFileName: MaskName = ""
    ProbeStatus: ProbeStatus
    ProbeOptOutPixelValue: PixelValue = None


class OpenMFCImageOutput(OutputRow):
    """OpenMFC IMDL/IGMDL (COL-02; pixel value blank, OOPIX-03; mask optional, D-25)."""

    groups = (Group.O2X,)
    task = Task.IMG
    score_range = (0.0, 1.0)
    ProbeFileID: str
    ConfidenceScore: float
    OutputProbeMaskFileName: MaskName = ""
    ProbeStatus: OpenMFCProbeStatus
    ProbeOptOutPixelValue: None = None


class NC17VideoOutput(OutputRow):
    """NC2017 video: detection only (COL-05)."""

    groups = (Group.N17,)
    task = Task.VID
    status = "IsOptOut"
    ProbeFileID: str
    ConfidenceScore: float
    IsOptOut: IsOptOut


class MFCVideoOutput(OutputRow):
    """MFC2018/MFC2019 video with temporal localization (COL-06; mask columns optional, D-16)."""

    groups = (Group.M18, Group.M19)
    task = Task.VID
    score_range = (0.0, 1.0)
    ProbeFileID: str
    ConfidenceScore: float
    ProbeStatus: VideoProbeStatus
    VideoFrameSegments: Segments
    AudioSampleSegments: Segments
    VideoFrameOptOutSegments: Segments
    OutputProbeMaskFileName: MaskName = Field("", json_schema_extra=OPTIONAL)
    ProbeOptOutPixelValue: PixelValue = Field(None, json_schema_extra=OPTIONAL)


class OpenMFCVideoOutput(OutputRow):
    """OpenMFC VMD/VGMD: detection only (COL-07, D-05); segment columns validated if present."""

    groups = (Group.O2X,)
    task = Task.VID
    score_range = (0.0, 1.0)
    ProbeFileID: str
    ConfidenceScore: float
    ProbeStatus: OpenMFCProbeStatus
    VideoFrameSegments: Segments = Field("[]", json_schema_extra=OPTIONAL)
    AudioSampleSegments: Segments = Field("[]", json_schema_extra=OPTIONAL)
    VideoFrameOptOutSegments: Segments = Field("[]", json_schema_extra=OPTIONAL)


class NC17SpliceOutput(OutputRow):
    """NC2017 splice (COL-08)."""

    groups = (Group.N17,)
    task = Task.SPL
    status = "IsOptOut"
    ProbeFileID: str
    DonorFileID: str
    ConfidenceScore: float
    OutputProbeMaskFileName: MaskName = ""
    OutputDonorMaskFileName: MaskName = ""
    IsOptOut: IsOptOut


class MFCSpliceOutput(OutputRow):
    """MFC2018/MFC2019 splice (COL-08, COL-09)."""

    groups = (Group.M18, Group.M19)
    task = Task.SPL
    score_range = (0.0, 1.0)
    ProbeFileID: str
    DonorFileID: str
    ConfidenceScore: float
    OutputProbeMaskFileName: MaskName = ""
    OutputDonorMaskFileName: MaskName = ""
    ProbeStatus: ProbeStatus
    DonorStatus: DonorStatus
    ProbeOptOutPixelValue: PixelValue = Field(None, json_schema_extra=OPTIONAL)  # as a pair, COL-09
    DonorOptOutPixelValue: PixelValue = Field(None, json_schema_extra=OPTIONAL)


class EventOutput(OutputRow):
    """Event verification (COL-10)."""

    groups = (Group.M18, Group.M19)
    task = Task.EV
    score_range = (0.0, 1.0)
    ProbeFileID: str
    EventName: str
    ConfidenceScore: float
    ProbeStatus: EventProbeStatus


class CameraOutput(OutputRow):
    """Camera verification (COL-11)."""

    groups = (Group.M18, Group.M19)
    task = Task.CAM
    score_range = (0.0, 1.0)
    ProbeFileID: str
    TrainCamID: str
    OutputProbeMaskFileName: MaskName = ""
    ConfidenceScore: float
    ProbeStatus: ProbeStatus
    ProbeOptOutPixelValue: PixelValue = None


class NC17ProvenanceOutput(OutputRow):
    """NC2017 provenance filtering and graph building (COL-12)."""

    groups = (Group.N17,)
    task = Task.PF
    status = "IsOptOut"
    ProvenanceProbeFileID: str
    ConfidenceScore: float
    ProvenanceOutputFileName: str
    IsOptOut: IsOptOut


class MFC18ProvenanceOutput(OutputRow):
    """MFC2018 provenance: ProvenanceProbeStatus in place of IsOptOut (COL-12)."""

    groups = (Group.M18,)
    task = Task.PF
    status = "ProvenanceProbeStatus"
    ProvenanceProbeFileID: str
    ConfidenceScore: float
    ProvenanceOutputFileName: str
    ProvenanceProbeStatus: ProvenanceProbeStatus


class MFC19ProvenanceOutput(OutputRow):
    """MFC2019 provenance: no ConfidenceScore (COL-13, D-06); numeric if present."""

    groups = (Group.M19,)
    task = Task.PF
    status = "ProvenanceProbeStatus"
    ProvenanceProbeFileID: str
    ProvenanceOutputFileName: str
    ProvenanceProbeStatus: ProvenanceProbeStatus
    ConfidenceScore: float | None = Field(None, json_schema_extra=OPTIONAL)


_ALL_LAYOUTS: tuple[type[OutputRow], ...] = (
    NC17ImageOutput,
    MFCImageOutput,
    OpenMFCImageOutput,
    NC17VideoOutput,
    MFCVideoOutput,
    OpenMFCVideoOutput,
    NC17SpliceOutput,
    MFCSpliceOutput,
    EventOutput,
    CameraOutput,
    NC17ProvenanceOutput,
    MFC18ProvenanceOutput,
    MFC19ProvenanceOutput,
)


def _task_of(model: type[OutputRow], task: Task) -> bool:
    if model.task is Task.PF:
        return task in (Task.PF, Task.PG)
    return model.task is task


LAYOUTS: dict[tuple[Group, Task], type[OutputRow]] = {
    (g, t): m for m in _ALL_LAYOUTS for g in m.groups for t in Task if _task_of(m, t)
}


def layouts_for(group: Group, task: Task) -> type[OutputRow]:
    """The output model for an edition group and task (KeyError when the task is not offered)."""
    return LAYOUTS[(group, task)]


def _is_optional(info: Any) -> bool:
    extra = info.json_schema_extra
    return isinstance(extra, dict) and extra.get("x-column") == "optional"


def all_columns(model: type[BaseModel]) -> list[str]:
    return list(model.model_fields)


def required_columns(model: type[BaseModel]) -> list[str]:
    return [n for n, f in model.model_fields.items() if not _is_optional(f)]


def optional_columns(model: type[BaseModel]) -> list[str]:
    return [n for n, f in model.model_fields.items() if _is_optional(f)]


def key_columns(task: Task) -> tuple[str, ...]:
    """The trial key of IDX-01."""
    return INDEX_MODELS[task].key  # type: ignore[attr-defined]


def status_column(model: type[OutputRow]) -> str:
    return model.status
