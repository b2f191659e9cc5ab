"""The HTML report (``--omfc-html``) as one self-contained page, built from builtin data.

Self-contained: inline CSS, inline SVG plots, images as ``data:`` URIs, no external script, font,
style sheet or link, so it works opened from disk, attached to a mail or served by a portal.  A small
inline script only filters the rules table, also from the address (``report.html?status=failed&family=IDX``,
so a portal can link to a view); without it every row is shown (the filter controls are hidden until
the script runs).  Every text that comes from the run (rule messages quote the
submission; probe IDs, queries, paths) goes through :func:`html.escape`; the plots' SVG is built by
:mod:`.plots`, which escapes its labels.  No pytest import.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import __version__
from ..findings import reveal

if TYPE_CHECKING:  # the mask cards' module imports Pillow and the mask scorer: only when a page shows masks
    from .masks import MaskCard

__all__ = ["Plot", "ReportData", "RuleRow", "ScoreTable", "expid_verdicts", "render_page", "verdict"]


@dataclass(frozen=True)
class RuleRow:
    """One rule of the run (its slices merged): status passed, failed, skipped or warning."""

    rule: str
    title: str
    family: str
    severity: str
    status: str
    text: str = ""  # the failure text as the terminal shows it (truncated, with the total), or the skip reason
    warning: str = ""  # the warnings' text, when any
    where: str = ""  # in an NC2017 package: the EXPID (or the package) the rule checked


@dataclass(frozen=True)
class ScoreTable:
    """A scorer's summary table, as in the terminal (same columns and formatting)."""

    title: str
    columns: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Plot:
    title: str
    svg: str


@dataclass
class ReportData:
    """Everything the page shows."""

    submission: str
    edition: str
    task: str
    rules: list[RuleRow] = field(default_factory=list)
    score_failures: list[str] = field(default_factory=list)  # "score::mask: ..." texts of failed score items
    expid_score_failures: dict[str, list[str]] = field(default_factory=dict)  # the same per EXPID of a package
    tables: list[ScoreTable] = field(default_factory=list)
    plots: list[Plot] = field(default_factory=list)
    worst: list[MaskCard] = field(default_factory=list)
    best: list[MaskCard] = field(default_factory=list)
    mask_note: str = ""  # why there are no thumbnails, or what they show
    scored: bool = False  # a reference was given
    errors: list[str] = field(default_factory=list)  # outputs that could not be written (metrics JSON, ...)
    environment: dict[str, Any] = field(default_factory=dict)  # what produced the report (pytest_omfc.stamp)


def _e(text: object) -> str:
    """Every text of the page: invisible and bidi characters shown as escapes (:func:`~..findings.reveal`),
    then HTML-escaped."""
    return html.escape(reveal(str(text)), quote=True)


def _n(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def verdict(data: ReportData) -> tuple[bool, str]:
    """(passed, text): "passed" (with M warnings) or "N rules failed and M warnings" (and K scores failed)."""
    failed = sum(r.status == "failed" for r in data.rules)
    warned = sum(bool(r.warning) for r in data.rules)
    scores = len(data.score_failures)
    if not failed and not scores:
        return True, "passed" + (f" with {_n(warned, 'warning')}" if warned else "")
    text = f"{failed} {'rule' if failed == 1 else 'rules'} failed and {_n(warned, 'warning')}"
    if scores:
        text += f"; {scores} {'score' if scores == 1 else 'scores'} failed"
    return False, text


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;margin:0 auto;max-width:1240px;
padding:16px 24px;color:#1b1f24;background:#fff;line-height:1.4}
h1{font-size:1.5em;margin:.2em 0}
h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #d0d7de;padding-bottom:.2em}
.verdict{font-size:1.35em;font-weight:700;padding:10px 14px;border-radius:6px;margin:10px 0}
.verdict.pass{background:#dafbe1;color:#116329;border:1px solid #4ac26b}
.verdict.fail{background:#ffebe9;color:#a40e26;border:1px solid #ff8182}
.meta{color:#57606a}
table{border-collapse:collapse;margin:8px 0;font-size:.92em}
th,td{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa}td.num{text-align:right;font-variant-numeric:tabular-nums}
.st{font-weight:600}.st-failed{color:#a40e26}.st-passed{color:#116329}.st-skipped{color:#6e7781}
.st-warning{color:#9a6700}
pre{background:#f6f8fa;border:1px solid #d0d7de;padding:8px;overflow-x:auto;white-space:pre-wrap;word-break:break-all;
font-size:.85em;margin:4px 0 12px}
details>summary{cursor:pointer;font-weight:600}
#filters{margin:6px 0}#filters label{margin-right:14px}
.plots{display:flex;flex-wrap:wrap;gap:12px}.plots figure{margin:0}
.plots svg{width:580px;max-width:100%;height:auto;border:1px solid #d0d7de}
#rules td:first-child{white-space:nowrap}
.cards{display:flex;flex-wrap:wrap;gap:14px}
.card{border:1px solid #d0d7de;border-radius:6px;padding:8px;max-width:840px}
.card .id{font-weight:600;word-break:break-all}.card .panels{display:flex;gap:8px;flex-wrap:wrap;margin-top:4px}
.card figure{margin:0}.card figcaption{font-size:.8em;color:#57606a}
.card img{display:block;image-rendering:pixelated;border:1px solid #d0d7de;max-width:256px}
.legend span.sw{display:inline-block;width:12px;height:12px;border:1px solid #888;vertical-align:middle;
margin:0 4px 0 10px}
.err{color:#a40e26}
details#environment{margin-top:1.5em}table.env{border-collapse:collapse;margin:.5em 0}
table.env th,table.env td{text-align:left;padding:2px 8px;border-bottom:1px solid #eee;vertical-align:top}
"""

_SCRIPT = """
(function(){
var f=document.getElementById('filters');if(!f)return;f.hidden=false;
var fam=document.getElementById('f-family'),st=document.getElementById('f-status');
function apply(){var rows=document.querySelectorAll('#rules tbody tr');
for(var i=0;i<rows.length;i++){var r=rows[i];
var ok=(!fam.value||r.getAttribute('data-family')===fam.value)&&(!st.value||r.getAttribute('data-status')===st.value);
r.hidden=!ok;}}
var q=new URLSearchParams(location.search);
if(q.get('family'))fam.value=q.get('family');if(q.get('status'))st.value=q.get('status');
fam.addEventListener('change',apply);st.addEventListener('change',apply);apply();
})();
"""

#: The filter script's hash: the page's Content-Security-Policy lets this script run and no other, a
#: second line of defence behind the escaping (and it forbids every fetch: nothing is loaded from anywhere).
_SCRIPT_HASH = "sha256-" + base64.b64encode(hashlib.sha256(_SCRIPT.encode()).digest()).decode()


def _anchor(rule: str, where: str = "") -> str:
    """The id of a rule's findings (per EXPID in a package: the digest keeps names apart that differ only in
    characters an id cannot hold)."""
    if not where:
        return "f-" + re.sub(r"[^A-Za-z0-9_-]", "_", rule)
    digest = hashlib.sha1(where.encode("utf-8", "surrogateescape")).hexdigest()[:8]
    return f"f-{digest}-" + re.sub(r"[^A-Za-z0-9_-]", "_", rule)


def _rules(data: ReportData) -> list[str]:
    out = ['<h2 id="rules-table">Rules</h2>']
    if not data.rules:
        out.append("<p>No rule was run.</p>")
        return out
    counts = {s: sum(r.status == s for r in data.rules) for s in ("failed", "warning", "passed", "skipped")}
    out.append("<p class=meta>" + ", ".join(f"{n} {s}" for s, n in counts.items()) + "</p>")
    families = sorted({r.family for r in data.rules})
    options = "".join(f"<option>{_e(f)}</option>" for f in families)
    statuses = "".join(f"<option>{s}</option>" for s in ("failed", "warning", "passed", "skipped"))
    out.append(
        '<div id="filters" hidden><label>Family <select id="f-family"><option '
        f'value="">all</option>{options}</select></label>'
        f'<label>Status <select id="f-status"><option value="">all</option>{statuses}</select></label></div>'
    )
    packaged = any(r.where for r in data.rules)
    out.append(
        '<table id="rules"><thead><tr>' + ("<th>Checked</th>" if packaged else "") + "<th>Rule</th><th>Title</th>"
        "<th>Family</th><th>Severity</th><th>Status</th></tr></thead><tbody>"
    )
    for r in data.rules:
        rid = _e(r.rule)
        if r.status == "failed" or r.warning:
            rid = f'<a href="#{_anchor(r.rule, r.where)}">{rid}</a>'
        where = f"<td>{_e(r.where)}</td>" if packaged else ""
        out.append(
            f'<tr data-family="{_e(r.family)}" data-status="{_e(r.status)}">{where}<td>{rid}</td><td>{_e(r.title)}</td>'
            f'<td>{_e(r.family)}</td><td>{_e(r.severity)}</td><td class="st st-{_e(r.status)}">{_e(r.status)}</td></tr>'
        )
    out.append("</tbody></table>")
    return out


def _label(r: RuleRow) -> str:
    return f"{r.where}::{r.rule}" if r.where else r.rule


def expid_verdicts(
    rules: list[RuleRow], failed_scores: Mapping[str, list[str]] | None = None
) -> list[tuple[str, bool, str]]:
    """(EXPID or package, passed, text) in an NC2017 package, in order of appearance: the terminal and the
    page say each EXPID's verdict as :func:`verdict` says the run's (``failed_scores``: EXPID -> the texts of
    its failed score items)."""
    out = []
    scores = failed_scores or {}
    by_place: dict[str, list[RuleRow]] = {}  # grouped once (filtering all rules per EXPID was quadratic)
    for r in rules:
        if r.where:
            by_place.setdefault(r.where, []).append(r)
    for where, mine in by_place.items():
        ok, text = verdict(ReportData(where, "", "", rules=mine, score_failures=list(scores.get(where, []))))
        out.append((where, ok, text))
    return out


def _expids(data: ReportData) -> list[str]:
    rows = expid_verdicts(data.rules, data.expid_score_failures)
    if not rows:
        return []
    out = [
        '<h2 id="expids">EXPIDs of the package</h2><table><thead><tr><th>Checked</th><th>Verdict</th></tr></thead>'
        "<tbody>"
    ]
    for where, ok, text in rows:
        status = "passed" if ok else "failed"
        out.append(f'<tr><td>{_e(where)}</td><td class="st st-{status}">{_e(text)}</td></tr>')
    out.append("</tbody></table>")
    return out


def _findings(data: ReportData) -> list[str]:
    out: list[str] = []
    failing = [r for r in data.rules if r.status == "failed"]
    if failing:
        out.append('<h2 id="findings">Findings of the failing rules</h2>')
        for r in failing:
            out.append(
                f'<details open id="{_anchor(r.rule, r.where)}"><summary>{_e(_label(r))}: {_e(r.title)}</summary>'
                f"<pre>{_e(r.text)}</pre></details>"
            )
    warned = [r for r in data.rules if r.warning]
    if warned:
        out.append('<h2 id="warnings">Warnings (they do not fail the run)</h2>')
        for r in warned:
            ident = "" if r.status == "failed" else f' id="{_anchor(r.rule, r.where)}"'
            out.append(
                f"<details{ident}><summary>{_e(_label(r))}: {_e(r.title)}</summary><pre>{_e(r.warning)}</pre></details>"
            )
    return out


def _nav(data: ReportData) -> str:
    parts = []
    if any(r.where for r in data.rules):
        parts.append('<a href="#expids">EXPIDs</a>')
    if any(r.status == "failed" for r in data.rules):
        parts.append('<a href="#findings">findings</a>')
    if any(r.warning for r in data.rules):
        parts.append('<a href="#warnings">warnings</a>')
    if data.scored:
        parts.append('<a href="#scores">scores</a>')
    if data.worst or data.best:
        parts.append('<a href="#masks">masks</a>')
    parts.append('<a href="#rules-table">all rules</a>')
    return "<nav class=meta>Sections: " + " &middot; ".join(parts) + "</nav>"


def _scores(data: ReportData) -> list[str]:
    out: list[str] = []
    if not data.scored:
        return out
    out.append('<h2 id="scores">Scores</h2>')
    for text in data.score_failures:
        out.append(f"<pre class=err>{_e(text)}</pre>")
    if not data.tables:
        out.append("<p>No score was computed.</p>")
    for t in data.tables:
        out.append(
            f"<h3>{_e(t.title)}</h3><table><thead><tr>"
            + "".join(f"<th>{_e(c)}</th>" for c in t.columns)
            + "</tr></thead><tbody>"
        )
        for row in t.rows:
            cells = [f"<td>{_e(row[0])}</td>"] + [f'<td class="num">{_e(v)}</td>' for v in row[1:]]
            out.append("<tr>" + "".join(cells) + "</tr>")
        out.append("</tbody></table>")
        for note in t.notes:
            out.append(f"<div class=meta>{_e(note)}</div>")
    if data.plots:
        out.append("<h3>Detection curves</h3><div class=plots>")
        for p in data.plots:
            out.append(f'<figure aria-label="{_e(p.title)}">{_inline_svg(p.svg)}</figure>')
        out.append("</div>")
    return out


def _inline_svg(svg: str) -> str:
    """An SVG document fit for inlining: no XML prolog; the namespace attribute is implied in HTML."""
    svg = re.sub(r"^\s*<\?xml[^>]*>\s*", "", svg)
    return svg.replace(' xmlns="http://www.w3.org/2000/svg"', "", 1)


def _cards(title: str, cards: Sequence[MaskCard]) -> list[str]:
    if not cards:
        return []
    out = [f"<h3>{_e(title)}</h3><div class=cards>"]
    for c in cards:
        value = "n/a" if c.value is None else f"{c.value:.4f}"
        thr = "" if c.threshold is None else f", optimum threshold {c.threshold}"
        out.append(
            f'<div class="card"><div class="id">{_e(c.probe)}</div><div class="meta">{_e(c.metric)} {value}{thr}</div>'
        )
        if c.panels:
            out.append("<div class=panels>")
            for p in c.panels:
                out.append(
                    f'<figure><img alt="{_e(p.caption)}" '
                    f'src="{p.uri}"><figcaption>{_e(p.caption)}</figcaption></figure>'
                )
            out.append("</div>")
        if c.error:
            out.append(f"<div class=err>{_e(c.error)}</div>")
        out.append("</div>")
    out.append("</div>")
    return out


def _masks(data: ReportData) -> list[str]:
    if not (data.worst or data.best or data.mask_note):
        return []
    out = ['<h2 id="masks">Mask scores per probe</h2>']
    if data.mask_note:
        out.append(f"<p class=meta>{_e(data.mask_note)}</p>")
    if data.worst or data.best:
        from .masks import COLOURS

        names = (
            ("TP", "true positive"),
            ("FN", "false negative"),
            ("FP", "false positive"),
            ("NS", "no-score zone"),
            ("TN", "true negative"),
        )
        sw = "".join(f'<span class="sw" style="background:rgb{COLOURS[k]}"></span>{label}' for k, label in names)
        out.append(f"<p class=legend>Overlay (as the evaluation plan's mask-regions figure):{sw}</p>")
    out += _cards(f"{len(data.worst)} worst", data.worst)
    out += _cards(f"{len(data.best)} best", data.best)
    return out


def _environment(data: ReportData) -> list[str]:
    """The collapsed Environment section: version, time, command, options, libraries, input fingerprints."""
    env = data.environment
    if not env:
        return []
    rows = [("pytest-omfc", env.get("plugin_version", "")), ("time (UTC)", env.get("time_utc", "")),
            ("command", env.get("command", "")), ("working directory", env.get("working_directory", ""))]  # fmt: skip
    rows += [(f"option {flag}", value if isinstance(value, str) else " ".join(map(str, value)))
             for flag, value in env.get("options", {}).items()]  # fmt: skip
    rows += list(env.get("environment", {}).items())
    out = ['<details id="environment"><summary>Environment</summary><table class=env>']
    out += [f"<tr><th>{_e(k)}</th><td><code>{_e(v)}</code></td></tr>" for k, v in rows]
    out.append("</table><table class=env><tr><th>input</th><th>bytes</th><th>SHA-256</th></tr>")
    for item in env.get("inputs", []):
        what = item.get("sha256") or item.get("kind") or item.get("error", "")
        out.append(
            f"<tr><td><code>{_e(item.get('path', ''))}</code></td><td>{_e(item.get('bytes', ''))}</td>"
            f"<td><code>{_e(what)}</code></td></tr>"
        )
    shown, total = len(env.get("inputs", [])), int(env.get("inputs_total", 0))
    if total > shown:
        out.append(f"<tr><td colspan=3>{_e(f'... and {total - shown} more inputs ({total} in all)')}</td></tr>")
    out.append("</table></details>")
    return out


def render_page(data: ReportData) -> str:
    """The whole page as text (UTF-8)."""
    ok, text = verdict(data)
    title = f"pytest-omfc: {data.submission}"
    body = [
        f"<h1>{_e(title)}</h1>",
        f"<div class=meta>{_e(data.edition)}, task {_e(data.task)}; pytest-omfc {_e(__version__)}</div>",
        f'<div id="verdict" class="verdict {"pass" if ok else "fail"}">{"Passed" if ok else "Failed"}: '
        f"{_e(text)}</div>",
    ]
    for err in data.errors:
        body.append(f"<pre class=err>{_e(err)}</pre>")
    body.append(_nav(data))
    # what needs attention first (each EXPID's verdict, failures, scores, masks); the full rules table last
    body += _expids(data) + _findings(data) + _scores(data) + _masks(data) + _rules(data) + _environment(data)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta name="generator" content="pytest-omfc {_e(__version__)}">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; img-src data:; '
        f"style-src 'unsafe-inline'; script-src '{_SCRIPT_HASH}'\">"
        f"<title>{_e(title)}</title><style>{_CSS}</style></head><body>\n"
        + "\n".join(body)
        + f"\n<script>{_SCRIPT}</script>\n</body></html>\n"
    )
