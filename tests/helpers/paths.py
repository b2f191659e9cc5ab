"""Where things are, for every test wherever it sits in tests/: the repository, its tests, its examples."""

from __future__ import annotations

from pathlib import Path

#: The repository's root (tests/helpers/paths.py -> the root).
REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "tests"
EXAMPLES = REPO / "examples"
#: ``../shared`` beside the repository: the specification and MediScore's conformance data (may be absent).
SHARED = REPO.parent / "shared"
