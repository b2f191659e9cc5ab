"""No score item passes on nothing, and ``--omfc-jpeg2000 auto`` decides from content (issue 17).

MFC2019 reference tables carry both ``ProbeMaskFileName`` (PNG) and ``ProbeBitPlaneMaskFileName``
(JPEG 2000), and either may be empty.  Before, the mere presence of the bit-plane column chose bit
planes; where it was empty every target became a white reference and ``score::mask`` passed with
``ScoreableTrials 0``.  Masks are the 16x16 ones of test_mask_scoring_plugin (GT: the 8x8 square).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from helpers.mask_scoring import NOKERN, REF, REF_REL, SHIFTED, MaskCase, png_bytes, props
from helpers.runs import psv

BOTH_HEADER = [
    "TaskID",
    "ProbeFileID",
    "ProbeFileName",
    "IsTarget",
    "ProbeMaskFileName",
    "ProbeBitPlaneMaskFileName",
    "JournalName",
    "Collection",
]


def _both_columns(c: MaskCase, omfc: Any, bitplane: dict[str, str], png: dict[str, str] | None = None) -> None:
    """Rewrite the reference with both mask columns: PNG names for every target unless ``png`` says otherwise."""
    rows = []
    for i in ("0001", "0002", "0003", "0009"):
        target = i != "0009"
        name = (png or {}).get(i, f"reference/mask/{i}.png" if target else "")
        rows.append(
            [
                "IMDL",
                i,
                f"probe/{i}.jpg",
                "Y" if target else "N",
                name,
                bitplane.get(i, ""),
                "j1" if target else "",
                "A",
            ]
        )
    c.reference = omfc.write(f"dataset/{REF_REL}", psv(BOTH_HEADER, rows))


def test_empty_bit_plane_column_scores_the_png_masks(omfc: Any) -> None:
    """The issue's case: both columns, the bit-plane one empty: auto scores the PNGs (as MediScore does
    without --jpeg2000) and says so under the table; before, 0 trials were scored and the item passed."""
    c = MaskCase(omfc, {"0001": REF, "0002": SHIFTED, "0003": REF})
    _both_columns(c, omfc, bitplane={})
    res = c.run(*NOKERN)
    assert res.outcome("mask") == "passed", res.text("mask")
    p = props(res, "mask")
    assert p["ScoreableTrials"] == 3
    assert p["OptimumMCC"] == pytest.approx((1 + 5 / 12 + 1) / 3, abs=1e-12)
    doc = c.json(*NOKERN)
    mask = next(r for r in doc["results"] if r["scorer"] == "mask")
    assert mask["notes"] == [
        "reference masks: PNG (ProbeMaskFileName): --omfc-jpeg2000 auto, "
        "ProbeBitPlaneMaskFileName names a file for 0 of 3 targets, ProbeMaskFileName for 3"
    ]
    assert mask["scored"] == {"unit": "targets", "targets": 3, "scored": 3, "not_scored": {}}


def test_forcing_bit_planes_on_an_empty_column_fails_with_counted_reason(omfc: Any) -> None:
    """--omfc-jpeg2000 yes on the same reference scores nothing: the item fails, counted by reason, with the fix."""
    c = MaskCase(omfc, {"0001": REF, "0002": SHIFTED, "0003": REF})
    _both_columns(c, omfc, bitplane={})
    stem = REF_REL.removesuffix(".csv")
    omfc.write(
        f"dataset/{stem}-probejournaljoin.csv",
        psv(["ProbeFileID", "JournalName", "StartNodeID", "EndNodeID", "Sequence"], [["0001", "j1", "n1", "n2", 1]]),
    )
    omfc.write(
        f"dataset/{stem}-journalmask.csv",
        psv(
            ["JournalName", "StartNodeID", "EndNodeID", "Operation", "Purpose", "BitPlane"],
            [["j1", "n1", "n2", "Paste", "add", 1]],
        ),
    )
    res = c.run(*NOKERN, "--omfc-jpeg2000", "yes")
    assert res.outcome("mask") == "failed"
    assert res.first_line("mask") == (
        "score::mask: 0 of 3 targets scored: 3 have an empty ProbeBitPlaneMaskFileName while ProbeMaskFileName "
        "names a mask (use --omfc-jpeg2000 no)"
    )


def test_mixed_reference_is_reported_never_half_scored_silently(omfc: Any) -> None:
    """A mixed table: the PNG column names masks for 0001 and 0003, the bit-plane column only for 0002.
    auto takes PNG (2 targets against 1) and 0002, whose only mask is a bit-plane file, fails the item
    by name with the fix, while the two PNG targets keep their numbers."""
    c = MaskCase(omfc, {"0001": REF, "0002": SHIFTED, "0003": REF})
    _both_columns(c, omfc, bitplane={"0002": "reference/mask/0002.bpm.jp2"}, png={"0002": ""})
    res = c.run(*NOKERN)
    assert res.outcome("mask") == "failed"
    text = res.text("mask")
    assert text.splitlines()[0] == (
        "score::mask: 1 mask(s) could not be scored (0002: ProbeMaskFileName is empty while "
        "ProbeBitPlaneMaskFileName names 'reference/mask/0002.bpm.jp2' (use --omfc-jpeg2000 yes))"
    )
    p = props(res, "mask")
    assert p["ScoreableTrials"] == 2 and p["OptimumMCC"] == 1.0  # the numbers of the two PNG targets stay


def test_zero_scored_mask_item_fails_counted_by_reason(omfc: Any) -> None:
    """Every target's reference mask has no region (all white): 0 of 3 scored fails, whatever MediScore says."""
    white = png_bytes(REF * 0 + 255)
    c = MaskCase(omfc, {"0001": REF, "0002": SHIFTED, "0003": REF})
    for i in ("0001", "0002", "0003"):
        omfc.write(f"dataset/reference/mask/{i}.png", white)
    res = c.run(*NOKERN)
    assert res.outcome("mask") == "failed"
    assert res.first_line("mask") == (
        "score::mask: 0 of 3 targets scored: 3 have no selected region in the reference mask"
    )
    out = c.case.pytester.runpytest_inprocess(
        *c.case.args, "-p", "no:cacheprovider", "--omfc-reference", str(c.reference), *NOKERN
    )
    assert "all: NOTHING SCORED: 0 of 3 targets scored" in out.stdout.str()


def test_query_selecting_no_target_is_not_scored_never_passed(omfc: Any) -> None:
    c = MaskCase(omfc, {"0001": REF, "0002": SHIFTED})
    res = c.run(*NOKERN, "--omfc-query", "Collection=='Z'")
    rid = next(r for r in res.reports if r.startswith("mask"))
    assert res.outcome(rid) == "skipped", res.text(rid)


# ---------------------------------------------------------------------------- every scorer, not only masks


def test_forgerynet_classification_with_no_usable_row_fails(pytester: pytest.Pytester) -> None:
    """Every row names an unknown ID: 0 of 4 reference IDs scored fails (it was a skip: a gate-less CI passed)."""
    from helpers.forgerynet import Fnet
    from helpers.forgerynet_cases import BIN_REF

    sub = (["ID", "Score"], [["zz1", 0.2], ["zz2", 0.9]])
    run = Fnet(pytester).case("image-classification", reference=BIN_REF, submission=sub).run()
    text = run.outcome.text("score::forgerynet-classification")
    assert run.outcome.outcome("score::forgerynet-classification") == "failed"
    assert text.startswith("score::forgerynet-classification: 0 of 4 reference IDs scored: no row can be scored")


def test_forgerynet_spatial_with_no_usable_mask_fails(pytester: pytest.Pytester) -> None:
    """The only row's mask has the wrong size (FNET-08): 0 of 1 reference images scored fails the score item."""
    from helpers.forgerynet import Fnet
    from helpers.forgerynet import png_bytes as fpng

    run = (
        Fnet(pytester)
        .case(
            "spatial",
            reference=(["ID", "Label", "MaskFileName"], [["a", 1, "gt/a.png"]]),
            submission=(["ID", "Score", "MaskFileName"], [["a", 0.9, "m/a.png"]]),
            files={"m/a.png": fpng(np.zeros((3, 3), np.uint8))},
            ref_files={"gt/a.png": fpng(np.zeros((2, 2), np.uint8))},
        )
        .run()
    )
    assert run.outcome.outcome("score::forgerynet-spatial") == "failed"
    assert run.outcome.text("score::forgerynet-spatial").startswith(
        "score::forgerynet-spatial: 0 of 1 reference images scored: no image can be scored"
    )


# ---------------------------------------------------------------------------- polarity hints


def test_an_inverted_mask_gets_a_polarity_hint(omfc: Any) -> None:
    """255 for manipulated (the common machine-learning convention): the 8x8 GT square white on black.
    Its own optimum is MCC 0 (docs/scoring/masks.md#metrics-at-one-threshold: every threshold calls all or none of the
    GT right), the
    inverted mask's 1; 75 % of the pixels are black.  Before, only an entirely black mask warned."""
    inverted = np.where(REF == 0, 255, 0).astype(np.uint8)
    c = MaskCase(omfc, {"0001": REF, "0002": inverted})
    res = c.run(*NOKERN)
    assert res.outcome("mask") == "passed", res.text("mask")
    warnings = [v for k, v in res.props["mask"] if k == "omfc.warning"]
    assert warnings == [
        "1 system mask(s) score better inverted (MCC -0.5 or below at some threshold; inverted optimum e.g. 0002 "
        "1.000): is 255 used for manipulated? the plans use 0 (MASK-08)",
        "1 system mask(s) are mostly black (over 50% of the scored pixels are 0, e.g. 0002 75%): is 255 used for "
        "manipulated? the plans use 0 (MASK-08)",
    ]
    out = c.case.pytester.runpytest_inprocess(
        *c.case.args, "-p", "no:cacheprovider", "--omfc-reference", str(c.reference), *NOKERN
    )
    assert "1 system mask(s) score better inverted" in out.stdout.str()


def test_a_right_way_up_mask_gets_no_polarity_hint(omfc: Any) -> None:
    c = MaskCase(omfc, {"0001": REF, "0002": SHIFTED})
    res = c.run(*NOKERN)
    assert [v for k, v in res.props["mask"] if k == "omfc.warning"] == []


def test_the_html_report_shows_nothing_scored(omfc: Any) -> None:
    """The page lists the failure (red, counted once in the verdict) and the table cell reads "0 of 3"."""
    import html as html_lib
    import re

    white = png_bytes(REF * 0 + 255)
    c = MaskCase(omfc, {"0001": REF, "0002": SHIFTED, "0003": REF})
    for i in ("0001", "0002", "0003"):
        omfc.write(f"dataset/reference/mask/{i}.png", white)
    page_path = c.root / "out" / "report.html"
    c.run(*NOKERN, "--omfc-html", str(page_path))
    page = html_lib.unescape(page_path.read_text(encoding="utf-8"))
    assert "score::mask: 0 of 3 targets scored: 3 have no selected region in the reference mask" in page
    assert "1 score failed" in page  # the verdict counts the item once
    assert re.search(r'<td class="num">0 of 3</td>', page)
