"""Builders shared by the tests, from test_plugin.py."""

from __future__ import annotations

COUNTER = """
import json
from pathlib import Path
import pytest_omfc.submission as submission

def pytest_configure(config):
    calls = []
    original = submission.read_psv
    def counting(path, display, **kw):
        calls.append(Path(path).name)
        return original(path, display, **kw)
    submission.read_psv = counting
    config._omfc_count = (calls, original)

def pytest_unconfigure(config):
    calls, original = config._omfc_count
    submission.read_psv = original
    who = config.workerinput["workerid"] if hasattr(config, "workerinput") else "main"
    Path(__file__).with_name(f"calls-{who}.json").write_text(json.dumps(calls))
"""
