"""Hostile JPEG maps (ForgeryNet's reference maps as distributed, issue 33): the header pass and the decode
never raise, never read past their bounds, and agree (a header the pass accepts either decodes to an
image of its size or is refused with a message)."""

from __future__ import annotations

import io
import os
import struct
from typing import Any

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_omfc import jpeg, png
from pytest_omfc.forgerynet.maps import too_many_pixels


def _grey_jpeg(progressive: bool = False) -> bytes:
    from PIL import Image

    pixels = np.zeros((24, 32), dtype=np.uint8)
    pixels[4:18, 3:20] = 230
    buf = io.BytesIO()
    Image.fromarray(pixels).save(buf, format="JPEG", quality=90, progressive=progressive)
    return buf.getvalue()


BASE = [_grey_jpeg(), _grey_jpeg(True)]


@st.composite
def mutated(draw: Any) -> bytes:
    data = bytearray(draw(st.sampled_from(BASE)))
    for _ in range(draw(st.integers(0, 6))):
        op = draw(st.sampled_from(["flip", "cut", "insert", "marker"]))
        at = draw(st.integers(0, max(0, len(data) - 1)))
        if op == "flip" and data:
            data[at] = draw(st.integers(0, 255))
        elif op == "cut":
            del data[at:]
        elif op == "insert":
            data[at:at] = draw(st.binary(max_size=16))
        else:  # a segment header with any marker and length
            data[at:at] = b"\xff" + bytes([draw(st.integers(0, 255))]) + struct.pack(">H", draw(st.integers(0, 65535)))
    return bytes(data)


def _check(tmp_path: Any, data: bytes) -> None:
    path = tmp_path / "m.jpg"
    path.write_bytes(data)
    head = jpeg.read_map_header(str(path))
    assert head.state in (png.OK, png.CORRUPT, png.NOT_PNG)
    if head.state != png.OK:
        assert head.message.startswith("must "), head.message
        return
    if head.kind != "JPEG" or too_many_pixels(head.width, head.height):
        return
    got = jpeg.decode_grey(str(path), head)
    if isinstance(got, str):
        assert got.startswith(("must ", "cannot be decoded")), got
    else:
        assert got.shape == (head.height, head.width) and got.dtype == np.uint8


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=mutated())
def test_a_mutated_jpeg_is_a_message_or_an_image_of_its_header_size(tmp_path: Any, data: bytes) -> None:
    _check(tmp_path, data)


def test_a_header_of_a_million_segments_is_read_within_its_bound(tmp_path: Any) -> None:
    """65,000 empty comment segments (260 KB) and then 16 MiB of them: the pass stops at MAX_SCAN bytes."""
    comment = b"\xff\xfe\x00\x02"
    small = b"\xff\xd8" + comment * 65_000 + BASE[0][2:]
    _check(tmp_path, small)
    path = tmp_path / "m.jpg"
    path.write_bytes(b"\xff\xd8" + comment * (4 << 20) + BASE[0][2:])
    head = jpeg.read_header(str(path))
    assert head.state == png.CORRUPT
    assert f"within the first {jpeg.MAX_SCAN:,} bytes" in head.message
    assert os.path.getsize(path) > 8 * jpeg.MAX_SCAN


def test_a_frame_declaring_65535_squared_pixels_is_refused_before_decoding(tmp_path: Any) -> None:
    data = bytearray(BASE[0])
    at = data.index(b"\xff\xc0")
    data[at + 5 : at + 9] = struct.pack(">HH", 65535, 65535)
    path = tmp_path / "m.jpg"
    path.write_bytes(bytes(data))
    head = jpeg.read_header(str(path))
    assert (head.state, head.width, head.height) == (png.OK, 65535, 65535)
    assert too_many_pixels(head.width, head.height) is not None  # the rules and the scorer refuse it unread
