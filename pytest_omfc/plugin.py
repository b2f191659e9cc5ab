"""The ``pytest11`` entry point (``omfc = pytest_omfc.plugin``): a facade over :mod:`pytest_omfc.pytest_glue`.

``pytest --omfc-submission DIR --omfc-index INDEX`` collects the submission
directory as a :class:`SubmissionDir` whose children are :class:`RuleItem`
objects, one per applicable rule of RULES.md, then one score item per
applicable scorer and query (``--omfc-reference``).  The hooks live in
:mod:`pytest_omfc.pytest_glue.hooks`; pytest finds them here by name.

Installed, this module is loaded by every pytest run of the environment, so
it costs nothing when unused: it registers options and hooks only.  The
names that live with the rules and the submission (:class:`RuleItem`,
:class:`SubmissionDir`, :class:`Settings`, ...) are imported on first access
(PEP 562), and the hooks import them when ``--omfc-submission`` is given.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .pytest_glue.fixture import omfc  # noqa: F401  (the omfc fixture: pytest finds it here)
from .pytest_glue.hooks import (
    _OPTIONS,  # noqa: F401  (README option table, cli)
    ENTRY_POINT_HINT,
    INT_BOUNDS,
    pytest_addoption,
    pytest_collect_directory,
    pytest_configure,
    pytest_load_initial_conftests,
    pytest_report_header,
    resolve_settings,
)
from .pytest_glue.state import (
    SETTINGS_KEY,
    SUBMISSION_KEY,
    UsageProblem,
    bounded_int,
    submission_for,
)

if TYPE_CHECKING:
    from .pytest_glue.items import OmfcReporter, RuleItem, SubmissionDir, failure_repr
    from .submission import Settings

#: Public names imported on first access: name -> defining module.
_LAZY: dict[str, str] = {
    "OmfcReporter": "pytest_omfc.pytest_glue.items",
    "RuleItem": "pytest_omfc.pytest_glue.items",
    "SubmissionDir": "pytest_omfc.pytest_glue.items",
    "failure_repr": "pytest_omfc.pytest_glue.items",
    "Settings": "pytest_omfc.submission",
}

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


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


__all__ = [
    "ENTRY_POINT_HINT",
    "HEAVY_MODULES",
    "INT_BOUNDS",
    "SETTINGS_KEY",
    "SUBMISSION_KEY",
    "OmfcReporter",
    "RuleItem",
    "Settings",
    "SubmissionDir",
    "UsageProblem",
    "bounded_int",
    "failure_repr",
    "preload",
    "pytest_addoption",
    "pytest_collect_directory",
    "pytest_configure",
    "pytest_load_initial_conftests",
    "pytest_report_header",
    "resolve_settings",
    "submission_for",
]
