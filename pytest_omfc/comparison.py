"""Two scored runs of the same task on the same reference, compared trial by trial (docs/scoring/comparison.md).

A run's metrics JSON carries what a comparison needs: each result's trials (detection: keys, scores and
targets; masks: the per-image values) and the SHA-256 of the reference it was scored against.  For every
headline metric of a result that both runs scored, :func:`compare_documents` gives the baseline's value, the
run's, their paired difference on the trials both scored, its confidence interval and a two-sided p-value:
DeLong's test for a ROC AUC, a paired bootstrap (seeded, the same draws for both runs) for everything else.
The scorers say how their metrics derive from trials (:attr:`pytest_omfc.scoring.registry.Scorer.trials`);
nothing is scored again.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "COMPARISON_KEYS",
    "compare_result",
    "intervals_of",
    "ComparisonError",
    "compare_documents",
    "load_baseline",
    "omfc_compare",
    "reference_sha256",
]

#: The keys of one metric's comparison in the metrics JSON (``results[i].comparison.metrics[<name>]``).
COMPARISON_KEYS = ("baseline", "value", "difference", "ci_low", "ci_high", "p_value", "test", "trials")
#: Trials seen by one run only, named in the comparison (the rest counted).
NAMED_TRIALS = 10
#: The largest baseline read (a metrics JSON of 16,000 detection trials and 16,000 masks is about 30 MB).
MAX_BASELINE_BYTES = 1 << 30


class ComparisonError(ValueError):
    """A baseline that cannot be compared with this run: the message says what is missing or differs."""


def load_baseline(path: Path) -> dict[str, Any]:
    """A metrics JSON written by an earlier run, read strictly and bounded; :class:`ComparisonError` names what is
    wrong with it."""
    from .jsonio import JsonProblem, load_json

    try:
        doc = load_json(path, MAX_BASELINE_BYTES, what="baseline metrics JSON")
    except JsonProblem as exc:
        raise ComparisonError(f"{path}: {exc}") from None
    if not isinstance(doc, dict):
        raise ComparisonError(f"{path}: must be a metrics JSON object (got a JSON {type(doc).__name__})")
    if "expids" in doc:
        raise ComparisonError(f"{path}: an NC2017 package's metrics JSON: compare one EXPID's run at a time")
    for key, kind in (("results", list), ("task", str), ("edition", str), ("run", dict)):
        if not isinstance(doc.get(key), kind):
            raise ComparisonError(
                f"{path}: must be the metrics JSON of a scored run, with {key!r} (got "
                f"{'no such key' if key not in doc else type(doc[key]).__name__}); write it with --omfc-metrics-json"
            )
    return doc


def reference_sha256(doc: Mapping[str, Any]) -> str | None:
    """The SHA-256 of the reference a metrics JSON was scored against (from its ``run.inputs``)."""
    reference = doc.get("reference")
    run = doc.get("run")
    inputs = run.get("inputs") if isinstance(run, Mapping) else None
    if not isinstance(inputs, list):
        return None
    for item in inputs:
        if isinstance(item, Mapping) and item.get("path") == reference and isinstance(item.get("sha256"), str):
            return str(item["sha256"])
    return None


def check_comparable(baseline: Mapping[str, Any], run: Mapping[str, Any], where: str = "the baseline") -> None:
    """:class:`ComparisonError` unless both documents score the same task of the same edition against the same
    reference (by its SHA-256)."""
    for key in ("edition", "task"):
        if baseline.get(key) != run.get(key):
            raise ComparisonError(f"{where} is of {key} {baseline.get(key)!r}, this run of {run.get(key)!r}")
    theirs, ours = reference_sha256(baseline), reference_sha256(run)
    if theirs is None:
        raise ComparisonError(f"{where} carries no SHA-256 of its reference (written by an older version?)")
    if ours is not None and theirs != ours:
        raise ComparisonError(
            f"{where} was scored against another reference (SHA-256 {theirs[:12]}..., this run's {ours[:12]}...)"
        )


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _trials(scorer: Any, entry: Mapping[str, Any], options: Mapping[str, Any], which: str) -> Any:
    """A result's trials (:attr:`Scorer.trials`), or why they cannot be paired."""
    try:
        data = scorer.trials(entry, options)
    except (TypeError, ValueError, KeyError, IndexError) as exc:
        return f"{which} per-trial data cannot be read ({type(exc).__name__}: {str(exc)[:200]})"
    if data is None:
        return f"{which} result carries no per-trial data to pair"
    if len(set(data.keys)) != len(data.keys):
        return f"{which} per-trial data names a trial twice"
    return data


def compare_entries(
    scorer: Any,
    base: Mapping[str, Any],
    entry: Mapping[str, Any],
    base_options: Mapping[str, Any],
    options: Mapping[str, Any],
    *,
    level: float,
    draws: int,
    seed: int,
    only: Collection[str] | None = None,
) -> dict[str, Any]:
    """The comparison of one result (``entry``) with the baseline's result of the same scorer and query (of the
    metrics ``only``, when given)."""
    import numpy as np

    from .scoring.paired import AucOf, MeanOf, RocOf, StatOf, delong, mean_statistic, paired_bootstraps

    ta = _trials(scorer, base, base_options, "the baseline's")
    tb = _trials(scorer, entry, options, "this run's")
    if isinstance(ta, str) or isinstance(tb, str):
        return {"skipped": ta if isinstance(ta, str) else tb}
    pos_a = {k: i for i, k in enumerate(ta.keys)}
    pos_b = {k: i for i, k in enumerate(tb.keys)}
    common = [k for k in tb.keys if k in pos_a]
    ia = np.array([pos_a[k] for k in common], dtype=np.intp)
    ib = np.array([pos_b[k] for k in common], dtype=np.intp)
    only_base = [k for k in ta.keys if k not in pos_b]
    only_run = [k for k in tb.keys if k not in pos_a]
    paired: dict[str, Any] = {
        "trials": len(common),
        "baseline_only": len(only_base),
        "run_only": len(only_run),
        "baseline_only_first": only_base[:NAMED_TRIALS],
        "run_only_first": only_run[:NAMED_TRIALS],
        "level": level,
        "draws": draws,
        "seed": seed,
    }
    records: dict[str, dict[str, Any]] = {}
    pairs: dict[str, tuple[Any, Any]] = {}
    counted: dict[str, int] = {}
    subsets: dict[int, Any] = {}

    def subset(array: Any, index: Any) -> Any:
        key = id(array)
        if key not in subsets:
            subsets[key] = (array, array[index])
        return subsets[key][1]

    for name, mb in tb.metrics.items():
        if only is not None and name not in only:
            continue
        ma = ta.metrics.get(name)
        base_value = _number((base.get("metrics") or {}).get(name))
        value = _number((entry.get("metrics") or {}).get(name))
        record: dict[str, Any] = {"baseline": base_value, "value": value, "test": mb.test}
        records[name] = record
        if ma is None or type(ma) is not type(mb):
            record["skipped"] = "the baseline has no per-trial values of this metric"
            continue
        if isinstance(mb, StatOf) and isinstance(ma, StatOf):
            if not common:
                record["skipped"] = "no trial scored by both runs"
                continue
            pairs[name] = (ma.on(ia), mb.on(ib))
            counted[name] = len(common)
            continue
        if isinstance(mb, MeanOf):
            va, vb = ma.values[ia], mb.values[ib]
            ok = np.isfinite(va) & np.isfinite(vb)
            if not ok.any():
                record["skipped"] = "no trial scored by both runs"
                continue
            wa = None if ma.weights is None else ma.weights[ia][ok]
            wb = None if mb.weights is None else mb.weights[ib][ok]
            pairs[name] = (mean_statistic(va[ok], wa), mean_statistic(vb[ok], wb))
            counted[name] = int(ok.sum())
            continue
        assert isinstance(mb, (AucOf, RocOf)) and isinstance(ma, (AucOf, RocOf))
        ya, yb = ma.targets[ia], mb.targets[ib]
        if not np.array_equal(ya, yb):
            record["skipped"] = "the runs disagree on which trials are targets"
            continue
        if not (ya.any() and not ya.all()):
            record["skipped"] = "the paired trials lack targets or non-targets"
            continue
        if isinstance(mb, AucOf):
            d = delong(ya, ma.scores[ia], mb.scores[ib], level)
            record.update(
                difference=d.difference, ci_low=d.ci_low, ci_high=d.ci_high, p_value=d.p_value, trials=len(common)
            )
            continue
        assert isinstance(ma, RocOf)
        sa, sb = subset(ma.scores, ia), subset(mb.scores, ib)
        y_a, y_b = subset(ma.targets, ia), subset(mb.targets, ib)
        pairs[name] = (ma.statistic(sa, y_a), mb.statistic(sb, y_b))
        counted[name] = len(common)
    groups: dict[int, list[str]] = {}
    for name, n in counted.items():  # metrics paired on as many trials share their draws (and their ROC curves)
        groups.setdefault(n, []).append(name)
    for n, names in groups.items():
        got = paired_bootstraps(n, {m: pairs[m] for m in names}, draws=draws, seed=seed, level=level)
        for m, r in got.items():
            records[m].update(
                difference=_finite(r.difference),
                ci_low=_finite(r.ci_low),
                ci_high=_finite(r.ci_high),
                p_value=_finite(r.p_value),
                trials=n,
            )
    for record in records.values():
        for key in COMPARISON_KEYS:
            record.setdefault(key, None)
    shown = {n: {k: r[k] for k in (*COMPARISON_KEYS, "skipped") if k in r} for n, r in records.items()}
    return {"metrics": shown, "paired": paired}


def result_key(entry: Mapping[str, Any]) -> tuple[Any, ...]:
    """What pairs a result with the baseline's: its scorer (as the entry names it), query, query kind and, for
    provenance filtering, node type."""
    return (entry.get("scorer"), entry.get("query"), entry.get("query_kind"), entry.get("node_type"))


def scorer_of(entry: Mapping[str, Any], scorers: Mapping[str, Any]) -> Any:
    """The registered scorer of an entry: by its name, or the family a sub-scorer's name begins with
    (``provenance-graph``, ``provenance-filtering``: provenance)."""
    name = str(entry.get("scorer"))
    return scorers.get(name) or scorers.get(name.rsplit("-", 1)[0])


def compare_result(
    entry: Mapping[str, Any],
    baseline: Mapping[str, Any],
    scorers: Mapping[str, Any],
    options: Mapping[str, Any],
    *,
    level: float,
    draws: int,
    seed: int,
) -> dict[str, Any] | None:
    """One result of a run (``entry``, scored with ``options``) compared with the baseline document's result of
    the same scorer and query (:func:`compare_entries`); ``{"skipped": why}`` when the baseline has no such
    result, None when the result has no trial unit or was not scored."""
    scorer = scorer_of(entry, scorers)
    if scorer is None or scorer.trials is None or entry.get("metrics") is None:
        return None
    base = next(
        (r for r in baseline.get("results", []) if isinstance(r, Mapping) and result_key(r) == result_key(entry)), None
    )
    if base is None or base.get("metrics") is None:
        why = "has no such result" if base is None else "did not score this result"
        return {
            "skipped": f"the baseline {why}" + (f" ({base.get('skipped')})" if base and base.get("skipped") else "")
        }
    return compare_entries(
        scorer, base, entry, baseline.get("options") or {}, options, level=level, draws=draws, seed=seed
    )


def compare_documents(
    baseline: Mapping[str, Any],
    run: Mapping[str, Any],
    scorers: Mapping[str, Any],
    *,
    level: float = 0.95,
    draws: int = 2000,
    seed: int = 77,
) -> list[dict[str, Any] | None]:
    """Per result of ``run`` (in order), its comparison with the baseline's result of the same scorer and query
    (:func:`compare_result`), after :func:`check_comparable`."""
    check_comparable(baseline, run)
    options = run.get("options") or {}
    return [
        compare_result(entry, baseline, scorers, options, level=level, draws=draws, seed=seed)
        for entry in run.get("results", [])
    ]


def _document(run: str | Path | Mapping[str, Any], what: str) -> Mapping[str, Any]:
    if isinstance(run, Mapping):
        return run
    try:
        return load_baseline(Path(run))
    except ComparisonError as exc:
        raise ComparisonError(f"{what}: {exc}") from None


def omfc_compare(
    baseline: str | Path | Mapping[str, Any],
    run: str | Path | Mapping[str, Any],
    *,
    level: float = 0.95,
    draws: int = 2000,
    seed: int = 77,
) -> dict[str, Any]:
    """Compare two scored runs of the same task on the same reference, trial by trial: each a metrics JSON
    (``--omfc-metrics-json``) by path or as loaded.  Returns ``{"results": [...]}`` with, for every result of
    ``run`` the baseline also scored, its ``scorer``, ``query``, ``query_kind``, ``comparison`` (per metric:
    baseline, value, difference, ci_low, ci_high, p_value, test, trials) and ``compared_trials``, as
    ``--omfc-baseline`` writes them.  :class:`ComparisonError` (a :class:`ValueError`) says why two runs cannot
    be compared; ``level``, ``draws`` and ``seed`` are the interval's level and the paired bootstrap's."""
    from .scoring import families  # noqa: F401  (registers every scorer)
    from .scoring.registry import SCORERS

    if not 0.0 < level < 1.0:
        raise ValueError(f"level: must be a number in (0, 1) (got {level!r})")
    if isinstance(draws, bool) or not isinstance(draws, int) or not 1 <= draws <= 100_000:
        raise ValueError(f"draws: must be an integer from 1 to 100000 (got {draws!r})")
    base, doc = _document(baseline, "baseline"), _document(run, "run")
    got = compare_documents(base, doc, SCORERS, level=level, draws=draws, seed=seed)
    results = []
    for entry, comparison in zip(doc.get("results", []), got, strict=True):
        if comparison is None:
            continue
        head = {k: entry.get(k) for k in ("scorer", "query", "query_kind")}
        if "skipped" in comparison:
            results.append({**head, "comparison": None, "comparison_skipped": comparison["skipped"]})
        else:
            results.append({**head, "comparison": comparison["metrics"], "compared_trials": comparison["paired"]})
    return {"results": results}


#: Why a metric has no interval: it is no average over trials (a threshold, a count, a ratio over the index).
NO_TRIAL_UNIT = "no per-trial values of it in the result (a threshold, a count, a ratio or a pooled value): no interval"


def intervals_of(
    scorer: Any, entry: Mapping[str, Any], options: Mapping[str, Any], *, level: float, draws: int, seed: int
) -> dict[str, dict[str, Any]]:
    """Each numeric metric of a result with its interval over trials (docs/scoring/comparison.md): an AUC by
    DeLong's variance, every other average by the percentile bootstrap of the same draws a comparison uses; a
    metric without a trial unit says why.  Empty when the result keeps no trials."""
    import numpy as np

    from .scoring.paired import AucOf, MeanOf, StatOf, bootstrap_intervals, delong_interval, mean_statistic

    data = _trials(scorer, entry, options, "the") if scorer is not None and scorer.trials is not None else None
    if data is None or isinstance(data, str):  # no trials kept, or unreadable ones: no interval
        return {}
    out: dict[str, dict[str, Any]] = {}
    pending: dict[int, dict[str, Any]] = {}  # metrics bootstrapped on as many trials share their draws
    for name, value in (entry.get("metrics") or {}).items():
        if not isinstance(value, (int, float)) or isinstance(value, bool) or "CI_" in name:
            continue  # (MediScore's own AUC interval columns are intervals already)
        measure = data.metrics.get(name)
        if measure is None:
            out[name] = {"ci_low": None, "ci_high": None, "method": None, "trials": None, "why": NO_TRIAL_UNIT}
            continue
        if isinstance(measure, AucOf):
            try:
                _, lo, hi = delong_interval(measure.targets, measure.scores, level)
            except ValueError as exc:
                out[name] = {"ci_low": None, "ci_high": None, "method": "delong", "trials": None, "why": str(exc)}
                continue
            out[name] = {"ci_low": lo, "ci_high": hi, "method": "delong", "trials": int(measure.scores.size)}
            continue
        if isinstance(measure, StatOf):
            stat, n = measure.on(np.arange(len(data.keys))), len(data.keys)
        elif isinstance(measure, MeanOf):
            ok = np.isfinite(measure.values)
            weights = None if measure.weights is None else measure.weights[ok]
            stat, n = mean_statistic(measure.values[ok], weights), int(ok.sum())
        else:
            stat, n = measure.statistic(measure.scores, measure.targets), int(measure.targets.size)
        pending.setdefault(n, {})[name] = stat
        out[name] = {}  # filled below, in the metrics' order
    for n, stats in pending.items():
        for name, (lo, hi) in bootstrap_intervals(n, stats, draws=draws, seed=seed, level=level).items():
            out[name] = {"ci_low": _finite(lo), "ci_high": _finite(hi), "method": "bootstrap", "trials": n}
    return out
