"""The leaderboard page (``pytest-omfc leaderboard -o board.html``): one self-contained static page (inline CSS,
no script, no external resource), a table per ranked metric: rank, run (linked to its HTML report when it
wrote one), value, interval, and the paired test against the next row, tied neighbours marked.  Every text
from the runs (names, paths) is escaped as the HTML report's are.  No pytest import."""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from typing import Any

from .._version import __version__
from ..findings import reveal

__all__ = ["render"]

_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
h1{font-size:1.4em}h2{font-size:1.1em;margin-top:2em}
table{border-collapse:collapse}th,td{padding:.25em .7em;border-bottom:1px solid #ddd;text-align:right}
th:nth-child(2),td:nth-child(2){text-align:left}
tr.tied td{background:#f6f6f0}.tie{color:#886}.sig{color:#264}.muted{color:#888}
footer{margin-top:3em;color:#888;font-size:.9em}
"""


def _e(text: object) -> str:
    return html.escape(reveal(str(text)), quote=True)


def _num(v: Any) -> str:
    return f"{v:.4f}" if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) else "-"


def _p(v: Any) -> str:
    if not isinstance(v, (int, float)) or not math.isfinite(v):
        return "-"
    return "&lt;0.0001" if v < 1e-4 else f"{v:.4f}"


def _row(row: Mapping[str, Any], tied_above: bool) -> str:
    name = _e(row["run"])
    link = f'<a href="{_e(row["report"])}">{name}</a>' if row.get("report") else name
    interval = f"[{_num(row.get('ci_low'))}, {_num(row.get('ci_high'))}]" if row.get("ci_low") is not None else "-"
    sig = row.get("significant")
    if sig is None:
        against = '<span class="muted">not tested</span>' if row.get("next_test") is None else "-"
    else:
        word = '<span class="sig">better</span>' if sig else '<span class="tie">tied</span>'
        diff, p = _num(row.get("next_difference")), _p(row.get("next_p_value"))
        against = f"{word} (diff {diff}, p {p}, {_e(row.get('next_test'))})"
    cls = ' class="tied"' if tied_above else ""
    return (
        f"<tr{cls}><td>{row['rank']}</td><td>{link}</td><td>{_num(row['value'])}</td><td>{interval}</td>"
        f"<td>{against}</td></tr>"
    )


def render(board: Mapping[str, Any]) -> str:
    """The page of a leaderboard document (:func:`pytest_omfc.leaderboard.build`)."""
    level = float(board.get("level", 0.9))
    title = f"pytest-omfc leaderboard: {board.get('edition')} {board.get('task')}"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_e(title)}</h1>",
        f"<p>{len(board.get('runs', []))} runs scored against one reference (SHA-256 "
        f"<code>{_e(str(board.get('reference_sha256'))[:16])}...</code>). Intervals at {level:.0%}; each row is "
        "tested against the next one on the trials both scored (DeLong's test for an AUC, a paired bootstrap of "
        f"{_e(board.get('draws'))} draws, seed {_e(board.get('seed'))}, otherwise): <em>tied</em> when the "
        "interval of their difference holds 0, and tied rows share a rank.</p>",
    ]
    for b in board.get("boards", []):
        order = "higher is better" if b.get("higher_is_better") else "lower is better"
        parts.append(f'<h2>{_e(b["scorer"])}: {_e(b["metric"])} <span class="muted">({order})</span></h2>')
        parts.append("<table><thead><tr><th>rank</th><th>run</th><th>value</th>")
        parts.append(f"<th>{level:.0%} interval</th><th>against the next</th></tr></thead><tbody>")
        previous = None
        for row in b.get("rows", []):
            parts.append(_row(row, previous is not None and previous.get("significant") is False))
            previous = row
        parts.append("</tbody></table>")
    parts.append(f"<footer>pytest-omfc {_e(__version__)}</footer></body></html>")
    return "\n".join(parts) + "\n"
