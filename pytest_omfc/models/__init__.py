"""Pydantic models of everything a submission holds; ``schemas/`` is generated from them."""

from __future__ import annotations

from pydantic import BaseModel

from . import description, identifiers, provenance, segments, status, tabular
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


#: The NIST editions' models with a JSON Schema in ``schemas/``, by file stem.
SCHEMA_MODELS: dict[str, type[BaseModel]] = _schema_models()
