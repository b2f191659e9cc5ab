"""The provenance output JSON: filtering (SchF) and graph building (SchG), RULES.md PROV-03/04.

The models encode MediScore's schemas version 1.2 with draft-4 semantics:
booleans are not numbers, extra properties are allowed everywhere, and
optional properties may be absent but never ``null``.  They are deliberately
no stricter than MediScore's schemas, so that a JSON MediScore accepts passes
PROV-03/PROV-04; what the plans require beyond the schema is checked by its
own rule: ``fileid`` (PROV-06, D-20), integral in-range link indexes
(PROV-09), unique ids (PROV-08).  ``relationshipConfidenceScore`` is required
on graph links, as SchG does (PROV-04, PROV-10).
"""

from __future__ import annotations

import functools
from typing import Any
from typing import ClassVar

from jsonschema import Draft4Validator
from pydantic import BaseModel
from pydantic import ConfigDict
from pydantic import model_validator
from pydantic.json_schema import SkipJsonSchema

__all__ = [
    "Node",
    "FilteringLink",
    "GraphLink",
    "ProvenanceFiltering",
    "ProvenanceGraph",
    "validator_for",
]


def _tidy_schema(schema: dict[str, Any], cls: type[BaseModel]) -> None:
    """Drop pydantic's ``"default": null`` on optional properties (not valid for their type) and add a comment."""
    for prop in schema.get("properties", {}).values():
        if "default" in prop and prop["default"] is None:
            del prop["default"]
    comment = getattr(cls, "_comment", None)
    if comment:
        schema["$comment"] = comment


class _Strict(BaseModel):
    """Draft-4 typing: no coercion (``"0.5"`` and ``true`` are not numbers), extra keys allowed.

    Optional properties may be omitted, but an explicit ``null`` is not their
    type (as in MediScore's schemas, which give them no ``null`` alternative).
    """

    model_config = ConfigDict(extra="allow", strict=True, json_schema_extra=_tidy_schema)
    _optional: ClassVar[tuple[str, ...]] = ()
    _comment: ClassVar[str | None] = None

    @model_validator(mode="before")
    @classmethod
    def _no_nulls(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for name in cls._optional:
                if name in data and data[name] is None:
                    raise ValueError(f"{name} must not be null")
        return data


class Node(_Strict):
    """A node: the performer's ``id``, NIST's ``file`` path and ``fileid``, a confidence (App. C)."""

    _optional = ("fileid",)
    id: str
    file: str
    #: "must" in the plans, optional in MediScore's schema: required by PROV-06 instead (D-20).
    fileid: str | SkipJsonSchema[None] = None
    nodeConfidenceScore: float


class FilteringLink(_Strict):
    """A link of a filtering JSON: indexes into ``nodes``; the score is optional (SchF)."""

    _optional = ("relationshipConfidenceScore", "operation", "operationArgument")
    source: float  # a number in the schema; PROV-09 requires an integer index in range
    target: float
    relationshipConfidenceScore: float | SkipJsonSchema[None] = None
    operation: str | SkipJsonSchema[None] = None
    operationArgument: str | SkipJsonSchema[None] = None


class GraphLink(FilteringLink):
    """A link of a graph JSON: ``relationshipConfidenceScore`` is required (SchG, PROV-10)."""

    _optional = ("operation", "operationArgument")
    relationshipConfidenceScore: float


class ProvenanceFiltering(_Strict):
    """Provenance filtering output for one probe (SchF 1.2): ``nodes`` required, ``links`` optional."""

    _comment = "compatible with MediScore ProvenanceFilteringSchema-1.2.json"
    _optional = ("directed", "links")
    directed: bool | SkipJsonSchema[None] = None
    nodes: list[Node]
    links: list[FilteringLink] | SkipJsonSchema[None] = None


class ProvenanceGraph(_Strict):
    """Provenance graph-building output for one probe (SchG 1.2): ``nodes`` and ``links`` required."""

    _comment = "compatible with MediScore ProvenanceGraphBuildingSchema-1.2.json"
    _optional = ("directed",)
    directed: bool | SkipJsonSchema[None] = None
    nodes: list[Node]
    links: list[GraphLink]


@functools.lru_cache(maxsize=None)
def validator_for(model: type[BaseModel]) -> Draft4Validator:
    """A draft-4 validator of the schema generated from ``model`` (built once per process)."""
    return Draft4Validator(model.model_json_schema())
