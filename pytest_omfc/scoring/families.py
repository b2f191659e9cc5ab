"""The scorer families in their order: importing this module registers every scorer.

The order is the order of the score items, the summary tables and the metrics-JSON results:
detection, mask, provenance, temporal, then the ForgeryNet scorers.  This is the one place that
imports the family adapters (light: option declarations; the engines are imported when a scorer
runs).  A new family is a folder ``scoring/<family>/`` and one line here.
"""

from __future__ import annotations

from dataclasses import replace

from ..options import CHECK_OPTIONS, SCORING_OPTIONS, Option, one_of
from .detection import adapter as detection  # noqa: F401
from .mask import adapter as mask  # noqa: F401
from .provenance import adapter as provenance  # noqa: F401
from .temporal import adapter as temporal  # noqa: F401
from .forgerynet import adapter as forgerynet  # noqa: F401  forgerynet-classification, -spatial, -temporal
from .registry import SCORERS


def every_option() -> list[Option]:
    """Every option of the plugin, in order: what is checked, the scoring set-up shared by every scorer
    (``--omfc-score``'s choices: the registered scorers), then each scorer's own, in family order.  The
    pytest options and ini settings, the ``pytest-omfc`` arguments, ``omfc_score()``'s keywords and the
    option tables of docs/options.md are made from this list."""
    out = list(CHECK_OPTIONS)
    for opt in SCORING_OPTIONS:
        if opt.ini == "omfc_score":
            names = (*SCORERS, "all")
            opt = replace(opt, kwargs={**opt.kwargs, "choices": list(names)}, parse=one_of(names))
        out.append(opt)
    seen: set[str] = set()
    for scorer in SCORERS.values():
        for opt in scorer.options:
            if opt.flag not in seen:  # an option shared by several scorers (--omfc-dask) is declared once
                seen.add(opt.flag)
                out.append(opt)
    return out


def option(ini: str) -> Option:
    """The option whose ini name is ``ini``."""
    found = next((o for o in every_option() if o.ini == ini), None)
    if found is None:
        raise KeyError(ini)
    return found
