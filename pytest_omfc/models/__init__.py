"""Pydantic models of everything a submission holds; ``schemas/`` is generated from them."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from . import description, identifiers, segments, status, tabular
from .tabular import (
    INDEX_MODELS,
    LAYOUTS,
    OutputRow,
    all_columns,
    key_columns,
    layouts_for,
    optional_columns,
    required_columns,
)

__all__ = [
    "INDEX_MODELS",
    "LAYOUTS",
    "OutputRow",
    "SCHEMA_MODELS",
    "all_columns",
    "description",
    "identifiers",
    "key_columns",
    "layouts_for",
    "optional_columns",
    "required_columns",
    "status",
    "tabular",
]


def _schema_models() -> dict[str, type[BaseModel]]:
    """Schema file stem -> model (the NIST editions' models; ForgeryNet's live with its family and
    :mod:`pytest_omfc.schemagen` adds them)."""
    from . import provenance  # jsonschema and the provenance models: only for the schemas and PF/PG checks

    out: dict[str, type[BaseModel]] = {}
    for model in {m for m in INDEX_MODELS.values()}:
        out[f"index.{model.__name__}"] = model
    for model in {m for m in LAYOUTS.values()}:
        out[f"output.{model.__name__}"] = model
    out["subid.NC17ExpID"] = identifiers.NC17ExpID
    out["subid.MFC19SubID"] = identifiers.MFC19SubID
    out["subid.OpenMFCSubID"] = identifiers.OpenMFCSubID
    out["description.SystemDescription"] = description.SystemDescription
    out["segments.IntervalList"] = segments.IntervalList
    out["provenance.ProvenanceFiltering"] = provenance.ProvenanceFiltering
    out["provenance.ProvenanceGraph"] = provenance.ProvenanceGraph
    return dict(sorted(out.items()))


def __getattr__(name: str) -> Any:
    """``SCHEMA_MODELS``: the NIST editions' models with a JSON Schema in ``schemas/``, by file stem (built on
    first use: it imports the provenance models and jsonschema, which a check of another task never needs)."""
    if name == "SCHEMA_MODELS":
        models = globals()["SCHEMA_MODELS"] = _schema_models()
        return models
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
