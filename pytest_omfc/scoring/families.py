"""The scorer families in their order: importing this module registers every scorer.

The order is the order of the score items, the summary tables and the metrics-JSON results:
detection, mask and provenance (``scorers``, which registers provenance after mask), temporal, then the
ForgeryNet scorers.  This is the one place that imports the registering modules (light: option
declarations; the engines are imported when a scorer runs).
"""

from __future__ import annotations

from . import scorers  # noqa: F401  detection, mask, provenance
from . import scorers_temporal  # noqa: F401  temporal
from . import scorers_forgerynet  # noqa: F401  forgerynet-classification, -spatial, -temporal
