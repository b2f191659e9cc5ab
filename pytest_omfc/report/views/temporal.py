"""The temporal scorer's view: trial counts and the mean per-probe MCC."""

from __future__ import annotations

from typing import Any

from .base import Options, View, fmt

__all__ = ["TEMPORAL"]


def _settings(opts: Options, common: Options) -> str:
    plan = common.get("convention") == "plan"
    return (
        f"collar {opts.get('collar', 0)}, video opt-out {'off' if opts.get('no_video_optout') else 'on'}, "
        f"{'every status' if opts.get('no_optout_filter') else 'Processed only'}, "
        f"{'inclusive frames, no truncation' if plan else 'continuous frames, truncated at FrameCount'}"
    )


def _header(opts: Options, common: Options) -> str:
    return f"omfc: scoring temporal localization against {common['reference']} ({_settings(opts, common)})"


def _footer(opts: Options, common: Options) -> str:
    return f"omfc: temporal: mean per-probe MCC; convention {common['convention']}, {_settings(opts, common)}"


def _columns(opts: Options) -> list[str]:
    return ["trials", "scored", "opted out", "not scored", "MCC"]


def _row(entry: dict[str, Any], opts: Options) -> list[str]:
    c: dict[str, int] = entry.get("counts") or {}
    return [str(c.get(k, "")) for k in ("trials", "scored", "opted_out", "not_scored")] + [
        fmt(entry["metrics"].get("MCC"))
    ]


def _json_options(opts: Options, common: Options) -> dict[str, Any]:
    return {
        "temporal": {
            k: opts.get(k)
            for k in ("collar", "no_video_optout", "no_optout_filter", "journal_mask", "probe_journal_join")
        }
    }


TEMPORAL = View(json_options=_json_options, columns=_columns, row=_row, header=_header, footer=_footer)
