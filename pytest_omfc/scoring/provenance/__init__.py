"""Provenance scoring engine (docs/scoring/provenance.md): pure pandas, no pytest.

``graph`` builds and matches the graph-building task (3.2, 3.3), ``filtering``
scores the filtering task (docs/scoring/provenance.md#filtering), ``run`` scores whole runs from the reference,
node, world and journal tables and the system JSONs (read as the PROV rules read
them: :func:`pytest_omfc.jsonio.load_json`).
"""

from __future__ import annotations

from ...lazy import lazy_exports

#: Public name -> the module of this family that defines it (imported on first use).
_EXPORTS: dict[str, str] = {
    "FilteringTrial": "filtering",
    "MEDISCORE_ALL_NODE_TYPES": "filtering",
    "NODE_RECALL_NS": "filtering",
    "NODE_TYPES": "filtering",
    "filter_trial": "filtering",
    "GraphMatch": "graph",
    "RefGraph": "graph",
    "SysGraph": "graph",
    "match_graphs": "graph",
    "reference_graph": "graph",
    "system_graph": "graph",
    "MAX_JSON_BYTES": "run",
    "FilteringResult": "run",
    "GraphBuildingResult": "run",
    "TrialReason": "run",
    "score_filtering": "run",
    "score_graph_building": "run",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
