"""Near-miss hints for unknown IDs (FNET-04; pytest_omfc/forgerynet/hints.py): each fires on the shape its
writer really produces, and on nothing else."""

from __future__ import annotations

import pytest
from helpers.forgerynet import Fnet
from helpers.forgerynet_cases import TL_REF, TL_SUB

from pytest_omfc.forgerynet.hints import near_miss

VIDEOS = [f"v_{k:011d}" for k in range(5)]  # ActivityNet-style keys, as the reference holds them
PATHS = [f"val_video_release/{k % 3}/{k:04x}/{k:04x}/video.mp4" for k in range(6)]  # ForgeryNet's video paths


def test_a_cut_prefix_is_named_with_its_writer() -> None:
    hint = near_miss([v[2:] for v in VIDEOS[:3]], VIDEOS)
    assert hint is not None and "without its first 2 characters 'v_'" in hint and "BMN, BSN and mmaction2" in hint


def test_dropped_leading_zeros_are_named() -> None:
    hint = near_miss(["42", "7"], ["0042", "0007", "0100"])
    assert hint is not None and "without its leading zeros (e.g. '42' for '0042')" in hint


def test_an_added_prefix_is_named() -> None:
    hint = near_miss(["train/" + p for p in PATHS[:2]], PATHS)
    assert hint is not None and "with 'train/' put before it" in hint


def test_keys_by_file_name_are_named_with_the_collapse() -> None:
    """UMMAFormer keys by file name: every ForgeryNet video is .../video.mp4."""
    hint = near_miss(["video.mp4"], PATHS)
    assert hint is not None and "file name of reference IDs" in hint and "6 reference IDs share one such name" in hint


@pytest.mark.parametrize(
    "unknown",
    [["x1", "x2"], ["v_00000000000", "zzz"], [VIDEOS[0][2:], "nope"], []],
    ids=["unrelated", "one-known-one-not", "mixed", "none"],
)
def test_no_hint_unless_one_explanation_fits_every_unknown_id(unknown: list[str]) -> None:
    assert near_miss(unknown, VIDEOS) is None


def test_fnet04_names_the_cut_prefix_of_temporal_results(fnet: Fnet) -> None:
    ref = {**TL_REF, "database": {f"v_{k}": v for k, v in TL_REF["database"].items()}}
    run = fnet.case("temporal", reference=ref, submission=TL_SUB).run()
    first = run.outcome.first_line("FNET-04")
    assert first.startswith("FNET-04: 3 unknown videos in the results: every unknown ID is a reference ID without")
    assert "'v_'" in first and "BMN, BSN and mmaction2" in first, first


def test_fnet04_names_keys_by_file_name(fnet: Fnet) -> None:
    ref = (["ID", "Label"], [[p, k % 2] for k, p in enumerate(PATHS)])
    run = fnet.case("image-classification", reference=ref, submission=(["ID", "Score"], [["video.mp4", 0.5]])).run()
    first = run.outcome.first_line("FNET-04")
    assert "1 unknown ID: every unknown ID is the file name of reference IDs" in first, first
