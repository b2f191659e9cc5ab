"""The pydantic models that document formats, and every NIST model with a JSON Schema in ``schemas/``.

A check never imports this module: the rules read the same formats with the plain code of
:mod:`.identifiers`, :mod:`.segments`, :mod:`.description` and the column table of :mod:`.columns`, and
only a provenance check imports pydantic (its JSON is validated with :mod:`.provenance`).
:mod:`pytest_omfc.schemagen` writes the schemas from :data:`SCHEMA_MODELS`; ``tests/test_schemas.py``
checks that :class:`SystemDescription` lists the fields of the plain class the DESC rules use.
"""

from __future__ import annotations

from typing import Annotated, ClassVar

from pydantic import BaseModel, Field, RootModel, model_validator

from .identifiers import CONDITIONS, EXPID_FIELDS, MFC19_RE, OPENMFC_RE, SYS_RE, VERSION_RE
from .segments import first_overlap

__all__ = [
    "Endpoint",
    "Interval",
    "IntervalList",
    "MFC19SubID",
    "NC17ExpID",
    "OpenMFCSubID",
    "SCHEMA_MODELS",
    "SystemDescription",
]

# --------------------------------------------------------------------------- submission identifiers (SUB-01...10)


class NC17ExpID(BaseModel):
    """``<TEAM>_<YEAR>_<DATA>_<TASK>_<CONDITION>_<SYS>_<VERSION>`` (NC2017 and MFC2018, SUB-01)."""

    fields: ClassVar[tuple[str, ...]] = EXPID_FIELDS
    TEAM: str = Field(min_length=1, pattern=r"^[^_]+$", description="SUB-02")
    YEAR: str = Field(description="challenge ID: NC17 (NC2017), MFC18 (MFC2018), NC2016 (MediScore test data) (SUB-03)")
    DATA: str = Field(min_length=1, description="dataset identifier (SUB-04)")
    TASK: str = Field(description="Manipulation, Splice, ProvenanceFiltering or Provenance, as the index (SUB-05)")
    CONDITION: str = Field(pattern="^(" + "|".join(CONDITIONS) + ")$", description="SUB-06")
    SYS: str = Field(pattern=SYS_RE.pattern, description="SUB-07")
    VERSION: str = Field(pattern=VERSION_RE.pattern, description="SUB-08")


class MFC19SubID(BaseModel):
    """``<SYS>_<VERSION>_[OPTIONAL]`` (MFC2019, SUB-09)."""

    pattern: ClassVar[str] = MFC19_RE.pattern
    SYS: str = Field(pattern=SYS_RE.pattern, description="SUB-07")
    VERSION: str = Field(pattern=VERSION_RE.pattern, description="SUB-08")
    OPTIONAL: str = Field("", description="free text NIST ignores; without it the '_' after VERSION is omitted")


class OpenMFCSubID(BaseModel):
    """A user-defined string of letters, digits, '-' and '_' (OpenMFC, SUB-10, D-02)."""

    SubID: str = Field(pattern=OPENMFC_RE.pattern)


# --------------------------------------------------------------------------- interval lists (VSEG-01...07)

Endpoint = Annotated[int, Field(ge=1, strict=True, description="1-based frame or sample number (VSEG-04, VSEG-05)")]
Interval = Annotated[
    tuple[Endpoint, Endpoint],
    Field(description="closed interval [start, end] with start <= end (VSEG-02, VSEG-03)"),
]


class IntervalList(RootModel[list[Interval]]):
    """A segment cell: ``[[3, 33], [40, 46]]``, or ``[]``; pairwise disjoint, in any order (VSEG-07, VSEG-08)."""

    root: list[Interval] = Field(
        description="JSON list of [start, end] pairs, 1-based and inclusive; [] for none (MFC19 §5.1.1)",
        examples=[[[3, 33], [40, 46]], []],
    )

    @model_validator(mode="after")
    def _well_formed(self) -> IntervalList:
        for start, end in self.root:
            if start > end:
                raise ValueError(f"interval [{start}, {end}] must have start <= end")
        hit = first_overlap(list(self.root))
        if hit is not None:
            a, b = (self.root[i] for i in hit)
            raise ValueError(f"intervals [{a[0]}, {a[1]}] and [{b[0]}, {b[1]}] must not share frames")
        return self


# --------------------------------------------------------------------------- the system description (DESC-01...04)


class SystemDescription(BaseModel):
    """The text of a system description and which of the plan's sections it has (by heading name)."""

    text: str
    sections_found: list[str] = []


def _schema_models() -> dict[str, type[BaseModel]]:
    """Schema file stem -> model (the NIST editions' models; ForgeryNet's live with its family and
    :mod:`pytest_omfc.schemagen` adds them)."""
    from . import provenance  # jsonschema and the provenance models
    from .tabular import INDEX_MODELS, LAYOUTS

    out: dict[str, type[BaseModel]] = {}
    for model in {m for m in INDEX_MODELS.values()}:
        out[f"index.{model.__name__}"] = model
    for model in {m for m in LAYOUTS.values()}:
        out[f"output.{model.__name__}"] = model
    out["subid.NC17ExpID"] = NC17ExpID
    out["subid.MFC19SubID"] = MFC19SubID
    out["subid.OpenMFCSubID"] = OpenMFCSubID
    out["description.SystemDescription"] = SystemDescription
    out["segments.IntervalList"] = IntervalList
    out["provenance.ProvenanceFiltering"] = provenance.ProvenanceFiltering
    out["provenance.ProvenanceGraph"] = provenance.ProvenanceGraph
    return dict(sorted(out.items()))


#: The NIST editions' models with a JSON Schema in ``schemas/``, by file stem.
SCHEMA_MODELS: dict[str, type[BaseModel]] = _schema_models()
