"""Provenance scoring engine (METRICS.md section 3): pure pandas, no pytest.

``graph`` builds and matches the graph-building task (3.2, 3.3), ``filtering``
scores the filtering task (3.4), ``run`` scores whole runs from the reference,
node, world and journal tables and the system JSONs, and ``jsonio`` reads JSON
with bounded size and refused duplicate keys.
"""

from __future__ import annotations

from pytest_omfc.scoring.provenance.filtering import (
    NODE_RECALL_NS,
    NODE_TYPES,
    FilteringTrial,
    filter_trial,
)
from pytest_omfc.scoring.provenance.graph import (
    GraphMatch,
    RefGraph,
    SysGraph,
    match_graphs,
    reference_graph,
    system_graph,
)
from pytest_omfc.scoring.provenance.jsonio import (
    MAX_JSON_BYTES,
    JsonReadError,
    read_json,
)
from pytest_omfc.scoring.provenance.run import (
    FilteringResult,
    GraphBuildingResult,
    TrialReason,
    score_filtering,
    score_graph_building,
)

#: MediScore's ``--nodetype all``: the overall result plus one per journal node type.
MEDISCORE_ALL_NODE_TYPES: tuple[str, ...] = ("all", *NODE_TYPES)

__all__ = [
    "MAX_JSON_BYTES",
    "MEDISCORE_ALL_NODE_TYPES",
    "NODE_RECALL_NS",
    "NODE_TYPES",
    "FilteringResult",
    "FilteringTrial",
    "GraphBuildingResult",
    "GraphMatch",
    "JsonReadError",
    "RefGraph",
    "SysGraph",
    "TrialReason",
    "filter_trial",
    "match_graphs",
    "read_json",
    "reference_graph",
    "score_filtering",
    "score_graph_building",
    "system_graph",
]
