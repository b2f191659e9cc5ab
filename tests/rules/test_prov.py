"""PROV rules and PKG-06: the provenance output JSON (docs/rules/prov.md, D-19, D-20, D-21, B-05)."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from pytest_omfc.models.provenance import ProvenanceFiltering, ProvenanceGraph, validator_for

IDX_HEADER = [
    "TaskID",
    "ProvenanceProbeFileID",
    "ProvenanceProbeFileName",
    "ProvenanceProbeWidth",
    "ProvenanceProbeHeight",
]
OUT_HEADER = {
    "N17": ["ProvenanceProbeFileID", "ConfidenceScore", "ProvenanceOutputFileName", "IsOptOut"],
    "M18": ["ProvenanceProbeFileID", "ConfidenceScore", "ProvenanceOutputFileName", "ProvenanceProbeStatus"],
    "M19": ["ProvenanceProbeFileID", "ProvenanceOutputFileName", "ProvenanceProbeStatus"],
}
EDITION = {"N17": "NC2017", "M18": "MFC2018", "M19": "MFC2019"}
PREFIX = {"N17": "NC2017_Dev1", "M18": "MFC18", "M19": "MFC2019"}
TASK_ID = {"PF": "provenancefiltering", "PG": "provenance"}
MY_RULES = ["PKG-06"] + [f"PROV-{i:02d}" for i in range(1, 19) if i != 16]


def sub_id(group: str, task: str) -> str:
    """A SubID that is valid for the edition (so that only the rule under test can fail)."""
    name = "ProvenanceFiltering" if task == "PF" else "Provenance"
    return {
        "N17": f"NIST_NC17_Dev1_{name}_ImgOnly_p-test_1",
        "M18": f"NIST_MFC18_Dev1_{name}_ImgOnly_p-test_1",
        "M19": "p-test_1",
    }[group]


def node(fid: str, i: int) -> dict[str, Any]:
    return {"id": f"n{i}", "file": f"world/{fid}.jpg", "fileid": fid, "nodeConfidenceScore": 0.5}


def filtering(probe: str, n: int = 200) -> dict[str, Any]:
    """A filtering result: the probe first, then n - 1 world images."""
    return {"directed": True, "nodes": [node(probe, 0)] + [node(f"W{i}", i) for i in range(1, n)]}


def graph(probe: str) -> dict[str, Any]:
    """W1 -> W2 -> probe."""
    return {
        "directed": True,
        "nodes": [node("W1", 0), node("W2", 1), node(probe, 2)],
        "links": [
            {"source": 0, "target": 1, "relationshipConfidenceScore": 0.9, "operation": "Crop"},
            {"source": 1, "target": 2, "relationshipConfidenceScore": 0.8},
        ],
    }


def out_row(group: str, probe: str, ref: str, status: str | None = None) -> list[Any]:
    if group == "N17":
        return [probe, 0.5, ref, status or "N"]
    if group == "M18":
        return [probe, 0.5, ref, status or "Processed"]
    return [probe, ref, status or "Processed"]


def make(
    omfc: Any,
    group: str,
    task: str,
    jsons: dict[str, Any],
    *,
    refs: dict[str, str] | None = None,
    status: dict[str, str] | None = None,
    extra_rows: list[list[Any]] = (),
    world: bool = True,
) -> Any:
    """One probe per key of ``jsons``; a value is a JSON document, raw text/bytes, or None (no file)."""
    files: dict[str, str | bytes] = {}
    for probe, doc in jsons.items():
        if doc is None:
            continue
        files[f"jsons/{probe}.json"] = doc if isinstance(doc, (str, bytes)) else json.dumps(doc, indent=1)
    refs = refs or {}
    status = status or {}
    rows = [out_row(group, p, refs.get(p, f"jsons/{p}.json"), status.get(p)) for p in jsons] + list(extra_rows)
    index_rows = [[TASK_ID[task], p, f"world/{p}.jpg", 640, 480] for p in jsons]
    if world:
        world_rows = [[TASK_ID[task], f"W{i}", f"world/W{i}.jpg", 10, 10] for i in range(1, 600)]
        omfc.write(
            f"dataset/indexes/{PREFIX[group]}-{TASK_ID[task]}-world.csv",
            "\n".join(
                "|".join(map(str, r))
                for r in [["TaskID", "WorldFileID", "WorldFileName", "WorldWidth", "WorldHeight"], *world_rows]
            )
            + "\n",
        )
    return omfc.case(
        EDITION[group],
        TASK_ID[task],
        header=OUT_HEADER[group],
        rows=rows,
        index_header=IDX_HEADER,
        index_rows=index_rows,
        sub_id=sub_id(group, task),
        files=files,
    )


# --------------------------------------------------------------------------- valid submissions


@pytest.mark.parametrize(
    "group,task,doc,rules",
    [
        ("N17", "PF", filtering, ["PROV-03", "PROV-11", "PROV-13"]),
        ("N17", "PG", graph, ["PROV-04", "PROV-10", "PROV-14", "PROV-15"]),
        ("M19", "PF", lambda p: filtering(p, 400), ["PROV-03", "PROV-12", "PROV-13", "PROV-17"]),
        ("M19", "PG", graph, ["PROV-04", "PROV-10", "PROV-14", "PROV-15", "PROV-17"]),
        ("M18", "PF", filtering, ["PROV-03", "PROV-13", "PROV-17"]),
        ("M18", "PG", graph, ["PROV-04", "PROV-10", "PROV-14", "PROV-15", "PROV-17"]),
    ],
)
def test_valid_submission_passes_every_prov_rule(omfc, group, task, doc, rules):
    common = ["PKG-06", "PROV-01", "PROV-02", "PROV-05", "PROV-18", "PROV-06", "PROV-07", "PROV-08", "PROV-09"]
    res = make(omfc, group, task, {"P1": doc("P1"), "P2": doc("P2")}).run()
    for rid in common + rules:
        assert res.outcome(rid) == "passed", (rid, res.text(rid))
        assert res.warning(rid) is None, (rid, res.warning(rid))
    assert not [r for r in res.failed() if r in MY_RULES]


# --------------------------------------------------------------------------- PKG-06, PROV-01, PROV-02


def test_pkg06_unsafe_references_are_errors_and_never_opened(omfc, tmp_path):
    outside = omfc.write("outside/P3.json", json.dumps(filtering("P3")))
    case = make(
        omfc,
        "M19",
        "PF",
        {"P1": None, "P2": None, "P3": None, "P4": filtering("P4")},
        refs={"P1": "../outside/P3.json", "P2": str(outside), "P3": "jsons/P3.json"},
    )
    os.symlink(outside, case.submission / "jsons" / "P3.json")
    res = case.run()
    assert res.first_line("PKG-06") == "PKG-06: 3 of 4 JSON references leave the submission directory (showing 3)"
    text = res.text("PKG-06")
    assert (
        "p-test_1/p-test_1.csv:2 [P1] ProvenanceOutputFileName='../outside/P3.json': must stay inside the submission "
        "directory" in text
    )
    assert "[P2]" in text and "must be a path relative to the submission directory (got absolute path" in text
    assert "[P3]" in text and "(got a symlink to" in text
    assert res.outcome("PROV-02") == "passed"  # unsafe files are PKG-06's, never read


def test_prov01_blank_and_shared_json(omfc):
    res = make(
        omfc, "M19", "PF", {"P1": "", "P2": filtering("P2"), "P3": None}, refs={"P1": "", "P3": "jsons/P2.json"}
    ).run()
    assert res.first_line("PROV-01") == (
        "PROV-01: 1 of 3 probes has no JSON file; 1 of 3 probes shares another probe's JSON file (showing 2)"
    )
    text = res.text("PROV-01")
    assert (
        "p-test_1/p-test_1.csv:2 [P1] ProvenanceOutputFileName='': must name the probe's JSON file (got a blank name; "
        "only NonProcessed or OptOut rows may omit it)" in text
    )
    assert (
        "[P3] ProvenanceOutputFileName='jsons/P2.json': each probe must have its own JSON file (got the file of P2 on "
        "line 3)" in text
    )


def test_prov02_unreadable_json_is_a_finding_not_a_crash(omfc):
    s = sub_id("N17", "PF")
    docs = {
        "P1": None,  # missing
        "P2": "",  # empty
        "P3": '{"nodes": [',  # malformed
        "P4": json.dumps([filtering("P4")]),  # a list
        "P5": b'{"nodes": [], "x": "\xff"}',  # not UTF-8
        "P6": '{"nodes": [{"id": "a", "file": "world/P6.jpg", "fileid": "P6", "nodeConfidenceScore": NaN}]}',
        "P7": "[" * 100_000 + "]" * 100_000,  # too deep for any parser stack
        "P8": None,  # a FIFO: must not block
        "P9": None,  # a directory
    }
    case = make(omfc, "N17", "PF", docs)
    os.mkfifo(case.submission / "jsons" / "P8.json")
    (case.submission / "jsons" / "P9.json").mkdir()
    res = case.run()
    assert (
        res.first_line("PROV-02") == "PROV-02: 9 of 9 referenced JSON files are missing or not JSON objects (showing 9)"
    )
    lines = res.text("PROV-02").splitlines()[1:]
    assert lines == [
        f"  {s}/{s}.csv:2 [P1] ProvenanceOutputFileName='jsons/P1.json': must name an existing JSON file (got no "
        "such file)",
        f"  {s}/{s}.csv:3 [P2] ProvenanceOutputFileName='jsons/P2.json': must hold a JSON object (got an empty file)",
        f"  {s}/{s}.csv:4 [P3] ProvenanceOutputFileName='jsons/P3.json': must be valid JSON (got Expecting value at "
        "line 1 column 12)",
        f"  {s}/{s}.csv:5 [P4] ProvenanceOutputFileName='jsons/P4.json': must hold a JSON object with a nodes array "
        "(got a list of 1 item)",
        f"  {s}/{s}.csv:6 [P5] ProvenanceOutputFileName='jsons/P5.json': must be UTF-8 JSON text (got byte 0xff at "
        "offset 20)",
        f"  {s}/{s}.csv:7 [P6] ProvenanceOutputFileName='jsons/P6.json': must be valid JSON (got the non-standard "
        "constant NaN)",
        f"  {s}/{s}.csv:8 [P7] ProvenanceOutputFileName='jsons/P7.json': must be valid JSON (got nesting too deep to "
        "parse)",
        f"  {s}/{s}.csv:9 [P8] ProvenanceOutputFileName='jsons/P8.json': must name a regular JSON file (got a FIFO)",
        f"  {s}/{s}.csv:10 [P9] ProvenanceOutputFileName='jsons/P9.json': must name a regular JSON file (got a "
        "directory)",
    ]
    # nothing could be read: the content rules say so instead of passing
    assert res.outcome("PROV-03") == "skipped"
    assert res.text("PROV-03") == "PROV-03 skipped: no JSON file could be read to check (see PROV-01 and PROV-02)"


# --------------------------------------------------------------------------- PROV-03, 04, 05, 10: schemas


def test_prov03_filtering_schema(omfc):
    s = sub_id("N17", "PF")
    bad_id = filtering("P1")
    del bad_id["nodes"][3]["id"]
    bad_conf = filtering("P2")
    bad_conf["nodes"][5]["nodeConfidenceScore"] = True  # draft 4: a boolean is not a number
    bad_conf["nodes"][6]["nodeConfidenceScore"] = "0.5"
    res = make(omfc, "N17", "PF", {"P1": bad_id, "P2": bad_conf, "P3": filtering("P3")}).run()
    assert (
        res.first_line("PROV-03")
        == "PROV-03: 2 of 3 JSON files do not match the provenance filtering schema (showing 2)"
    )
    assert res.text("PROV-03").splitlines()[1:] == [
        f"  {s}/jsons/P1.json [P1] nodes[3]: must match the provenance filtering schema (got: 'id' is a required "
        "property)",
        f"  {s}/jsons/P2.json [P2] nodes[5].nodeConfidenceScore=True: must match the provenance filtering schema "
        "(got: True is not of type 'number'; 1 more error in this file)",
    ]


def test_prov04_05_10_graph_schema_follows_the_task(omfc):
    """B-05: MediScore run with -t provenance checks graphs with the filtering schema; here the task decides,
    and a graph without links (PROV-04) or with an unscored link (PROV-10) fails that rule, not PROV-05."""
    no_links = graph("P1")
    del no_links["links"]
    no_conf = graph("P2")
    del no_conf["links"][1]["relationshipConfidenceScore"]
    res = make(omfc, "M19", "PG", {"P1": no_links, "P2": no_conf, "P3": graph("P3")}).run()
    assert (
        res.first_line("PROV-04")
        == "PROV-04: 2 of 3 JSON files do not match the provenance graph-building schema (showing 2)"
    )
    assert (
        "p-test_1/jsons/P1.json [P1] (top level): must match the provenance graph-building schema (got: 'links' is a "
        "required property)" in res.text("PROV-04")
    )
    assert res.outcome("PROV-05") == "passed"  # each defect is named by the rule it breaks: PROV-04, PROV-10
    assert (
        res.first_line("PROV-10")
        == "PROV-10: 1 link in 1 of 3 JSON files lacks a numeric relationshipConfidenceScore (showing 1)"
    )
    assert (
        "p-test_1/jsons/P2.json [P2] links[1]: every link must carry a relationshipConfidenceScore (got none)"
        in res.text("PROV-10")
    )


def test_prov05_warns_when_the_index_names_the_other_task(omfc):
    case = make(omfc, "M19", "PF", {"P1": graph("P1")})
    res = case.run("--omfc-task", "provenance")  # the index says provenancefiltering
    assert res.outcome("PROV-05") == "passed"
    assert res.warning("PROV-05").splitlines() == [
        "PROV-05: the task is provenance, but another source names a different task (showing 1)",
        "  MFC2019-provenancefiltering-index.csv:2 TaskID='provenancefiltering': the index TaskID should name the task "
        "checked: the JSONs are checked against the provenance graph-building schema (got 'provenancefiltering')",
    ]
    assert case.run().warning("PROV-05") is None


# --------------------------------------------------------------------------- PROV-06..09: nodes and links


def test_prov06_fileid_required(omfc):
    s = sub_id("N17", "PF")
    doc = filtering("P1")
    for i in (4, 7, 9):
        del doc["nodes"][i]["fileid"]
    res = make(omfc, "N17", "PF", {"P1": doc, "P2": filtering("P2")}).run()
    assert res.first_line("PROV-06") == "PROV-06: 3 nodes in 1 of 2 JSON files lack a fileid (showing 1)"
    assert res.text("PROV-06").splitlines()[1] == (
        f"  {s}/jsons/P1.json [P1] nodes[4]: every node must carry a fileid, the NIST file ID (got none); "
        "2 more nodes like it in this file"
    )
    assert res.outcome("PROV-03") == "passed"  # MediScore's schema leaves fileid optional (D-20)


def test_prov07_file_and_fileid_match_the_index(omfc):
    wrong_probe_path = filtering("P1")
    wrong_probe_path["nodes"][0]["file"] = "probe/P1.jpg"
    unknown_world = filtering("P2")
    unknown_world["nodes"][8]["fileid"] = "Z9"
    unknown_world["nodes"][8]["file"] = "world/Z9.jpg"
    absolute = filtering("P3")
    absolute["nodes"][2]["file"] = "/data/world/W2.jpg"
    res = make(
        omfc, "M19", "PF", {"P1": wrong_probe_path, "P2": unknown_world, "P3": absolute, "P4": filtering("P4")}
    ).run()
    assert res.first_line("PROV-07") == "PROV-07: 3 nodes in 3 of 4 JSON files do not match the NIST index (showing 3)"
    assert res.text("PROV-07").splitlines()[1:] == [
        "  p-test_1/jsons/P1.json [P1] nodes[0].file='probe/P1.jpg': must be 'world/P1.jpg', the index path of fileid "
        "'P1' (got 'probe/P1.jpg')",
        "  p-test_1/jsons/P2.json [P2] nodes[8].fileid='Z9': must be a WorldFileID or ProvenanceProbeFileID of the "
        "index (got 'Z9', in neither)",
        "  p-test_1/jsons/P3.json [P3] nodes[2].file='/data/world/W2.jpg': must be the file's path as in the NIST "
        "index, "
        "e.g. world/<name>.jpg (got the absolute path '/data/world/W2.jpg')",
    ]


def test_prov07_without_world_index_checks_probes_and_says_so(omfc):
    res = make(omfc, "M19", "PF", {"P1": filtering("P1", 300)}, world=False).run()
    assert res.outcome("PROV-07") == "passed"
    assert res.warning("PROV-07").splitlines() == [
        "PROV-07: world-file nodes were not checked: no world index (showing 1)",
        "  world-file nodes should be checked against a world index (got no MFC2019-*world*.csv with WorldFileID "
        "and WorldFileName beside MFC2019-provenancefiltering-index.csv): only probe nodes and path forms were checked",
    ]


def test_prov08_duplicate_node_ids(omfc):
    s = sub_id("N17", "PF")
    doc = filtering("P1")
    doc["nodes"][9]["id"] = "n3"
    res = make(omfc, "N17", "PF", {"P1": doc}).run()
    assert res.first_line("PROV-08") == "PROV-08: 1 node in 1 of 1 JSON file repeats an id (showing 1)"
    assert (
        f"{s}/jsons/P1.json [P1] nodes[9].id='n3': node ids must be unique in the file (got 'n3' again, first at "
        "nodes[3])" in res.text("PROV-08")
    )


def test_prov09_link_indexes(omfc):
    s = sub_id("N17", "PG")
    doc = graph("P1")
    doc["links"] += [
        {"source": 0, "target": 3, "relationshipConfidenceScore": 0.1},  # out of range
        {"source": -1, "target": 0.5, "relationshipConfidenceScore": 0.1},  # negative, fractional
        {"source": 1.0, "target": "2", "relationshipConfidenceScore": 0.1},
    ]  # 1.0, string
    res = make(omfc, "N17", "PG", {"P1": doc, "P2": graph("P2")}).run()
    assert res.first_line("PROV-09") == "PROV-09: 5 link ends in 1 of 2 JSON files are not node indexes (showing 1)"
    assert res.text("PROV-09").splitlines()[1] == (
        f"  {s}/jsons/P1.json [P1] links[2].target=3: must be a node index in 0..2 (got 3); 4 more link ends like it "
        "in this file"
    )
    assert res.outcome("PROV-04") == "failed"  # only the string index breaks the schema (MediScore: g_link_string_idx)


def test_mfc2018_gets_the_content_checks_as_warnings(omfc):
    """MFC2018 has no plan here; NC2017 and MFC2019 both ask for a fileid and node-index links.  A graph that
    fails them there warns under MFC2018 (it passed silently before) and is not rejected."""
    doc = graph("P1")
    del doc["nodes"][0]["fileid"]
    doc["links"].append({"source": 0, "target": 3, "relationshipConfidenceScore": 0.1})
    for group, outcome in (("N17", "failed"), ("M18", "passed"), ("M19", "failed")):
        res = make(omfc, group, "PG", {"P1": doc, "P2": graph("P2")}).run()
        for rid in ("PROV-06", "PROV-09"):
            assert res.outcome(rid) == outcome, (group, rid, res.text(rid))
            if group == "M18":
                assert res.warning(rid), (group, rid)


# --------------------------------------------------------------------------- PROV-11..13: filtering lists


def test_prov11_nc17_list_size(omfc):
    s = sub_id("N17", "PF")
    res = make(omfc, "N17", "PF", {"P1": filtering("P1", 201), "P2": filtering("P2", 3), "P3": filtering("P3")}).run()
    assert (
        res.first_line("PROV-11")
        == "PROV-11: 1 error: 1 of 3 filtering JSON files holds more than 200 results; 1 of 3 filtering JSON files "
        "holds fewer than 200 results (showing 1)"
    )
    assert f"{s}/jsons/P1.json [P1] nodes: must hold at most 200 filtered results (got 201 nodes)" in res.text(
        "PROV-11"
    )
    assert "should hold 200 filtered results including the probe (got 3)" in res.warning("PROV-11")


def test_prov12_mfc19_list_size(omfc):
    res = make(
        omfc, "M19", "PF", {"P1": filtering("P1", 501), "P2": filtering("P2", 299), "P3": filtering("P3", 300)}
    ).run()
    assert res.outcome("PROV-12") == "failed"
    assert "p-test_1/jsons/P1.json [P1] nodes: must hold at most 500 filtered results (got 501 nodes)" in res.text(
        "PROV-12"
    )
    assert (
        "[P2] nodes: should hold at least 300 (up to 500) filtered results including the probe (got 299)"
        in res.warning("PROV-12")
    )
    assert "[P3]" not in res.text("PROV-12") + res.warning("PROV-12")


@pytest.mark.parametrize("group,outcome", [("M19", "failed"), ("N17", "passed")])
def test_prov13_probe_among_results(omfc, group, outcome):
    """MFC19 "must" include the probe (error), NC17 "should" (warning); D-21."""
    doc = filtering("P1", 300)
    doc["nodes"][0] = node("W999", 0)
    res = make(omfc, group, "PF", {"P1": doc, "P2": filtering("P2", 300)}).run()
    assert res.outcome("PROV-13") == outcome
    text = res.text("PROV-13") if outcome == "failed" else res.warning("PROV-13")
    assert text.splitlines() == [
        "PROV-13: 1 of 2 filtering JSON files does not include the probe (showing 1)",
        f"  {sub_id(group, 'PF')}/jsons/P1.json [P1] nodes: must include the probe itself: a node with fileid P1 or "
        "file world/P1.jpg (got none among 300 nodes)",
    ]


# --------------------------------------------------------------------------- PROV-14, 15: graphs (warnings)


def test_prov14_15_unlinked_nodes_cycles_and_self_loops(omfc):
    unlinked = graph("P1")
    unlinked["nodes"].append(node("W3", 3))
    cycle = graph("P2")
    cycle["links"].append({"source": 2, "target": 0, "relationshipConfidenceScore": 0.2})
    loop = graph("P3")
    loop["links"].append({"source": 1, "target": 1, "relationshipConfidenceScore": 0.2})
    res = make(omfc, "M19", "PG", {"P1": unlinked, "P2": cycle, "P3": loop}).run()
    assert res.outcome("PROV-14") == "passed" and res.outcome("PROV-15") == "passed"  # warnings do not fail
    assert res.warning("PROV-14").splitlines() == [
        "PROV-14: 1 of 3 graph JSON files holds nodes on no link (showing 1)",
        "  p-test_1/jsons/P1.json [P1] nodes: should hold only the nodes of the provenance graph (got 1 of 4 nodes on "
        "no link)",
    ]
    assert res.warning("PROV-15").splitlines() == [
        "PROV-15: 2 of 3 graph JSON files contain a cycle (showing 2)",
        "  p-test_1/jsons/P2.json [P2] links: must be acyclic (got the cycle n0 -> n1 -> n2 -> n0)",
        "  p-test_1/jsons/P3.json [P3] links[2]: must not link a node to itself (got n1 -> n1)",
    ]


# --------------------------------------------------------------------------- PROV-17, PROV-18


def test_prov17_excused_rows_need_no_json(omfc):
    """D-19: NonProcessed/OptOut rows may omit the JSON; naming one that does not exist is a warning."""
    res = make(
        omfc,
        "M19",
        "PF",
        {"P1": "", "P2": None, "P3": filtering("P3", 300)},
        refs={"P1": ""},
        status={"P1": "NonProcessed", "P2": "OptOut"},
    ).run()
    assert res.outcome("PROV-01") == "passed" and res.outcome("PROV-02") == "passed"
    assert res.outcome("PROV-17") == "passed"
    assert res.warning("PROV-17").splitlines() == [
        "PROV-17: 1 of 2 NonProcessed/OptOut rows names a JSON file that does not exist (showing 1)",
        "  p-test_1/p-test_1.csv:3 [P2] ProvenanceOutputFileName='jsons/P2.json': an excused row should leave the "
        "name blank (got a JSON file that does not exist)",
    ]


def test_prov01_nc17_isoptout_y_is_excused_but_n_is_not(omfc):
    res = make(omfc, "N17", "PF", {"P1": "", "P2": ""}, refs={"P1": "", "P2": ""}, status={"P1": "Y"}).run()
    assert res.first_line("PROV-01") == "PROV-01: 1 of 2 probes has no JSON file (showing 1)"
    assert "[P2]" in res.text("PROV-01") and "[P1]" not in res.text("PROV-01")
    assert "only IsOptOut=Y rows may omit it" in res.text("PROV-01")


def test_prov18_defers_to_idx06(omfc):
    res = make(
        omfc, "M19", "PF", {"P1": filtering("P1", 300)}, extra_rows=[out_row("M19", "P9", "jsons/P1.json")]
    ).run()
    assert res.outcome("IDX-06") == "failed"
    assert res.outcome("PROV-18") == "skipped"
    assert res.text("PROV-18") == "PROV-18 skipped: IDX-06 failed: 1 system trial is not in the index"


# --------------------------------------------------------------------------- schema models


def test_generated_schemas_are_draft4_compatible():
    """The runtime schemas come from the models: extra properties allowed, booleans not numbers."""
    f, g = validator_for(ProvenanceFiltering), validator_for(ProvenanceGraph)
    ok = {"nodes": [{"id": "a", "file": "world/a.jpg", "nodeConfidenceScore": 1, "extra": [1]}], "graph": {}}
    assert f.is_valid(ok) and not g.is_valid(ok)
    assert not f.is_valid({"nodes": [{"id": "a", "file": "f", "nodeConfidenceScore": False}]})
    assert not f.is_valid({"nodes": [{"id": "a", "file": "f", "fileid": None, "nodeConfidenceScore": 1}]})
    assert ProvenanceFiltering.model_validate(ok).nodes[0].id == "a"


def test_same_verdicts_under_xdist(omfc):
    """Each xdist worker reads the JSONs itself; the verdicts and texts do not depend on it."""
    bad = graph("P1")
    del bad["nodes"][1]["fileid"]
    bad["links"].append({"source": 2, "target": 0, "relationshipConfidenceScore": 0.2})
    case = make(omfc, "M19", "PG", {"P1": bad, "P2": "{", "P3": graph("P3")})
    serial = case.run()
    res = case.pytester.runpytest_subprocess(*case.args, "-p", "no:cacheprovider", "-n", "2", "-rA")
    outcomes = {}
    for line in res.outlines:
        word, _, rest = line.partition(" ")
        if word in ("PASSED", "FAILED", "SKIPPED") and "::" in rest:
            outcomes[rest.split(" ")[0].rsplit("::", 1)[-1]] = word.lower()
    mine = {r: serial.outcome(r) for r in MY_RULES if r in serial.reports}
    assert {r: outcomes[r] for r in mine} == mine
    assert {r: mine[r] for r in ("PROV-02", "PROV-06", "PROV-15")} == {
        "PROV-02": "failed",
        "PROV-06": "failed",
        "PROV-15": "passed",
    }
    assert serial.first_line("PROV-02") in res.stdout.str()
    assert "PROV-15: 1 of 2 graph JSON files contains a cycle (showing 1)" in res.stdout.str()
