"""DESC rules: the system description <ID>/<ID>.txt (docs/rules/desc.md, D-12).  All DESC findings are warnings."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

IMG_IDX = ["TaskID", "ProbeFileID", "ProbeFileName", "ProbeWidth", "ProbeHeight"]
NC_IMG = ["ProbeFileID", "ConfidenceScore", "OutputProbeMaskFileName", "IsOptOut"]
MFC_IMG = ["ProbeFileID", "ConfidenceScore", "OutputProbeMaskFileName", "ProbeStatus", "ProbeOptOutPixelValue"]
NC17_ID = "NIST_NC17_DRYRUN17_Manipulation_ImgOnly_p-baseline_3"

NC17_MFC19_DESC = """\
Section 1 Experiment Identifier(s)
{sub_id}
Section 2 System Description
A CNN.
Section 3 OptOut Criteria
{optout}
Section 4 System Hardware Description and Runtime Computation
1 GPU, 2 hours.
Section 5 Training Data and Knowledge Sources
ImageNet.
Section 6 References
None.
"""

OPENMFC_DESC = """\
1. Submission Identifier(s): {sub_id}
2. System Description: a CNN. {section2}
3. Hardware and Runtime: 1 GPU, 2 hours.
4. Training Data and Knowledge Sources: ImageNet.
5. References: none.
"""


def image(omfc, edition, statuses=("Processed",), pixel="", sub_id="p-test_1", description="default"):
    """An image-task submission with one row per status."""
    task = {"OpenMFC2020": "IMDL", "NC2017": "manipulation"}.get(edition, "manipulation-image")
    ids = [f"T{i}" for i in range(len(statuses))]
    if edition == "NC2017":
        header, rows = NC_IMG, [[i, "0", "", s] for i, s in zip(ids, statuses, strict=False)]
    else:
        header, rows = MFC_IMG, [[i, "0", "", s, pixel] for i, s in zip(ids, statuses, strict=False)]
    return omfc.case(
        edition,
        task,
        header=header,
        rows=rows,
        index_header=IMG_IDX,
        index_rows=[[task, i, f"probe/{i}.jpg", 64, 48] for i in ids],
        sub_id=sub_id,
        description=description,
    )


SECTIONS_RULE = {"NC2017": "DESC-01", "MFC2019": "DESC-01", "OpenMFC2020": "DESC-02"}


@pytest.mark.parametrize(
    "edition, sub_id, description",
    [
        ("NC2017", NC17_ID, NC17_MFC19_DESC.format(sub_id=NC17_ID, optout="We opt out of probes under 100 pixels.")),
        ("MFC2019", "p-test_1", "default"),
        (
            "OpenMFC2020",
            "p-test_1",
            OPENMFC_DESC.format(sub_id="p-test_1", section2="Undecodable probes are NonProcessed."),
        ),
    ],
)
def test_complete_description_passes(omfc, edition, sub_id, description):
    """Opted-out rows are explained, every section is there, the ID is listed: no DESC warning."""
    status = "Y" if edition == "NC2017" else "NonProcessed"
    res = image(
        omfc, edition, ("Processed" if edition != "NC2017" else "N", status), sub_id=sub_id, description=description
    ).run()
    for rid in (SECTIONS_RULE[edition], "DESC-03", "DESC-04"):
        assert res.outcome(rid) == "passed", res.text(rid)
        assert res.warning(rid) is None, res.warning(rid)


# ----------------------------------------------------------------------------- DESC-01 / DESC-02


def test_missing_sections_warn_desc01(omfc):
    text = "Experiment Identifier: {id}\nSystem Description: a CNN.\nHardware: 1 GPU.\nTraining data: none.\n"
    res = image(omfc, "NC2017", ("N",), sub_id=NC17_ID, description=text.format(id=NC17_ID)).run()
    assert res.outcome("DESC-01") == "passed"
    warning = res.warning("DESC-01").splitlines()
    assert warning[0] == "DESC-01: the description lacks 2 of 6 sections: OptOut Criteria, References (showing 2)"
    assert warning[1] == (
        f"  {NC17_ID}/{NC17_ID}.txt: the description should have a section 'OptOut Criteria' (got no heading naming it)"
    )
    assert res.ret == 0


def test_openmfc_needs_five_sections_desc02(omfc):
    """D-12: no OptOut section in OpenMFC; a missing Training section still warns."""
    text = OPENMFC_DESC.format(sub_id="p-test_1", section2="").replace(
        "4. Training Data and Knowledge Sources", "4. Data"
    )
    res = image(omfc, "OpenMFC2020", description=text).run()
    assert res.outcome("DESC-02") == "passed"
    assert res.warning("DESC-02").splitlines()[0] == (
        "DESC-02: the description lacks 1 of 5 sections: Training Data and Knowledge Sources (showing 1)"
    )
    assert "DESC-01" not in res.reports


def test_section_names_in_running_text_do_not_count(omfc):
    text = "p-test_1: our system description mentions hardware, training data, opt-out and references in passing.\n"
    res = image(omfc, "MFC2019", description=text).run()
    assert res.warning("DESC-01").splitlines()[0].startswith("DESC-01: the description lacks 6 of 6 sections:")


def test_non_utf8_description_warns(omfc):
    text = NC17_MFC19_DESC.format(sub_id="p-test_1", optout="none").replace("A CNN.", "Un réseau.").encode("latin-1")
    res = image(omfc, "MFC2019", description=text).run()
    assert res.outcome("DESC-01") == "passed"
    warning = res.warning("DESC-01").splitlines()
    assert warning[0] == "DESC-01: the system description is not UTF-8 text (showing 1)"
    offset = text.index(b"\xe9")
    assert (
        warning[1]
        == "  p-test_1/p-test_1.txt: the system description must be UTF-8 text (got byte 0xe9 on line 4, offset "
        f"{offset})"
    )
    assert res.outcome("DESC-04") == "passed"  # still read, with the bad byte replaced


def test_binary_description_warns_and_skips_the_content_rules(omfc):
    res = image(omfc, "OpenMFC2020", description=b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR").run()
    assert (
        res.warning("DESC-02").splitlines()[0]
        == "DESC-02: the system description p-test_1/p-test_1.txt is not text (showing 1)"
    )
    assert res.outcome("DESC-04") == "skipped"
    assert (
        res.text("DESC-04")
        == "DESC-04 skipped: the system description p-test_1/p-test_1.txt is not text (DESC-02 reports it)"
    )


# ----------------------------------------------------------------------------- DESC-03


@pytest.mark.parametrize(
    "edition, statuses, pixel, optout, why",
    [
        ("NC2017", ("N", "Y"), "", "none", "1 row with IsOptOut Y"),
        ("MFC2019", ("Processed", "OptOutLocalization"), "", "N/A", "1 row with ProbeStatus OptOutLocalization"),
        ("MFC2019", ("Processed", "Processed"), "255", "None", "2 rows with ProbeOptOutPixelValue set"),
    ],
)
def test_unexplained_opt_out_warns_desc03(omfc, edition, statuses, pixel, optout, why):
    sub_id = NC17_ID if edition == "NC2017" else "p-test_1"
    res = image(
        omfc,
        edition,
        statuses,
        pixel=pixel,
        sub_id=sub_id,
        description=NC17_MFC19_DESC.format(sub_id=sub_id, optout=optout),
    ).run()
    assert res.outcome("DESC-03") == "passed"
    warning = res.warning("DESC-03").splitlines()
    n = 2 if pixel else 1
    assert warning[0] == (
        f"DESC-03: {n} of 2 trials {'is' if n == 1 else 'are'} opted out or not processed, "
        "but the description does not say how (showing 1)"
    )
    assert (
        f"(got an OptOut Criteria section that says {optout!r}); the system output has {why}, e.g. line " in warning[1]
    )


def test_openmfc_explains_non_processing_in_section_2(omfc):
    """D-12: OpenMFC has no OptOut section; the explanation belongs in Section 2, not elsewhere."""
    text = OPENMFC_DESC.format(sub_id="p-test_1", section2="") + "6. Notes: undecodable probes are NonProcessed.\n"
    res = image(omfc, "OpenMFC2020", ("Processed", "NonProcessed"), description=text).run()
    warning = res.warning("DESC-03").splitlines()
    assert (
        warning[0]
        == "DESC-03: 1 of 2 trials is opted out or not processed, but the description does not say how (showing 1)"
    )
    assert warning[1] == (
        "  p-test_1/p-test_1.txt: Section 2 (System Description) should say how the trials not processed "
        "were chosen (D-12); the system output has 1 row with ProbeStatus NonProcessed, e.g. line 3 [T1]"
    )


def test_failed_validation_needs_no_explanation(omfc):
    res = image(
        omfc, "MFC2019", ("FailedValidation",), description=NC17_MFC19_DESC.format(sub_id="p-test_1", optout="none")
    ).run()
    assert res.outcome("DESC-03") == "passed"
    assert res.warning("DESC-03") is None


# ----------------------------------------------------------------------------- DESC-04


@pytest.mark.parametrize(
    "edition, sub_id, listed, got",
    [
        ("MFC2019", "p-test_1", "p-test_12", "no mention of it; Section 1 lists 'p-test_12'"),
        ("NC2017", NC17_ID, NC17_ID.lower(), f"it only with a different case, {NC17_ID.lower()!r}"),
    ],
)
def test_unlisted_id_warns_desc04(omfc, edition, sub_id, listed, got):
    term = "EXPID" if edition == "NC2017" else "SubID"
    res = image(
        omfc,
        edition,
        ("N",) if edition == "NC2017" else ("Processed",),
        sub_id=sub_id,
        description=NC17_MFC19_DESC.format(sub_id=listed, optout="none"),
    ).run()
    assert res.outcome("DESC-04") == "passed"
    warning = res.warning("DESC-04").splitlines()
    assert warning[0] == f"DESC-04: the description does not list the {term} {sub_id} (showing 1)"
    assert warning[1] == f"  {sub_id}/{sub_id}.txt: the description should list the {term} {sub_id} (got {got})"


# ---------------------------------------------------------------------------- DESC-04's word search


def _regex_whole_word(text: str, word: str, ignore_case: bool) -> str | None:
    """DESC-04's definition written as the pattern it stands for."""
    import re

    flags = re.I if ignore_case else 0
    m = re.compile(rf"(?<![A-Za-z0-9_-]){re.escape(word)}(?![A-Za-z0-9_-])", flags).search(text)
    return m.group(0) if m else None


_ID_CHARS = "aAbB_-1.é"


@given(
    text=st.text(alphabet=_ID_CHARS + " \nİſK", max_size=30),
    word=st.text(alphabet=_ID_CHARS, min_size=1, max_size=4),
    ignore_case=st.booleans(),
)
def test_whole_word_is_the_pattern(text: str, word: str, ignore_case: bool) -> None:
    """hypothesis: the search DESC-04 makes without compiling a pattern per ID finds what the pattern finds,
    with and without case (ASCII text, and text that is not: dotted capital I, long s, Kelvin sign)."""
    from pytest_omfc.rules.desc import _whole_word

    assert _whole_word(text, word, ignore_case) == _regex_whole_word(text, word, ignore_case)


@pytest.mark.parametrize(
    ("text", "word", "ignore_case", "found"),
    [
        ("id p-x_1 here", "p-x_1", False, "p-x_1"),
        ("id p-x_10 here", "p-x_1", False, None),  # a longer ID is another ID
        ("id xp-x_1", "p-x_1", False, None),
        ("P-X_1.", "p-x_1", True, "P-X_1"),
        ("P-X_1.", "p-x_1", False, None),
    ],
)
def test_whole_word_cases(text: str, word: str, ignore_case: bool, found: str | None) -> None:
    from pytest_omfc.rules.desc import _whole_word

    assert _whole_word(text, word, ignore_case) == found
