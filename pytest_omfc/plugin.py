"""The ``pytest11`` entry point (``omfc = pytest_omfc.plugin``): the hooks and the fixture, nothing else.

``pytest --omfc-submission DIR --omfc-index INDEX`` collects the submission
directory as a :class:`~pytest_omfc.pytest_glue.items.SubmissionDir` whose children
are rule items, one per applicable rule, then one score item per applicable scorer
and query (``--omfc-reference``).  The hooks live in :mod:`pytest_omfc.pytest_glue.hooks`;
pytest finds them here by name.

Installed, this module is loaded by every pytest run of the environment, so
it costs nothing when unused: it registers options and hooks only; the rules,
the submission and the engines are imported when ``--omfc-submission`` is given.
The public Python API is :mod:`pytest_omfc` (``omfc_score``, the result types).
"""

from __future__ import annotations

import importlib

from .pytest_glue.compat import leave_unrewritten

# Before the plugin's other modules are imported: pytest need not rewrite their asserts (compat.py says why).
leave_unrewritten(__name__.partition(".")[0])

from .pytest_glue.fixture import omfc  # noqa: E402
from .pytest_glue.hooks import (  # noqa: E402
    pytest_addoption,
    pytest_collect_directory,
    pytest_configure,
    pytest_load_initial_conftests,
    pytest_report_header,
)

__all__ = [
    "HEAVY_MODULES",
    "omfc",
    "preload",
    "pytest_addoption",
    "pytest_collect_directory",
    "pytest_configure",
    "pytest_load_initial_conftests",
    "pytest_report_header",
]

#: Every module a submission check imports (what loading the plugin defers), for :func:`preload`.
HEAVY_MODULES = (
    "pytest_omfc.pytest_glue.items",  # the rules, the submission, the models
    "pytest_omfc.scoring.detection.engine",
    "pytest_omfc.report.plots",
    "pytest_omfc.scoring.mask.run",
    "pytest_omfc.scoring.provenance.run",
    "pytest_omfc.scoring.temporal.engine",
)


def preload() -> None:
    """Import now what a submission check would import on first use.

    For long-lived processes that fork or freeze their heap before running
    checks (the test suite's ``gc.freeze()``, a portal's worker pool), so
    each check does not pay the imports again.
    """
    for name in HEAVY_MODULES:
        importlib.import_module(name)
