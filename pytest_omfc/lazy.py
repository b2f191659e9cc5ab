"""Names of a package imported on first use (PEP 562), so that importing the package stays light.

The plugin imports every scorer family's adapter (for the option declarations) in every pytest run of
the environment; a family package that imported its engines, numpy or pandas at that point would
slow down every run.  A package lists its public names and the submodule of each::

    __getattr__, __dir__ = lazy_exports(__name__, {"score_masks": "run", ...})
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, table: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: ``table`` maps a public name to its submodule (relative)."""

    def __getattr__(name: str) -> Any:
        module = table.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{module}", package), name)
        setattr(sys.modules[package], name, value)  # later look-ups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *table})

    return __getattr__, __dir__
