"""Sphinx configuration of the pytest-omfc documentation site (``docs/``).

Built in CI by ``tests/test_docs_site.py`` with warnings as errors and a link check of the built pages:

    python -m sphinx -W --keep-going -b html docs docs/_build/html

The pages are Markdown (MyST); the rule reference, the option tables and a few other blocks are generated
from the code by ``python -m pytest_omfc.docgen`` (``--check`` reports drift).
"""

from __future__ import annotations

import pytest_omfc

project = "pytest-omfc"
author = "the pytest-omfc developers"
copyright = "2026, the pytest-omfc developers"
release = pytest_omfc.__version__

extensions = ["myst_parser", "sphinx.ext.autodoc"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build"]
root_doc = "index"
# keep quotes as written: rule titles, plan quotations and option values are quoted literally
smartquotes = False

# MyST: `[text](page.md#anchor)` links are checked against these heading anchors (a missing one warns,
# so it fails the -W build); `(label)=` targets for the rule IDs.
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence", "deflist"]
suppress_warnings: list[str] = []

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": False}

html_theme = "furo"
html_title = "pytest-omfc"
html_static_path: list[str] = []
