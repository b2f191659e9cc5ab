"""The registered scorers: each engine's adapter from :class:`ScoringInput` to results, and its registration.

Importing this module fills :data:`pytest_omfc.scoring.registry.SCORERS`
(detection first, then mask: the order of items, metrics-JSON results and
summary tables).  No pytest import.

The plugin imports this module at load time, in every pytest run of the
environment, for the option declarations: it imports no engine, numpy or
pandas at module level (each adapter imports them when it runs; see
CONTRIBUTING.md, "Keeping the plugin light").
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..editions import Task
from ..findings import Unavailable
from .registry import (
    NotScored,
    Outcome,
    Scorer,
    ScoreResult,
    ScorerOption,
    ScoringInput,
    Tally,
    not_scored,
    register,
)

if TYPE_CHECKING:  # annotations only; the adapters import the engines when they run
    import pandas as pd

    from .detection import DetectionResult

__all__ = ["DETECTION", "DETECTION_TASKS", "MASK", "MASK_TASKS", "MAX_CI_ITERATIONS", "bounded", "flag", "integer"]


def bounded(conv: Callable[[Any], Any], ok: Callable[[Any], bool], must: str) -> Callable[[Any], Any]:
    """A :attr:`ScorerOption.parse`: ``conv(text)`` when ``ok``, else ``ValueError("must be <must> (got x)")``.

    An integer out of range reads as a number in the message, anything else as its repr.
    """

    def parse(value: Any) -> Any:
        try:
            out = conv(value)
        except (TypeError, ValueError):
            out = None
        if out is None or not ok(out):
            shown = out if isinstance(out, int) and not isinstance(out, bool) else repr(value)
            raise ValueError(f"must be {must} (got {shown})")
        return out

    return parse


def integer(value: Any) -> int:
    """An integer option's text (surrounding blanks allowed, as ``int`` does)."""
    return int(str(value).strip())


def flag(value: Any) -> bool:
    """A store_true option or its ini value (pytest already parsed the ini ``bool``)."""
    return bool(value)


def common_errors(exc: Unavailable) -> NotScored:
    """A submission that cannot be scored: skip naming the rule that makes it so."""
    return NotScored(f"{exc.rule_id} failed: {exc.reason}")


# ==================================================================================== detection

#: Tasks scored by the detection scorer, with MediScore's task name (METRICS.md 1.12).
DETECTION_TASKS: dict[Task, str] = {
    Task.IMG: "manipulation",
    Task.VID: "manipulation",
    Task.SPL: "splice",
    Task.EV: "eventverification",
    Task.CAM: "camera",
}

#: Highest ``--omfc-ci-iterations``: 20 times MediScore's fixed 500 (about 5 s on 16,000 trials; the
#: time is linear in it, so an unbounded value never finishes).
MAX_CI_ITERATIONS = 10_000

DETECTION_OPTIONS: tuple[ScorerOption, ...] = (
    ScorerOption(
        "--omfc-far-stop",
        "omfc_far_stop",
        {
            "metavar": "FAR",
            "help": "FAR of AUC@FAR and CDR@FAR, in [0, 1] (default: MediScore's 0.1; plan convention 0.05)",
        },
        "--farStop",
        None,
        bounded(float, lambda v: 0.0 <= v <= 1.0, "a number in [0, 1]"),
    ),
    ScorerOption(
        "--omfc-ci",
        "omfc_ci",
        {
            "action": "store_true",
            "help": "bootstrap confidence intervals of AUC, AUC@FAR and CDR@FAR (MediScore's deterministic bootstrap)",
        },
        "--ci",
        False,
        flag,
    ),
    ScorerOption(
        "--omfc-ci-level",
        "omfc_ci_level",
        {"metavar": "LEVEL", "help": "confidence level of the intervals, strictly between 0 and 1 (default 0.9)"},
        "--ciLevel",
        0.9,
        bounded(float, lambda v: 0.0 < v < 1.0, "a number strictly between 0 and 1"),
    ),
    ScorerOption(
        "--omfc-ci-iterations",
        "omfc_ci_iterations",
        {"metavar": "N", "help": "bootstrap resamples, 1 to 10000 (default 500, fixed in MediScore)"},
        "(500, fixed)",
        500,
        bounded(integer, lambda v: 1 <= v <= MAX_CI_ITERATIONS, f"an integer from 1 to {MAX_CI_ITERATIONS}"),
    ),
    ScorerOption(
        "--omfc-seed",
        "omfc_seed",
        {
            "metavar": "SEED",
            "help": "bootstrap seed of numpy.random.RandomState, 0 to 4294967295 (default 77, which reproduces "
            "MediScore)",
        },
        "(77, fixed)",
        77,
        bounded(integer, lambda v: 0 <= v < 2**32, f"an integer from 0 to {2**32 - 1}"),
    ),
)


def _far(opts: Mapping[str, Any], common: Mapping[str, Any]) -> float:
    from .detection import DEFAULT_FAR_STOP

    far = opts.get("far_stop")
    return float(far) if far is not None else DEFAULT_FAR_STOP[str(common.get("convention", "mediscore"))]


def _detection_system(inp: ScoringInput) -> pd.DataFrame:
    """The system output frame; :class:`Unavailable` names the rule that makes it unscorable."""
    import numpy as np
    import pandas as pd

    from .merge import SCORE_COLUMN, TASK_KEYS

    table = inp.table
    for col in (SCORE_COLUMN, *TASK_KEYS[DETECTION_TASKS[inp.task]]):
        if not table.has(col):
            raise Unavailable(inp.column_rule, f"column {col} is absent")
    text = table.df[SCORE_COLUMN].astype(str).str.strip()
    number = pd.to_numeric(text.where(text != "", None), errors="coerce")
    bad = np.flatnonzero((number.isna() & (text != "") & (text.str.lower() != "nan")).to_numpy())
    if bad.size:
        pos = int(bad[0])
        raise Unavailable(
            "SCORE-01",
            f"{bad.size} ConfidenceScore value(s) are not numbers "
            f"(first {table.display}:{table.line_of(pos)}: {text.iloc[pos]!r})",
        )
    return table.df


def _not_scored(exc: Exception, inp: ScoringInput) -> NotScored:
    from .errors import QueryError

    if inp.kind == "qm" and isinstance(exc, QueryError) and exc.unknown:
        stem = inp.reference.with_suffix("")
        join, mask = (stem.parent / f"{stem.name}-{s}.csv" for s in ("probejournaljoin", "journalmask"))
        if not (join.is_file() and mask.is_file()):
            return NotScored(f"{exc} (no journal tables {join.name} and {mask.name} beside the reference)", fail=True)
    return not_scored(exc)


def _defined(r: DetectionResult) -> DetectionResult | NotScored:
    """AUC and EER need both classes (METRICS.md 1.4, 1.5): skip instead of printing NaN as MediScore does."""
    t, nt = int(r.counts.get("targets", 0)), int(r.counts.get("nontargets", 0))
    if t and nt:
        return r
    what = "no trials" if t + nt == 0 else ("no target trials" if t == 0 else "no non-target trials")
    where = "all trials" if r.query is None else f"{r.query_kind} query {r.query!r}"
    return NotScored(f"{where}: {what} (targets={t}, non-targets={nt}); AUC and EER are undefined")


def _detection_result(r: DetectionResult) -> ScoreResult:
    data = r.to_dict()
    props: list[tuple[str, Any]] = [("SYS_RESPONSE", r.sys_response)]
    props += [(name, math.nan if value is None else float(value)) for name, value in data["metrics"].items()]
    props += [(f"count.{name}", int(value)) for name, value in data["counts"].items()]
    return ScoreResult({k: data[k] for k in ("query", "query_kind", "metrics", "counts", "roc")}, props)


def run_detection(inp: ScoringInput) -> list[Outcome]:
    """Detection scoring of every query (METRICS.md 1); one outcome per position."""
    from .detection import score_detection
    from .errors import QueryError, ScoringError

    n = inp.positions
    try:
        system = _detection_system(inp)
    except Unavailable as exc:
        return [common_errors(exc)] * n
    opts = inp.options
    common: dict[str, Any] = dict(
        task=DETECTION_TASKS[inp.task],
        optout=inp.optout,
        far_stop=opts.get("far_stop"),
        ci=bool(opts.get("ci")),
        ci_level=opts.get("ci_level", 0.9),
        n_bootstrap=opts.get("ci_iterations", 500),
        seed=opts.get("seed", 77),
        convention=inp.convention,
        strict=False,
    )
    kind = inp.kind

    def run(queries: list[str]) -> list[DetectionResult]:
        by_kind: dict[str, Any] = {}
        if kind == "qp":
            by_kind["query_partition"] = inp.query_partition
        elif kind in ("q", "qm"):
            by_kind["query" if kind == "q" else "query_manipulation"] = queries
        return score_detection(inp.index, inp.reference, system, **common, **by_kind).results

    try:
        results: list[DetectionResult | NotScored] = list(run([q for q, _ in inp.queries]))
    except ScoringError as exc:
        if not (isinstance(exc, QueryError) and kind in ("q", "qm") and n > 1):
            return [_not_scored(exc, inp)] * n
        results = []  # one bad query must not hide the others: score each alone
        for query, _ in inp.queries:
            try:
                results += run([query])
            except ScoringError as one:
                results.append(_not_scored(one, inp))
    out: list[Outcome] = []
    for r in results:
        d = r if isinstance(r, NotScored) else _defined(r)
        out.append(d if isinstance(d, NotScored) else _detection_result(d))
    return out


def _fmt(v: Any) -> str:
    return "NaN" if v is None else f"{float(v):.4f}"


def _detection_columns(opts: Mapping[str, Any]) -> list[str]:
    return ["T#", "NT#", "AUC", "EER", "AUC@FAR", "CDR@FAR", "TRR"] + (["AUC CI"] if opts.get("ci") else [])


def _detection_row(entry: dict[str, Any], opts: Mapping[str, Any]) -> list[str]:
    m, c = entry["metrics"], entry["counts"]
    row = [str(c["targets"]), str(c["nontargets"])] + [
        _fmt(m.get(k)) for k in ("AUC", "EER", "AUC@FAR", "CDR@FAR", "TRR")
    ]
    if opts.get("ci"):
        row.append(f"{_fmt(m.get('AUC_CI_LOWER'))}-{_fmt(m.get('AUC_CI_UPPER'))}")
    return row


def _detection_header(opts: Mapping[str, Any], common: Mapping[str, Any]) -> str:
    return (
        f"omfc: scoring detection against {common['reference']} (convention {common['convention']}, "
        f"FAR stop {_far(opts, common):g})"
    )


def _detection_footer(opts: Mapping[str, Any], common: Mapping[str, Any]) -> str:
    return f"omfc: convention {common['convention']}, FAR stop {_far(opts, common):g}" + (
        ", opt-out" if common.get("optout") else ""
    )


def _detection_json_options(opts: Mapping[str, Any], common: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "far_stop": _far(opts, common),
        "ci": bool(opts.get("ci")),
        "ci_level": opts.get("ci_level", 0.9),
        "ci_iterations": opts.get("ci_iterations", 500),
        "seed": opts.get("seed", 77),
    }


def detection_result(d: dict[str, Any]) -> DetectionResult:
    """Rebuild a result from its entry (the controller has no engine objects under xdist)."""
    import numpy as np

    from .detection import DetectionResult, RocCurve

    roc = d["roc"]
    arr = {k: np.array([np.nan if v is None else v for v in roc[k]], dtype=float) for k in ("fpr", "tpr", "thresholds")}
    counts = d["counts"]
    curve = RocCurve(
        fpr=arr["fpr"],
        tpr=arr["tpr"],
        thresholds=arr["thresholds"],
        n_targets=int(counts.get("targets", 0)),
        n_nontargets=int(counts.get("nontargets", 0)),
    )
    return DetectionResult(
        query=d["query"],
        query_kind=d["query_kind"],
        sys_response=d.get("sys_response", "all"),
        metrics=d["metrics"],
        counts=counts,
        roc=curve,
    )


def _detection_finish(
    entries: list[dict[str, Any]], opts: Mapping[str, Any], title: str
) -> tuple[list[str], list[str]]:
    """``--omfc-plots``: ROC and DET plots of the scored results."""
    from .plots import write_plots

    plots: Path | None = opts.get("plots")
    scored = [detection_result(e) for e in entries if e.get("metrics") is not None]
    if plots is None or not scored:
        return [], []
    try:
        paths = write_plots(scored, plots, title=title)
    except (OSError, ValueError) as exc:
        return [], [f"--omfc-plots: cannot write into {plots}: {exc}"]
    return [f"plots: {', '.join(p.name for p in paths)} in {plots}"], []


#: detection.METRIC_COLUMNS written out, so that registration imports no numpy
#: (tests/test_lazy_imports.py checks they agree).
DETECTION_METRICS: tuple[str, ...] = (
    "TRR",
    "AUC",
    "EER",
    "FAR_STOP",
    "AUC@FAR",
    "CDR@FAR",
    "CI_LEVEL",
    "AUC_CI_LOWER",
    "AUC_CI_UPPER",
    "AUC_CI_LOWER@FAR",
    "AUC_CI_UPPER@FAR",
    "CDR_CI_LOWER@FAR",
    "CDR_CI_UPPER@FAR",
)

DETECTION = register(
    Scorer(
        name="detection",
        title="detection",
        tasks=DETECTION_TASKS,
        run=run_detection,
        options=DETECTION_OPTIONS,
        header=_detection_header,
        columns=_detection_columns,
        row=_detection_row,
        footer=_detection_footer,
        json_options=_detection_json_options,
        finish=_detection_finish,
        null_keys=("metrics", "counts", "roc"),
        metrics=DETECTION_METRICS,
    )
)


# ==================================================================================== mask

#: Tasks scored by the mask scorer, with MaskScorer's task name (METRICS.md 2).
MASK_TASKS: dict[Task, str] = {Task.IMG: "manipulation", Task.SPL: "splice"}

#: Reference columns naming masks: one of them switches the mask scorer on.
MASK_REFERENCE_COLUMNS = (
    "ProbeMaskFileName",
    "ProbeBitPlaneMaskFileName",
    "BinaryProbeMaskFileName",
    "DonorMaskFileName",
)

#: Largest erosion/dilation kernel: the work grows with its square (a 10001 kernel would never finish).
MAX_KERNEL = 101

KERNELS = ("box", "disc", "diamond", "gaussian", "line")


def _odd_size(v: int) -> bool:
    return 0 <= v <= MAX_KERNEL and (v == 0 or v % 2 == 1)


def _one_of(choices: Sequence[str]) -> Callable[[Any], str]:
    return bounded(lambda v: str(v).strip().lower(), lambda v: v in choices, "one of " + ", ".join(choices))


def _sbin(value: Any) -> int | None:
    """``--omfc-sbin``: -1 to 255, or MediScore's -10 for none."""
    v = bounded(integer, lambda x: x == -10 or -1 <= x <= 255, "an integer from -1 to 255 (-10: none)")(value)
    return None if v == -10 else v


_SIZE = f"0 or an odd integer from 1 to {MAX_KERNEL}"
MASK_OPTIONS: tuple[ScorerOption, ...] = (
    ScorerOption(
        "--omfc-kernel",
        "omfc_kernel",
        {"choices": list(KERNELS), "help": "shape of the no-score zone kernels (default box)"},
        "--kernel",
        "box",
        _one_of(KERNELS),
    ),
    ScorerOption(
        "--omfc-erode-kernel-size",
        "omfc_erode_kernel_size",
        {"metavar": "N", "help": f"erosion kernel of the no-score zone around the reference, {_SIZE} (default 15)"},
        "--eks",
        15,
        bounded(integer, _odd_size, _SIZE),
        "eks",
    ),
    ScorerOption(
        "--omfc-dilate-kernel-size",
        "omfc_dilate_kernel_size",
        {"metavar": "N", "help": f"dilation kernel of the no-score zone around the reference, {_SIZE} (default 11)"},
        "--dks",
        11,
        bounded(integer, _odd_size, _SIZE),
        "dks",
    ),
    ScorerOption(
        "--omfc-nonselected-dilate-kernel-size",
        "omfc_nonselected_dilate_kernel_size",
        {
            "metavar": "N",
            "help": f"dilation kernel of the non-selected regions, {_SIZE} (default 15; plan convention 11; always 0 "
            "for splice)",
        },
        "--ntdks",
        None,
        bounded(integer, _odd_size, _SIZE),
        "ntdks",
    ),
    ScorerOption(
        "--omfc-sbin",
        "omfc_sbin",
        {
            "metavar": "T",
            "help": "threshold of the Actual metrics and switch of the Maximum ones, -1 to 255 (default -10: neither)",
        },
        "--sbin",
        None,
        _sbin,
        "sbin",
    ),
    ScorerOption(
        "--omfc-no-score-pixel",
        "omfc_no_score_pixel",
        {"metavar": "V", "help": "system mask value that is not scored, -1 to 255 (default -1: none)"},
        "--nspx",
        -1,
        bounded(integer, lambda v: -1 <= v <= 255, "an integer from -1 to 255"),
        "nspx",
    ),
    ScorerOption(
        "--omfc-per-probe-pixel-no-score",
        "omfc_per_probe_pixel_no_score",
        {
            "action": "store_true",
            "help": "take the no-score value of each probe from ProbeOptOutPixelValue (DonorOptOutPixelValue)",
        },
        "-pppns",
        False,
        flag,
        "pppns",
    ),
    ScorerOption(
        "--omfc-jpeg2000",
        "omfc_jpeg2000",
        {
            "choices": ["auto", "yes", "no"],
            "help": "JPEG 2000 bit-plane references: auto (default) uses them when ProbeBitPlaneMaskFileName names a "
            "file for at least as many targets as ProbeMaskFileName (MediScore: PNG unless --jpeg2000)",
        },
        "--jpeg2000",
        "auto",
        _one_of(("auto", "yes", "no")),
    ),
    ScorerOption(
        "--omfc-dask",
        "omfc_dask",
        {
            "metavar": "ADDRESS",
            "help": "score masks on a dask.distributed scheduler (tcp://host:8786) or 'local' (a LocalCluster); needs "
            "pytest-omfc[dask]",
        },
        "",
        None,
        bounded(lambda v: str(v).strip(), lambda v: 0 < len(v) <= 1000, "a scheduler address or 'local'"),
    ),
)

#: Per-image columns kept in ``per_probe`` besides the metric columns (MediScore's names).
_PER_PROBE_INPUTS = (
    "ProbeFileID",
    "DonorFileID",
    "ProbeMaskFileName",
    "ProbeBitPlaneMaskFileName",
    "BinaryProbeMaskFileName",
    "DonorMaskFileName",
    "OutputProbeMaskFileName",
    "OutputDonorMaskFileName",
)


def _plain(v: Any) -> Any:
    """A JSON/JUnit-ready value: numpy scalars unwrapped, NaN and "" as None."""
    import numpy as np

    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if v is None or (isinstance(v, str) and v == ""):
        return None
    return v


def _per_probe(rows: pd.DataFrame, inputs: set[str]) -> list[dict[str, Any]]:
    cols = [c for c in rows.columns if c in _PER_PROBE_INPUTS or c not in inputs]
    return [{c: _plain(v) for c, v in rec.items()} for rec in rows[cols].to_dict("records")]


def _mask_failure(not_scored: Sequence[tuple[str, str]], shown: int = 5) -> str | None:
    if not not_scored:
        return None
    head = "; ".join(f"{trial}: {why}" for trial, why in not_scored[:shown])
    more = f"; ... and {len(not_scored) - shown} more" if len(not_scored) > shown else ""
    return f"{len(not_scored)} mask(s) could not be scored ({head}{more})"


def _polarity_notes(polarity: Sequence[tuple[str, float, float]], shown: int = 3) -> list[str]:
    """The polarity hints of a run (METRICS.md 2.2: 0 is manipulated): one line each kind, examples named."""
    from .mask.run import INVERTED_MCC, MOSTLY_BLACK

    out = []
    inverted = [(t, m) for t, _, m in polarity if not math.isnan(m)]
    black = [(t, b) for t, b, _ in polarity if b > MOSTLY_BLACK]
    ask = "is 255 used for manipulated? the plans use 0 (MASK-08)"
    if inverted:
        eg = ", ".join(f"{t} {m:.3f}" for t, m in inverted[:shown])
        out.append(
            f"{len(inverted)} system mask(s) score better inverted (MCC {INVERTED_MCC} or below at some "
            f"threshold; inverted optimum e.g. {eg}): {ask}"
        )
    if black:
        eg = ", ".join(f"{t} {b:.0%}" for t, b in black[:shown])
        out.append(
            f"{len(black)} system mask(s) are mostly black (over {MOSTLY_BLACK:.0%} of the scored pixels "
            f"are 0, e.g. {eg}): {ask}"
        )
    return out


def _mask_tally(run: Any, rows: Any) -> Tally:
    """Scored of target mask sides among ``rows`` (per-image rows of ``run``), unscored counted by reason."""
    positions = [int(i) for i in rows.index]
    counts: dict[str, int] = {}
    targets = scored = 0
    for side_codes in run.codes:
        for i in positions:
            targets += 1
            code = side_codes[i]
            if code is None:
                scored += 1
            else:
                counts[code] = counts.get(code, 0) + 1
    order = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return Tally(
        "targets" if len(run.codes) == 1 else "mask sides",
        targets,
        scored,
        tuple((run.descriptions.get(c, c), k) for c, k in order),
    )


def run_masks(inp: ScoringInput) -> list[Outcome]:
    """Mask scoring of every query (METRICS.md 2); one outcome per position."""
    import numpy as np
    import pandas as pd

    from .errors import ScoringError
    from .mask.run import default_jobs, score_masks

    n = inp.positions
    task: Any = MASK_TASKS[inp.task]  # "manipulation" or "splice"
    table = inp.table
    need = ("ProbeFileID", "OutputProbeMaskFileName") + (
        ("DonorFileID", "OutputDonorMaskFileName") if task == "splice" else ()
    )
    for col in need:
        if not table.has(col):
            return [NotScored(f"{inp.column_rule} failed: column {col} is absent")] * n
    opts = dict(inp.options)
    engine = {k: opts[k] for k in ("kernel", "eks", "dks", "ntdks", "sbin", "nspx", "pppns", "jpeg2000")}
    extra = {"dask": opts["dask"]} if opts.get("dask") else {}  # the engine's keyword (dask branch)
    kind = inp.kind
    queries = [q for q, _ in inp.queries]
    by_kind: dict[str, Any] = {}
    if kind == "q":
        by_kind["query"] = queries
    elif kind == "qm":
        by_kind["query_manipulation"] = queries
    elif kind == "qp":
        by_kind["query_partition"] = inp.query_partition
    try:
        report = score_masks(
            inp.index,
            inp.reference,
            table.df,
            task=task,
            sys_dir=inp.submission,
            ref_dir=inp.dataset_root,
            optout=inp.optout,
            convention=inp.convention,
            jobs=inp.jobs or default_jobs(),
            **engine,
            **by_kind,
            **extra,
            progress=inp.progress,
            rejected=inp.rejected() if inp.rejected is not None else None,
        )
    except ScoringError as exc:
        return [not_scored(exc)] * n
    inputs = set(table.df.columns) | set(pd.read_csv(inp.reference, sep="|", nrows=0).columns)
    found: dict[tuple[str | None, str], Outcome] = {}
    for run in report.runs:
        failure = _mask_failure(run.not_scored)
        hints = _polarity_notes(run.polarity)
        for r in run.results:
            rows = run.perimage
            if r.kind in ("q", "qp") and r.query is not None and len(rows):
                from .merge import select_query, typed_frame

                frame = typed_frame(rows.drop(columns=[c for c in rows.columns if c not in inputs]))
                hit = select_query(frame.assign(_row=np.arange(len(rows))), r.query, "q", ["_row"])
                rows = rows.iloc[hit["_row"].to_numpy()]
            tally = _mask_tally(run, rows)
            entry: dict[str, Any] = {
                "query": r.query,
                "query_kind": r.kind if r.kind != "all" else "all",
                "notes": [*report.notes, *hints],
                "reference_column": report.reference_column,
                "metrics": {k: _plain(v) for k, v in r.aggregate.items()},
                "stddev": {k: _plain(v) for k, v in r.stddev.items()},
                "per_probe": _per_probe(rows, inputs),
            }
            props: list[tuple[str, Any]] = []
            metrics: dict[str, Any] = entry["metrics"]
            for k, v in metrics.items():
                props.append(
                    (
                        k,
                        v
                        if isinstance(v, (str, int)) and not isinstance(v, bool)
                        else (math.nan if v is None else float(v)),
                    )
                )
            props.append(("count.not_scored", len(run.not_scored)))
            props += [("omfc.warning", h) for h in hints]
            found[(r.query, r.kind)] = ScoreResult(entry, props, failure, tally)
    out: list[Outcome] = []
    for query, qkind in inp.queries or ((None, "all"),):
        got = found.get((query, qkind))
        if got is None and qkind == "qp":
            got = NotScored(f"qp query {query!r}: no trial is selected (MediScore skips empty partitions)")
        out.append(got if got is not None else NotScored(f"{qkind} query {query!r}: no result", fail=True))
    return out


#: Summary columns (header, aggregate name); the Maximum/Actual ones only with ``--omfc-sbin``.
_MASK_COLUMNS = (
    ("MCC", "OptimumMCC"),
    ("NMM", "OptimumNMM"),
    ("BWL1", "OptimumBWL1"),
    ("GWL1", "GWL1"),
    ("AUC", "AUC"),
    ("F1", "OptimumF1"),
    ("IoU", "OptimumIoU"),
)
_MASK_SBIN_COLUMNS = (("MaxMCC", "MaximumMCC"), ("ActMCC", "ActualMCC"))


def _mask_metric_columns(opts: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    return _MASK_COLUMNS + (_MASK_SBIN_COLUMNS if opts.get("sbin") is not None else ())


def _mask_columns(opts: Mapping[str, Any]) -> list[str]:
    return ["trials", "scored", *(h for h, _ in _mask_metric_columns(opts))]


def _mask_row(entry: dict[str, Any], opts: Mapping[str, Any]) -> list[str]:
    """One result: Optimum metrics (splice: probe/donor)."""
    m = entry["metrics"]
    cols = _mask_metric_columns(opts)
    tally = entry.get("scored") or {}
    scored = f"{tally.get('scored')} of {tally.get('targets')}" if tally else str(m.get("ScoreableTrials"))
    if "pOptimumMCC" in m:
        return [str(m.get("totalTrials")), scored] + [f"{_fmt(m.get('p' + c))}/{_fmt(m.get('d' + c))}" for _, c in cols]
    return [str(m.get("totalTrials")), scored] + [_fmt(m.get(c)) for _, c in cols]


def _mask_settings(opts: Mapping[str, Any], common: Mapping[str, Any]) -> str:
    ntdks = opts.get("ntdks")
    ntdks_text = str(ntdks) if ntdks is not None else ("11" if common.get("convention") == "plan" else "15")
    sbin = "none" if opts.get("sbin") is None else str(opts["sbin"])
    nspx = "per probe" if opts.get("pppns") else str(opts.get("nspx"))
    return (
        f"kernel {opts.get('kernel')}, eks {opts.get('eks')}, dks {opts.get('dks')}, ntdks {ntdks_text} (0 for "
        "splice), "
        f"sbin {sbin}, nspx {nspx}, jpeg2000 {opts.get('jpeg2000')}"
    )


def _mask_header(opts: Mapping[str, Any], common: Mapping[str, Any]) -> str:
    where = f"; on the dask.distributed cluster {opts['dask']}" if opts.get("dask") else ""
    return f"omfc: scoring masks against {common['reference']} ({_mask_settings(opts, common)}{where})"


def _mask_footer(opts: Mapping[str, Any], common: Mapping[str, Any]) -> str:
    return f"omfc: masks: Optimum metrics; convention {common['convention']}, {_mask_settings(opts, common)}" + (
        ", opt-out" if common.get("optout") else ""
    )


def _mask_json_options(opts: Mapping[str, Any], common: Mapping[str, Any]) -> dict[str, Any]:
    return {"mask": {k: opts.get(k) for k in ("kernel", "eks", "dks", "ntdks", "sbin", "nspx", "pppns", "jpeg2000")}}


def _mask_finish(entries: list[dict[str, Any]], opts: Mapping[str, Any], title: str) -> tuple[list[str], list[str]]:
    """``--omfc-per-probe-csv``: the per-probe tables, pipe-separated (a Query column when several results)."""
    import pandas as pd

    path: Path | None = opts.get("per_probe_csv")
    if path is None:
        return [], []
    frames = []
    for e in entries:
        rows = pd.DataFrame(e.get("per_probe") or [])
        if len(entries) > 1:
            rows.insert(0, "Query", e.get("query") or "")
        frames.append(rows)
    table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        table.to_csv(path, sep="|", index=False)
    except (OSError, ValueError) as exc:
        return [], [f"--omfc-per-probe-csv: cannot write {path}: {exc}"]
    return [f"per-probe CSV: {path}"], []


#: The mask aggregate's numeric keys (mask/run.py): per-mask means, AUC averages and thresholds, bookkeeping;
#: splice prefixes the per-side ones with p (probe) and d (donor).  Written out, not imported from mask.run
#: (loaded only when masks are scored); tests/test_gates.py checks them against a mask run's keys.
_MASK_SIDE_METRICS = (
    "OptimumThreshold",
    "OptimumNMM",
    "OptimumMCC",
    "OptimumBWL1",
    "GWL1",
    "AUC",
    "EER",
    "MaximumNMM",
    "MaximumMCC",
    "MaximumBWL1",
    "ActualNMM",
    "ActualMCC",
    "ActualBWL1",
    "OptimumF1",
    "OptimumIoU",
    "MaximumF1",
    "MaximumIoU",
    "ActualF1",
    "ActualIoU",
    "PixelAverageAUC",
    "MaskAverageAUC",
    "MaximumThreshold",
    "ActualThreshold",
)
MASK_METRICS: tuple[str, ...] = (
    *_MASK_SIDE_METRICS,
    "TRR",
    "totalTrials",
    "totalOptIn",
    "totalOptOut",
    "ScoreableTrials",
    *(side + m for side in ("p", "d") for m in _MASK_SIDE_METRICS),
    "ScoreableProbeTrials",
    "ScoreableDonorTrials",
)

MASK = register(
    Scorer(
        name="mask",
        title="mask",
        tasks=MASK_TASKS,
        run=run_masks,
        switch_columns=MASK_REFERENCE_COLUMNS,
        options=MASK_OPTIONS,
        header=_mask_header,
        columns=_mask_columns,
        row=_mask_row,
        footer=_mask_footer,
        json_options=_mask_json_options,
        finish=_mask_finish,
        null_keys=("metrics", "stddev", "per_probe"),
        metrics=MASK_METRICS,
        progress_unit="masks",
    )
)


# ==================================================================================== provenance

from . import scorers_provenance as _provenance  # noqa: E402, F401  (registers the provenance scorer, after mask)
