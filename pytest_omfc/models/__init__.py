"""Models of everything a submission holds, imported on first use (PEP 562).

The check imports only plain modules: :mod:`.columns` (the system-output layouts and index keys, generated
from :mod:`.tabular`), :mod:`.status`, :mod:`.identifiers`, :mod:`.segments`, :mod:`.description`.  The
pydantic models (:mod:`.tabular`, :mod:`.documents`, :mod:`.provenance`) document the formats and give
``schemas/``; a provenance check validates its JSON with the schemas of :mod:`.provenance`.
"""

from __future__ import annotations

from ..lazy import lazy_exports

#: Public name -> the submodule that defines it.
_LAZY: dict[str, str] = {
    **dict.fromkeys(
        (
            "INDEX_MODELS",
            "LAYOUTS",
            "OutputRow",
            "all_columns",
            "key_columns",
            "layouts_for",
            "optional_columns",
            "required_columns",
        ),
        "tabular",
    ),
    "SCHEMA_MODELS": "documents",
}

__all__ = sorted(_LAZY)
__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
