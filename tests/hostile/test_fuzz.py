"""Fuzzing: hypothesis mutates valid submissions; the plugin must judge every one of them.

Targets: the system-output CSV (cells, rows, columns, then raw bytes), PNG masks (IHDR fields,
chunks, IDAT streams, CRCs), MFC2019 HDF5 video masks (layout: groups, datasets, shapes,
dtypes, links, external storage; then raw bytes) and MFC2019 provenance JSON (structure, then
text and bytes).  For every generated submission (the CONTRIBUTING rule "bad input never
crashes the run"):

* the run ends in time and its exit code is 0 or 1;
* no traceback, INTERNALERROR, "please report this as a pytest-omfc bug" or MemoryError;
* its peak RSS stays under ``PEAK_LIMIT_MB`` within an address-space cap (RLIMIT_AS);
* nothing in the submission or the dataset changed;
* on a small sample, ``-n 2`` gives the same verdicts (JUnit XML) and exit code.

Runs go through one capped runner subprocess (tests/helpers/fuzz.py), a fraction of a second
each.  Profiles (environment variable ``HYPOTHESIS_PROFILE``): ``default``, few examples,
derandomised so CI is deterministic; ``deep``, many random examples with hypothesis's example
database, for hunting: ``HYPOTHESIS_PROFILE=deep pytest tests/hostile/test_fuzz.py -n 2``.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import h5py
import numpy as np
import pytest
from helpers.fuzz import (
    EXAMPLES,
    IMDL_MASK,
    PROV_PROBES,
    VIDEO_MASK,
    XDIST_EXAMPLES,
    Built,
    Runner,
    RunResult,
    assert_properties,
    imdl,
    prov_doc,
    provenance,
    run_xdist,
    snapshot,
    verdicts,
    video,
)
from helpers.fuzz_cases import (
    ENCODINGS,
    NEWLINES,
    apply_bytes,
    byte_op,
    mutate_csv,
    mutate_json_doc,
    mutate_png,
    png_mutation,
)
from hypothesis import example, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.fuzz


def judge(runner: Runner, built: Built, *extra: str) -> RunResult:
    """Run the plugin on ``built`` and assert the properties; the case's files are removed after."""
    before = snapshot(built.submission) | snapshot(built.index.parent)
    try:
        res = runner.run(built, *extra)
        assert_properties(res, before, snapshot(built.submission) | snapshot(built.index.parent))
        return res
    finally:
        if not extra:
            shutil.rmtree(built.root, ignore_errors=True)


# ------------------------------------------------------------------ raw bytes


# ------------------------------------------------------------------ CSV

HOSTILE_CELLS = [
    "",
    " ",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "1e309",
    "-0",
    "0x1p-2",
    "1_0",
    "\u0663",
    " 0.5",
    "0.5 ",
    '"0.5"',
    '"',
    '""',
    '"a|b"',
    "|",
    "\x00",
    "\r",
    "\u2028",
    "\u0085",
    "\x1b[31mred",
    "\u202e",
    "\ufeff",
    "\udcff"[:0] + "\xe9",
    "Processed",
    "processed",
    "NonProcessed",
    "OptOutAll",
    "OptOutLocalization",
    "255",
    "256",
    "-1",
    "0",
    "1",
    "mask/OpenMFC2020_0103-mask.png",
    "mask/OpenMFC2020_0101-mask.png",
    "../../etc/passwd",
    "/etc/passwd",
    "mask/",
    "mask/../mask/OpenMFC2020_0101-mask.png",
    "C:\\mask.png",
    "\\\\server\\share\\m.png",
    "mask/missing.png",
    "OpenMFC2020_0101",
    "OpenMFC2020_0102",
    "OpenMFC2020_9999",
    "a" * 5000,
    "0." + "1" * 400,
]
cell = st.one_of(st.sampled_from(HOSTILE_CELLS), st.text(max_size=12))
csv_op = st.one_of(
    st.tuples(st.just("set"), st.integers(0, 50), st.integers(0, 8), cell),
    st.tuples(st.just("drop_row"), st.integers(0, 50)),
    st.tuples(st.just("dup_row"), st.integers(0, 50), st.integers(1, 3)),
    st.tuples(st.just("swap_cols"), st.integers(0, 8), st.integers(0, 8)),
    st.tuples(st.just("drop_col"), st.integers(0, 8)),
    st.tuples(st.just("add_col"), st.integers(0, 8), cell),
    st.tuples(st.just("raw_line"), st.integers(0, 50), st.text(max_size=30)),
    st.tuples(
        st.just("tail"), st.sampled_from(["junk", "", "a|b", "|||||", '"']), st.integers(1, 2000)
    ),  # records at the end
)


csv_mutation = st.tuples(st.lists(csv_op, max_size=6), NEWLINES, ENCODINGS, st.lists(byte_op, max_size=3))


#: the issue's CSV tails, at a tenth of its 2,000,000 junk records and in full for its 2 MB of blank lines
CSV_JUNK: tuple[Any, ...] = ([("tail", "junk", 200_000)], "\n", "utf-8", [])
CSV_BLANK: tuple[Any, ...] = ([("tail", "", 2_000_000)], "\n", "utf-8", [])


@example(mutation=CSV_JUNK, sparse_gib=0)
@example(mutation=CSV_BLANK, sparse_gib=0)
@example(mutation=([], "\n", "utf-8", []), sparse_gib=12)  # a 12 GiB sparse tail of NULs: costs no disk
@given(mutation=csv_mutation, sparse_gib=st.sampled_from([0] * 9 + [1]))
def test_fuzz_csv(runner: Runner, fresh: Callable[[], Path], mutation: tuple[Any, ...], sparse_gib: int) -> None:
    built = imdl(fresh())
    built.csv.write_bytes(mutate_csv(built.csv.read_text(), *mutation))
    if sparse_gib:
        os.truncate(built.csv, sparse_gib << 30)
    judge(runner, built)


# ------------------------------------------------------------------ PNG


#: the issue's header bomb: interlaced grey, 1 x 2147483647 pixels, a tiny IDAT of zeros
PNG_BOMB: tuple[Any, ...] = (
    {"width": 1, "height": 2**31 - 1, "depth": 8, "colour": 0, "compression": 0, "filter": 0, "interlace": 1},
    ("zeros", 259),
    [],
    [],
    [],
)


@example(mutation=PNG_BOMB)
@given(mutation=png_mutation)
def test_fuzz_png_mask(runner: Runner, fresh: Callable[[], Path], mutation: tuple[Any, ...]) -> None:
    built = imdl(fresh())
    mask = built.submission / IMDL_MASK
    mask.write_bytes(mutate_png(mask.read_bytes(), *mutation))
    judge(runner, built)


def _rules_and_scorer_agree(root: Path) -> None:
    """Issue 17's property on a scored run: a mask file a rule fails (MASK-03..07, errors) is never
    scored, and one that no rule fails is scored (the reference is valid, so nothing else stops it)."""
    junit, doc = verdicts(root / "j.xml"), json.loads((root / "m.json").read_text())
    rejected = [
        rid
        for rid in ("MASK-03", "MASK-04", "MASK-05", "MASK-06", "MASK-07")
        if junit.get(rid, ("passed",))[0] == "failure"
    ]
    mask = next(r for r in doc["results"] if r["scorer"] == "mask")
    row = next(r for r in mask["per_probe"] or [] if r["ProbeFileID"] == "OpenMFC2020_0101")
    if rejected:
        assert row["Scored"] == "N" and (row["NotScoredReason"] or "").startswith("MASK-0"), (rejected, row)
    else:
        assert row["Scored"] == "Y", f"no MASK rule failed the mask but it was not scored: {row['NotScoredReason']!r}"
    item = junit.get("mask", ("absent", "", False))
    assert "could not run" not in item[1], item


@example(mutation=PNG_BOMB)
@given(mutation=png_mutation)
def test_fuzz_png_mask_rules_and_scorer_agree(
    runner: Runner, fresh: Callable[[], Path], mutation: tuple[Any, ...]
) -> None:
    """The PNG mutations, scored against the example's reference: the run still has every property of
    :func:`judge`, and the mask scorer agrees with the MASK rules about the mutated file."""
    root = fresh()
    built = imdl(root)
    shutil.copytree(EXAMPLES / "datasets" / "OpenMFC2020" / "reference", root / "dataset" / "reference")
    mask = built.submission / IMDL_MASK
    mask.write_bytes(mutate_png(mask.read_bytes(), *mutation))
    try:
        judge(
            runner,
            built,
            "--omfc-reference",
            "reference/IMDL/OpenMFC20_Image-IMDL-ref.csv",
            "--omfc-metrics-json",
            str(root / "m.json"),
            "--junitxml",
            str(root / "j.xml"),
            "--omfc-score",
            "mask",
        )
        _rules_and_scorer_agree(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)


# ------------------------------------------------------------------ HDF5 (MFC2019 video masks)

OUTSIDE_MARKER = b"OUTSIDE-THE-SUBMISSION-7f3a"
h5_entry = st.fixed_dictionaries(
    {
        "name": st.one_of(
            st.sampled_from(
                ["0", "10", "99", "119", "120", "-1", "01", "abc", "1e3", "4294967296", " 5", "0/1", "masks", "\u00e9"]
            ),
            st.integers(0, 10**6).map(str),
        ),
        "kind": st.sampled_from(
            [
                "group",
                "group",
                "group",
                "dataset",
                "empty-group",
                "nested",
                "soft",
                "external-link",
                "external-storage",
                "attribute",
            ]
        ),
        "shape": st.lists(st.sampled_from([0, 1, 2, 3, 47, 48, 64, 65, 100_000]), max_size=4).map(tuple),
        "dtype": st.sampled_from(["uint8", "uint8", "int8", "uint16", "float32", "bool", "int64", "S3", "complex64"]),
        "chunked": st.booleans(),
        "gzip": st.booleans(),
        "fill": st.sampled_from([0, 1, 255]),
    }
)
h5_mutation = st.tuples(
    st.lists(h5_entry, max_size=5, unique_by=lambda e: e["name"]), st.booleans(), st.lists(byte_op, max_size=2)
)


def write_h5(path: Path, entries: list[dict[str, Any]], outside: Path) -> None:
    """An HDF5 file of the given layout; datasets keep their fill value (no pixel written), so a
    declared 100000x64x48 block costs a few bytes.  Entries h5py refuses are left out."""
    with h5py.File(path, "w") as f:
        for e in entries:
            name, shape, dtype = e["name"], e["shape"], np.dtype(e["dtype"])
            opts: dict[str, Any] = {}
            if e["chunked"] and shape and all(shape):
                opts["chunks"] = True
                if e["gzip"]:
                    opts["compression"] = "gzip"
            fill = e["fill"] if dtype.kind in "uifc" else None
            try:
                if e["kind"] == "group":
                    f.create_group(name).create_dataset("masks", shape=shape, dtype=dtype, fillvalue=fill, **opts)
                elif e["kind"] == "dataset":
                    f.create_dataset(name, shape=shape, dtype=dtype, fillvalue=fill, **opts)
                elif e["kind"] == "empty-group":
                    f.create_group(name)
                elif e["kind"] == "nested":
                    f.create_group(name).create_group("inner").create_dataset("masks", shape=shape, dtype=dtype)
                elif e["kind"] == "soft":
                    f[name] = h5py.SoftLink("/nowhere")
                elif e["kind"] == "external-link":
                    f[name] = h5py.ExternalLink(str(outside.with_suffix(".h5")), "/0")
                elif e["kind"] == "external-storage":
                    n = int(np.prod(shape)) * dtype.itemsize if shape else dtype.itemsize
                    f.create_group(name).create_dataset(
                        "masks", shape=shape, dtype=dtype, external=[(str(outside), 0, max(n, 1))]
                    )
                elif e["kind"] == "attribute":
                    f.create_group(name).attrs["masks"] = np.zeros(min(int(np.prod(shape)) if shape else 1, 1000))
            except (ValueError, TypeError, OSError, KeyError, RuntimeError):
                continue


@example(
    mutation=(
        [
            {
                "name": "0",
                "kind": "group",
                "shape": (100_000, 48, 64),
                "dtype": "uint8",
                "chunked": True,
                "gzip": True,
                "fill": 255,
            }
        ],
        True,
        [],
    )
)  # 300 MB declared, a few KB on disk
@given(mutation=h5_mutation)
def test_fuzz_hdf5_mask(runner: Runner, fresh: Callable[[], Path], mutation: tuple[Any, ...]) -> None:
    entries, from_scratch, raw = mutation
    built = video(fresh())
    outside = built.root / "outside.bin"
    outside.write_bytes(OUTSIDE_MARKER * 64)
    mask = built.submission / VIDEO_MASK
    if from_scratch or entries:
        mask.unlink()
        write_h5(mask, entries, outside)
    if raw:
        mask.write_bytes(apply_bytes(mask.read_bytes(), raw))
    res = judge(runner, built)
    assert OUTSIDE_MARKER.decode() not in res.output, "bytes of a file outside the submission were printed"


# ------------------------------------------------------------------ JSON (MFC2019 provenance)

KEYS = [
    "directed",
    "nodes",
    "links",
    "id",
    "file",
    "fileid",
    "nodeConfidenceScore",
    "source",
    "target",
    "relationshipConfidenceScore",
    "operation",
]
json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(),
    st.text(max_size=10),
    st.sampled_from(["n0", "n1", "W1", "P1", "P2", "world/W1.jpg", "../x", ""]),
)
json_value = st.recursive(
    json_leaf,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=12,
)
json_op = st.one_of(
    st.tuples(st.just("set"), st.lists(st.integers(0, 20), max_size=4), json_value),
    st.tuples(st.just("delete"), st.lists(st.integers(0, 20), min_size=1, max_size=4)),
)
json_text = st.one_of(
    st.just(("plain",)),
    st.tuples(st.just("duplicate-key"), st.sampled_from(KEYS[:3]), json_value),
    st.tuples(st.just("nest"), st.sampled_from([10, 1000, 100_000])),
    st.tuples(st.just("encoding"), st.sampled_from(["utf-16", "utf-8-sig", "latin-1", "utf-32"])),
    st.tuples(st.just("long-string"), st.sampled_from([10_000, 1_000_000])),
)
json_mutation = st.tuples(
    st.sampled_from(["filtering", "graph"]), st.lists(json_op, max_size=4), json_text, st.lists(byte_op, max_size=2)
)


def mutate_json(kind: str, ops: list[tuple[Any, ...]], text_op: tuple[Any, ...], raw: list[tuple[Any, ...]]) -> bytes:
    return mutate_json_doc(prov_doc(kind, PROV_PROBES[0]), ops, text_op, raw)


@example(mutation=("graph", [], ("nest", 100_000), []))  # deeper than Python's recursion limit
@given(mutation=json_mutation)
def test_fuzz_provenance_json(runner: Runner, fresh: Callable[[], Path], mutation: tuple[Any, ...]) -> None:
    built = provenance(fresh(), mutation[0], mutate_json(*mutation))
    judge(runner, built)


# ------------------------------------------------------------------ -n 2 gives the same verdicts


@settings(max_examples=XDIST_EXAMPLES)
@given(csv=csv_mutation, png=png_mutation)
def test_fuzz_xdist_same_verdicts(
    runner: Runner, fresh: Callable[[], Path], csv: tuple[Any, ...], png: tuple[Any, ...]
) -> None:
    """A mutated IMDL submission (CSV and mask) gets the same verdict from one process and from -n 2."""
    built = imdl(fresh())
    try:
        built.csv.write_bytes(mutate_csv(built.csv.read_text(), *csv))
        mask = built.submission / IMDL_MASK
        mask.write_bytes(mutate_png(mask.read_bytes(), *png))
        one, two = built.root / "one.xml", built.root / "two.xml"
        single = judge(runner, built, f"--junitxml={one}")
        before = snapshot(built.submission) | snapshot(built.index.parent)
        parallel = run_xdist(built, f"--junitxml={two}")
        assert_properties(parallel, before, snapshot(built.submission) | snapshot(built.index.parent))
        assert parallel.rc == single.rc
        assert verdicts(two) == verdicts(one)
    finally:
        shutil.rmtree(built.root, ignore_errors=True)


# ------------------------------------------------------------------ the harness itself


def test_runner_reports_bombs_hangs_and_peaks(runner: Runner, fresh: Callable[[], Path]) -> None:
    """The properties can fail: an allocation past the cap, a hang and a high peak are each reported,
    and the runner recovers for the next request."""
    built = imdl(fresh())
    before = snapshot(built.submission)
    res = runner.run(built, exec_first="bytearray(4 << 30)")
    with pytest.raises(AssertionError, match=r"exit code must be 0 or 1 \(got -1\)"):
        assert_properties(res, before, before)
    assert "MemoryError" in res.output
    res = runner.run(built, exec_first="import time; time.sleep(60)", timeout=3)
    with pytest.raises(AssertionError, match="the run timed out after"):
        assert_properties(res, before, before)
    res = runner.run(built, exec_first="b = b'\\x01' * (700 << 20)")
    assert res.rc == 0
    with pytest.raises(AssertionError, match="peak RSS must stay under 600 MB"):
        assert_properties(res, before, before)
    ok = runner.run(built)
    assert_properties(ok, before, snapshot(built.submission))
    assert ok.rc == 0 and 20 < ok.peak_mb < 600
    with pytest.raises(AssertionError, match="the run wrote into the submission"):
        (built.submission / "new.txt").write_text("x")
        assert_properties(ok, before, snapshot(built.submission))
