"""Shared test helpers: write a tiny dataset + submission with pytester and read rule outcomes.

Usage in a test::

    def test_idx04_fails(omfc):
        case = omfc.case("OpenMFC2020", "IMDL", rows=[...])      # valid defaults for the rest
        res = case.run()                                            # in-process pytest run
        assert res.outcome("IDX-04") == "failed"
        assert res.first_line("IDX-04") == "IDX-04: 1 of 2 trials are missing from the system output (showing 1)"
"""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from helpers.forgerynet import Fnet
from helpers.fuzz import fresh, runner  # noqa: F401  (fixtures of the fuzz tests)
from helpers.runs import CONFORMANCE, OmfcFactory

import pytest_omfc.plugin

pytest_omfc.plugin.preload()  # import pandas & co. (which loading the plugin defers) before freezing

pytest_plugins = ["pytester"]

# Every in-process pytester run ends with several gc.collect() calls (pytest's
# unraisable-exception hook); freezing what is already imported makes them cheap.
gc.freeze()


@pytest.fixture
def omfc(pytester: pytest.Pytester) -> OmfcFactory:
    return OmfcFactory(pytester)


@pytest.fixture
def conformance() -> Path:
    """MediScore's test data beside the checkout (../shared); skips where it is absent."""
    if not CONFORMANCE.is_dir():
        pytest.skip(f"MediScore conformance data not found at {CONFORMANCE} (CI has it beside the checkout)")
    return CONFORMANCE


@pytest.fixture
def fnet(pytester: pytest.Pytester) -> Fnet:
    """A ForgeryNet case builder (helpers/forgerynet.py)."""
    return Fnet(pytester)
