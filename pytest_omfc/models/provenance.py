"""The provenance output JSON: filtering (SchF) and graph building (SchG), PROV-03/04.

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
import itertools
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

from jsonschema import Draft4Validator
from pydantic import BaseModel, ConfigDict, model_validator
from pydantic.json_schema import SkipJsonSchema

__all__ = [
    "Node",
    "FilteringLink",
    "GraphLink",
    "ProvenanceFiltering",
    "ProvenanceGraph",
    "SchemaCheck",
    "SchemaError",
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

    _optional: ClassVar[tuple[str, ...]] = ("fileid",)
    id: str
    file: str
    #: "must" in the plans, optional in MediScore's schema: required by PROV-06 instead (D-20).
    fileid: str | SkipJsonSchema[None] = None
    nodeConfidenceScore: float


class FilteringLink(_Strict):
    """A link of a filtering JSON: indexes into ``nodes``; the score is optional (SchF)."""

    _optional: ClassVar[tuple[str, ...]] = ("relationshipConfidenceScore", "operation", "operationArgument")
    source: float  # a number in the schema; PROV-09 requires an integer index in range
    target: float
    relationshipConfidenceScore: float | SkipJsonSchema[None] = None
    operation: str | SkipJsonSchema[None] = None
    operationArgument: str | SkipJsonSchema[None] = None


class GraphLink(FilteringLink):
    """A link of a graph JSON: ``relationshipConfidenceScore`` is required (SchG, PROV-10)."""

    _optional: ClassVar[tuple[str, ...]] = ("operation", "operationArgument")
    relationshipConfidenceScore: float


class ProvenanceFiltering(_Strict):
    """Provenance filtering output for one probe (SchF 1.2): ``nodes`` required, ``links`` optional."""

    _comment = "compatible with MediScore ProvenanceFilteringSchema-1.2.json"
    _optional: ClassVar[tuple[str, ...]] = ("directed", "links")
    directed: bool | SkipJsonSchema[None] = None
    nodes: list[Node]
    links: list[FilteringLink] | SkipJsonSchema[None] = None


class ProvenanceGraph(_Strict):
    """Provenance graph-building output for one probe (SchG 1.2): ``nodes`` and ``links`` required."""

    _comment = "compatible with MediScore ProvenanceGraphBuildingSchema-1.2.json"
    _optional: ClassVar[tuple[str, ...]] = ("directed",)
    directed: bool | SkipJsonSchema[None] = None
    nodes: list[Node]
    links: list[GraphLink]


@dataclass(frozen=True)
class SchemaError:
    """One jsonschema error: where (a path into the document), what, and the offending value."""

    path: tuple[str | int, ...]
    message: str
    instance: Any


#: Keywords under which an item's verdict depends only on which listed keys it has and their JSON types.
_SHAPE_ITEM = frozenset({"type", "properties", "required", "additionalProperties", "title", "description", "$comment"})
_SHAPE_PROP = frozenset({"type", "title", "description"})
_SHAPE_ARRAY = frozenset({"type", "items", "title", "description"})


def _inline(schema: Any, defs: dict[str, Any]) -> Any:
    """The schema with its local ``$ref``s replaced by their targets (the models are not recursive)."""
    if isinstance(schema, dict):
        if "$ref" in schema:
            return _inline(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
        return {k: _inline(v, defs) for k, v in schema.items() if k != "$defs"}
    if isinstance(schema, list):
        return [_inline(v, defs) for v in schema]
    return schema


def _shape_only(item: Any) -> bool:
    return (
        isinstance(item, dict)
        and set(item) <= _SHAPE_ITEM
        and item.get("additionalProperties", True) is True
        and all(isinstance(p, dict) and set(p) <= _SHAPE_PROP for p in item.get("properties", {}).values())
    )


class _Absent:
    """Stands for a missing key in an item's shape."""


_ABSENT = _Absent()


class SchemaCheck:
    """jsonschema (draft 4) validation against the schema generated from a model, fast on many nodes.

    A provenance JSON holds up to 500 nodes, and plain jsonschema spends
    ~25 ms on one file.  The node and link schemas only test key presence and
    value types (checked here when the schema is built; otherwise every item
    is validated), so items with the same keys and value types share a
    verdict: one of each shape is validated, and only invalid items are
    validated again for their own messages.  The verdict and the errors are
    those of ``Draft4Validator(model.model_json_schema())``.
    """

    def __init__(self, model: type[BaseModel]) -> None:
        raw = model.model_json_schema()
        schema = _inline(raw, raw.get("$defs", {}))
        self.full = Draft4Validator(schema)
        props = schema.get("properties", {})
        self.arrays: dict[str, tuple[Draft4Validator, tuple[str, ...]]] = {}
        for name, prop in props.items():
            item = prop.get("items")
            if prop.get("type") == "array" and set(prop) <= _SHAPE_ARRAY and _shape_only(item):
                self.arrays[name] = (Draft4Validator(item), tuple(item.get("properties", {})))

    def iter_errors(self, doc: Any) -> Iterator[SchemaError]:
        """Every error, top-level ones first, then the arrays' items in order."""
        if not isinstance(doc, dict) or not self.arrays:
            for e in self.full.iter_errors(doc):
                yield SchemaError(tuple(e.absolute_path), e.message, e.instance)
            return
        lists = {name: doc[name] for name in self.arrays if isinstance(doc.get(name), list)}
        shallow = {**doc, **{name: [] for name in lists}}
        for e in self.full.iter_errors(shallow):
            yield SchemaError(tuple(e.absolute_path), e.message, e.instance)
        for name, items in lists.items():
            validator, keys = self.arrays[name]
            verdict: dict[tuple[type, ...], bool] = {}
            absent = itertools.repeat(_ABSENT)
            for i, item in enumerate(items):
                if isinstance(item, dict):
                    shape = tuple(map(type, map(item.get, keys, absent)))  # bool and int are distinct types
                    ok = verdict.get(shape)
                    if ok is None:
                        ok = verdict[shape] = validator.is_valid(item)
                    if ok:
                        continue
                for e in validator.iter_errors(item):
                    yield SchemaError((name, i, *e.absolute_path), e.message, e.instance)

    def is_valid(self, doc: Any) -> bool:
        return next(iter(self.iter_errors(doc)), None) is None


@functools.cache
def validator_for(model: type[BaseModel]) -> SchemaCheck:
    """The schema check of ``model`` (built once per process)."""
    return SchemaCheck(model)
