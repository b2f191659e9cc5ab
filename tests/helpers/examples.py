"""Builders shared by the tests, from test_options_bounds.py."""

from __future__ import annotations

from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
