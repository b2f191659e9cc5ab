"""Conformance of the detection engine with MediScore's own checkfiles
(docs/scoring/detection.md#checked-against-mediscore).

Every report in ``detectionScorerTests/checkfiles`` is recomputed with the
command line of MediScore's ``detection_tests.sh`` and compared column by
column: numbers to 1e-6, blanks (NaN) as None, SYS_RESPONSE and QUERY exactly.
The data are read in place from the shared conformance directory.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from helpers.paths import REPO

from pytest_omfc.scoring import score_detection
from pytest_omfc.scoring.detection.engine import CI_COLUMNS

REPO_ROOT = REPO
TS = REPO_ROOT.parent / "shared" / "conformance" / "mediscore" / "test_suite" / "detectionScorerTests"

pytestmark = pytest.mark.skipif(
    not TS.is_dir(), reason=f"MediScore conformance data not found at {TS} (checkout ../shared beside the repo)"
)

R, RS, B, SM = "reference", "sample/reference", "baseline", "sample"
NC16 = ("NC2016-manipulation-ref.csv", "NC2016-manipulation-index.csv")
NC16S = ("NC2016-splice-ref.csv", "NC2016-splice-index.csv")
NC17 = ("NC2017-manipulation-ref.csv", "NC2017-manipulation-index.csv")
ME = "D_NC2016_Manipulation_ImgOnly_p-me_{0}/D_NC2016_Manipulation_ImgOnly_p-me_{0}.csv"
SPLICE_ME1 = "D_NC2016_Splice_ImgOnly_p-me_1/D_NC2016_Splice_ImgOnly_p-me_1.csv"
C_ME = "D_NC2017_Manipulation_ImgOnly_c-me_{0}/D_NC2017_Manipulation_ImgOnly_c-me_{0}.csv"
DCT = "Base_NC2016_Manipulation_ImgOnly_p-dct_02.csv"
COPYMOVE = "Base_NC2017_Manipulation_ImgOnly_p-copymove_01.csv"


@dataclass(frozen=True)
class Case:
    """One DetectionScorer run of detection_tests.sh and its checkfile stem."""

    name: str
    task: str
    ref_dir: str
    ref_index: tuple[str, str]
    sys: str
    sys_dir: str = SM
    kwargs: dict[str, Any] = field(default_factory=dict)
    checkdir: str = ""

    @property
    def check_stem(self) -> Path:
        folder = self.checkdir or f"test_{self.name}"
        return TS / "checkfiles" / folder / f"test_{self.name}"


CASES = [
    Case("c1_1", "manipulation", R, NC16, DCT, B),
    Case("c1_2", "splice", R, NC16S, "Base_NC2016_Splice_ImgOnly_p-splice_01.csv", B),
    Case("c1_3", "manipulation", R, NC17, COPYMOVE, B),
    Case("c2_1", "manipulation", RS, NC16, ME.format(1)),
    Case("c2_2", "splice", RS, NC16S, SPLICE_ME1),
    Case("c2_3", "manipulation", RS, NC16, ME.format(2)),
    Case("c2_4", "manipulation", RS, NC17, C_ME.format(2), kwargs={"strict": False}),
    Case("c2_5", "manipulation", RS, ("NC2017-manipulation-ref2.csv", NC17[1]), C_ME.format(2)),
    Case("c2_6", "manipulation", RS, NC16, ME.format(3), kwargs={"optout": True}),
    Case(
        "c2_7",
        "manipulation",
        RS,
        NC16,
        ME.format(3),
        kwargs={"optout": True, "query_manipulation": ["Operation==['PasteSplice']"]},
    ),
    Case("c2_8", "manipulation", RS, NC16, ME.format(4), kwargs={"optout": True}),
    Case(
        "c2_9",
        "manipulation",
        RS,
        NC16,
        ME.format(4),
        kwargs={"optout": True, "query_manipulation": ["Operation==['PasteSplice']"]},
    ),
    Case(
        "c2_10",
        "eventverification",
        RS,
        ("MFC2018-eventverification-ref.csv", "MFC2018-eventverification-index.csv"),
        "D_MFC2018_EventVerification_ImgOnly_p-me_1/D_MFC2018_EventVerification_ImgOnly_p-me_1.csv",
    ),
    Case("c2_11", "manipulation", RS, NC16, ME.format(1)),
    Case("c2_12", "manipulation", RS, NC16, ME.format(1), kwargs={"query_manipulation": ["Purpose==['remove']"]}),
    Case(
        "c2_13",
        "manipulation",
        RS,
        NC16,
        ME.format(1),
        kwargs={"query_manipulation": ["Purpose==['remove'] or Operation==['PasteSampled']"]},
    ),
    Case(
        "c2_14",
        "camera",
        RS,
        ("MFC2018-camera-ref.csv", "MFC2018-camera-index.csv"),
        "D_MFC2018_Camera_MultiMedia_p-me_1/D_MFC2018_Camera_MutiMedia_p-me_1.csv",
    ),
    Case("c3_1", "manipulation", RS, NC16, ME.format(1)),
    Case("c3_2", "manipulation", RS, (NC16[0], "NC2016-manipulation-index_sub.csv"), ME.format(1)),
    Case("c3_3", "splice", RS, NC16S, SPLICE_ME1),
    Case("c3_4", "splice", RS, (NC16S[0], "NC2016-splice-index_sub.csv"), SPLICE_ME1),
    Case(
        "c4_1",
        "manipulation",
        RS,
        ("NC2017-manipulation-ref-jt.csv", "NC2017-manipulation-index-jt.csv"),
        C_ME.format(3),
    ),
    Case(
        "c4_2",
        "manipulation",
        RS,
        ("NC2017-manipulation-ref-jt.csv", "NC2017-manipulation-index-jt.csv"),
        C_ME.format(3),
        kwargs={"query_manipulation": ["Operation==['PasteSplice']"]},
    ),
    Case(
        "c4_3",
        "manipulation",
        RS,
        ("NC2017-manipulation-ref-jt.csv", "NC2017-manipulation-index-jt.csv"),
        C_ME.format(3),
        kwargs={"query_manipulation": ["Operation==['FillContentAwareFill']"]},
    ),
    Case(
        "c4_4",
        "manipulation",
        RS,
        NC16,
        ME.format(3),
        kwargs={"query_manipulation": ["Operation==['PasteSplice']"], "ci": True, "ci_level": 0.95},
    ),
    Case("c5_1-1", "manipulation", R, NC16, DCT, B, {"ci": True}, "test_c5_1"),
    Case("c5_1-2", "manipulation", R, NC16, DCT, B, {}, "test_c5_1"),
    Case(
        "c5_1-3",
        "manipulation",
        R,
        NC16,
        "Base_NC2016_Manipulation_ImgOnly_p-dct_02_optout.csv",
        B,
        {"optout": True, "ci": True},
        "test_c5_1",
    ),
    Case("c5_1-4", "manipulation", R, NC16, DCT, B, {"ci": True}, "test_c5_1"),
    Case(
        "c5_1-5",
        "manipulation",
        R,
        NC16,
        DCT,
        B,
        {"query": ["Collection==['Nimble-SCI','Nimble-WEB']"], "ci": True},
        "test_c5_1",
    ),
    Case(
        "c5_1-6",
        "manipulation",
        R,
        NC16,
        DCT,
        B,
        {
            "query": [
                "Collection==['Nimble-SCI'] & 300 <= ProbeWidth",
                "Collection==['Nimble-WEB'] & 300 <= ProbeWidth",
            ],
            "ci": True,
        },
        "test_c5_1",
    ),
    Case(
        "c5_1-9",
        "manipulation",
        R,
        NC16,
        DCT,
        B,
        {
            "query_manipulation": [
                "Collection==['Nimble-SCI'] & IsManipulationTypeRemoval==['Y']",
                "Collection==['Nimble-WEB'] & IsManipulationTypeRemoval==['Y']",
            ]
        },
        "test_c5_1",
    ),
    Case("c5_1-11", "splice", R, NC16S, "Base_NC2016_Splice_ImgOnly_p-splice_01.csv", B, {"ci": True}, "test_c5_1"),
    Case("c5_1-12", "manipulation", R, NC17, COPYMOVE, B, {"ci": True}, "test_c5_1"),
    Case(
        "c5_1-13",
        "manipulation",
        R,
        NC17,
        COPYMOVE,
        B,
        {
            "query": [
                "(Purpose ==['remove'] and IsTarget == ['Y']) or IsTarget == ['N']",
                "(Purpose ==['clone'] and IsTarget == ['Y']) or IsTarget == ['N']",
            ]
        },
        "test_c5_1",
    ),
    Case(
        "c5_1-14",
        "manipulation",
        R,
        NC17,
        COPYMOVE,
        B,
        {"query_manipulation": ["Purpose==['remove']", "Purpose==['clone']"]},
        "test_c5_1",
    ),
    Case(
        "c5_1-15",
        "manipulation",
        R,
        NC17,
        COPYMOVE,
        B,
        {
            "query_manipulation": [
                "OperationArgument==['people','face']",
                "OperationArgument==['man-made object','landscape']",
            ]
        },
        "test_c5_1",
    ),
    Case(
        "c5_1-16",
        "manipulation",
        R,
        NC17,
        COPYMOVE,
        B,
        {"query_manipulation": ["Purpose==['remove'] and Operation ==['FillContentAwareFill']"]},
        "test_c5_1",
    ),
]

NUMERIC = ("TRR", "AUC", "EER", "FAR_STOP", "AUC@FAR", "CDR@FAR", "CI_LEVEL", *CI_COLUMNS)


def _checkfiles(case: Case) -> list[Path]:
    stem = case.check_stem
    if "query" in case.kwargs or "query_manipulation" in case.kwargs:
        kind = "q" if "query" in case.kwargs else "qm"
        n = len(case.kwargs.get("query") or case.kwargs["query_manipulation"])
        return [stem.parent / f"{stem.name}_{kind}_query_{i}_report.csv" for i in range(n)]
    return [stem.parent / f"{stem.name}_all_report.csv"]


def _read_report(path: Path) -> dict[str, str]:
    with path.open(newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="|"))
    assert len(rows) == 1, f"{path} should hold one report row"
    return rows[0]


def test_every_checkfile_has_a_case() -> None:
    """Guard: a checkfile report that no case reproduces would silently go untested."""
    covered = {p for case in CASES for p in _checkfiles(case)}
    reports = set((TS / "checkfiles").rglob("*_report.csv"))
    assert reports - covered == set()


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_detection_checkfile(case: Case) -> None:
    ref, idx = case.ref_index
    report = score_detection(
        TS / case.ref_dir / idx,
        TS / case.ref_dir / ref,
        TS / case.sys_dir / case.sys,
        task=case.task,
        **case.kwargs,
    )
    files = _checkfiles(case)
    assert len(report.results) == len(files)
    ci = bool(case.kwargs.get("ci"))
    for result, path in zip(report.results, files, strict=True):
        expected = _read_report(path)
        assert result.sys_response == expected["SYS_RESPONSE"], path.name
        if "QUERY" in expected:
            assert result.query == expected["QUERY"], path.name
        for col in NUMERIC:
            want, got = expected[col], result.metrics[col]
            if col in CI_COLUMNS and not ci:
                assert float(want) == 0 and got is None, f"{path.name} {col}: no CI requested"
            elif want == "":
                assert got is None, f"{path.name} {col}: MediScore prints NaN, got {got}"
            else:
                assert got is not None and abs(got - float(want)) <= 1e-6 + 1e-12, (
                    f"{path.name} {col}: expected {want}, got {got}"
                )
