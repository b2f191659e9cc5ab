"""Fuzzing the ForgeryNet edition (issue 12 follow-up): hypothesis mutates the valid bundled
ForgeryNet submissions, and their references, and the plugin must judge every one of them.

Targets: the temporal result JSON (structure, then text and bytes), the classification CSV
(2-way video, 3-way image: cells, rows, columns, bytes), the spatial CSV with its PNG masks
(cells, mask paths, PNG chunks and bytes) and, in a test of its own, the reference files
(ground-truth JSON, label CSV), since a portal may be handed a broken reference.  Properties are
those of tests/hostile/test_fuzz.py (exit code 0 or 1, no traceback / INTERNALERROR / MemoryError,
bounded RSS, nothing written into the submission or the dataset) plus: "could not run" never
appears; it is the plugin's catch-all for an exception in a rule or scorer, i.e. a bug.

The mutation strategies are those of tests/hostile/test_fuzz.py (imported; its profiles ``default`` and
``deep`` apply here too): ``HYPOTHESIS_PROFILE=deep pytest tests/hostile/test_fuzz_forgerynet.py -n 2``.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from helpers.fuzz import EXAMPLES, Built, Runner, RunResult, assert_properties, snapshot
from helpers.fuzz_cases import ENCODINGS, NEWLINES, apply_bytes, byte_op, mutate_csv, mutate_png, png_mutation
from helpers.fuzz_cases import mutate_json_doc as mutate_json
from hypothesis import example, given
from hypothesis import strategies as st

pytestmark = pytest.mark.fuzz

FNET_DATA = EXAMPLES / "datasets" / "ForgeryNet"
FNET_SUBS = EXAMPLES / "submissions" / "forgerynet"

#: task -> (valid example submission, reference, classes, result file extension)
BASES: dict[str, tuple[str, str, int, str]] = {
    "image-classification": ("p-fnet_1_image", "image_cls_3way_ref.csv", 3, "csv"),
    "video-classification": ("p-fnet_1_video", "video_cls_ref.csv", 2, "csv"),
    "spatial": ("p-fnet_1_spatial", "spatial_ref.csv", 2, "csv"),
    "temporal": ("p-fnet_1_temporal", "temporal_gt.json", 2, "json"),
}


@dataclass
class FnetBuilt(Built):
    """A ForgeryNet case: ``index`` is the reference file (its directory is the dataset, snapshotted)."""

    task: str = ""
    classes: int = 2
    ext: str = "csv"

    @property
    def result(self) -> Path:
        return self.submission / f"{self.submission.name}.{self.ext}"

    def args(self) -> list[str]:
        extra = [f"--omfc-classes={self.classes}"] if self.classes != 2 else []
        return [
            f"--omfc-submission={self.submission}",
            "--omfc-edition=ForgeryNet",
            f"--omfc-task={self.task}",
            f"--omfc-reference={self.index}",
            *extra,
        ]


def fnet_case(root: Path, task: str) -> FnetBuilt:
    """A copy of the valid example of ``task`` and of the whole ForgeryNet example dataset."""
    sub_id, ref, classes, ext = BASES[task]
    shutil.copytree(FNET_SUBS / task / sub_id, root / sub_id)
    shutil.copytree(FNET_DATA, root / "dataset")
    return FnetBuilt(root, root / sub_id, root / "dataset" / ref, task=task, classes=classes, ext=ext)


def judge(runner: Runner, built: FnetBuilt) -> RunResult:
    """Run the plugin on ``built``, assert the NIST fuzz properties and that no rule or scorer
    "could not run"; the case's files are removed after."""
    before = snapshot(built.submission) | snapshot(built.index.parent)
    try:
        res = runner.run(built)
        assert_properties(res, before, snapshot(built.submission) | snapshot(built.index.parent))
        hits = [line[:300] for line in res.output.splitlines() if "could not run" in line]
        assert not hits, "a rule or scorer could not run (a bug):\n" + "\n".join(hits[:10])
        return res
    finally:
        shutil.rmtree(built.root, ignore_errors=True)


# ------------------------------------------------------------------ JSON (temporal results, ground truth)

FNET_KEYS = [
    "version",
    "results",
    "database",
    "segment",
    "score",
    "label",
    "annotations",
    "duration",
    "subset",
    "vid_t001",
    "vid_t002",
    "vid_t003",
    "vid_t004",
    "vid_t999",
]
fnet_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(),
    st.sampled_from([0, 1, -1, 0.5, 1e308, -0.0, 1e-320, "Fake", "Real", "", "vid_t001", "0.5", "NaN", "validation"]),
    st.text(max_size=10),
)
fnet_value = st.recursive(
    fnet_leaf,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(FNET_KEYS) | st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=12,
)
json_op = st.one_of(
    st.tuples(st.just("set"), st.lists(st.integers(0, 20), max_size=5), fnet_value),
    st.tuples(st.just("delete"), st.lists(st.integers(0, 20), min_size=1, max_size=5)),
    st.tuples(st.just("dup"), st.lists(st.integers(0, 20), min_size=1, max_size=5), st.integers(2, 2000)),
)
json_text = st.one_of(
    st.just(("plain",)),
    st.just(("plain",)),
    st.tuples(st.just("duplicate-key"), st.sampled_from(FNET_KEYS[:3]), fnet_value),
    st.tuples(st.just("nest"), st.sampled_from([10, 1000, 100_000])),
    st.tuples(st.just("encoding"), st.sampled_from(["utf-16", "utf-8-sig", "latin-1", "utf-32"])),
    st.tuples(st.just("long-string"), st.sampled_from([10_000, 1_000_000])),
    st.tuples(
        st.just("number"), st.sampled_from(["1e999", "-1e999", "NaN", "Infinity", "1" * 5000, "0." + "0" * 5000 + "1"])
    ),
)
json_mutation = st.tuples(st.lists(json_op, max_size=4), json_text, st.lists(byte_op, max_size=2))


@example(mutation=([], ("nest", 100_000), []))  # deeper than Python's recursion limit
@example(mutation=([("set", [1, 0, 0, 0], [5.0, 1.0])], ("plain",), []))  # a reversed segment
@given(mutation=json_mutation)
def test_fuzz_temporal_json(runner: Runner, fresh: Callable[[], Path], mutation: tuple[Any, ...]) -> None:
    built = fnet_case(fresh(), "temporal")
    built.result.write_bytes(mutate_json(json.loads(built.result.read_text()), *mutation))
    judge(runner, built)


# ------------------------------------------------------------------ CSV (classification, spatial)

FNET_CELLS = [
    "",
    " ",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "1e309",
    "-0",
    "0x1p-2",
    "1_0",
    "\u0663",
    " 0.5",
    "0.5 ",
    '"0.5"',
    '"',
    "|",
    "\x00",
    "\r",
    "\u2028",
    "\x1b[31mred",
    "\u202e",
    "\ufeff",
    "0",
    "1",
    "2",
    "3",
    "16",
    "-1",
    "1.5",
    "0.1",
    "1e-320",
    "img_0001",
    "img_0005",
    "vid_0001",
    "vid_0004",
    "face_0001",
    "face_0003",
    "face_9999",
    "ID",
    "Score",
    "Label",
    "P0",
    "P1",
    "P2",
    "P3",
    "MaskFileName",
    "masks/face_0001.png",
    "masks/face_0002.png",
    "masks/",
    "masks",
    "../../dataset/spatial_maps/face_0001.png",
    "/etc/passwd",
    "masks/../masks/face_0001.png",
    "masks/missing.png",
    "masks\\face_0001.png",
    "p-fnet_1_spatial.csv",
    "a" * 5000,
    "0." + "1" * 400,
    "1" * 5000,
]
fnet_cell = st.one_of(st.sampled_from(FNET_CELLS), st.text(max_size=12))
csv_op = st.one_of(
    st.tuples(st.just("set"), st.integers(0, 20), st.integers(0, 5), fnet_cell),
    st.tuples(st.just("drop_row"), st.integers(0, 20)),
    st.tuples(st.just("dup_row"), st.integers(0, 20), st.integers(1, 3)),
    st.tuples(st.just("swap_cols"), st.integers(0, 5), st.integers(0, 5)),
    st.tuples(st.just("drop_col"), st.integers(0, 5)),
    st.tuples(st.just("add_col"), st.integers(0, 5), fnet_cell),
    st.tuples(st.just("raw_line"), st.integers(0, 20), st.text(max_size=30)),
    st.tuples(
        st.just("tail"),
        st.sampled_from(["junk", "", "a|b", "|||||", '"', "img_0001|0.1|0.2|0.7"]),
        st.integers(1, 2000),
    ),
)
csv_mutation = st.tuples(st.lists(csv_op, max_size=6), NEWLINES, ENCODINGS, st.lists(byte_op, max_size=3))


@example(task="image-classification", mutation=([("tail", "junk", 200_000)], "\n", "utf-8", []))
@example(task="video-classification", mutation=([("set", 1, 1, "1e309")], "\n", "utf-8", []))
# found by the fuzzer: a header without P0 and a row of the wrong width failed FNET-01, so FNET-03 was
# skipped, not failed, and FNET-05/06 (requiring FNET-03 only) read the missing column: "could not run: KeyError"
@example(task="image-classification", mutation=([("drop_col", 1), ("raw_line", 2, "a|b|c|d|e")], "\n", "utf-8", []))
@given(task=st.sampled_from(["image-classification", "video-classification"]), mutation=csv_mutation)
def test_fuzz_classification_csv(
    runner: Runner, fresh: Callable[[], Path], task: str, mutation: tuple[Any, ...]
) -> None:
    """The 3-way image and the 2-way video classification results."""
    built = fnet_case(fresh(), task)
    built.result.write_bytes(mutate_csv(built.result.read_text(), *mutation))
    judge(runner, built)


@example(mutation=([("set", 1, 2, "masks/face_0002.png")], "\n", "utf-8", []), mask=None)  # one mask for two faces
# the same for FNET-07/08: no MaskFileName column and a row of the wrong width (FNET-01 fails)
@example(mutation=([("drop_col", 2), ("raw_line", 2, "a|b|c|d|e")], "\n", "utf-8", []), mask=None)
@given(
    mutation=csv_mutation,
    mask=st.one_of(st.none(), st.tuples(st.sampled_from(["face_0001", "face_0002", "face_0003"]), png_mutation)),
)
def test_fuzz_spatial(
    runner: Runner, fresh: Callable[[], Path], mutation: tuple[Any, ...], mask: tuple[str, tuple[Any, ...]] | None
) -> None:
    """The spatial CSV (scores and mask paths) and, in some examples, one of its PNG masks."""
    built = fnet_case(fresh(), "spatial")
    built.result.write_bytes(mutate_csv(built.result.read_text(), *mutation))
    if mask is not None:
        png = built.submission / "masks" / f"{mask[0]}.png"
        png.write_bytes(mutate_png(png.read_bytes(), *mask[1]))
    judge(runner, built)


# ------------------------------------------------------------------ the reference


@example(task="temporal", mutation=([("set", [1, 0, 0, 0, 0], [6.0, 2.0])], ("plain",), []), gt_mask=None)
@example(task="spatial", mutation=([("set", 1, 2, "../../etc/passwd")], "\n", "utf-8", []), gt_mask=None)
@given(
    task=st.sampled_from(sorted(BASES)),
    mutation=st.one_of(json_mutation, csv_mutation),
    gt_mask=st.one_of(st.none(), png_mutation),
)
def test_fuzz_reference(
    runner: Runner, fresh: Callable[[], Path], task: str, mutation: tuple[Any, ...], gt_mask: tuple[Any, ...] | None
) -> None:
    """A broken reference (ground-truth JSON, label CSV, a spatial ground-truth map) is judged too:
    a JSON mutation applies to the temporal ground truth, a CSV mutation to a label CSV."""
    built = fnet_case(fresh(), task)
    is_json = len(mutation) == 3  # (ops, text op, bytes) rather than (ops, newline, encoding, bytes)
    if built.ext == "json" and is_json:
        built.index.write_bytes(mutate_json(json.loads(built.index.read_text()), *mutation))
    elif built.ext == "csv" and not is_json:
        built.index.write_bytes(mutate_csv(built.index.read_text(), *mutation))
    else:  # the other kind's mutation: keep only its byte edits
        built.index.write_bytes(apply_bytes(built.index.read_bytes(), mutation[-1]))
    if gt_mask is not None and task == "spatial":
        png = built.index.parent / "spatial_maps" / "face_0001.png"
        png.write_bytes(mutate_png(png.read_bytes(), *gt_mask))
    judge(runner, built)
