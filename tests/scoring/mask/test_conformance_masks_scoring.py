"""End-to-end mask scoring vs MediScore's checkfiles (docs/scoring/masks.md#checked-against-mediscore): every file of
``maskScorerTests/compcheckfiles`` is one test.

Each case is run once through :func:`score_masks` with the options of its MaskScorer command line
(docs/scoring/masks.md#checked-against-mediscore).  Aggregates (``ref_maskreport_<name>.csv``, or ``_<k>`` per ``-q``
query) are
compared column by column, stddev columns included; per-image files row by row on every column
they share with ours except the plot file names (ColMaskFileName/AggMaskFileName); journal results
as multisets of rows.  Numbers to 1e-9 relative (MediScore prints 12 significant digits).

Files written by older MediScore versions (comma-separated, other column names and other numbers)
are skipped with that reason; cases whose system masks are missing from the data skip naming them.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import pandas as pd
import pytest
from helpers.paths import REPO

from pytest_omfc.scoring.mask.run import MaskReport, score_masks

TS = REPO.parent / "shared" / "conformance" / "mediscore" / "test_suite" / "maskScorerTests"
CHECK = TS / "compcheckfiles"

M16 = (
    "indexes/NC2016-manipulation-index.csv",
    "reference/manipulation/NC2016-manipulation-ref.csv",
    "B_NC2016_Unittest_Manipulation_ImgOnly_c-me2_1",
)
M17 = (
    "indexes/NC2017-manipulation-index.csv",
    "reference/manipulation/NC2017-manipulation-ref.csv",
    "B_NC2017_Unittest_Manipulation_ImgOnly_c-me2_1",
)
S17 = (
    "indexes/NC2017-splice-index.csv",
    "reference/splice/NC2017-splice-ref.csv",
    "B_NC2017_Unittest_Splice_ImgOnly_p-me_1",
)
S16 = (
    "indexes/NC2016-splice-index.csv",
    "reference/splice/NC2016-splice-ref.csv",
    "B_NC2016_Unittest_Splice_ImgOnly_p-me_1",
)
MFC18 = (
    "indexes/MFC18-manipulation-image-index.csv",
    "reference/manipulation-image/MFC18-manipulation-image-ref.csv",
    "B_MFC18_Unittest_Manipulation_ImgOnly_p-me_1",
)
QM6 = (
    "Purpose==['clone']",
    "Purpose==['add']",
    "Purpose==['heal']",
    "Purpose==['clone','add']",
    "Purpose==['display']",
    "Purpose==['remove']",
)


@dataclass(frozen=True)
class Case:
    """One MaskScorer command line of docs/scoring/masks.md#checked-against-mediscore as score_masks arguments."""

    inputs: tuple[str, str, str]
    task: str = "manipulation"
    sysdir: str | None = None  # another system folder (failvalid, C_ splice)
    kwargs: tuple[tuple[str, Any], ...] = ()

    def run(self) -> MaskReport:
        index, ref, sysdir = self.inputs
        sysdir = self.sysdir or sysdir
        kw = dict(self.kwargs)
        return score_masks(
            TS / index,
            TS / ref,
            TS / sysdir / f"{sysdir}.csv",
            task=self.task,  # type: ignore[arg-type]
            ref_dir=TS,
            sys_dir=TS / sysdir,
            **kw,
        )


CASES: dict[str, Case] = {
    "manip": Case(M16),
    "thres": Case(M17, kwargs=(("sbin", 128),)),
    "manip_optOut": Case(M17, kwargs=(("optout", True),)),
    "manipfailvalid": Case(M17, sysdir="p-failvalid_1_manip"),
    "all": Case(M17, kwargs=(("nspx", 200),)),
    "qm6": Case(M17, kwargs=(("query_manipulation", QM6),)),
    "target_optOut": Case(M17, kwargs=(("query_manipulation", "Purpose==['clone','add']"), ("optout", True))),
    "manipconf": Case(M17, kwargs=(("query", "0.5 < ConfidenceScore"),)),
    "manipconfpart": Case(M17, kwargs=(("query_partition", "0.5 < ConfidenceScore"),)),
    "manipconfclonepart": Case(M17, kwargs=(("query_partition", "ConfidenceScore > 0.3 & Clone==['yes','no']"),)),
    "manipconfmanmade": Case(M17, kwargs=(("query", ("ConfidenceScore < 0.5", "ManMade=='no'")), ("optout", True))),
    "manipconfmanmade_optout": Case(
        M17, kwargs=(("query", ("(ConfidenceScore < 0.5) & (IsOptOut!='Y')", "(ManMade=='no') & (IsOptOut!='Y')")),)
    ),
    "plainM17": Case(M17),  # manipfooconf*: per-image rows do not depend on -q
    "splice": Case(S17, task="splice"),
    "splice_optOut": Case(S17, task="splice", kwargs=(("optout", True),)),
    "splicefailvalid": Case(S17, task="splice", sysdir="p-failvalid_2_splice"),
    "splice_query": Case(S17, task="splice", kwargs=(("query_manipulation", "Operation==['PasteSplice']"),)),
    "splicebin": Case(
        S17,
        task="splice",
        sysdir="C_NC2017_Unittest_Splice_ImgOnly_p-me_1",
        kwargs=(("sbin", 200), ("index_filter", True), ("jpeg2000", "yes")),
    ),
    "spliceconf": Case(S16, task="splice", kwargs=(("query", "0.5 < ConfidenceScore"),)),
    "spliceconfpart": Case(S16, task="splice", kwargs=(("query_partition", "ConfidenceScore > 0.5"),)),
    "spliceconfcoll": Case(
        S16, task="splice", kwargs=(("query", ("0.3 <= ConfidenceScore", "Collection==['Nimble-WEB']")),)
    ),
    "spliceconfcollpart": Case(
        S16,
        task="splice",
        kwargs=(("query_partition", "ConfidenceScore > 0.3 & Collection==['Nimble-WEB','Nimble-SCI']"),),
    ),
    "plainS16": Case(S16, task="splice"),
    "bittest_1": Case(MFC18, kwargs=(("jpeg2000", "yes"),)),
    "bittest_oo": Case(MFC18, kwargs=(("jpeg2000", "yes"), ("optout", True))),
    "bittest_partial": Case(MFC18, kwargs=(("jpeg2000", "yes"), ("query_manipulation", "Operation==['PasteSampled']"))),
    "bittest_partial_oo": Case(
        MFC18, kwargs=(("jpeg2000", "yes"), ("query_manipulation", "Operation==['PasteSampled']"), ("optout", True))
    ),
    "bittest_pixns": Case(MFC18, kwargs=(("jpeg2000", "yes"), ("pppns", True))),
}


@dataclass(frozen=True)
class Target:
    """Which of our outputs a checkfile holds: (case, run index, result index, kind)."""

    case: str
    kind: str  # "agg", "perimage", "journal"
    run: int = 0
    result: int = 0
    rename: tuple[tuple[str, str], ...] = field(default=())  # their column -> ours


def _targets() -> dict[str, Target]:
    t: dict[str, Target] = {}

    def trio(name: str, case: str, run: int = 0, agg: bool = True) -> None:
        t[f"ref_maskreport_{name}-perimage.csv"] = Target(case, "perimage", run)
        t[f"ref_maskreport_{name}-journalResults.csv"] = Target(case, "journal", run)
        if agg:
            t[f"ref_maskreport_{name}.csv"] = Target(case, "agg", run)

    for name in (
        "manip",
        "thres",
        "manip_optOut",
        "manipfailvalid",
        "all",
        "target_optOut",
        "splice",
        "splice_optOut",
        "splicefailvalid",
        "splice_query",
        "splicebin",
        "bittest_1",
        "bittest_oo",
        "bittest_partial",
        "bittest_partial_oo",
        "bittest_pixns",
    ):
        trio(name, name)
    for k, name in enumerate(("clone", "add", "heal", "clone_add", "display", "remove")):
        trio(name, "qm6", k, agg=name not in ("heal", "display"))
    trio("manipconf", "manipconf", agg=False)
    t["ref_maskreport_manipconf_0.csv"] = Target("manipconf", "agg")
    trio("manipconfpart", "manipconfpart")
    trio("manipconfclonepart", "manipconfclonepart")
    trio("manipconfmanmade", "manipconfmanmade", agg=False)
    t["ref_maskreport_manipconfmanmade_0.csv"] = Target("manipconfmanmade", "agg", 0, 0)
    t["ref_maskreport_manipconfmanmade_1.csv"] = Target("manipconfmanmade", "agg", 0, 1)
    legacy = (("NMM", "OptimumNMM"), ("MCC", "OptimumMCC"), ("BWL1", "OptimumBWL1"))
    t["ref_maskreport_manipconfmanmade_optout_0.csv"] = Target("manipconfmanmade_optout", "agg", 0, 0, legacy)
    t["ref_maskreport_manipconfmanmade_optout_1.csv"] = Target("manipconfmanmade_optout", "agg", 0, 1, legacy)
    for name in ("manipfooconf", "manipfooconfpart"):
        trio(name, "plainM17", agg=False)
    t["ref_maskreport_spliceconf-perimage.csv"] = Target("spliceconf", "perimage")
    t["ref_maskreport_spliceconf_0.csv"] = Target("spliceconf", "agg")
    t["ref_maskreport_spliceconfpart-perimage.csv"] = Target("spliceconfpart", "perimage")
    t["ref_maskreport_spliceconfpart.csv"] = Target("spliceconfpart", "agg")
    t["ref_maskreport_spliceconfcoll-perimage.csv"] = Target("spliceconfcoll", "perimage")
    t["ref_maskreport_spliceconfcoll_0.csv"] = Target("spliceconfcoll", "agg", 0, 0)
    t["ref_maskreport_spliceconfcoll_1.csv"] = Target("spliceconfcoll", "agg", 0, 1)
    t["ref_maskreport_spliceconfcollpart-perimage.csv"] = Target("spliceconfcollpart", "perimage")
    t["ref_maskreport_spliceconfcollpart.csv"] = Target("spliceconfcollpart", "agg")
    t["ref_maskreport_splicefooconf-perimage.csv"] = Target("plainS16", "perimage")
    t["ref_maskreport_splicefooconfpart-perimage.csv"] = Target("plainS16", "perimage")
    return t


TARGETS = _targets()

#: checkfiles of older MediScore versions: comma-separated, other columns (pMCC/WL1/runID...), other numbers
LEGACY = {
    "ref_maskreport_1.csv",
    "ref_maskreport_1-perimage.csv",
    "ref_maskreport_3.csv",
    "ref_maskreport_3-perimage.csv",
    "ref_maskreport_clone_add-mask_scores_perimage.csv",
    "ref_maskreport_manipfooconfpart.csv",
    "ref_maskreport_spliceconfcoll_qm-perimage.csv",
    "ref_maskreport_spliceconfcoll_qm_0.csv",
    "ref_maskreport_spliceconfcoll_qm_1.csv",
}

#: plot file names MediScore writes into the per-image table; not produced here
PLOT_COLUMNS = {
    "ColMaskFileName",
    "AggMaskFileName",
    "ProbeColMaskFileName",
    "ProbeAggMaskFileName",
    "DonorColMaskFileName",
    "DonorAggMaskFileName",
}


def _missing_masks(case: Case) -> list[str]:
    """System mask files named by the case's system CSV that the conformance data lacks (README gaps)."""
    sysdir = case.sysdir or case.inputs[2]
    df = pd.read_csv(TS / sysdir / f"{sysdir}.csv", sep="|", dtype=str, keep_default_na=False)
    cols = [c for c in ("OutputProbeMaskFileName", "OutputDonorMaskFileName") if c in df.columns]
    names = {v for c in cols for v in df[c] if v}
    return sorted(f"{sysdir}/{n}" for n in names if not (TS / sysdir / n).is_file())


@cache
def report(case: str) -> MaskReport:
    missing = _missing_masks(CASES[case])
    if missing:
        pytest.skip(f"conformance data lacks system mask(s) {missing} (README: known gap)")
    return CASES[case].run()


def _read(name: str) -> pd.DataFrame:
    return pd.read_csv(CHECK / name, sep="|", dtype=str, keep_default_na=False)


def _same(want: str, got: Any) -> bool:
    """MediScore's printed value vs ours: blank <-> None/NaN/'', numbers to 1e-9, else text."""
    blank = got is None or (isinstance(got, float) and math.isnan(got)) or got == ""
    if want == "":
        return blank
    if blank:
        return False
    try:
        w = float(want)
    except ValueError:
        return str(got) == want
    try:
        g = float(got)
    except (TypeError, ValueError):
        return False
    return math.isclose(w, g, rel_tol=1e-9, abs_tol=1e-12)


def compare_aggregate(name: str, target: Target) -> list[tuple[str, str, Any]]:
    want = _read(name)
    assert len(want) == 1, f"{name}: expected one aggregate row"
    run = report(target.case).runs[target.run]
    result = run.results[target.result]
    rename = dict(target.rename)
    skip = {"TaskID", "Query"}
    if result.kind == "qp":  # the partition's factor columns replace Query: skip up to the first metric
        cols = list(want.columns)
        first = next(i for i, c in enumerate(cols) if c in result.aggregate or c in rename)
        skip |= set(cols[:first])
    bad = []
    for col in want.columns:
        if col in skip:
            continue
        if col.startswith("stddev_"):
            got = result.stddev.get(col[len("stddev_") :], "<absent>")
        else:
            got = result.aggregate.get(rename.get(col, col), "<absent>")
        if not _same(want.at[0, col], got):
            bad.append((col, want.at[0, col], got))
    return bad


def compare_perimage(name: str, target: Target) -> list[tuple[str, str, str, Any]]:
    want = _read(name)
    ours = report(target.case).runs[target.run].perimage
    key = ["ProbeFileID", "DonorFileID"] if "DonorFileID" in want.columns else ["ProbeFileID"]
    bad: list[tuple[str, str, str, Any]] = []
    wk = want[key].astype(str).agg("/".join, axis=1).tolist() if len(want) else []
    ok = ours[key].astype(str).agg("/".join, axis=1).tolist() if len(ours) else []
    if sorted(wk) != sorted(ok):
        return [("<rows>", "", str(wk), ok)]
    ours = ours.set_index(pd.Index(ok))
    for trial, row in zip(wk, want.to_dict("records"), strict=True):
        for col, value in row.items():
            if col in PLOT_COLUMNS:
                continue
            got = ours.at[trial, col] if col in ours.columns else "<absent>"
            if not _same(value, got):
                bad.append((trial[:12], col, value, got))
    return bad


def compare_journal(name: str, target: Target) -> list[Any]:
    want = _read(name)
    journal = report(target.case).runs[target.run].journal
    if journal is None:
        return ["<no journal>"]
    absent = [c for c in want.columns if c not in journal.columns]
    if absent:
        return [("<absent columns>", absent)]
    theirs = Counter(tuple(r) for r in want.itertuples(index=False))
    ours = Counter(tuple(str(v) for v in r) for r in journal[list(want.columns)].itertuples(index=False))
    return [("missing", dict(theirs - ours)), ("extra", dict(ours - theirs))] if theirs != ours else []


def _files() -> list[str]:
    return sorted(p.name for p in CHECK.glob("*.csv")) if CHECK.is_dir() else []


@pytest.mark.parametrize(
    "name", _files() or [pytest.param("-", marks=pytest.mark.skip(reason=f"no conformance data at {CHECK}"))]
)
def test_checkfile(name: str) -> None:
    if name in LEGACY:
        pytest.skip(f"{name} is in the format of an older MediScore (comma-separated, other columns and numbers)")
    target = TARGETS[name]
    if target.kind == "agg":
        assert compare_aggregate(name, target) == []
    elif target.kind == "perimage":
        assert compare_perimage(name, target) == []
    else:
        assert compare_journal(name, target) == []


def test_every_checkfile_is_mapped_or_legacy() -> None:
    if not CHECK.is_dir():
        pytest.skip(f"no conformance data at {CHECK}")
    assert [f for f in _files() if f not in TARGETS and f not in LEGACY] == []


def test_no_aggregate_where_mediscore_wrote_none() -> None:
    """heal and display (-qm): nothing scored, MediScore writes no aggregate file; ours has no metric."""
    if not CHECK.is_dir():
        pytest.skip(f"no conformance data at {CHECK}")
    runs = report("qm6").runs
    for k in (2, 4):
        assert not (CHECK / f"ref_maskreport_{('heal', 'display')[k // 4]}.csv").exists()
        assert runs[k].results[0].aggregate["OptimumMCC"] is None


def test_error_case_gives_the_unreadable_mask_a_reason_and_scores_the_rest() -> None:
    """docs/scoring/masks.md#checked-against-mediscore error test (``Error_NC2017...``, its mask/foo.png does not
    exist): MediScore prints
    ``ERROR ... unreadable`` and finishes; here that trial gets a reason and the others are scored."""
    if not CHECK.is_dir():
        pytest.skip(f"no conformance data at {CHECK}")
    rep = Case(M17, sysdir="Error_NC2017_Unittest_Manipulation_ImgOnly_c-me_1").run()
    run = rep.runs[0]
    assert [(t, r.split(" (")[0]) for t, r in run.not_scored] == [
        ("43e1d6f0a9306a629a51062729549d76", "foo.png: file not found")
    ]
    scored = run.perimage.set_index("ProbeFileID")["Scored"].to_dict()
    assert scored == {
        "43e1d6f0a9306a629a51062729549d76": "N",
        "07e65ca7be451f9fc756e9cc7a458eb6": "Y",
        "43e1d6f0a9306a629a51062729549d76-2": "Y",
        "43e1d6f0a9306a629a51062729549d76-3": "Y",
    }
    assert rep.results[0].aggregate["ScoreableTrials"] == 3
