"""pytest-omfc: NIST media-forensics submission rules as pytest items.

The public surface is small: the rule registry and its data types, for
tools that want to list or reuse the rules, :func:`omfc_validate` (the checks as a
plain function returning the findings document, :mod:`pytest_omfc.validation`) and
:func:`omfc_score` (scoring as a plain function, :mod:`pytest_omfc.api`) and :func:`omfc_compare` (two scored
runs compared trial by trial, :mod:`pytest_omfc.comparison`); all are
imported on first use, so importing the package stays cheap.  The pytest plugin itself
lives in :mod:`pytest_omfc.plugin` (entry point ``pytest11``).
"""

from __future__ import annotations

from ._version import __version__
from .editions import Edition, Group, Task
from .findings import Finding, Report, Severity
from .registry import REGISTRY, Rule, rules_for

__all__ = [
    "Edition",
    "Finding",
    "Group",
    "NotScoredError",
    "REGISTRY",
    "Report",
    "Rule",
    "Scores",
    "Severity",
    "Task",
    "__version__",
    "omfc_compare",
    "omfc_score",
    "omfc_validate",
    "rules_for",
]


def __getattr__(name: str) -> object:
    """``omfc_score``, ``omfc_validate``, ``Scores`` and ``NotScoredError`` on first use (they import pandas, the
    engines or pytest)."""
    if name == "omfc_score":
        from .api import omfc_score

        return omfc_score
    if name == "omfc_compare":
        from .comparison import omfc_compare

        return omfc_compare
    if name == "omfc_validate":
        from .validation import omfc_validate

        return omfc_validate
    if name in ("Scores", "NotScoredError"):
        import importlib

        return getattr(importlib.import_module(".scoring.results", __name__), name)
    raise AttributeError(f"module 'pytest_omfc' has no attribute {name!r}")
