"""Builders shared by the tests, from test_mask_scoring_plugin.py."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from PIL import Image

from helpers.runs import psv
from pytest_omfc.scoring.mask.run import score_masks

IDX_HEADER = ["TaskID", "ProbeFileID", "ProbeFileName", "ProbeWidth", "ProbeHeight"]


OUT_HEADER = ["ProbeFileID", "ConfidenceScore", "OutputProbeMaskFileName", "ProbeStatus", "ProbeOptOutPixelValue"]


REF_HEADER = ["TaskID", "ProbeFileID", "ProbeFileName", "IsTarget", "ProbeMaskFileName", "Collection"]


REF_REL = "reference/OpenMFC20_Image-IMDL-ref.csv"


NOKERN = [
    "--omfc-erode-kernel-size",
    "0",
    "--omfc-dilate-kernel-size",
    "0",
    "--omfc-nonselected-dilate-kernel-size",
    "0",
]


REF = np.full((16, 16), 255, dtype=np.uint8)
REF[4:12, 4:12] = 0


SHIFTED = np.full((16, 16), 255, dtype=np.uint8)
SHIFTED[6:14, 6:14] = 0


def png_bytes(arr: np.ndarray) -> bytes:
    import io

    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format="PNG")
    return buf.getvalue()


class MaskCase:
    """A dataset with mask references + a submission with system masks."""

    def __init__(
        self,
        omfc: Any,
        systems: dict[str, np.ndarray | bytes | None],
        *,
        extra_ref: dict[str, str] | None = None,
        pixel: dict[str, str] | None = None,
        ref_masks: bool = True,
    ) -> None:
        ids = sorted(systems) + ["0009"]  # 0009: a non-target
        rows, files = [], {}
        for i in ids:
            sysm = systems.get(i)
            name = ""
            if sysm is not None:
                name = f"mask/{i}.png"
                files[name] = sysm if isinstance(sysm, bytes) else png_bytes(sysm)
            rows.append([i, 0.9 if i != "0009" else 0.1, name, "Processed", (pixel or {}).get(i, "")])
        self.case = omfc.case(
            "OpenMFC2020",
            "IMDL",
            header=OUT_HEADER,
            rows=rows,
            index_header=IDX_HEADER,
            index_rows=[["IMDL", i, f"probe/{i}.jpg", 16, 16] for i in ids],
            files=files,
        )
        ref_rows = []
        for i in ids:
            target = i != "0009"
            mask = f"reference/mask/{i}.png" if target else ""
            if target and ref_masks and i not in (extra_ref or {}):
                omfc.write(f"dataset/{mask}", png_bytes(REF))
            ref_rows.append(
                [
                    "IMDL",
                    i,
                    f"probe/{i}.jpg",
                    "Y" if target else "N",
                    (extra_ref or {}).get(i, mask),
                    "A" if i < "0003" else "B",
                ]
            )
        self.reference = omfc.write(f"dataset/{REF_REL}", psv(REF_HEADER, ref_rows))
        self.root = omfc.root

    def run(self, *extra: str) -> Any:
        return self.case.run("--omfc-reference", str(self.reference), *extra)

    def json(self, *extra: str) -> dict[str, Any]:
        path = self.root / "out" / "metrics.json"
        self.run("--omfc-metrics-json", str(path), *extra)
        return json.loads(path.read_text(encoding="utf-8"))

    def engine(self, **kw: Any) -> Any:
        """The engine on the same files (what the plugin must reproduce)."""
        return score_masks(
            self.case.index,
            self.reference,
            self.case.submission / f"{self.case.submission.name}.csv",
            ref_dir=self.root / "dataset",
            **kw,
        )


def props(res: Any, rid: str) -> dict[str, Any]:
    return dict(res.props[rid])
