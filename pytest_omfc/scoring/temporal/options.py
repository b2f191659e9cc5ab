"""The temporal scorer's options (docs/scoring/temporal.md#definition), declared once.  Light: read at plugin load."""

from __future__ import annotations

from typing import Any

from ...options import Option, bounded, flag, integer

__all__ = ["MAX_COLLAR", "TEMPORAL_OPTIONS"]

#: Largest ``--omfc-collar``: the sweep costs the same for any collar, this only refuses nonsense.
MAX_COLLAR = 1_000_000_000


def _path_text(value: Any) -> str:
    return str(value).strip()


TEMPORAL_OPTIONS: tuple[Option, ...] = (
    Option(
        "--omfc-collar",
        "omfc_collar",
        {
            "metavar": "K",
            "help": f"no-score collar of K frames around every reference interval boundary, 0 to {MAX_COLLAR} "
            "(default 0)",
        },
        "-c",
        0,
        bounded(integer, lambda v: 0 <= v <= MAX_COLLAR, f"an integer from 0 to {MAX_COLLAR}"),
        "collar",
    ),
    Option(
        "--omfc-no-video-optout",
        "omfc_no_video_optout",
        {
            "action": "store_true",
            "help": "temporal: ignore VideoFrameOptOutSegments (by default they are no-score intervals)",
        },
        "--no_video_opt_out",
        False,
        flag,
        "no_video_optout",
    ),
    Option(
        "--omfc-no-optout-filter",
        "omfc_no_optout_filter",
        {"action": "store_true", "help": "temporal: score every probe, not only those with ProbeStatus Processed"},
        "--no_opt_out",
        False,
        flag,
        "no_optout_filter",
    ),
    Option(
        "--omfc-journal-mask",
        "omfc_journal_mask",
        {
            "metavar": "PATH",
            "help": "journal mask table (default: <reference stem>-journalmask.csv beside the reference)",
        },
        "(beside -r)",
        None,
        bounded(_path_text, lambda v: 0 < len(v) <= 4096, "a file path"),
        "journal_mask",
    ),
    Option(
        "--omfc-probe-journal-join",
        "omfc_probe_journal_join",
        {
            "metavar": "PATH",
            "help": "probe-journal join table (default: <reference stem>-probejournaljoin.csv beside the reference)",
        },
        "(beside -r)",
        None,
        bounded(_path_text, lambda v: 0 < len(v) <= 4096, "a file path"),
        "probe_journal_join",
    ),
)
