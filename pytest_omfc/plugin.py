"""The ``pytest11`` entry point (``omfc = pytest_omfc.plugin``): a facade over :mod:`pytest_omfc.pytest_glue`.

``pytest --omfc-submission DIR --omfc-index INDEX`` collects the submission
directory as a :class:`SubmissionDir` whose children are :class:`RuleItem`
objects, one per applicable rule of RULES.md, then one score item per
applicable scorer and query (``--omfc-reference``).  The hooks live in
:mod:`pytest_omfc.pytest_glue.hooks`; pytest finds them here by name.
"""

from __future__ import annotations

from .pytest_glue.hooks import _OPTIONS  # noqa: F401  (README option table, cli)
from .pytest_glue.hooks import ENTRY_POINT_HINT
from .pytest_glue.hooks import INT_BOUNDS
from .pytest_glue.hooks import Settings
from .pytest_glue.hooks import pytest_addoption
from .pytest_glue.hooks import pytest_collect_directory
from .pytest_glue.hooks import pytest_configure
from .pytest_glue.hooks import pytest_load_initial_conftests
from .pytest_glue.hooks import pytest_report_header
from .pytest_glue.hooks import resolve_settings
from .pytest_glue.items import OmfcReporter
from .pytest_glue.items import RuleItem
from .pytest_glue.items import SubmissionDir
from .pytest_glue.items import failure_repr
from .pytest_glue.state import SETTINGS_KEY
from .pytest_glue.state import SUBMISSION_KEY
from .pytest_glue.state import UsageProblem
from .pytest_glue.state import bounded_int
from .pytest_glue.state import submission_for

__all__ = [
    "ENTRY_POINT_HINT", "INT_BOUNDS", "OmfcReporter", "RuleItem", "SETTINGS_KEY", "SUBMISSION_KEY", "Settings",
    "SubmissionDir", "UsageProblem", "bounded_int", "failure_repr", "pytest_addoption", "pytest_collect_directory",
    "pytest_configure", "pytest_load_initial_conftests", "pytest_report_header", "resolve_settings", "submission_for",
]  # fmt: skip
