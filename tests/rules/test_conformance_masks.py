"""MediScore's validatorTests cases with masks, run in place (read-only) through the plugin.

The NC2016 indexes make these NC2017-edition runs (N17: PKG-04's location is a
warning there, D-24); ``cref`` is MFC2018 camera.  Files written in the MFC
layout are also run under the edition they are written for.  Only the
MASK/OOPIX/PKG-04 verdicts are asserted.  Where ours differ from MediScore's,
the comment names the D-xx or the rule.

Several of MediScore's "valid" masks are entirely black (every pixel claimed
manipulated): MASK-08 warns about them, which never fails the run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from helpers.runs import run_untouched

V = "validatorTests"
NC16 = f"{V}/NC2016_Test0516_dfz/indexes"
IMG_INDEX = f"{NC16}/NC2016-manipulation-index.csv"
SPL_INDEX = f"{NC16}/NC2016-splice-index.csv"
CAM_INDEX = f"{V}/cref/indexes/MFC18-camera-index.csv"
HEADER_RULES = ("PKG-04", "MASK-01", "MASK-02", "MASK-03", "MASK-04", "MASK-05", "MASK-06", "MASK-07")


@dataclass(frozen=True)
class Conf:
    case: str
    submission: str
    index: str
    mediscore: str  # "valid" / "invalid" (MS-2019)
    edition: str | None = None
    fails: dict[str, str] = field(default_factory=dict)  # rule -> exact first line
    warns: dict[str, str] = field(default_factory=dict)  # rule -> exact first line of the warning
    black: int = 0  # masks MASK-08 finds entirely black (summed over its slices)
    texts: tuple[str, ...] = ()  # substrings of the failure or warning texts
    extra_passes: tuple[str, ...] = ()


CASES = [
    # SB1/SB2: blank masks ("" and an empty field) are skipped; the 1-bit masks are accepted (D-14).
    Conf(
        "SB1",
        f"{V}/foo_NC2016_UnitTest_Manipulation_ImgOnly_p-baseline_1",
        IMG_INDEX,
        "valid",
        extra_passes=("OOPIX-04",),
    ),
    Conf("SB2", f"{V}/foo", IMG_INDEX, "valid", extra_passes=("OOPIX-04",)),
    # SB3: every mask blank.  As an NC2017 file its ProbeOptOutPixelValue column is superfluous (OOPIX-04, a warning).
    Conf(
        "SB3",
        f"{V}/nomask",
        IMG_INDEX,
        "valid",
        warns={"OOPIX-04": "OOPIX-04: 1 pixel opt-out column in an NC2017 file (showing 1)"},
        texts=("the column should be left out (got ProbeOptOutPixelValue with no values)",),
    ),
    Conf("SB3-MFC2019", f"{V}/nomask", IMG_INDEX, "valid", edition="MFC2019", extra_passes=("OOPIX-01", "OOPIX-02")),
    # S4c: the fixture has no mask/ directory, so all four masks are missing (MediScore prints them too).
    Conf(
        "S4c",
        f"{V}/fooc_NC2016_UnitTest_Manipulation_ImgOnly_p-baseline_1",
        IMG_INDEX,
        "invalid",
        fails={"MASK-03": "MASK-03: 4 of 4 referenced masks do not exist (showing 4)"},
        texts=(
            "[NC2016_7432] OutputProbeMaskFileName='mask/foo.png': mask/foo.png must name an existing file "
            "(it does not exist)",
        ),
    ),
    # S5: MediScore stops at the extension; mask/foo.jpg is also absent from the fixture (MASK-03).
    Conf(
        "S5",
        f"{V}/bar_NC2016_UnitTest_Manipulation_ImgOnly_p-baseline_1",
        IMG_INDEX,
        "invalid",
        fails={
            "MASK-02": "MASK-02: 1 of 4 masks are not named .png (showing 1)",
            "MASK-03": "MASK-03: 1 of 4 referenced masks do not exist (showing 1)",
        },
        texts=("[NC2016_7432] OutputProbeMaskFileName='mask/foo.jpg': the name must end in '.png' (got '.jpg')",),
    ),
    Conf(
        "S6",
        f"{V}/baz_NC2016_UnitTest_Manipulation_ImgOnly_p-baseline_1",
        IMG_INDEX,
        "invalid",
        fails={
            "MASK-05": "MASK-05: 1 of 4 masks are not single-channel grey (showing 1)",
            "MASK-06": "MASK-06: 1 of 4 masks differ in size from their probe (showing 1)",
        },
        texts=(
            "mask/bar.png must be single-channel grey (got RGBA colour, 4 channels)",
            "mask/bar.png is 640x480, probe is 5616x3744: must be 5616x3744 (got 640x480)",
        ),
    ),
    Conf(
        "S8",
        f"{V}/foo_NC2016_UnitTest_Manipulation_ImgOnly_p-baseline_4",
        IMG_INDEX,
        "invalid",
        fails={"MASK-03": "MASK-03: 1 of 4 referenced masks do not exist (showing 1)"},
    ),
    # CB: two 5312x2988 masks, two blank; pixel values blank, 127, 230, 30 (OOPIX-01/02).
    Conf("CB", f"{V}/valid_cam", CAM_INDEX, "valid", extra_passes=("MASK-10", "OOPIX-01", "OOPIX-02")),
    # C1: checked against the index row of the (probe, TrainCamID) pair (MASK-10); the 1000x1000 mask is all black,
    # but a mask of the wrong size is not inflated (MASK-06 fails it; the index bounds the pixel work): no MASK-08.
    Conf(
        "C1",
        f"{V}/invalid_cam_mask",
        CAM_INDEX,
        "invalid",
        fails={"MASK-06": "MASK-06: 1 of 2 masks differ in size from their probe (showing 1)"},
        black=0,
        extra_passes=("MASK-10",),
        texts=(
            "[2e57c044dae9b2af5787ce189cc6ae74:PAR-1476_primary_image] OutputProbeMaskFileName="
            "'mask/2e57c044dae9b2af5787ce189cc6ae74-mask.png': mask/2e57c044dae9b2af5787ce189cc6ae74-mask.png "
            "is 1000x1000, probe is 5312x2988: must be 5312x2988 (got 1000x1000)",
        ),
    ),
    # DB1: pair 1 has both masks blank (MASK-01); each side is checked on its own (MASK-09).
    Conf(
        "DB1",
        f"{V}/lorem_NC2016_UnitTest_Splice_ImgOnly_p-baseline_1",
        SPL_INDEX,
        "valid",
        black=3,
        extra_passes=("MASK-09",),
    ),
    Conf("DB2", f"{V}/lorem", SPL_INDEX, "valid", black=4, extra_passes=("MASK-09",)),
    # D6: PNG bytes named .jpg fail MASK-02 only (MASK-04 recognises them by signature); the 4281 probe mask
    # has the donor's size, which MASK-09 names as swapped (MediScore calls it a "donor mask" either way).
    Conf(
        "D6",
        f"{V}/ipsum_NC2016_UnitTest_Splice_ImgOnly_p-baseline_1",
        SPL_INDEX,
        "invalid",
        black=3,
        fails={
            "MASK-02": "MASK-02: 2 of 8 masks are not named .png (showing 2)",
            "MASK-05": "MASK-05: 2 of 8 masks are not single-channel grey (showing 2)",
            "MASK-06": "MASK-06: 1 of 8 masks differ in size from their probe or donor (showing 1)",
            "MASK-09": "MASK-09: 1 mask fit the other image of the pair (showing 1)",
        },
        texts=(
            "[NC2016_5847:NC2016_6847] OutputDonorMaskFileName='mask/NC2016_6847-mask.jpg': "
            "the name must end in '.png' (got '.jpg')",
            "[NC2016_1893:NC2016_1993] OutputDonorMaskFileName='mask/NC2016_1993-mask.png': "
            "mask/NC2016_1993-mask.png must be single-channel grey (got RGBA colour, 4 channels)",
            "the probe mask must be relative to the probe (got the donor's size 2736x2736",
        ),
    ),
    # D7: exactly three missing masks, as MediScore counts.
    Conf(
        "D7",
        f"{V}/lorem_NC2016_UnitTest_Splice_ImgOnly_p-baseline_3",
        SPL_INDEX,
        "invalid",
        black=2,
        fails={"MASK-03": "MASK-03: 3 of 8 referenced masks do not exist (showing 3)"},
        texts=("[NC2016_4281:NC2016_4282] OutputProbeMaskFileName='mask/NC2016_4280-mask.png'",),
    ),
]


@pytest.mark.parametrize("conf", CASES, ids=[c.case for c in CASES])
def test_mediscore_mask_case(pytester: pytest.Pytester, conformance: Path, conf: Conf) -> None:
    submission, index = conformance / conf.submission, conformance / conf.index
    extra = ("--omfc-edition", conf.edition) if conf.edition else ()
    res = run_untouched(pytester, submission, index, *extra)

    for rid, first in conf.fails.items():
        assert res.outcome(rid) == "failed", (rid, res.text(rid))
        assert res.first_line(rid) == first
    for rid in HEADER_RULES + conf.extra_passes:
        if rid not in conf.fails:
            assert res.outcome(rid) == "passed", (rid, res.text(rid))
    for rid, first in conf.warns.items():
        assert (res.warning(rid) or "").splitlines()[0] == first
    slices = [r for r in res.reports if r.startswith("MASK-08[")]
    assert len(slices) == 4 and all(res.outcome(r) == "passed" for r in slices)
    black = sum(
        int(re.match(r"MASK-08: (\d+) masks? (is|are) entirely black", w).group(1))
        for w in (res.warning(r) for r in slices)
        if w
    )
    assert black == conf.black
    everything = "\n".join([res.text(r) for r in res.reports] + [res.warning(r) or "" for r in res.reports])
    for text in conf.texts:
        assert text in everything
    if conf.mediscore == "invalid":
        assert res.ret == 1
    ours = [r for r in res.reports if r.split("-")[0] in ("MASK", "OOPIX") or r == "PKG-04"]
    assert ours and not [r for r in ours if "the check could not run" in res.text(r)]


def test_mask08_warnings_are_summed_across_its_slices(pytester: pytest.Pytester, conformance: Path) -> None:
    """MediScore's ``lorem`` splice output has 4 all-black masks spread over MASK-08's 4 slices: the run's
    warning summary and the HTML report say "4 masks" once, not "1 mask" per slice."""
    submission, index = conformance / f"{V}/lorem", conformance / SPL_INDEX
    page = pytester.path / "report.html"
    result = pytester.runpytest(
        "--omfc-submission", str(submission), "--omfc-index", str(index), "--rootdir", str(pytester.path),
        "--omfc-html", str(page), "-p", "no:cacheprovider",
    )  # fmt: skip
    summary = result.outlines[next(i for i, x in enumerate(result.outlines) if "omfc warnings" in x) :]
    mask08 = [x for x in summary if x.startswith("MASK-08: ")]
    assert mask08 == ["MASK-08: 4 masks are entirely or mostly black: inverted polarity? (showing 4)"]
    assert len([x for x in summary if "should be white (255) where not manipulated" in x]) == 4
    html = page.read_text(encoding="utf-8")
    assert html.count("MASK-08: 4 masks are entirely or mostly black") == 1 and "MASK-08: 1 mask is" not in html
