"""The video temporal localization scorer's adapter and registration (docs/scoring/temporal.md#definition).

Kept apart from :mod:`.scorers` so that each scorer family registers in its own module; importing
it (the pytest layer does) adds ``temporal`` to :data:`pytest_omfc.scoring.registry.SCORERS`.  Items
``<sub>::score::temporal`` (or ``[q1]``... with ``--omfc-query``; ``*`` means every probe, as in
MediScore's ``-q "*"``), metrics ``{"MCC": ...}`` and ``per_trial`` with MediScore's
``scores_probes.csv`` columns.  No pytest import.

Read at plugin load for its option declarations: the engine is imported in
:func:`run_temporal` (CONTRIBUTING.md, "Keeping the plugin light").
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...editions import Task
from ..registry import NotScored, Outcome, Scorer, ScoreResult, ScoringInput, register
from .options import TEMPORAL_OPTIONS

if TYPE_CHECKING:  # annotations only; run_temporal imports the engine
    from ..paired import TrialData
    from .engine import TemporalResult, TemporalTrial

__all__ = ["TEMPORAL", "TEMPORAL_TASKS", "journal_paths", "run_temporal"]

#: Tasks scored by the temporal scorer (MFC2019 manipulation-video, OpenMFC VMD/VGMD: all Task.VID).
TEMPORAL_TASKS: dict[Task, str] = {Task.VID: "manipulation-video"}


#: Trials named in an item's failure text before "... and N more".
SHOWN = 5


def _given(value: str, inp: ScoringInput) -> Path:
    """A path option: absolute, else from the dataset root when it is there, else from the working directory."""
    p = Path(value).expanduser()
    if p.is_absolute():
        return p
    cand = inp.dataset_root / p if inp.dataset_root is not None else None
    return cand if cand is not None and cand.is_file() else p.resolve()


def journal_paths(inp: ScoringInput) -> tuple[Path, Path]:
    """(probe-journal join, journal mask): the options, else found by name beside the reference."""
    stem = inp.reference.with_suffix("") if inp.reference.suffix else inp.reference
    join = inp.options.get("probe_journal_join")
    mask = inp.options.get("journal_mask")
    return (
        _given(join, inp) if join else stem.parent / f"{stem.name}-probejournaljoin.csv",
        _given(mask, inp) if mask else stem.parent / f"{stem.name}-journalmask.csv",
    )


def _plain(v: float | None) -> float | None:
    return None if v is None or not math.isfinite(v) else float(v)


def _trial_row(t: TemporalTrial, inp: ScoringInput) -> dict[str, Any]:
    """One ``per_trial`` row: MediScore's ``scores_probes.csv`` columns, then the confusion and status."""
    scored = t.status == "scored"
    reason = None if t.reason is None else _where(t.reason, inp)
    return {
        "ProbeFileID": t.probe,
        "MCC": _plain(t.mcc),
        "TP": t.tp if scored else None,
        "TN": t.tn if scored else None,
        "FP": t.fp if scored else None,
        "FN": t.fn if scored else None,
        "status": t.status,
        "reason": reason,
    }


_WHERE = re.compile(r"^(system output|index):(\d+(?:, \d+)*)")


def _where(reason: str, inp: ScoringInput) -> str:
    """Name the file and its physical lines where the engine, given DataFrames, wrote ``system output:N``
    or ``index:N`` (line = position + 2): ``p-x/p-x.csv:3``, ``MFC2019-manipulation-video-index.csv:2``,
    as the rule messages do."""
    m = _WHERE.match(reason)
    table = (inp.system if m.group(1) == "system output" else inp.index_table) if m else None
    if m is None or table is None:
        return reason
    try:
        lines = ", ".join(str(table.line_of(int(n) - 2)) for n in m.group(2).split(", "))
    except (IndexError, ValueError):
        return reason
    return f"{table.display}:{lines}{reason[m.end() :]}"


def _failure(r: TemporalResult, inp: ScoringInput) -> str | None:
    failed = r.failed
    if not failed:
        return None
    head = "; ".join(_where(t.reason or "no reason", inp) for t in failed[:SHOWN])
    more = f"; ... and {len(failed) - SHOWN} more" if len(failed) > SHOWN else ""
    return f"{len(failed)} of {len(r.trials)} trial(s) could not be scored: {head}{more}"


def _result(r: TemporalResult, query: str | None, kind: str, inp: ScoringInput) -> Outcome:
    if r.error is not None:
        return NotScored(f"query {r.query!r}: {r.error}", fail=True)
    scored = len(r.scored)
    counts = {
        "trials": len(r.trials),
        "scored": scored,
        "opted_out": len(r.trials) - scored - len(r.failed),
        "not_scored": len(r.failed),
    }
    if scored == 0:
        what = "no trial selected" if not r.trials else "no trial could be scored"
        reason = f"{'all probes' if query is None else f'q query {query!r}'}: {what} ({counts}); MCC is undefined"
        failure = _failure(r, inp)
        return NotScored(failure or reason, fail=failure is not None)
    entry = {
        "query": query,
        "query_kind": kind,
        "metrics": {"MCC": _plain(r.mcc)},
        "counts": counts,
        "per_trial": [_trial_row(t, inp) for t in r.trials],
    }
    props: list[tuple[str, Any]] = [("MCC", float(r.mcc))] + [(f"count.{k}", v) for k, v in counts.items()]
    return ScoreResult(entry, props, _failure(r, inp))


def run_temporal(inp: ScoringInput) -> list[Outcome]:
    """Temporal localization scoring of every ``--omfc-query`` (default ``*``); one outcome per position."""
    from ...errors import ScoringError
    from ..registry import not_scored
    from .engine import score_temporal

    n = inp.positions
    if inp.kind not in ("all", "q"):
        return [
            NotScored(
                "temporal scoring selects with --omfc-query only (MediScore's -q); "
                "--omfc-query-manipulation and --omfc-query-partition do not apply"
            )
        ] * n
    for col in ("ProbeFileID", "VideoFrameSegments"):
        if not inp.table.has(col):
            return [NotScored(f"{inp.column_rule} failed: column {col} is absent")] * n
    join, mask = journal_paths(inp)
    missing = [p for p in (join, mask) if not p.is_file()]
    if missing:
        opts = inp.options
        given = bool(opts.get("probe_journal_join") or opts.get("journal_mask"))
        flags = "--omfc-probe-journal-join and --omfc-journal-mask"
        return [
            NotScored(
                f"journal table(s) not found: {', '.join(str(p) for p in missing)} "
                f"(the temporal reference; name them with {flags})",
                fail=given,
            )
        ] * n
    opts = inp.options
    system = inp.table.df
    video_optout = not opts.get("no_video_optout")
    optout_filter = not opts.get("no_optout_filter")
    if video_optout and "VideoFrameOptOutSegments" not in system.columns:
        video_optout = False  # an optional column (COL rules): absent means no opt-out segments
    queries = [q for q, _ in inp.queries] or ["*"]
    try:
        report = score_temporal(
            inp.index,
            None,
            system,
            journal_join=join,
            journal_mask=mask,
            query=queries,
            collar=int(opts.get("collar") or 0),
            video_optout=video_optout,
            optout_filter=optout_filter,
            convention="plan" if inp.convention == "plan" else "mediscore",
        )
    except ScoringError as exc:
        return [not_scored(exc)] * n
    out: list[Outcome] = []
    for r, (query, kind) in zip(report.results, inp.queries or ((None, "all"),), strict=False):
        out.append(_result(r, query, kind, inp))
    return out


def _trials(entry: Mapping[str, Any], options: Mapping[str, Any]) -> TrialData | None:
    """The entry's trials for comparisons (imported only when a comparison runs)."""
    from .paired import temporal_trials

    return temporal_trials(entry, options)


TEMPORAL = register(
    Scorer(
        name="temporal",
        title="temporal localization",
        tasks=TEMPORAL_TASKS,
        run=run_temporal,
        options=TEMPORAL_OPTIONS,
        null_keys=("metrics", "counts", "per_trial"),
        metrics=("MCC",),
        trials=_trials,
        headline=("MCC",),
    )
)
