"""schemas/ is generated from pytest_omfc.schemagen.SCHEMA_MODELS and stays in step with the models.

Each schema must accept a valid sample and reject an invalid one with
jsonschema, and pydantic must agree on both (the schema is only useful to
tools that do not import pytest-omfc if it says what the models say).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pydantic
import pytest
from helpers.paths import REPO
from pydantic import BaseModel, ValidationError

from pytest_omfc import schemagen
from pytest_omfc.schemagen import SCHEMA_MODELS

SCHEMAS = REPO / "schemas"

_IMG = {"ProbeFileID": "OpenMFC2020_0101", "ConfidenceScore": 0.93, "OutputProbeMaskFileName": "mask/a.png"}
_SPL = {
    "ProbeFileID": "MFC2019_0001",
    "DonorFileID": "MFC2019_0002",
    "ConfidenceScore": 0.4,
    "OutputProbeMaskFileName": "mask/p.png",
    "OutputDonorMaskFileName": "",
}
_PROV = {"ProvenanceProbeFileID": "NC2017_0007", "ProvenanceOutputFileName": "jsons/NC2017_0007.json"}
_VID = {
    "ProbeFileID": "MFC2019_1094",
    "ConfidenceScore": 0.91,
    "ProbeStatus": "OptOutSpatial",
    "VideoFrameSegments": "[[30, 33]]",
    "AudioSampleSegments": "[]",
    "VideoFrameOptOutSegments": "[]",
}
_NODE = {"id": "n0", "file": "world/a.jpg", "fileid": "a", "nodeConfidenceScore": 0.9}
_INDEX = {
    "TaskID": "Image Manipulation",
    "ProbeFileID": "OpenMFC2020_0101",
    "ProbeFileName": "probe/a.jpg",
    "ProbeWidth": 64,
    "ProbeHeight": 48,
}

#: schema stem -> (a valid instance, an invalid one and what makes it invalid)
SAMPLES: dict[str, tuple[Any, Any]] = {
    "description.SystemDescription": ({"text": "Section 1 Submission Identifier(s)\np-baseline_3_imdl\n"}, {}),
    "index.ImageIndexRow": (_INDEX, {**_INDEX, "ProbeWidth": "wide"}),
    "index.VideoIndexRow": ({**_INDEX, "FrameCount": 120}, {**_INDEX, "FrameCount": "many"}),
    "index.SpliceIndexRow": (
        {**_INDEX, "DonorFileID": "d1", "DonorFileName": "world/d1.jpg", "DonorWidth": 64, "DonorHeight": 48},
        {**_INDEX, "DonorFileName": "world/d1.jpg"},
    ),
    "index.EventIndexRow": ({**_INDEX, "EventName": "Concert"}, _INDEX),
    "index.CameraIndexRow": ({**_INDEX, "TrainCamID": "PAR9082"}, _INDEX),
    "index.ProvenanceIndexRow": (
        {"TaskID": "provenance", "ProvenanceProbeFileID": "p1", "ProvenanceProbeFileName": "probe/p1.jpg"},
        {
            "TaskID": "provenance",
            "ProvenanceProbeFileID": "p1",
            "ProvenanceProbeFileName": "probe/p1.jpg",
            "ProvenanceProbeWidth": "wide",
        },
    ),
    "output.NC17ImageOutput": ({**_IMG, "ConfidenceScore": 7.5, "IsOptOut": "N"}, {**_IMG, "IsOptOut": "Maybe"}),
    "output.MFCImageOutput": (
        {**_IMG, "ProbeStatus": "OptOutLocalization", "ProbeOptOutPixelValue": 255},
        {**_IMG, "ConfidenceScore": 1.7, "ProbeStatus": "Processed", "ProbeOptOutPixelValue": None},
    ),
    "output.OpenMFCImageOutput": (
        {**_IMG, "ProbeStatus": "Processed", "ProbeOptOutPixelValue": None},
        {**_IMG, "ProbeStatus": "OptOutAll", "ProbeOptOutPixelValue": None},
    ),
    "output.NC17VideoOutput": (
        {"ProbeFileID": "v1", "ConfidenceScore": -3.2, "IsOptOut": "Y"},
        {"ProbeFileID": "v1", "ConfidenceScore": -3.2, "IsOptOut": "Detection"},
    ),
    "output.MFCVideoOutput": (_VID, {**_VID, "ProbeStatus": "OptOut"}),
    "output.OpenMFCVideoOutput": (
        {"ProbeFileID": "v1", "ConfidenceScore": 0.8, "ProbeStatus": "Processed"},
        {
            "ProbeFileID": "v1",
            "ConfidenceScore": 0.8,
            "ProbeStatus": "Processed",
            "OutputProbeMaskFileName": "mask/v1.hdf5",
        },
    ),
    "output.NC17SpliceOutput": ({**_SPL, "IsOptOut": "N"}, {**_SPL, "DonorFileID": None, "IsOptOut": "N"}),
    "output.MFCSpliceOutput": (
        {**_SPL, "ProbeStatus": "Processed", "DonorStatus": "FailedValidation"},
        {**_SPL, "ProbeStatus": "Processed", "DonorStatus": "OptOutAll"},
    ),
    "output.EventOutput": (
        {"ProbeFileID": "e1", "EventName": "Concert", "ConfidenceScore": 0.0, "ProbeStatus": "OptOut"},
        {"ProbeFileID": "e1", "EventName": "Concert", "ConfidenceScore": 0.0, "ProbeStatus": "OptOutAll"},
    ),
    "output.CameraOutput": (
        {**_IMG, "TrainCamID": "PAR9082", "ProbeStatus": "Processed", "ProbeOptOutPixelValue": None},
        {**_IMG, "ProbeStatus": "Processed", "ProbeOptOutPixelValue": None},
    ),
    "output.NC17ProvenanceOutput": ({**_PROV, "ConfidenceScore": 12.0, "IsOptOut": "N"}, {**_PROV, "IsOptOut": "N"}),
    "output.MFC18ProvenanceOutput": (
        {**_PROV, "ConfidenceScore": 0.5, "ProvenanceProbeStatus": "OptOut"},
        {**_PROV, "ConfidenceScore": 0.5, "ProvenanceProbeStatus": "Bogus"},
    ),
    "output.MFC19ProvenanceOutput": (
        {**_PROV, "ProvenanceProbeStatus": "Processed"},
        {**_PROV, "ProvenanceProbeStatus": "Processed", "ConfidenceScore": "high"},
    ),
    "subid.NC17ExpID": (
        {
            "TEAM": "NIST",
            "YEAR": "NC17",
            "DATA": "DRYRUN17",
            "TASK": "Splice",
            "CONDITION": "ImgMeta",
            "SYS": "p-baseline",
            "VERSION": "3",
        },
        {
            "TEAM": "NIST",
            "YEAR": "NC17",
            "DATA": "DRYRUN17",
            "TASK": "Splice",
            "CONDITION": "ImgMeta",
            "SYS": "p-baseline",
            "VERSION": "0",
        },
    ),
    "subid.MFC19SubID": (
        {"SYS": "p-baseline", "VERSION": "3", "OPTIONAL": "splice"},
        {"SYS": "x-baseline", "VERSION": "3"},
    ),
    "subid.OpenMFCSubID": ({"SubID": "p-baseline_3_imdl"}, {"SubID": "p-baseline 3"}),
    "segments.IntervalList": ([[3, 33], [40, 46]], [[0, 5]]),
    "provenance.ProvenanceFiltering": (
        {"directed": True, "nodes": [_NODE], "links": []},
        {"nodes": [{**_NODE, "nodeConfidenceScore": True}]},
    ),
    "provenance.ProvenanceGraph": (
        {
            "nodes": [_NODE, {**_NODE, "id": "n1", "file": "world/b.jpg", "fileid": "b"}],
            "links": [{"source": 0, "target": 1, "relationshipConfidenceScore": 0.7}],
        },
        {"nodes": [_NODE], "links": [{"source": 0, "target": 0}]},
    ),
    # ForgeryNet (issue 12)
    "forgerynet.BinaryClassificationRow": ({"ID": "0042", "Score": 0.93}, {"ID": "0042", "Score": 1.7}),
    "forgerynet.MultiClassificationRow": (
        {"ID": "a", "P0": 0.2, "P1": 0.3, "P2": 0.5},
        {"ID": "a", "P0": 0.2, "P1": 1.5, "P2": 0.5},
    ),
    "forgerynet.ClassificationReferenceRow": ({"ID": "a", "Label": 2}, {"ID": "a", "Label": -1}),
    "forgerynet.SpatialRow": (
        {"ID": "a", "Score": 0.9, "MaskFileName": "masks/a.png"},
        {"ID": "a", "Score": 0.9, "MaskFileName": ""},
    ),
    "forgerynet.SpatialReferenceRow": (
        {"ID": "a", "Label": 1, "MaskFileName": "maps/a.png"},
        {"ID": "a", "Label": 2, "MaskFileName": ""},
    ),
    "forgerynet.Prediction": ({"segment": [1.5, 4.0], "score": 0.7, "label": "Fake"}, {"segment": [1.5], "score": 0.7}),
    "forgerynet.ActivityNetResults": (
        {"version": "1.3", "results": {"v1": [{"segment": [1, 2], "score": 0.5}]}, "external_data": {}},
        {"results": {"v1": {"segment": [1, 2], "score": 0.5}}},
    ),
    "forgerynet.Annotation": ({"segment": [0, 3], "label": "Fake"}, {"segment": "0-3"}),
    "forgerynet.VideoGroundTruth": ({"annotations": [], "duration": 8.0, "subset": "validation"}, {"duration": 8.0}),
    "forgerynet.ActivityNetGroundTruth": (
        {"database": {"v1": {"annotations": [{"segment": [0, 3]}]}}},
        {"database": []},
    ),
}


def _schema(stem: str) -> dict[str, Any]:
    return json.loads((SCHEMAS / f"{stem}.json").read_text(encoding="utf-8"))


def _samples(stem: str, schema: dict[str, Any]) -> tuple[Any, Any]:
    """The table's samples; for a model added since, its own ``examples`` minus a required key."""
    if stem in SAMPLES:
        return SAMPLES[stem]
    examples = schema.get("examples") or []
    required = schema.get("required") or []
    if not examples or not isinstance(examples[0], dict) or not required:
        pytest.skip(f"no samples for {stem}: add a valid and an invalid instance to SAMPLES in tests/test_schemas.py")
    valid = examples[0]
    return valid, {k: v for k, v in valid.items() if k != required[0]}


def _pydantic_accepts(model: type[BaseModel], instance: Any) -> bool:
    try:
        model.model_validate(instance)
    except ValidationError:
        return False
    return True


@pytest.mark.skipif(
    tuple(int(p) for p in pydantic.VERSION.split(".")[:2]) < (2, 14),
    reason="schemas/ is written with pydantic 2.14 or later (earlier releases leave out a root model's examples)",
)
def test_schemas_are_up_to_date() -> None:
    assert schemagen.drift(SCHEMAS) == [], "run: python -m pytest_omfc.schemagen schemas"


@pytest.mark.parametrize("stem", sorted(SCHEMA_MODELS))
def test_schema_accepts_valid_and_rejects_invalid(stem: str) -> None:
    schema = _schema(stem)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$id"] == f"urn:pytest-omfc:schema:{stem}" and schema["title"] == stem
    validator = jsonschema.Draft202012Validator(schema)
    valid, invalid = _samples(stem, schema)
    assert list(validator.iter_errors(valid)) == []
    assert list(validator.iter_errors(invalid)) != [], f"{stem} must reject {invalid!r}"
    model = SCHEMA_MODELS[stem]
    assert _pydantic_accepts(model, valid), f"the model {model.__name__} disagrees with its schema on {valid!r}"
    assert not _pydantic_accepts(model, invalid), f"the model {model.__name__} accepts {invalid!r}"


def test_output_rows_require_every_required_column() -> None:
    """An output row without OutputProbeMaskFileName is a CSV without that column (COL-02), not a blank mask."""
    validator = jsonschema.Draft202012Validator(_schema("output.OpenMFCImageOutput"))
    row = {"ProbeFileID": "a", "ConfidenceScore": 0.5, "ProbeStatus": "Processed", "ProbeOptOutPixelValue": None}
    assert [e.message for e in validator.iter_errors(row)] == ["'OutputProbeMaskFileName' is a required property"]


def test_check_reports_drift_and_write_removes_stale_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "old.Model.json").write_text("{}\n")
    assert schemagen.main(["--check", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert f"{tmp_path}/old.Model.json: stale (no model)" in out
    assert f"{tmp_path}/output.OpenMFCImageOutput.json: missing" in out
    assert schemagen.main([str(tmp_path)]) == 0
    assert not (tmp_path / "old.Model.json").exists()
    assert sorted(p.stem for p in tmp_path.glob("*.json")) == sorted(SCHEMA_MODELS)
    assert schemagen.main(["--check", str(tmp_path)]) == 0
    text = (tmp_path / "output.OpenMFCImageOutput.json").read_text()
    assert text.endswith("}\n") and text.startswith('{\n  "$defs"')


def test_the_column_table_a_check_reads_is_generated_from_the_models(monkeypatch: pytest.MonkeyPatch) -> None:
    """models/columns.py (the layouts and keys without pydantic, what the rules read) is schemagen's output:
    it says what the models say, and a change to a model shows as drift."""
    from pytest_omfc.models import columns, tabular

    assert schemagen.columns_drift() == [], "run: python -m pytest_omfc.schemagen schemas"
    assert set(columns.LAYOUTS) == set(tabular.LAYOUTS)
    for key, model in tabular.LAYOUTS.items():
        layout = columns.LAYOUTS[key]
        assert layout.name == model.__name__ and layout.status == model.status
        assert layout.columns == tuple(tabular.all_columns(model))
        assert layout.required == tuple(tabular.required_columns(model))
    assert columns.INDEX_KEYS == {task: model.key for task, model in tabular.INDEX_MODELS.items()}  # type: ignore[attr-defined]
    monkeypatch.setattr(tabular.OpenMFCImageOutput, "status", "IsOptOut")
    assert schemagen.columns_drift() == ["out of date: pytest_omfc/models/columns.py"]


def test_the_documented_description_lists_the_fields_of_the_parsed_one() -> None:
    """The schema description.SystemDescription comes from a pydantic mirror of the plain class the DESC rules use."""
    from dataclasses import fields

    from pytest_omfc.models import description, documents

    public = [f.name for f in fields(description.SystemDescription) if not f.name.startswith("_")]
    assert list(documents.SystemDescription.model_fields) == public == ["text", "sections_found"]
    assert documents.SystemDescription.__doc__ == description.SystemDescription.__doc__
