"""Submission identifier grammars per edition (SUB-01...10, D-01, D-02)."""

from __future__ import annotations

import re
from typing import ClassVar

from pydantic import BaseModel
from pydantic import Field

__all__ = ["NC17ExpID", "MFC19SubID", "OpenMFCSubID", "CONDITIONS", "SYS_RE", "VERSION_RE", "OPENMFC_RE"]

#: NC17 App. A conditions (SUB-06).
CONDITIONS = ("ImgOnly", "VidOnly", "ImgMeta", "VidMeta")
#: ``p-``/``c-`` then alphanumerics (SUB-07).
SYS_RE = re.compile(r"^[pc]-[A-Za-z0-9]+$")
#: an integer >= 1 (SUB-08).
VERSION_RE = re.compile(r"^[1-9][0-9]*$")
#: OpenMFC: no spaces or special characters; '-' and '_' allowed (SUB-10, D-02).
OPENMFC_RE = re.compile(r"^[A-Za-z0-9_-]+$")


class NC17ExpID(BaseModel):
    """``<TEAM>_<YEAR>_<DATA>_<TASK>_<CONDITION>_<SYS>_<VERSION>`` (NC2017 and MFC2018, SUB-01)."""

    fields: ClassVar[tuple[str, ...]] = ("TEAM", "YEAR", "DATA", "TASK", "CONDITION", "SYS", "VERSION")
    TEAM: str = Field(min_length=1, pattern=r"^[^_]+$", description="SUB-02")
    YEAR: str = Field(description="challenge ID, NC17 or MFC18 (SUB-03)")
    DATA: str = Field(min_length=1, description="dataset identifier (SUB-04)")
    TASK: str = Field(description="Manipulation, Splice, ProvenanceFiltering or Provenance (SUB-05)")
    CONDITION: str = Field(pattern="^(" + "|".join(CONDITIONS) + ")$", description="SUB-06")
    SYS: str = Field(pattern=SYS_RE.pattern, description="SUB-07")
    VERSION: str = Field(pattern=VERSION_RE.pattern, description="SUB-08")


class MFC19SubID(BaseModel):
    """``<SYS>_<VERSION>_[OPTIONAL]`` (MFC2019, SUB-09)."""

    pattern: ClassVar[str] = r"^[pc]-[A-Za-z0-9]+_[1-9][0-9]*(_.+)?$"
    SYS: str = Field(pattern=SYS_RE.pattern)
    VERSION: str = Field(pattern=VERSION_RE.pattern)
    OPTIONAL: str = ""


class OpenMFCSubID(BaseModel):
    """A user-defined string of letters, digits, '-' and '_' (OpenMFC, SUB-10)."""

    SubID: str = Field(pattern=OPENMFC_RE.pattern)
