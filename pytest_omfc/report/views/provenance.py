"""The provenance scorer's view: graph building's mean similarities, filtering's node recalls per node type."""

from __future__ import annotations

from typing import Any

from .base import Options, View, fmt

__all__ = ["PROVENANCE"]

#: Summary columns: graph building's mean scores and filtering's recalls share the four metric columns.
_SUMMARY = (
    ("MeanSimNLO", "NodeRecallAt50"),
    ("MeanSimNO", "NodeRecallAt100"),
    ("MeanSimLO", "NodeRecallAt200"),
    ("MeanNodeRecall", "NodeRecallAt300"),
)


def _columns(opts: Options) -> list[str]:
    return ["type", "trials", "SimNLO/R50", "SimNO/R100", "SimLO/R200", "NodeRec/R300"]


def _row(entry: dict[str, Any], opts: Options) -> list[str]:
    """Graph building: the four means; filtering: the node type's four recalls."""
    m = entry["metrics"]
    graph = entry.get("scorer") == "provenance-graph"
    label = "graph" if graph else str(entry.get("node_type"))
    return [label, str(entry.get("counts", {}).get("trials", ""))] + [
        fmt(m.get(g if graph else f)) for g, f in _SUMMARY
    ]


def _settings(opts: Options) -> str:
    return (
        f"direct {bool(opts.get('direct'))}, undirected {bool(opts.get('undirected'))}, "
        f"node types {','.join(opts.get('node_types') or ('all',))}"
    )


def _header(opts: Options, common: Options) -> str:
    return f"omfc: scoring provenance against {common['reference']} ({_settings(opts)})"


def _footer(opts: Options, common: Options) -> str:
    return (
        f"omfc: provenance: convention {common.get('convention', 'mediscore')}, {_settings(opts)}; "
        "tied nodeConfidenceScore keep the system JSON's order (stable sort)"
    )


def _json_options(opts: Options, common: Options) -> dict[str, Any]:
    return {
        "provenance": {
            "direct": bool(opts.get("direct")),
            "undirected": bool(opts.get("undirected")),
            "node_types": list(opts.get("node_types") or ("all",)),
            "mappings": bool(opts.get("mappings")),
            "node": None if opts.get("node") is None else str(opts["node"]),
            "world": None if opts.get("world") is None else str(opts["world"]),
        }
    }


PROVENANCE = View(json_options=_json_options, columns=_columns, row=_row, header=_header, footer=_footer)
