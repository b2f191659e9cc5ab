"""Scores as typed, attribute-accessible objects: ``scores.detection.AUC``, ``scores.detection["q1"].EER``.

What the ``omfc`` fixture's ``scores``, :func:`pytest_omfc.omfc_score` and the
``--omfc-require`` gates read.  Built from the scorers' outcomes (the same
:class:`~.registry.ScoreResult` / :class:`~.registry.NotScored` the score items
turn into metrics-JSON entries), with the metrics JSON's names: the scorer
(``detection``, ``mask``, ``provenance``, ``temporal``; an entry's own name such
as ``provenance-graph`` too), the result label (``all`` without a query, else
the item's ``q1``, ``qm2``, ``qp3``; a provenance-filtering node type) and the
metric (``AUC``, ``AUC@FAR`` through ``["AUC@FAR"]``, ``OptimumMCC``, ...).

Errors say what is valid: an unknown name raises :class:`AttributeError` (or
:class:`KeyError`) listing the valid ones; a metric of a result that was not
scored raises :class:`NotScoredError` with the reason, so a user's
``assert scores.detection.AUC >= 0.8`` fails with it instead of comparing NaN.
No pytest import.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .registry import SCORERS, NotScored, Outcome

__all__ = ["NotScoredError", "Result", "ScorerResults", "Scores", "build_scores", "labels_for"]

#: Called with (result, metric name, value) whenever a metric is read (the fixture records it for JUnit).
Reader = Callable[["Result", str, Any], None]


class NotScoredError(LookupError):
    """A metric of a result that could not be computed; the message carries the scorer's reason."""


def labels_for(queries: Sequence[tuple[str, str]]) -> list[str]:
    """One label per item position, as in the item names: ``all`` without a query, else ``q1``, ``qm2``, ``qp3``."""
    return [f"{kind}{i + 1}" for i, (_q, kind) in enumerate(queries)] or ["all"]


def _value(v: Any) -> Any:
    """A metric as a Python number: JSON's null (NaN, undefined) reads as ``nan``."""
    if v is None:
        return math.nan
    if isinstance(v, (bool, int, str)):
        return v
    try:
        return float(v)
    except (TypeError, ValueError):
        return v


@dataclass(frozen=True)
class Result:
    """One result table of one scorer (one query, or one node type): its metrics as attributes."""

    scorer: str  # the metrics JSON's "scorer" (detection, mask, provenance-graph, ...)
    label: str  # all, q1, qm2, qp3, or a provenance-filtering node type
    query: str | None
    query_kind: str
    metrics: Mapping[str, Any] | None  # None when not scored
    entry: Mapping[str, Any]  # the metrics-JSON entry, as written by --omfc-metrics-json
    names: tuple[str, ...] = ()  # the scorer's declared metric names
    skipped: str | None = None  # why it was not scored
    failed: bool = False  # not scored because the scoring set-up is wrong (the score item fails)
    failure: str | None = None  # scored, but some trials could not be (the score item fails with this)
    reader: Reader | None = field(default=None, repr=False, compare=False)

    @property
    def scored(self) -> bool:
        return self.metrics is not None

    @property
    def counts(self) -> Mapping[str, Any]:
        return dict(self.entry.get("counts") or {})

    @property
    def where(self) -> str:
        """``detection, query all`` / ``detection, query q1 "Collection=='A'"`` /
        ``provenance-filtering, node type donor``."""
        if "node_type" in self.entry:
            return f"{self.scorer}, node type {self.entry['node_type']}"
        return f"{self.scorer}, query {self.label}" + ("" if self.query is None else f" {self.query!r}")

    def metric_names(self) -> list[str]:
        """The names readable on this result: its numeric metrics, else the scorer's declared ones."""
        if self.metrics is not None:
            return [k for k, v in self.metrics.items() if not isinstance(v, str)]
        return list(self.names)

    def _valid(self) -> str:
        return ", ".join(self.metric_names()) or "none"

    def get(self, name: str) -> Any:
        """The metric ``name`` (``nan`` where undefined); :class:`NotScoredError` if the result was not scored."""
        if self.metrics is None:
            if name not in self.names:
                raise KeyError(f"{self.scorer} has no metric {name!r}; valid: {self._valid()}")
            raise NotScoredError(f"{name}: {self.where} was not scored: {self.skipped}")
        if name not in self.metrics:
            raise KeyError(f"{self.scorer} result {self.label} has no metric {name!r}; valid: {self._valid()}")
        value = _value(self.metrics[name])
        if self.reader is not None:
            self.reader(self, name, value)
        return value

    def __getitem__(self, name: str) -> Any:
        return self.get(name)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self.get(name)
        except KeyError as exc:
            raise AttributeError(exc.args[0]) from None

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self.metric_names()))


@dataclass(frozen=True)
class ScorerResults:
    """Every result of one scorer; reads as its only result when there is one (``scores.detection.AUC``)."""

    name: str
    results: tuple[Result, ...]

    @property
    def labels(self) -> list[str]:
        return [r.label for r in self.results]

    def __len__(self) -> int:
        return len(self.results)

    def __iter__(self) -> Iterator[Result]:
        return iter(self.results)

    def __getitem__(self, key: str | int) -> Result:
        """A result by label (``"q1"``, ``"all"``, a node type), by its query text, or by position (0-based)."""
        if isinstance(key, int) and not isinstance(key, bool):
            try:
                return self.results[key]
            except IndexError:
                raise KeyError(
                    f"{self.name} has {len(self.results)} result(s): labels {', '.join(self.labels)}"
                ) from None
        for attr in ("label", "query"):
            found = [r for r in self.results if getattr(r, attr) == key]
            if len(found) == 1:
                return found[0]
        raise KeyError(f"{self.name} has no result {key!r}; valid: {', '.join(self.labels)}")

    def only(self) -> Result:
        """The one result; a :class:`LookupError` naming the labels when there are several."""
        if len(self.results) == 1:
            return self.results[0]
        labels = ", ".join(self.labels)
        raise LookupError(
            f"{self.name} has {len(self.results)} results ({labels}): "
            f"pick one, e.g. scores.{self.name.replace('-', '_')}[{self.labels[0]!r}]"
        )

    def get(self, name: str) -> Any:
        return self.only().get(name)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self.only().get(name)
        except KeyError as exc:
            raise AttributeError(exc.args[0]) from None


class Scores:
    """Every applicable scorer's results: ``scores.detection``, ``scores["provenance-graph"]``, ``scores.mask``.

    Attribute names take ``_`` for ``-`` (``scores.provenance_graph``).  ``entries``
    lists the metrics-JSON entries in registry order.
    """

    def __init__(self, by_name: Mapping[str, ScorerResults]) -> None:
        self._by_name = dict(by_name)

    @property
    def names(self) -> list[str]:
        return list(self._by_name)

    @property
    def entries(self) -> list[dict[str, Any]]:
        """The metrics-JSON entries, in registry order (an entry's own name, e.g. provenance-graph, is an alias)."""
        return [dict(r.entry) for name, group in self._by_name.items() if name in SCORERS for r in group]

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_name)

    def __getitem__(self, name: str) -> ScorerResults:
        got = self._by_name.get(name) or self._by_name.get(name.replace("_", "-"))
        if got is not None:
            return got
        if name.replace("_", "-") in SCORERS:
            raise KeyError(
                f"{name} is not scored in this run (task and reference); scored: {', '.join(self.names) or 'none'}"
            )
        raise KeyError(f"no scorer {name!r}; scored in this run: {', '.join(self.names) or 'none'}")

    def __getattr__(self, name: str) -> ScorerResults:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError as exc:
            raise AttributeError(exc.args[0]) from None

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | {n.replace("-", "_") for n in self._by_name})

    def __repr__(self) -> str:
        return f"Scores({', '.join(f'{n}: {g.labels}' for n, g in self._by_name.items())})"


def build_scores(
    outcomes: Mapping[str, Sequence[Outcome]], queries: Sequence[tuple[str, str]], reader: Reader | None = None
) -> Scores:
    """Typed scores from each registered scorer's outcomes (one per item position).

    A scorer whose entries carry their own name (provenance: ``provenance-graph`` or
    ``provenance-filtering``) is reachable under both names.
    """
    labels = labels_for(queries)
    by_name: dict[str, ScorerResults] = {}
    for name, outs in outcomes.items():
        scorer = SCORERS.get(name)
        names = scorer.metrics if scorer is not None else ()
        results: list[Result] = []
        for pos, out in enumerate(outs):
            label = labels[pos] if pos < len(labels) else f"#{pos + 1}"
            query, kind = queries[pos] if pos < len(queries) else (None, "all")
            if isinstance(out, NotScored):
                entry = {"scorer": name, "query": query, "query_kind": kind, "metrics": None, "skipped": out.reason}
                results.append(Result(name, label, query, kind, None, entry, names, out.reason, out.fail, None, reader))
                continue
            many = out.entry.get("entries")
            for e in many if isinstance(many, list) else [out.entry]:
                e = {"scorer": name, **e}
                own = str(e.get("node_type")) if "node_type" in e else label
                metrics = e.get("metrics")
                results.append(
                    Result(
                        str(e["scorer"]),
                        own,
                        e.get("query", query),
                        str(e.get("query_kind", kind)),
                        metrics if isinstance(metrics, dict) else None,
                        e,
                        names,
                        None if isinstance(metrics, dict) else "no metrics",
                        False,
                        out.failure,
                        reader,
                    )
                )
        by_name[name] = ScorerResults(name, tuple(results))
        for own_name in dict.fromkeys(r.scorer for r in results if r.scorer != name):
            by_name.setdefault(own_name, ScorerResults(own_name, tuple(r for r in results if r.scorer == own_name)))
    return Scores(by_name)
