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
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .editions import (
    FORGERYNET_CLASSES,
    FORGERYNET_TASKS,
    EditionTaskError,
    Task,
    infer_from_index_name,
    parse_edition,
    parse_task,
)
from .errors import ScoringError
from .options import OUTPUT_PATHS, SCORING_OPTIONS, exclusive_queries
from .paths import not_regular
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
    from .models.findings import FindingsDocument

__all__ = ["COMMON_KEYS", "omfc_score", "reference_columns", "scorer_options"]

#: The scoring set-up shared by every scorer (:data:`pytest_omfc.options.SCORING_OPTIONS`), as ``omfc_score``
#: keywords: the reference is an argument of its own; output paths and gates belong to a pytest run.
COMMON_KEYS = tuple(o.key for o in SCORING_OPTIONS if o.ini not in ("omfc_reference", "omfc_require", *OUTPUT_PATHS))


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
    names = [*COMMON_KEYS, "jobs", "dataset", "edition", "task"]
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


def _forgerynet_score(
    submission: str | Path,
    reference: str | Path,
    dataset: str | Path | None,
    task: str | None,
    jobs: int,
    options: dict[str, Any],
) -> Scores:
    """:func:`omfc_score` for the ForgeryNet tasks: the parsed submission checks and scores itself."""
    from .forgerynet.submission import ForgeryNetSubmission, forgerynet_settings

    sub_path = Path(submission).expanduser().resolve()
    if not sub_path.exists():
        raise FileNotFoundError(f"submission: no such file or directory: {sub_path}")
    root = Path(dataset).expanduser().resolve() if dataset is not None else None
    ref = Path(reference).expanduser()
    ref = (ref if ref.is_absolute() else (root or Path.cwd()) / ref).resolve()
    try:
        tk = parse_task(task) if task else None
    except EditionTaskError as exc:
        raise ValueError(str(exc)) from None
    if not (ref.is_file() or (tk is Task.FSL and ref.is_dir())):  # spatial: also the maps folder alone
        raise FileNotFoundError(f"reference: no such file{' or maps folder' if tk is Task.FSL else ''}: {ref}")
    if tk not in FORGERYNET_TASKS:
        raise ValueError(
            f"task: must be one of {', '.join(sorted(t.value for t in FORGERYNET_TASKS))} for ForgeryNet (got {task!r})"
        )
    classes = options.pop("classes", options.pop("omfc_classes", 2))
    allowed = FORGERYNET_CLASSES.get(tk, (2,))
    if classes not in allowed:
        raise ValueError(f"classes: must be one of {', '.join(map(str, allowed))} for {tk.value} (got {classes!r})")
    jobs = _jobs(jobs)
    common = _common(options)
    if any(common[k] for k in ("query", "query_manipulation", "query_partition")):
        raise ValueError("ForgeryNet scoring takes no query (queries select NIST index rows)")
    convention = common["convention"]
    per_scorer = scorer_options(options)
    sub = ForgeryNetSubmission(forgerynet_settings(sub_path, ref, tk, classes, root, jobs=jobs))
    outcomes = {
        s.name: run_scorer(
            sub,
            s,
            reference=ref,
            queries=(),
            query_partition=None,
            optout=False,
            convention=convention,
            options=per_scorer[s.name],
        )
        for s in scorers_for(tk, None)
    }
    return build_scores(outcomes, ())


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


def _submission_csv(path: Path) -> tuple[Path, Path | None]:
    """(submission directory, system output): ``<ID>/<ID>.csv``, else the only ``*.csv`` of the directory."""
    if path.is_file():
        return path.parent, path
    exact = path / f"{path.name}.csv"
    if not_regular(exact) is None:  # never raises (a name past the file system's limit)
        return path, exact
    found = sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() == ".csv") if path.is_dir() else []
    return path, (found[0] if len(found) == 1 else None)


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
    if edition is not None and edition.strip().lower() == "forgerynet":
        if index is not None:
            raise ValueError("index: ForgeryNet takes no index (the reference lists the IDs)")
        return _forgerynet_score(submission, reference, dataset, task, jobs, options)
    if index is None:
        raise TypeError("omfc_score() needs index=... (the task index file) for the NIST editions")
    sub_path = Path(submission).expanduser().resolve()
    idx = Path(index).expanduser().resolve()
    if not sub_path.exists():
        raise FileNotFoundError(f"submission: no such file or directory: {sub_path}")
    if not idx.is_file():
        raise FileNotFoundError(f"index: no such file: {idx}")
    root = (
        Path(dataset).expanduser().resolve()
        if dataset is not None
        else (idx.parent.parent if idx.parent.name == "indexes" else idx.parent)
    )
    ref = Path(reference).expanduser()
    if not ref.is_absolute():
        ref = next((c for c in (root / ref, Path.cwd() / ref) if c.is_file()), root / ref)
    ref = ref.resolve()
    if not ref.is_file():
        raise FileNotFoundError(f"reference: no such file: {ref} (a relative path is taken from the dataset root)")
    try:
        inferred_edition, inferred_task = infer_from_index_name(idx)
        ed = parse_edition(edition) if edition else inferred_edition
        tk = parse_task(task) if task else inferred_task
    except EditionTaskError as exc:
        raise ValueError(str(exc)) from None
    if ed is None or tk is None:
        raise ValueError(
            f"cannot infer the {'edition' if ed is None else 'task'} from {idx.name}; pass edition=... and task=..."
        )
    jobs = _jobs(jobs)

    common = _common(options)
    per_scorer = scorer_options(options)
    convention = common["convention"]
    only = common["score"]
    queries, query_error = _queries(common["query"], common["query_manipulation"], common["query_partition"])

    sub_dir, csv = _submission_csv(sub_path)
    settings = Settings(submission=sub_dir, csv=csv, index=idx, edition=ed, task=tk, dataset_root=root, jobs=jobs)
    sub = _checked(validated, settings) or Submission(settings)
    selected = None if only in (None, "all") else (str(only),)
    outcomes = {
        s.name: run_scorer(
            sub,
            s,
            reference=ref,
            queries=queries,
            query_partition=common["query_partition"] or None,
            optout=common["optout"],
            convention=convention,
            options=per_scorer[s.name],
            query_error=query_error,
        )
        for s in scorers_for(tk, reference_columns(ref), selected)
    }
    return build_scores(outcomes, queries)
