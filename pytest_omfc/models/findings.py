"""The findings JSON (``--omfc-findings-json``): every rule's outcome and findings, the scores and gates that
ran, and what produced the run.  The model documents the shape and gives ``schemas/findings.FindingsDocument.json``;
the plugin writes plain dictionaries of this shape (docs/outputs.md, Findings JSON)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

__all__ = ["FINDINGS_SCHEMA", "FindingRecord", "FindingsDocument", "ItemRecord", "RuleRecord"]

#: the document's version: a consumer checks it; a change of the shape that breaks a reader changes it
FINDINGS_SCHEMA = "pytest-omfc-findings/1"

Outcome = Literal["passed", "failed", "skipped"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FindingRecord(_Strict):
    """One violation at one place, as the terminal prints it: the message ("must be X (got Y)") and its
    location (the file as findings show it, an archive member as ``archive:member``)."""

    message: str
    severity: Literal["error", "warning"]
    file: str | None = None
    line: int | None = None
    key: str | None = Field(None, description="the trial key (ProbeFileID, ...) of the row")
    column: str | None = None
    value: str | None = Field(None, description="the value found, as text")
    expected: str | None = Field(
        None, description='what the rule wanted, as text ("one of Processed, NonProcessed", "0"), where it states one'
    )


class FindingList(_Strict):
    total: int = Field(description="how many there were; only the first ones are listed (--omfc-max-findings)")
    findings: list[FindingRecord]


class RuleRecord(_Strict):
    """One rule item: the rule, its slice and EXPID, its outcome, its severity for the edition, the first line
    of its report, its error and warning findings, and why it was skipped."""

    rule: str
    slice: str | None = Field(None, description="the slice of a sliced rule, e.g. 1/4")
    expid: str | None = Field(None, description="the EXPID of an NC2017 package (or the package itself)")
    outcome: Outcome
    severity: Literal["error", "warning"]
    headline: str | None = None
    errors: FindingList
    warnings: FindingList
    skipped: str | None = None


class ItemRecord(_Strict):
    """A score or gate item: its name (``score::mask``, ``require::AUC>=0.8``), outcome and first line."""

    item: str
    expid: str | None = None
    outcome: Outcome
    message: str | None = None
    metrics: dict[str, float | int | None] | None = Field(
        None, description="a score item's metrics and counts as its JUnit properties carry them (null for NaN)"
    )


class Counts(_Strict):
    rules: int
    passed: int
    failed: int
    skipped: int
    errors: int = Field(description="error findings over every rule")
    warnings: int = Field(description="warning findings over every rule")


class FindingsDocument(_Strict):
    """The whole document."""

    schema_: Literal["pytest-omfc-findings/1"] = Field(alias="schema")
    plugin_version: str
    submission: str
    edition: str
    task: str
    verdict: Literal["passed", "failed"]
    counts: Counts
    rules: list[RuleRecord]
    items: list[ItemRecord] = Field(description="score and gate items, when they ran")
    run: dict[str, Any] = Field(description="what produced the run (as the metrics JSON's run)")
    #: the parsed submission of an ``omfc_validate`` run (a folder, not an archive, whose unpacked copy is gone),
    #: for ``omfc_score(validated=...)``: never serialised
    _checked: Any = PrivateAttr(default=None)
