"""One mask side scored: the unit of work a pool worker or a dask task runs (:func:`_score_job`).

Kept apart from :mod:`.run` (pandas, the tables, the queries) so that a worker imports only what scoring a
mask needs: the PNG and JPEG 2000 readers and the engine.  The process pools' forkserver preloads this
module (:data:`pytest_omfc.work.pool.PRELOAD`) instead of :mod:`.run`: a process importing only the preload
takes a third of the time it took with :mod:`.run` (``benchmarks/plugin_overhead.py``, row "the pools'
forkserver preload alone"), before a pool's first mask and in every check that inflates masks in a pool.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

import numpy as np

from .engine import Kernels, MaskScore, bitplane_reference, colour_reference, score_mask
from .io import MAX_PIXELS, MaskReadError, read_bitplanes, read_colour_reference, read_system_mask

__all__ = ["JobOutcome", "SideMode"]

SideMode = Literal["manipulation", "splice_probe", "splice_donor", "bitplane"]


@dataclass(frozen=True)
class _Job:
    """Everything needed to score one mask side; only paths and small tuples (sent to workers)."""

    mode: SideMode
    ref: str | None  # None: white reference (not scored)
    sys: str | None  # None: white system mask (missing row, empty name, FailedValidation)
    selected: tuple[str, ...] | None = None  # colours (manipulation colour mode)
    listed: tuple[str, ...] = ()  # bit planes (bitplane mode)
    evaluated: tuple[str, ...] = ()
    nspx: str = "-1"
    kernel: str = "box"
    eks: int = 15
    dks: int = 11
    ntdks: int = 15
    sbin: int | None = None
    max_pixels: int = MAX_PIXELS
    error: str | None = None  # a reason known before reading (unsafe path, ...)
    error_code: str = "path"  # its code (NOT_SCORED)
    alternative: str | None = None  # no reference here, but the other mask column names this file
    pixels: int = 0  # the index's width x height of the image (0: unknown): sizes a dask task, not read here


def _bit_capacity(planes: np.ndarray) -> int:
    return 8 * planes.dtype.itemsize * (planes.shape[2] if planes.ndim == 3 else 1)


def _one_line(reason: str, width: int = 300) -> str:
    """A reason fit for one line: non-printable characters escaped, at most ``width`` characters."""
    text = reason if reason.isprintable() else reason.encode("unicode_escape").decode("ascii")
    return text if len(text) <= width else f"{text[: width - 30]}... ({len(text)} chars)"


#: One side's outcome: (score, code, reason); code and reason are None when it was scored.
JobOutcome = tuple["MaskScore | None", "str | None", "str | None"]


def _score_job(job: _Job) -> JobOutcome:
    """Score one side: ``(score, None, None)``, or ``(score|None, code, reason)`` when it cannot be scored.

    Never raises.  ``code`` is a key of :data:`.run.NOT_SCORED`.
    """
    score, code, reason = _score_job_raw(job)
    return score, code, None if reason is None else _one_line(reason)


def _score_job_raw(job: _Job) -> JobOutcome:
    if job.error is not None:
        return None, job.error_code, job.error
    if job.ref is None:
        if job.alternative is not None:
            return MaskScore(scored=False), "other-column", job.alternative
        return MaskScore(scored=False), "white-reference", "no reference mask (white reference: no region to score)"
    high: tuple[int, ...] = ()
    try:
        try:
            if job.mode == "bitplane":
                planes = read_bitplanes(job.ref, max_pixels=job.max_pixels)
                bits = [int(b) for b in job.listed if b not in ("", "None")]
                cap = _bit_capacity(planes)
                above = [b for b in bits if b > cap]
                if above:
                    return (
                        None,
                        "reference",
                        f"BitPlane {max(above)} is above the {cap} bit planes {Path(job.ref).name} holds",
                    )
                reference = bitplane_reference(planes, job.listed, job.evaluated)
                # all 16 planes of a one-component 16-bit reference are read; MediScore's 8-bit read
                # drops 9-16, so a trial that scores them scores differently there (a note says so)
                high = tuple(sorted({b for b in bits if b > 8})) if planes.ndim == 2 and cap == 16 else ()
            else:
                image = read_colour_reference(
                    job.ref, max_pixels=job.max_pixels, grey=True
                )  # (H, W) for grey files: B = G = R
                reference = colour_reference(image, job.selected, mode=job.mode)
        except MaskReadError as exc:
            return None, "reference", f"reference mask {exc}"
        if not reference.scoreable:
            return MaskScore(scored=False), "no-region", "no selected region in the reference mask"
        shape = (int(reference.bw.shape[0]), int(reference.bw.shape[1]))
        try:
            system = None if job.sys is None else read_system_mask(job.sys, shape, max_pixels=job.max_pixels)
        except MaskReadError as exc:
            return None, "system", str(exc)
        score = score_mask(
            reference.bw,
            system,
            unselected=reference.unselected,
            kernels=Kernels(job.eks, job.dks, job.ntdks, job.kernel),
            no_score_value=job.nspx,
            actual_threshold=job.sbin,
        )
        if high:
            score = replace(score, high_planes=high)
        return score, None, None
    except (ValueError, TypeError) as exc:  # journal values the engine refuses (bad colour, bit plane, nspx)
        return None, "engine", f"{type(exc).__name__}: {exc}"
    except MemoryError:
        return None, "engine", "out of memory while scoring this mask"
    except Exception as exc:  # noqa: BLE001  never let one mask abort the run
        return None, "engine", f"unexpected {type(exc).__name__}: {exc}"
