"""Benchmark of provenance scoring (pytest_omfc.scoring.provenance) against a plain-Python baseline.

Generates its inputs once (cached under ``$XDG_CACHE_HOME/pytest-omfc-bench`` or
``/tmp/pytest-omfc-bench``, in ``provenance-v1``): N trials (default 1,000), one
journal each with 20 to 200 nodes (a random DAG of base/donor/interim/final
nodes whose last final node is the probe, with ``Donor`` links, some made void
by an ``AntiForensic*`` link into the same target), a node table listing every
journal node of the probe, a world index holding about 75 % of them (the rest
are absent and bypassed), the reference CSV, the index, and a system output
index with one node-link JSON per trial (most present files, false alarms,
kept / reversed / invented links, confidences in 0.05 steps so ties occur).
Layouts are MediScore's ``provenanceScorerTests`` ones.

It prints, in one run:

1. a conformance check: every per-trial score and every mean of the engine
   equals the baseline's to 1e-9 (graph building in the four combinations of
   direct / undirected, filtering with ``--nodetype all``: overall + 4 types);
2. wall and CPU time of the engine and of the baseline for each mode, on the
   same files (both read the CSVs and JSONs: the whole run is timed), the
   per-trial cost, and the time at N/4, N/2 and N trials (linearity); the
   engine is called as the plugin calls it (node and link mappings only with
   ``--omfc-provenance-mappings``: the "graph mappings" row);
3. peak Python heap (tracemalloc) of one engine and one baseline run, and the
   process's peak RSS (VmHWM).

The baseline is what MediScore does, written straightforwardly: ``csv`` and
``json`` reading, per trial loops over journal nodes and links, AntiForensic
donor rule, bypass of absent nodes by a depth-first walk from every present
node, direct mode by two walks from the probe, set matching of nodes and
links; filtering by a stable sort on confidence and set membership of the top n.
It is kept independent of the engine's code on purpose (other algorithms for
the reduction and the ranking), so agreement is a real cross-check.

Run: ``PYTHONPATH=. python benchmarks/score_provenance.py [--quick] [--trials N] [--repeat R] [--profile]``
(about 3 minutes on 2 CPUs with the defaults; ``--quick`` about 20 s)
"""

from __future__ import annotations

import argparse
import cProfile
import csv
import io
import json
import math
import os
import pstats
import random
import resource
import shutil
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Any

import pandas as pd
from _timing import best  # benchmarks/_timing.py: the scripts run from this folder
from _tree import run_tree

from pytest_omfc.scoring.provenance import (
    MEDISCORE_ALL_NODE_TYPES,
    NODE_RECALL_NS,
    score_filtering,
    score_graph_building,
)

VERSION = "provenance-v1"
SEED = 20171
NODE_KINDS = ("base", "donor", "interim", "final")


def cache_root() -> Path:
    """Where inputs are cached: ``$XDG_CACHE_HOME/pytest-omfc-bench`` or ``/tmp/pytest-omfc-bench``."""
    base = os.environ.get("XDG_CACHE_HOME")
    return (Path(base) if base else Path("/tmp")) / "pytest-omfc-bench"


# --------------------------------------------------------------------------- inputs


def _journal(rng: random.Random, jid: str, k: int) -> tuple[dict[str, Any], list[str], list[str]]:
    """A k-node DAG journal (links go from lower to higher index); returns (doc, node ids, node types)."""
    ids = [f"{jid}-n{i:03d}" for i in range(k)]
    n_base = max(1, k // 10)
    types = ["base" if i < n_base else rng.choice(("donor", "interim", "interim")) for i in range(k)]
    types[-1] = "final"
    for i in rng.sample(range(n_base, k - 1), k // 15):
        types[i] = "final"
    links: list[dict[str, Any]] = []
    for t in range(1, k):
        parents = rng.sample(range(t), min(t, rng.choice((1, 1, 2))))
        for s in parents:
            links.append({"source": s, "target": t, "op": "Donor" if types[s] == "donor" else "Blur"})
        if t >= n_base and rng.random() < 0.05:  # AntiForensic link voids the Donor links into t
            links.append({"source": rng.randrange(t), "target": t, "op": "AntiForensicExifQuantizationTable"})
    doc = {
        "directed": True,
        "graph": {"name": jid},
        "multigraph": False,
        "nodes": [{"id": i, "nodetype": ty, "file": f"{i}.png"} for i, ty in zip(ids, types, strict=True)],
        "links": links,
    }
    return doc, ids, types


def generate(root: Path, trials: int, seed: int = SEED) -> None:
    """Write the dataset under ``root`` (idempotent: a ``.done`` marker names the trial count)."""
    marker = root / ".done"
    if marker.exists() and marker.read_text() == str(trials):
        return
    rng = random.Random(seed)
    (root / "journals").mkdir(parents=True, exist_ok=True)
    (root / "jsons").mkdir(parents=True, exist_ok=True)
    index, ref, node, world, system = [], [], [], [], []
    for j in range(trials):
        k = rng.randint(20, 200)
        jid = f"J{j:05d}"
        doc, ids, _types = _journal(rng, jid, k)
        jfile = f"journals/{jid}.json"
        (root / jfile).write_text(json.dumps(doc))
        pid = f"p{j:05d}"
        probe_path = f"world/{pid}.jpg"
        index.append(
            {
                "TaskID": "provenance",
                "ProvenanceProbeFileID": pid,
                "ProvenanceProbeFileName": probe_path,
                "ProvenanceProbeWidth": 1,
                "ProvenanceProbeHeight": 1,
            }
        )
        ref.append(
            {
                "TaskID": "provenance",
                "ProvenanceProbeFileID": pid,
                "ProvenanceProbeFileName": probe_path,
                "BaseFileName": "",
                "BaseBrowserFileName": "",
                "JournalName": jid,
                "JournalFileName": jfile,
                "JournalMD5": "",
            }
        )
        files: list[str] = []
        for i, nid in enumerate(ids):
            if i == k - 1:
                node.append(
                    {
                        "ProvenanceProbeFileID": pid,
                        "WorldFileID": pid,
                        "WorldFileName": probe_path,
                        "JournalNodeID": nid,
                    }
                )
                files.append(probe_path)
                continue
            wid = f"w{j:05d}x{i:03d}"
            wname = f"world/{wid}.png"
            node.append(
                {"ProvenanceProbeFileID": pid, "WorldFileID": wid, "WorldFileName": wname, "JournalNodeID": nid}
            )
            if rng.random() < 0.75:
                world.append(
                    {
                        "TaskID": "provenance",
                        "WorldFileID": wid,
                        "WorldFileName": wname,
                        "WorldWidth": 1,
                        "WorldHeight": 1,
                    }
                )
                files.append(wname)
        # system graph: ~70 % of the present files plus false alarms; kept, reversed and invented links
        sys_files = [f for f in files if rng.random() < 0.7]
        sys_files += [f"world/fa{j:05d}x{i:03d}.png" for i in range(rng.randint(0, k // 3))]
        rng.shuffle(sys_files)
        pos = {f: i for i, f in enumerate(sys_files)}
        nodes = [
            {
                "id": str(i),
                "file": f,
                "fileid": os.path.basename(f)[:-4],
                "nodeConfidenceScore": round(rng.randint(0, 20) * 0.05, 2),
            }
            for i, f in enumerate(sys_files)
        ]
        slinks: set[tuple[int, int]] = set()
        jlinks = [(ids[lk["source"]], ids[lk["target"]]) for lk in doc["links"]]
        path_of = {ids[i]: (probe_path if i == k - 1 else f"world/w{j:05d}x{i:03d}.png") for i in range(k)}
        for s, t in jlinks:
            fa, fb = path_of[s], path_of[t]
            if fa in pos and fb in pos and rng.random() < 0.8:
                slinks.add((pos[fb], pos[fa]) if rng.random() < 0.2 else (pos[fa], pos[fb]))
        n = len(sys_files)
        for _ in range(n // 4 if n > 1 else 0):
            a, b = rng.sample(range(n), 2)
            slinks.add((a, b))
        out = f"jsons/{pid}.json"
        (root / out).write_text(
            json.dumps(
                {
                    "directed": True,
                    "nodes": nodes,
                    "links": [
                        {"source": a, "target": b, "relationshipConfidenceScore": rng.randint(1, 10) / 10}
                        for a, b in sorted(slinks)
                    ],
                }
            )
        )
        system.append(
            {"ProvenanceProbeFileID": pid, "ProvenanceOutputFileName": out, "ProvenanceProbeStatus": "Processed"}
        )
    tables = {"index": index, "ref": ref, "node": node, "world": world, "system": system}
    for name, rows in tables.items():
        pd.DataFrame(rows).to_csv(root / f"{name}.csv", sep="|", index=False)
    marker.write_text(str(trials))


def subset(root: Path, n: int) -> dict[str, Path]:
    """Tables of the first n trials (journals, JSONs and world index shared); cached as ``n<N>/``."""
    d = root / f"n{n}"
    if not (d / ".done").exists():
        d.mkdir(exist_ok=True)
        for name, col in (
            ("index", "ProvenanceProbeFileID"),
            ("ref", "ProvenanceProbeFileID"),
            ("node", "ProvenanceProbeFileID"),
            ("system", "ProvenanceProbeFileID"),
        ):
            df = pd.read_csv(root / f"{name}.csv", sep="|", dtype=str, keep_default_na=False)
            keep = set(df[col].drop_duplicates().iloc[:n])
            df[df[col].isin(keep)].to_csv(d / f"{name}.csv", sep="|", index=False)
        (d / ".done").write_text("")
    paths = {name: d / f"{name}.csv" for name in ("index", "ref", "node", "system")}
    paths["world"] = root / "world.csv"
    return paths


# --------------------------------------------------------------------------- baseline


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as fh:
        return list(csv.DictReader(fh, delimiter="|"))


def _tables(p: dict[str, Path]) -> tuple[list[dict[str, Any]], dict[str, list[dict[str, str]]], list[dict[str, str]]]:
    """Trials (index x ref x system), node rows per probe, world rows, read with ``csv``."""
    idx = {r["ProvenanceProbeFileID"]: r for r in _rows(p["index"])}
    ref = {r["ProvenanceProbeFileID"]: r for r in _rows(p["ref"])}
    trials = []
    for s in _rows(p["system"]):
        pid = s["ProvenanceProbeFileID"]
        if pid in idx and pid in ref and s.get("ProvenanceProbeStatus", "Processed") in ("Processed", "N"):
            trials.append({**ref[pid], **s, "ProvenanceProbeFileName": idx[pid]["ProvenanceProbeFileName"]})
    nodes: dict[str, list[dict[str, str]]] = {}
    for r in _rows(p["node"]):
        nodes.setdefault(r["ProvenanceProbeFileID"], []).append(r)
    return trials, nodes, _rows(p["world"])


def _load(path: Path) -> Any:
    with path.open() as fh:
        return json.load(fh)


def _div(a: float, b: float) -> float:
    return a / b if b else math.nan


def baseline_graph(
    p: dict[str, Path], root: Path, direct: bool, undirected: bool
) -> tuple[list[dict[str, float]], dict[str, float]]:
    """MediScore-style graph building: per-trial SimNLO/SimNO/SimLO/NodeRecall and their means."""
    trials, node_rows, world = _tables(p)
    world_ids = {w["WorldFileID"] for w in world}
    out = []
    for t in trials:
        pid, probe = t["ProvenanceProbeFileID"], t["ProvenanceProbeFileName"]
        j = _load(root / t["JournalFileName"])
        jids = [n["id"] for n in j["nodes"]]
        af = {jids[lk["target"]] for lk in j["links"] if lk.get("op", "").startswith("AntiForensic")}
        links: dict[tuple[str, str], None] = {}
        for lk in j["links"]:
            s, d = jids[lk["source"]], jids[lk["target"]]
            if not (lk.get("op") == "Donor" and d in af):
                links[(s, d)] = None
        present: dict[str, str] = {}
        for r in node_rows.get(pid, []):
            if r["WorldFileID"] == pid:
                present[r["JournalNodeID"]] = probe
            elif r["WorldFileID"] in world_ids and r["JournalNodeID"] not in present:
                present[r["JournalNodeID"]] = r["WorldFileName"]
        children: dict[str, list[str]] = {}
        for s, d in links:
            children.setdefault(s, []).append(d)
        # bypass: from each present node, walk down through absent nodes to the first present ones
        red: set[tuple[str, str]] = set()
        for v, vpath in present.items():
            stack, seen = list(children.get(v, [])), set()
            while stack:
                w = stack.pop()
                if w in seen:
                    continue
                seen.add(w)
                if w in present:
                    if w != v:
                        red.add((vpath, present[w]))
                else:
                    stack.extend(children.get(w, []))
        if direct:
            kept = set()
            for up in (True, False):
                stack, seen = [probe], {probe}
                while stack:
                    v = stack.pop()
                    for a, b in red:
                        if (b if up else a) == v:
                            w = a if up else b
                            kept.add((a, b))
                            if w not in seen:
                                seen.add(w)
                                stack.append(w)
            red = kept
        rnodes = {x for lk in red for x in lk}
        s = _load(root / t["ProvenanceOutputFileName"])
        files = [n["file"] for n in s["nodes"]]
        snodes = set(files)
        slinks = {(files[lk["source"]], files[lk["target"]]) for lk in s.get("links", [])}
        cn = len(rnodes & snodes)
        exact = red & slinks
        cl = len(exact)
        if undirected:
            free = slinks - exact
            for a, b in sorted(red - exact):
                if (b, a) in free:
                    free.discard((b, a))
                    cl += 1
        vr, vs, er, es = len(rnodes), len(snodes), len(red), len(slinks)
        out.append(
            {
                "SimNLO": _div(2 * (cn + cl), vr + vs + er + es),
                "SimNO": _div(2 * cn, vr + vs),
                "SimLO": _div(2 * cl, er + es),
                "NodeRecall": _div(cn, vr),
            }
        )
    means = {f"Mean{k}": _nanmean(r[k] for r in out) for k in ("SimNLO", "SimNO", "SimLO", "NodeRecall")}
    return out, means


def _nanmean(xs: Iterable[float]) -> float:
    v = [x for x in xs if not math.isnan(x)]
    return sum(v) / len(v) if v else math.nan


def baseline_filtering(
    p: dict[str, Path], root: Path, node_types: tuple[str, ...]
) -> tuple[list[dict[str, Any]], dict[str, dict[str, float]]]:
    """MediScore-style filtering: NodeRecallAt50..300 per trial and node type, and means per type."""
    trials, node_rows, world = _tables(p)
    pairs = {(w["WorldFileID"], w["WorldFileName"]) for w in world}
    out = []
    for t in trials:
        pid, probe = t["ProvenanceProbeFileID"], t["ProvenanceProbeFileName"]
        j = _load(root / t["JournalFileName"])
        jtype = {n["id"]: n.get("nodetype", "") for n in j["nodes"]}
        ref = [
            (r["WorldFileName"], jtype[r["JournalNodeID"]])
            for r in node_rows.get(pid, [])
            if (r["WorldFileID"], r["WorldFileName"]) in pairs and r["JournalNodeID"] in jtype
        ]
        ref.append((probe, "probe"))
        s = _load(root / t["ProvenanceOutputFileName"])
        ranked = [n["file"] for n in sorted(s["nodes"], key=lambda n: -float(n["nodeConfidenceScore"]))]
        for nt in node_types:
            rf = [f for f, ty in ref if nt == "all" or ty == nt]
            row: dict[str, Any] = {"NodeType": "All" if nt == "all" else nt}
            for n in NODE_RECALL_NS:
                top = set(ranked[:n])
                row[f"NodeRecallAt{n}"] = _div(sum(1 for f in rf if f in top), len(rf))
            out.append(row)
    means: dict[str, dict[str, float]] = {}
    for nt in {r["NodeType"] for r in out}:
        rows = [r for r in out if r["NodeType"] == nt]
        means[nt] = {f"NodeRecallAt{n}": _nanmean(r[f"NodeRecallAt{n}"] for r in rows) for n in NODE_RECALL_NS}
    return out, means


# --------------------------------------------------------------------------- engine calls


def engine_graph(p: dict[str, Path], root: Path, direct: bool, undirected: bool, mappings: bool = False) -> Any:
    """The plugin's call: mappings only with ``--omfc-provenance-mappings`` (the baseline builds none)."""
    return score_graph_building(
        p["index"],
        p["ref"],
        p["node"],
        p["world"],
        p["system"],
        root,
        root,
        direct=direct,
        undirected=undirected,
        mappings=mappings,
    )


def engine_filtering(p: dict[str, Path], root: Path, mappings: bool = False) -> Any:
    return score_filtering(
        p["index"],
        p["ref"],
        p["node"],
        p["world"],
        p["system"],
        root,
        root,
        node_types=MEDISCORE_ALL_NODE_TYPES,
        mappings=mappings,
    )


# --------------------------------------------------------------------------- checks and timing


def _close(a: float, b: float, tol: float = 1e-9) -> bool:
    return (math.isnan(a) and math.isnan(b)) or abs(a - b) <= tol


def check(p: dict[str, Path], root: Path) -> tuple[int, str]:
    """Compare engine and baseline to 1e-9 in every mode; return (values compared, what the modes change)."""
    compared = 0
    totals: dict[tuple[bool, bool], tuple[int, int]] = {}
    for direct in (False, True):
        for und in (False, True):
            res = engine_graph(p, root, direct, und)
            assert not [r for r in res.reasons if not r.scored], res.reasons[:3]
            base, bmeans = baseline_graph(p, root, direct, und)
            ts = res.trial_scores
            assert len(ts) == len(base), (len(ts), len(base))
            totals[(direct, und)] = (int(ts["NumRefLinks"].sum()), int(ts["NumCorrectLinks"].sum()))
            for k in ("SimNLO", "SimNO", "SimLO", "NodeRecall"):
                for i, (a, b) in enumerate(zip(ts[k].astype(float), (r[k] for r in base), strict=True)):
                    assert _close(a, b), f"graph d={direct} u={und} trial {i} {k}: engine {a} baseline {b}"
                    compared += 1
            for k, b in bmeans.items():
                a = float(res.scores[k].iloc[0])
                assert _close(a, b), f"graph d={direct} u={und} {k}: engine {a} baseline {b}"
                compared += 1
    fres = engine_filtering(p, root)
    fbase, fmeans = baseline_filtering(p, root, MEDISCORE_ALL_NODE_TYPES)
    fts = fres.trial_scores
    assert len(fts) == len(fbase), (len(fts), len(fbase))
    for i, (row, brow) in enumerate(zip(fts.to_dict("records"), fbase, strict=True)):
        assert row["NodeType"] == brow["NodeType"]
        for n in NODE_RECALL_NS:
            k = f"NodeRecallAt{n}"
            assert _close(float(row[k]), brow[k]), f"filtering row {i} {k}: engine {row[k]} baseline {brow[k]}"
            compared += 1
    for row in fres.scores.to_dict("records"):
        for n in NODE_RECALL_NS:
            k = f"NodeRecallAt{n}"
            assert _close(float(row[k]), fmeans[row["NodeType"]][k]), f"filtering mean {row['NodeType']} {k}"
            compared += 1
    (ref_links, correct), (ref_direct, _), (_, correct_u) = (
        totals[(False, False)],
        totals[(True, False)],
        totals[(False, True)],
    )
    what = (
        f"reference links {ref_links} ({ref_direct} in direct mode), correct links {correct} ({correct_u} undirected)"
    )
    return compared, what


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Best (wall, CPU) seconds over ``repeat`` runs: the least disturbed on a shared machine."""
    b = best(fn, repeat)
    return b.wall, b.cpu


def heap_peak(fn: Callable[[], object]) -> float:
    """Peak traced Python heap in MB of one call (tracemalloc; slows the call, so timed apart)."""
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def vm_hwm() -> float:
    """This process's peak RSS in MB (VmHWM)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _on(fn: Callable[..., object], p: dict[str, Path], **kw: Any) -> object:
    """``fn(p, **kw)``: lets ``partial`` bind everything but the tables."""
    return fn(p, **kw)


SUB_ID = "p-bench_1"


def plugin_layout(root: Path, trials: int) -> dict[str, Path]:
    """The generated data as a participant and a portal have it (cached in ``plugin/``): a dataset with
    ``indexes/`` and ``reference/provenance/`` (reference, node table, world index, journals) and a
    submission ``p-bench_1/`` (its CSV, description and ``jsons/``); files are hard links to the cache."""
    d = root / "plugin"
    ds, sub, prov = d / "dataset", d / SUB_ID, d / "dataset" / "reference" / "provenance"
    if not (d / ".done").exists():
        for folder in (ds / "indexes", prov / "journals", sub / "jsons"):
            folder.mkdir(parents=True, exist_ok=True)
        tables = subset(root, trials)
        shutil.copy(tables["index"], ds / "indexes" / "MFC2019-provenance-index.csv")
        shutil.copy(tables["ref"], prov / "MFC2019-provenance-ref.csv")
        shutil.copy(tables["node"], prov / "MFC2019-provenance-node.csv")
        shutil.copy(tables["world"], prov / "MFC2019-provenance-world.csv")
        shutil.copy(tables["system"], sub / f"{SUB_ID}.csv")
        (sub / f"{SUB_ID}.txt").write_text(
            f"1. Submission Identifier(s): {SUB_ID}\n2. System Description: a benchmark system. Opt-out criteria: "
            "none.\n3. OptOut Criteria: none\n4. System Hardware Description and Runtime Computation: 2 CPUs.\n"
            "5. Training Data and Knowledge Sources: none.\n6. References: none.\n"
        )
        for src, dst in ((root / "journals", prov / "journals"), (root / "jsons", sub / "jsons")):
            for f in src.iterdir():
                os.link(f, dst / f.name)
        (d / ".done").write_text("")
    return {"dataset": ds, "submission": sub, "reference": prov / "MFC2019-provenance-ref.csv", "out": d / "out"}


def whole_runs(root: Path, trials: int) -> None:
    """``pytest-omfc`` on the plugin layout, in a subprocess: with and without ``--omfc-provenance-mappings``;
    wall, CPU and peak memory of the process tree (benchmarks/_tree.py), and the size of what it writes."""
    lay = plugin_layout(root, trials)
    print(
        f"\nwhole runs (pytest-omfc --omfc-score provenance on {trials} trials, process tree; "
        "MediScore with its mappings: 256 MB peak, 16 MB of CSV, quoted from the issue, not run here)"
    )
    print(f"{'run':<16}{'wall':>8}{'CPU':>8}{'peak RSS':>10}{'peak PSS':>10}{'largest':>10}  written")
    for name, extra in (("scores only", []), ("with mappings", ["--omfc-provenance-mappings"])):
        out = lay["out"] / name.replace(" ", "-")
        shutil.rmtree(out, ignore_errors=True)
        cmd = [
            sys.executable, "-m", "pytest_omfc", "-q",
            "--omfc-submission", str(lay["submission"]), "--omfc-dataset", str(lay["dataset"]),
            "--omfc-task", "provenance", "--omfc-reference", str(lay["reference"]),
            "--omfc-score", "provenance", "--omfc-metrics-json", str(out / "metrics.json"), *extra,
        ]  # fmt: skip
        run = run_tree(cmd)
        if run.returncode not in (0, 1):
            raise SystemExit(f"{name}: exit {run.returncode}\n{run.stdout[-2000:]}\n{run.stderr[-2000:]}")
        files = sorted(out.glob("*")) if out.is_dir() else []
        written = ", ".join(f"{f.name} {f.stat().st_size / 1e6:.1f} MB" for f in files)
        memory = f"{run.peak_rss_mb:>7.0f} MB{run.peak_pss_mb:>7.0f} MB{run.largest_rss_mb:>7.0f} MB"
        print(f"{name:<16}{run.wall:>7.2f}s{run.cpu:>7.2f}s{memory}  {written}  ({run.processes} processes)")


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="200 trials, 1 repeat (a smoke run)")
    ap.add_argument("--trials", type=int, default=None, help="trials (default 1,000; --quick 200)")
    ap.add_argument("--repeat", type=int, default=None, help="best of R runs (default 3; --quick 1)")
    ap.add_argument("--cache", type=Path, default=None, help=f"input cache (default {cache_root()})")
    ap.add_argument("--profile", action="store_true", help="also cProfile one engine graph run (top 12 by own time)")
    ap.add_argument("--only-whole", action="store_true", help="only the whole plugin runs (memory and files)")
    args = ap.parse_args()
    trials = args.trials or (200 if args.quick else 1000)
    repeat = args.repeat or (1 if args.quick else 3)
    root = (args.cache or cache_root()) / VERSION / f"t{trials}"
    t0 = time.perf_counter()
    generate(root, trials)
    sizes = sorted({max(1, trials // 4), max(1, trials // 2), trials})
    paths = {n: subset(root, n) for n in sizes}
    full = paths[trials]
    n_node_rows = len(pd.read_csv(full["node"], sep="|", dtype=str))
    print(
        f"pytest-omfc provenance scoring benchmark; inputs in {root} "
        f"({trials} trials, {n_node_rows} node-table rows; ready in {time.perf_counter() - t0:.1f} s); best of {repeat}"
    )

    if args.only_whole:
        whole_runs(root, trials)
        return
    n_cmp, what = check(full, root)
    print(
        f"conformance: engine == baseline to 1e-9 on {n_cmp} values (4 graph modes + filtering, nodetype all); {what}"
    )

    modes: list[tuple[str, Callable[[dict[str, Path]], object], Callable[[dict[str, Path]], object]]] = []
    for direct in (False, True):
        for und in (False, True):
            name = "graph" + (" -d" if direct else "") + (" -u" if und else "")
            modes.append(
                (
                    name,
                    partial(_on, engine_graph, root=root, direct=direct, undirected=und),
                    partial(_on, baseline_graph, root=root, direct=direct, undirected=und),
                )
            )
    modes.append(
        (
            "filtering all",
            partial(_on, engine_filtering, root=root),
            partial(_on, baseline_filtering, root=root, node_types=MEDISCORE_ALL_NODE_TYPES),
        )
    )
    # with --omfc-provenance-mappings the engine also builds the node and link mapping tables (the baseline none)
    extra = [
        (
            "graph mappings",
            partial(_on, engine_graph, root=root, direct=False, undirected=False, mappings=True),
            partial(_on, baseline_graph, root=root, direct=False, undirected=False),
        )
    ]

    print(
        f"\n{'mode':<16}{'engine wall':>12}{'CPU':>8}{'ms/trial':>10}{'baseline wall':>15}{'CPU':>8}"
        f"{'ms/trial':>10}{'base/eng CPU':>14}"
    )
    for name, eng, base in modes + extra:
        we, ce = timed(partial(eng, full), repeat)
        wb, cb = timed(partial(base, full), repeat)
        print(
            f"{name:<16}{we:>11.2f}s{ce:>7.2f}s{1000 * ce / trials:>10.2f}{wb:>14.2f}s{cb:>7.2f}s"
            f"{1000 * cb / trials:>10.2f}{cb / ce:>13.1f}x"
        )

    print(f"\nlinearity (engine CPU s; ms/trial in brackets): trials {' / '.join(map(str, sizes))}")
    for name, eng, _ in modes:
        cells = []
        for n in sizes:
            _, c = timed(partial(eng, paths[n]), repeat)
            cells.append(f"{c:6.2f} s ({1000 * c / n:5.2f})")
        print(f"  {name:<14}" + "  ".join(cells))

    print("\npeak Python heap (tracemalloc), one run on all trials:")
    for name, eng, base in (modes[0], modes[-1]):
        he, hb = heap_peak(partial(eng, full)), heap_peak(partial(base, full))
        print(f"  {name:<14} engine {he:7.1f} MB   baseline {hb:7.1f} MB")
    print(f"process peak RSS (VmHWM): {vm_hwm():.0f} MB")
    whole_runs(root, trials)
    if args.profile:
        prof = cProfile.Profile()
        prof.runcall(engine_graph, full, root, False, False)
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(12)
        print("\nengine graph, own time:\n" + "\n".join(ln for ln in buf.getvalue().splitlines()[6:] if ln.strip()))


if __name__ == "__main__":
    main()
