"""The comparison with a baseline run, and the intervals of one run's metrics, as tables (the terminal's): one
row per compared metric (both values, the difference, its interval, the p-value and the test), one row per
metric with an interval (its value, the interval, the method and the trials)."""

from __future__ import annotations

import math
from typing import Any

from ..findings import tame

__all__ = ["COMPARISON_COLUMNS", "INTERVAL_COLUMNS", "comparison_rows", "interval_rows"]

COMPARISON_COLUMNS = ("metric", "baseline", "value", "diff", "interval", "p", "test", "n")
#: The tests as the table names them (the metrics JSON's ``test`` values are ``delong`` and ``paired-bootstrap``).
_TESTS = {"delong": "DeLong", "paired-bootstrap": "bootstrap"}


def _num(value: Any, signed: bool = False) -> str:
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        return "-"
    return f"{value:+.4f}" if signed else f"{value:.4f}"


def _p(value: Any) -> str:
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        return "-"
    return "<0.0001" if value < 1e-4 else f"{value:.4f}"


def comparison_rows(entries: list[tuple[int, dict[str, Any]]]) -> tuple[list[tuple[str, ...]], list[str]]:
    """``(rows, notes)``: a row per compared metric of each result (label first, as the scorer's table labels
    it), and the notes: trials only one run scored, metrics that could not be compared and why."""
    rows: list[tuple[str, ...]] = []
    notes: list[str] = []
    for pos, entry in entries:
        label = "all" if entry.get("query") is None else f"{entry.get('query_kind')}{pos + 1}"
        if entry.get("comparison_skipped"):
            notes.append(f"{label} not compared: {entry['comparison_skipped']}")
            continue
        comparison = entry.get("comparison")
        if not isinstance(comparison, dict):
            continue
        trials = entry.get("compared_trials") or {}
        for side, word in (("baseline_only", "the baseline only"), ("run_only", "this run only")):
            n = trials.get(side) or 0
            if n:
                first = ", ".join(str(k) for k in trials.get(f"{side}_first") or [])
                notes.append(f"{label}: {n} trial(s) scored by {word}, not paired (first: {first})")
        for metric, c in comparison.items():
            if c.get("skipped"):
                notes.append(f"{label} {metric} not compared: {c['skipped']}")
                continue
            interval = (
                f"[{_num(c.get('ci_low'), True)}, {_num(c.get('ci_high'), True)}]"
                if c.get("ci_low") is not None
                else "-"
            )
            rows.append(
                (
                    label,
                    metric,
                    _num(c.get("baseline")),
                    _num(c.get("value")),
                    _num(c.get("difference"), True),
                    interval,
                    _p(c.get("p_value")),
                    _TESTS.get(str(c.get("test")), str(c.get("test") or "-")),
                    str(c.get("trials") if c.get("trials") is not None else "-"),
                )
            )
    return rows, [tame(n) for n in notes]  # trial keys come from the runs' files: escaped, shortened


INTERVAL_COLUMNS = ("metric", "value", "interval", "method", "n")


def interval_rows(entries: list[tuple[int, dict[str, Any]]]) -> tuple[list[tuple[str, ...]], list[str]]:
    """``(rows, notes)``: a row per metric with an interval (label first), and a note naming the metrics
    without one and why."""
    rows: list[tuple[str, ...]] = []
    notes: list[str] = []
    for pos, entry in entries:
        label = "all" if entry.get("query") is None else f"{entry.get('query_kind')}{pos + 1}"
        if entry.get("node_type") not in (None, "all"):
            label = f"{label} {entry['node_type']}"
        intervals = entry.get("intervals")
        if not isinstance(intervals, dict):
            continue
        without: dict[str, list[str]] = {}
        for metric, iv in intervals.items():
            if iv.get("ci_low") is None:
                without.setdefault(str(iv.get("why") or "no interval"), []).append(metric)
                continue
            value = (entry.get("metrics") or {}).get(metric)
            interval = f"[{_num(iv.get('ci_low'))}, {_num(iv.get('ci_high'))}]"
            method = {"delong": "DeLong"}.get(str(iv.get("method")), str(iv.get("method")))
            rows.append((label, metric, _num(value), interval, method, str(iv.get("trials"))))
        for why, names in without.items():
            notes.append(f"{label}: {', '.join(names)}: {why}")
    return rows, [tame(n) for n in notes]
