"""MediScore's video validator cases (``testSSDVideoContent``: VB1, VB2, V0...V4) through the VSEG rules.

Each case runs in place (read-only) against ``NC2016-manipulation-video-index.csv``, which has
``FrameCount`` (abcd 200, efgh 570), so no video is opened; MEDISCORE_VALIDATOR_CASES.md §2 lists
this index as giving MediScore's verdicts unchanged.  The index name says NC2016, whose video
layout is ``IsOptOut`` (COL-05); the files written with ``ProbeStatus`` are run under the MFC
edition they are written for (``--omfc-edition``), as noted per case.  Only the VSEG verdicts are
asserted (other families have their own conformance tests); where ours differ from MediScore's,
the comment names the D-xx or B-xx.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest
from helpers.runs import run_untouched

V = "validatorTests"
INDEX = f"{V}/NC2016_Test0516_dfz/indexes/NC2016-manipulation-video-index.csv"
INDEX_NO_FRAMECOUNT = f"{V}/NC2016_Test0516_dfz/indexes/NC2016-manipulation-video-index_d1v1.csv"
VSEG = ("VSEG-01", "VSEG-02", "VSEG-03", "VSEG-04", "VSEG-05", "VSEG-06", "VSEG-07", "VSEG-08", "VSEG-10")


@dataclass(frozen=True)
class Conf:
    case: str
    submission: str
    mediscore: str  # MS-2019 verdict: "valid" / "invalid"
    edition: str | None
    args: tuple[str, ...] = ()
    index: str = INDEX
    fails: dict[str, str] = field(default_factory=dict)  # rule -> exact first line
    warns: dict[str, str] = field(default_factory=dict)  # rule -> exact first line of the warning
    skips: dict[str, str] = field(default_factory=dict)  # rule -> exact skip text
    absent: bool = False  # no VSEG item is collected for the edition
    texts: tuple[str, ...] = ()


CASES = [
    # OptOutSpatial exists only in MFC2019 (STATUS-03), hence --omfc-edition MFC2019.
    # Audio [[200,350]] passes because audio is not bounded by FrameCount at all (D-17), not because 350 <= 570.
    Conf("VB1", f"{V}/validvidtest", "valid", "MFC2019"),
    # The same file against the index without FrameCount: MediScore opens the videos (and fails without
    # efgh.mp4, "[1, 0]"); we never open media, check frame 1 only and say so in a warning (VSEG-05).
    Conf(
        "VB1-noFrameCount",
        f"{V}/validvidtest",
        "valid",
        "MFC2019",
        index=INDEX_NO_FRAMECOUNT,
        warns={"VSEG-05": "VSEG-05: frame intervals checked against frame 1 only (showing 1)"},
    ),
    # IsOptOut file: the index's own edition (NC2016, group N17) has no interval columns, so no VSEG item.
    Conf("VB2", f"{V}/validvidtest_nc17", "valid", None, absent=True),
    # The same file under MFC2019: the VSEG items skip and say why, as MediScore skips intervals under IsOptOut.
    Conf(
        "VB2-MFC2019",
        f"{V}/validvidtest_nc17",
        "valid",
        "MFC2019",
        skips={
            r: f"{r} skipped: the file uses IsOptOut: NC2017-style video rows carry no intervals (VB2)" for r in VSEG
        },
    ),
    # Processed/OptOutDetection are MFC2018 statuses too: this case runs under MFC2018 (MS-only edition).
    Conf(
        "V0",
        f"{V}/badstringvidtest",
        "invalid",
        "MFC2018",
        fails={"VSEG-01": "VSEG-01: 4 cells cannot be read as a list of [start, end] pairs (showing 4)"},
        texts=(
            "[abcd] AudioSampleSegments='[23,46]': must be a list of [start, end] pairs "
            "(got a flat list; write [[23,46]])",
        ),
    ),
    # Frame 0 and opt-out frame 280000 > 570 fail VSEG-05 as in MediScore.  abcd's audio [[23,4600]]
    # is *valid* here: MediScore bounds audio by the 200 video frames (B-08); we do not (D-17).
    Conf(
        "V1",
        f"{V}/oobvidtest",
        "invalid",
        "MFC2019",
        fails={"VSEG-05": "VSEG-05: 2 frame intervals lie outside [1, FrameCount] (showing 2)"},
        texts=(
            "[efgh] VideoFrameSegments='[[0,60]]': interval 1 must lie within the video's frames [1, 570] (got "
            "[0, 60])",
            "[efgh] VideoFrameOptOutSegments='[[14,280000]]': interval 1 must lie within the video's frames [1, 570] "
            "(got [14, 280000])",
        ),
    ),
    # Overlap as in MediScore (closed intervals, D-18); here found by a symmetric test (no B-09).
    Conf(
        "V2",
        f"{V}/selfcrossvidtest",
        "invalid",
        "MFC2019",
        fails={"VSEG-07": "VSEG-07: 1 interval overlaps another interval in the same list (showing 1)"},
        texts=(
            "[abcd] AudioSampleSegments='[[23,46],[39,40]]': interval 2 [39, 40] must not overlap interval 1 "
            "[23, 46] (got shared samples 39-40)",
        ),
    ),
    # MediScore's --ignore_overlap is --omfc-ignore-overlap: the overlap becomes a warning.
    Conf(
        "V2.1",
        f"{V}/selfcrossvidtest",
        "valid",
        "MFC2019",
        args=("--omfc-ignore-overlap",),
        warns={
            "VSEG-07": "VSEG-07: 1 interval overlaps another interval in the same list (--omfc-ignore-overlap) "
            "(showing 1)"
        },
    ),
    # FailedValidation rows are excused (STATUS-08); VSEG-10 warns about the excused bad row.  Only efgh is
    # listed: abcd's audio [[23,4600]] is valid under D-17 (MediScore would call it out of bounds, B-08).
    Conf(
        "V3",
        f"{V}/failvalidvidtest",
        "valid",
        "MFC2019",
        warns={"VSEG-10": "VSEG-10: 1 FailedValidation row with invalid intervals excused (STATUS-08) (showing 1)"},
        texts=("[efgh] ProbeStatus='FailedValidation': FailedValidation excuses this row",),
    ),
    # MediScore's --ignore_eof downgrades out-of-bounds intervals to warnings and passes.  We have no such
    # option: MFC19 §3.5.1 numbers frames from 1 to FrameCount, and frames outside the video cannot be
    # scored against the reference, so V4 keeps V1's verdict (VSEG-05 fails).
    Conf(
        "V4",
        f"{V}/oobvidtest",
        "valid",
        "MFC2019",
        fails={"VSEG-05": "VSEG-05: 2 frame intervals lie outside [1, FrameCount] (showing 2)"},
    ),
]


@pytest.mark.parametrize("conf", CASES, ids=[c.case for c in CASES])
def test_mediscore_video_case(pytester: pytest.Pytester, conformance: Path, conf: Conf) -> None:
    submission, index = conformance / conf.submission, conformance / conf.index
    extra = (("--omfc-edition", conf.edition) if conf.edition else ()) + conf.args
    res = run_untouched(pytester, submission, index, *extra)

    if conf.absent:
        assert not [r for r in res.reports if r.startswith("VSEG-")]
        return
    for rid in VSEG:
        if rid in conf.fails:
            assert res.outcome(rid) == "failed", (rid, res.text(rid))
            assert res.first_line(rid) == conf.fails[rid]
        elif rid in conf.skips:
            assert res.outcome(rid) == "skipped", (rid, res.text(rid))
            assert res.text(rid) == conf.skips[rid]
        else:
            assert res.outcome(rid) == "passed", (rid, res.text(rid))
            warning = res.warning(rid)
            assert (warning.splitlines()[0] if warning else None) == conf.warns.get(rid), rid
        assert "the check could not run" not in res.text(rid)
    everything = "\n".join([res.text(r) for r in res.reports] + [res.warning(r) or "" for r in res.reports])
    for text in conf.texts:
        assert text in everything, text
    if conf.fails:
        assert res.ret == 1
