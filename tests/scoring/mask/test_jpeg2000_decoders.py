"""JPEG 2000 bit-plane references read the same through glymur and through Pillow (issue 10).

glymur needs an OpenJPEG >= 2.4 at run time, which pip does not install (``.ci/run`` installs
Debian's ``libopenjp2-7`` when it can); Pillow's wheels bundle their own.  ``read_bitplanes``
prefers glymur and falls back to Pillow, so both must give the same arrays: one-component files
(bit planes 1-8) and two-component files (bit planes 9-16, BitPlane above 8).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from helpers.runs import CONFORMANCE
from PIL import Image

from pytest_omfc.scoring.mask.io import glymur_usable, read_bitplanes

needs_glymur = pytest.mark.skipif(
    not glymur_usable(), reason="glymur found no OpenJPEG >= 2.4 (apt-get install libopenjp2-7); Pillow alone is tested"
)
MASKS = CONFORMANCE / "maskScorerTests" / "reference" / "manipulation-image" / "mask"


ONE = np.random.default_rng(7).integers(0, 256, (37, 53), dtype=np.uint8)
TWO = np.random.default_rng(8).integers(0, 256, (29, 41, 2), dtype=np.uint8)


def _generated(tmp_path: Path) -> list[Path]:
    """A lossless 1-component and a 2-component (LA) file, random values: every bit plane is used."""
    Image.fromarray(ONE, "L").save(tmp_path / "one.jp2")
    Image.fromarray(TWO, "LA").save(tmp_path / "two.jp2")
    return [tmp_path / "one.jp2", tmp_path / "two.jp2"]


@pytest.mark.parametrize("decoder", ["pillow", pytest.param("glymur", marks=needs_glymur)])
def test_each_decoder_reads_lossless_bit_planes_exactly(tmp_path: Path, decoder: str) -> None:
    one, two = _generated(tmp_path)
    assert np.array_equal(read_bitplanes(one, decoder=decoder), ONE)
    assert np.array_equal(read_bitplanes(two, decoder=decoder), TWO)


@needs_glymur
def test_glymur_and_pillow_give_the_same_arrays_on_generated_files(tmp_path: Path) -> None:
    for path in _generated(tmp_path):
        g, p = read_bitplanes(path, decoder="glymur"), read_bitplanes(path, decoder="pillow")
        assert g.shape == p.shape and g.dtype.kind == p.dtype.kind == "u", path.name
        assert np.array_equal(g, p), path.name


@needs_glymur
def test_glymur_and_pillow_give_the_same_arrays_on_mediscore_references() -> None:
    files = sorted(MASKS.glob("*.jp2")) if MASKS.is_dir() else []
    if not files:
        pytest.skip(f"MediScore's JPEG 2000 references are absent ({MASKS})")
    for path in files:
        g, p = read_bitplanes(path, decoder="glymur"), read_bitplanes(path, decoder="pillow")
        assert g.shape == p.shape, path.name
        assert np.array_equal(g, p), path.name


def test_unknown_decoder_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="decoder must be auto, glymur or pillow"):
        read_bitplanes(_generated(tmp_path)[0], decoder="opencv")
