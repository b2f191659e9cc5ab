"""score_masks end to end on tiny hand-computed datasets (docs/scoring/masks.md), and hostile inputs.

Masks are 4x4 with ``eks = dks = 0`` (no boundary zone) so that every count is worked out by hand:
the reference has 4 black (GT) pixels out of 16.  A "perfect" system mask is the reference itself
(thresholds {-1, 0, 255}: at t = 0 TP = 4, FP = 0, MCC 1); a missing system mask is white
(t* = -1, TP = FP = 0, FN = 4: MCC 0, NMM -1, BWL1 = GWL1 = 4/16).

Hostile inputs (a wrong-size, non-PNG, truncated or bomb mask, a missing reference, a bit plane the
file does not hold) must give that trial a reason and leave the others scored; the bomb runs in a
subprocess under RLIMIT_AS and a timeout so that a regression fails fast instead of eating memory.
"""

from __future__ import annotations

import io
import math
import struct
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from helpers.mask_files import NOKERN, REF, Data, png, png_header_only, write_table
from helpers.paths import REPO
from PIL import Image

from pytest_omfc.scoring.mask.run import score_masks
from pytest_omfc.scoring.merge import ScoringError


def row(report: Any, pid: str, run: int = 0) -> dict[str, Any]:
    df = report.runs[run].perimage
    return df[df["ProbeFileID"] == pid].iloc[0].to_dict()


# --- 2.1 / 2.2 / 2.8: missing system rows and FailedValidation -----------------------------------


def test_target_without_system_row_is_scored_as_a_white_mask(tmp_path: Path) -> None:
    d = Data(tmp_path)
    d.trial("good")
    d.trial("absent", sys_row=False)
    rep = d.score()
    r = row(rep, "absent")
    assert (r["Scored"], r["OptimumThreshold"], r["OptimumMCC"], r["OptimumNMM"]) == ("Y", -1, 0.0, -1.0)
    assert (r["OptimumBWL1"], r["GWL1"], r["AUC"], r["EER"]) == (0.25, 0.25, 0.5, 0.5)
    assert (r["OptimumPixelTP"], r["OptimumPixelFN"], r["PixelN"]) == (0, 4, 16)
    assert row(rep, "good")["OptimumMCC"] == 1.0
    agg = rep.results[0].aggregate
    assert agg["OptimumMCC"] == 0.5 and agg["ScoreableTrials"] == 2 and agg["totalTrials"] == 2


def test_plan_convention_scores_a_missing_mask_mcc_minus_one(tmp_path: Path) -> None:
    """MASK-01 / OpenMFC 6.3: "a mask score of -1"; MediScore gives 0 (docs/scoring/conventions.md)."""
    d = Data(tmp_path)
    d.trial("absent", system=None)
    assert row(d.score(convention="plan"), "absent")["OptimumMCC"] == -1.0


def test_failed_validation_is_a_white_mask_and_blanks_the_name(tmp_path: Path) -> None:
    d = Data(tmp_path)
    d.trial("fv", ProbeStatus="FailedValidation")  # a perfect mask, ignored
    d.trial("ok", ProbeStatus="Processed")
    rep = d.score()
    r = row(rep, "fv")
    assert (r["OptimumMCC"], r["OptimumThreshold"], r["OutputProbeMaskFileName"]) == (0.0, -1, "")
    assert row(rep, "ok")["OptimumMCC"] == 1.0
    # FailedValidation is not an opt-out: TRR counts it in (2.1 step 2)
    assert rep.results[0].aggregate["TRR"] == 1.0


# --- 2.1 opt-out bookkeeping ----------------------------------------------------------------------


def test_optout_bookkeeping_and_removal(tmp_path: Path) -> None:
    d = Data(tmp_path)
    d.trial("a", IsOptOut="N")
    d.trial("b", IsOptOut="Y")  # opted out
    d.trial("c", IsOptOut="Localization", system=None)  # opted out
    d.trial("n", ref=None, target="N", IsOptOut="N")  # non-target: counted in totalTrials, never scored
    for optout in (False, True):
        rep = d.score(optout=optout)
        agg = rep.results[0].aggregate
        assert (agg["totalTrials"], agg["totalOptIn"], agg["totalOptOut"], agg["TRR"]) == (4, 2, 2, 0.5)
        assert agg["optOutScoring"] == ("Y" if optout else "N")
        ids = list(rep.runs[0].perimage["ProbeFileID"])
        assert ids == (["a"] if optout else ["a", "b", "c"])
        assert agg["ScoreableTrials"] == len(ids)
        assert agg["OptimumMCC"] == (1.0 if optout else pytest.approx(2 / 3))


# --- 2.9 queries and statistics --------------------------------------------------------------------


def test_q_filters_per_image_results_and_stddev_rules(tmp_path: Path) -> None:
    d = Data(tmp_path)
    d.trial("hi", score=0.8)  # MCC 1, t* 0
    d.trial("lo", score=0.2, system=None)  # MCC 0, t* -1
    full = d.score().results[0]
    # means over both; OptimumThreshold mean -0.5 is truncated by int() to 0 (floor would give -1)
    assert full.aggregate["OptimumThreshold"] == 0
    assert full.aggregate["OptimumMCC"] == 0.5
    assert full.stddev["OptimumMCC"] == pytest.approx(math.sqrt(0.5))  # ddof = 1 of [1, 0]
    assert full.stddev["OptimumThreshold"] == pytest.approx(math.sqrt(0.5))
    hi, lo = d.score(query=["ConfidenceScore > 0.5", "ConfidenceScore < 0.5"]).results
    assert (hi.query, hi.n_rows, hi.aggregate["OptimumMCC"], hi.stddev["OptimumMCC"]) == (
        "ConfidenceScore > 0.5",
        1,
        1.0,
        None,
    )  # one value: no stddev
    assert lo.aggregate["OptimumMCC"] == 0.0 and lo.aggregate["OptimumThreshold"] == -1
    # PixelAverageAUC is not per query (docs/scoring/conventions.md)
    assert hi.aggregate["PixelAverageAUC"] == lo.aggregate["PixelAverageAUC"] == full.aggregate["PixelAverageAUC"]


def test_query_naming_an_unknown_column_is_a_scoring_error(tmp_path: Path) -> None:
    d = Data(tmp_path)
    d.trial("a")
    with pytest.raises(ScoringError, match=r"unknown column\(s\) \['Nope'\]"):
        d.score(query="Nope == 'x'")


def test_qm_on_a_journal_lacking_the_column_is_a_scoring_error(tmp_path: Path) -> None:
    d = Data(tmp_path)
    d.trial("a")
    d.ref[0]["JournalName"] = "j"
    write_table(
        tmp_path / "ref-probejournaljoin.csv",
        [{"ProbeFileID": "a", "JournalName": "j", "StartNodeID": "s", "EndNodeID": "e"}],
    )
    write_table(
        tmp_path / "ref-journalmask.csv", [{"JournalName": "j", "StartNodeID": "s", "EndNodeID": "e", "Color": "0 0 0"}]
    )
    with pytest.raises(ScoringError, match=r"Purpose"):
        d.score(query_manipulation="Purpose == ['add']")
    # the journal selects colour 0 0 0: scored as usual
    assert d.score().runs[0].journal["Evaluated"].tolist() == ["Y"]


# --- 2.10 splice --------------------------------------------------------------------------------------


def test_splice_probe_and_donor_are_averaged_per_side(tmp_path: Path) -> None:
    (tmp_path / "ref").mkdir()
    (tmp_path / "sys" / "mask").mkdir(parents=True)
    ref_rows, sys_rows, idx_rows = [], [], []
    for pid, donor_ref in (("p1", REF), ("p2", None)):  # p2's donor has no reference: not scored
        png(tmp_path / "ref" / f"{pid}.png", REF)
        dref = "ref/" + png(tmp_path / "ref" / f"{pid}-d.png", donor_ref) if donor_ref is not None else ""
        ref_rows.append(
            {
                "TaskID": "splice",
                "ProbeFileID": pid,
                "DonorFileID": f"d{pid}",
                "IsTarget": "Y",
                "BinaryProbeMaskFileName": f"ref/{pid}.png",
                "DonorMaskFileName": dref,
            }
        )
        idx_rows.append({"ProbeFileID": pid, "DonorFileID": f"d{pid}"})
    png(tmp_path / "sys" / "mask" / "perfect.png", REF)
    sys_rows = [  # p1: perfect probe, white donor; p2: white probe
        {
            "ProbeFileID": "p1",
            "DonorFileID": "dp1",
            "ConfidenceScore": 1,
            "OutputProbeMaskFileName": "mask/perfect.png",
            "OutputDonorMaskFileName": "",
        },
        {
            "ProbeFileID": "p2",
            "DonorFileID": "dp2",
            "ConfidenceScore": 1,
            "OutputProbeMaskFileName": "",
            "OutputDonorMaskFileName": "mask/perfect.png",
        },
    ]
    rep = score_masks(
        write_table(tmp_path / "i.csv", idx_rows),
        write_table(tmp_path / "r.csv", ref_rows),
        write_table(tmp_path / "sys" / "s.csv", sys_rows),
        task="splice",
        ref_dir=tmp_path,
        **NOKERN,
    )
    agg = rep.results[0].aggregate
    assert agg["pOptimumMCC"] == 0.5  # mean of 1 and 0
    assert agg["dOptimumMCC"] == 0.0  # p1's white donor only; p2's donor side is not scored
    assert (agg["ScoreableProbeTrials"], agg["ScoreableDonorTrials"]) == (2, 1)
    r = row(rep, "p2")
    assert (r["ProbeScored"], r["DonorScored"]) == ("Y", "N") and pd.isna(r["dOptimumMCC"])
    assert r["DonorNotScoredReason"].startswith("no reference mask")


# --- hostile masks: a reason per trial, never a traceback -------------------------------------------


@pytest.mark.parametrize(
    ("system", "reason"),
    [
        (np.zeros((5, 4), dtype=np.uint8), "bad.png: size 5x4 (HxW) differs from the reference's 4x4"),
        (b"\xff\xd8\xff\xe0 a JPEG, not a PNG", "bad.png: must be a PNG file (got JPEG data)"),
        (b"", "bad.png: must be a PNG file (got an empty file)"),
        (
            png_header_only(4, 4)[:40],
            "bad.png: must be a complete PNG file (got 40 bytes, truncated before the image data)",
        ),
        (
            "cut-idat",
            "bad.png: must be a complete PNG file (got 55 bytes with no IEND chunk: truncated)",
        ),  # header fine, file cut inside the pixel data
    ],
    ids=["wrong-size", "jpeg-bytes", "empty-file", "truncated-header", "truncated-data"],
)
def test_a_bad_system_mask_gives_that_trial_a_reason(tmp_path: Path, system: Any, reason: str) -> None:
    if isinstance(system, str):  # a valid PNG of random pixels, cut in the middle of its IDAT chunk
        buf = io.BytesIO()
        Image.fromarray(np.random.default_rng(0).integers(0, 256, (4, 4), dtype=np.uint8)).save(buf, "PNG")
        data = buf.getvalue()
        start = data.index(b"IDAT") + 4
        system = data[: start + struct.unpack(">I", data[start - 8 : start - 4])[0] // 2]
    d = Data(tmp_path)
    d.trial("good")
    d.trial("bad", system=system)
    rep = d.score()
    r = row(rep, "bad")
    assert r["Scored"] == "N" and pd.isna(r["OptimumMCC"])
    assert r["NotScoredReason"].startswith(reason)
    assert rep.runs[0].not_scored[0][0] == "bad" and rep.runs[0].not_scored[0][1].startswith(reason)
    assert row(rep, "good")["OptimumMCC"] == 1.0
    assert rep.results[0].aggregate["OptimumMCC"] == 1.0 and rep.results[0].aggregate["ScoreableTrials"] == 1


def test_a_missing_reference_mask_and_an_escaping_path_give_reasons(tmp_path: Path) -> None:
    d = Data(tmp_path)
    d.trial("gone")
    d.trial("escape")
    (tmp_path / "ref" / "gone.png").unlink()
    d.sys[1]["OutputProbeMaskFileName"] = "../../etc/passwd"
    rep = d.score()
    assert row(rep, "gone")["NotScoredReason"].startswith("reference mask gone.png: file not found (")
    assert row(rep, "escape")["NotScoredReason"].startswith("system mask '../../etc/passwd' must stay inside")


def test_a_bit_plane_above_what_the_file_holds_gives_a_reason(tmp_path: Path) -> None:
    d = Data(tmp_path)
    planes = np.zeros((4, 4), dtype=np.uint8)
    planes[:2, :2] = 1  # bit plane 1
    d.trial("bp", ref=planes)
    d.trial("ok", ref=planes)
    for r in d.ref:
        r["ProbeBitPlaneMaskFileName"] = r.pop("ProbeMaskFileName")
        r["JournalName"] = "j"
    write_table(
        tmp_path / "ref-probejournaljoin.csv",
        [
            {"ProbeFileID": "bp", "JournalName": "j", "StartNodeID": "s", "EndNodeID": "e", "Sequence": 1},
            {"ProbeFileID": "ok", "JournalName": "j", "StartNodeID": "s", "EndNodeID": "e1", "Sequence": 1},
        ],
    )
    write_table(
        tmp_path / "ref-journalmask.csv",
        [
            {"JournalName": "j", "StartNodeID": "s", "EndNodeID": "e", "BitPlane": 12},
            {"JournalName": "j", "StartNodeID": "s", "EndNodeID": "e1", "BitPlane": 1},
        ],
    )
    rep = d.score()
    assert row(rep, "bp")["NotScoredReason"] == "BitPlane 12 is above the 8 bit planes bp.png holds"
    assert row(rep, "ok")["OptimumMCC"] == 1.0


def test_a_process_pool_gives_the_same_results_in_input_order(tmp_path: Path) -> None:
    d = Data(tmp_path)
    for k in range(5):
        sysmask = REF.copy()
        sysmask[3, :k] = 0  # k false positives
        d.trial(f"t{k}", system=sysmask)
    d.trial("bad", system=b"not a png")
    one, two = d.score(jobs=1).runs[0].perimage, d.score(jobs=2).runs[0].perimage
    assert one.equals(two)
    assert list(two["ProbeFileID"]) == ["t0", "t1", "t2", "t3", "t4", "bad"]


def test_bad_options_are_scoring_errors(tmp_path: Path) -> None:
    d = Data(tmp_path)
    d.trial("a")
    with pytest.raises(ScoringError, match="kernel size must be 0 or a positive odd integer"):
        d.score(eks=4)
    with pytest.raises(ScoringError, match=r"sbin must be in \[-1, 255\]"):
        d.score(sbin=300)
    with pytest.raises(ScoringError, match="unknown mask scoring option"):
        d.score(colour="red")


BOMB = """
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (1_000_000_000, 1_000_000_000))
sys.path.insert(0, {root!r} + "/tests")
from pathlib import Path
from helpers.mask_files import Data, png_header_only
d = Data(Path({tmp!r}))
d.trial("good")
d.trial("bomb", system=png_header_only({w}, {h}))
rep = d.score()
df = rep.runs[0].perimage
print(df.loc[df.ProbeFileID == "bomb", "NotScoredReason"].iloc[0])
print(df.loc[df.ProbeFileID == "good", "OptimumMCC"].iloc[0])
"""


@pytest.mark.parametrize(
    ("w", "h", "reason"),
    [
        (60000, 60000, "bomb.png: declared size 60000x60000 (HxW) exceeds 160000000 pixels"),  # 3.6 G pixels
        (
            10000,
            10000,
            "bomb.png: size 10000x10000 (HxW) differs from the reference's 4x4",
        ),  # 100 M: refused on the header
    ],
)
def test_a_decompression_bomb_is_refused_from_its_header(tmp_path: Path, w: int, h: int, reason: str) -> None:
    root = str(REPO)
    code = textwrap.dedent(BOMB.format(root=root, tmp=str(tmp_path), w=w, h=h))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=root, check=False
    )
    assert out.returncode == 0, out.stderr[-2000:]
    lines = out.stdout.splitlines()
    assert lines[0].startswith(reason) and lines[1] == "1.0"


def test_a_two_component_jpeg2000_reference_carries_bit_planes_9_to_16(tmp_path: Path) -> None:
    """docs/scoring/masks.md#ground-truth: BitPlane b is bit (b-1) % 8 of layer (b-1) // 8; a 2-component JP2 holds 16
    planes."""
    d = Data(tmp_path)
    layers = np.zeros((4, 4, 2), dtype=np.uint8)
    layers[:2, :2, 1] = 1  # bit plane 9 = layer 1, bit 0: the GT
    layers[3, 3, 0] = 4  # bit plane 3, listed but not evaluated: a distraction
    Image.fromarray(layers, "LA").save(tmp_path / "ref" / "planes.jp2")
    d.trial("nine", ref=None)
    d.trial("seventeen", ref=None)
    for r in d.ref:
        r.pop("ProbeMaskFileName")
        r["ProbeBitPlaneMaskFileName"] = "ref/planes.jp2"
        r["JournalName"] = "j"
    write_table(
        tmp_path / "ref-probejournaljoin.csv",
        [
            {"ProbeFileID": "nine", "JournalName": "j", "StartNodeID": "a", "EndNodeID": "b", "Sequence": 1},
            {"ProbeFileID": "nine", "JournalName": "j", "StartNodeID": "b", "EndNodeID": "c", "Sequence": 2},
            {"ProbeFileID": "seventeen", "JournalName": "j", "StartNodeID": "c", "EndNodeID": "d", "Sequence": 1},
        ],
    )
    write_table(
        tmp_path / "ref-journalmask.csv",
        [
            {"JournalName": "j", "StartNodeID": "a", "EndNodeID": "b", "BitPlane": 9, "Operation": "Paste"},
            {"JournalName": "j", "StartNodeID": "b", "EndNodeID": "c", "BitPlane": 3, "Operation": "Blur"},
            {"JournalName": "j", "StartNodeID": "c", "EndNodeID": "d", "BitPlane": 17, "Operation": "Paste"},
        ],
    )
    rep = d.score(query_manipulation="Operation == ['Paste']")
    r = row(rep, "nine")
    assert (r["OptimumMCC"], r["PixelSNS"], r["PixelN"]) == (1.0, 1, 15)  # bit plane 3's pixel is no-score
    assert row(rep, "seventeen")["NotScoredReason"] == "BitPlane 17 is above the 16 bit planes planes.jp2 holds"
    # Paste rows are selected by -qm, but a trial that could not be scored has its rows set back to 'N'
    assert rep.runs[0].journal.set_index("EndNodeID")["Evaluated"].to_dict() == {"b": "Y", "c": "N", "d": "N"}


def test_a_hostile_mask_name_gives_a_one_line_bounded_reason(tmp_path: Path) -> None:
    """A 5000-character name with U+2028 (a line separator) must not flood or split the reason."""
    d = Data(tmp_path)
    d.trial("a")
    d.sys[0]["OutputProbeMaskFileName"] = "mask/" + "x\u2028" * 2500 + ".png"
    reason = row(d.score(), "a")["NotScoredReason"]
    assert reason.isprintable() and len(reason) <= 300
    assert reason.startswith("x\\u2028x\\u2028") and "file not found" not in reason[:10]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: [r.pop("OutputProbeMaskFileName") for r in d.sys],
            r"system output lacks column\(s\) \['OutputProbeMaskFileName'\]",
        ),
        (lambda d: d.sys.append(dict(d.sys[0])), r"system output lists 2 rows for repeated trials, e.g. \['a'\]"),
        (lambda d: [r.pop("IsTarget") for r in d.ref], r"reference lacks column\(s\) \['IsTarget'\]"),
    ],
    ids=["no-mask-column", "duplicate-rows", "no-IsTarget"],
)
def test_unusable_tables_are_scoring_errors_naming_the_cause(tmp_path: Path, change: Any, message: str) -> None:
    d = Data(tmp_path)
    d.trial("a")
    change(d)
    with pytest.raises(ScoringError, match=message):
        d.score()


def test_a_binary_system_file_is_a_scoring_error(tmp_path: Path) -> None:
    d = Data(tmp_path)
    d.trial("a")
    d.score()  # writes the tables
    (tmp_path / "sys" / "sys.csv").write_bytes(b"\x00\xff" * 1000)
    with pytest.raises(ScoringError):
        score_masks(tmp_path / "index.csv", tmp_path / "ref.csv", tmp_path / "sys" / "sys.csv", ref_dir=tmp_path)


def test_sbin_minus_ten_is_off(tmp_path: Path) -> None:
    d = Data(tmp_path)
    d.trial("a")
    agg = d.score(sbin=-10).results[0].aggregate
    assert agg["ActualMCC"] is None and agg["MaximumThreshold"] is None
    assert d.score(sbin=0).results[0].aggregate["ActualMCC"] == 1.0


def test_a_one_component_16_bit_reference_is_read_whole_and_its_high_planes_noted(tmp_path: Path) -> None:
    """docs/scoring/masks.md#ground-truth: a one-component 16-bit JPEG 2000 reference holds bit planes 1-16;
    all are read (MediScore reads such a file as 8 bits and finds planes 9-16 empty).  A trial that scores a plane
    above 8 is listed for a note; one that scores planes 1-8 only is not."""
    from pytest_omfc.scoring.mask.adapter import _high_plane_notes

    d = Data(tmp_path)
    plane = np.zeros((4, 4), dtype=np.uint16)
    plane[:2, :2] = 1 << 8  # bit plane 9: the GT of "nine"
    plane[3, 3] = 1 << 2  # bit plane 3: the GT of "three"
    Image.fromarray(plane).save(tmp_path / "ref" / "planes.jp2")  # mode I;16: one 16-bit component
    d.trial("nine", ref=None)
    d.trial("three", ref=None)
    for r in d.ref:
        r.pop("ProbeMaskFileName")
        r["ProbeBitPlaneMaskFileName"] = "ref/planes.jp2"
        r["JournalName"] = "j" + r["ProbeFileID"]
    plane_of = {"nine": 9, "three": 3}  # one journal per probe, of one operation on that bit plane
    edge = {"StartNodeID": "a", "EndNodeID": "b"}
    write_table(
        tmp_path / "ref-probejournaljoin.csv",
        [{"ProbeFileID": p, "JournalName": f"j{p}", **edge, "Sequence": 1} for p in plane_of],
    )
    write_table(
        tmp_path / "ref-journalmask.csv",
        [{"JournalName": f"j{p}", **edge, "BitPlane": b, "Operation": "Paste"} for p, b in plane_of.items()],
    )
    rep = d.score()
    assert row(rep, "nine")["Scored"] == "Y" and row(rep, "nine")["OptimumMCC"] == 1.0
    assert rep.runs[0].high_planes == (("nine", (9,)),)
    [note] = _high_plane_notes(rep.runs[0].high_planes)
    assert note.startswith("1 trial(s) score bit planes above 8 of a one-component 16-bit JPEG 2000 reference")
    assert "nine (planes 9)" in note and "(docs/scoring/masks.md#ground-truth)" in note
