"""Interval lists of the MFC video output (docs/rules/vseg.md, VSEG-01...07).

A cell of ``VideoFrameSegments``, ``AudioSampleSegments`` or
``VideoFrameOptOutSegments`` is a JSON list of closed, 1-based, integer
``[start, end]`` pairs, ``[]`` for none (MFC19 §5.1.1, §3.5.1).  The model is
the documented format and the JSON Schema ``segments.IntervalList``; the VSEG
rules check the same things one rule at a time, with a message per rule.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field, RootModel, model_validator

__all__ = [
    "AUDIO_COLUMNS",
    "FRAME_COLUMNS",
    "Interval",
    "IntervalList",
    "SEGMENT_COLUMNS",
    "first_overlap",
]

#: The three interval columns of COL-06 (optional in OpenMFC VMD/VGMD, D-05), in file order.
SEGMENT_COLUMNS: tuple[str, ...] = ("VideoFrameSegments", "AudioSampleSegments", "VideoFrameOptOutSegments")
#: Columns counted in video frames, bounded by the index ``FrameCount`` (VSEG-05).
FRAME_COLUMNS: tuple[str, ...] = ("VideoFrameSegments", "VideoFrameOptOutSegments")
#: Columns counted in audio samples: not bounded by ``FrameCount`` (VSEG-06, D-17, B-08).
AUDIO_COLUMNS: tuple[str, ...] = ("AudioSampleSegments",)

Endpoint = Annotated[int, Field(ge=1, strict=True, description="1-based frame or sample number (VSEG-04, VSEG-05)")]
Interval = Annotated[
    tuple[Endpoint, Endpoint],
    Field(description="closed interval [start, end] with start <= end (VSEG-02, VSEG-03)"),
]


def first_overlap(intervals: list[tuple[int, int]], allow_touching: bool = False) -> tuple[int, int] | None:
    """Indices ``(i, j)`` of the first two intervals sharing a frame, in any order (D-18; not B-09).

    Closed intervals: ``[1, 10]`` and ``[10, 20]`` share frame 10.  With
    ``allow_touching`` two intervals may share only an endpoint, but the same
    interval listed twice still overlaps.
    """
    order = sorted(range(len(intervals)), key=lambda k: intervals[k])
    reach = -1  # position in ``order`` of the interval ending last so far
    for n, k in enumerate(order):
        if reach >= 0:
            j = order[reach]
            s, e = intervals[k]
            top = intervals[j][1]
            prev = intervals[order[n - 1]]
            if s < top or (s == top and (not allow_touching or prev == intervals[k])):
                return (j, k) if j < k else (k, j)
        if reach < 0 or intervals[k][1] >= intervals[order[reach]][1]:
            reach = n
    return None


class IntervalList(RootModel[list[Interval]]):
    """A segment cell: ``[[3, 33], [40, 46]]``, or ``[]``; pairwise disjoint, in any order (VSEG-07, VSEG-08)."""

    root: list[Interval] = Field(
        description="JSON list of [start, end] pairs, 1-based and inclusive; [] for none (MFC19 §5.1.1)",
        examples=[[[3, 33], [40, 46]], []],
    )

    @model_validator(mode="after")
    def _well_formed(self) -> IntervalList:
        for start, end in self.root:
            if start > end:
                raise ValueError(f"interval [{start}, {end}] must have start <= end")
        hit = first_overlap(list(self.root))
        if hit is not None:
            a, b = (self.root[i] for i in hit)
            raise ValueError(f"intervals [{a[0]}, {a[1]}] and [{b[0]}, {b[1]}] must not share frames")
        return self
