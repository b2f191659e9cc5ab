"""The one version source (pytest-omfc --version, pytest -VV, the reports; pyproject.toml reads it)."""

__version__ = "0.1.0"
