"""The ForgeryNet-style benchmark formats as pydantic models for ``schemas/``.

Classification and spatial files are pipe-separated like the NIST files (one model per row);
temporal files are ActivityNet JSON documents.  IDs are strings, never numbers (``0042`` stays
``0042``).  The FNET rules (:mod:`.rules`) check the same things one rule at a
time, with a message naming file, line or JSON path; these models are the documented format.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "ActivityNetGroundTruth",
    "ActivityNetResults",
    "Annotation",
    "BinaryClassificationRow",
    "ClassificationReferenceRow",
    "MultiClassificationRow",
    "Prediction",
    "SpatialReferenceRow",
    "SpatialRow",
    "VideoGroundTruth",
]

Probability = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]
Label = Annotated[int, Field(ge=0, le=15, strict=True, description="0 = real, 1..k-1 = forgery classes")]
MaskName = Annotated[str, Field(min_length=1, description="a grey (mode L) or 1-bit PNG, relative to the CSV's folder")]
Seconds = Annotated[float, Field(allow_inf_nan=False)]
Segment = Annotated[tuple[Seconds, Seconds], Field(description="[start, end] in seconds, start < end")]


class _Row(BaseModel):
    model_config = ConfigDict(extra="forbid")

    ID: str = Field(min_length=1, description="image or video ID, a string (row order is free)")


class BinaryClassificationRow(_Row):
    """One row of a 2-way classification file ``<SubID>/<SubID>.csv``: ``ID|Score``."""

    Score: Probability = Field(description="probability that the image or video is fake")


class MultiClassificationRow(_Row):
    """One row of a k-way file: ``ID|P0|P1|...|P<k-1>``, probabilities summing to 1 (k = 3, 9 or 16)."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "patternProperties": {"^P(0|[1-9][0-9]?)$": {"type": "number", "minimum": 0, "maximum": 1}},
            "additionalProperties": False,
            "required": ["ID", "P0", "P1", "P2"],
        },
    )

    @model_validator(mode="after")
    def _probabilities(self) -> MultiClassificationRow:
        extra: dict[str, Any] = dict(self.__pydantic_extra__ or {})
        names = [f"P{i}" for i in range(len(extra))]
        if sorted(extra) != sorted(names) or len(names) < 3:
            raise ValueError(f"columns must be P0..P<k-1> with k >= 3 (got {sorted(extra)})")
        for name, value in extra.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
                raise ValueError(f"{name} must be a probability in [0, 1] (got {value!r})")
        return self


class ClassificationReferenceRow(_Row):
    """One row of a classification reference: ``ID|Label``."""

    Label: Label


class SpatialRow(_Row):
    """One row of a spatial localization file: ``ID|Score|MaskFileName``."""

    Score: Probability = Field(description="probability that the image is fake")
    MaskFileName: MaskName


class SpatialReferenceRow(_Row):
    """One row of a spatial reference: ``ID|Label|MaskFileName`` (an empty name: an all-zero map)."""

    Label: Annotated[int, Field(ge=0, le=1, strict=True)]
    MaskFileName: str = Field(description="grey PNG map of the forgery; empty for a real image (all zero)")


class Prediction(BaseModel):
    """One predicted segment of the ActivityNet result format."""

    segment: Segment
    score: Seconds = Field(description="confidence: any finite number, higher is more confident")
    label: str | None = Field(default=None, description='"Fake" (not used in scoring)')

    @model_validator(mode="after")
    def _ordered(self) -> Prediction:
        if not self.segment[0] < self.segment[1]:
            raise ValueError(f"segment must have start < end (got {list(self.segment)})")
        return self


class ActivityNetResults(BaseModel):
    """A temporal localization submission ``<SubID>/<SubID>.json`` (ActivityNet result format)."""

    version: Any = None
    results: dict[str, list[Prediction]] = Field(description="video ID -> its predictions (only the top 10 are scored)")
    external_data: dict[str, Any] | None = None


class Annotation(BaseModel):
    """One forged segment of a video."""

    segment: Segment
    label: str | None = None


class VideoGroundTruth(BaseModel):
    """One video of the reference: ``annotations`` empty for a real video."""

    annotations: list[Annotation]
    duration: Annotated[float, Field(ge=0, allow_inf_nan=False)] | None = None
    subset: str | None = None


class ActivityNetGroundTruth(BaseModel):
    """A temporal reference in ActivityNet's ground-truth format (``taxonomy``/``version`` optional)."""

    database: dict[str, VideoGroundTruth]
    taxonomy: Any = None
    version: Any = None
