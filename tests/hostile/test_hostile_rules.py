"""Hostile submissions against the DESC, CAM-02, PKG-05/VMASK, PROV and SCORE-06 rules.

Every hostile input is generated here.  Inputs that could hang or eat memory (a huge
description, a FIFO, HDF5 masks that point at other files) run in a subprocess with an
address-space limit and a timeout, so that a regression fails fast instead of stalling.
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import h5py
import numpy as np
import pytest
from helpers.runs import run_capped as python_capped

#: Address-space limit of a capped run (pandas, numpy and h5py need ~1 GB of it).
MEM_LIMIT = 2 * 2**30


@dataclass
class Capped:
    """What a capped pytest subprocess left: per rule ID the outcome, failure/skip text, warning and time."""

    output: str
    outcome: dict[str, str]
    text: dict[str, str]
    warning: dict[str, str]
    seconds: dict[str, float]

    def first_line(self, rid: str) -> str:
        return self.text[rid].splitlines()[0] if self.text.get(rid) else ""

    def first_warning(self, rid: str) -> str:
        return self.warning[rid].splitlines()[0] if self.warning.get(rid) else ""


def run_capped(case, *extra: str, timeout: float = 20) -> Capped:
    """Run the plugin on ``case`` in a subprocess (RLIMIT_AS, ``timeout``); read the junit XML it writes."""
    xml = case.submission.parent / "capped-junit.xml"
    args = [
        "-m",
        "pytest",
        *case.args,
        "-p",
        "no:cacheprovider",
        "-q",
        f"--rootdir={case.submission.parent}",
        f"--junitxml={xml}",
        *extra,
    ]
    proc = python_capped(args, case.submission.parent, timeout=timeout, cap=MEM_LIMIT)
    if proc.ret is None:
        pytest.fail(f"the run took more than {timeout} s")
    output = proc.out + proc.err
    assert "INTERNALERROR" not in output and "Traceback" not in output, output[-3000:]
    outcome, text, warning, seconds = {}, {}, {}, {}
    for tc in ET.parse(xml).getroot().iter("testcase"):
        rid = tc.get("name", "")
        seconds[rid] = float(tc.get("time", "0"))
        outcome[rid], text[rid] = "passed", ""
        for kind in ("failure", "error", "skipped"):
            el = tc.find(kind)
            if el is not None:
                outcome[rid] = {"failure": "failed", "error": "error", "skipped": "skipped"}[kind]
                text[rid] = el.text or el.get("message", "")
        for prop in tc.iter("property"):
            if prop.get("name") == "omfc.warning":
                warning[rid] = prop.get("value", "")
    return Capped(output + xml.read_text(), outcome, text, warning, seconds)


# --------------------------------------------------------------------------- descriptions (DESC-01..04, CAM-02)

CAM_IDX = ["TaskID", "ProbeFileID", "ProbeFileName", "ProbeWidth", "ProbeHeight", "TrainCamID"]
CAM_OUT = [
    "ProbeFileID",
    "TrainCamID",
    "OutputProbeMaskFileName",
    "ConfidenceScore",
    "ProbeStatus",
    "ProbeOptOutPixelValue",
]
CAMS = ["CAM-A_primary_image", "CAM-A_primary_image", "CAM-B_primary_video"]
HEAD = """\
1. Submission Identifier(s): p-test_1
2. System Description: a camera fingerprint system.
3. OptOut Criteria: none
4. System Hardware Description and Runtime Computation: 2 CPU cores, 1 minute.
5. Training Data and Knowledge Sources: none.
6. References: none.
"""


def camera(omfc, description: str | None = "default"):
    rows = [[f"T{i}", c, "", "0.5", "Processed", ""] for i, c in enumerate(CAMS)]
    return omfc.case(
        "MFC2019",
        "camera",
        header=CAM_OUT,
        rows=rows,
        index_header=CAM_IDX,
        description=description,
        index_rows=[["camera", f"T{i}", f"probe/T{i}.jpg", 64, 48, c] for i, c in enumerate(CAMS)],
    )


def hostile_line(size: int) -> str:
    """One line of ``size`` bytes whose first 64 KiB hold both regex bombs of the old code: "Section 1" and
    30,000 blanks (the run-in heading pattern split the blanks two ways: quadratic) and 3,000 "condition"s
    with no sentence end (CAM-02's lazy scan from each: quadratic)."""
    line = "Section 1" + " " * 30_000 + "! " + "condition " * 3_000
    return (line + "x" * size)[: size - len(HEAD) - 1] + "\n"


@pytest.mark.parametrize("size", [160 * 1024, 1024 * 1024], ids=["160KiB", "1MiB"])
def test_long_one_line_description_is_read_in_linear_time(omfc, size):
    """CAM-02 took 47 s on a 160 KB line and more than 300 s on 1 MB; the heading patterns were quadratic too."""
    case = camera(omfc, description=HEAD + hostile_line(size))
    assert (case.submission / "p-test_1.txt").stat().st_size == size
    res = run_capped(case, "-k", "DESC or CAM")
    for rid in ("DESC-01", "DESC-03", "DESC-04", "CAM-02"):
        assert res.outcome[rid] == "passed", res.text[rid]
        assert res.seconds[rid] < 1.0, (rid, res.seconds[rid])
    got = "1.0 MiB" if size == 1024 * 1024 else "160 KiB"
    assert res.warning["DESC-01"].splitlines() == [
        f"DESC-01: the system description is larger than 64 KiB ({got}) (showing 1)",
        f"  p-test_1/p-test_1.txt: the system description should be at most 64 KiB, a few pages of text "
        f"(got {got}); only its first 64 KiB were checked",
    ]
    assert (
        res.first_warning("CAM-02")
        == "CAM-02: the system description does not state the camera train-test condition (showing 1)"
    )
    assert "DESC-04" not in res.warning  # the head was read: Section 1 lists the SubID


def test_description_head_is_read_up_to_the_limit(omfc):
    """A description just at the limit is not reported; one byte more is, and its head still counts."""
    from pytest_omfc.models.description import MAX_BYTES, read_description

    path = omfc.write("d/at.txt", HEAD + "x" * (MAX_BYTES - len(HEAD)))
    got = read_description(path)
    assert (got.truncated, got.size, got.problem, len(got.text)) == (False, MAX_BYTES, None, MAX_BYTES)
    path = omfc.write("d/over.txt", HEAD + "é" * MAX_BYTES)  # cut inside a two-byte character
    got = read_description(path)
    assert (got.truncated, got.problem) == (True, None)
    assert got.text.startswith(HEAD) and len(got.text.encode()) <= MAX_BYTES


FIFO_READ = """
import sys
from pathlib import Path
from pytest_omfc.models.description import read_description
got = read_description(Path(sys.argv[1]))
print(got.text, got.problem, sep="|")
"""


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_description_fifo_is_never_opened(omfc, tmp_path):
    """Opening a FIFO blocks until a writer comes: the reader must report it, not open it."""
    fifo = tmp_path / "desc.txt"
    os.mkfifo(fifo)
    proc = python_capped(["-c", FIFO_READ, str(fifo)], tmp_path, timeout=20, cap=MEM_LIMIT)
    if proc.ret is None:
        pytest.fail("read_description blocked on a FIFO")
    assert proc.out.strip() == "None|must be a regular file (got a FIFO (named pipe))", proc.err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_description_fifo_in_a_submission_fails_pkg03_without_hanging(omfc):
    case = camera(omfc, description=None)
    os.mkfifo(case.submission / "p-test_1.txt")
    res = run_capped(case, "-k", "PKG-03 or DESC or CAM-02")
    assert res.outcome["PKG-03"] == "failed"
    assert (
        "the system description must be the text file p-test_1.txt (got a FIFO, not a regular file)"
        in res.text["PKG-03"]
    )
    for rid in ("DESC-01", "DESC-03", "DESC-04", "CAM-02"):
        assert res.outcome[rid] == "skipped", rid


# --------------------------------------------------------------------------- PKG-05: HDF5 masks reading other files

VID_IDX = ["TaskID", "ProbeFileID", "ProbeFileName", "ProbeWidth", "ProbeHeight", "FrameCount"]
VID_OUT = [
    "ProbeFileID",
    "ConfidenceScore",
    "ProbeStatus",
    "VideoFrameSegments",
    "AudioSampleSegments",
    "VideoFrameOptOutSegments",
    "OutputProbeMaskFileName",
    "ProbeOptOutPixelValue",
]
MARKER = b"OMFC-SECRET-MARKER-7f3a"
SHAPE = (2, 48, 64)


def video(omfc, n: int):
    ids = [f"v{i + 1}" for i in range(n)]
    rows = [[i, 0.5, "Processed", "[]", "[]", "[]", f"mask/{i}.hdf5", ""] for i in ids]
    return omfc.case(
        "MFC2019",
        "manipulation-video",
        header=VID_OUT,
        rows=rows,
        index_header=VID_IDX,
        index_rows=[["manipulation-video", i, f"probe/{i}.mp4", 64, 48, 100] for i in ids],
    )


def outside_files(root: Path) -> tuple[Path, Path]:
    """A raw file and an HDF5 file outside the submission, both full of the marker."""
    raw = root / "elsewhere" / "raw.bin"
    raw.parent.mkdir(parents=True, exist_ok=True)
    n = int(np.prod(SHAPE))
    raw.write_bytes((MARKER * (n // len(MARKER) + 1))[:n])
    src = root / "elsewhere" / "source.h5"
    with h5py.File(src, "w") as f:
        f.create_dataset("data", data=np.frombuffer(raw.read_bytes(), dtype="uint8").reshape(SHAPE))
        f.create_group("grp").create_dataset("masks", data=np.zeros(SHAPE, dtype="uint8"))
    return raw, src


def test_pkg05_fails_hdf5_masks_that_take_data_from_other_files(omfc):
    """D-24: external raw-data storage, a virtual dataset over another file and an external link (deep in
    the tree) all make a reader read outside bytes; the marker in those bytes must never be shown."""
    case = video(omfc, 4)
    raw, src = outside_files(case.submission.parent)
    mask = case.submission / "mask"
    mask.mkdir()
    with h5py.File(mask / "v1.hdf5", "w") as f:
        f.create_group("0").create_dataset(
            "masks", shape=SHAPE, dtype="uint8", external=[(str(raw), 0, raw.stat().st_size)]
        )
    with h5py.File(mask / "v2.hdf5", "w") as f:
        layout = h5py.VirtualLayout(shape=SHAPE, dtype="uint8")
        layout[...] = h5py.VirtualSource(str(src), "data", shape=SHAPE)
        f.create_group("0").create_virtual_dataset("masks", layout)
    with h5py.File(mask / "v3.hdf5", "w") as f:
        g = f.create_group("0")
        g.create_dataset("masks", data=np.full(SHAPE, 255, dtype="uint8"))
        g["extra"] = h5py.ExternalLink(str(src), "/data")
    with h5py.File(mask / "v4.hdf5", "w") as f:  # a clean mask: no finding
        f.create_group("0").create_dataset("masks", data=np.full(SHAPE, 255, dtype="uint8"))
    res = run_capped(case, "-k", "PKG-05 or VMASK")
    assert MARKER.decode() not in res.output
    assert res.outcome["PKG-05"] == "failed"
    lines = res.text["PKG-05"].splitlines()
    assert lines[0] == "PKG-05: 3 HDF5 masks take data from another file (showing 3)"
    assert lines[1].startswith(
        "  p-test_1/p-test_1.csv:2 [v1] OutputProbeMaskFileName='mask/v1.hdf5': the HDF5 mask "
        "must hold its frames in p-test_1/mask/, not take them from another file (got the dataset "
        "'0/masks' stored in the external file "
    )
    assert (
        "[v2] OutputProbeMaskFileName='mask/v2.hdf5'" in lines[2]
        and "(got the virtual dataset '0/masks' mapping the file " in lines[2]
    )
    assert (
        "[v3] OutputProbeMaskFileName='mask/v3.hdf5'" in lines[3] and "(got an external link '0/extra' to " in lines[3]
    )
    for rid in ("VMASK-02", "VMASK-03", "VMASK-04", "VMASK-07"):
        assert res.outcome[rid] == "passed" and rid not in res.warning, (rid, res.warning.get(rid))


# --------------------------------------------------------------------------- PROV: duplicate keys, PROV-04/05/10

PROV_IDX = [
    "TaskID",
    "ProvenanceProbeFileID",
    "ProvenanceProbeFileName",
    "ProvenanceProbeWidth",
    "ProvenanceProbeHeight",
]
PROV_OUT = ["ProvenanceProbeFileID", "ProvenanceOutputFileName", "ProvenanceProbeStatus"]


def graph(probe: str) -> dict:
    nodes = [
        {"id": f"n{i}", "file": f"world/{f}.jpg", "fileid": f, "nodeConfidenceScore": 0.5}
        for i, f in enumerate(("W1", "W2", probe))
    ]
    return {
        "directed": True,
        "nodes": nodes,
        "links": [
            {"source": 0, "target": 1, "relationshipConfidenceScore": 0.9},
            {"source": 1, "target": 2, "relationshipConfidenceScore": 0.8},
        ],
    }


def provenance(omfc, task: str, docs: dict[str, str]):
    rows = [[p, f"jsons/{p}.json", "Processed"] for p in docs]
    return omfc.case(
        "MFC2019",
        task,
        header=PROV_OUT,
        rows=rows,
        index_header=PROV_IDX,
        index_rows=[[task, p, f"world/{p}.jpg", 640, 480] for p in docs],
        files={f"jsons/{p}.json": text for p, text in docs.items()},
    )


def test_prov02_fails_duplicate_keys_naming_the_key(omfc):
    """json.loads keeps the last of two equal keys silently; a reader keeping the first sees another graph."""
    doc = json.dumps(graph("P1"), indent=1)
    dup_node = doc.replace('"nodeConfidenceScore": 0.5', '"nodeConfidenceScore": 0.5, "nodeConfidenceScore": 0.9', 1)
    dup_top = doc.replace('"directed": true', '"links": [], "directed": true', 1)
    res = provenance(omfc, "provenance", {"P1": dup_node, "P2": dup_top, "P3": doc}).run()
    assert res.outcome("PROV-02") == "failed"
    assert res.text("PROV-02").splitlines() == [
        "PROV-02: 2 of 3 referenced JSON files are missing or not JSON objects (showing 2)",
        "  p-test_1/p-test_1.csv:2 [P1] ProvenanceOutputFileName='jsons/P1.json': must be valid JSON with unique keys "
        "in each object (got the key 'nodeConfidenceScore' twice)",
        "  p-test_1/p-test_1.csv:3 [P2] ProvenanceOutputFileName='jsons/P2.json': must be valid JSON with unique keys "
        "in each object (got the key 'links' twice)",
    ]


def test_graph_defects_are_named_by_prov04_and_prov10_not_prov05(omfc):
    """PROV-04: SchG requires ``links``; PROV-10: every link has a relationshipConfidenceScore.
    A graph JSON lacking either breaks that rule; it is no "filtering result" for PROV-05."""
    no_links = graph("P1")
    del no_links["links"]
    no_conf = graph("P2")
    del no_conf["links"][1]["relationshipConfidenceScore"]
    docs = {"P1": no_links, "P2": no_conf, "P3": graph("P3")}
    res = provenance(omfc, "provenance", {p: json.dumps(d) for p, d in docs.items()}).run()
    assert (
        res.first_line("PROV-04")
        == "PROV-04: 2 of 3 JSON files do not match the provenance graph-building schema (showing 2)"
    )
    assert (
        "[P1] (top level): must match the provenance graph-building schema (got: 'links' is a required property)"
        in res.text("PROV-04")
    )
    assert (
        res.first_line("PROV-10")
        == "PROV-10: 1 link in 1 of 3 JSON files lacks a numeric relationshipConfidenceScore (showing 1)"
    )
    assert (
        "p-test_1/jsons/P2.json [P2] links[1]: every link must carry a relationshipConfidenceScore (got none)"
        in res.text("PROV-10")
    )
    assert res.outcome("PROV-05") == "passed", res.text("PROV-05")


# --------------------------------------------------------------------------- SCORE-06 (NC2017)

NC_IDX = ["TaskID", "ProbeFileID", "ProbeFileName", "ProbeWidth", "ProbeHeight"]
NC_OUT = ["ProbeFileID", "ConfidenceScore", "OutputProbeMaskFileName", "IsOptOut"]


def test_score06_is_an_error_in_nc2017(omfc):
    """NC17 §2.1.1.2: "The confidence score for opted out trials must be a constant value less than the
    values of all the processed trials" -- "must", so an error (D-04)."""
    scores, opt = ["0.2", "0.9", "0.1", "0.5"], ["N", "N", "Y", "Y"]
    rows = [[f"T{i}", s, "", o] for i, (s, o) in enumerate(zip(scores, opt, strict=False))]
    res = omfc.case(
        "NC2017",
        "manipulation",
        header=NC_OUT,
        rows=rows,
        index_header=NC_IDX,
        index_rows=[["manipulation", f"T{i}", f"probe/T{i}.jpg", 64, 48] for i in range(4)],
        sub_id="NIST_NC17_Dev1_Manipulation_ImgOnly_p-test_1",
    ).run()
    assert res.failed() == ["SCORE-06"]
    lines = res.text("SCORE-06").splitlines()
    assert lines[0] == (
        "SCORE-06: opted-out trials have 2 different scores; 1 of 2 opted-out trials "
        "score at least the lowest processed score 0.2 (showing 2)"
    )
    assert "opted-out trials must share one constant score (got 2 different scores: 0.1, 0.5)" in lines[1]
    assert lines[2].endswith(
        "ConfidenceScore='0.5': an opted-out trial's score must be lower than every processed "
        "trial's (got 0.5; the lowest processed score is 0.2)"
    )
