"""Regenerate the tiny example datasets and submissions under ``examples/``.

    python examples/make_examples.py [OUT]      # OUT defaults to examples/ itself

Three task families, each with one valid submission and several invalid ones
that break one or two rules on purpose (named after what they
break): OpenMFC2020 IMDL, OpenMFC2020 VMD and MFC2019 manipulation-video;
and the four ForgeryNet-style tasks (issue 12, FNET rules) under
``submissions/forgerynet/<task>/`` with their references in ``datasets/ForgeryNet/``.
``EXPECTED.json`` maps every submission to its index and to the rule IDs that
must fail on it; ``tests/test_examples.py`` runs the plugin over each one and
checks that the committed files equal what this script writes.

The output is byte-for-byte deterministic: PNGs are written by hand with
stored (uncompressed) deflate blocks, so neither the Pillow nor the zlib
version changes a byte; the HDF5 mask is written without timestamps (its
bytes still depend on the HDF5 and zlib builds, so the test compares its
content instead).
Everything is tiny (64x48 pixels, a few rows), well under 1 MB in all.
"""

from __future__ import annotations

import io
import json
import shutil
import struct
import sys
import zlib
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
W, H = 64, 48  # probe size of every example image and video

# ------------------------------------------------------------------ deterministic PNG


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def _stored_zlib(data: bytes) -> bytes:
    """A zlib stream of stored deflate blocks: identical bytes with any zlib build."""
    out = bytearray(b"\x78\x01")
    step = 65535
    for start in range(0, max(len(data), 1), step):
        block = data[start : start + step]
        final = 1 if start + step >= len(data) else 0
        out += bytes([final]) + struct.pack("<HH", len(block), len(block) ^ 0xFFFF) + block
    out += struct.pack(">I", zlib.adler32(data) & 0xFFFFFFFF)
    return bytes(out)


def png(pixels: np.ndarray) -> bytes:
    """An 8-bit PNG: greyscale for a 2-D array, RGB for (h, w, 3)."""
    pixels = np.ascontiguousarray(pixels, dtype=np.uint8)
    height, width = pixels.shape[:2]
    color_type = 0 if pixels.ndim == 2 else 2
    raw = b"".join(b"\x00" + pixels[y].tobytes() for y in range(height))  # filter type 0 per row
    ihdr = struct.pack(">IIBBBBB", width, height, 8, color_type, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", _stored_zlib(raw)) + _chunk(b"IEND", b"")


def jpeg(pixels: np.ndarray) -> bytes:
    """A JPEG grey image, as ForgeryNet ships its maps (lossy: the tests compare these files by their decoded
    pixels, which do not depend on the encoder's version as the bytes may)."""
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(pixels, dtype=np.uint8)).save(buf, format="JPEG", quality=90)
    return buf.getvalue()


def png16(pixels: np.ndarray) -> bytes:
    """A 16-bit greyscale PNG (masks must be one byte per pixel: MASK-07)."""
    pixels = np.ascontiguousarray(pixels, dtype=">u2")
    height, width = pixels.shape
    raw = b"".join(b"\x00" + pixels[y].tobytes() for y in range(height))
    ihdr = struct.pack(">IIBBBBB", width, height, 16, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", _stored_zlib(raw)) + _chunk(b"IEND", b"")


#: the first bytes of a JPEG file (SOI, APP0 "JFIF"): what a mask saved with the wrong format starts with
JPEG_BYTES = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00" + bytes(64) + b"\xff\xd9"


def mask(width: int = W, height: int = H, box: tuple[int, int, int, int] = (8, 8, 24, 20)) -> np.ndarray:
    """A binary mask: 255 (not manipulated) with a black box (manipulated, MASK-08)."""
    out = np.full((height, width), 255, dtype=np.uint8)
    x0, y0, x1, y1 = box
    out[y0:y1, x0:x1] = 0
    return out


def hdf5_mask(blocks: dict[int, int]) -> bytes:
    """An MFC2019 video mask: group ``<0-indexed start frame>/masks`` of (frames, H, W) uint8 (VMASK-02, D-15)."""
    import h5py

    buf = io.BytesIO()
    with h5py.File(buf, "w", libver="earliest", track_order=False) as f:
        for start, frames in sorted(blocks.items()):
            data = np.stack([mask(box=(8 + i, 8, 24 + i, 20)) for i in range(frames)])
            f.create_group(str(start)).create_dataset(
                "masks", data=data, track_times=False, chunks=data.shape, compression="gzip", compression_opts=9
            )
    return buf.getvalue()


# ------------------------------------------------------------------ examples


@dataclass
class Example:
    """One submission directory and what it must fail."""

    family: str  # directory under submissions/
    sub_id: str
    index: str  # path of the index, relative to examples/
    header: list[str]
    rows: list[list[str]]
    description: str | None
    files: dict[str, bytes] = field(default_factory=dict)  # relative to the submission directory
    breaks: str = "nothing: the valid submission"
    #: rule ID -> strings its failure text must contain (the offending key, value, file...)
    fails: dict[str, list[str]] = field(default_factory=dict)
    #: rule ID -> why it may fail too (a consequence of the same defect)
    may_also_fail: dict[str, str] = field(default_factory=dict)
    sep: str = "|"
    csv_name: str | None = None  # default <sub_id>.csv

    @property
    def path(self) -> str:
        return f"submissions/{self.family}/{self.sub_id}"

    def csv_text(self) -> str:
        return "".join(self.sep.join(r) + "\n" for r in [self.header, *self.rows])

    def variant(self, sub_id: str, breaks: str, fails: dict[str, list[str]], **changes: object) -> Example:
        changes.setdefault("description", _retitle(self.description, self.sub_id, sub_id))
        return replace(self, sub_id=sub_id, breaks=breaks, fails=fails, **changes)  # type: ignore[arg-type]


def _retitle(text: str | None, old: str, new: str) -> str | None:
    return None if text is None else text.replace(old, new)


def _set(rows: list[list[str]], row: int, col: int, value: str) -> list[list[str]]:
    out = [list(r) for r in rows]
    out[row][col] = value
    return out


def psv(header: list[str], rows: list[list[object]]) -> str:
    return "".join("|".join(str(v) for v in r) + "\n" for r in [header, *rows])


DESCRIPTION_OPENMFC = """\
Section 1 Submission Identifier(s)
{sub_id}

Section 2 System Description
A toy example system for pytest-omfc: it thresholds local noise residuals and
renders the largest inconsistent region as a binary mask (0 = manipulated,
255 = not manipulated). Trials it does not process are probes it cannot
decode; they are marked NonProcessed with a score of 0 (OpenMFC plan 5.3,
documented here as resolution D-12 suggests).

Section 3 System Hardware Description and Runtime Computation
1 CPU core, no GPU; 2 seconds wall-clock time to process the index file;
no world data set is indexed; 50 MB resident memory.

Section 4 Training Data and Knowledge Sources
None beyond the provided OpenMFC corpora.

Section 5 References
None.
"""

DESCRIPTION_MFC19 = """\
Section 1 Submission Identifier(s)
{sub_id}

Section 2 System Description
A toy example system for pytest-omfc: it flags frame ranges whose motion
residuals are inconsistent and writes their masks as HDF5 blocks.

Section 3 OptOut Criteria
Spatial localization is opted out (OptOutSpatial) for probes shorter than
200 frames; NonProcessed marks probes that could not be decoded (score 0).

Section 4 System Hardware Description and Runtime Computation
1 CPU core, no GPU; 5 seconds wall-clock time to process the index file;
no world data set is indexed; 80 MB resident memory.

Section 5 Training Data and Knowledge Sources
None beyond the provided MFC2019 corpora.

Section 6 References
None.
"""

# -------------------------------------------------------------- OpenMFC2020 IMDL

IMDL_INDEX = "datasets/OpenMFC2020/indexes/OpenMFC20_Image-IMDL-index.csv"
IMDL_IDS = ["OpenMFC2020_0101", "OpenMFC2020_0102", "OpenMFC2020_0103", "OpenMFC2020_0104"]
IMG_HEADER = ["ProbeFileID", "ConfidenceScore", "OutputProbeMaskFileName", "ProbeStatus", "ProbeOptOutPixelValue"]


def imdl_index() -> str:
    header = ["TaskID", "ProbeFileID", "ProbeFileName", "ProbeWidth", "ProbeHeight", "ProbeFileSize", "HPDeviceID"]
    rows = [
        ["Image Manipulation", pid, f"probe/{pid}.jpg", W, H, 2100 + 17 * i, f"PAR90{82 + i}"]
        for i, pid in enumerate(IMDL_IDS)
    ]
    return psv(header, rows)


IMDL_REFERENCE = "datasets/OpenMFC2020/reference/IMDL/OpenMFC20_Image-IMDL-ref.csv"
IMDL_TARGETS = {IMDL_IDS[0], IMDL_IDS[1]}  # scores 0.93 and 0.08 against 0.71 and 0: AUC 3/4


#: Reference masks of the targets (box x0, y0, x1, y1): the valid submission's mask of 0101 lies inside its
#: box (the mask scorer's partial hit); 0102 has no system mask (white: MCC 0, docs/scoring/masks.md#special-cases).
IMDL_REFERENCE_BOXES = {IMDL_IDS[0]: (6, 6, 38, 34), IMDL_IDS[1]: (30, 12, 62, 44)}


def imdl_reference_masks() -> dict[str, bytes]:
    """The reference masks ``ProbeMaskFileName`` names (relative to the dataset root), for mask scoring."""
    return {
        f"datasets/OpenMFC2020/reference/IMDL/mask/{pid}-ref.png": png(mask(box=box))
        for pid, box in IMDL_REFERENCE_BOXES.items()
    }


def imdl_reference() -> str:
    """The ground truth scoring reads (``--omfc-reference``): IsTarget per trial, MediScore's column names."""
    header = ["TaskID", "ProbeFileID", "ProbeFileName", "IsTarget", "ProbeMaskFileName"]
    rows = [
        [
            "Image Manipulation",
            pid,
            f"probe/{pid}.jpg",
            "Y" if pid in IMDL_TARGETS else "N",
            f"reference/IMDL/mask/{pid}-ref.png" if pid in IMDL_TARGETS else "",
        ]
        for pid in IMDL_IDS
    ]
    return psv(header, rows)


def imdl_examples() -> list[Example]:
    m1, m3 = f"mask/{IMDL_IDS[0]}-mask.png", f"mask/{IMDL_IDS[2]}-mask.png"
    rows = [
        [IMDL_IDS[0], "0.93", m1, "Processed", ""],
        [IMDL_IDS[1], "0.08", "", "Processed", ""],  # no localizable change: blank mask (MASK-01, D-25)
        [IMDL_IDS[2], "0.71", m3, "Processed", ""],
        [IMDL_IDS[3], "0", "", "NonProcessed", ""],  # score 0 (SCORE-05)
    ]
    files = {m1: png(mask()), m3: png(mask(box=(30, 10, 60, 40)))}
    sub_id = "p-baseline_3_imdl"
    valid = Example("imdl", sub_id, IMDL_INDEX, IMG_HEADER, rows, DESCRIPTION_OPENMFC.format(sub_id=sub_id), files)
    rgb = np.stack([mask(box=(30, 10, 60, 40))] * 3, axis=-1)
    return [
        valid,
        valid.variant(
            "p-baseline_3_missing-trial",
            "a trial of the index has no row",
            {"IDX-04": [IMDL_IDS[3]], "IDX-06": [IMDL_IDS[3]], "IDX-02": ["3", "4"]},
            rows=rows[:3],
        ),
        valid.variant(
            "p-baseline_3_duplicate-trial",
            "a trial appears twice (with different scores)",
            {"IDX-05": [IMDL_IDS[0]], "IDX-06": [IMDL_IDS[0]], "IDX-02": ["5", "4"]},
            rows=rows + [[IMDL_IDS[0], "0.5", "", "Processed", ""]],
        ),
        valid.variant(
            "p-baseline_3_score-out-of-range",
            "a ConfidenceScore of 1.7, outside [0, 1] (SCORE-03, D-03)",
            {"SCORE-03": [IMDL_IDS[2], "1.7"]},
            rows=_set(rows, 2, 1, "1.7"),
        ),
        valid.variant(
            "p-baseline_3_bad-status",
            "ProbeStatus 'processed' (case-sensitive) and 'OptOutAll' (no opt-outs in OpenMFC, D-09)",
            {"STATUS-04": [IMDL_IDS[1], "processed", "OptOutAll"]},
            rows=_set(_set(rows, 1, 3, "processed"), 3, 3, "OptOutAll"),
        ),
        valid.variant(
            "p-baseline_3_wrong-mask-size",
            "a 48x64 mask for a 64x48 probe",
            {"MASK-06": [IMDL_IDS[2], m3]},
            files={m1: files[m1], m3: png(mask(H, W))},
        ),
        valid.variant(
            "p-baseline_3_rgb-mask",
            "an RGB mask (masks must be single-channel grey)",
            {"MASK-05": [IMDL_IDS[2], m3]},
            files={m1: files[m1], m3: png(rgb)},
            may_also_fail={"MASK-07": "three bytes per pixel also break the one-byte-per-pixel rule"},
        ),
        valid.variant(
            "p-baseline_3_missing-mask",
            "a mask file named in the CSV does not exist",
            {"MASK-03": [IMDL_IDS[2], m3]},
            files={m1: files[m1]},
        ),
        valid.variant(
            "p-baseline_3_comma-separated",
            "the system output is comma-separated (D-11)",
            {"CSV-01": ["comma-separated"]},
            sep=",",
        ),
        valid.variant(
            "p-baseline_3_pixel-value",
            "a ProbeOptOutPixelValue of 255 (must be blank in OpenMFC)",
            {"OOPIX-03": [IMDL_IDS[0], "255"]},
            rows=_set(rows, 0, 4, "255"),
        ),
        valid.variant(
            "p-baseline_3_unknown-trial",
            "a row names a probe the index does not list (a typo in the ID), and the index's probe has no row",
            {"IDX-03": ["OpenMFC2020_0109"], "IDX-04": [IMDL_IDS[3]], "IDX-06": ["OpenMFC2020_0109"]},
            rows=_set(rows, 3, 0, "OpenMFC2020_0109"),
        ),
        valid.variant(
            "p-baseline_3_score-not-a-number",
            "a ConfidenceScore of 'high' (scores are real numbers)",
            {"SCORE-01": [IMDL_IDS[0], "high"]},
            rows=_set(rows, 0, 1, "high"),
        ),
        valid.variant(
            "p-baseline_3_jpeg-mask",
            "a mask saved as JPEG under a .png name",
            {"MASK-04": [IMDL_IDS[2], m3]},
            files={m1: files[m1], m3: JPEG_BYTES},
        ),
        valid.variant(
            "p-baseline_3_16-bit-mask",
            "a 16-bit grey mask (masks are one byte per pixel, D-14)",
            {"MASK-07": [IMDL_IDS[2], m3]},
            files={m1: files[m1], m3: png16(mask(box=(30, 10, 60, 40)).astype(np.uint16) * 257)},
        ),
        valid.variant(
            "p-baseline_3_mask-outside",
            "a mask path that leaves the submission (../)",
            {"PKG-04": [IMDL_IDS[2], "../outside.png"]},
            rows=_set(rows, 2, 2, "../outside.png"),
            files={m1: files[m1]},
        ),
        valid.variant(
            "p-baseline_3_no-description",
            "the system description <SubID>.txt is missing",
            {"PKG-03": ["p-baseline_3_no-description.txt"], "PKG-09": ["p-baseline_3_no-description.txt"]},
            description=None,
        ),
    ]


# --------------------------------------------------------------- OpenMFC2020 VMD

VMD_INDEX = "datasets/OpenMFC2020/indexes/OpenMFC20_Video-VMD-index.csv"
VMD_IDS = ["OpenMFC2020_0201", "OpenMFC2020_0202", "OpenMFC2020_0203"]


def vmd_index() -> str:
    header = ["TaskID", "ProbeFileID", "ProbeFileName", "ProbeWidth", "ProbeHeight", "ProbeFileSize", "HPDeviceID"]
    rows = [
        ["Video Manipulation", pid, f"probe/{pid}.mp4", W, H, 40960 + 512 * i, f"PAR91{10 + i}"]
        for i, pid in enumerate(VMD_IDS)
    ]
    return psv(header, rows)


def vmd_examples() -> list[Example]:
    header = ["ProbeFileID", "ConfidenceScore", "ProbeStatus"]  # detection only (COL-07, D-05)
    rows = [[VMD_IDS[0], "0.82", "Processed"], [VMD_IDS[1], "0.27", "Processed"], [VMD_IDS[2], "0", "NonProcessed"]]
    sub_id = "p-baseline_3_vmd"
    valid = Example("vmd", sub_id, VMD_INDEX, header, rows, DESCRIPTION_OPENMFC.format(sub_id=sub_id))
    return [
        valid,
        valid.variant(
            "p-baseline_3_nonprocessed-score",
            "a NonProcessed trial with a score of 0.4 (must be 0)",
            {"SCORE-05": [VMD_IDS[2], "0.4"]},
            rows=_set(rows, 2, 1, "0.4"),
        ),
        valid.variant(
            "p-baseline_3_opt-out-status",
            "ProbeStatus OptOutDetection (OpenMFC has no opt-outs, D-09)",
            {"STATUS-04": [VMD_IDS[1], "OptOutDetection"]},
            rows=_set(rows, 1, 2, "OptOutDetection"),
        ),
        valid.variant(
            "p-baseline_3_score-not-a-number",
            "a ConfidenceScore of 'high'",
            {"SCORE-01": [VMD_IDS[0], "high"]},
            rows=_set(rows, 0, 1, "high"),
            may_also_fail={"SCORE-03": "a score that is not a number is not in [0, 1] either"},
        ),
        valid.variant(
            "p-baseline_3_missing-status-column",
            "the ProbeStatus column is absent",
            {"COL-07": ["ProbeStatus"], "COL-03": ["ProbeStatus"]},
            header=header[:2],
            rows=[r[:2] for r in rows],
        ),
    ]


# ------------------------------------------------------- MFC2019 manipulation-video

VIDEO_INDEX = "datasets/MFC2019/indexes/MFC2019-manipulation-video-index.csv"
VIDEO_IDS = ["MFC2019_1094", "MFC2019_1095", "MFC2019_1096", "MFC2019_1097"]
FRAME_COUNTS = [120, 150, 90, 200]
VIDEO_HEADER = [
    "ProbeFileID",
    "ConfidenceScore",
    "ProbeStatus",
    "VideoFrameSegments",
    "AudioSampleSegments",
    "VideoFrameOptOutSegments",
    "OutputProbeMaskFileName",
    "ProbeOptOutPixelValue",
]


def video_index() -> str:
    header = [
        "TaskID",
        "ProbeFileID",
        "ProbeFileName",
        "ProbeWidth",
        "ProbeHeight",
        "ProbeFileSize",
        "FrameCount",
        "FrameRate",
    ]
    rows = [
        ["manipulation", pid, f"probe/{pid}.mp4", W, H, 51200 + 1024 * i, n, "30.0"]
        for i, (pid, n) in enumerate(zip(VIDEO_IDS, FRAME_COUNTS, strict=False))
    ]
    return psv(header, rows)


def video_examples() -> list[Example]:
    m1 = f"mask/{VIDEO_IDS[0]}-mask.hdf5"
    rows = [
        # frames 30-33 are 0-indexed 29-32: the HDF5 group is "29" (D-15); audio is not bounded by FrameCount (D-17)
        [VIDEO_IDS[0], "0.91", "Processed", "[[30, 33], [60, 72]]", "[[23, 4600]]", "[]", m1, ""],
        [VIDEO_IDS[1], "0.12", "Processed", "[]", "[]", "[]", "", ""],
        [VIDEO_IDS[2], "0.77", "OptOutSpatial", "[[1, 10]]", "[]", "[[80, 90]]", "", ""],
        [VIDEO_IDS[3], "0", "NonProcessed", "[]", "[]", "[]", "", ""],
    ]
    files = {m1: hdf5_mask({29: 4, 59: 13})}  # one block per segment of VideoFrameSegments
    sub_id = "p-baseline_3_video"
    valid = Example(
        "mfc19-video", sub_id, VIDEO_INDEX, VIDEO_HEADER, rows, DESCRIPTION_MFC19.format(sub_id=sub_id), files
    )
    return [
        valid,
        valid.variant(
            "p-baseline_3_reversed-interval",
            "a frame interval [40, 33] whose start is after its end",
            {"VSEG-03": [VIDEO_IDS[1], "[40, 33]"]},
            rows=_set(rows, 1, 3, "[[40, 33]]"),
        ),
        valid.variant(
            "p-baseline_3_frame-out-of-range",
            "a frame interval ending after the last frame (FrameCount 150)",
            {"VSEG-05": [VIDEO_IDS[1], "151"]},
            rows=_set(rows, 1, 3, "[[100, 151]]"),
        ),
        valid.variant(
            "p-baseline_3_overlapping-intervals",
            "two frame intervals that overlap (D-18)",
            {"VSEG-07": [VIDEO_IDS[1], "[20, 46]"]},
            rows=_set(rows, 1, 3, "[[3, 33], [20, 46]]"),
        ),
        valid.variant(
            "p-baseline_3_not-a-list",
            "a segment cell '23-46' that is not a JSON list of intervals",
            {"VSEG-01": [VIDEO_IDS[1], "23-46"]},
            rows=_set(rows, 1, 3, "23-46"),
        ),
        valid.variant(
            "p-baseline_3_nonprocessed-score",
            "a NonProcessed trial with a score of 0.4 (must be 0, D-04)",
            {"SCORE-04": [VIDEO_IDS[3], "0.4"]},
            rows=_set(rows, 3, 1, "0.4"),
        ),
        valid.variant(
            "p-baseline_3_bad-status",
            "ProbeStatus 'Done' (not an MFC2019 video status)",
            {"STATUS-03": [VIDEO_IDS[1], "Done"]},
            rows=_set(rows, 1, 2, "Done"),
        ),
        valid.variant(
            "p-baseline_3_missing-column",
            "the AudioSampleSegments column is absent",
            {"COL-06": ["AudioSampleSegments"]},
            header=[c for c in VIDEO_HEADER if c != "AudioSampleSegments"],
            rows=[r[:4] + r[5:] for r in rows],
        ),
    ]


# ------------------------------------------------------------------ writing


# -------------------------------------------------------------- ForgeryNet-style benchmarks (issue 12)

FNET_ROOT = "datasets/ForgeryNet"
FNET_SUBS = "submissions/forgerynet"
FNET_W, FNET_H = 16, 12  # size of every spatial map


@dataclass
class FnetExample:
    """One ForgeryNet submission: its task, reference, files and what it must fail."""

    task: str  # image-classification, video-classification, spatial, temporal
    sub_id: str
    reference: str  # relative to examples/
    files: dict[str, bytes]  # relative to the submission directory
    classes: int = 2
    breaks: str = "nothing: the valid submission"
    fails: dict[str, list[str]] = field(default_factory=dict)
    may_also_fail: dict[str, str] = field(default_factory=dict)
    family: str = ""  # the folder under submissions/forgerynet/ (default: the task)
    file: str = ""  # the benchmark's own form: one prediction file, named by --omfc-submission itself

    @property
    def path(self) -> str:
        return f"{FNET_SUBS}/{self.family or self.task}/{self.sub_id}"

    @property
    def submission(self) -> str:
        return f"{self.path}/{self.file}" if self.file else self.path

    def command(self) -> str:
        classes = f" --omfc-classes {self.classes}" if self.classes != 2 else ""
        return (
            f"pytest --omfc-submission examples/{self.submission} --omfc-edition ForgeryNet --omfc-task {self.task}"
            f"{classes} --omfc-reference examples/{self.reference}"
        )


def _fnet(task: str, sub_id: str, main: str | bytes, **kw: object) -> FnetExample:
    ext = "json" if task == "temporal" else "csv"
    files = {f"{sub_id}.{ext}": main.encode() if isinstance(main, str) else main, **kw.pop("extra", {})}  # type: ignore[dict-item]
    return FnetExample(task=task, sub_id=sub_id, files=files, **kw)  # type: ignore[arg-type]


# Image classification, 3-way (0 real, 1 identity-remained, 2 identity-replaced).
FNET_IMG_REF = f"{FNET_ROOT}/image_cls_3way_ref.csv"
FNET_IMG = [("img_0001", 0), ("img_0002", 0), ("img_0003", 1), ("img_0004", 1), ("img_0005", 2), ("img_0006", 2)]
FNET_IMG_PROBS = [
    [0.7, 0.2, 0.1],
    [0.4, 0.5, 0.1],
    [0.1, 0.8, 0.1],
    [0.3, 0.3, 0.4],
    [0.05, 0.15, 0.8],
    [0.2, 0.1, 0.7],
]
# Video classification, 2-way.
FNET_VID_REF = f"{FNET_ROOT}/video_cls_ref.csv"
FNET_VID = [("vid_0001", 0), ("vid_0002", 0), ("vid_0003", 1), ("vid_0004", 1)]
FNET_VID_SCORES = ["0.10", "0.60", "0.80", "0.45"]
# Spatial localization: two fake images with maps, one real image (no map: all zero).
FNET_SPL_REF = f"{FNET_ROOT}/spatial_ref.csv"
FNET_SPL = [("face_0001", 1), ("face_0002", 1), ("face_0003", 0)]
# Temporal localization (ActivityNet formats): three fake videos, one real.
FNET_TL_REF = f"{FNET_ROOT}/temporal_gt.json"


def _fnet_map(x0: int, y0: int, x1: int, y1: int, level: int, size: tuple[int, int] = (FNET_W, FNET_H)) -> np.ndarray:
    out = np.zeros((size[1], size[0]), dtype=np.uint8)
    out[y0:y1, x0:x1] = level
    return out


FNET_GT_MAPS = {"face_0001": _fnet_map(2, 2, 10, 8, 200), "face_0002": _fnet_map(6, 4, 14, 12, 120)}
FNET_PRED_MAPS = {
    "face_0001": _fnet_map(3, 2, 11, 8, 180),
    "face_0002": _fnet_map(6, 5, 12, 12, 40),
    "face_0003": _fnet_map(0, 0, 4, 2, 30, size=(8, 6)),
}  # a real image: no reference map, any size


def fnet_temporal_gt() -> dict[str, object]:
    db = {
        "vid_t001": {
            "annotations": [{"segment": [2.0, 6.0], "label": "Fake"}],
            "duration": 12.0,
            "subset": "validation",
        },
        "vid_t002": {
            "annotations": [{"segment": [0.0, 3.0], "label": "Fake"}, {"segment": [8.0, 10.0], "label": "Fake"}],
            "duration": 10.0,
            "subset": "validation",
        },
        "vid_t003": {
            "annotations": [{"segment": [5.0, 15.0], "label": "Fake"}],
            "duration": 20.0,
            "subset": "validation",
        },
        "vid_t004": {"annotations": [], "duration": 8.0, "subset": "validation"},
    }
    return {"version": "ForgeryNet-example", "database": db}


def fnet_temporal_results() -> dict[str, object]:
    def p(s: float, e: float, score: float) -> dict[str, object]:
        return {"segment": [s, e], "score": score, "label": "Fake"}

    results = {
        "vid_t001": [p(2.0, 6.0, 0.95), p(1.0, 4.0, 0.40)],
        "vid_t002": [p(0.0, 2.5, 0.90), p(8.0, 9.0, 0.60), p(4.0, 6.0, 0.20)],
        "vid_t003": [p(6.0, 15.0, 0.85)],
        "vid_t004": [p(1.0, 2.0, 0.50)],
    }
    return {"version": "ForgeryNet-example", "results": results, "external_data": {"used": False}}


def _json(doc: object) -> str:
    return json.dumps(doc, indent=1, sort_keys=False) + "\n"


def forgerynet_datasets() -> dict[str, bytes]:
    out = {
        FNET_IMG_REF: psv(["ID", "Label"], [list(r) for r in FNET_IMG]),
        FNET_VID_REF: psv(["ID", "Label"], [list(r) for r in FNET_VID]),
        FNET_SPL_REF: psv(
            ["ID", "Label", "MaskFileName"],
            [[i, label, f"spatial_maps/{i}.png" if label else ""] for i, label in FNET_SPL],
        ),
        FNET_TL_REF: _json(fnet_temporal_gt()),
    }
    out[FNET_IMAGE_LIST] = "".join(" ".join(map(str, r)) + "\n" for r in FNET_LIST_IMAGES)
    fakes = [n for n, b, *_ in FNET_LIST_IMAGES if b]
    # the validation layout as distributed: Validation/spatial_localize/<image name>, a JPEG grey map
    maps = {f"{FNET_OFFICIAL}/spatial_localize/{n}": m for n, m in zip(fakes, FNET_LIST_GT_MAPS, strict=True)}
    out[FNET_VIDEO_LIST] = "".join(line + "\n" for line in FNET_LIST_VIDEOS)
    data = {k: v.encode() for k, v in out.items()}
    data.update({f"{FNET_ROOT}/spatial_maps/{i}.png": png(m) for i, m in FNET_GT_MAPS.items()})
    data.update({k: jpeg(m) for k, m in maps.items()})
    return data


# The benchmark's own files (its image and video lists, a model's prediction lines): what ForgeryNet users have.
FNET_OFFICIAL = f"{FNET_ROOT}/official"
FNET_IMAGE_LIST = f"{FNET_OFFICIAL}/image_list.txt"
FNET_VIDEO_LIST = f"{FNET_OFFICIAL}/video_list.txt"
#: <image> <binary> <triple> <16-way>, the image list's line
FNET_LIST_IMAGES = [
    ("val_perturb_release/1/1f0c8e/9a2b41/frame00012.jpg", 1, 1, 1),
    ("val_perturb_release/7/2ac43a/b039e0/frame00038.jpg", 1, 2, 7),
    ("val_perturb_release/3/5d7e21/0c4f9a/frame00101.jpg", 1, 2, 3),
    ("val_perturb_release/0/8c1d55/frame00007.jpg", 0, 0, 0),
    ("val_perturb_release/0/a49f02/frame00230.jpg", 0, 0, 0),
]
FNET_LIST_PROBS = [[0.1, 0.7, 0.2], [0.2, 0.3, 0.5], [0.3, 0.2, 0.5], [0.8, 0.1, 0.1], [0.5, 0.4, 0.1]]
#: the reference maps of the three fake images (spatial_localize/<image name>, JPEG) and a model's maps of all five
FNET_LIST_GT_MAPS = [_fnet_map(2, 2, 10, 8, 200), _fnet_map(6, 4, 14, 12, 120), _fnet_map(0, 6, 8, 12, 255)]
FNET_LIST_PRED_MAPS = [
    _fnet_map(3, 2, 11, 8, 180),
    _fnet_map(6, 5, 12, 12, 40),
    _fnet_map(0, 5, 9, 12, 230),
    _fnet_map(0, 0, 0, 0, 0),
    _fnet_map(0, 0, 4, 2, 30),
]
#: <n> <video> [<start> <count> <0|1>] x n <binary> <triple> <9-way>, the video list's line (frames)
FNET_LIST_VIDEOS = [
    "3 val_video_release/4/7f8984/718e0e/video.mp4 0 10 0 10 35 1 45 30 0 1 2 4",
    "3 val_video_release/1/ddce53/247ced/video.mp4 0 14 0 14 15 1 29 44 0 1 2 1",
    "2 val_video_release/1/987080/47d69f/video.mp4 79 17 1 96 64 0 1 1 1",
    "1 val_video_release/real/3a6b10/video.mp4 0 120 0 0 0 0",
]
FNET_LIST_VIDEO_SCORES = ["0.91", "0.67", "0.38", "0.12"]


def _video(n: int) -> str:
    return FNET_LIST_VIDEOS[n].split()[1]


def fnet_list_results() -> dict[str, object]:
    """BMN-style ActivityNet results in frames, against the video list."""

    def p(s: float, e: float, score: float) -> dict[str, object]:
        return {"segment": [s, e], "score": score}

    results = {
        _video(0): [p(10, 45, 0.93), p(60, 70, 0.20)],
        _video(1): [p(14, 29, 0.88), p(70, 90, 0.35)],  # frames 70-90: past the list's last segment, inside the video
        _video(2): [p(80, 96, 0.74)],
        _video(3): [p(5, 20, 0.15)],
    }
    return {"version": "ForgeryNet-example", "results": results}


def _lines(rows: list[list[str]], header: str = "") -> str:
    return (header + "\n" if header else "") + "".join(" ".join(r) + "\n" for r in rows)


def forgerynet_official_examples() -> list[FnetExample]:
    img_rows = [
        [n, *(f"{v:g}" for v in probs)] for (n, *_), probs in zip(FNET_LIST_IMAGES, FNET_LIST_PROBS, strict=True)
    ]
    img = dict(task="image-classification", reference=FNET_IMAGE_LIST, classes=3, family="official-image")
    vid_rows = [[_video(i), s] for i, s in enumerate(FNET_LIST_VIDEO_SCORES)]
    vid = dict(task="video-classification", reference=FNET_VIDEO_LIST, family="official-video")
    tl = dict(task="temporal", reference=FNET_VIDEO_LIST, family="official-temporal")
    good = fnet_list_results()

    def one(sub_id: str, file: str, text: str, **kw: object) -> FnetExample:
        return FnetExample(sub_id=sub_id, file=file, files={file: text.encode()}, **kw)  # type: ignore[arg-type]

    def tl_doc(change: dict[str, object]) -> str:
        doc = json.loads(json.dumps(good))
        doc["results"].update(change)
        return _json(doc).replace('"score": "NaN"', '"score": NaN')

    spl = dict(task="spatial", reference=FNET_IMAGE_LIST, family="official-spatial")
    spl_header = ["ID", "Score", "MaskFileName"]
    spl_rows = [[n, "0.9" if b else "0.1", f"maps/{i}.png"] for i, (n, b, *_) in enumerate(FNET_LIST_IMAGES)]
    spl_maps = {f"maps/{i}.png": png(m) for i, m in enumerate(FNET_LIST_PRED_MAPS)}

    def spatial(sub_id: str, rows: list[list[str]], maps: dict[str, bytes], **kw: object) -> FnetExample:
        files = {"predictions.csv": psv(spl_header, rows).encode(), **maps}
        return FnetExample(sub_id=sub_id, file="predictions.csv", files=files, **kw)  # type: ignore[arg-type]

    return [
        spatial("unet", spl_rows, spl_maps, **spl),
        spatial(
            "unet_missing-map",
            spl_rows,
            {k: v for k, v in spl_maps.items() if k != "maps/1.png"},
            breaks="maps/1.png does not exist",
            fails={"FNET-07": ["maps/1.png"]},
            **spl,
        ),
        spatial(
            "unet_wrong-map-size",
            spl_rows,
            {**spl_maps, "maps/0.png": png(_fnet_map(0, 0, 4, 4, 90, size=(8, 6)))},
            breaks="maps/0.png is 8x6 where the reference map is 16x12",
            fails={"FNET-08": ["maps/0.png", "16x12"]},
            **spl,
        ),
        spatial(
            "unet_unknown-image",
            _set(spl_rows, 4, 0, "val_perturb_release/0/a49f02/frame00231.jpg"),
            spl_maps,
            breaks="an image the list does not hold (and so frame00230.jpg is missing)",
            fails={"FNET-04": ["frame00231.jpg", "frame00230.jpg"]},
            **spl,
        ),
        one("resnet50", "val_predictions.txt", _lines(img_rows, "image p0 p1 p2"), **img),
        one(
            "resnet50_name-with-spaces",
            "val_predictions.txt",
            _lines(_set(img_rows, 1, 0, "val_perturb_release/7/2ac43a/b039e0/frame 00038.jpg"), "image p0 p1 p2"),
            breaks="an image name with a space: the line has 5 fields",
            fails={"FNET-01": ["val_predictions.txt:3", "a name with spaces?"]},
            **img,
        ),
        one(
            "resnet50_unknown-image",
            "val_predictions.txt",
            _lines(_set(img_rows, 4, 0, "val_perturb_release/0/a49f02/frame00231.jpg"), "image p0 p1 p2"),
            breaks="an image the list does not hold (and so frame00230.jpg is missing)",
            fails={"FNET-04": ["frame00231.jpg", "frame00230.jpg"]},
            **img,
        ),
        one(
            "resnet50_probability-out-of-range",
            "val_predictions.txt",
            _lines(_set(img_rows, 2, 3, "1.5"), "image p0 p1 p2"),
            breaks="p2 = 1.5: probabilities must be in [0, 1]",
            fails={"FNET-05": ["frame00101.jpg", "1.5"]},
            **img,
        ),
        one("x3d", "scores.txt", _lines(vid_rows), **vid),
        one(
            "x3d_missing-video",
            "scores.txt",
            _lines(vid_rows[:3]),
            breaks="the real video of the list has no line",
            fails={"FNET-04": [_video(3)]},
            may_also_fail={"forgerynet-classification": "only fake videos are left to score: AUC needs both classes"},
            **vid,
        ),
        one(
            "x3d_truncated-last-line",
            "scores.txt",
            _lines(vid_rows).rstrip("\n").rsplit(" ", 1)[0],
            breaks="the last line lost its score (the file was cut short)",
            fails={"FNET-01": ["scores.txt:4", "a truncated line?"]},
            may_also_fail={"forgerynet-classification": "the cut line was the real video's: AUC needs both classes"},
            **vid,
        ),
        one(
            "x3d_score-not-a-number",
            "scores.txt",
            _lines(_set(vid_rows, 1, 1, "high")),
            breaks="a score of 'high'",
            fails={"FNET-05": [_video(1), "high"]},
            **vid,
        ),
        one("bmn", "results.json", _json(good), **tl),
        one(
            "bmn_reversed-segment",
            "results.json",
            tl_doc({_video(2): [{"segment": [96, 80], "score": 0.74}]}),
            breaks="a segment whose start is after its end",
            fails={"FNET-09": ["96", "80"]},
            **tl,
        ),
        one(
            "bmn_unknown-video",
            "results.json",
            tl_doc({"val_video_release/9/000000/000000/video.mp4": []}),
            breaks="a video the list does not hold",
            fails={"FNET-04": ["val_video_release/9/000000/000000/video.mp4"]},
            **tl,
        ),
        one(
            "bmn_nan-score",
            "results.json",
            tl_doc({_video(2): [{"segment": [80, 96], "score": "NaN"}]}),
            breaks="a score of NaN",
            fails={"FNET-11": ["NaN"]},
            **tl,
        ),
    ]


def forgerynet_examples() -> list[FnetExample]:
    img_rows = [[i, *(f"{v:g}" for v in probs)] for (i, _), probs in zip(FNET_IMG, FNET_IMG_PROBS, strict=False)]
    img_header = ["ID", "P0", "P1", "P2"]
    img = dict(task="image-classification", reference=FNET_IMG_REF, classes=3)
    vid_rows = [[i, s] for (i, _), s in zip(FNET_VID, FNET_VID_SCORES, strict=False)]
    vid = dict(task="video-classification", reference=FNET_VID_REF)
    spl_rows = [[i, "0.9" if label else "0.2", f"masks/{i}.png"] for i, label in FNET_SPL]
    spl_masks = {f"masks/{i}.png": png(m) for i, m in FNET_PRED_MAPS.items()}
    spl = dict(task="spatial", reference=FNET_SPL_REF)
    spl_header = ["ID", "Score", "MaskFileName"]
    tl = dict(task="temporal", reference=FNET_TL_REF)
    good = fnet_temporal_results()

    def tl_with(video: str, index: int, **changes: object) -> str:
        doc = json.loads(json.dumps(good))
        doc["results"][video][index].update(changes)
        return _json(doc).replace('"score": "NaN"', '"score": NaN')

    rgb = np.stack([FNET_PRED_MAPS["face_0001"]] * 3, axis=2)
    return [
        _fnet(sub_id="p-fnet_1_image", main=psv(img_header, img_rows), **img),
        _fnet(
            sub_id="p-fnet_1_unknown-id",
            main=psv(img_header, _set(img_rows, 5, 0, "img_0066")),
            breaks="an ID the reference does not list (and so img_0006 is missing)",
            fails={"FNET-04": ["img_0066", "img_0006"]},
            **img,
        ),
        _fnet(
            sub_id="p-fnet_1_probability-out-of-range",
            main=psv(img_header, _set(_set(img_rows, 1, 2, "1.2"), 3, 1, "NaN")),
            breaks="P1 = 1.2 and P0 = NaN: probabilities must be finite and in [0, 1]",
            fails={"FNET-05": ["img_0002", "1.2", "img_0004", "NaN"]},
            **img,
        ),
        _fnet(
            sub_id="p-fnet_1_two-columns",
            main=psv(["ID", "Score"], [[i, "0.5"] for i, _ in FNET_IMG]),
            breaks="a 2-way file (columns ID and Score) checked with --omfc-classes 3",
            fails={"FNET-03": ["ID|P0|P1|P2", "ID|Score"]},
            **img,
        ),
        _fnet(sub_id="p-fnet_1_video", main=psv(["ID", "Score"], vid_rows), **vid),
        _fnet(
            sub_id="p-fnet_1_missing-video",
            main=psv(["ID", "Score"], vid_rows[:3]),
            breaks="vid_0004 of the reference has no row",
            fails={"FNET-04": ["vid_0004"]},
            **vid,
        ),
        _fnet(
            sub_id="p-fnet_1_comma-separated",
            main="".join(",".join(r) + "\n" for r in [["ID", "Score"], *vid_rows]),
            breaks="the file is comma-separated",
            fails={"FNET-01": ["comma-separated"]},
            **vid,
        ),
        _fnet(
            sub_id="p-fnet_1_score-not-a-number",
            main=psv(["ID", "Score"], _set(vid_rows, 2, 1, "high")),
            breaks="a Score of 'high'",
            fails={"FNET-05": ["vid_0003", "high"]},
            **vid,
        ),
        _fnet(sub_id="p-fnet_1_spatial", main=psv(spl_header, spl_rows), extra=spl_masks, **spl),
        _fnet(
            sub_id="p-fnet_1_missing-mask",
            main=psv(spl_header, spl_rows),
            extra={k: v for k, v in spl_masks.items() if "face_0002" not in k},
            breaks="masks/face_0002.png does not exist",
            fails={"FNET-07": ["face_0002", "masks/face_0002.png"]},
            **spl,
        ),
        _fnet(
            sub_id="p-fnet_1_rgb-mask",
            main=psv(spl_header, spl_rows),
            extra={**spl_masks, "masks/face_0001.png": png(rgb)},
            breaks="an RGB mask (maps must be grey or 1-bit)",
            fails={"FNET-07": ["face_0001", "RGB"]},
            **spl,
        ),
        _fnet(
            sub_id="p-fnet_1_wrong-mask-size",
            main=psv(spl_header, spl_rows),
            extra={**spl_masks, "masks/face_0002.png": png(np.zeros((FNET_W, FNET_H), np.uint8))},
            breaks="a 12x16 mask for a 16x12 reference map",
            fails={"FNET-08": ["face_0002", "16x12", "12x16"]},
            **spl,
        ),
        _fnet(
            sub_id="p-fnet_1_escaping-mask",
            main=psv(spl_header, _set(spl_rows, 0, 2, "../../p-fnet_1_spatial/masks/face_0001.png")),
            extra={k: v for k, v in spl_masks.items() if "face_0001" not in k},
            breaks="a MaskFileName leaving the submission with '..'",
            fails={"FNET-07": ["face_0001", "'..'"]},
            **spl,
        ),
        _fnet(sub_id="p-fnet_1_temporal", main=_json(good), **tl),
        _fnet(
            sub_id="p-fnet_1_reversed-segment",
            main=tl_with("vid_t002", 1, segment=[9.0, 8.0]),
            breaks="a segment [9, 8] whose start is after its end",
            fails={"FNET-09": ['results["vid_t002"][1].segment', "[9.0, 8.0]"]},
            **tl,
        ),
        _fnet(
            sub_id="p-fnet_1_past-duration",
            main=tl_with("vid_t001", 1, segment=[10.0, 14.0]),
            breaks="a segment ending at 14 s in a 12 s video",
            fails={"FNET-10": ['results["vid_t001"][1].segment', "[0, 12]"]},
            **tl,
        ),
        _fnet(
            sub_id="p-fnet_1_nan-score",
            main=tl_with("vid_t003", 0, score="NaN"),
            breaks="a score of NaN",
            fails={"FNET-11": ['results["vid_t003"][0].score', "NaN"]},
            **tl,
        ),
        _fnet(
            sub_id="p-fnet_1_malformed-json",
            main=_json(good)[:-3] + "\n",
            breaks="the JSON is cut short",
            fails={"FNET-01": ["must be valid JSON"]},
            **tl,
        ),
        _fnet(
            sub_id="p-fnet_1_unknown-video",
            main=_json({**good, "results": {**good["results"], "vid_t999": []}}),
            breaks="a video the reference does not list",
            fails={"FNET-04": ["vid_t999"]},
            **tl,
        ),
    ]


def forgerynet_expected(examples: list[FnetExample]) -> dict[str, object]:
    return {
        e.path: {
            "edition": "ForgeryNet",
            "task": e.task,
            "reference": e.reference,
            "classes": e.classes,
            "breaks": e.breaks,
            "fails": e.fails,
            "may_also_fail": e.may_also_fail,
            **({"file": e.file} if e.file else {}),
        }
        for e in examples
    }


def forgerynet_readme(examples: list[FnetExample]) -> list[str]:
    lines = [
        "",
        "## ForgeryNet-style benchmarks",
        "",
        f"`{FNET_ROOT}/` holds a tiny reference per task (no index: the reference lists the IDs). Check one:",
        "",
        "```",
        examples[0].command(),
        "```",
        "",
        "| Submission | Task | Reference | Breaks | Must fail |",
        "|---|---|---|---|---|",
    ]
    for e in examples:
        fails = ", ".join(sorted(e.fails)) or "nothing (exit 0)"
        k = f" (`--omfc-classes {e.classes}`)" if e.classes != 2 else ""
        lines.append(f"| `{e.submission}` | {e.task}{k} | `{Path(e.reference).name}` | {e.breaks} | {fails} |")
    return lines


# -------------------------------------------------------------- NC2017 package (two EXPIDs)

NC17_ROOT = "datasets/NC2017"
NC17_MANIP_INDEX = f"{NC17_ROOT}/indexes/NC2017-manipulation-index.csv"
NC17_SPLICE_INDEX = f"{NC17_ROOT}/indexes/NC2017-splice-index.csv"
NC17_MANIP_IDS = ["NC2017_0301", "NC2017_0302", "NC2017_0303"]
NC17_SPLICE_PAIRS = [("NC2017_0401", "NC2017_0501"), ("NC2017_0402", "NC2017_0502")]
#: The plan's example (NC17 A-b): NIST's fifth submission, a package folder holding EXPID folders.
NC17_PACKAGE = "NIST_NC17_DRYRUN17_5"
NC17_PACKAGE_PATH = f"submissions/nc2017/{NC17_PACKAGE}"
NC17_BROKEN = "NIST_NC17_DRYRUN17_6"

DESCRIPTION_NC17 = DESCRIPTION_MFC19.replace("MFC2019", "Nimble Challenge 2017").replace(
    "Section 1 Submission Identifier(s)", "Section 1 Experiment Identifier(s)"
)


def nc17_manipulation_index() -> str:
    header = ["TaskID", "ProbeFileID", "ProbeFileName", "ProbeWidth", "ProbeHeight"]
    return psv(header, [["manipulation", pid, f"probe/{pid}.jpg", W, H] for pid in NC17_MANIP_IDS])


def nc17_splice_index() -> str:
    header = ["TaskID", "ProbeFileID", "ProbeFileName", "ProbeWidth", "ProbeHeight"]
    header += ["DonorFileID", "DonorFileName", "DonorWidth", "DonorHeight"]
    rows = [["splice", p, f"probe/{p}.jpg", W, H, d, f"world/{d}.jpg", W, H] for p, d in NC17_SPLICE_PAIRS]
    return psv(header, rows)


def nc17_examples() -> list[Example]:
    """The two EXPIDs of the plan's package; each also checks alone, as MediScore checks an EXPID."""
    manip = "NIST_NC17_DRYRUN17_Manipulation_ImgOnly_p-baseline_3"
    splice = "NIST_NC17_DRYRUN17_Splice_ImgOnly_p-baseline_3"
    m1 = f"mask/{NC17_MANIP_IDS[0]}.png"
    manip_rows = [
        [NC17_MANIP_IDS[0], "0.88", m1, "N"],
        [NC17_MANIP_IDS[1], "0.12", "", "N"],
        [NC17_MANIP_IDS[2], "0", "", "Y"],  # opted out (IsOptOut=Y): below every processed score (SCORE-06)
    ]
    p1, d1 = NC17_SPLICE_PAIRS[0]
    pm, dm = f"mask/{p1}_{d1}-probemask.png", f"mask/{p1}_{d1}-donormask.png"
    splice_rows = [[p1, d1, "0.77", pm, dm, "N"], [*NC17_SPLICE_PAIRS[1], "0.05", "", "", "N"]]
    family = f"nc2017/{NC17_PACKAGE}"
    valid = [
        Example(
            family,
            manip,
            NC17_MANIP_INDEX,
            ["ProbeFileID", "ConfidenceScore", "OutputProbeMaskFileName", "IsOptOut"],
            manip_rows,
            DESCRIPTION_NC17.format(sub_id=manip),
            {m1: png(mask())},
            breaks="nothing: the package's valid manipulation EXPID",
        ),
        Example(
            family,
            splice,
            NC17_SPLICE_INDEX,
            ["ProbeFileID", "DonorFileID", "ConfidenceScore", "OutputProbeMaskFileName", "OutputDonorMaskFileName"]
            + ["IsOptOut"],
            splice_rows,
            DESCRIPTION_NC17.format(sub_id=splice),
            {pm: png(mask()), dm: png(mask(box=(4, 4, 20, 16)))},
            breaks="nothing: the package's valid splice EXPID",
        ),
    ]
    # the sixth submission: both EXPIDs broken (the package fails, each EXPID naming its own rules)
    broken = f"nc2017/{NC17_BROKEN}"
    return valid + [
        valid[0].variant(
            manip.replace("_3", "_4"),
            "an opted-out trial scores 0.40, above the processed trial's 0.12",
            {"SCORE-06": [NC17_MANIP_IDS[2], "0.40"]},
            family=broken,
            rows=_set(manip_rows, 2, 1, "0.40"),
        ),
        valid[1].variant(
            splice.replace("_3", "_4"),
            "the second probe-donor pair has no row",
            {"IDX-04": [NC17_SPLICE_PAIRS[1][0]], "IDX-06": [NC17_SPLICE_PAIRS[1][0]], "IDX-02": ["1", "2"]},
            family=broken,
            rows=splice_rows[:1],
        ),
    ]


def all_examples() -> list[Example]:
    return imdl_examples() + vmd_examples() + video_examples() + nc17_examples()


def datasets() -> dict[str, str]:
    return {
        IMDL_INDEX: imdl_index(),
        IMDL_REFERENCE: imdl_reference(),
        VMD_INDEX: vmd_index(),
        VIDEO_INDEX: video_index(),
        NC17_MANIP_INDEX: nc17_manipulation_index(),
        NC17_SPLICE_INDEX: nc17_splice_index(),
    }


def expected(examples: list[Example]) -> dict[str, object]:
    """The content of EXPECTED.json: submission path -> index, what it breaks, which rules fail."""
    return {
        e.path: {"index": e.index, "breaks": e.breaks, "fails": e.fails, "may_also_fail": e.may_also_fail}
        for e in examples
    }


def readme(examples: list[Example]) -> str:
    lines = [
        "# Examples",
        "",
        "Generated by `python examples/make_examples.py` (do not edit by hand; `tests/test_examples.py`",
        "checks that these files equal the script's output and that the plugin gives the verdicts below).",
        "",
        "Check one from the repository root:",
        "",
        "```",
        f"pytest --omfc-submission examples/{examples[0].path} --omfc-index examples/{examples[0].index}",
        "```",
        "",
        f"`{IMDL_REFERENCE}` is the IMDL ground truth for scoring (`--omfc-reference`; `docs/getting-started.md`",
        "scores the valid IMDL submission with it): IsTarget for detection, and the reference masks",
        "under `datasets/OpenMFC2020/reference/IMDL/mask/` for mask scoring (`<sub>::score::mask`).",
        "",
        "| Submission | Index | Breaks | Must fail |",
        "|---|---|---|---|",
    ]
    for e in examples:
        fails = ", ".join(sorted(e.fails)) or "nothing (exit 0)"
        lines.append(f"| `{e.path}` | `{Path(e.index).name}` | {e.breaks} | {fails} |")
    return "\n".join(lines) + "\n"


def render(examples: list[Example]) -> dict[str, bytes]:
    """Every generated file: path relative to examples/ -> bytes."""
    out: dict[str, bytes] = {k: v.encode() for k, v in datasets().items()}
    out.update(imdl_reference_masks())
    for e in examples:
        csv = e.csv_name or f"{e.sub_id}.csv"
        out[f"{e.path}/{csv}"] = e.csv_text().encode()
        if e.description is not None:
            out[f"{e.path}/{e.sub_id}.txt"] = e.description.encode()
        for rel, data in e.files.items():
            out[f"{e.path}/{rel}"] = data
    fnet = forgerynet_examples() + forgerynet_official_examples()
    out.update(forgerynet_datasets())
    for f in fnet:
        out.update({f"{f.path}/{rel}": data for rel, data in f.files.items()})
    doc = {**expected(examples), **forgerynet_expected(fnet)}
    out["EXPECTED.json"] = (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode()
    out["README.md"] = (readme(examples) + "\n".join(forgerynet_readme(fnet)) + "\n").encode()
    return dict(sorted(out.items()))


def generate(out_dir: Path) -> list[Path]:
    """Write every example under ``out_dir``, replacing earlier generated trees; returns the files written."""
    files = render(all_examples())
    for sub in ("datasets", "submissions"):
        if (out_dir / sub).is_dir():
            shutil.rmtree(out_dir / sub)
    written = []
    for rel, data in files.items():
        path = out_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        written.append(path)
    return written


def main(argv: list[str]) -> int:
    out = Path(argv[0]) if argv else HERE
    written = generate(out)
    total = sum(p.stat().st_size for p in written)
    print(f"wrote {len(written)} files ({total} bytes) under {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
