"""A leaderboard of many scored runs of one task on one reference (docs/scoring/comparison.md, Leaderboard).

``pytest-omfc leaderboard RUN.json ... -o board.html [--json board.json]`` reads the metrics JSON of each run
(``--omfc-metrics-json``), refuses runs of another edition, task or reference (by SHA-256), and ranks the runs
by each scorer's first headline metric (:attr:`~pytest_omfc.scoring.registry.Scorer.headline`: detection's AUC,
the mask scorer's OptimumMCC...) or by the metrics ``--metric`` names.  Each row has the run's value and its
interval over trials; two neighbours whose paired difference is not significant at the level (the interval of
the difference holds 0: DeLong's test for an AUC, a paired bootstrap otherwise) share a rank, and a row links
to the run's HTML report when the run wrote one.  No pytest; the page is :mod:`pytest_omfc.report.leaderboard`'s.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .comparison import ComparisonError, compare_entries, intervals_of, load_baseline, reference_sha256, scorer_of

__all__ = ["LeaderboardError", "build", "main"]

LEADERBOARD_SCHEMA = "pytest-omfc-leaderboard/1"


class LeaderboardError(ValueError):
    """Runs that cannot share a leaderboard: the message names the file and what differs."""


def _load(paths: Sequence[Path]) -> list[tuple[Path, dict[str, Any]]]:
    runs = []
    for path in paths:
        try:
            runs.append((path, load_baseline(path)))
        except ComparisonError as exc:
            raise LeaderboardError(str(exc)) from None
    if not runs:
        raise LeaderboardError("give the metrics JSON of at least one run")
    first_path, first = runs[0]
    want = (first.get("edition"), first.get("task"), reference_sha256(first))
    if want[2] is None:
        raise LeaderboardError(f"{first_path}: carries no SHA-256 of its reference (written by an older version?)")
    for path, doc in runs[1:]:
        got = (doc.get("edition"), doc.get("task"), reference_sha256(doc))
        for what, a, b in zip(("edition", "task", "reference (SHA-256)"), want, got, strict=True):
            if a != b:
                raise LeaderboardError(
                    f"{path}: {what} {str(b)[:16]!r} differs from {first_path.name}'s {str(a)[:16]!r}: a leaderboard "
                    "ranks runs of one task scored against one reference"
                )
    return runs


def _names(runs: Sequence[tuple[Path, dict[str, Any]]]) -> list[str]:
    """Each run's name: its submission, with the file name when two runs share one."""
    subs = [str(doc.get("submission") or path.stem) for path, doc in runs]
    return [s if subs.count(s) == 1 else f"{s} ({path.name})" for s, (path, _) in zip(subs, runs, strict=True)]


def _report(path: Path, doc: Mapping[str, Any], out_dir: Path | None) -> str | None:
    """The run's HTML report (``--omfc-html`` as its run stamp records it), relative to the page's folder."""
    run = doc.get("run")
    options = run.get("options") if isinstance(run, Mapping) else None
    given = options.get("--omfc-html") if isinstance(options, Mapping) else None
    if not isinstance(given, str) or not given:
        return None
    cwd = run.get("working_directory") if isinstance(run, Mapping) else None
    target = Path(given) if Path(given).is_absolute() else Path(str(cwd or path.parent)) / given
    if out_dir is None:
        return str(target)
    try:
        return os.path.relpath(target, out_dir)
    except ValueError:
        return str(target)


def _overall(doc: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """The run's overall results (no query, no node type other than all), by the scorer name of the entry."""
    out: dict[str, Mapping[str, Any]] = {}
    for entry in doc.get("results", []):
        if not isinstance(entry, Mapping) or entry.get("query") is not None:
            continue
        if entry.get("node_type") not in (None, "all") or entry.get("metrics") is None:
            continue
        out.setdefault(str(entry.get("scorer")), entry)
    return out


def _value(entry: Mapping[str, Any], metric: str) -> float | None:
    v = (entry.get("metrics") or {}).get(metric)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else None


def build(
    paths: Sequence[Path],
    *,
    metrics: Sequence[str] = (),
    level: float = 0.9,
    draws: int = 500,
    seed: int = 77,
    out_dir: Path | None = None,
) -> dict[str, Any]:
    """The leaderboard of the runs ``paths`` (the document ``--json`` writes); :class:`LeaderboardError` when they
    cannot share one."""
    from .scoring import families  # noqa: F401  (registers every scorer)
    from .scoring.registry import SCORERS

    runs = _load(paths)
    names = _names(runs)
    overall = [_overall(doc) for _, doc in runs]
    boards: list[dict[str, Any]] = []
    entry_names = list(dict.fromkeys(name for results in overall for name in results))
    for entry_name in entry_names:
        some = next(results[entry_name] for results in overall if entry_name in results)
        scorer = scorer_of(some, SCORERS)
        present = [m for m in (scorer.headline if scorer is not None else ()) if _has(overall, entry_name, m)]
        # by default each scorer's first headline metric the runs have (--metric names others)
        wanted = [m for m in metrics if _has(overall, entry_name, m)] if metrics else present[:1]
        for metric in wanted:
            boards.append(
                _board(
                    runs,
                    names,
                    overall,
                    entry_name,
                    metric,
                    scorer,
                    level=level,
                    draws=draws,
                    seed=seed,
                    out_dir=out_dir,
                )  # fmt: skip
            )
    first = runs[0][1]
    return {
        "schema": LEADERBOARD_SCHEMA,
        "edition": first.get("edition"),
        "task": first.get("task"),
        "reference_sha256": reference_sha256(first),
        "level": level,
        "draws": draws,
        "seed": seed,
        "runs": [{"name": n, "file": str(p)} for n, (p, _) in zip(names, runs, strict=True)],
        "boards": boards,
    }


class _Memo:
    """A scorer whose ``trials`` reads each run's result once (each run is compared with two neighbours)."""

    def __init__(self, scorer: Any) -> None:
        self.scorer = scorer
        self.memo: dict[int, tuple[Mapping[str, Any], Any]] = {}

    def trials(self, entry: Mapping[str, Any], options: Mapping[str, Any]) -> Any:
        hit = self.memo.get(id(entry))
        if hit is None or hit[0] is not entry:
            hit = (entry, self.scorer.trials(entry, options))
            self.memo[id(entry)] = hit
        return hit[1]


def _has(overall: Sequence[Mapping[str, Mapping[str, Any]]], entry_name: str, metric: str) -> bool:
    return any(entry_name in r and _value(r[entry_name], metric) is not None for r in overall)


def _board(
    runs: Sequence[tuple[Path, dict[str, Any]]],
    names: Sequence[str],
    overall: Sequence[Mapping[str, Mapping[str, Any]]],
    entry_name: str,
    metric: str,
    scorer: Any,
    *,
    level: float,
    draws: int,
    seed: int,
    out_dir: Path | None,
) -> dict[str, Any]:
    """One metric's ranking: best first; each row's interval; whether it differs significantly from the next."""
    lower = scorer is not None and metric in scorer.lower_is_better
    ranked = [
        (k, value)
        for k, results in enumerate(overall)
        if entry_name in results and (value := _value(results[entry_name], metric)) is not None
    ]
    ranked.sort(key=lambda kv: kv[1] if lower else -kv[1])
    rows: list[dict[str, Any]] = []
    rank = 0
    memo = _Memo(scorer) if scorer is not None and scorer.trials is not None else None
    for i, (k, value) in enumerate(ranked):
        path, doc = runs[k]
        entry = overall[k][entry_name]
        iv = (entry.get("intervals") or {}).get(metric) or intervals_of(
            scorer, {**entry, "metrics": {metric: value}}, doc.get("options") or {}, level=level, draws=draws, seed=seed
        ).get(metric, {})
        if i == 0 or rows[-1]["significant"] is not False:
            rank = i + 1
        row: dict[str, Any] = {
            "rank": rank,
            "run": names[k],
            "file": str(path),
            "value": value,
            "ci_low": iv.get("ci_low"),
            "ci_high": iv.get("ci_high"),
            "report": _report(path, doc, out_dir),
            "next_difference": None,
            "next_p_value": None,
            "next_test": None,
            "significant": None,
        }
        if i + 1 < len(ranked) and memo is not None:
            nk = ranked[i + 1][0]
            got: dict[str, Any] = compare_entries(
                memo,
                overall[nk][entry_name],
                entry,
                runs[nk][1].get("options") or {},
                doc.get("options") or {},
                level=level,
                draws=draws,
                seed=seed,
                only=(metric,),
            )
            metrics_of = got.get("metrics")
            c: Mapping[str, Any] = metrics_of.get(metric) or {} if isinstance(metrics_of, Mapping) else {}
            if c.get("ci_low") is not None and c.get("ci_high") is not None:
                row["next_difference"], row["next_p_value"], row["next_test"] = c["difference"], c["p_value"], c["test"]
                row["significant"] = not (c["ci_low"] <= 0.0 <= c["ci_high"])
        rows.append(row)
    return {"scorer": entry_name, "metric": metric, "higher_is_better": not lower, "rows": rows}


def _usage(message: str) -> int:
    sys.stderr.write(message + "\n")
    return 4


def main(argv: Sequence[str] | None = None) -> int:
    """``pytest-omfc leaderboard``: exit 0 when written, 4 on a usage error (runs that cannot be ranked together)."""
    ap = argparse.ArgumentParser(
        prog="pytest-omfc leaderboard",
        description="rank scored runs of one task on one reference (their --omfc-metrics-json files)",
    )
    ap.add_argument("runs", nargs="+", type=Path, metavar="RUN.json", help="metrics JSON of each run")
    ap.add_argument("-o", "--output", type=Path, metavar="PATH", help="write the leaderboard page (HTML) here")
    ap.add_argument("--json", type=Path, metavar="PATH", help="write the leaderboard as JSON here")
    ap.add_argument("--metric", action="append", default=[], help="rank by this metric (repeatable; default: each "
                    "scorer's headline metric, e.g. AUC, OptimumMCC)")  # fmt: skip
    ap.add_argument("--ci-level", type=float, default=0.9, help="level of the intervals and tests (default 0.9)")
    ap.add_argument("--draws", type=int, default=500, help="bootstrap draws (default 500)")
    ap.add_argument("--seed", type=int, default=77, help="seed of the draws (default 77)")
    args = ap.parse_args(list(argv) if argv is not None else None)
    if not 0.0 < args.ci_level < 1.0:
        return _usage(f"pytest-omfc leaderboard: error: --ci-level: must be in (0, 1) (got {args.ci_level})")
    if not 1 <= args.draws <= 100_000:
        return _usage(f"pytest-omfc leaderboard: error: --draws: must be from 1 to 100000 (got {args.draws})")
    if args.output is None and args.json is None:
        return _usage("pytest-omfc leaderboard: error: give -o PATH (HTML) and/or --json PATH")
    from .outputs import why_not_writable, write_atomic

    for flag, target in (("-o", args.output), ("--json", args.json)):
        why = None if target is None else why_not_writable(target, inputs=args.runs)
        if why is not None:
            return _usage(f"pytest-omfc leaderboard: error: {flag}: {why}")
    try:
        out_dir = args.output.resolve().parent if args.output is not None else None
        board = build(
            args.runs, metrics=args.metric, level=args.ci_level, draws=args.draws, seed=args.seed, out_dir=out_dir
        )
    except LeaderboardError as exc:
        return _usage(f"pytest-omfc leaderboard: error: {exc}")
    if args.json is not None:
        import json

        write_atomic(args.json, json.dumps(board, indent=2, allow_nan=False) + "\n")
        print(f"omfc: wrote leaderboard JSON: {args.json}")
    if args.output is not None:
        from .report.leaderboard import render

        write_atomic(args.output, render(board))
        print(f"omfc: wrote leaderboard page: {args.output}")
    return 0
