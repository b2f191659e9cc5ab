"""Where things are, for every test wherever it sits in tests/: the repository, its tests, its examples."""

from __future__ import annotations

from pathlib import Path

#: The repository's root (tests/helpers/paths.py -> the root).
REPO = Path(__file__).resolve().parents[2]
TESTS = REPO / "tests"
EXAMPLES = REPO / "examples"
#: ``../shared`` beside the repository: the specification and MediScore's conformance data (may be absent).
SHARED = REPO.parent / "shared"
#: The specification documents beside the checkout, read as data by the tests that check this project's rule
#: reference against them (skipped where absent); the code and the docs cite docs/ instead.
SPEC = SHARED / "spec"
SPEC_RULES = SPEC / "RULES.md"
SPEC_PLANS = {
    "NC17": SPEC / "nc2017-evaluation-plan.txt",
    "MFC19": SPEC / "mfc2019-evaluation-plan.txt",
    "OMFC": SPEC / "openmfc-2020-2021-evaluation-plan.txt",
}
