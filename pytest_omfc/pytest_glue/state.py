"""What both pytest-side layers share: stash keys, the submission accessor, usage errors.

:mod:`.items` (rule items) and :mod:`.scoring` (score items) import this
module; it imports neither, so they never import each other's hooks.
Light: the plugin imports it at load time (the submission, with pandas, is
imported on first use).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

import pytest

from ..editions import Edition

if TYPE_CHECKING:  # submission imports numpy and pandas: only when a submission is checked
    from ..submission import Settings, Submission

__all__ = [
    "EXTRA_ITEMS_KEY",
    "SETTINGS_KEY",
    "SUBMISSION_KEY",
    "UsageProblem",
    "bounded_int",
    "settings_of",
    "submission_for",
]

SETTINGS_KEY = pytest.StashKey["Settings | None"]()
SUBMISSION_KEY = pytest.StashKey["Submission"]()
#: Further item factories of a submission, collected after the rule and score items (the --omfc-require gates).
EXTRA_ITEMS_KEY = pytest.StashKey[list[Callable[[pytest.Collector], Iterator[pytest.Item]]]]()


#: A bad command line: pytest prints ``ERROR: <text>`` and exits 4.  pytest's own class (it is ``@final``:
#: not subclassed), under the name the plugin's option checks raise.
UsageProblem = pytest.UsageError


def bounded_int(flag: str, text: Any, lo: int, hi: int, error: type[Exception]) -> int:
    """``text`` as an integer in ``[lo, hi]``; else ``error("<flag>: must be an integer from lo to hi (got x)")``."""
    try:
        value = int(str(text).strip())
    except ValueError:
        raise error(f"{flag}: must be an integer from {lo} to {hi} (got {text!r})") from None
    if not lo <= value <= hi:
        raise error(f"{flag}: must be an integer from {lo} to {hi} (got {value})")
    return value


def settings_of(config: pytest.Config) -> Settings | None:
    """The run's :class:`Settings` (None when the plugin is off)."""
    return config.stash.get(SETTINGS_KEY, None)


def submission_for(config: pytest.Config) -> Submission:
    """The process-wide parsed submission (built on first use, never at collection)."""
    sub = config.stash.get(SUBMISSION_KEY, None)
    if sub is None:
        from ..submission import Submission

        settings = config.stash[SETTINGS_KEY]
        assert settings is not None
        if settings.edition is Edition.ForgeryNet:
            from ..scoring.forgerynet.submission import (
                ForgeryNetSubmission,  # ForgeryNet: no index, the reference lists the IDs
            )

            sub = ForgeryNetSubmission(settings)
        else:
            sub = Submission(settings)
        config.stash[SUBMISSION_KEY] = sub
    return sub
