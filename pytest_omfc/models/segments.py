"""Interval lists of the MFC video output (docs/rules/vseg.md, VSEG-01...07).

A cell of ``VideoFrameSegments``, ``AudioSampleSegments`` or
``VideoFrameOptOutSegments`` is a JSON list of closed, 1-based, integer
``[start, end]`` pairs, ``[]`` for none (MFC19 §5.1.1, §3.5.1).  The model
``IntervalList`` (:mod:`pytest_omfc.models.documents`) is the documented format and
the JSON Schema ``segments.IntervalList``; the VSEG rules check the same things one
rule at a time, with a message per rule, and import no pydantic.
"""

from __future__ import annotations

__all__ = [
    "AUDIO_COLUMNS",
    "FRAME_COLUMNS",
    "SEGMENT_COLUMNS",
    "first_overlap",
]

#: The three interval columns of COL-06 (optional in OpenMFC VMD/VGMD, D-05), in file order.
SEGMENT_COLUMNS: tuple[str, ...] = ("VideoFrameSegments", "AudioSampleSegments", "VideoFrameOptOutSegments")
#: Columns counted in video frames, bounded by the index ``FrameCount`` (VSEG-05).
FRAME_COLUMNS: tuple[str, ...] = ("VideoFrameSegments", "VideoFrameOptOutSegments")
#: Columns counted in audio samples: not bounded by ``FrameCount`` (VSEG-06, D-17, B-08).
AUDIO_COLUMNS: tuple[str, ...] = ("AudioSampleSegments",)


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
