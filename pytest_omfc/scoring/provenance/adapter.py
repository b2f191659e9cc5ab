"""The provenance scorer's adapter and registration (docs/scoring/provenance.md): graph building and filtering.

One scorer, ``provenance``, for both provenance tasks: the item
``<sub>::score::provenance`` scores graph building (PG, metrics-JSON
``"scorer": "provenance-graph"``) or filtering (PF, ``"provenance-filtering"``,
one entry per node type with ``"node_type"``).  The node table and the world
index are found by name beside the reference (options name them where the
layout differs).  Trials the engine cannot score fail the item naming them;
the numbers of the rest stay.  No pytest import.

Read at plugin load for its option declarations: the engine, numpy and pandas
are imported inside the functions that run (CONTRIBUTING.md, "Keeping the
plugin light").
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...editions import Task
from ..registry import NotScored, Outcome, Scorer, ScoreResult, ScoringInput, Tally, register
from .options import PROVENANCE_OPTIONS, node_types

if TYPE_CHECKING:  # annotations only; the functions that run import the engine
    import pandas as pd

    from ..paired import TrialData
    from .graph import Convention
    from .run import TrialReason

__all__ = [
    "PROVENANCE",
    "PROVENANCE_TASKS",
    "find_node_table",
    "find_world_index",
    "node_types",
]

#: Tasks scored by the provenance scorer, with MediScore's task name.
PROVENANCE_TASKS: dict[Task, str] = {
    Task.PG: "provenance",
    Task.PF: "provenancefiltering",
}


GRAPH_METRICS = ("MeanSimNLO", "MeanSimNO", "MeanSimLO", "MeanNodeRecall")
#: filter_metrics() written out for the registration (no engine import; tests/glue/test_lazy_imports.py
#: checks they agree).
FILTER_METRICS = ("NodeRecallAt50", "NodeRecallAt100", "NodeRecallAt200", "NodeRecallAt300")


def filter_metrics() -> tuple[str, ...]:
    """The filtering metrics, ``NodeRecallAt<n>`` for the engine's ``NODE_RECALL_NS``."""
    from . import NODE_RECALL_NS

    return tuple(f"NodeRecallAt{n}" for n in NODE_RECALL_NS)


def _stem(reference: Path) -> str:
    name = reference.name
    for suffix in ("-ref.csv", ".csv"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def _given(path: Path, inp: ScoringInput) -> Path:
    if path.is_absolute():
        return path
    cands = ([inp.dataset_root / path] if inp.dataset_root else []) + [Path.cwd() / path]
    return next((c for c in cands if c.is_file()), cands[0])


def find_node_table(inp: ScoringInput) -> Path:
    """``--omfc-provenance-node`` or ``<stem>-node.csv`` beside the reference (``*-provenance-ref.csv``)."""
    given = inp.options.get("node")
    if given is not None:
        return _given(Path(given), inp)
    return inp.reference.with_name(f"{_stem(inp.reference)}-node.csv")


def find_world_index(inp: ScoringInput) -> Path:
    """``--omfc-world-index``, else the one ``*-world.csv`` beside the reference, else in ``indexes/``."""
    given = inp.options.get("world")
    if given is not None:
        return _given(Path(given), inp)
    beside = inp.reference.with_name(f"{_stem(inp.reference)}-world.csv")
    if beside.is_file():
        return beside
    for d in (
        inp.reference.parent,
        *([inp.dataset_root / "indexes"] if inp.dataset_root else []),
    ):
        found = sorted(d.glob("*-world.csv")) if d.is_dir() else []
        if len(found) == 1:
            return found[0]
    return beside


def _journal_root(inp: ScoringInput, ref: pd.DataFrame) -> Path:
    """The directory JournalFileName is relative to: the dataset root, or the reference's ancestors."""
    import pandas as pd

    cands = ([inp.dataset_root] if inp.dataset_root else []) + [
        inp.reference.parent,
        *inp.reference.parent.parents,
    ]
    first = next(
        (str(v) for v in ref.get("JournalFileName", pd.Series(dtype=str)) if str(v).strip()),
        None,
    )
    if first is not None:
        for c in cands:
            if (c / first).is_file():
                return c
    return cands[0]


def _plain(v: Any) -> Any:
    """A JSON/JUnit-ready value: numpy scalars unwrapped, NaN as None."""
    import numpy as np

    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def _records(df: pd.DataFrame) -> list[dict[str, Any]]:
    return [{c: _plain(v) for c, v in rec.items()} for rec in df.to_dict("records")]


def _failure(reasons: Sequence[TrialReason], shown: int = 5) -> str | None:
    """The item's failure when trials could not be scored (opted-out trials are not failures)."""
    bad = [r for r in reasons if not r.scored and not r.opted_out]
    if not bad:
        return None
    head = "; ".join(f"trial {r.probe_id} {r.output_file!r}: {r.reason}" for r in bad[:shown])
    more = f"; ... and {len(bad) - shown} more" if len(bad) > shown else ""
    return f"{len(bad)} trial(s) could not be scored ({head}{more})"


def _tally(scored: int, reasons: Sequence[TrialReason]) -> Tally:
    """Scored trials of those the system did not opt out; the failures counted as one reason."""
    failed = sum(1 for r in reasons if not r.scored and not r.opted_out)
    return Tally("trials", scored + failed, scored)  # the failure text lists the unscored ones


def _reason_dicts(reasons: Sequence[TrialReason], scored: bool) -> list[dict[str, str]]:
    return [
        {"ProvenanceProbeFileID": r.probe_id, "ProvenanceOutputFileName": r.output_file, "reason": r.reason}
        for r in reasons
        if r.scored is scored
    ]


def _warnings(reasons: Sequence[TrialReason]) -> list[tuple[str, Any]]:
    return [("omfc.warning", f"trial {r.probe_id}: {r.reason}") for r in reasons if r.scored]


def _tables(mappings: Mapping[str, pd.DataFrame]) -> dict[str, str]:
    """MediScore's mapping tables as pipe-separated CSV text (``node_mapping.csv``, ``link_mapping.csv``): the
    entry's ``tables``, written beside the metrics JSON, a few bytes per row where a JSON record per row took
    ten times the memory and the file."""
    return {f"{name}_mapping": df.to_csv(sep="|", index=False, lineterminator="\n") for name, df in mappings.items()}


def run_provenance(inp: ScoringInput) -> list[Outcome]:
    """Provenance scoring of a whole run (docs/scoring/provenance.md); one outcome (no queries)."""
    from ...errors import ScoringError
    from ..merge import read_table
    from ..registry import not_scored
    from . import score_filtering, score_graph_building

    n = inp.positions
    if inp.selective:  # a lone "*" means all trials, as for every scorer
        return [
            NotScored(
                "provenance scoring takes no query (MediScore's provenance scorers have none): "
                "drop --omfc-query/--omfc-query-manipulation/--omfc-query-partition",
                fail=True,
            )
        ] * n
    for col in ("ProvenanceProbeFileID", "ProvenanceOutputFileName"):
        if not inp.table.has(col):
            return [NotScored(f"{inp.column_rule} failed: column {col} is absent")] * n
    opts = inp.options
    convention: Convention = "plan" if inp.convention == "plan" else "mediscore"
    node, world = find_node_table(inp), find_world_index(inp)
    for what, path, flag in (
        ("node table", node, "--omfc-provenance-node"),
        ("world index", world, "--omfc-world-index"),
    ):
        if not path.is_file():
            return [
                NotScored(
                    f"provenance {what} not found: {path} (name it with {flag})",
                    fail=True,
                )
            ] * n
    try:
        ref = read_table(inp.reference, "provenance reference")
        tables: dict[str, Any] = {
            "index": inp.index,
            "reference": ref,
            "node": node,
            "world": world,
            "system": inp.table.df,
            "ref_dir": _journal_root(inp, ref),
            "sys_dir": inp.submission,
            "rejected": inp.rejected() if inp.rejected is not None else None,
        }
        if inp.task is Task.PG:
            return [
                _graph_result(
                    score_graph_building(
                        **tables,
                        direct=bool(opts.get("direct")),
                        undirected=bool(opts.get("undirected")),
                        convention=convention,
                        mappings=bool(opts.get("mappings")),
                        progress=inp.progress,
                    ),
                    opts,
                )
            ]
        types = tuple(opts.get("node_types") or ("all",))
        return [
            _filtering_result(
                score_filtering(
                    **tables,
                    node_types=types,
                    convention=convention,
                    mappings=bool(opts.get("mappings")),
                    progress=inp.progress,
                ),
                types,
                opts,
            )
        ]
    except ScoringError as exc:  # reference-side faults (a missing column, a cyclic journal) fail
        return [not_scored(exc)] * n


def _graph_result(res: Any, opts: Mapping[str, Any]) -> ScoreResult:
    scores = res.scores.iloc[0].to_dict() if len(res.scores) else {}
    metrics = {k: _plain(scores.get(k, math.nan)) for k in GRAPH_METRICS}
    per_trial = _records(res.trial_scores)
    entry: dict[str, Any] = {
        "scorer": "provenance-graph",
        "query": None,
        "query_kind": "all",
        "direct": bool(opts.get("direct")),
        "undirected": bool(opts.get("undirected")),
        "metrics": metrics,
        "counts": {"trials": len(per_trial), "not_scored": len(_reason_dicts(res.reasons, False))},
        "per_trial": per_trial,
        "not_scored": _reason_dicts(res.reasons, False),
        "notes": _reason_dicts(res.reasons, True),
    }
    props: list[tuple[str, Any]] = [(k, math.nan if v is None else float(v)) for k, v in metrics.items()]
    props += [
        ("count.trials", len(per_trial)),
        ("count.not_scored", entry["counts"]["not_scored"]),
    ]
    tally = _tally(len(per_trial), res.reasons)
    entry["scored"] = tally.as_dict()
    if opts.get("mappings"):
        entry["tables"] = _tables({"node": res.node_mapping, "link": res.link_mapping})
    return ScoreResult(entry, props + _warnings(res.reasons), _failure(res.reasons), tally)


def _filtering_result(res: Any, types: Sequence[str], opts: Mapping[str, Any]) -> ScoreResult:
    per_trial_all = _records(res.trial_scores)
    by_type = {str(r["NodeType"]): r for r in _records(res.scores)}
    not_scored = _reason_dicts(res.reasons, False)
    entries: list[dict[str, Any]] = []
    props: list[tuple[str, Any]] = []
    for nt in types:
        label = "All" if nt == "all" else nt  # the engine's (MediScore's) NodeType of the overall result
        row = by_type.get(label, {})
        metrics = {k: _plain(row.get(k)) for k in filter_metrics()}
        trials = [t for t in per_trial_all if t.get("NodeType") == label]
        entries.append(
            {
                "scorer": "provenance-filtering",
                "query": None,
                "query_kind": "all",
                "node_type": nt,
                "metrics": metrics,
                "counts": {"trials": len(trials), "not_scored": len(not_scored)},
                "per_trial": trials,
                "not_scored": not_scored,
                "notes": _reason_dicts(res.reasons, True),
            }
        )
        prefix = "" if nt == "all" else f"{nt}."
        props += [(prefix + k, math.nan if v is None else float(v)) for k, v in metrics.items()]
        props.append((f"{prefix}count.trials", len(trials)))
    props.append(("count.not_scored", len(not_scored)))
    first = "All" if types[0] == "all" else types[0]
    tally = _tally(
        len(
            {
                (t.get("ProvenanceProbeFileID"), t.get("ProvenanceOutputFileName"))
                for t in per_trial_all
                if t.get("NodeType") == first
            }
        ),
        res.reasons,
    )
    for e in entries:
        e["scored"] = tally.as_dict()
    overall = [e for e in entries if e["node_type"] == "all"]
    if opts.get("mappings") and overall:  # MediScore maps the overall node type only
        overall[0]["tables"] = _tables({"node": res.node_mapping})
    return ScoreResult({"entries": entries}, props + _warnings(res.reasons), _failure(res.reasons), tally)


def _trials(entry: Mapping[str, Any], options: Mapping[str, Any]) -> TrialData | None:
    """The entry's trials for comparisons (imported only when a comparison runs)."""
    from .paired import provenance_trials

    return provenance_trials(entry, options)


PROVENANCE = register(
    Scorer(
        name="provenance",
        title="provenance",
        tasks=PROVENANCE_TASKS,
        run=run_provenance,
        switch_columns=("JournalFileName",),
        options=PROVENANCE_OPTIONS,
        null_keys=("metrics", "per_trial"),
        metrics=(*GRAPH_METRICS, *FILTER_METRICS),  # graph building (PG) and filtering (PF) respectively
        trials=_trials,
        headline=("MeanSimNLO", "MeanNodeRecall", "NodeRecallAt100"),
        progress_unit="trials",
    )
)
