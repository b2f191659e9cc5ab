"""VMASK rules and PKG-05: MFC2019 HDF5 video masks (docs/rules/vmask.md, D-15, D-16, D-24).

The mask column is optional and "not evaluated" in MFC2019 (D-16): VMASK findings are
warnings, so a "failing" case here passes with a warning; PKG-05 fails for paths that leave
the submission.
"""

from __future__ import annotations

import os
from pathlib import Path

import h5py

IDX_HEADER = ["TaskID", "ProbeFileID", "ProbeFileName", "ProbeWidth", "ProbeHeight", "FrameCount"]
OUT_HEADER = [
    "ProbeFileID",
    "ConfidenceScore",
    "ProbeStatus",
    "VideoFrameSegments",
    "AudioSampleSegments",
    "VideoFrameOptOutSegments",
    "OutputProbeMaskFileName",
    "ProbeOptOutPixelValue",
]
VMASK_ITEMS = ("PKG-05", "VMASK-01", "VMASK-02", "VMASK-03", "VMASK-04", "VMASK-06", "VMASK-07")


def write_h5(path: Path, blocks: dict[str, tuple[tuple[int, ...], str]]) -> None:
    """An HDF5 mask: group name -> (shape, dtype) of its 'masks' dataset; a name without '/' at the top
    level that starts with '!' is written as a bare dataset instead of a group."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with h5py.File(path, "w") as f:
        for name, (shape, dtype) in blocks.items():
            if name.startswith("!"):
                f.create_dataset(name[1:], shape=shape, dtype=dtype)
            else:
                f.create_group(name).create_dataset("masks", shape=shape, dtype=dtype)


GOOD = {"0": ((5, 240, 320), "uint8"), "10": ((3, 240, 320), "uint8")}


def make(omfc, masks, *, pixel=None, status=None, files=None):
    """One index trial per mask name (v1, v2, ...); ``files`` maps paths under the submission to HDF5 blocks."""
    ids = [f"v{i + 1}" for i in range(len(masks))]
    index_rows = [["manipulation-video", i, f"probe/{i}.mp4", 320, 240, 100] for i in ids]
    rows = [
        [i, 0.5, (status or {}).get(i, "Processed"), "[]", "[]", "[]", m, (pixel or {}).get(i, "")]
        for i, m in zip(ids, masks, strict=False)
    ]
    case = omfc.case(
        "MFC2019", "manipulation-video", header=OUT_HEADER, rows=rows, index_header=IDX_HEADER, index_rows=index_rows
    )
    for rel, blocks in (files or {}).items():
        write_h5(case.submission / rel, blocks)
    return case


def first_warning(res, rid):
    text = res.warning(rid)
    return text.splitlines()[0] if text else None


def test_valid_masks_pass_every_vmask(omfc):
    case = make(
        omfc,
        ["mask/v1.hdf5", "", "mask/v3-mask.hdf5"],
        pixel={"v1": "152"},
        files={"mask/v1.hdf5": GOOD, "mask/v3-mask.hdf5": {"99": ((1, 240, 320), "uint8")}},
    )
    before = sorted(p.relative_to(case.submission) for p in case.submission.rglob("*"))
    res = case.run()
    for rid in VMASK_ITEMS:
        assert res.outcome(rid) == "passed", res.text(rid)
        assert res.warning(rid) is None, res.warning(rid)
    assert sorted(p.relative_to(case.submission) for p in case.submission.rglob("*")) == before  # nothing written
    assert "VMASK-05" not in res.reports  # not_checked


def test_no_mask_column_skips(omfc):
    """D-16: columns 7 and 8 are optional in MFC2019 video."""
    res = omfc.case(
        "MFC2019",
        "manipulation-video",
        header=OUT_HEADER[:6],
        rows=[["v1", 0.5, "Processed", "[]", "[]", "[]"]],
        index_header=IDX_HEADER,
        index_rows=[["manipulation-video", "v1", "probe/v1.mp4", 320, 240, 100]],
    ).run()
    assert res.outcome("VMASK-07") == "skipped"
    assert (
        res.first_line("VMASK-07")
        == "VMASK-07 skipped: no OutputProbeMaskFileName column (optional and not evaluated in MFC2019 video, D-16)"
    )


def test_vmask07_unreadable_files_are_findings(omfc, tmp_path):
    """A missing file, 0 bytes, a text file and a directory: warnings, never a crash."""
    case = make(omfc, ["mask/gone.hdf5", "mask/empty.hdf5", "mask/text.hdf5", "mask/dir.hdf5"])
    mask = case.submission / "mask"
    mask.mkdir(exist_ok=True)
    (mask / "empty.hdf5").write_bytes(b"")
    (mask / "text.hdf5").write_text("not an HDF5 file\n")
    (mask / "dir.hdf5").mkdir()
    res = case.run()
    assert res.outcome("VMASK-07") == "passed"
    warning = res.warning("VMASK-07")
    assert warning.splitlines()[0] == "VMASK-07: 4 HDF5 masks are missing or unreadable (showing 4)"
    assert "[v1] OutputProbeMaskFileName='mask/gone.hdf5': the HDF5 mask must exist (got no such file)" in warning
    assert (
        "[v2] OutputProbeMaskFileName='mask/empty.hdf5': the HDF5 mask must be an HDF5 file (got an empty file, 0 "
        "bytes)" in warning
    )
    assert (
        "[v3] OutputProbeMaskFileName='mask/text.hdf5': the HDF5 mask must be readable as HDF5 (got 17 bytes without "
        "the HDF5 signature" in warning
    )
    assert (
        "[v4] OutputProbeMaskFileName='mask/dir.hdf5': the HDF5 mask must be an HDF5 file (got a directory)" in warning
    )
    for rid in ("VMASK-02", "VMASK-03", "VMASK-04"):  # nothing to look into
        assert res.outcome(rid) == "passed" and res.warning(rid) is None


def test_vmask07_failed_validation_row_is_excused(omfc):
    """STATUS-08: a FailedValidation row skips every mask check."""
    res = make(omfc, ["mask/gone.hdf5"], status={"v1": "FailedValidation"}).run()
    assert res.first_line("VMASK-07") == "VMASK-07 skipped: no video masks are named"


def test_vmask02_block_layout(omfc, tmp_path):
    """D-15: 0-indexed group names in [0, FrameCount); blocks within FrameCount and disjoint; no links followed."""
    blocks = {
        "0": ((10, 240, 320), "uint8"),
        "5": ((3, 240, 320), "uint8"),  # overlaps frames 0-9
        "start": ((1, 240, 320), "uint8"),  # not an integer
        "95": ((10, 240, 320), "uint8"),  # frames 95-104, FrameCount 100
        "100": ((1, 240, 320), "uint8"),  # 0-indexed: 100 is past the last frame
        "!30": ((1, 240, 320), "uint8"),  # a dataset, not a group
        "50": ((240, 320), "uint8"),  # 2-D
    }
    case = make(omfc, ["mask/v1.hdf5"], files={"mask/v1.hdf5": blocks})
    outside = tmp_path / "outside.hdf5"
    write_h5(outside, GOOD)
    with h5py.File(case.submission / "mask" / "v1.hdf5", "a") as f:
        f["70"] = h5py.ExternalLink(str(outside), "/0")
    res = case.run()
    assert res.outcome("VMASK-02") == "passed"
    warning = res.warning("VMASK-02")
    assert warning.splitlines()[0] == "VMASK-02: 7 block layout problems in 1 HDF5 mask (showing 7)"
    for text in [
        "block '5' (frames 5-7) must not overlap block '0' (frames 0-9)",
        "block 'start': the group name must be the 0-indexed start frame, an integer such as 0 or 30 (got 'start')",
        "block '95': its 10 frames (0-indexed 95-104) must end within [0, 99] (got 5 frame(s) beyond FrameCount 100)",
        "block '100': the start frame must be in [0, 99] (0-indexed, FrameCount 100, D-15) (got 100)",
        "block '30' must be a group '<start frame>/masks' (got a Dataset)",
        "block '50': 'masks' must be 3-D (frames, height, width) (got shape (240, 320))",
        "block '70' must be a group, not an external link (links are not followed)",
    ]:
        assert text in warning, text
    order = [warning.index(f"block '{name}'") for name in ("30", "50", "70", "95", "100", "start")]
    assert order == sorted(order)  # frame order, not HDF5's alphabetical order


def test_nists_own_layout_passes_vmask02(omfc):
    """NIST's own video-mask files (MediScore's reader, lib/video_masks.py: only numbered groups and 'masks/masks'
    are read): numbered blocks beside a 'probe_ids' group, a metadata dataset and start_frame/end_frame
    attributes.  The 'probe_ids' group drew a false VMASK-02 warning ("must hold a dataset 'masks'")."""
    case = make(omfc, ["mask/v1.hdf5", "mask/v2.hdf5"], files={"mask/v1.hdf5": GOOD})
    with h5py.File(case.submission / "mask" / "v1.hdf5", "a") as f:
        ids = f.create_group("probe_ids")
        ids.create_dataset("v1", data=b"v1")
        f.create_dataset("frame_rate", data=29.97)
        f["0"].attrs["start_frame"], f["0"].attrs["end_frame"] = 0, 4
        f.attrs["end_frame"] = 99
    path = case.submission / "mask" / "v2.hdf5"  # the whole-video layout NIST's generator writes by default
    path.parent.mkdir(parents=True, exist_ok=True)
    with h5py.File(path, "w") as f:
        f.create_group("masks").create_dataset("masks", shape=(100, 240, 320), dtype="uint8")
    res = case.run()
    for rid in VMASK_ITEMS:
        assert res.outcome(rid) == "passed" and res.warning(rid) is None, (rid, res.warning(rid))


def test_a_misnamed_block_stays_a_block_and_the_whole_video_is_bounded(omfc):
    """A group holding 'masks' under a name that is no frame number is a block named wrongly (a finding), not
    metadata; 'masks/masks' covers frames from 0 and is bounded by FrameCount like any block."""
    blocks = {"start30": ((1, 240, 320), "uint8"), "masks": ((101, 240, 320), "uint8")}
    res = make(omfc, ["mask/v1.hdf5"], files={"mask/v1.hdf5": blocks}).run()
    warning = res.warning("VMASK-02")
    assert "block 'start30': the group name must be the 0-indexed start frame" in warning, warning
    assert "block 'masks': its 101 frames (0-indexed 0-100) must end within [0, 99]" in warning, warning


def test_vmask03_frame_size(omfc):
    res = make(
        omfc,
        ["mask/v1.hdf5", "mask/v2.hdf5"],
        files={"mask/v1.hdf5": {"0": ((2, 480, 640), "uint8")}, "mask/v2.hdf5": GOOD},
    ).run()
    assert res.outcome("VMASK-03") == "passed"
    warning = res.warning("VMASK-03")
    assert warning.splitlines()[0] == "VMASK-03: 1 HDF5 mask differs in frame size from its probe (showing 1)"
    assert (
        "[v1] OutputProbeMaskFileName='mask/v1.hdf5': block '0': frames must be 320x240 (width x height) like the "
        "probe (got 640x480; NIST's video scorer refuses a mask of another size: a warning here only because "
        "MFC2019 does not evaluate video masks, D-16)" in warning
    )


def test_vmask04_dtype_and_channels(omfc):
    res = make(
        omfc,
        ["mask/v1.hdf5", "mask/v2.hdf5", "mask/v3.hdf5"],
        files={
            "mask/v1.hdf5": {"0": ((2, 240, 320), "float32")},
            "mask/v2.hdf5": {"0": ((2, 240, 320, 3), "uint8")},
            "mask/v3.hdf5": {"0": ((2, 240, 320), "uint16")},
        },
    ).run()
    warning = res.warning("VMASK-04")
    assert warning.splitlines()[0] == "VMASK-04: 3 HDF5 masks are not single-channel uint8 (showing 3)"
    assert (
        "[v1] OutputProbeMaskFileName='mask/v1.hdf5': block '0': pixels must be one byte, uint8 (got float32)"
        in warning
    )
    assert (
        "block '0': frames must be single-channel grey, shape (frames, height, width) (got shape (2, 240, 320, 3))"
        in warning
    )
    assert "(got uint16)" in warning
    assert res.outcome("VMASK-03") == "passed" and res.warning("VMASK-03") is None  # 4-D frames still 320x240


def test_pkg05_paths_leaving_the_submission_fail(omfc, tmp_path):
    """D-24: '..', absolute paths and symlinks out are errors and are never opened; elsewhere inside warns."""
    outside = tmp_path / "outside.hdf5"
    write_h5(outside, {"0": ((1, 2, 2), "float64")})  # would fail VMASK-03/04 if it were opened
    case = make(omfc, ["../outside.hdf5", str(outside), "mask/link.hdf5", "v4.hdf5"], files={"v4.hdf5": GOOD})
    (case.submission / "mask").mkdir(exist_ok=True)
    os.symlink(outside, case.submission / "mask" / "link.hdf5")
    res = case.run()
    assert res.outcome("PKG-05") == "failed"
    text = res.text("PKG-05")
    assert res.first_line("PKG-05") == "PKG-05: 3 errors: video mask paths outside p-test_1/mask/ (showing 3)"
    assert (
        res.warning("PKG-05").splitlines()[0]
        == "PKG-05: 1 warning: video mask paths outside p-test_1/mask/ (showing 1)"
    )
    assert (
        "[v1] OutputProbeMaskFileName='../outside.hdf5': the mask path must stay inside the submission directory (got "
        "'..' in '../outside.hdf5')" in text
    )
    assert "[v2]" in text and "must be a path relative to the submission directory (got absolute path" in text
    assert (
        "[v3] OutputProbeMaskFileName='mask/link.hdf5': the mask path must stay inside the submission directory (got "
        "a symlink to" in text
    )
    assert (
        "[v4] OutputProbeMaskFileName='v4.hdf5': the mask must be under p-test_1/mask/ (got 'v4.hdf5')"
        in res.warning("PKG-05")
    )
    for rid in ("VMASK-03", "VMASK-04", "VMASK-07"):  # the file outside was never opened
        assert res.warning(rid) is None, res.warning(rid)


def test_vmask01_hdf5_extension(omfc):
    res = make(omfc, ["mask/v1.png", "mask/v2.hdf5"], files={"mask/v2.hdf5": GOOD}).run()
    assert res.outcome("VMASK-01") == "passed"
    assert first_warning(res, "VMASK-01") == "VMASK-01: 1 video mask name does not end in .hdf5 (showing 1)"
    assert (
        "[v1] OutputProbeMaskFileName='mask/v1.png': the video mask must be an .hdf5 file (got '.png')"
        in res.warning("VMASK-01")
    )


def test_vmask06_pixel_value(omfc):
    res = make(omfc, ["", ""], pixel={"v1": "300", "v2": "12.5"}).run()
    assert first_warning(res, "VMASK-06") == "VMASK-06: 2 opt-out pixel values outside [0, 255] (showing 2)"
    assert (
        "[v1] ProbeOptOutPixelValue='300': the opt-out pixel value must be blank or an integer in [0, 255] (got '300')"
        in res.warning("VMASK-06")
    )


def test_inspect_hdf5_never_raises(tmp_path):
    """Direct: truncated and garbage files become problems; a good file yields shapes and dtypes only."""
    from pytest_omfc.rules.vmask import inspect_hdf5

    good = tmp_path / "good.hdf5"
    write_h5(good, GOOD)
    summary = inspect_hdf5(good)
    assert summary.problem is None
    assert [(b.name, b.shape, b.dtype) for b in summary.blocks] == [
        ("0", (5, 240, 320), "uint8"),
        ("10", (3, 240, 320), "uint8"),
    ]
    truncated = tmp_path / "truncated.hdf5"
    truncated.write_bytes(good.read_bytes()[:600])
    assert inspect_hdf5(truncated).problem.startswith("must be readable as HDF5 (got ")
    fifo = tmp_path / "fifo.hdf5"
    os.mkfifo(fifo)
    assert inspect_hdf5(fifo).problem == "must be a regular HDF5 file (got a special file)"  # never opened: no hang
    assert inspect_hdf5(tmp_path / "nope.hdf5").problem == "must exist (got no such file)"


def test_mfc2018_video_masks_get_the_same_checks(omfc):
    """MFC2018 has the MFC2019 mask columns and NIST's MFC2018 data had HDF5 masks: no HDF5 content was checked
    there before; now the same VMASK warnings (and PKG-05's error for a path leaving the submission)."""
    rows = [["v1", 0.5, "Processed", "[]", "[]", "[]", "mask/v1.hdf5", ""]]
    index_rows = [["manipulation-video", "v1", "probe/v1.mp4", 320, 240, 100]]
    case = omfc.case(
        "MFC2018", "manipulation-video", header=OUT_HEADER, rows=rows, index_header=IDX_HEADER, index_rows=index_rows
    )
    write_h5(case.submission / "mask" / "v1.hdf5", {"0": ((2, 480, 640), "uint8")})
    res = case.run()
    assert res.outcome("VMASK-03") == "passed" and "frames must be 320x240" in (res.warning("VMASK-03") or "")
    for rid in ("PKG-05", "VMASK-01", "VMASK-02", "VMASK-04", "VMASK-07"):
        assert rid in res.reports, rid
