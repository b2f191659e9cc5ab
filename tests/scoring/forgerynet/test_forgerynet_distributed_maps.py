"""ForgeryNet's spatial reference as the benchmark distributes it (issue 33): the image list with its
``spatial_localize`` folder, the maps JPEG grey images named as their image, in the training layout
(``train_release/...`` images, ``train_mask_release/...`` maps) and the validation layout
(``val_perturb_release/...``, maps under the same name or without that first folder).

Each layout scores equal to a pipe-separated reference whose maps are PNG files holding the grey levels
the JPEG maps decode to (what the benchmark's loaders read: ``Image.open(p).convert("L")``): JPEG is
lossy, so the comparison is with the decoded values, never with the maps before compression.
"""

from __future__ import annotations

import io
import os
from typing import Any

import numpy as np
import pytest
from helpers.forgerynet import Fnet, png_bytes

from pytest_omfc import jpeg, png
from pytest_omfc.forgerynet.submission import map_names

SPATIAL = "score::forgerynet-spatial"


def _map(x0: int, x1: int, level: int, shape: tuple[int, int] = (24, 32)) -> np.ndarray:
    out = np.zeros(shape, dtype=np.uint8)
    out[4:18, x0:x1] = level
    return out


def jpeg_bytes(pixels: np.ndarray, mode: str = "L", **options: Any) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(pixels).convert(mode).save(buf, format="JPEG", quality=options.pop("quality", 90), **options)
    return buf.getvalue()


def decoded(data: bytes) -> np.ndarray:
    """The grey levels the benchmark's loaders read from a JPEG map."""
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(data)).convert("L"))


@pytest.fixture
def fnet(pytester: pytest.Pytester) -> Fnet:
    return Fnet(pytester)


def _case(
    fnet: Fnet,
    names: list[str],
    reference: Any,
    ref_files: dict[str, bytes],
) -> Any:
    pred = {n: _map(2 + 3 * i, 20 + i, 160 + 20 * i) for i, n in enumerate(names)}
    rows = [[n, "0.9", f"masks/m{i}.png"] for i, n in enumerate(names)]
    files = {f"masks/m{i}.png": png_bytes(pred[n]) for i, n in enumerate(names)}
    return fnet.case(
        "spatial", reference=reference, submission=(["ID", "Score", "MaskFileName"], rows), files=files,
        ref_files=ref_files,
    )  # fmt: skip


def _image_list(names: list[str], fake: set[str]) -> str:
    return "".join(f"{n} {int(n in fake)} {int(n in fake)} {int(n in fake)}\n" for n in names)


TRAIN = ["train_release/1/7283/fffd/frame00019.jpg", "train_release/7/2ac4/b039/frame00038.jpg",
         "train_release/0/8c1d/5501/frame00007.jpg"]  # fmt: skip
VAL = ["val_perturb_release/6/be4f/47f4/frame00049.jpg", "val_perturb_release/3/5d7e/0c4f/frame00101.jpg",
       "val_perturb_release/0/a49f/0200/frame00230.jpg"]  # fmt: skip
GT = [_map(3, 14, 255), _map(10, 30, 200)]


def _layouts() -> list[tuple[str, list[str], Any]]:
    """(name, the list's images, where the maps folder holds the map of a fake image)."""
    return [
        ("training", TRAIN, lambda n: n.replace("train_release/", "train_mask_release/", 1)),
        ("validation", VAL, lambda n: n),
        ("validation-without-prefix", VAL, lambda n: n.split("/", 1)[1]),
    ]


@pytest.mark.parametrize(("layout", "names", "place"), _layouts(), ids=[lay[0] for lay in _layouts()])
def test_a_distributed_layout_scores_as_png_maps_of_the_decoded_grey_levels(
    fnet: Fnet, layout: str, names: list[str], place: Any
) -> None:
    fakes = names[:2]
    jpegs = {n: jpeg_bytes(m) for n, m in zip(fakes, GT, strict=True)}
    maps = {f"spatial_localize/{place(n)}": data for n, data in jpegs.items()}
    run = _case(fnet, names, _image_list(names, set(fakes)), maps).run()
    assert run.outcome.outcome("FNET-02") == "passed", run.outcome.text("FNET-02")
    assert run.outcome.outcome(SPATIAL) == "passed", run.outcome.text(SPATIAL)
    entry = run.entry()
    assert entry["counts"]["scored"] == 3

    pngs = {f"png_maps/{i}.png": png_bytes(decoded(jpegs[n])) for i, n in enumerate(fakes)}
    psv_ref = (
        ["ID", "Label", "MaskFileName"],
        [[n, int(n in jpegs), f"png_maps/{fakes.index(n)}.png" if n in jpegs else ""] for n in names],
    )
    converted = _case(fnet, names, psv_ref, pngs).run()
    assert converted.outcome.outcome(SPATIAL) == "passed", converted.outcome.text(SPATIAL)
    assert entry["metrics"] == converted.entry()["metrics"]
    # JPEG is lossy: the decoded levels are not the maps before compression, and the scores say so
    exact = {f"exact/{i}.png": png_bytes(m) for i, m in enumerate(GT)}
    exact_ref = (psv_ref[0], [[n, lab, m.replace("png_maps/", "exact/")] for n, lab, m in psv_ref[1]])
    assert _case(fnet, names, exact_ref, exact).run().entry()["metrics"] != entry["metrics"]


def test_the_maps_folder_alone_in_the_training_layout_names_the_training_images(fnet: Fnet) -> None:
    """``--omfc-reference Training/spatial_localize``: the map ``train_mask_release/.../frame.jpg`` is the one of
    the image ``train_release/.../frame.jpg`` that the predictions name."""
    from helpers.forgerynet import FnetCase

    fakes = TRAIN[:2]
    maps = {f"spatial_localize/{n.replace('train_release/', 'train_mask_release/', 1)}": jpeg_bytes(m)
            for n, m in zip(fakes, GT, strict=True)}  # fmt: skip
    case = _case(fnet, fakes, _image_list(fakes, set(fakes)), maps)
    with_list = case.run()
    alone = FnetCase(case.pytester, "spatial", case.submission, case.reference.parent / "spatial_localize").run()
    assert alone.outcome.outcome("FNET-04") == "passed", alone.outcome.text("FNET-04")
    assert alone.outcome.outcome(SPATIAL) == "passed", alone.outcome.text(SPATIAL)
    assert alone.entry()["metrics"] == with_list.entry()["metrics"]


def _sof_patched(data: bytes, offset: int, value: int) -> bytes:
    """``data`` with one byte of its baseline frame header (SOF0) replaced: 0 the marker's second byte,
    2 the precision."""
    at = data.index(b"\xff\xc0")
    out = bytearray(data)
    out[at + 1 + offset if offset == 0 else at + 2 + offset] = value
    return bytes(out)


def _bad_maps() -> list[tuple[str, Any, str]]:
    grey = jpeg_bytes(GT[0])
    return [
        ("truncated", grey[: len(grey) // 2], "must be a complete JPEG file (got "),
        ("cmyk", jpeg_bytes(GT[0], "CMYK"), "must be a grey or YCbCr JPEG of 8-bit samples (got CMYK, 4 channels"),
        ("12-bit", _sof_patched(grey, 2, 12), "must be a grey or YCbCr JPEG of 8-bit samples (got grey, 12-bit)"),
        ("lossless", _sof_patched(grey, 0, 0xC3), "must be a baseline or progressive JPEG (got a lossless frame"),
        ("header-only", grey[:20], "must be a complete JPEG file (got 20 bytes, truncated before the frame header)"),
        ("other-size", jpeg_bytes(_map(3, 14, 255, (20, 32))), "must be 32x20 like the reference map (got 32x24)"),
    ]


@pytest.mark.parametrize(("kind", "data", "message"), _bad_maps(), ids=[b[0] for b in _bad_maps()])
def test_a_bad_jpeg_map_is_a_finding_naming_it_never_a_crash(fnet: Fnet, kind: str, data: bytes, message: str) -> None:
    fakes = VAL[:2]
    maps = {f"spatial_localize/{fakes[0]}": data, f"spatial_localize/{fakes[1]}": jpeg_bytes(GT[1])}
    run = _case(fnet, VAL, _image_list(VAL, set(fakes)), maps).run()
    assert run.outcome.ret in (0, 1)
    text = "\n".join(t for _, t in run.outcome.reports.values())
    assert message in text, text
    if kind != "other-size":  # the header tells: the reference line's finding
        assert run.outcome.outcome("FNET-02") == "failed"
        assert f"[{fakes[0]}]: the reference map" in run.outcome.text("FNET-02")
    # the other fake image is still scored, so the score reports instead of passing on nothing
    assert run.outcome.outcome(SPATIAL) in ("passed", "failed"), run.outcome.text(SPATIAL)


def test_a_progressive_or_colour_jpeg_map_reads_as_the_loaders_read_it(tmp_path: Any) -> None:
    for mode, options in (("L", {"progressive": True}), ("RGB", {}), ("L", {"quality": 40})):
        data = jpeg_bytes(GT[1], mode, **options)
        path = tmp_path / f"m-{mode}-{len(options)}.jpg"
        path.write_bytes(data)
        head = jpeg.read_map_header(str(path))
        assert (head.state, head.kind, head.width, head.height) == (png.OK, "JPEG", 32, 24)
        got = jpeg.decode_grey(str(path), head)
        assert isinstance(got, np.ndarray)
        assert np.array_equal(got, decoded(data))


def test_special_files_and_links_out_of_the_maps_folder_are_never_read(fnet: Fnet, tmp_path: Any) -> None:
    fakes = VAL[:2]
    case = _case(fnet, VAL, _image_list(VAL, set(fakes)), {f"spatial_localize/{fakes[1]}": jpeg_bytes(GT[1])})
    folder = case.reference.parent / "spatial_localize"
    (folder / fakes[0]).parent.mkdir(parents=True)
    os.mkfifo(folder / fakes[0])
    run = case.run()
    assert run.outcome.outcome("FNET-02") == "failed"
    assert "must name a regular file (got a special file)" in run.outcome.text("FNET-02")
    (folder / fakes[0]).unlink()
    outside = tmp_path / "outside.jpg"
    outside.write_bytes(jpeg_bytes(GT[0]))
    os.symlink(outside, folder / fakes[0])
    run = case.run()
    assert run.outcome.outcome("FNET-02") == "failed"
    assert "must stay inside the maps folder" in run.outcome.text("FNET-02")


def test_map_names_follow_the_loaders() -> None:
    assert map_names("train_release/1/a/b/frame00019.jpg") == [
        "train_mask_release/1/a/b/frame00019.jpg",
        "train_mask_release/1/a/b/frame00019.png",
        "train_release/1/a/b/frame00019.jpg",
        "train_release/1/a/b/frame00019.png",
        "1/a/b/frame00019.jpg",
        "1/a/b/frame00019.png",
    ]
    assert map_names("val_perturb_release/6/a/frame00049.jpg")[:3] == [
        "val_perturb_release/6/a/frame00049.jpg",
        "val_perturb_release/6/a/frame00049.png",
        "6/a/frame00049.jpg",
    ]
    assert map_names("face.png") == ["face.png"]
    for hostile in ("../x/frame.jpg", "/etc/passwd", "a\\..\\b.jpg", "a/../../b.jpg"):
        assert map_names(hostile) == [hostile]
