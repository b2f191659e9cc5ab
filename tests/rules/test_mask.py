"""MASK rules and PKG-04: image masks, read by their header (docs/rules/mask.md, D-14, D-24, D-25, D-26)."""

from __future__ import annotations

import io
import os
import sys

import pytest
from helpers.masks import IDS, IMG_IDX, IMG_OUT, NC_OUT, SPL_IDX, SPL_OUT, H, W, image_case, one_mask, pil_png, raw_png
from PIL import Image

CAM_IDX = IMG_IDX + ["TrainCamID"]
CAM_OUT = [
    "ProbeFileID",
    "TrainCamID",
    "OutputProbeMaskFileName",
    "ConfidenceScore",
    "ProbeStatus",
    "ProbeOptOutPixelValue",
]
MASK_RULES = (
    ["PKG-04"] + [f"MASK-0{i}" for i in range(1, 8)] + [f"MASK-0{k}[{i}/4]" for k in (4, 8) for i in range(1, 5)]
)


# ---------------------------------------------------------------------------- PNG makers


GOOD = pil_png()


def jpeg_bytes() -> bytes:
    buf = io.BytesIO()
    Image.new("L", (W, H), "white").save(buf, format="JPEG")
    return buf.getvalue()


# ---------------------------------------------------------------------------- cases


def nc17_case(omfc, masks: dict[str, str], files: dict[str, bytes]):
    rows = [[i, 0.5, masks.get(i, ""), "N"] for i in IDS]
    return omfc.case(
        "NC2017",
        "manipulation",
        header=NC_OUT,
        rows=rows,
        index_header=IMG_IDX,
        index_rows=[["manipulation", i, f"probe/{i}.jpg", W, H] for i in IDS],
        files=files,
        sub_id="NIST_NC17_DRYRUN17_Manipulation_ImgOnly_p-baseline_1",
    )


# ---------------------------------------------------------------------------- passing


def test_valid_masks_pass_every_mask_rule(omfc):
    """8-bit grey, 1-bit grey (D-14) and a blank field (D-25) are all fine."""
    res = image_case(
        omfc,
        {"0042": "mask/0042-mask.png", "0044": "mask/0044-mask.png"},
        {"mask/0042-mask.png": GOOD, "mask/0044-mask.png": pil_png("1")},
    ).run()
    for rid in MASK_RULES + ["OOPIX-03"]:
        assert res.outcome(rid) == "passed", (rid, res.text(rid))
        assert res.warning(rid) is None, (rid, res.warning(rid))
    assert "MASK-12" not in res.reports and "MASK-13" not in res.reports  # not_checked: never collected


def test_symlink_inside_and_interlaced_mask_pass(omfc):
    """A symlink that stays in the submission is followed; an Adam7 mask with one white sample is not black."""
    case = image_case(
        omfc,
        {"0042": "mask/link.png", "0043": "mask/0043-mask.png"},
        {"mask/real.png": GOOD, "mask/0043-mask.png": raw_png(fill=0, interlace=1, last_byte=255)},
    )
    os.symlink("real.png", case.submission / "mask" / "link.png")
    res = case.run()
    for rid in MASK_RULES:
        assert res.outcome(rid) == "passed", (rid, res.text(rid))
    assert all(res.warning(f"MASK-08[{i}/4]") is None for i in range(1, 5))


# ---------------------------------------------------------------------------- MASK-01...04


def test_mask01_blank_lookalikes_fail(omfc):
    res = image_case(omfc, {"0042": " ", "0043": "None"}).run()
    assert res.outcome("MASK-01") == "failed"
    assert res.first_line("MASK-01") == "MASK-01: 2 mask fields look blank but are not empty (showing 2)"
    assert "[0043] OutputProbeMaskFileName='None': a missing mask must be an empty field (got 'None'" in res.text(
        "MASK-01"
    )


def test_mask02_png_bytes_named_jpg_fail_only_the_extension(omfc):
    res = one_mask(omfc, GOOD, "mask/0042-mask.jpg")
    assert res.first_line("MASK-02") == "MASK-02: 1 of 1 masks are not named .png (showing 1)"
    assert "the name must end in '.png' (got '.jpg')" in res.text("MASK-02")
    for rid in ("MASK-03", "MASK-04", "MASK-05", "MASK-06", "MASK-07"):
        assert res.outcome(rid) == "passed", rid


def test_mask02_upper_case_extension_warns(omfc):
    res = one_mask(omfc, GOOD, "mask/0042-mask.PNG")
    assert res.outcome("MASK-02") == "passed"
    assert res.warning("MASK-02").splitlines()[0] == "MASK-02: 1 of 1 masks are not named .png (showing 1)"


def test_mask03_missing_file_and_directory_fail(omfc):
    case = image_case(omfc, {"0042": "mask/gone.png", "0043": "mask/dir.png"}, {"mask/dir.png/x": b""})
    res = case.run()
    assert res.first_line("MASK-03") == "MASK-03: 2 of 2 referenced masks do not exist (showing 2)"
    text = res.text("MASK-03")
    assert "mask/gone.png must name an existing file (it does not exist)" in text
    assert "mask/dir.png must name a regular file (got a directory)" in text
    assert res.outcome("MASK-04") == "passed"


def test_mask03_fifo_is_not_opened(omfc):
    """A FIFO named like a mask must not make the check hang."""
    case = image_case(omfc, {"0042": "mask/fifo.png"}, {"mask/keep": b""})
    os.mkfifo(case.submission / "mask" / "fifo.png")
    res = case.run()
    assert "mask/fifo.png must name a regular file (got a special file)" in res.text("MASK-03")


@pytest.mark.parametrize(
    ("content", "got"),
    [
        (b"", "must be a PNG file (got an empty file)"),
        (b"hello, not an image", "must be a PNG file (got data starting with b'hello, n')"),
        (jpeg_bytes(), "must be a PNG file (got JPEG data)"),
        (GOOD[: len(GOOD) // 2], "with no IEND chunk: truncated)"),
        (GOOD[:20], "truncated inside the header)"),
        (GOOD[:16] + b"\x00\x00\x01\x00" + GOOD[20:], "must have an intact IHDR chunk (got a CRC mismatch"),
    ],
    ids=["empty", "text", "jpeg-named-png", "truncated", "truncated-header", "bad-crc"],
)
def test_mask04_unreadable_fails(omfc, content, got):
    res = one_mask(omfc, content)
    assert res.first_line("MASK-04") == "MASK-04: 1 of 1 masks are not readable PNG files (showing 1)"
    assert got in res.text("MASK-04")
    assert res.outcome("MASK-05") == "passed"  # nothing further is claimed about an unreadable file


# ---------------------------------------------------------------------------- MASK-05...07


@pytest.mark.parametrize(
    ("content", "got"),
    [
        (pil_png("RGB"), "got RGB colour, 3 channels"),
        (pil_png("RGBA"), "got RGBA colour, 4 channels"),
        (pil_png("LA"), "got grey+alpha, 2 channels"),
        (pil_png("P"), "got a palette (indexed colour, decoded as 3 channels)"),
        (pil_png("L", transparency=0), "got grey with a transparency (tRNS) chunk"),
    ],
    ids=["rgb", "rgba", "grey-alpha", "palette", "grey-trns"],
)
def test_mask05_not_single_channel_fails(omfc, content, got):
    res = one_mask(omfc, content)
    assert res.first_line("MASK-05") == "MASK-05: 1 of 1 masks are not single-channel grey (showing 1)"
    assert f"mask/0042-mask.png must be single-channel grey ({got}" in res.text("MASK-05")


def test_mask06_swapped_size_fails(omfc):
    res = one_mask(omfc, pil_png("L", (H, W)))
    assert res.first_line("MASK-06") == "MASK-06: 1 of 1 masks differ in size from their probe (showing 1)"
    assert (
        "p-test_1.csv:2 [0042] OutputProbeMaskFileName='mask/0042-mask.png': "
        "mask/0042-mask.png is 30x40, probe is 40x30: must be 40x30 (got 30x40)"
    ) in res.text("MASK-06")


def test_mask07_sixteen_bit_fails(omfc):
    res = one_mask(omfc, pil_png("I;16"))
    assert res.first_line("MASK-07") == "MASK-07: 1 of 1 masks use more than one byte per pixel (showing 1)"
    assert "must use one byte per pixel, 8 bits or fewer (got 16-bit samples)" in res.text("MASK-07")
    assert res.outcome("MASK-05") == "passed"


# ---------------------------------------------------------------------------- MASK-08


def _mask08(res):
    return [res.warning(f"MASK-08[{i}/4]") for i in range(1, 5)], [res.reports[f"MASK-08[{i}/4]"] for i in range(1, 5)]


def black_1bit() -> bytes:
    buf = io.BytesIO()
    Image.new("1", (W, H), 0).save(buf, format="PNG")
    return buf.getvalue()


@pytest.mark.parametrize(
    "content",
    [raw_png(fill=0), raw_png(fill=0, filter_type=2), raw_png(fill=0, interlace=1), black_1bit()],
    ids=["black", "black-up-filter", "black-interlaced", "black-1bit"],
)
def test_mask08_all_black_warns(omfc, content):
    res = one_mask(omfc, content)
    warnings, reports = _mask08(res)
    assert all(outcome == "passed" for outcome, _ in reports)  # a warning never fails the run
    shown = [w for w in warnings if w]
    assert len(shown) == 1
    assert shown[0].splitlines()[0] == "MASK-08: 1 mask is entirely black (every pixel claimed manipulated) (showing 1)"
    assert "should be white (255) where not manipulated (got an entirely black mask" in shown[0]


def test_mask08_black_with_opt_out_zero_is_not_flagged(omfc):
    case = omfc.case(
        "MFC2019",
        "manipulation-image",
        header=IMG_OUT,
        rows=[["0042", 0.5, "mask/0042-mask.png", "Processed", "0"]],
        index_header=IMG_IDX,
        index_rows=[["manipulation-image", "0042", "probe/0042.jpg", W, H]],
        files={"mask/0042-mask.png": raw_png(fill=0)},
    )
    warnings, _ = _mask08(case.run())
    assert warnings == [None] * 4


def test_mask08_damaged_pixel_data_fails(omfc):
    """Image data that does not inflate is MASK-04's (a readable PNG), found by the one decode MASK-08 reuses."""
    res = one_mask(omfc, raw_png(idat=b"\x78\x9cthis is not deflate"))  # a valid zlib header, then garbage
    assert res.first_line("MASK-04") == "MASK-04: 1 of 1 masks are not readable PNG files (showing 1)"
    assert "pixel data must be a valid zlib stream (got Error -3" in res.text("MASK-04")
    assert all(res.outcome(f"MASK-08[{i}/4]") == "passed" for i in range(1, 5))


def test_mask08_runs_in_the_pool_with_the_same_verdicts(omfc, monkeypatch):
    """--omfc-jobs 2 with the pool forced on: same findings as in-process."""
    from concurrent.futures import ProcessPoolExecutor

    from pytest_omfc.rules import mask as mask_rules
    from pytest_omfc.work import pool

    mapped: list[int] = []

    class Spy(ProcessPoolExecutor):
        def map(self, fn, *iterables, **kw):  # type: ignore[override]
            results = list(super().map(fn, *iterables, **kw))  # raises if a worker failed: no silent fallback
            mapped.append(len(results))
            return iter(results)

    files = {f"mask/{i}-mask.png": raw_png(fill=0) if i == "0043" else GOOD for i in IDS}
    case = image_case(omfc, {i: f"mask/{i}-mask.png" for i in IDS}, files)
    inline = case.run("--omfc-jobs", "1", "--omfc-slices", "1")
    assert mapped == []
    monkeypatch.setattr(pool, "ProcessPoolExecutor", Spy)
    monkeypatch.setattr(mask_rules, "SCANS_PER_JOB", 1)
    monkeypatch.setattr(mask_rules, "HEADERS_PER_JOB", 1)
    pooled = case.run("--omfc-jobs", "2", "--omfc-slices", "1")
    assert mapped == [2, 2]  # the header pass and the MASK-08 scan each ran in two worker processes
    assert inline.warning("MASK-08[1/1]") == pooled.warning("MASK-08[1/1]")
    assert pooled.warning("MASK-08[1/1]").splitlines()[0].startswith("MASK-08: 1 mask is entirely black")
    assert {r: o for r, (o, _) in inline.reports.items()} == {r: o for r, (o, _) in pooled.reports.items()}


# ---------------------------------------------------------------------------- PKG-04 and path safety


def test_pkg04_mask_outside_mask_dir_fails(omfc):
    res = one_mask(omfc, GOOD, "0042-mask.png")
    assert res.first_line("PKG-04") == "PKG-04: 1 of 1 masks are not under p-test_1/mask/ (showing 1)"
    assert "must be a file under mask/ in the submission directory (got '0042-mask.png')" in res.text("PKG-04")
    assert res.outcome("MASK-04") == "passed"


def test_pkg04_outside_mask_dir_is_a_warning_for_nc2017(omfc):
    res = nc17_case(omfc, {"0042": "0042-mask.png"}, {"0042-mask.png": GOOD}).run()
    assert res.outcome("PKG-04") == "passed"
    assert res.warning("PKG-04").splitlines()[0].startswith("PKG-04: 1 of 1 masks are not under ")


@pytest.mark.parametrize("kind", ["dotdot", "absolute", "symlink-out", "nc2017-dotdot"])
def test_pkg04_path_leaving_the_submission_fails(omfc, kind):
    """The file outside exists and is a valid mask: it is never read (MASK-03...08 stay silent)."""
    outside = omfc.write("outside.png", GOOD)
    name = {
        "dotdot": "../outside.png",
        "absolute": str(outside),
        "symlink-out": "mask/link.png",
        "nc2017-dotdot": "mask/../../outside.png",
    }[kind]
    if kind.startswith("nc2017"):
        case = nc17_case(omfc, {"0042": name}, {"mask/keep": b""})
    else:
        case = image_case(omfc, {"0042": name}, {"mask/keep": b""})
    if kind == "symlink-out":
        os.symlink(outside, case.submission / "mask" / "link.png")
    res = case.run()
    assert res.outcome("PKG-04") == "failed"  # an error in every edition, NC2017 included
    assert res.first_line("PKG-04") == "PKG-04: 1 mask path leaves the submission directory (showing 1)"
    want = {
        "dotdot": "must stay inside the submission directory (got '..' in '../outside.png')",
        "absolute": "must be a path relative to the submission directory (got absolute path",
        "symlink-out": "must stay inside the submission directory (got a symlink to",
        "nc2017-dotdot": "must stay inside the submission directory (got '..'",
    }[kind]
    assert want in res.text("PKG-04")
    for rid in ("MASK-02", "MASK-03", "MASK-04", "MASK-05", "MASK-06", "MASK-07"):
        assert res.outcome(rid) == "passed", (rid, res.text(rid))


# ---------------------------------------------------------------------------- STATUS-08 and MASK-09...11


def test_failed_validation_rows_are_excused(omfc):
    """STATUS-08: a FailedValidation row skips every mask check (wrong size, RGBA, missing, not a PNG)."""
    masks = {"0042": "mask/rgba.png", "0043": "mask/gone.png", "0044": "mask/small.jpg"}
    files = {"mask/rgba.png": pil_png("RGBA", (5, 5)), "mask/small.jpg": jpeg_bytes()}
    res = image_case(omfc, masks, files, statuses={i: "FailedValidation" for i in IDS}).run()
    for rid in MASK_RULES:
        assert res.outcome(rid) == "passed", (rid, res.text(rid))
    failing = image_case(omfc, masks, files, edition="MFC2019").run()
    assert failing.failed()[:1] and {"MASK-02", "MASK-03", "MASK-04", "MASK-05", "MASK-06"} <= set(failing.failed())


def splice_case(omfc, probe_mask: str, donor_mask: str, files: dict[str, bytes]):
    rows = [["P1", "D1", 0.5, probe_mask, donor_mask, "Processed", "Processed", "", ""]]
    return omfc.case(
        "MFC2019",
        "splice",
        header=SPL_OUT,
        rows=rows,
        index_header=SPL_IDX,
        index_rows=[["splice", "P1", "probe/P1.jpg", W, H, "D1", "world/D1.jpg", 20, 10]],
        files=files,
    )


def test_mask09_swapped_masks_fail(omfc):
    files = {"mask/p.png": pil_png("L", (20, 10)), "mask/d.png": pil_png("L", (W, H))}
    res = splice_case(omfc, "mask/p.png", "mask/d.png", files).run()
    assert res.first_line("MASK-09") == "MASK-09: 2 masks fit the other image of the pair (showing 2)"
    assert (
        "[P1:D1] OutputProbeMaskFileName='mask/p.png': the probe mask must be relative to the probe "
        "(got the donor's size 20x10: probe and donor masks swapped?)"
    ) in res.text("MASK-09")
    assert res.first_line("MASK-06") == "MASK-06: 2 of 2 masks differ in size from their probe or donor (showing 2)"
    assert "mask/d.png is 40x30, donor is 20x10" in res.text("MASK-06")


def test_mask09_each_side_on_its_own(omfc):
    """A probe mask with a blank donor mask is fine, and the donor side is checked on its own."""
    res = splice_case(omfc, "mask/p.png", "", {"mask/p.png": GOOD}).run()
    for rid in ["MASK-01", "MASK-06", "MASK-09", "PKG-04"]:
        assert res.outcome(rid) == "passed", (rid, res.text(rid))
    res = splice_case(omfc, "", "mask/d.png", {"mask/d.png": pil_png("RGB", (20, 10))}).run()
    assert res.first_line("MASK-05") == "MASK-05: 1 of 1 masks are not single-channel grey (showing 1)"
    assert "OutputDonorMaskFileName='mask/d.png'" in res.text("MASK-05")


def camera_case(omfc, masks: list[str], files: dict[str, bytes]):
    pairs = [("P1", "CamA"), ("P2", "CamA")]
    rows = [[p, c, m, 0.5, "Processed", ""] for (p, c), m in zip(pairs, masks, strict=False)]
    return omfc.case(
        "MFC2019",
        "camera",
        header=CAM_OUT,
        rows=rows,
        index_header=CAM_IDX,
        index_rows=[["camera", p, f"probe/{p}.jpg", W, H, c] for p, c in pairs],
        files=files,
    )


def test_mask10_shared_camera_mask_warns(omfc):
    res = camera_case(omfc, ["mask/same.png", "mask/same.png"], {"mask/same.png": GOOD}).run()
    assert res.outcome("MASK-10") == "passed"
    text = res.warning("MASK-10")
    assert text.splitlines()[0] == "MASK-10: 2 rows share a mask file with another pair (showing 2)"
    assert (
        "[P1:CamA] OutputProbeMaskFileName='mask/same.png': each (probe, TrainCamID) pair should have its own mask"
        in text
    )


def test_mask10_camera_masks_checked_against_their_pair(omfc):
    res = camera_case(
        omfc, ["mask/a.png", "mask/b.png"], {"mask/a.png": GOOD, "mask/b.png": pil_png("L", (10, 10))}
    ).run()
    assert res.outcome("MASK-10") == "passed" and res.warning("MASK-10") is None
    assert res.first_line("MASK-06") == "MASK-06: 1 of 2 masks differ in size from their probe (showing 1)"
    assert "[P2:CamA]" in res.text("MASK-06")


@pytest.mark.parametrize("with_mask", [True, False])
def test_mask11_video_mask_column(omfc, with_mask):
    header = ["ProbeFileID", "ConfidenceScore", "ProbeStatus"] + (["OutputProbeMaskFileName"] if with_mask else [])
    row = ["V1", 0.5, "Processed"] + (["mask/V1.hdf5"] if with_mask else [])
    res = omfc.case(
        "OpenMFC2020",
        "VMD",
        header=header,
        rows=[row],
        index_header=IMG_IDX + ["FrameCount"],
        index_rows=[["VMD", "V1", "probe/V1.mp4", W, H, 100]],
    ).run()
    assert res.outcome("MASK-11") == "passed"
    if with_mask:
        assert (
            res.warning("MASK-11").splitlines()[0]
            == "MASK-11: 1 row name a video mask that is never evaluated (showing 1)"
        )
    else:
        assert res.warning("MASK-11") is None


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_mask04_unreadable_file_fails(omfc):
    if os.geteuid() == 0:
        pytest.skip("root reads every file")
    case = image_case(omfc, {"0042": "mask/0042-mask.png"}, {"mask/0042-mask.png": GOOD})
    os.chmod(case.submission / "mask" / "0042-mask.png", 0)
    res = case.run()
    assert "must be readable (got Permission denied)" in res.text("MASK-04")


def test_same_verdicts_under_xdist(omfc):
    """Every process builds the same mask table: -n 2 gives the outcomes and texts of a single process."""
    masks = {"0042": "mask/rgba.png", "0043": "../x.png", "0044": "mask/black.png"}
    files = {"mask/rgba.png": pil_png("RGBA", (5, 5)), "mask/black.png": raw_png(fill=0)}
    case = image_case(omfc, masks, files)
    single, xdist = case.run(), case.run("-n", "2")
    # PKG-04, MASK-01...03, MASK-04 x4, MASK-05...07, MASK-08 x4, OOPIX-03 (the helper also merges each
    # sliced rule's items under its ID: compared item by item, not merged, as slices may finish in any order)
    ours = [r for r in single.reports if r.startswith(("MASK", "OOPIX", "PKG-04")) and r not in ("MASK-04", "MASK-08")]
    assert len(ours) == 16 and set(ours) <= set(xdist.reports)
    for rid in ours:
        assert xdist.reports[rid] == single.reports[rid], rid
        assert xdist.warning(rid) == single.warning(rid), rid
    assert {"PKG-04", "MASK-05", "MASK-06"} <= set(xdist.failed())
