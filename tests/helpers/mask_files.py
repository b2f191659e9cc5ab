"""Builders shared by the tests, from scoring/test_mask_pipeline.py."""

from __future__ import annotations

import struct
import zlib
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from pytest_omfc.scoring.mask.run import score_masks

REF = np.full((4, 4), 255, dtype=np.uint8)
REF[:2, :2] = 0  # 4 GT pixels


NOKERN: dict[str, Any] = {"eks": 0, "dks": 0, "ntdks": 0}


def write_table(path: Path, rows: list[dict[str, Any]]) -> Path:
    cols = list(dict.fromkeys(c for r in rows for c in r))
    lines = ["|".join(cols)] + ["|".join(str(r.get(c, "")) for c in cols) for r in rows]
    path.write_text("\n".join(lines) + "\n")
    return path


def png(path: Path, arr: np.ndarray) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(arr).save(path)
    return path.name


class Data:
    """A manipulation dataset in tmp_path: add trials, then score."""

    def __init__(self, root: Path, task: str = "manipulation") -> None:
        self.root, self.task = root, task
        (root / "ref").mkdir()
        (root / "sys" / "mask").mkdir(parents=True)
        self.ref: list[dict[str, Any]] = []
        self.sys: list[dict[str, Any]] = []
        self.idx: list[dict[str, Any]] = []

    def trial(
        self,
        pid: str,
        ref: np.ndarray | None = REF,
        system: np.ndarray | bytes | None = REF,
        *,
        score: float = 0.5,
        target: str = "Y",
        sys_row: bool = True,
        **sys_cols: Any,
    ) -> None:
        ref_name = ""
        if ref is not None:
            ref_name = "ref/" + png(self.root / "ref" / f"{pid}.png", ref)
        self.ref.append(
            {"TaskID": "manipulation", "ProbeFileID": pid, "IsTarget": target, "ProbeMaskFileName": ref_name}
        )
        self.idx.append({"TaskID": "manipulation", "ProbeFileID": pid, "ProbeWidth": 4, "ProbeHeight": 4})
        if not sys_row:
            return
        out = ""
        if isinstance(system, bytes):
            (self.root / "sys" / "mask" / f"{pid}.png").write_bytes(system)
            out = f"mask/{pid}.png"
        elif system is not None:
            out = "mask/" + png(self.root / "sys" / "mask" / f"{pid}.png", system)
        self.sys.append({"ProbeFileID": pid, "ConfidenceScore": score, "OutputProbeMaskFileName": out, **sys_cols})

    def score(self, **kw: Any) -> Any:
        return score_masks(
            write_table(self.root / "index.csv", self.idx),
            write_table(self.root / "ref.csv", self.ref),
            write_table(self.root / "sys" / "sys.csv", self.sys),
            ref_dir=self.root,
            **{**NOKERN, **kw},
        )


def png_header_only(width: int, height: int, payload: int = 64) -> bytes:
    """A PNG whose header declares width x height grey pixels, with ``payload`` decoded bytes of IDAT."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    idat = zlib.compress(b"\x00" * payload)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")
