"""Builders shared by the tests, from test_temporal_scoring_plugin.py."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from helpers.runs import Case, psv

IDX_HEADER = ["TaskID", "ProbeFileID", "ProbeFileName", "ProbeWidth", "ProbeHeight", "FrameCount"]


OUT_HEADER = [
    "ProbeFileID",
    "ConfidenceScore",
    "ProbeStatus",
    "VideoFrameSegments",
    "AudioSampleSegments",
    "VideoFrameOptOutSegments",
]


REF_DIR = "dataset/reference/manipulation-video"


REF_NAME = "MFC2019-manipulation-video-ref"


ITEM = "temporal"


def mcc(tp: float, tn: float, fp: float, fn: float) -> float:
    den = math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    return (tp * tn - fp * fn) / den if den else 0.0


SQRT_3_8 = mcc(20, 60, 0, 20)


class VideoCase:
    """An MFC2019 manipulation-video dataset with journal tables beside the reference, and a submission."""

    def __init__(
        self,
        omfc: Any,
        *,
        sys_rows: dict[str, list[str]] | None = None,
        ops: list[tuple[str, str, str]] | None = None,
        frame_count: int = 101,
        beside: bool = True,
    ) -> None:
        sys_rows = sys_rows or {}
        rows = {"v1": ["Processed", "[[21, 41]]", "[]", "[]"], "v2": ["Processed", "[]", "[]", "[]"], **sys_rows}
        ids = sorted(rows)
        self.case: Case = omfc.case(
            "MFC2019",
            "manipulation-video",
            header=OUT_HEADER,
            rows=[[i, 0.5, *rows[i]] for i in ids],
            index_header=IDX_HEADER,
            index_rows=[["manipulation-video", i, f"probe/{i}.mp4", 320, 240, frame_count] for i in ids],
        )
        ops = (
            ops
            if ops is not None
            else [("v1", "PasteFrames", "[[21, 41]]"), ("v1", "Blur", "[[61, 81]]"), ("v2", "Blur", "[[11, 31]]")]
        )
        join = [[p, f"j{p}", f"n{k}", f"n{k + 1}"] for k, (p, _, _) in enumerate(ops)]
        mask = [[f"j{p}", f"n{k}", f"n{k + 1}", op, frames] for k, (p, op, frames) in enumerate(ops)]
        ref = [["manipulation-video", i, f"probe/{i}.mp4", "Y", f"j{i}"] for i in ids]
        self.reference = omfc.write(
            f"{REF_DIR}/{REF_NAME}.csv", psv(["TaskID", "ProbeFileID", "ProbeFileName", "IsTarget", "JournalName"], ref)
        )
        where = REF_DIR if beside else "elsewhere"
        self.join = omfc.write(
            f"{where}/{REF_NAME}-probejournaljoin.csv",
            psv(["ProbeFileID", "JournalName", "StartNodeID", "EndNodeID"], join),
        )
        self.mask = omfc.write(
            f"{where}/{REF_NAME}-journalmask.csv",
            psv(["JournalName", "StartNodeID", "EndNodeID", "Operation", "VideoFrame"], mask),
        )
        self.root: Path = omfc.root

    def run(self, *extra: str, only: bool = True) -> Any:
        return self.case.run(
            "--omfc-reference", str(self.reference), *(["--omfc-score", "temporal"] if only else []), *extra
        )

    def json(self, *extra: str) -> tuple[Any, dict[str, Any]]:
        path = self.root / "out" / "metrics.json"
        res = self.run("--omfc-metrics-json", str(path), *extra)
        return res, json.loads(path.read_text())


def props(res: Any, item: str) -> dict[str, Any]:
    return dict(res.props[item])
