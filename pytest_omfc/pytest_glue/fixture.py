"""The ``omfc`` fixture: the run's submission, findings and scores for a team's own tests.

::

    def test_detector_did_not_regress(omfc):
        assert omfc.scores.detection.AUC >= 0.80
        assert not omfc.findings("MASK-08")

Session scope and lazy: nothing is read until an attribute is used, and
everything is shared with the rule and score items of the same process (the
one :class:`~pytest_omfc.submission.Submission` of :func:`.state.submission_for`
with its cached rule outcomes, and the per-scorer cache of
:func:`.scoring.outcomes_for`), so no rule and no scorer runs twice.

JUnit: every metric a test reads through ``omfc.scores`` is recorded on that
test (``user_properties``, i.e. a JUnit ``<property>``) as
``omfc.<scorer>:<metric>`` (``omfc.detection[q1]:EER`` for a query: the
``--omfc-require`` spelling), and ``omfc.record(name, value)`` records any
other value.  Reads outside a test's call phase (in another fixture) are not
recorded.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pytest

from .state import SETTINGS_KEY, single_submission

if TYPE_CHECKING:  # the heavy modules are imported on first use
    import pandas as pd

    from ..editions import Edition, Task
    from ..models.findings import FindingsDocument
    from ..scoring.results import Result, Scores
    from ..submission import Submission

__all__ = ["FindingView", "OmfcSession", "SubmissionView", "omfc"]


@dataclass(frozen=True)
class FindingView:
    """One finding of a validation rule, as the rule item reports it (texts already tamed)."""

    rule: str
    severity: str  # error or warning
    message: str
    file: str | None = None
    line: int | None = None
    key: str | None = None
    column: str | None = None
    value: object = None

    def __str__(self) -> str:
        where = ":".join(str(p) for p in (self.file, self.line) if p is not None)
        return f"{self.rule} {self.severity}: {where + ' ' if where else ''}{self.message}"


class SubmissionView:
    """The parsed submission: edition, task, the system-output rows and the index, as DataFrames (strings)."""

    def __init__(self, sub: Submission) -> None:
        self.raw = sub  # the plugin's Submission (rule context), for what this view does not offer

    @property
    def id(self) -> str:
        return self.raw.sub_id

    @property
    def edition(self) -> Edition:
        return self.raw.edition

    @property
    def task(self) -> Task:
        return self.raw.task

    @property
    def path(self) -> Any:
        return self.raw.dir

    @property
    def rows(self) -> pd.DataFrame:
        """The system output's rows; :class:`LookupError` naming the failed rule when it cannot be read."""
        from ..findings import Unavailable

        try:
            return self.raw.sysout().df
        except Unavailable as exc:
            raise LookupError(f"the system output cannot be read: {exc.rule_id} failed: {exc.reason}") from None

    @property
    def index(self) -> pd.DataFrame:
        """The index rows; :class:`LookupError` naming CSV-07 when it cannot be read."""
        from ..findings import Unavailable

        try:
            return self.raw.index().df
        except Unavailable as exc:
            raise LookupError(f"the index cannot be read: {exc.rule_id} failed: {exc.reason}") from None

    def __repr__(self) -> str:
        return f"SubmissionView({self.id}, {self.edition.value}, task {self.task.value})"


class OmfcSession:
    """What the ``omfc`` fixture returns: ``submission``, ``findings()``, ``scores``, ``record()``."""

    def __init__(self, config: pytest.Config) -> None:
        self._config = config
        self._scores: Scores | None = None
        self.current: pytest.Item | None = None  # the test in its call phase (set by the hook below)

    @property
    def submission(self) -> SubmissionView:
        return SubmissionView(single_submission(self._config))

    def findings(self, rule_id: str | None = None) -> list[FindingView]:
        """Findings (errors and warnings) of every applicable rule, or of ``rule_id`` ([] when it does not apply).

        Rules not yet run are run now; outcomes the rule items computed are reused
        (a sliced rule is read in the same slices as its items).  A check that
        crashed gives one error finding with its headline.  An unknown rule ID is a
        :class:`KeyError` listing the applicable ones.
        """
        from ..registry import REGISTRY, Part, rules_for

        sub = single_submission(self._config)
        rules = rules_for(sub.group, sub.task, archive=sub.settings.archive is not None)
        if rule_id is not None:
            if rule_id not in REGISTRY:
                raise KeyError(f"unknown rule {rule_id!r}; applicable rules: {', '.join(r.id for r in rules)}")
            rules = [r for r in rules if r.id == rule_id]
        slices = sub.settings.slices
        out: list[FindingView] = []
        for rule in rules:
            if rule.check is None:
                continue
            for part in [Part(i, slices) for i in range(slices)] if rule.sliced else [None]:
                res = sub.outcome(rule, part)
                if res.crashed:
                    out.append(FindingView(rule.id, "error", res.headline))
                for f in res.findings:
                    sev = (f.severity or rule.severity_for(sub.group)).value
                    out.append(FindingView(rule.id, sev, f.message, f.file, f.line, f.key, f.column, f.value))
        return out

    @property
    def report(self) -> FindingsDocument:
        """The findings document of every applicable rule (the shape of ``--omfc-findings-json`` and of
        :func:`pytest_omfc.omfc_validate`, typed), from the same outcomes as :meth:`findings`; the score and
        gate items are not in it (read :attr:`scores`)."""
        from ..models.findings import FindingsDocument
        from ..registry import Part, rules_for
        from .findings_json import document, record_of

        sub = single_submission(self._config)
        records = []
        for rule in rules_for(sub.group, sub.task, archive=sub.settings.archive is not None):
            if rule.check is None:
                continue
            slices = sub.settings.slices
            for part in [Part(i, slices) for i in range(slices)] if rule.sliced else [None]:
                got = (sub.outcome(rule, part), rule.severity_for(sub.group), sub.settings.max_findings)
                records.append(record_of(rule, part, None, got))
        return FindingsDocument.model_validate(document(self._config, sub.settings, records, []))

    @property
    def scores(self) -> Scores:
        """Every applicable scorer's results (computed on first use, shared with the score items)."""
        if self._scores is None:
            from ..scoring.results import build_scores
            from .scoring import SCORING_KEY, outcomes_for

            settings = self._config.stash.get(SCORING_KEY, None)
            if settings is None:
                raise LookupError(
                    "omfc.scores: nothing is scored: add --omfc-reference PATH (or the ini omfc_reference)"
                )
            outcomes = {name: outcomes_for(self._config, name) for name in settings.scorers}
            self._scores = build_scores(outcomes, settings.queries, reader=self._read)
        return self._scores

    def compare(
        self, baseline: Any, *, level: float | None = None, draws: int | None = None, seed: int | None = None
    ) -> dict[str, Any]:
        """This run's scores compared with ``baseline`` (an earlier run's metrics JSON, by path or as loaded)
        trial by trial, as :func:`pytest_omfc.omfc_compare` returns it; ``level``, ``draws`` and ``seed`` default to
        the run's ``--omfc-ci-level``, ``--omfc-ci-iterations`` and ``--omfc-seed``::

            def test_not_worse_than_main(omfc):
                auc = omfc.compare("baselines/main.json")["results"][0]["comparison"]["AUC"]
                assert auc["ci_high"] >= 0, f"the AUC dropped by {-auc['difference']:.4f} (p {auc['p_value']:.3g})"
        """
        from ..comparison import omfc_compare
        from .scoring import SCORING_KEY, run_document

        scores = self.scores
        settings = self._config.stash[SCORING_KEY]
        checked = self._config.stash[SETTINGS_KEY]
        assert settings is not None and checked is not None
        run = run_document(self._config, scores.entries, checked.submission.name)
        det = settings.options_for("detection")
        return omfc_compare(
            baseline,
            run,
            level=float(det.get("ci_level", 0.9)) if level is None else level,
            draws=int(det.get("ci_iterations", 500)) if draws is None else draws,
            seed=int(det.get("seed", 77)) if seed is None else seed,
        )

    def record(self, name: str, value: Any) -> None:
        """Record ``name = value`` on the running test (a JUnit ``<property>``); outside a test, nothing."""
        if self.current is not None:
            self.current.user_properties.append((str(name), value))

    def _read(self, result: Result, metric: str, value: Any) -> None:
        label = "" if result.label == "all" else f"[{result.label}]"
        self.record(f"omfc.{result.scorer}{label}:{metric}", value)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Generator[None, Any, Any]:
        self.current = item
        try:
            return (yield)
        finally:
            self.current = None

    def __repr__(self) -> str:
        return "<omfc fixture: .submission, .findings(rule_id), .scores, .record(name, value)>"


@pytest.fixture(scope="session", name="omfc")
def omfc(pytestconfig: pytest.Config) -> Generator[OmfcSession, None, None]:
    """The submission of ``--omfc-submission``: ``.submission``, ``.findings(rule_id=None)``, ``.scores``,
    ``.record()``."""
    if pytestconfig.stash.get(SETTINGS_KEY, None) is None:
        pytest.fail(
            "the omfc fixture needs a submission: run pytest with --omfc-submission DIR --omfc-index PATH "
            "(and --omfc-reference PATH for omfc.scores)",
            pytrace=False,
        )
    session = OmfcSession(pytestconfig)
    pytestconfig.pluginmanager.register(session, "omfc-fixture")  # tracks the running test for record()
    yield session
    pytestconfig.pluginmanager.unregister(session)
