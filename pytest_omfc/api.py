"""``omfc_score()``: the scorers as a plain function, for notebooks and scripts (no pytest needed).

It computes what ``pytest --omfc-submission SUB --omfc-index INDEX
--omfc-reference REF`` computes in its score items, and returns the same typed
:class:`~pytest_omfc.scoring.results.Scores` as the ``omfc`` fixture::

    from pytest_omfc import omfc_score
    scores = omfc_score(submission="sub/", index="indexes/X-IMDL-index.csv", reference="reference/X-IMDL-ref.csv",
                        query=["Collection=='A'"], optout=True)
    scores.detection["q1"].AUC

Options are the scoring options by their ini names, with or without the
``omfc_`` prefix (``far_stop=0.05``, ``omfc_optout=True``, ``convention="plan"``,
``query=[...]``), or the scorer's own key (``eks=15``); bounds are those of the
command line (a bad value is a :class:`ValueError`, an unknown name a
:class:`TypeError`, both naming the valid ones).  The rules are not run: a
submission that cannot be read gives not-scored results naming the rule, as
the score items skip.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .editions import (
    Task,
)
from .errors import ScoringError
from .inputs import InputError, Values, is_archive, reference_path, resolve_settings, unpack_upload
from .options import OUTPUT_PATHS, SCORING_OPTIONS, exclusive_queries
from .runner import run_scorer
from .scoring.families import option
from .scoring.merge import partition_query
from .scoring.registry import (
    SCORERS,
    Scorer,
    reference_columns,
    scorers_for,
)
from .scoring.results import Scores, build_scores
from .submission import Settings, Submission

if TYPE_CHECKING:
    from .archive import ArchiveReport
    from .models.findings import FindingsDocument
    from .submission import CheckSettings

__all__ = ["COMMON_KEYS", "omfc_score", "reference_columns", "scorer_options"]

#: The scoring set-up shared by every scorer (:data:`pytest_omfc.options.SCORING_OPTIONS`), as ``omfc_score``
#: keywords: the reference is an argument of its own; output paths, gates and the baseline belong to a pytest run
#: (omfc_compare() compares two runs).
COMMON_KEYS = tuple(
    o.key for o in SCORING_OPTIONS if o.ini not in ("omfc_reference", "omfc_require", "omfc_baseline", *OUTPUT_PATHS)
)


def _common(options: dict[str, Any]) -> dict[str, Any]:
    """The shared options taken out of ``options`` (by key or ini name), parsed with their declarations."""
    out: dict[str, Any] = {}
    for key in COMMON_KEYS:
        opt = option(f"omfc_{key}")
        value = options.pop(key, options.pop(opt.ini, None))
        try:
            out[key] = opt.value(value)
        except ValueError as exc:
            raise ValueError(f"{key}: {exc}") from None
    return out


def _jobs(jobs: Any) -> int:
    """``jobs`` bounded as ``--omfc-jobs`` (a bool is not a number of processes)."""
    opt = option("omfc_jobs")
    try:
        if isinstance(jobs, bool):
            raise ValueError(f"must be an integer from 0 to 64 (got {jobs!r})")
        return int(opt.parse(jobs))
    except ValueError as exc:
        raise ValueError(f"jobs: {exc}") from None


def _lookup() -> dict[str, tuple[Scorer, Any]]:
    """Every accepted keyword of a scorer option -> (scorer, option): key, ini name, ini name without ``omfc_``."""
    out: dict[str, tuple[Scorer, Any]] = {}
    for scorer in SCORERS.values():
        for opt in scorer.options:
            for name in (opt.key, opt.ini, opt.ini.removeprefix("omfc_")):
                out.setdefault(name, (scorer, opt))
    return out


def valid_keywords() -> list[str]:
    """The option keywords ``omfc_score`` accepts (without the ``omfc_`` spellings)."""
    names = [*COMMON_KEYS, "jobs", "dataset", "edition", "task", *INPUT_KEYS]
    for scorer in SCORERS.values():
        names += [n for opt in scorer.options if (n := opt.ini.removeprefix("omfc_")) not in names]
    return names


def scorer_options(options: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Per scorer, its options parsed and bounded (defaults filled in); TypeError/ValueError name the option."""
    lookup = _lookup()
    out = {name: {opt.key: opt.default for opt in s.options} for name, s in SCORERS.items()}
    for given, value in options.items():
        if given not in lookup:
            raise TypeError(f"omfc_score() got an unknown option {given!r}; valid: {', '.join(valid_keywords())}")
        _, opt = lookup[given]
        if value is None:
            continue
        try:
            parsed = opt.parse(value)
        except ValueError as exc:
            raise ValueError(f"{opt.ini.removeprefix('omfc_')}: {exc}") from None
        for name, s in SCORERS.items():  # a shared option (--omfc-dask) reaches every scorer that has it
            if any(o is opt for o in s.options):
                out[name][opt.key] = parsed
    return out


def _as_list(value: Any) -> list[str]:
    if value is None or value is False:
        return []
    return [value] if isinstance(value, str) else [str(v) for v in value]


def _queries(query: Any, query_manipulation: Any, query_partition: Any) -> tuple[list[tuple[str, str]], str | None]:
    """(query, kind) in order, and the error of a partition query that cannot be expanded (as the plugin's)."""
    q, qm = _as_list(query), _as_list(query_manipulation)
    given = [n for n, v in (("query", q), ("query_manipulation", qm), ("query_partition", query_partition)) if v]
    if (why := exclusive_queries(given)) is not None:
        raise ValueError(why)
    queries = [(x, "q") for x in q] + [(x, "qm") for x in qm]
    if query_partition:
        try:
            return [(part, "qp") for part in partition_query(str(query_partition))], None
        except ScoringError as exc:
            return [(str(query_partition), "qp")], str(exc)
    return queries, None


def _checked(validated: FindingsDocument | None, settings: Settings) -> Submission | None:
    """The submission ``omfc_validate`` parsed, when ``validated`` checked this folder against this index as
    this edition and task (its tables and the rules' verdicts on its files are reused); else None."""
    sub = getattr(validated, "_checked", None) if validated is not None else None
    if not isinstance(sub, Submission) or not isinstance(sub.settings, Settings):
        return None
    theirs, ours = sub.settings, settings
    same = (theirs.submission, theirs.index, theirs.edition, theirs.task) == (
        ours.submission, ours.index, ours.edition, ours.task
    )  # fmt: skip
    return sub if same else None


def omfc_score(
    *,
    submission: str | Path,
    reference: str | Path,
    index: str | Path | None = None,
    dataset: str | Path | None = None,
    edition: str | None = None,
    task: str | None = None,
    jobs: int = 0,
    validated: FindingsDocument | None = None,
    **options: Any,
) -> Scores:
    """Score a submission against a reference: every scorer the task and reference allow (or ``score=NAME``).

    ``submission`` is what ``--omfc-submission`` takes (a folder, its system output, or an archive as uploaded,
    unpacked into a private directory removed before the call returns), resolved by the same code
    (:mod:`pytest_omfc.inputs`); ``dataset`` with ``task`` finds the index as ``--omfc-dataset`` does.
    ``reference`` relative paths are taken from the dataset root (``dataset``,
    else the index's ``indexes/`` parent, else the index's directory), as
    ``--omfc-reference`` does.  Raises :class:`FileNotFoundError` for a missing
    input, :class:`TypeError` for an unknown option and :class:`ValueError` for
    a bad value; bad *content* never raises (results are not scored, with the reason).
    ForgeryNet (``edition="ForgeryNet"``, ``task=...``, ``classes=2|3|16|9``) takes no index:
    the reference lists the IDs, and a relative reference is taken from ``dataset`` or the
    current directory, as on the command line.  ``validated``: what :func:`pytest_omfc.omfc_validate`
    returned for the same folder and index; its parsed tables and the rules' verdicts on the files (which
    masks and JSONs the scorers leave out) are reused instead of read again.
    """
    forgerynet = edition is not None and str(edition).strip().lower() == "forgerynet"
    if forgerynet and index is not None:
        raise ValueError("index: ForgeryNet takes no index (the reference lists the IDs)")
    if not forgerynet and index is None and dataset is None:
        raise TypeError("omfc_score() needs index=... (the task index file) for the NIST editions")
    jobs = _jobs(jobs)
    inputs = {key: options.pop(key, options.pop(f"omfc_{key}", None)) for key in INPUT_KEYS}
    common = _common(options)
    per_scorer = scorer_options(options)
    given = Values(
        {f"omfc_{k}": v for k, v in inputs.items()}
        | {
            "omfc_submission": submission,
            "omfc_index": index,
            "omfc_dataset": dataset,
            "omfc_edition": edition,
            "omfc_task": task,
            "omfc_jobs": jobs,
            "omfc_reference": reference,
        }
    )
    with ExitStack() as cleanups:
        try:
            settings = resolve_settings(given, lambda sub: _unpacked(sub, given, cleanups))
            assert settings is not None
            ref = reference_path(given, settings.dataset_root, maps=settings.task is Task.FSL)
        except InputError as exc:
            raise exc.for_api() from None
        assert ref is not None
        return _scores(settings, ref, common, per_scorer, validated)


#: Options of the inputs (not of a scorer) that ``omfc_score`` accepts by keyword, as the command line does.
INPUT_KEYS = (
    "classes",
    "spatial_maps",
    "map_pixels",
    "time_unit",
    "fps",
    "video_info",
    "allow_touching_segments",
    "ignore_overlap",
    "archive_max_entries",
    "archive_max_bytes",
    "archive_max_ratio",
)


def _unpacked(sub: Path, given: Values, cleanups: ExitStack) -> ArchiveReport | None:
    """An uploaded archive, unpacked into a private directory removed when the call returns."""
    return unpack_upload(sub, given, lambda fn: cleanups.callback(fn)) if is_archive(sub) else None


def _scores(
    settings: CheckSettings,
    ref: Path,
    common: dict[str, Any],
    per_scorer: dict[str, dict[str, Any]],
    validated: FindingsDocument | None,
) -> Scores:
    """Every scorer the task and reference allow (or ``score=NAME``), on the resolved submission."""
    if settings.is_package:
        raise ValueError(
            f"submission: {settings.submission.name} is an NC2017 package: score one EXPID folder of it at a time"
        )
    if isinstance(settings, Settings):
        sub: Any = _checked(validated, settings) or Submission(settings)
        queries, query_error = _queries(common["query"], common["query_manipulation"], common["query_partition"])
        columns: tuple[str, ...] | None = reference_columns(ref)
    else:
        from .forgerynet.submission import ForgeryNetSettings, ForgeryNetSubmission

        assert isinstance(settings, ForgeryNetSettings)

        if any(common[k] for k in ("query", "query_manipulation", "query_partition")):
            raise ValueError("ForgeryNet scoring takes no query (queries select NIST index rows)")
        sub, queries, query_error, columns = ForgeryNetSubmission(settings), [], None, None
    only = common["score"]
    selected = None if only in (None, "all") or columns is None else (str(only),)
    outcomes = {
        s.name: run_scorer(
            sub,
            s,
            reference=ref,
            queries=queries,
            query_partition=(common["query_partition"] or None) if columns is not None else None,
            optout=common["optout"] if columns is not None else False,
            convention=common["convention"],
            options=per_scorer[s.name],
            query_error=query_error,
        )
        for s in scorers_for(settings.task, columns, selected)
    }
    return build_scores(outcomes, queries)
