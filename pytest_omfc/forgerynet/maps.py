"""The bound on a ForgeryNet map's size, one message for the FNET rules' header pass and the scorer."""

from __future__ import annotations

__all__ = ["MAX_MAP_PIXELS", "too_many_pixels"]

#: The most pixels of one map a rule lets through and the scorer decodes: the mask scorer's bound
#: (scoring/mask/io.py MAX_PIXELS, which imports Pillow; tests/scoring/forgerynet/test_forgerynet_official_files.py
#: keeps the two equal).
MAX_MAP_PIXELS = 160_000_000


def too_many_pixels(width: int, height: int) -> str | None:
    """Why a map of this size is not decoded ("must ... (got ...)"), or None: one message for the FNET rules'
    header pass and the scorer, which refuse the same maps."""
    if width * height <= MAX_MAP_PIXELS:
        return None
    return f"must be at most {MAX_MAP_PIXELS:,} pixels, as every mask the scorers decode (got {width}x{height})"
