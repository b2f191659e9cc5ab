"""MediScore's naming fixtures (validatorTests, MEDISCORE_VALIDATOR_CASES.md §1.1 and §1.6) under pytest-omfc.

Edition NC2016 (MediScore's ``--ncid NC2016``), so the YEAR field is ``NC2016``.
The verdicts are the rule reference's (docs/rules/), not MediScore's; where they differ, the comment
says why.  The fixtures are read in place (read-only) and never copied.
"""

from __future__ import annotations

import pytest
from helpers.runs import run_untouched

EXPID_RULES = [f"SUB-0{i}" for i in range(1, 9)]
MANIP = "NC2016-manipulation-index.csv"
SPLICE = "NC2016-splice-index.csv"

#: case -> (fixture directory, index, the failing rule and its details, or None when every SUB rule passes).
#: D-01: pytest-omfc checks the whole EXPID grammar (CONDITION, SYS, VERSION too), MediScore's -nc
#: only the field count, TEAM, NCID and TASK; on these fixtures the extra fields all pass.
CASES = {
    # SB1 "basic": valid in MediScore and here.
    "SB1": ("foo_NC2016_UnitTest_Manipulation_ImgOnly_p-baseline_1", MANIP, None),
    # S1: 8 fields ('__').  MediScore also prints "NCID must be NC2016" and "Task unittest is
    # unrecognized" from the shifted fields; here, with the wrong field count no field can be
    # assigned, so SUB-02...08 are skipped naming SUB-01 (one cause, one failure; D-01).
    "S1": ("foo__NC2016_UnitTest_Manipulation_ImgOnly_p-baseline_1", MANIP, ("SUB-01", 8)),
    # S2: an underscore in TEAM (8 fields): as S1.
    "S2": ("fo_o_NC2016_UnitTest_Manipulation_ImgOnly_p-baseline_1", MANIP, ("SUB-01", 8)),
    # S3 (commented out in MediScore): TEAM 'foo+' is allowed (SUB-02 forbids only '_'; MediScore
    # does not check '+' either), the task 'Manip' fails SUB-05, as in MediScore.
    "S3": ("foo+_NC2016_UnitTest_Manip_ImgOnly_p-baseline_1", MANIP, ("SUB-05", "manipulation", "Manip")),
    # DB1: a valid splice EXPID.
    "DB1": ("lorem_NC2016_UnitTest_Splice_ImgOnly_p-baseline_1", SPLICE, None),
    # D1: 8 fields and task 'Spl'; SUB-01 fails, the task is not reached (MediScore reports the
    # shifted "Task unittest is unrecognized").
    "D1": ("lorem__NC2016_UnitTest_Spl_ImgOnly_p-baseline_1", SPLICE, ("SUB-01", 8)),
    # D2: an underscore in TEAM: SUB-01 (MediScore again reports the shifted task).
    "D2": ("lor_em_NC2016_UnitTest_Manipulation_ImgOnly_p-baseline_1", SPLICE, ("SUB-01", 8)),
    # D3 (commented out in MediScore): '+' allowed (SUB-02); 'Manipulation' on the splice index
    # fails SUB-05, MediScore's "The task must be 'splice'".
    "D3": ("lorem+_NC2016_UnitTest_Manipulation_ImgOnly_p-baseline_1", SPLICE, ("SUB-05", "splice", "Manipulation")),
}


def _first_line(sub_id: str, failing: tuple[object, ...]) -> str:
    if failing[0] == "SUB-01":
        return f"SUB-01: the EXPID {sub_id} has {failing[1]} '_'-separated fields, not 7 (showing 1)"
    _, task, field = failing
    return f"SUB-05: the TASK field {field!r} does not name the {task} task (showing 1)"


@pytest.mark.parametrize("case", list(CASES))
def test_mediscore_naming_fixture(pytester, conformance, case):
    fixture, index_name, failing = CASES[case]
    root = conformance / "validatorTests"
    sub = root / fixture
    index = root / "NC2016_Test0516_dfz" / "indexes" / index_name
    res = run_untouched(pytester, sub, index)

    for rule in EXPID_RULES:
        outcome = res.outcome(rule)
        if failing and rule == failing[0]:
            assert outcome == "failed", res.text(rule)
            assert res.first_line(rule) == _first_line(fixture, failing)
        elif failing and failing[0] == "SUB-01":
            assert outcome == "skipped"
            assert res.text(rule).startswith(f"{rule} skipped: SUB-01 failed: the EXPID {fixture} has 8")
        else:
            assert outcome == "passed", res.text(rule)
    assert "SUB-09" not in res.reports and "SUB-10" not in res.reports
    # every fixture's CSV is <ID>/<ID>.csv (PKG-01, PKG-02); none has a description (PKG-03)
    assert res.outcome("PKG-01") == "passed"
    assert res.outcome("PKG-02") == "passed"
    assert res.first_line("PKG-03") == f"PKG-03: the system description {fixture}.txt is missing (showing 1)"
