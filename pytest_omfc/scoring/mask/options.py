"""The mask scorer's options (docs/scoring/masks.md), declared once.  Light: read at plugin load."""

from __future__ import annotations

from typing import Any

from ...options import DASK, Option, bounded, flag, integer, one_of

__all__ = ["KERNELS", "MASK_OPTIONS", "MAX_KERNEL"]

#: Largest erosion/dilation kernel: the work grows with its square (a 10001 kernel would never finish).
MAX_KERNEL = 101


KERNELS = ("box", "disc", "diamond", "gaussian", "line")


def _odd_size(v: int) -> bool:
    return 0 <= v <= MAX_KERNEL and (v == 0 or v % 2 == 1)


def _sbin(value: Any) -> int | None:
    """``--omfc-sbin``: -1 to 255, or MediScore's -10 for none."""
    v = bounded(integer, lambda x: x == -10 or -1 <= x <= 255, "an integer from -1 to 255 (-10: none)")(value)
    return None if v == -10 else v


_SIZE = f"0 or an odd integer from 1 to {MAX_KERNEL}"


MASK_OPTIONS: tuple[Option, ...] = (
    Option(
        "--omfc-kernel",
        "omfc_kernel",
        {"choices": list(KERNELS), "help": "shape of the no-score zone kernels (default box)"},
        "--kernel",
        "box",
        one_of(KERNELS),
    ),
    Option(
        "--omfc-erode-kernel-size",
        "omfc_erode_kernel_size",
        {"metavar": "N", "help": f"erosion kernel of the no-score zone around the reference, {_SIZE} (default 15)"},
        "--eks",
        15,
        bounded(integer, _odd_size, _SIZE),
        "eks",
    ),
    Option(
        "--omfc-dilate-kernel-size",
        "omfc_dilate_kernel_size",
        {"metavar": "N", "help": f"dilation kernel of the no-score zone around the reference, {_SIZE} (default 11)"},
        "--dks",
        11,
        bounded(integer, _odd_size, _SIZE),
        "dks",
    ),
    Option(
        "--omfc-nonselected-dilate-kernel-size",
        "omfc_nonselected_dilate_kernel_size",
        {
            "metavar": "N",
            "help": f"dilation kernel of the non-selected regions, {_SIZE} (default 15; plan convention 11; always 0 "
            "for splice)",
        },
        "--ntdks",
        None,
        bounded(integer, _odd_size, _SIZE),
        "ntdks",
    ),
    Option(
        "--omfc-sbin",
        "omfc_sbin",
        {
            "metavar": "T",
            "help": "threshold of the Actual metrics and switch of the Maximum ones, -1 to 255 (default -10: neither)",
        },
        "--sbin",
        None,
        _sbin,
        "sbin",
    ),
    Option(
        "--omfc-no-score-pixel",
        "omfc_no_score_pixel",
        {"metavar": "V", "help": "system mask value that is not scored, -1 to 255 (default -1: none)"},
        "--nspx",
        -1,
        bounded(integer, lambda v: -1 <= v <= 255, "an integer from -1 to 255"),
        "nspx",
    ),
    Option(
        "--omfc-per-probe-pixel-no-score",
        "omfc_per_probe_pixel_no_score",
        {
            "action": "store_true",
            "help": "take the no-score value of each probe from ProbeOptOutPixelValue (DonorOptOutPixelValue)",
        },
        "-pppns",
        False,
        flag,
        "pppns",
    ),
    Option(
        "--omfc-jpeg2000",
        "omfc_jpeg2000",
        {
            "choices": ["auto", "yes", "no"],
            "help": "JPEG 2000 bit-plane references: auto (default) uses them when ProbeBitPlaneMaskFileName names a "
            "file for at least as many targets as ProbeMaskFileName (MediScore: PNG unless --jpeg2000)",
        },
        "--jpeg2000",
        "auto",
        one_of(("auto", "yes", "no")),
    ),
    DASK,
)
