"""The ``pytest11`` entry point (``omfc = pytest_omfc.plugin``): a facade over :mod:`pytest_omfc.pytest_glue`.

``pytest --omfc-submission DIR --omfc-index INDEX`` collects the submission
directory as a :class:`SubmissionDir` whose children are :class:`RuleItem`
objects, one per applicable rule of RULES.md, then one score item per
applicable scorer and query (``--omfc-reference``).  The hooks live in
:mod:`pytest_omfc.pytest_glue.hooks`; pytest finds them here by name.
"""

from __future__ import annotations

from .pytest_glue.hooks import (
    _OPTIONS,  # noqa: F401  (README option table, cli)
    ENTRY_POINT_HINT,
    INT_BOUNDS,
    Settings,
    pytest_addoption,
    pytest_collect_directory,
    pytest_configure,
    pytest_load_initial_conftests,
    pytest_report_header,
    resolve_settings,
)
from .pytest_glue.fixture import omfc  # noqa: F401  (the omfc fixture: pytest finds it here)
from .pytest_glue.items import OmfcReporter, RuleItem, SubmissionDir, failure_repr
from .pytest_glue.state import (
    SETTINGS_KEY,
    SUBMISSION_KEY,
    UsageProblem,
    bounded_int,
    submission_for,
)

__all__ = [
    "ENTRY_POINT_HINT",
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
    "pytest_addoption",
    "pytest_collect_directory",
    "pytest_configure",
    "pytest_load_initial_conftests",
    "pytest_report_header",
    "resolve_settings",
    "submission_for",
]  # fmt: skip
