"""The run of one scorer on one parsed submission, shared by the plugin's score items, the ``omfc`` fixture
and :func:`pytest_omfc.api.omfc_score`: the scoring input built from the submission, the rules' rejected
files handed to the scorer (:func:`rules_rejected`), and every outcome made a verdict (an engine's error
fails the score naming it, never a traceback)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .editions import Edition
from .errors import ScoringError
from .findings import Unavailable
from .scoring.registry import NotScored, Outcome, Scorer, ScoringInput, nothing_scored
from .submission import Submission

__all__ = ["rules_rejected", "run_scorer"]


def rules_rejected(sub: Submission) -> Callable[[], Mapping[str, str]]:
    """The bridge from the rules to the scorers: the system files the rules fail with an error (masks:
    MASK-03..07; provenance JSONs: PROV-02..04), computed once, when a scorer first asks.  A submission whose
    output cannot be read at all rejects no file here (the rules name the problem, the scorer says it cannot
    score); any other error propagates, and :func:`run_scorer` fails the score naming it: a scorer never
    goes on scoring files the rules rejected."""
    memo: list[Mapping[str, str]] = []

    def rejected() -> Mapping[str, str]:
        if not memo:
            from .editions import Task

            try:
                if sub.task in (Task.PF, Task.PG):
                    from .rules.prov import rejected_jsons

                    memo.append(rejected_jsons(sub))
                else:
                    from .rules.mask import rejected_masks

                    memo.append(rejected_masks(sub))
            except Unavailable:  # the output or the index cannot be read: the rules and the scorer say so
                memo.append({})
        return memo[0]

    return rejected


def run_scorer(
    sub: Submission,
    scorer: Scorer,
    *,
    reference: Path,
    queries: Sequence[tuple[str, str]],
    query_partition: str | None,
    optout: bool,
    convention: str,
    options: Mapping[str, Any],
    query_error: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[Outcome]:
    """One scorer on one parsed submission: one outcome per position; never raises (an engine bug fails).

    The plugin's score items, the ``omfc`` fixture and :func:`pytest_omfc.api.omfc_score` all come through
    here.
    """
    n = max(1, len(queries))
    if query_error:
        return [NotScored(query_error, fail=True)] * n
    common: dict[str, Any] = dict(
        column_rule=sub.column_rule,
        reference=reference,
        task=sub.task,
        submission=sub.dir,
        dataset_root=sub.settings.dataset_root,
        queries=tuple(queries),
        query_partition=query_partition,
        optout=optout,
        convention=convention,
        jobs=sub.settings.jobs,
        options=dict(options),
        progress=progress,
    )
    if sub.edition is Edition.ForgeryNet:  # no index: the scorer reads the parsed ForgeryNetSubmission
        inp = ScoringInput(system=None, index=None, parsed=sub, **common)
    else:
        try:
            table = sub.sysout()  # CSV-01..08 when the file cannot be read as a table
            index = sub.index()  # CSV-07
        except Unavailable as exc:
            return [NotScored(f"{exc.rule_id} failed: {exc.reason}")] * n
        inp = ScoringInput(system=table, index=index.df, index_table=index, rejected=rules_rejected(sub), **common)
    try:
        got = [nothing_scored(o) for o in scorer.run(inp)]
        if len(got) != n:
            raise ScoringError(f"the {scorer.name} scorer returned {len(got)} results for {n} queries")
    except Exception as exc:  # an engine bug must not become a traceback (in a run or in a user's notebook)
        got = [NotScored(f"scoring could not run: {type(exc).__name__}: {exc}", fail=True)] * n
    return got
