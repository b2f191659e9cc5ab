"""Builders shared by the tests, from test_html_report.py."""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path

import numpy as np
from PIL import Image

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


SUB_NAME = "p-baseline_3_score-out-of-range"


INDEX_REL = "OpenMFC2020/indexes/OpenMFC20_Image-IMDL-index.csv"


REF_REL = "reference/IMDL/OpenMFC20_Image-IMDL-ref.csv"


def _rect(shape: tuple[int, int], rows: slice, cols: slice) -> Image.Image:
    """A grey mask: 0 (manipulated) on the rectangle, 255 elsewhere."""
    a = np.full(shape, 255, dtype=np.uint8)
    a[rows, cols] = 0
    return Image.fromarray(a, mode="L")


def example_case(root: Path, *, rich: bool = True, probe: str | None = None) -> tuple[Path, Path]:
    """A copy of the failing IMDL example under ``root``: (submission dir, index path).

    ``rich``: OpenMFC2020_0103 becomes a target with a reference mask, and OpenMFC2020_0102 gets a
    system mask (rows 20-43, cols 20-49) overlapping its reference region (rows 12-43, cols 30-61):
    after the no-score zone (eks 15, dks 11) there are TP, FN and FP pixels.  ``probe``: the ID
    OpenMFC2020_0101 is renamed to this text in the index, the reference and the system output.
    """
    sub = Path(shutil.copytree(EXAMPLES / "submissions" / "imdl" / SUB_NAME, root / SUB_NAME))
    dataset = Path(shutil.copytree(EXAMPLES / "datasets" / "OpenMFC2020", root / "OpenMFC2020"))
    csv, ref = sub / f"{SUB_NAME}.csv", dataset / REF_REL
    if rich:
        _rect((48, 64), slice(20, 44), slice(20, 50)).save(sub / "mask" / "OpenMFC2020_0102-mask.png")
        _rect((48, 64), slice(10, 40), slice(20, 56)).save(dataset / "reference/IMDL/mask/OpenMFC2020_0103-ref.png")
        text = csv.read_text(encoding="utf-8").replace(
            "OpenMFC2020_0102|0.08||", "OpenMFC2020_0102|0.08|mask/OpenMFC2020_0102-mask.png|"
        )
        csv.write_text(text, encoding="utf-8")
        text = ref.read_text(encoding="utf-8").replace(
            "OpenMFC2020_0103.jpg|N|", "OpenMFC2020_0103.jpg|Y|reference/IMDL/mask/OpenMFC2020_0103-ref.png"
        )
        ref.write_text(text, encoding="utf-8")
    if probe is not None:
        for path in (csv, ref, root / INDEX_REL):
            path.write_text(
                path.read_text(encoding="utf-8").replace("OpenMFC2020_0101|", f"{probe}|"), encoding="utf-8"
            )
    return sub, root / INDEX_REL


def text_of(page: str) -> str:
    """The page's text: tags dropped, entities decoded, blanks collapsed."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.DOTALL)
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))
