"""How a scorer's results are shown: the view of each scorer, as data.

A :class:`View` gives the summary table (``columns``/``row``), the line under pytest's header, the
line under the table, the extra outputs written once per run (``finish``: plots, per-probe CSV) and
the HTML report's extra sections (``html``).  The terminal (:mod:`pytest_omfc.pytest_glue.scoring`)
and the HTML report (:mod:`pytest_omfc.pytest_glue.html`) take a scorer's view from :func:`view_for`
and build its rows with the one :func:`summary_rows`; neither branches on a scorer's name.  A scorer
without a view of its own gets :func:`generic_view` (its first metrics).

Views read the metrics-JSON entries (builtin types), never engine objects, and import no engine
internals (a family's public package or its ``options`` module at most).  Light: read at plugin load
for the header line (plots and thumbnails import numpy when they run).  No pytest import.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..page import ReportData

__all__ = ["HtmlSection", "View", "ViewContext", "fmt", "generic_view", "summary_rows"]

Options = Mapping[str, Any]


def fmt(v: Any) -> str:
    """A metric in a summary table: 4 decimals; an undefined one (null, NaN) reads ``NaN`` as MediScore prints
    it.  A result that was not scored at all shows ``-`` in every column (:func:`summary_rows`)."""
    if v is None or (isinstance(v, float) and v != v):
        return "NaN"
    return f"{float(v):.4f}"


@dataclass(frozen=True)
class ViewContext:
    """What an HTML section may need besides the scorer's entries."""

    title: str  # "<submission> (<edition> <task>)"
    options: Mapping[str, Any]  # the scorer's options
    ref_root: Path | None  # reference masks are resolved inside it
    sys_root: Path  # system masks are resolved inside it
    masks: int  # --omfc-html-masks: thumbnails per side (0: none)


#: ``section(data, entries, context)``: adds the scorer's extra sections (plots, mask cards, a note) to ``data``.
HtmlSection = Callable[["ReportData", list[dict[str, Any]], ViewContext], None]
#: ``section(data, pairs, names)``: the sections of a run compared with a baseline (``--omfc-baseline``): each
#: pair is (the baseline's entry, this run's), ``names`` the two runs' names.
ComparedSection = Callable[["ReportData", list[tuple[dict[str, Any], dict[str, Any]]], tuple[str, str]], None]


@dataclass(frozen=True)
class View:
    """One scorer's presentation.

    * ``columns(opts)`` / ``row(entry, opts)``: the summary table (a row per result, after its label);
    * ``header(opts, common)``: the line printed under pytest's header (None: none);
    * ``footer(opts, common)``: the line under the table (None: none);
    * ``finish(entries, opts, title)``: extra outputs written once by the controller, returning
      ``(written, errors)`` texts (``opts`` then also holds the common ``plots``/``per_probe_csv`` paths);
    * ``html``: the HTML report's extra sections;
    * ``compared``: the HTML report's extra sections of a run compared with a baseline (both runs' curves);
    * ``json_options(opts, common)``: the scorer's part of the metrics JSON's ``options`` (what was in effect).
    """

    columns: Callable[[Options], list[str]]
    row: Callable[[dict[str, Any], Options], list[str]]
    header: Callable[[Options, Options], str] | None = None
    footer: Callable[[Options, Options], str | None] = lambda opts, common: None
    finish: Callable[[list[dict[str, Any]], Options, str], tuple[list[str], list[str]]] | None = None
    html: HtmlSection | None = None
    compared: ComparedSection | None = None
    json_options: Callable[[Options, Options], dict[str, Any]] = lambda opts, common: {}


def generic_view(metrics: Sequence[str], shown: int = 6) -> View:
    """The view of a scorer without one: its first ``shown`` metrics."""
    names = list(metrics[:shown])
    return View(
        columns=lambda opts: names,
        row=lambda entry, opts: [fmt((entry.get("metrics") or {}).get(m)) for m in names],
    )


def summary_rows(
    view: View, entries: list[tuple[int, dict[str, Any]]], opts: Options
) -> tuple[list[tuple[str, ...]], list[str], list[str]]:
    """The summary table of one scorer, shared by the terminal and the HTML report.

    Returns ``(rows, notes, alarms)``: a row per result (label first), the notes under the table (the
    scorer's set-up notes once, e.g. which reference mask column was scored; the query texts; why a
    result was not scored), and the alarms (results that scored nothing), which both show in red.
    """
    rows: list[tuple[str, ...]] = []
    notes: list[str] = []
    alarms: list[str] = []
    width = len(view.columns(opts))
    for _pos, r in entries:
        for note in r.get("notes") or ():
            if isinstance(note, str) and note not in notes:
                notes.append(note)
    for pos, r in entries:
        label = "all" if r.get("query") is None else f"{r.get('query_kind')}{pos + 1}"
        if r.get("query") is not None:
            notes.append(f"{label}: {r['query']}")
        if r.get("metrics") is None:
            notes.append(f"{label} not scored: {r.get('skipped', '')}")
            rows.append((label, *(["-"] * width)))
            continue
        tally = r.get("scored")
        if isinstance(tally, dict) and tally.get("targets") and not tally.get("scored"):
            why = "; ".join(f"{n} {d}" for d, n in (tally.get("not_scored") or {}).items())
            alarms.append(
                f"{label}: NOTHING SCORED: 0 of {tally['targets']} {tally.get('unit', 'targets')} scored"
                + (f": {why}" if why else "")
            )
        rows.append((label, *view.row(r, opts)))
    return rows, notes, alarms
