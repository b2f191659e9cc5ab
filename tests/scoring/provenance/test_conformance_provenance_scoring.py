"""Conformance of the provenance engine with MediScore's checkfiles
(docs/scoring/provenance.md#checked-against-mediscore).

Each case of ``provenanceScorerTests/checkfiles`` is recomputed with the command
line of MediScore's ``integration_tests.sh`` and compared as sets of rows:
numbers to 1e-9, everything else exactly. scores.csv, trial_scores.csv and the
node/link mappings are all compared. The data are read in place.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from helpers.paths import REPO

from pytest_omfc.scoring.provenance import (
    MEDISCORE_ALL_NODE_TYPES,
    score_filtering,
    score_graph_building,
)

REPO_ROOT = REPO
TS = REPO_ROOT.parent / "shared" / "conformance" / "mediscore" / "test_suite" / "provenanceScorerTests"

pytestmark = pytest.mark.skipif(
    not TS.is_dir(),
    reason=f"MediScore conformance data not found at {TS} (checkout ../shared beside the repo)",
)

ALL_TYPES = MEDISCORE_ALL_NODE_TYPES

# (case, test_case number, system index, options) as in integration_tests.sh.
GRAPH_CASES: list[tuple[str, int, str, dict[str, bool]]] = [
    ("test_1_0", 1, "test_case_1-system_output_0_index.csv", {}),
    (
        "test_1_0_undirect",
        1,
        "test_case_1-system_output_0_index_undirect.csv",
        {"undirected": True},
    ),
    (
        "test_1_0_direct",
        1,
        "test_case_1-system_output_0_index_direct.csv",
        {"direct": True},
    ),
    (
        "test_1_1_direct",
        1,
        "test_case_1-system_output_1_index_direct.csv",
        {"direct": True},
    ),
    (
        "test_1_0and1_direct",
        1,
        "test_case_1-system_output_0and1_index_direct.csv",
        {"direct": True},
    ),
    ("test_2_0", 2, "test_case_2-system_output_0_index.csv", {}),
    ("test_2_1", 2, "test_case_2-system_output_1_index.csv", {}),
    (
        "test_2_1_undirect",
        2,
        "test_case_2-system_output_1_undirect_index.csv",
        {"undirected": True},
    ),
    ("test_3_1", 2, "test_case_3-system_output_1_index.csv", {}),
]
FILTERING_CASES: list[tuple[str, int, str, tuple[str, ...]]] = [
    (
        "filtering_test_0",
        2,
        "test_case_2-filtering-system_output_0_index.csv",
        ("all",),
    ),
    (
        "filtering_test_0_b",
        2,
        "test_case_2-filtering-system_output_0_index.csv",
        ALL_TYPES,
    ),
    (
        "filtering_test_1",
        2,
        "test_case_2-filtering-system_output_1_index.csv",
        ("all",),
    ),
    (
        "filtering_test_1_b",
        2,
        "test_case_2-filtering-system_output_1_index.csv",
        ALL_TYPES,
    ),
    (
        "filtering_test_2",
        3,
        "test_case_3-filtering-system_output_1_index.csv",
        ("all",),
    ),
    (
        "filtering_test_2_b",
        3,
        "test_case_3-filtering-system_output_1_index.csv",
        ALL_TYPES,
    ),
    ("IsOptOut_test_0", 3, "test_case_4-filtering-system_output_0_index.csv", ("all",)),
]


def _tables(n: int) -> dict[str, Any]:
    return {
        "index": TS / f"test_case_{n}-provenancegraphbuilding-index.csv",
        "reference": TS / f"test_case_{n}-provenance-ref.csv",
        "node": TS / f"test_case_{n}-provenance-node.csv",
        "world": TS / f"test_case_{n}-provenancegraphbuilding-world.csv",
        "ref_dir": TS,
        "sys_dir": TS,
    }


def _cell(x: Any) -> Any:
    """Numbers to 1e-9 (as rounded ints of 1e9), booleans and text exactly, blanks as ''."""
    s = str(x)
    if s in ("True", "False", ""):
        return s
    try:
        return round(float(s) * 1e9)
    except ValueError:
        return s


def _rows(df: pd.DataFrame, columns: list[str]) -> set[tuple[Any, ...]]:
    return {tuple(_cell(v) for v in row) for row in df[columns].itertuples(index=False)}


def _expected(path: Path) -> tuple[list[str], set[tuple[Any, ...]]]:
    if not path.is_file():
        pytest.skip(f"checkfile missing: {path}")
    with path.open(newline="") as fh:
        rows = list(csv.reader(fh, delimiter="|"))
    header = rows[0]
    return header, {tuple(_cell(v) for v in r) for r in rows[1:] if r}


def _check(got: pd.DataFrame, path: Path) -> None:
    header, want = _expected(path)
    assert set(header) <= set(got.columns), f"{path.name}: columns {set(header) - set(got.columns)} missing"
    have = _rows(got, header)
    assert have == want, f"{path}: only computed {sorted(have - want)[:3]}; only expected {sorted(want - have)[:3]}"


@pytest.mark.parametrize(("case", "n", "system", "opts"), GRAPH_CASES, ids=[c[0] for c in GRAPH_CASES])
def test_graph_building_checkfiles(case: str, n: int, system: str, opts: dict[str, bool]) -> None:
    res = score_graph_building(
        system=TS / system,
        **_tables(n),
        direct=opts.get("direct", False),
        undirected=opts.get("undirected", False),
    )
    out = TS / "checkfiles" / case
    for name, df in (
        ("scores.csv", res.scores),
        ("trial_scores.csv", res.trial_scores),
        ("node_mapping.csv", res.node_mapping),
        ("link_mapping.csv", res.link_mapping),
    ):
        _check(df, out / name)
    assert all(r.scored for r in res.reasons), res.reasons


def test_system_cycle_is_scored_with_a_reason() -> None:
    """test_3_1: MediScore needs -c for this system graph; here it is scored and noted (PROV-15)."""
    res = score_graph_building(system=TS / "test_case_3-system_output_1_index.csv", **_tables(2))
    assert [r.reason.split(":")[0] for r in res.reasons] == ["system graph has a cycle"]
    assert res.trial_scores["SimLO"].tolist() == [0.3]


@pytest.mark.parametrize(
    ("case", "n", "system", "types"),
    FILTERING_CASES,
    ids=[c[0] for c in FILTERING_CASES],
)
def test_filtering_checkfiles(case: str, n: int, system: str, types: tuple[str, ...]) -> None:
    res = score_filtering(system=TS / system, node_types=types, **_tables(n))
    out = TS / "checkfiles" / case
    for name, df in (
        ("scores.csv", res.scores),
        ("trial_scores.csv", res.trial_scores),
        ("node_mapping.csv", res.node_mapping),
    ):
        _check(df, out / name)


def test_filtering_mean_is_of_rounded_values_not_rerounded() -> None:
    """docs/scoring/provenance.md#filtering: the mean keeps float noise, e.g. 0.32456140350850005."""
    res = score_filtering(system=TS / "test_case_3-filtering-system_output_1_index.csv", **_tables(3))
    assert res.scores.loc[0, "NodeRecallAt50"] == 0.32456140350850005


def test_optout_trial_is_dropped_with_a_reason() -> None:
    res = score_filtering(system=TS / "test_case_4-filtering-system_output_0_index.csv", **_tables(3))
    assert len(res.trial_scores) == 1
    assert [(r.probe_id, r.scored) for r in res.reasons] == [("d" * 32, False)]
    assert res.reasons[0].reason.startswith("ProvenanceProbeStatus='IsOptOut': not scored")
