"""MediScore's provenance validator cases under pytest-omfc (MEDISCORE_VALIDATOR_CASES.md §3 and §4.2).

Two parts:

* the schemas: every JSON that MediScore's tests (and the §4.2 probes) treat as
  valid passes the schema generated from ``pytest_omfc.models.provenance``, the
  invalid ones fail, exactly as with MediScore's own schema files 1.2;
* every ``provenanceValidatorTests`` integration case of §3, run in place
  (read-only, never copied), with the verdicts the rule reference (docs/rules/) prescribes per rule ID.
  MediScore's runner cannot fail (B-14: ``[[ $passfail==0 ]]`` is always true),
  so its "expected" column is not evidence; the comments say where the rule reference's
  verdict differs from what MediScore prints.

The task of each case comes from its EXPID (``ProvenanceFiltering`` or
``Provenance``); the one index, ``NC2017_Dev1-provenance-index.csv``, says
``provenance`` for all, so the filtering cases pass ``--omfc-task``.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from helpers.runs import run_untouched
from jsonschema import Draft4Validator

from pytest_omfc.models.provenance import ProvenanceFiltering, ProvenanceGraph, validator_for

PV = "provenanceValidatorTests"
INDEX = "indexes/NC2017_Dev1-provenance-index.csv"
PROBE = "1fafdafac9df0956271b7119ff957546"

# --------------------------------------------------------------------------- part 1: the schemas

NODE = {"id": "n0", "file": "world/a.jpg", "fileid": "a", "nodeConfidenceScore": 0.9}
LINK = {"source": 0, "target": 1, "relationshipConfidenceScore": 0.5}


def _doc(
    nodes: list[dict[str, Any]] | None = None, links: list[dict[str, Any]] | None = None, **top: Any
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "directed": True,
        "nodes": nodes if nodes is not None else [NODE, {**NODE, "id": "n1", "file": "world/b.jpg", "fileid": "b"}],
    }
    if links is not None:
        out["links"] = links
    out.update(top)
    return out


def _node(**change: Any) -> list[dict[str, Any]]:
    node = {**NODE, **change}
    return [{k: v for k, v in node.items() if v is not _DROP}]


_DROP = object()

#: §4.2 case -> (JSON, valid under SchF, valid under SchG), as MediScore's schemas 1.2 decide (verified there).
SCHEMA_CASES: dict[str, tuple[dict[str, Any], bool, bool]] = {
    "f_ok_3nodes_noprobe": (_doc(nodes=[NODE, {**NODE, "id": "n1"}, {**NODE, "id": "n2"}], links=[]), True, True),
    "f_no_links_key": (_doc(), True, False),
    "f_missing_fileid": (_doc(nodes=_node(fileid=_DROP)), True, False),  # D-20 is PROV-06's, not the schema's
    "f_missing_id": (_doc(nodes=_node(id=_DROP), links=[]), False, False),
    "f_nodeconf_string": (_doc(nodes=_node(nodeConfidenceScore="0.5"), links=[]), False, False),
    "f_nodeconf_bool": (_doc(nodes=_node(nodeConfidenceScore=True), links=[]), False, False),  # draft 4
    "f_id_int": (_doc(nodes=_node(id=5), links=[]), False, False),
    "f_dup_ids": (_doc(nodes=[NODE, NODE], links=[]), True, True),  # PROV-08's
    "f_empty_nodes": (_doc(nodes=[], links=[]), True, True),
    "f_links_noconf": (_doc(links=[{"source": 0, "target": 1}]), True, False),
    "g_ok": (_doc(links=[LINK]), True, True),
    "g_no_links": (_doc(), True, False),
    "g_empty_links": (_doc(links=[]), True, True),
    "g_link_noconf": (_doc(links=[{"source": 0, "target": 1, "operation": "Crop"}]), True, False),
    "g_link_oob": (_doc(links=[{**LINK, "target": 99}]), True, True),  # PROV-09's
    "g_link_float_neg": (_doc(links=[{**LINK, "source": -1, "target": 0.5}]), True, True),  # PROV-09's
    "g_link_string_idx": (_doc(links=[{**LINK, "source": "0", "target": "1"}]), False, False),
    "g_cycle": (_doc(links=[LINK, {**LINK, "source": 1, "target": 0}]), True, True),  # PROV-15's
    "g_selfloop": (_doc(links=[{**LINK, "target": 0}]), True, True),
    "g_directed_string": (_doc(links=[], directed="yes"), False, False),
    # beyond §4.2: draft-4 details where a model could easily drift from MediScore's schema
    "extra_properties": (_doc(links=[{**LINK, "x": {}}], graph={"name": "g"}, nodes=_node(extra=[1])), True, True),
    "fileid_null": (_doc(nodes=_node(fileid=None), links=[]), False, False),
    "link_bool_index": (_doc(links=[{**LINK, "source": True}]), False, False),
    "operation_number": (_doc(links=[{**LINK, "operation": 3}]), False, False),
    "nodes_not_a_list": (_doc(nodes={"0": NODE}, links=[]), False, False),
    "node_not_an_object": (_doc(nodes=["n0"], links=[]), False, False),
    "top_level_list": ([NODE], False, False),  # type: ignore[dict-item]
}


def _mediscore_schemas(conformance: Path) -> tuple[Draft4Validator, Draft4Validator]:
    folder = conformance.parent / "schemas"
    load = lambda name: Draft4Validator(json.loads((folder / name).read_text()))  # noqa: E731
    return load("ProvenanceFilteringSchema-1.2.json"), load("ProvenanceGraphBuildingSchema-1.2.json")


@pytest.mark.parametrize("case", list(SCHEMA_CASES))
def test_schema_verdicts_match_mediscore(conformance, case):
    doc, pf_ok, pg_ok = SCHEMA_CASES[case]
    ms_f, ms_g = _mediscore_schemas(conformance)
    assert (ms_f.is_valid(doc), ms_g.is_valid(doc)) == (pf_ok, pg_ok)  # the table is MediScore's verdict
    for model, ok in ((ProvenanceFiltering, pf_ok), (ProvenanceGraph, pg_ok)):
        assert validator_for(model).is_valid(copy.deepcopy(doc)) is ok, model.__name__  # what the rules use
        assert Draft4Validator(model.model_json_schema()).is_valid(doc) is ok, model.__name__  # the plain schema


def _suite_jsons(conformance: Path) -> list[Path]:
    return sorted((conformance / PV).rglob("jsons/*.json"))


def test_schema_verdicts_on_the_test_suite_jsons(conformance):
    """Every JSON under provenanceValidatorTests gets MediScore's verdict, error for error in count."""
    ms_f, ms_g = _mediscore_schemas(conformance)
    files = _suite_jsons(conformance)
    assert len(files) == 11
    verdicts = {}
    for path in files:
        doc = json.loads(path.read_text())
        for name, ms, model in (("F", ms_f, ProvenanceFiltering), ("G", ms_g, ProvenanceGraph)):
            ours = list(validator_for(model).iter_errors(doc))
            theirs = list(ms.iter_errors(doc))
            assert sorted(e.message for e in ours) == sorted(e.message for e in theirs), (path, name)
            verdicts[(path.parent.parent.name.rsplit("_", 2)[-2], path.name, name)] = not ours
    # the valid fixtures pass both; the journal JSON (prov2) and badfilter fail both; filtergraph lacks links
    assert verdicts[("p-optout", "prov1.json", "G")] and verdicts[("p-optout", "prov1.json", "F")]
    assert not verdicts[("p-diffidx", "prov2.json", "F")] and not verdicts[("p-badfilter", "prov1.json", "F")]
    assert verdicts[("p-filtergraph", "prov1.json", "F")] and not verdicts[("p-filtergraph", "prov1.json", "G")]


# --------------------------------------------------------------------------- part 2: the §3 integration cases

#: Rules every fixture fails for want of a system description, which MediScore never asks for (PKG-03 and
#: the NC2017 directory layout PKG-07); the DESC rules are then skipped.
NO_DESCRIPTION = {"PKG-03", "PKG-07"}

#: case -> (fixture, task, the rules that fail besides NO_DESCRIPTION, {rule: first line} for PROV failures,
#:          {rule: first line of its warning}, {rule: start of its skip reason})
CASES: dict[str, tuple[str, str, set[str], dict[str, str], dict[str, str], dict[str, str]]] = {
    # PKG-02: the system output is <ID>.tsv (and empty): MediScore "does not appear to be a csv"; here
    # PKG-02 names the extension, CSV-02 the empty file, and the rules that read it are skipped, naming CSV-02.
    "name_test_csv": (
        "NameCheck_NC17_FuncTest_1/NameCheck_NC17_FuncTest_ProvenanceFiltering_ImgOnly_p-valid_1",
        "provenancefiltering",
        {"PKG-02", "CSV-02"},
        {
            "PKG-02": "PKG-02: the system output NameCheck_NC17_FuncTest_ProvenanceFiltering_ImgOnly_p-valid_1.tsv "
            "does not end in .csv (showing 1)"
        },
        {},
        {"PROV-01": "CSV-02 failed", "PROV-03": "CSV-02 failed"},
    ),
    # PKG-01: <ID>/<ID>.csv stem differs from the directory; the CSV is empty (CSV-02).
    "name_test_fileNeqDir": (
        "NameCheck_NC17_FuncTest_1/NameCheck_NC17_FuncTest2_Provenance_ImgOnly_p-valid_1",
        "provenance",
        {"PKG-01", "CSV-02"},
        {},
        {},
        {"PROV-04": "CSV-02 failed"},
    ),
    # SUB-01/02: 9 fields (MediScore also prints the shifted "test unrecognized", SUB-05).
    "name_test_underscores": (
        "NameCheck_NC17_FuncTest_1/NameCheck_NC17_Functionality_Test_3_ProvenanceFiltering_ImgOnly_p-invalid_1",
        "provenancefiltering",
        {"SUB-01", "CSV-02"},
        {},
        {},
        {},
    ),
    # SUB-05: TASK 'Manipulation' on a provenance index (the task checked is the index's).
    "name_test_badtask": (
        "NameCheck_NC17_FuncTest_1/NameCheck_NC17_FuncTest4_Manipulation_ImgOnly_p-valid_1",
        "provenance",
        {"SUB-05", "CSV-02"},
        {},
        {},
        {},
    ),
    # Commented out in MediScore (expected valid, MediScore says invalid): NC2017 needs ConfidenceScore
    # (COL-12, D-06).  The JSON is fine; like every MediScore test JSON it lacks the probe: PROV-13 is a
    # warning in NC2017 ("should"), and the index's TaskID 'provenance' disagrees with the filtering task.
    "valid_test_min": (
        "ValidCheck_NC17_FuncTest_2/ValidCheck_NC17_FuncTest_ProvenanceFiltering_ImgOnly_p-min_1",
        "provenancefiltering",
        {"COL-12"},
        {},
        {
            "PROV-13": "PROV-13: 1 of 1 filtering JSON file does not include the probe (showing 1)",
            "PROV-05": "PROV-05: the task is provenancefiltering, but another source names a different task "
            "(showing 1)",
            "PROV-07": "PROV-07: world-file nodes were not checked: no world index (showing 1)",
        },
        {},
    ),
    # Commented out in MediScore: as valid_test_min, graph task; links: [] passes SchG (PROV-04), but 200
    # unlinked nodes are not a graph (PROV-14, a warning).
    "valid_test_conf": (
        "ValidCheck_NC17_FuncTest_2/ValidCheck_NC17_FuncTest_Provenance_ImgOnly_p-conf_1",
        "provenance",
        {"COL-12"},
        {},
        {"PROV-14": "PROV-14: 1 of 1 graph JSON file holds nodes on no link (showing 1)"},
        {},
    ),
    # Valid in MediScore (--optOut -t provenance: B-05 makes it use SchF) and here (SchG; links: []).
    "valid_test_optout": (
        "ValidCheck_NC17_FuncTest_2/ValidCheck_NC17_FuncTest_Provenance_ImgOnly_p-optout_1",
        "provenance",
        set(),
        {},
        {"PROV-14": "PROV-14: 1 of 1 graph JSON file holds nodes on no link (showing 1)"},
        {},
    ),
    # Runner expects valid; MediScore itself says invalid (ProbeStatus is not IsOptOut), hidden by B-14.
    "valid_test_all": (
        "ValidCheck_NC17_FuncTest_2/ValidCheck_NC17_FuncTest_Provenance_ImgOnly_p-all_1",
        "provenance",
        {"COL-12"},
        {},
        {},
        {},
    ),
    # CSV-01: comma-separated.
    "invalid_test_comma": (
        "InvalidCheck_NC17_FuncTest_3/InvalidCheck_NC17_FuncTest_ProvenanceFiltering_ImgOnly_p-comma_3",
        "provenancefiltering",
        {"CSV-01"},
        {},
        {},
        {"PROV-02": "CSV-01 failed"},
    ),
    # PROV-03: a journal JSON (no nodeConfidenceScore); D-20 adds PROV-06 (no fileid).
    "invalid_test_diffidx": (
        "InvalidCheck_NC17_FuncTest_3/InvalidCheck_NC17_FuncTest_ProvenanceFiltering_ImgOnly_p-diffidx_3",
        "provenancefiltering",
        {"PROV-03", "PROV-06"},
        {
            "PROV-03": "PROV-03: 1 of 1 JSON file does not match the provenance filtering schema (showing 1)",
            "PROV-06": "PROV-06: 27 nodes in 1 of 1 JSON file lack a fileid (showing 1)",
        },
        {"PROV-11": "PROV-11: 1 of 1 filtering JSON file holds fewer than 200 results (showing 1)"},
        {},
    ),
    # IDX-02 (MediScore's message), IDX-03/IDX-06 (the extra probe); PROV-18 defers to IDX-06.  The second
    # row's JSON is the journal of diffidx, so PROV-03/PROV-06 fail as there (MediScore stops earlier).
    "invalid_test_moreidx": (
        "InvalidCheck_NC17_FuncTest_3/InvalidCheck_NC17_FuncTest_ProvenanceFiltering_ImgOnly_p-moreidx_3",
        "provenancefiltering",
        {"IDX-02", "IDX-03", "IDX-06", "PROV-03", "PROV-06"},
        {"PROV-03": "PROV-03: 1 of 2 JSON files does not match the provenance filtering schema (showing 1)"},
        {},
        {"PROV-18": "IDX-06 failed"},
    ),
    # PROV-03: a node without id.
    "invalid_test_badfilter": (
        "InvalidCheck_NC17_FuncTest_3/InvalidCheck_NC17_FuncTest_ProvenanceFiltering_ImgOnly_p-badfilter_3",
        "provenancefiltering",
        {"PROV-03"},
        {"PROV-03": "PROV-03: 1 of 1 JSON file does not match the provenance filtering schema (showing 1)"},
        {},
        {},
    ),
    # PROV-04 ("Make sure to include links!"): a filtering result in the graph task lacks links (not PROV-05).
    "invalid_test_filtergraph": (
        "InvalidCheck_NC17_FuncTest_3/InvalidCheck_NC17_FuncTest_Provenance_ImgOnly_p-filtergraph_3",
        "provenance",
        {"PROV-04"},
        {"PROV-04": "PROV-04: 1 of 1 JSON file does not match the provenance graph-building schema (showing 1)"},
        {},
        {},
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_provenance_validator_case(pytester, conformance, case):
    fixture, task, failing, first_lines, warnings, skips = CASES[case]
    root = conformance / PV
    res = run_untouched(pytester, root / fixture, root / INDEX, "--omfc-task", task)

    assert set(res.failed()) - NO_DESCRIPTION == failing
    assert res.ret == 1  # every fixture lacks its description (PKG-03); valid_test_optout fails for nothing else
    for rule, line in first_lines.items():
        assert res.first_line(rule) == line
    for rule, line in warnings.items():
        assert res.outcome(rule) == "passed"
        assert res.warning(rule).splitlines()[0] == line
    for rule, reason in skips.items():
        assert res.outcome(rule) == "skipped"
        assert res.text(rule).startswith(f"{rule} skipped: {reason}"), res.text(rule)


def test_badfilter_names_the_node(pytester, conformance):
    """The finding names the file, the trial, the node and the missing property."""
    fixture = CASES["invalid_test_badfilter"][0]
    root = conformance / PV
    res = run_untouched(pytester, root / fixture, root / INDEX, "--omfc-task", "provenancefiltering")
    sub = fixture.split("/")[1]
    assert res.text("PROV-03").splitlines()[1] == (
        f"  {sub}/jsons/prov1.json [{PROBE}] nodes[0]: must match the provenance filtering schema "
        "(got: 'id' is a required property)"
    )
    assert res.warning("PROV-13").splitlines()[1] == (
        f"  {sub}/jsons/prov1.json [{PROBE}] nodes: must include the probe itself: a node with fileid {PROBE} "
        f"or file world/{PROBE}.jpg (got none among 200 nodes)"
    )
