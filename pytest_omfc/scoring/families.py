"""The scorer families in their order: importing this module registers every scorer.

The order is the order of the score items, the summary tables and the metrics-JSON results:
detection, mask, provenance, temporal, then the ForgeryNet scorers.  This is the one place that
imports the family adapters (light: option declarations; the engines are imported when a scorer
runs).  A new family is a folder ``scoring/<family>/`` and one line here.
"""

from __future__ import annotations

from .detection import adapter as detection  # noqa: F401
from .mask import adapter as mask  # noqa: F401
from .provenance import adapter as provenance  # noqa: F401
from .temporal import adapter as temporal  # noqa: F401
from .forgerynet import adapter as forgerynet  # noqa: F401  forgerynet-classification, -spatial, -temporal
