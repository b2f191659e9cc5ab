"""``--omfc-html PATH``: gather the run's outcomes and write the HTML report once, from the controller.

The reporter reads what every process already reports (rule items: outcome, ``user_properties``,
failure text; score items: the metrics-JSON entry they carry, see :mod:`.scoring`), so under xdist
the controller sees it all and workers write nothing.  The page itself is built by the pure package
:mod:`pytest_omfc.report`, imported only when a report is written.  A report that cannot be built or
written is an error line and exit 1 (like ``--omfc-metrics-json``), never an INTERNALERROR.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..submission import CheckSettings
from .state import task_label
from .writer import ReportWriter

__all__ = ["HtmlReporter", "configure"]

#: Rows of the rules table merge a sliced rule's items; the first status found in this order wins.
_STATUS_ORDER = ("failed", "warning", "passed", "skipped")


def configure(
    config: pytest.Config, settings: CheckSettings, path: Path | None, masks: int, usage_error: type[Exception]
) -> None:
    """Refuse a report path inside the submission or dataset (or a directory); register the reporter."""
    if path is None:
        return
    from .scoring import refuse_output

    refuse_output(config, "--omfc-html", path, usage_error)  # guarded places, index, reference, journal tables...
    config.pluginmanager.register(HtmlReporter(config, settings, path, masks), "omfc-html-reporter")


class HtmlReporter(ReportWriter):
    """Collects rule and score reports; the controller (or the only process) writes the page at the end."""

    flag, what = "--omfc-html", "HTML report"

    def __init__(self, config: pytest.Config, settings: CheckSettings, path: Path, masks: int) -> None:
        super().__init__(config, path)
        self.settings = settings
        self.masks = masks
        # (EXPID in a package, else "", rule ID) -> (outcome, text, props) per item
        self.rules: dict[tuple[str, str], list[tuple[str, str, dict[str, Any]]]] = {}
        # (EXPID in a package, else "", scorer, position) -> (outcome, text, result)
        self.scores: dict[tuple[str, str, int], tuple[str, str, Any]] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if not (report.when == "call" or (report.when == "setup" and not report.passed)):
            return
        props = dict(report.user_properties)
        text = ""
        if report.failed:
            text = str(report.longrepr)
        elif report.skipped:
            longrepr = report.longrepr
            text = str(longrepr[2] if isinstance(longrepr, tuple) else longrepr).removeprefix("Skipped: ")
        if "omfc.rule" in props:
            key = (str(props.get("omfc.expid", "")), str(props["omfc.rule"]))
            self.rules.setdefault(key, []).append((report.outcome, text, props))
        elif "omfc.score" in props:
            where = str(props.get("omfc.expid", ""))
            score_key = (where, str(props["omfc.score"]), int(getattr(report, "omfc_position", 0) or 0))
            self.scores[score_key] = (report.outcome, text, getattr(report, "omfc_result", None))

    # ------------------------------------------------------------------------------------ building

    def text(self) -> str:
        from ..report import ReportData, render_page

        s = self.settings
        data = ReportData(submission=s.submission.name, edition=s.edition.value, task=task_label(self.config, s))
        from .scoring import run_stamp

        data.environment = run_stamp(self.config)
        data.rules = self._rule_rows()
        self._add_scores(data)
        return render_page(data)

    def _add_intervals_and_comparison(
        self, data: Any, scorer: Any, entries: list[tuple[int, dict[str, Any]]], where: str
    ) -> None:
        """``--omfc-ci``'s intervals and ``--omfc-baseline``'s comparison, as the terminal shows them, and for
        detection the ROC and DET of both runs overlaid (docs/scoring/comparison.md)."""
        from ..report import ScoreTable
        from ..report.comparison import COMPARISON_COLUMNS, INTERVAL_COLUMNS, comparison_rows, interval_rows
        from ..report.views import view_for

        suffix = f": {where}" if where else ""
        rows, notes = interval_rows(entries)
        if rows:
            heading = f"{scorer.title} intervals{suffix}"
            data.tables.append(ScoreTable(heading, ("result", *INTERVAL_COLUMNS), tuple(rows), tuple(notes)))
        reporter = self.config.pluginmanager.get_plugin("omfc-scoring-reporter")
        if reporter is None or where:
            return
        compared = reporter.comparisons()
        if not compared:
            return
        order = _scorer_order(scorer.name)
        joined = [
            (key[2], {**entry, **compared[key]})
            for key, entry in sorted(reporter.results.items())
            if key in compared and key[1] == order
        ]
        rows, notes = comparison_rows(joined)
        if rows or notes:
            baseline = reporter.settings.baseline
            heading = f"{scorer.title} compared with {baseline.name if baseline else 'the baseline'}"
            data.tables.append(ScoreTable(heading, ("result", *COMPARISON_COLUMNS), tuple(rows), tuple(notes)))
        view = view_for(scorer.name, scorer.metrics)
        if view.compared is not None:
            from ..comparison import result_key
            from .scoring import baseline_document

            baseline = baseline_document(self.config) or {}
            base = {result_key(r): r for r in baseline.get("results", []) if isinstance(r, dict)}
            pairs = [(base[result_key(e)], e) for _, e in joined if result_key(e) in base]
            name = reporter.settings.baseline.name if reporter.settings.baseline else "baseline"
            view.compared(data, pairs, (f"baseline {name}", f"this run {data.submission}"))

    def _rule_rows(self) -> list[Any]:
        from ..registry import REGISTRY, summed_warnings
        from ..report import RuleRow

        order = {rid: i for i, rid in enumerate(REGISTRY)}
        places = list(dict.fromkeys(where for where, _ in self.rules))  # the package first: its items come first
        rows = []
        for where, rid in sorted(self.rules, key=lambda k: (places.index(k[0]), order.get(k[1], len(order)), k[1])):
            items = self.rules[(where, rid)]
            rule = REGISTRY.get(rid)
            statuses = {
                ("warning" if outcome == "passed" and "omfc.warning" in props else outcome)
                for outcome, _, props in items
            }
            status = next((st for st in _STATUS_ORDER if st in statuses), "skipped")
            severity = next(
                (str(p["omfc.severity"]) for _, _, p in items if "omfc.severity" in p),
                rule.severity.value if rule else "",
            )
            failures = [t for o, t, _ in items if o == "failed"]
            skips = [t for o, t, _ in items if o == "skipped"]
            parts = [
                (str(p["omfc.warning"]), int(p.get("omfc.warnings", 1))) for _, _, p in items if "omfc.warning" in p
            ]
            warnings = [summed_warnings(rid, parts, self.settings.max_findings)] if parts else []
            text = (
                "\n".join(failures)
                if status == "failed"
                else ("\n".join(dict.fromkeys(skips)) if status == "skipped" else "")
            )
            rows.append(
                RuleRow(
                    rule=rid,
                    title=rule.title if rule else "",
                    family=rule.family if rule else rid.split("-")[0],
                    severity=severity,
                    status=status,
                    text=text,
                    warning="\n".join(warnings),
                    where=where,
                )
            )
        return rows

    def _add_scores(self, data: Any) -> None:
        from .scoring import every_scoring

        scored = every_scoring(self.config)
        if not scored:
            return
        from ..report import ScoreTable
        from ..report.views import ViewContext, summary_rows, view_for
        from ..scoring.registry import SCORERS

        data.scored = True
        data.score_failures = [text for _, (outcome, text, _) in sorted(self.scores.items()) if outcome == "failed"]
        for (where, _, _), (outcome, text, _) in sorted(self.scores.items()):
            if where and outcome == "failed":
                data.expid_score_failures.setdefault(where, []).append(text)
        for where, folder, scoring in scored:
            title = f"{where or data.submission} ({data.edition} {data.task})"
            for name in scoring.scorers:
                scorer = SCORERS[name]
                entries: list[tuple[int, dict[str, Any]]] = []
                for (w, sname, pos), (_, _, result) in sorted(self.scores.items()):
                    if w == where and sname == name and result is not None:
                        entries += [(pos, r) for r in (result if isinstance(result, list) else [result])]
                if not entries:
                    continue
                opts = scoring.options_for(name)
                view = view_for(name, scorer.metrics)
                columns = view.columns(opts)
                # a result that scored nothing fails its item, so it is already among the failures above
                rows, notes, _alarms = summary_rows(view, entries, opts)
                heading = f"{scorer.title} scores" + (f": {where}" if where else "")
                data.tables.append(ScoreTable(heading, ("result", *columns), tuple(rows), tuple(notes)))
                self._add_intervals_and_comparison(data, scorer, entries, where)
                if view.html is not None:
                    context = ViewContext(
                        title=title,
                        options=opts,
                        ref_root=self.settings.dataset_root,
                        sys_root=folder,
                        masks=self.masks,
                    )
                    view.html(data, [r for _, r in entries], context)


def _scorer_order(name: str) -> int:
    from ..scoring.registry import SCORERS

    return list(SCORERS).index(name)
