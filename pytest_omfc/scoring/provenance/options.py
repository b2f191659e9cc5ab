"""The provenance scorer's options (docs/scoring/provenance.md), declared once.  Light: read at plugin load."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...options import Option, flag

__all__ = ["NODE_TYPE_CHOICES", "PROVENANCE_OPTIONS", "node_types"]

#: ``--omfc-node-type`` choices; ``all`` is MediScore's ``--nodetype all`` (overall plus each type).
NODE_TYPE_CHOICES: tuple[str, ...] = ("base", "donor", "interim", "final", "all")


def node_types(value: Any) -> tuple[str, ...]:
    """``--omfc-node-type`` values (repeatable) as the engine's node types, in order, without repeats.

    ``all`` expands to MediScore's ``--nodetype all``: the overall result plus one per journal node type.
    """
    from .filtering import MEDISCORE_ALL_NODE_TYPES

    given = [value] if isinstance(value, str) else list(value or [])
    out: list[str] = []
    for v in given:
        v = str(v).strip().lower()
        if v not in NODE_TYPE_CHOICES:
            raise ValueError(f"must be one of {', '.join(NODE_TYPE_CHOICES)} (got {v!r})")
        out += list(MEDISCORE_ALL_NODE_TYPES) if v == "all" else [v]
    return tuple(dict.fromkeys(out)) or ("all",)


def _path(value: Any) -> Path:
    text = str(value).strip()
    if not 0 < len(text) <= 4096:
        raise ValueError(f"must be a file path (got {value!r})")
    return Path(text).expanduser()


PROVENANCE_OPTIONS: tuple[Option, ...] = (
    Option(
        "--omfc-provenance-direct",
        "omfc_provenance_direct",
        {
            "action": "store_true",
            "help": "graph building: score only the probe's direct ancestors and descendants of the reference graph",
        },
        "-d",
        False,
        flag,
        "direct",
    ),
    Option(
        "--omfc-provenance-undirected",
        "omfc_provenance_undirected",
        {"action": "store_true", "help": "graph building: match links regardless of their direction"},
        "-u",
        False,
        flag,
        "undirected",
    ),
    Option(
        "--omfc-node-type",
        "omfc_node_type",
        {
            "action": "append",
            "choices": list(NODE_TYPE_CHOICES),
            "help": "filtering: one result per node type (repeatable; all: the overall result plus one per type; "
            "default: overall)",
        },
        "--nodetype",
        ("all",),
        node_types,
        "node_types",
    ),
    Option(
        "--omfc-provenance-mappings",
        "omfc_provenance_mappings",
        {
            "action": "store_true",
            "help": "write MediScore's node (and link) mapping tables beside --omfc-metrics-json "
            "(<stem>.node_mapping.csv, <stem>.link_mapping.csv)",
        },
        "(node_mapping.csv, link_mapping.csv)",
        False,
        flag,
        "mappings",
    ),
    Option(
        "--omfc-provenance-node",
        "omfc_provenance_node",
        {"metavar": "PATH", "help": "the node table (default: <reference stem>-node.csv beside the reference)"},
        "-n",
        None,
        _path,
        "node",
    ),
    Option(
        "--omfc-world-index",
        "omfc_world_index",
        {
            "metavar": "PATH",
            "help": "the world index (default: the one *-world.csv beside the reference or in the dataset's indexes/)",
        },
        "-w",
        None,
        _path,
        "world",
    ),
)
