"""Builders shared by the tests, from test_scoring_plugin.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers.runs import psv

IDX_HEADER = ["TaskID", "ProbeFileID", "ProbeFileName", "ProbeWidth", "ProbeHeight"]


OUT_HEADER = ["ProbeFileID", "ConfidenceScore", "OutputProbeMaskFileName", "ProbeStatus", "ProbeOptOutPixelValue"]


REF_HEADER = ["TaskID", "ProbeFileID", "ProbeFileName", "IsTarget", "Collection"]


REF_REL = "reference/OpenMFC20_Image-IMDL-ref.csv"  # relative to the dataset root


#: (ProbeFileID, IsTarget, score, Collection), in reference order (= MediScore's row order).
TRIALS = [
    ("0001", "Y", 0.9, "A"),
    ("0002", "Y", 0.8, "B"),
    ("0005", "N", 0.7, "A"),
    ("0003", "Y", 0.6, "A"),
    ("0006", "N", 0.5, "A"),
    ("0004", "Y", 0.4, "B"),
    ("0007", "N", 0.3, "B"),
    ("0008", "N", 0.2, "B"),
]


JOIN = psv(
    ["ProbeFileID", "JournalName", "StartNodeID", "EndNodeID"],
    [
        ["0001", "J1", "n1", "n2"],
        ["0002", "J2", "n1", "n2"],
        ["0003", "J3", "n1", "n2"],
        ["0003", "J3", "n2", "n3"],
        ["0004", "J4", "n1", "n2"],
    ],
)


MASK = psv(
    ["JournalName", "StartNodeID", "EndNodeID", "Operation", "Purpose"],
    [
        ["J1", "n1", "n2", "PasteSplice", "add"],
        ["J2", "n1", "n2", "Blur", "remove"],
        ["J3", "n1", "n2", "PasteSplice", "add"],
        ["J3", "n2", "n3", "Blur", "remove"],
        ["J4", "n1", "n2", "Blur", "remove"],
    ],
)


class Scoring:
    """A written dataset + submission + reference, run with scoring options."""

    def __init__(self, case: Any, root: Path) -> None:
        self.case = case
        self.root = root
        self.reference = root / "dataset" / REF_REL

    def args(self, *extra: str) -> list[str]:
        return [*self.case.args, "-p", "no:cacheprovider", "--omfc-reference", str(self.reference), *extra]

    def run(self, *extra: str) -> Any:
        return self.case.run("--omfc-reference", str(self.reference), *extra)

    def json(self, *extra: str) -> dict[str, Any]:
        path = self.root / "out" / "metrics.json"
        self.run("--omfc-metrics-json", str(path), *extra)
        return json.loads(path.read_text(encoding="utf-8"))


def make(
    omfc: Any,
    *,
    drop: tuple[str, ...] = (),
    status: dict[str, str] | None = None,
    score: dict[str, str] | None = None,
    reference: str | None = None,
    journal: bool = True,
    csv_text: str | None = None,
    **kw: Any,
) -> Scoring:
    ids = sorted(t[0] for t in TRIALS)
    rows = [
        [i, (score or {}).get(i, s), "", (status or {}).get(i, "Processed"), ""]
        for i, _, s, _ in TRIALS
        if i not in drop
    ]
    case = omfc.case(
        "OpenMFC2020",
        "IMDL",
        header=OUT_HEADER,
        rows=rows,
        csv_text=csv_text,
        index_header=IDX_HEADER,
        index_rows=[["IMDL", i, f"probe/{i}.jpg", 640, 480] for i in ids],
        **kw,
    )
    ref_text = reference or psv(REF_HEADER, [["IMDL", i, f"probe/{i}.jpg", t, c] for i, t, _, c in TRIALS])
    omfc.write(f"dataset/{REF_REL}", ref_text)
    if journal:
        omfc.write("dataset/reference/OpenMFC20_Image-IMDL-ref-probejournaljoin.csv", JOIN)
        omfc.write("dataset/reference/OpenMFC20_Image-IMDL-ref-journalmask.csv", MASK)
    return Scoring(case, omfc.root)
