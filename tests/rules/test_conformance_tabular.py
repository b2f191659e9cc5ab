"""MediScore's validatorTests cases that exercise the SCORE, STATUS, EV and CAM rules.

Each case of MEDISCORE_VALIDATOR_CASES.md is run in place (read-only) through
the plugin with the edition its index names (NC2016 for the NC2016 indexes,
MFC2018 for ``cref``; ``evref``'s ``ValTest`` index names none, so MFC2018 is
given).  Files written in the MFC layout against an NC2016 index are run a
second time under the MFC edition they are written for, so that our rules see
their status columns.  Only our rules' verdicts (and the IDX/COL outcomes
where they decide) are asserted: mask findings belong to the MASK/VSEG rules.  Where our
verdict differs from MediScore's, the comment names the D-xx or B-xx.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest
from helpers.runs import run_untouched

V = "validatorTests"
NC16 = f"{V}/NC2016_Test0516_dfz/indexes"
EV_INDEX = f"{V}/evref/indexes/ValTest-eventverification-index.csv"
CAM_INDEX = f"{V}/cref/indexes/MFC18-camera-index.csv"
EV_PROBE = "fcf3eb1b35736c2536c27af2bc544769"


@dataclass(frozen=True)
class Conf:
    """A MediScore case: where it is, what MediScore says, and what our rules must say."""

    case: str
    submission: str
    index: str
    mediscore: str  # "valid" / "invalid" (MS-2019)
    edition: str | None = None  # --omfc-edition, where the index name does not say it (or is overridden)
    fails: dict[str, str] = field(default_factory=dict)  # rule -> exact first line ("" for IDX/COL: outcome only)
    passes: tuple[str, ...] = ()
    skips: dict[str, str] = field(default_factory=dict)  # rule -> exact skip text
    warns: dict[str, str] = field(default_factory=dict)  # rule -> exact first line of the warning
    absent: tuple[str, ...] = ()  # rules not collected for this edition/task
    texts: tuple[str, ...] = ()  # substrings of the failure or warning texts


CASES = [
    Conf(
        "SB1",
        f"{V}/foo_NC2016_UnitTest_Manipulation_ImgOnly_p-baseline_1",
        f"{NC16}/NC2016-manipulation-index.csv",
        "valid",
        passes=("SCORE-01", "SCORE-02", "SCORE-06", "STATUS-01", "IDX-06"),
        absent=("SCORE-03",),
    ),  # 6749 and 398077 are fine: any real in NC2017 (SCORE-02)
    Conf(
        "S4c",
        f"{V}/fooc_NC2016_UnitTest_Manipulation_ImgOnly_p-baseline_1",
        f"{NC16}/NC2016-manipulation-index.csv",
        "invalid",
        fails={"SCORE-01": "SCORE-01: 1 of 4 scores are not finite real numbers (showing 1)"},
        passes=("STATUS-01", "IDX-06"),
        skips={"SCORE-06": "SCORE-06 skipped: SCORE-01 failed: 1 of 4 scores are not finite real numbers"},
        texts=("[NC2016_7432] ConfidenceScore='': ConfidenceScore must be a finite real number (got an empty field)",),
    ),
    Conf(
        "S4d",
        f"{V}/food_NC2016_UnitTest_Manipulation_ImgOnly_p-baseline_1",
        f"{NC16}/NC2016-manipulation-index.csv",
        "invalid",
        fails={"STATUS-01": "STATUS-01: 1 of 4 IsOptOut values are not recognized (showing 1)"},
        passes=("SCORE-01",),  # the unquoted 86 is a number
        texts=("[NC2016_4281] IsOptOut='bar': IsOptOut must be one of Y, N (got 'bar')",),
    ),
    # SB3: MediScore accepts ProbeStatus with any index; the NC2016 layout is IsOptOut (COL-01).
    Conf(
        "SB3",
        f"{V}/nomask",
        f"{NC16}/NC2016-manipulation-index.csv",
        "valid",
        fails={"COL-01": ""},
        skips={"STATUS-01": "STATUS-01 skipped: COL-01 failed: column IsOptOut is absent"},
        passes=("SCORE-01",),
    ),
    # SB3 as the MFC2019 file it is: STATUS-02 accepts OptOutLocalization with blank masks, but 6749 and 398077
    # are outside [0, 1] (D-03; MediScore never range-checks).
    Conf(
        "SB3-MFC2019",
        f"{V}/nomask",
        f"{NC16}/NC2016-manipulation-index.csv",
        "valid",
        edition="MFC2019",
        fails={"SCORE-03": "SCORE-03: 2 of 4 scores are outside [0, 1] (showing 2)"},
        passes=("STATUS-02", "STATUS-09", "STATUS-10", "SCORE-04", "COL-02"),
    ),
    # DB1: pair 1 opts out with 6749 while a processed pair scores 0 (NC17 §2.1.1.2 "must": an error).
    Conf(
        "DB1",
        f"{V}/lorem_NC2016_UnitTest_Splice_ImgOnly_p-baseline_1",
        f"{NC16}/NC2016-splice-index.csv",
        "valid",
        passes=("SCORE-01", "STATUS-01", "IDX-06"),
        fails={"SCORE-06": "SCORE-06: 1 of 1 opted-out trials score at least the lowest processed score 0 (showing 1)"},
    ),
    Conf(
        "D4c",
        f"{V}/loremc_NC2016_UnitTest_Splice_ImgOnly_p-baseline_1",
        f"{NC16}/NC2016-splice-index.csv",
        "invalid",
        fails={"SCORE-01": "SCORE-01: 1 of 4 scores are not finite real numbers (showing 1)"},
        passes=("STATUS-01",),
        texts=("[NC2016_7432:NC2016_7442] ConfidenceScore='': ConfidenceScore must be a finite real number",),
    ),
    # D4d under NC2016: the IsOptOut column is missing (COL-08, D-08), so STATUS-01 cannot run.
    Conf(
        "D4d",
        f"{V}/loremd_NC2016_UnitTest_Splice_ImgOnly_p-baseline_1",
        f"{NC16}/NC2016-splice-index.csv",
        "invalid",
        fails={"COL-08": ""},
        skips={"STATUS-01": "STATUS-01 skipped: COL-08 failed: column IsOptOut is absent"},
    ),
    # D4d as the MFC file it is: both status columns are checked on every pair (MediScore only while checking masks).
    Conf(
        "D4d-MFC2018",
        f"{V}/loremd_NC2016_UnitTest_Splice_ImgOnly_p-baseline_1",
        f"{NC16}/NC2016-splice-index.csv",
        "invalid",
        edition="MFC2018",
        fails={
            "STATUS-05": "STATUS-05: 2 of 4 ProbeStatus values and 2 of 4 DonorStatus values are not recognized "
            "(showing 4)"
        },
        passes=("SCORE-01", "COL-08"),
        texts=(
            "[NC2016_5847:NC2016_6847] ProbeStatus='Y': ProbeStatus must be one of Processed, NonProcessed, "
            "OptOutAll, OptOutDetection, OptOutLocalization, FailedValidation (got 'Y')",
            "[NC2016_7432:NC2016_7442] DonorStatus='': DonorStatus must be one of Processed, NonProcessed, "
            "OptOutLocalization, FailedValidation (got an empty field)",
        ),
    ),
    # VB2: efgh opts out with 0.2, above abcd's processed 0.1 (NC17 §2.1.1.2 "must": an error;
    # MediScore does not check).
    Conf(
        "VB2",
        f"{V}/validvidtest_nc17",
        f"{NC16}/NC2016-manipulation-video-index.csv",
        "valid",
        passes=("SCORE-01", "STATUS-01", "IDX-06"),
        fails={
            "SCORE-06": "SCORE-06: 1 of 1 opted-out trials score at least the lowest processed score 0.1 (showing 1)"
        },
    ),
    # V3 under NC2016: an MFC video file against the NC2016 index lacks IsOptOut (COL-05).
    Conf(
        "V3",
        f"{V}/failvalidvidtest",
        f"{NC16}/NC2016-manipulation-video-index.csv",
        "valid",
        fails={"COL-05": ""},
        skips={"STATUS-08": "STATUS-08 skipped: COL-05 failed: column IsOptOut is absent"},
    ),
    # V3 as an MFC2019 video file: both rows are excused (STATUS-08) and NIST scores them 0 (SCORE-07).
    Conf(
        "V3-MFC2019",
        f"{V}/failvalidvidtest",
        f"{NC16}/NC2016-manipulation-video-index.csv",
        "valid",
        edition="MFC2019",
        passes=("STATUS-03", "STATUS-08", "SCORE-07", "SCORE-04"),
        warns={
            "STATUS-08": "STATUS-08: 2 FailedValidation rows are excused from mask and interval checks and "
            "scored as failed (showing 2)",
            "SCORE-07": "SCORE-07: 2 FailedValidation trials with a non-zero score will be scored 0 by NIST "
            "(showing 2)",
        },
    ),
    Conf(
        "VB1-MFC2019",
        f"{V}/validvidtest",
        f"{NC16}/NC2016-manipulation-video-index.csv",
        "valid",
        edition="MFC2019",
        passes=("STATUS-03", "STATUS-09", "STATUS-10", "SCORE-01", "SCORE-03"),
    ),  # OptOutSpatial may carry segments
    # EVB is valid in MFC2018, whose tables have no SCORE-04.
    Conf(
        "EVB",
        f"{V}/valid_ev",
        EV_INDEX,
        "valid",
        edition="MFC2018",
        passes=("COL-10", "EV-01", "EV-02", "STATUS-06", "SCORE-01", "IDX-06"),
        absent=("SCORE-04", "SCORE-03"),
    ),
    # EVB under MFC2019: NonProcessed 0.2/0.6 and OptOut 0.4/0.8 must be 0 (D-04; MediScore does not check).
    Conf(
        "EVB-MFC2019",
        f"{V}/valid_ev",
        EV_INDEX,
        "valid",
        edition="MFC2019",
        fails={"SCORE-04": "SCORE-04: 4 of 4 non-processed or opted-out trials have a non-zero score (showing 4)"},
        passes=("EV-01", "STATUS-06", "SCORE-03"),
        texts=(
            f"[{EV_PROBE}:Hurricane_Sandy] ConfidenceScore='0.2': ConfidenceScore must be 0 for "
            "ProbeStatus=NonProcessed (got 0.2)",
        ),
    ),
    # EV0: MediScore fails on IDX-03 only (its missing-pair message is warn-only, B-01); we fail IDX-04 and EV-01 too.
    Conf(
        "EV0",
        f"{V}/invalid_ev_event",
        EV_INDEX,
        "invalid",
        edition="MFC2018",
        fails={
            "EV-01": "EV-01: 1 of 1 probes do not have one row per event of the index (showing 1)",
            "IDX-03": "",
            "IDX-04": "",
        },
        passes=("STATUS-06",),
        texts=(
            f"probe {EV_PROBE} must have 9 rows, one per event of the index (got 9; missing Hurricane_Sandy; "
            "not in the index: Foo_bar)",
        ),
    ),
    Conf(
        "EV1",
        f"{V}/invalid_ev_ps",
        EV_INDEX,
        "invalid",
        edition="MFC2018",
        fails={"STATUS-06": "STATUS-06: 2 of 9 ProbeStatus values are not recognized (showing 2)"},
        passes=("EV-01", "SCORE-01"),
        texts=(
            f"[{EV_PROBE}:Chicago_Blizzard_2011] ProbeStatus='OptOutAll': ProbeStatus must be one of Processed, "
            "NonProcessed, OptOut, FailedValidation (got 'OptOutAll')",
        ),
    ),
    Conf(
        "CB",
        f"{V}/valid_cam",
        CAM_INDEX,
        "valid",
        passes=("COL-11", "CAM-01", "STATUS-02", "SCORE-01", "IDX-06"),
        absent=("SCORE-04", "CAM-02"),
    ),
    # CB under MFC2019: the NonProcessed row scores 0.4 (D-04); there is no description for CAM-02 (PKG-03).
    Conf(
        "CB-MFC2019",
        f"{V}/valid_cam",
        CAM_INDEX,
        "valid",
        edition="MFC2019",
        fails={"SCORE-04": "SCORE-04: 1 of 1 non-processed or opted-out trials have a non-zero score (showing 1)"},
        passes=("CAM-01", "STATUS-02", "STATUS-10", "SCORE-03"),
        skips={"CAM-02": "CAM-02 skipped: PKG-03 failed: "},
    ),
    # C0: MediScore's asserted text is the warn-only IDX-04 message (B-01); CAM-01 names the index's camera.
    Conf(
        "C0",
        f"{V}/invalid_camid",
        CAM_INDEX,
        "invalid",
        fails={
            "CAM-01": "CAM-01: 1 of 4 rows have a TrainCamID the index does not give for their probe (showing 1)",
            "IDX-03": "",
            "IDX-04": "",
        },
        passes=("STATUS-02",),
        texts=(
            "TrainCamID must be PAR-1476_primary_image, the index's value for this probe "
            "(got 'PAR-1475_primary_image')",
        ),
    ),
]


@pytest.mark.parametrize("conf", CASES, ids=[c.case for c in CASES])
def test_mediscore_case(pytester: pytest.Pytester, conformance: Path, conf: Conf) -> None:
    submission, index = conformance / conf.submission, conformance / conf.index
    extra = ("--omfc-edition", conf.edition) if conf.edition else ()
    res = run_untouched(pytester, submission, index, *extra)

    for rid, first in conf.fails.items():
        assert res.outcome(rid) == "failed", (rid, res.text(rid))
        if first:
            assert res.first_line(rid) == first
    for rid in conf.passes:
        assert res.outcome(rid) == "passed", (rid, res.text(rid))
    for rid, text in conf.skips.items():
        assert res.outcome(rid) == "skipped", (rid, res.text(rid))
        assert res.text(rid).startswith(text)
    for rid, first in conf.warns.items():
        assert res.outcome(rid) == "passed", (rid, res.text(rid))
        assert (res.warning(rid) or "").splitlines()[0] == first
    for rid in conf.absent:
        assert rid not in res.reports
    everything = "\n".join([res.text(r) for r in res.reports] + [res.warning(r) or "" for r in res.reports])
    for text in conf.texts:
        assert text in everything
    if conf.fails or conf.mediscore == "invalid":
        assert res.ret == 1  # every case MediScore rejects, we reject too
    # None of our rules crashed on MediScore's data (a crash reads "the check could not run").
    ours = [r for r in res.reports if r.split("-")[0] in ("SCORE", "STATUS", "EV", "CAM")]
    assert ours and not [r for r in ours if "the check could not run" in res.text(r)]
