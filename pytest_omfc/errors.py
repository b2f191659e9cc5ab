"""Why an input cannot be scored, as a small class hierarchy: the class decides the item's verdict.

::

    ScoringError                  an input cannot be scored (the message says what and where)   -> fail
    ├── SetupError                the scoring set-up: reference, journal, node or world table,
    │   │                         index against reference, options                             -> fail
    │   └── QueryError            a query that does not parse, is not a row filter or names an
    │                             unknown column (``unknown``); one bad query fails its own item -> fail
    ├── ExecutionError            the processes or the dask cluster that score                  -> fail
    ├── SubmissionError           the system output itself (a rule names why)                   -> skip
    └── Undefined                 nothing to compute: no trial left, no target or no
                                  non-target, a bootstrap with one class                        -> skip

A set-up error is the user's to fix, so its item fails and cannot pass unnoticed; a submission error
is the participant's, which the rule items already report, so scoring is skipped naming it.  No
decision reads a message's text: :func:`fails` is the whole policy.  Engines raise these (never
pytest's exceptions); the adapters turn them into :class:`~.registry.NotScored`.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "ExecutionError",
    "ExecutionWarning",
    "QueryError",
    "ScoringError",
    "SetupError",
    "SubmissionError",
    "Undefined",
    "fails",
]


class ScoringError(Exception):
    """An input cannot be scored; ``str(err)`` says what is wrong and where."""


class SetupError(ScoringError):
    """The scoring set-up (reference, journal tables, index against reference, options) is wrong."""


class QueryError(SetupError):
    """A query cannot select trials; ``unknown`` lists the column names it uses that do not exist."""

    def __init__(self, message: str, unknown: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.unknown = tuple(unknown)


class ExecutionError(ScoringError):
    """The scoring processes or the dask cluster failed (a worker died, no scheduler)."""


class ExecutionWarning(UserWarning):
    """The cluster asked for (``--omfc-dask``) could not run a check's work, which then ran in this machine's
    processes: the verdicts are the same, the run took longer.  A check never fails because of the machine."""


class SubmissionError(ScoringError):
    """The system output cannot be scored (a rule item says why): the score item is skipped."""


class Undefined(ScoringError):
    """Nothing to compute for the selection (no trial, no target or no non-target): skipped."""


def fails(exc: ScoringError) -> bool:
    """The verdict policy: a submission error or an undefined result skips, everything else fails."""
    return not isinstance(exc, (SubmissionError, Undefined))
