"""A ForgeryNet score item never passes when nothing that decides it was scored (issue 33): the fake images of
spatial scoring, both classes of classification, the fake segments of temporal scoring.  Where the reference
itself lacks them the metric is undefined and the item skips, saying so; where the submission's usable rows lack
them the item fails, naming the rows left out.  One table, one expected outcome and text per case."""

from __future__ import annotations

from typing import Any

import pytest
from helpers.forgerynet import Fnet
from helpers.forgerynet_cases import (
    BIN_REF,
    BIN_SUB,
    SPL_FILES,
    SPL_REF,
    SPL_REF_FILES,
    SPL_SUB,
    TL_REF,
    TL_SUB,
)

ITEM = {
    "spatial": "forgerynet-spatial",
    "image-classification": "forgerynet-classification",
    "temporal": "forgerynet-temporal",
}
REAL_ONLY_REF = (["ID", "Label", "MaskFileName"], [["r", 0, ""], ["s", 0, ""]])
NO_FAKE_SEGMENT = {**TL_REF, "database": {k: {**v, "annotations": []} for k, v in TL_REF["database"].items()}}

CASES: list[tuple[str, str, dict[str, Any], str, str]] = [
    ("spatial", "valid", {}, "passed", ""),
    ("spatial", "reference-has-no-fake", {"reference": REAL_ONLY_REF,
     "submission": (SPL_SUB[0], [["r", 0.1, "mask/r.png"], ["s", 0.1, "mask/r.png"]])},
     "skipped", "the reference holds no fake image"),
    ("spatial", "only-real-scored", {"submission": (SPL_SUB[0], [SPL_SUB[1][1]])},
     "failed", "0 of 1 fake images scored: only real images were"),
    ("image-classification", "valid", {}, "passed", ""),
    ("image-classification", "reference-of-one-class", {"reference": (["ID", "Label"], [["b", 1], ["c", 1]]),
     "submission": (["ID", "Score"], [["b", 0.9], ["c", 0.4]])},
     "skipped", "the reference holds only fake IDs: AUC and balanced accuracy are undefined"),
    ("image-classification", "only-fake-scored", {"submission": (["ID", "Score"], [["b", 0.9], ["c", 0.4]])},
     "failed", "only fake IDs were scored: no real ID of the reference has a usable row"),
    ("temporal", "valid", {}, "passed", ""),
    ("temporal", "reference-has-no-fake-segment", {"reference": NO_FAKE_SEGMENT},
     "skipped", "the reference holds no fake segment in its 3 videos: AP and AR are undefined"),
    ("temporal", "nothing-predicted", {"submission": {"version": "1.3", "results": {"v1": [], "v2": [], "v3": []}}},
     "failed", "0 of 0 predictions scored: nothing can be scored"),
]  # fmt: skip

DEFAULTS: dict[str, dict[str, Any]] = {
    "spatial": {"reference": SPL_REF, "submission": SPL_SUB, "files": SPL_FILES, "ref_files": SPL_REF_FILES},
    "image-classification": {"reference": BIN_REF, "submission": BIN_SUB},
    "temporal": {"reference": TL_REF, "submission": TL_SUB},
}


@pytest.mark.parametrize(("task", "name", "change", "outcome", "words"), CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_a_score_of_nothing_that_decides_it_never_passes(
    fnet: Fnet, task: str, name: str, change: dict[str, Any], outcome: str, words: str
) -> None:
    run = fnet.case(task, **{**DEFAULTS[task], **change}).run()
    item = f"score::{ITEM[task]}"
    got = run.outcome.outcome(item)
    assert got == outcome, (name, got, run.outcome.text(item))
    assert words in run.outcome.text(item), run.outcome.text(item)


def test_a_failed_score_item_reports_as_the_rule_items_do(fnet: Fnet) -> None:
    """A score item's failure is a report whose crash line is its first line, at the reference (as the rule and
    gate items' are): pytest takes the JUnit ``message``, the short summary and ``--tb=line`` from it."""
    import xml.etree.ElementTree as ET

    case = fnet.case("spatial", **{**DEFAULTS["spatial"], "submission": (SPL_SUB[0], [SPL_SUB[1][1]])})
    xml = case.reference.parent.parent / "junit.xml"
    rec = case.pytester.inline_run(*case.args(), "--junitxml", str(xml), "-p", "no:cacheprovider")
    (rep,) = [r for r in rec.getreports("pytest_runtest_logreport") if r.failed and "score::" in r.nodeid]
    crash = getattr(rep.longrepr, "reprcrash", None)
    assert crash is not None and crash.path == str(case.reference)
    assert crash.message.startswith("score::forgerynet-spatial: 0 of 1 fake images scored")
    testcase = next(c for c in ET.parse(xml).iter("testcase") if c.get("name", "").endswith("forgerynet-spatial"))
    failure = testcase.find("failure")
    assert failure is not None and failure.get("message") == crash.message
