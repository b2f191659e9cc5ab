"""Builders shared by the tests, from test_col.py."""

from __future__ import annotations

from typing import Any

from helpers.runs import Case

IMG_IDX = ["TaskID", "ProbeFileID", "ProbeFileName", "ProbeWidth", "ProbeHeight"]


VID_IDX = IMG_IDX + ["FrameCount"]


SPL_IDX = IMG_IDX + ["DonorFileID", "DonorFileName", "DonorWidth", "DonorHeight"]


EV_IDX = IMG_IDX + ["EventName"]


CAM_IDX = IMG_IDX + ["TrainCamID"]


PROV_IDX = [
    "TaskID",
    "ProvenanceProbeFileID",
    "ProvenanceProbeFileName",
    "ProvenanceProbeWidth",
    "ProvenanceProbeHeight",
]


NC_IMG = ["ProbeFileID", "ConfidenceScore", "OutputProbeMaskFileName", "IsOptOut"]


MFC_IMG = ["ProbeFileID", "ConfidenceScore", "OutputProbeMaskFileName", "ProbeStatus", "ProbeOptOutPixelValue"]


NC_VID = ["ProbeFileID", "ConfidenceScore", "IsOptOut"]


MFC_VID = [
    "ProbeFileID",
    "ConfidenceScore",
    "ProbeStatus",
    "VideoFrameSegments",
    "AudioSampleSegments",
    "VideoFrameOptOutSegments",
]


OMFC_VID = ["ProbeFileID", "ConfidenceScore", "ProbeStatus"]  # D-05


NC_SPL = [
    "ProbeFileID",
    "DonorFileID",
    "ConfidenceScore",
    "OutputProbeMaskFileName",
    "OutputDonorMaskFileName",
    "IsOptOut",
]


MFC_SPL = NC_SPL[:-1] + ["ProbeStatus", "DonorStatus", "ProbeOptOutPixelValue", "DonorOptOutPixelValue"]


EV_OUT = ["ProbeFileID", "EventName", "ConfidenceScore", "ProbeStatus"]


CAM_OUT = [
    "ProbeFileID",
    "TrainCamID",
    "OutputProbeMaskFileName",
    "ConfidenceScore",
    "ProbeStatus",
    "ProbeOptOutPixelValue",
]


NC_PROV = ["ProvenanceProbeFileID", "ConfidenceScore", "ProvenanceOutputFileName", "IsOptOut"]


M18_PROV = ["ProvenanceProbeFileID", "ConfidenceScore", "ProvenanceOutputFileName", "ProvenanceProbeStatus"]


M19_PROV = ["ProvenanceProbeFileID", "ProvenanceOutputFileName", "ProvenanceProbeStatus"]  # D-06


#: trial keys per task kind (composite for splice, event and camera: IDX-01, D-28)
TRIALS: dict[str, list[dict[str, str]]] = {
    "probe": [{"ProbeFileID": p} for p in ("0042", "0043", "0044")],
    "splice": [{"ProbeFileID": p, "DonorFileID": d} for p, d in (("P1", "D1"), ("P1", "D2"), ("P2", "D1"))],
    "event": [{"ProbeFileID": p, "EventName": e} for p, e in (("P1", "E1"), ("P1", "E2"), ("P2", "E1"))],
    "camera": [{"ProbeFileID": p, "TrainCamID": c} for p, c in (("P1", "C1"), ("P1", "C2"), ("P2", "C1"))],
    "prov": [{"ProvenanceProbeFileID": p} for p in ("0042", "0043", "0044")],
}


#: (edition, TaskID of conftest.INDEX_NAMES) -> (index header, output header, trial kind, owning COL rule)
LAYOUTS: dict[tuple[str, str], tuple[list[str], list[str], str, str]] = {
    ("NC2017", "manipulation"): (IMG_IDX, NC_IMG, "probe", "COL-01"),
    ("MFC2018", "manipulation-image"): (IMG_IDX, MFC_IMG, "probe", "COL-02"),
    ("MFC2019", "manipulation-image"): (IMG_IDX, MFC_IMG, "probe", "COL-02"),
    ("OpenMFC2020", "IMDL"): (IMG_IDX, MFC_IMG, "probe", "COL-02"),
    ("OpenMFC2021", "IMDL"): (IMG_IDX, MFC_IMG, "probe", "COL-02"),
    ("NC2017", "manipulation-video"): (VID_IDX, NC_VID, "probe", "COL-05"),
    ("MFC2018", "manipulation-video"): (VID_IDX, MFC_VID, "probe", "COL-06"),
    ("MFC2019", "manipulation-video"): (VID_IDX, MFC_VID, "probe", "COL-06"),
    ("OpenMFC2020", "VMD"): (VID_IDX, OMFC_VID, "probe", "COL-07"),
    ("OpenMFC2020", "VGMD"): (VID_IDX, OMFC_VID, "probe", "COL-07"),
    ("NC2017", "splice"): (SPL_IDX, NC_SPL, "splice", "COL-08"),
    ("MFC2018", "splice"): (SPL_IDX, MFC_SPL, "splice", "COL-08"),
    ("MFC2019", "splice"): (SPL_IDX, MFC_SPL, "splice", "COL-08"),
    ("MFC2018", "eventverification"): (EV_IDX, EV_OUT, "event", "COL-10"),
    ("MFC2019", "eventverification"): (EV_IDX, EV_OUT, "event", "COL-10"),
    ("MFC2018", "camera"): (CAM_IDX, CAM_OUT, "camera", "COL-11"),
    ("MFC2019", "camera"): (CAM_IDX, CAM_OUT, "camera", "COL-11"),
    ("NC2017", "provenancefiltering"): (PROV_IDX, NC_PROV, "prov", "COL-12"),
    ("NC2017", "provenance"): (PROV_IDX, NC_PROV, "prov", "COL-12"),
    ("MFC2018", "provenancefiltering"): (PROV_IDX, M18_PROV, "prov", "COL-12"),
    ("MFC2018", "provenance"): (PROV_IDX, M18_PROV, "prov", "COL-12"),
    ("MFC2019", "provenancefiltering"): (PROV_IDX, M19_PROV, "prov", "COL-13"),
    ("MFC2019", "provenance"): (PROV_IDX, M19_PROV, "prov", "COL-13"),
}


OUT_DEFAULTS = {
    "ConfidenceScore": "0.5",
    "OutputProbeMaskFileName": "",
    "OutputDonorMaskFileName": "",
    "IsOptOut": "N",
    "ProbeStatus": "Processed",
    "DonorStatus": "Processed",
    "ProvenanceProbeStatus": "Processed",
    "ProbeOptOutPixelValue": "",
    "DonorOptOutPixelValue": "",
    "VideoFrameSegments": "[]",
    "AudioSampleSegments": "[]",
    "VideoFrameOptOutSegments": "[]",
}


IDX_DEFAULTS = {
    "ProbeWidth": 640,
    "ProbeHeight": 480,
    "DonorWidth": 320,
    "DonorHeight": 240,
    "FrameCount": 100,
    "ProvenanceProbeWidth": 640,
    "ProvenanceProbeHeight": 480,
}


def _value(col: str, trial: dict[str, str], defaults: dict[str, Any], task: str) -> Any:
    if col in trial:
        return trial[col]
    if col == "TaskID":
        return task
    if col in defaults:
        return defaults[col]
    if col == "ProvenanceOutputFileName":
        return f"jsons/{trial['ProvenanceProbeFileID']}.json"
    if col.endswith("FileName"):  # index file names
        stem = trial.get(col.replace("FileName", "FileID"), trial.get("ProbeFileID", "x"))
        return f"{'world' if col.startswith('Donor') else 'probe'}/{stem}.jpg"
    return ""


def layout_case(
    omfc: Any,
    edition: str = "OpenMFC2020",
    task: str = "IMDL",
    *,
    header: list[str] | None = None,
    trials: list[dict[str, str]] | None = None,
    index_trials: list[dict[str, str]] | None = None,
    **kw: Any,
) -> Case:
    """A valid case of ``edition``/``task`` (three trials), with the header or the system trials changed."""
    index_header, out_header, kind, _ = LAYOUTS[(edition, task)]
    header = header if header is not None else out_header
    trials = trials if trials is not None else TRIALS[kind]
    index_trials = index_trials if index_trials is not None else TRIALS[kind]
    rows = [[_value(c, t, OUT_DEFAULTS, task) for c in header] for t in trials]
    index_rows = [[_value(c, t, IDX_DEFAULTS, task) for c in index_header] for t in index_trials]
    return omfc.case(edition, task, header=header, rows=rows, index_header=index_header, index_rows=index_rows, **kw)
