"""Scoring as test items: ``--omfc-reference`` turns it on; one generic collector for every scorer.

Every scorer of :data:`pytest_omfc.scoring.registry.SCORERS` that applies to
the task and reference (and to ``--omfc-score``) gets one :class:`ScoreItem`
per result table: one when no query is given, else one per
``--omfc-query``/``--omfc-query-manipulation`` or per partition of
``--omfc-query-partition``; named ``<sub>::score::<scorer>[q1]``.  Each
scorer runs once per process (:func:`outcomes_for`); each item picks its
result, records its ``user_properties`` (builtin types, so they reach JUnit
``<properties>`` and survive xdist) and hands its metrics-JSON entry to the
controller on its report.  The controller (or the only process) writes
``--omfc-metrics-json`` and the scorers' extra outputs (plots) once, and
prints one summary table per scorer.

Scoring depends only on what its numbers depend on: a parseable system output
with the columns the scorer reads, the index and the reference.  Naming,
description, mask... rules may fail; the scores are still computed.

Outcome of an item (documented in docs/scoring/index.md):

* passed: the result was computed;
* skipped: the submission cannot be scored (the rule that makes it unscorable is
  named, e.g. CSV-01, COL-02, SCORE-01), or the metric is undefined for the
  selected trials (no target or no non-target trial);
* failed: the scoring set-up given on the command line is wrong (a query that
  does not parse or names an unknown column, a reference or journal table that
  is unreadable, lacks a column or does not match the index), or the engine
  itself broke.  These are the user's to fix, so they must not pass silently.

The plugin imports this module at load time: it imports the scorer registry
and the family adapters (light: option declarations), never an engine, numpy
or pandas at module level.
"""

from __future__ import annotations

import glob
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pytest

from ..editions import Task
from ..options import OUTPUT_PATHS, SCORING_OPTIONS, exclusive_queries
from ..outputs import Guarded, why_not_folder, why_not_writable, write_atomic
from ..paths import resolve_input
from ..report.views import summary_rows, view_for
from ..scoring import families as _families  # noqa: F401  (registers every scorer, in order)
from ..scoring.registry import (
    SCORERS,
    NotScored,
    Outcome,
    Scorer,
    reference_columns,
    scorers_for,
)
from .compat import TerminalRepr, failure_repr
from .progress import progress_for
from .state import OMFC_MARK, SETTINGS_KEY, ConfigOptions, given, index_task, resolved, submission_for

if TYPE_CHECKING:
    from ..submission import CheckSettings, Settings

__all__ = [
    "NotScored",
    "ScoreItem",
    "ScoringSettings",
    "configure",
    "outcomes_for",
    "score_items",
]

SCORING_KEY = pytest.StashKey["ScoringSettings | None"]()

#: The output paths of scoring (the HTML report's is the report's own).
SCORING_OUTPUTS = tuple(name for name in OUTPUT_PATHS if name not in ("omfc_html", "omfc_findings_json"))
OUTCOMES_KEY = pytest.StashKey["dict[tuple[Path, str], list[Outcome]]"]()
#: An NC2017 package: each EXPID's scoring (None: no reference fits its task).
MEMBERS_KEY = pytest.StashKey["dict[Path, ScoringSettings | None]"]()


@dataclass(frozen=True)
class ScoringSettings:
    """Scoring options as plain data (every xdist worker rebuilds the same from the command line)."""

    reference: Path
    metrics_json: Path | None
    plots: Path | None
    optout: bool
    queries: tuple[tuple[str, str], ...]  # (query, kind) in the order given
    convention: str
    query_partition: str | None
    query_error: str | None = None  # a -qp that cannot be expanded: its items fail with this
    scorers: tuple[str, ...] = ()  # the scorers that run, in registry order
    scorer_options: tuple[tuple[str, tuple[tuple[str, Any], ...]], ...] = ()
    reference_columns: tuple[str, ...] = ()
    extra: tuple[tuple[str, Any], ...] = ()  # further common settings (paths of other outputs, ...)
    baseline: Path | None = None  # --omfc-baseline: an earlier run's metrics JSON to compare with

    @property
    def positions(self) -> int:
        return max(1, len(self.queries))

    def options_for(self, name: str) -> dict[str, Any]:
        return dict(dict(self.scorer_options).get(name, ()))

    def common(self) -> dict[str, Any]:
        """The settings every scorer's header/footer/JSON may quote."""
        return {
            "reference": self.reference,
            "convention": self.convention,
            "optout": self.optout,
            "plots": self.plots,
            "metrics_json": self.metrics_json,
            **dict(self.extra),
        }

    def as_dict(self) -> dict[str, Any]:
        """The metrics JSON ``options``: each running scorer's options, then the common ones."""
        out: dict[str, Any] = {}
        common = self.common()
        for name in self.scorers or tuple(SCORERS)[:1]:
            out.update(view_for(name, SCORERS[name].metrics).json_options(self.options_for(name), common))
        out.update(
            {
                "optout": self.optout,
                "convention": self.convention,
                "query_kind": self.queries[0][1] if self.queries else "all",
                "queries": [q for q, _ in self.queries],
                "query_partition": self.query_partition,
            }
        )
        return out


def _as_path(value: Any, base: Path) -> Path | None:
    if value is None:
        return None
    p = Path(str(value)).expanduser()
    return (p if p.is_absolute() else base / p).resolve()


def _scorer_options(
    config: pytest.Config, scorer: Scorer, usage_error: type[Exception], dataset_root: Path | None = None
) -> tuple[tuple[str, Any], ...]:
    """A scorer's options, parsed and bounded; a bad value is a usage error naming the flag.

    Input path options (``metavar`` PATH: journal, node and world tables) are made absolute here, once,
    by :func:`pytest_omfc.paths.resolve_input` (the dataset root, then the invocation or ini directory),
    so no scorer resolves a relative path against its own working directory."""
    out: list[tuple[str, Any]] = []
    for opt in scorer.options:
        raw, base = given(config, opt.ini)
        try:
            parsed = opt.value(raw)
        except ValueError as exc:
            raise usage_error(f"{opt.flag}: {exc}") from None
        if opt.reads_file and raw is not None and isinstance(parsed, (str, Path)):
            parsed = type(parsed)(resolve_input(parsed, base, dataset_root))
        out.append((opt.key, parsed))
    return tuple(out)


def configure(config: pytest.Config, dataset_root: Path | None, usage_error: type[Exception]) -> ScoringSettings | None:
    """Read the scoring options; None when no reference is given (nothing changes then)."""
    if given(config, "omfc_reference")[0] is None:
        asked = [o.flag for o in SCORING_OPTIONS if o.ini in SCORING_OUTPUTS and given(config, o.ini)[0] is not None]
        if asked:  # never silently nothing: these outputs hold scores, and nothing is scored without a reference
            raise usage_error(
                f"{asked[0]}: needs --omfc-reference PATH (it holds the scores, and nothing is scored without a "
                "reference; a check's verdict is its exit code, --junitxml and --omfc-html)"
            )
        config.stash[SCORING_KEY] = None
        return None
    from ..inputs import InputError, reference_path

    sub = config.stash.get(SETTINGS_KEY, None)
    package = sub is not None and sub.is_package
    maps = sub is not None and sub.task is Task.FSL  # ForgeryNet spatial: also the maps folder alone
    try:
        ref = reference_path(ConfigOptions(config), dataset_root, package=package, maps=maps)
    except InputError as exc:
        raise usage_error(str(exc)) from None
    assert ref is not None

    q, _ = given(config, "omfc_query")
    qm, _ = given(config, "omfc_query_manipulation")
    qp, _ = given(config, "omfc_query_partition")
    several = [
        flag
        for flag, v in (("--omfc-query", q), ("--omfc-query-manipulation", qm), ("--omfc-query-partition", qp))
        if v
    ]
    if (why := exclusive_queries(several)) is not None:
        raise usage_error(why)
    queries = [(str(x), "q") for x in (q or [])] + [(str(x), "qm") for x in (qm or [])]
    query_error = None
    if qp:
        from ..errors import ScoringError
        from ..scoring.merge import partition_query

        try:
            queries += [(part, "qp") for part in partition_query(str(qp))]
        except ScoringError as exc:  # fails its item (a query the user must fix), never INTERNALERROR
            queries, query_error = [(str(qp), "qp")], str(exc)
    convention = resolved(config, "omfc_convention")
    only = resolved(config, "omfc_score")
    selected = None if only in (None, "all") else (str(only),)
    columns = reference_columns(ref) if ref.is_file() else ()
    running = tuple(s.name for s in scorers_for(sub.task, columns, selected)) if sub and not package else ()
    paths = {name: _as_path(*given(config, name)) for name in SCORING_OUTPUTS}
    settings = ScoringSettings(
        reference=ref,
        metrics_json=paths["omfc_metrics_json"],
        plots=paths["omfc_plots"],
        optout=resolved(config, "omfc_optout"),
        queries=tuple(queries),
        convention=convention,
        query_partition=str(qp) if qp else None,
        query_error=query_error,
        scorers=running,
        scorer_options=tuple((s.name, _scorer_options(config, s, usage_error, dataset_root)) for s in SCORERS.values()),
        reference_columns=columns,
        extra=(("per_probe_csv", paths["omfc_per_probe_csv"]),),
        baseline=_baseline(config, dataset_root, ref, sub, usage_error),
    )
    config.stash[SCORING_KEY] = settings
    if sub is not None and sub.is_package:
        members: tuple[Settings, ...] = getattr(sub, "members")  # noqa: B009  (PackageSettings: not imported here)
        config.stash[MEMBERS_KEY] = {m.submission: _member_scoring(settings, m, selected) for m in members}
    _guard_outputs(config, settings, dataset_root, usage_error)
    config.pluginmanager.register(ScoringReporter(config, settings, only=selected), "omfc-scoring-reporter")
    return settings


BASELINE_KEY = pytest.StashKey[dict[str, Any]]()


def _baseline(
    config: pytest.Config,
    dataset_root: Path | None,
    reference: Path,
    sub: CheckSettings | None,
    usage_error: type[Exception],
) -> Path | None:
    """``--omfc-baseline``: the earlier run's metrics JSON, read once by the process that reports (the xdist
    controller) and refused before anything runs when it cannot be compared: not a metrics JSON, another
    edition, or another reference (by SHA-256).  A submission (a folder or an upload) instead is a second
    system scored in this run against the same reference (:func:`baseline_document`)."""
    raw, base = given(config, "omfc_baseline")
    if raw is None:
        return None
    from ..comparison import ComparisonError, load_baseline, reference_sha256
    from ..inputs import is_archive

    path = resolve_input(str(raw), base, dataset_root).resolve()
    if sub is not None and sub.is_package:
        raise usage_error("--omfc-baseline: compares one submission's run; give one EXPID folder of the package")
    if path.is_dir() or is_archive(path):
        if not hasattr(config, "workerinput"):
            _baseline_submission(config, path, usage_error)  # its inputs are checked before anything runs
        return path
    if hasattr(config, "workerinput"):
        return path
    try:
        doc = load_baseline(path)
        edition = sub.edition.value if sub is not None else doc.get("edition")
        if doc.get("edition") != edition:
            raise ComparisonError(f"{path} is of edition {doc.get('edition')!r}, this run of {edition!r}")
        theirs, ours = reference_sha256(doc), _sha256(config, reference)
        if theirs is None:
            raise ComparisonError(f"{path}: carries no SHA-256 of its reference (written by an older version?)")
        if theirs != ours:
            raise ComparisonError(
                f"{path} was scored against another reference (SHA-256 {theirs[:12]}..., "
                f"{reference.name} has {str(ours)[:12]}...)"
            )
    except ComparisonError as exc:
        raise usage_error(f"--omfc-baseline: {exc}") from None
    config.stash[BASELINE_KEY] = doc
    return path


BASELINE_SUB_KEY = pytest.StashKey["CheckSettings"]()


def _baseline_submission(config: pytest.Config, path: Path, usage_error: type[Exception]) -> CheckSettings:
    """The settings of a baseline submission: resolved as ``--omfc-submission`` is (an upload unpacked into a
    private directory removed with the run), with this run's index, edition, task and options."""
    got = config.stash.get(BASELINE_SUB_KEY, None)
    if got is not None:
        return got
    from ..inputs import InputError, is_archive, resolve_settings, unpack_upload

    options = ConfigOptions(config)

    class _Baseline:
        def raw(self, ini: str) -> tuple[Any, Path]:
            return (path, path.parent) if ini == "omfc_submission" else options.raw(ini)

    given_ = _Baseline()
    try:
        settings = resolve_settings(
            given_, lambda p: unpack_upload(p, given_, config.add_cleanup) if is_archive(p) else None
        )
    except InputError as exc:
        raise usage_error(f"--omfc-baseline: {exc.said()}") from None
    if settings is None or settings.is_package:
        raise usage_error(f"--omfc-baseline: {path} is an NC2017 package; give one EXPID folder of it")
    config.stash[BASELINE_SUB_KEY] = settings
    return settings


def baseline_document(config: pytest.Config) -> dict[str, Any] | None:
    """What ``--omfc-baseline`` names as a metrics JSON document: the file's (read once per process), or, for a
    submission, the results of scoring it here with this run's scorers, reference and options (once per
    process)."""
    doc = config.stash.get(BASELINE_KEY, None)
    if doc is not None:
        return doc
    settings = config.stash.get(SCORING_KEY, None)
    if settings is None or settings.baseline is None:
        return None
    from ..comparison import load_baseline
    from ..inputs import is_archive

    path = settings.baseline
    if not (path.is_dir() or is_archive(path)):
        doc = config.stash[BASELINE_KEY] = load_baseline(path)  # a worker: the controller checked it
        return doc
    base = _baseline_submission(config, path, pytest.UsageError)
    results: list[dict[str, Any]] = []
    for name in settings.scorers:
        for outcome in _score(config, settings, SCORERS[name], base):
            if isinstance(outcome, NotScored):
                continue
            entries = outcome.entry.get("entries")
            entries = entries if isinstance(entries, list) else [outcome.entry]
            results += [{"scorer": name, **e} for e in entries]
    doc = config.stash[BASELINE_KEY] = run_document(config, results, base.submission.name)
    return doc


def labels_of(config: pytest.Config, folder: Path) -> tuple[str, str, str]:
    """Submission name, edition and the human TaskID (as the index names it, e.g. IMDL or manipulation) of the
    run's submission or one of its EXPIDs: what a metrics JSON calls them."""
    run = config.stash[SETTINGS_KEY]
    assert run is not None
    members: tuple[CheckSettings, ...] = getattr(run, "members", ())
    sub = next((m for m in members if m.submission == folder), run)
    task = config.getoption("omfc_task") or None
    if task is None or sub is not run:
        first = next((s.tasks[sub.task] for s in SCORERS.values() if sub.task in s.tasks), sub.task.value)
        task = index_task(sub) or first
    return sub.submission.name, sub.edition.value, str(task)


def run_document(config: pytest.Config, results: list[dict[str, Any]], submission: str) -> dict[str, Any]:
    """The part of a metrics JSON a comparison reads, for results scored in this process (this run's, a
    baseline submission's): edition, task, reference and its SHA-256 (hashed once per process), options."""
    settings = config.stash[SCORING_KEY]
    run = config.stash[SETTINGS_KEY]
    assert settings is not None and run is not None
    _, edition, task = labels_of(config, run.submission)
    return {
        "edition": edition,
        "task": task,
        "submission": submission,
        "reference": str(settings.reference),
        "options": settings.as_dict(),
        "results": results,
        "run": {"inputs": [{"path": str(settings.reference), "sha256": _sha256(config, settings.reference)}]},
    }


_COMPARED_KEY = pytest.StashKey[dict[tuple[Any, ...], "dict[str, Any] | None"]]()


def compared_result(config: pytest.Config, entry: dict[str, Any]) -> dict[str, Any] | None:
    """``entry`` (a result of this run) compared with ``--omfc-baseline``'s result of the same scorer and query
    (:func:`pytest_omfc.comparison.compare_result`, at the run's level, draws and seed); once per process, shared
    by the gates, the metrics JSON and the HTML report.  None: no baseline, or nothing to compare."""
    from ..comparison import compare_result, result_key

    cache = config.stash.setdefault(_COMPARED_KEY, {})
    key = result_key(entry)
    if key not in cache:
        settings = config.stash[SCORING_KEY]
        baseline = baseline_document(config)
        if settings is None or baseline is None:
            return None
        det = settings.options_for("detection")
        cache[key] = compare_result(
            entry,
            baseline,
            SCORERS,
            settings.as_dict(),
            level=float(det.get("ci_level", 0.9)),
            draws=int(det.get("ci_iterations", 500)),
            seed=int(det.get("seed", 77)),
        )
    return cache[key]


def _member_scoring(
    base: ScoringSettings, member: Settings, selected: tuple[str, ...] | None
) -> ScoringSettings | None:
    """An NC2017 package's EXPID scored: against the reference of its task (a reference file whose name
    gives another task is not its; a directory is searched for ``[<task>/]<DataSet>-<task>-ref.csv``), its
    plots in ``<plots>/<EXPID>/`` and its per-probe CSV ``<stem>-<EXPID>.csv``.  None: no reference."""
    from ..inputs import reference_for

    ref = reference_for(base.reference, member.task)
    if ref is None:
        return None
    columns = reference_columns(ref)
    expid = member.submission.name
    extra = dict(base.extra)
    csv = extra.get("per_probe_csv")
    if csv is not None:
        extra["per_probe_csv"] = csv.with_name(f"{csv.stem}-{expid}{csv.suffix}")
    return replace(
        base,
        reference=ref,
        plots=base.plots / expid if base.plots is not None else None,
        scorers=tuple(s.name for s in scorers_for(member.task, columns, selected)),
        reference_columns=columns,
        extra=tuple(extra.items()),
    )


def scoring_of(config: pytest.Config, settings: CheckSettings | None = None) -> ScoringSettings | None:
    """The scoring of ``settings`` (default: the run's submission); an NC2017 package's EXPIDs each have
    their own (None when no reference fits its task)."""
    members = config.stash.get(MEMBERS_KEY, None)
    if members is not None and settings is not None and settings.submission in members:
        return members[settings.submission]
    return config.stash.get(SCORING_KEY, None)


def every_scoring(config: pytest.Config) -> list[tuple[str, Path, ScoringSettings]]:
    """(label, submission folder, scoring) of what is scored: the submission, or each scored EXPID."""
    members = config.stash.get(MEMBERS_KEY, None)
    if members is not None:
        return [(path.name, path, sc) for path, sc in members.items() if sc is not None]
    settings = config.stash.get(SCORING_KEY, None)
    sub = config.stash.get(SETTINGS_KEY, None)
    if settings is None or sub is None:
        return []
    return [("", sub.submission, settings)]


STAMP_KEY = pytest.StashKey["dict[str, Any]"]()


def run_stamp(config: pytest.Config) -> dict[str, Any]:
    """What produced this run's reports (:func:`pytest_omfc.stamp.stamp`), computed once per process: the
    command as the user typed it (the ``pytest-omfc`` command's own, which runs pytest in a private
    directory, else pytest's), every plugin option given, and the fingerprints of the system output files,
    the uploaded archive, the index and the reference."""
    if STAMP_KEY in config.stash:
        return config.stash[STAMP_KEY]
    from .. import __version__
    from ..options import CHECK_OPTIONS
    from ..stamp import stamp

    command = next((c for p in config.pluginmanager.get_plugins() if (c := getattr(p, "omfc_command", None))), None)
    if command is not None:
        program, args, cwd = command
    else:
        program, args, cwd = "pytest", list(config.invocation_params.args), Path(config.invocation_params.dir)
    options: dict[str, Any] = {}
    for opt in (*CHECK_OPTIONS, *SCORING_OPTIONS, *(o for s in SCORERS.values() for o in s.options)):
        value = given(config, opt.ini)[0]
        if value is not None and opt.flag not in options:
            options[opt.flag] = [str(v) for v in value] if isinstance(value, (list, tuple)) else str(value)
    sub = config.stash.get(SETTINGS_KEY, None)
    inputs: list[tuple[Path, str | None]] = []
    if sub is not None:
        members = getattr(sub, "members", ()) if sub.is_package else (sub,)
        for member in members:
            if member.csv is not None:
                shown = None
                if member.archive is not None:  # unpacked privately: name the member of the upload
                    rel = member.csv.relative_to(member.submission.parent).as_posix()
                    shown = f"{member.archive.archive}:{rel}"
                inputs.append((member.csv, shown))
    inputs += [(p, None) for p in run_inputs(config)]
    config.stash[STAMP_KEY] = stamp(version=__version__, program=program, args=args, cwd=Path(cwd),
                                    options=options, inputs=inputs)  # fmt: skip
    return config.stash[STAMP_KEY]


def run_inputs(config: pytest.Config) -> list[Path]:
    """Every file the run reads besides the submission and dataset directories: the index, the reference,
    the scorers' PATH options (journal, node, world tables) and the tables found beside the reference
    (``<reference stem>-*.csv``).  No output may be one of them (``--omfc-html`` once overwrote a
    reference kept outside the dataset)."""
    sub = config.stash.get(SETTINGS_KEY, None)
    files: list[Path] = []
    if sub is not None:
        members: tuple[Settings, ...] = getattr(sub, "members", ())
        files += [m.index for m in members] if sub.is_package else [sub.listing[1]]
    upload, base = given(config, "omfc_submission")
    if sub is not None and sub.archive is not None and upload is not None:  # the uploaded archive itself
        files.append((base / Path(str(upload)).expanduser()).resolve())
    for _, _, settings in every_scoring(config):
        ref = settings.reference
        files.append(ref)
        for name in settings.scorers:
            values = settings.options_for(name)
            files += [
                Path(values[o.key])
                for o in SCORERS[name].options
                if o.kwargs.get("metavar") == "PATH" and values.get(o.key) is not None
            ]
        for prefix in {ref.stem, ref.stem.removesuffix("-ref")}:
            try:
                files += sorted(ref.parent.glob(f"{glob.escape(prefix)}-*"))
            except OSError:
                pass
    return files


def guarded_places(config: pytest.Config) -> list[Guarded]:
    """Where no output of the run may go (:mod:`pytest_omfc.outputs`): the submission folder and each EXPID
    folder of a package, the dataset, and for an upload the archive itself and the private folder it was
    unpacked into."""
    sub = config.stash.get(SETTINGS_KEY, None)
    if sub is None:
        return []
    places: list[Guarded] = [("submission directory", sub.submission)]
    places += [("EXPID directory", m.submission) for m in getattr(sub, "members", ())]
    if sub.dataset_root is not None:
        places.append(("dataset directory", sub.dataset_root))
    if sub.archive is not None:
        if sub.archive.root:
            places.append(("private directory", Path(sub.archive.root).parent))
        upload, base = given(config, "omfc_submission")
        if upload is not None:
            places.append(("uploaded archive", (base / Path(str(upload)).expanduser()).resolve()))
    return places


def refuse_output(config: pytest.Config, flag: str, path: Path, usage_error: type[Exception]) -> None:
    """Usage error, before anything runs, when the run must not write ``path`` (:func:`~..outputs.why_not_writable`)."""
    why = why_not_writable(path, guarded_places(config), run_inputs(config))
    if why is not None:
        raise usage_error(f"{flag}: {why}")


def _guard_outputs(
    config: pytest.Config, settings: ScoringSettings, dataset_root: Path | None, usage_error: type[Exception]
) -> None:
    """Never write into the submission or the dataset, nor over a file the run reads: refuse such output
    paths up front."""
    common = settings.common()
    for name in SCORING_OUTPUTS:
        path = common.get(name.removeprefix("omfc_"))
        if path is None:
            continue
        flag = "--" + name.replace("_", "-")
        if name == "omfc_plots":
            if (why := why_not_folder(path, guarded_places(config))) is not None:
                raise usage_error(f"{flag}: {why}")
        else:
            refuse_output(config, flag, path, usage_error)
    if settings.options_for("provenance").get("mappings"):
        if settings.metrics_json is None:
            raise usage_error(
                "--omfc-provenance-mappings: must be given with --omfc-metrics-json (the node and link mapping "
                "tables are written beside it, as <stem>.node_mapping.csv and <stem>.link_mapping.csv)"
            )
        for table in ("node_mapping", "link_mapping"):
            side = settings.metrics_json.with_name(f"{settings.metrics_json.stem}.{table}.csv")
            refuse_output(config, "--omfc-metrics-json", side, usage_error)


def score_items(parent: pytest.Collector, settings: CheckSettings, prefix: str) -> Iterator[pytest.Item]:
    """The scoring items of a submission (or of an EXPID of a package): one per running scorer and query
    (none without ``--omfc-reference``), named ``<prefix>score::<scorer>[<query>]``."""
    scoring = scoring_of(parent.config, settings)
    if scoring is None:
        return
    for name in scoring.scorers:
        if not scoring.queries:
            yield ScoreItem.from_parent(parent, name=f"{prefix}score::{name}", scorer=name, position=0)
            continue
        for i, (_query, kind) in enumerate(scoring.queries):
            yield ScoreItem.from_parent(parent, name=f"{prefix}score::{name}[{kind}{i + 1}]", scorer=name, position=i)


# ---------------------------------------------------------------------------- scoring


def outcomes_for(config: pytest.Config, name: str = "detection", sub: CheckSettings | None = None) -> list[Outcome]:
    """Run one scorer once per process (and EXPID of a package); one outcome per item position."""
    cache = config.stash.get(OUTCOMES_KEY, None)
    if cache is None:
        cache = config.stash[OUTCOMES_KEY] = {}
    sub = sub or config.stash[SETTINGS_KEY]
    assert sub is not None
    key = (sub.submission, name)
    if key not in cache:
        settings = scoring_of(config, sub)
        assert settings is not None
        cache[key] = _score(config, settings, SCORERS[name], sub)
    return cache[key]


def _score(config: pytest.Config, settings: ScoringSettings, scorer: Scorer, sub: CheckSettings) -> list[Outcome]:
    """One scorer's outcomes through :func:`pytest_omfc.runner.run_scorer` (shared with ``omfc_score``), with a bar."""
    from ..runner import run_scorer  # the submission and its libraries: only when scoring
    from ..submission import Submission

    bar = progress_for(config, f"score::{scorer.name}", scorer.progress_unit)
    parsed = submission_for(config, sub)
    assert isinstance(parsed, Submission)
    try:
        return run_scorer(
            parsed,
            scorer,
            reference=settings.reference,
            queries=settings.queries,
            query_partition=settings.query_partition,
            optout=settings.optout,
            convention=settings.convention,
            options=settings.options_for(scorer.name),
            query_error=settings.query_error,
            progress=bar,
        )
    finally:
        if bar is not None:
            bar.close()


# ---------------------------------------------------------------------------- items


class ScoreFailed(Exception):
    """The scoring set-up is wrong (e.g. a query that does not parse); ``args[0]`` is the text."""


class ScoreItem(pytest.Item):
    """One result table of one scorer."""

    def __init__(self, *, scorer: str, position: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.scorer = scorer
        self.position = position
        self.add_marker(OMFC_MARK)

    @property
    def junit_name(self) -> str:
        """The JUnit testcase name: the scorer, with the query (``detection[q1]``) (:mod:`.junit`)."""
        return self.name.rpartition("score::")[2]

    @property
    def checked(self) -> CheckSettings:
        """The settings of the submission (or EXPID) this item scores."""
        settings = getattr(self.parent, "settings", None) or self.config.stash[SETTINGS_KEY]
        assert settings is not None
        return cast("CheckSettings", settings)

    def runtest(self) -> None:
        settings = scoring_of(self.config, self.checked)
        assert settings is not None
        query, kind = settings.queries[self.position] if settings.queries else (None, "all")
        self.user_properties += [("omfc.score", self.scorer), ("query", query or ""), ("query_kind", kind)]
        if getattr(self.parent, "packaged", False):
            self.user_properties.append(("omfc.expid", self.checked.submission.name))
        outcome = outcomes_for(self.config, self.scorer, self.checked)[self.position]
        self.omfc_result: dict[str, Any] | list[dict[str, Any]]
        if isinstance(outcome, NotScored):
            self.omfc_result = _unscored_entry(SCORERS[self.scorer], query, kind, outcome.reason)
            self.user_properties.append(("omfc.skipped" if not outcome.fail else "omfc.error", outcome.reason))
            if outcome.fail:
                raise ScoreFailed(f"score::{self.scorer}: {outcome.reason}")
            pytest.skip(f"score::{self.scorer} skipped: {outcome.reason}")
        self.user_properties += outcome.properties
        entries = outcome.entry.get("entries")
        if isinstance(entries, list):  # one item, several metrics-JSON entries (provenance: one per node type)
            self.omfc_result = [{"scorer": self.scorer, **e} for e in entries]
        else:
            self.omfc_result = {"scorer": self.scorer, **outcome.entry}
        if settings.options_for("detection").get("ci"):
            self._intervals(settings)
        if outcome.failure:
            raise ScoreFailed(f"score::{self.scorer}: {outcome.failure}")

    def _intervals(self, settings: ScoringSettings) -> None:
        """``--omfc-ci``: each metric's interval over trials (docs/scoring/comparison.md) in the entry
        (``intervals``) and the item's properties (``<metric>.ci_low``, ``<metric>.ci_high``)."""
        from ..comparison import intervals_of, scorer_of

        det = settings.options_for("detection")
        level, draws, seed = (
            float(det.get("ci_level", 0.9)),
            int(det.get("ci_iterations", 500)),
            int(det.get("seed", 77)),
        )
        entries = self.omfc_result if isinstance(self.omfc_result, list) else [self.omfc_result]
        for entry in entries:
            got = intervals_of(
                scorer_of(entry, SCORERS), entry, settings.as_dict(), level=level, draws=draws, seed=seed
            )
            if not got:
                continue
            entry["intervals"] = got
            prefix = f"{entry['node_type']}." if entry.get("node_type") not in (None, "all") else ""
            for name, iv in got.items():
                if iv["ci_low"] is not None:
                    self.user_properties += [
                        (f"{prefix}{name}.ci_low", iv["ci_low"]),
                        (f"{prefix}{name}.ci_high", iv["ci_high"]),
                    ]

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> TerminalRepr:
        if isinstance(excinfo.value, ScoreFailed):
            text = str(excinfo.value.args[0])
        else:
            text = f"score::{self.scorer}: scoring could not run: {excinfo.exconly()}"
        return failure_repr(self.reportinfo()[0], text)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        settings = scoring_of(self.config, self.checked)
        name = f"{self.checked.submission.name}::{self.name}" if getattr(self.parent, "packaged", False) else self.name
        return (settings.reference if settings else self.path), None, f"[omfc] {name}"


def _unscored_entry(scorer: Scorer, query: str | None, kind: str, reason: str) -> dict[str, Any]:
    return {
        "scorer": scorer.name,
        "query": query,
        "query_kind": kind,
        **dict.fromkeys(scorer.null_keys),
        "skipped": reason,
    }


# ---------------------------------------------------------------------------- reporting


class ScoringReporter:
    """Controller-side (or single-process) writer of the metrics JSON, extra outputs and summary tables.

    In an NC2017 package each scored EXPID has its own results, tables and outputs (``where`` is its name;
    "" for a single submission)."""

    def __init__(self, config: pytest.Config, settings: ScoringSettings, only: tuple[str, ...] | None = None) -> None:
        self.config = config
        self.settings = settings
        self.only = only
        self.results: dict[tuple[str, int, int, int], dict[str, Any]] = {}
        self.written: list[str] = []
        self.errors: list[str] = []
        self._compared: dict[tuple[str, int, int, int], dict[str, Any]] | None = None

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
        """Carry the result dict on the report (builtin types: it crosses xdist; JUnit ignores it)."""
        rep = yield
        if call.when == "call" and isinstance(item, ScoreItem) and hasattr(item, "omfc_result"):
            rep.omfc_result = item.omfc_result
            rep.omfc_position = item.position
            rep.omfc_scorer = item.scorer
        return rep

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        result = getattr(report, "omfc_result", None)
        if report.when == "call" and result is not None:
            # The item's scorer orders the results (an entry may name a sub-scorer, e.g. provenance-graph).
            name = getattr(report, "omfc_scorer", None) or (result[0] if isinstance(result, list) else result).get(
                "scorer", "detection"
            )
            order = list(SCORERS).index(name) if name in SCORERS else len(SCORERS)
            pos = int(getattr(report, "omfc_position", 0))
            where = str(dict(report.user_properties).get("omfc.expid", ""))
            for k, entry in enumerate(result if isinstance(result, list) else [result]):
                self.results[(where, order, pos, k)] = entry

    def _scored(self) -> list[tuple[str, Path, ScoringSettings]]:
        return every_scoring(self.config)

    def pytest_report_header(self, config: pytest.Config) -> list[str]:
        """Say what is scored, or why nothing is (provenance has no scoring here)."""
        sub = config.stash.get(SETTINGS_KEY, None)
        if sub is not None and sub.is_package:
            members = config.stash.get(MEMBERS_KEY, {})
            lines = []
            for path, scoring in members.items():
                if scoring is None:
                    lines.append(
                        f"omfc: {path.name}: not scored: no reference of its task in {self.settings.reference}"
                    )
                elif not scoring.scorers:
                    lines.append(f"omfc: {path.name}: not scored: nothing to score against {scoring.reference.name}")
                else:
                    lines.append(f"omfc: {path.name}: scored against {scoring.reference}")
            return lines
        if sub is not None and not self.settings.scorers:
            if not any(sub.task in s.tasks for s in SCORERS.values()):
                return [f"omfc: --omfc-reference ignored: task {sub.task.value} has no detection scoring"]
            why = f"task {sub.task.value}, reference {self.settings.reference.name}"
            return [f"omfc: --omfc-score {','.join(self.only or ())}: nothing to score ({why})"]
        common = self.settings.common()
        lines = []
        for name in self.settings.scorers:
            view = view_for(name, SCORERS[name].metrics)
            if view.header is not None:
                lines.append(view.header(self.settings.options_for(name), common))
        return lines

    def _is_writer(self) -> bool:
        return not hasattr(self.config, "workerinput")

    def _labels(self, folder: Path) -> tuple[str, str, str]:
        return labels_of(self.config, folder)

    def _document_of(self, where: str, folder: Path, scoring: ScoringSettings) -> dict[str, Any]:
        from .. import __version__

        name, edition, task = self._labels(folder)
        compared = self.comparisons()
        results = [
            {**r, **compared[key]} if key in compared else r
            for key, r in sorted(self.results.items())
            if key[0] == where
        ]
        doc = {
            "plugin_version": __version__,
            "edition": edition,
            "task": task,
            "submission": name,
            "reference": str(scoring.reference),
            "options": scoring.as_dict(),
            "results": results,
            "run": run_stamp(self.config),
        }
        if scoring.baseline is not None:
            doc["baseline"] = str(scoring.baseline)
        return doc

    def comparisons(self) -> dict[tuple[str, int, int, int], dict[str, Any]]:
        """Each compared result's ``comparison`` (per metric) and ``compared_trials``, against ``--omfc-baseline``
        (docs/scoring/comparison.md); computed once, by the process that reports."""
        if self._compared is not None:
            return self._compared
        self._compared = {}
        for key in sorted(self.results):
            got = compared_result(self.config, self.results[key]) if key[0] == "" else None
            if got is None:
                continue
            if "skipped" in got:
                self._compared[key] = {
                    "comparison": None,
                    "compared_trials": None,
                    "comparison_skipped": got["skipped"],
                }
            else:
                self._compared[key] = {"comparison": got["metrics"], "compared_trials": got["paired"]}
        return self._compared

    def document(self) -> dict[str, Any]:
        """The metrics JSON (shape in docs/outputs.md, Metrics JSON); for an NC2017 package, the package's
        name and one such document per scored EXPID under ``expids``."""
        from .. import __version__

        run = self.config.stash[SETTINGS_KEY]
        assert run is not None
        docs = [self._document_of(where, folder, sc) for where, folder, sc in self._scored()]
        if not run.is_package:
            return docs[0]
        return {
            "plugin_version": __version__,
            "package": run.submission.name,
            "expids": docs,
            "run": run_stamp(self.config),
        }

    def _entries(self, name: str, where: str = "") -> list[tuple[int, dict[str, Any]]]:
        order = list(SCORERS).index(name)
        return [(pos, r) for (w, o, pos, _), r in sorted(self.results.items()) if o == order and w == where]

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if not self._is_writer():
            return
        self.comparisons()
        path = self.settings.metrics_json
        if path is not None:
            try:
                guarded, inputs = guarded_places(self.config), run_inputs(self.config)
                document = _side_tables(self.document(), path, self.written, self.errors, guarded, inputs)
                text = json.dumps(document, indent=2, allow_nan=False, default=_json_default)
                write_atomic(path, text + "\n")
                self.written.append(f"metrics JSON: {path}")
            except (OSError, ValueError) as exc:
                self.errors.append(f"--omfc-metrics-json: cannot write {path}: {exc}")
        for where, folder, scoring in self._scored():
            if not any(w == where for w, *_ in self.results):
                continue
            name, edition, task = self._labels(folder)
            for scorer_name in scoring.scorers:
                view = view_for(scorer_name, SCORERS[scorer_name].metrics)
                if view.finish is None:
                    continue
                opts = {**scoring.common(), **scoring.options_for(scorer_name)}
                written, errors = view.finish(
                    [r for _, r in self._entries(scorer_name, where)], opts, f"{name} ({edition} {task})"
                )
                self.written += written
                self.errors += errors
        if self.errors and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self._is_writer() or not (self.results or self.errors):
            return
        for where, _, scoring in self._scored():
            common = scoring.common()
            for name in scoring.scorers:
                entries = self._entries(name, where)
                if entries:
                    self._table(terminalreporter, SCORERS[name], entries, common, scoring, where)
                    self._interval_table(terminalreporter, SCORERS[name], entries, scoring, where)
                    self._comparison_table(terminalreporter, SCORERS[name], where)
        for line in [f"omfc: wrote {w}" for w in self.written]:
            terminalreporter.write_line(line)
        for line in self.errors:
            terminalreporter.write_line(f"omfc: ERROR {line}", red=True, bold=True)

    def _interval_table(
        self,
        terminalreporter: Any,
        scorer: Scorer,
        entries: list[tuple[int, dict[str, Any]]],
        scoring: ScoringSettings,
        where: str,
    ) -> None:
        """``--omfc-ci``: each metric's interval over trials, under the scorer's table."""
        from ..report.comparison import INTERVAL_COLUMNS, interval_rows

        rows, notes = interval_rows(entries)
        if not rows and not notes:
            return
        title = f"omfc {scorer.title} intervals" + (f": {where}" if where else "")
        _print_table(terminalreporter, self.config, title, ("result", *INTERVAL_COLUMNS), rows)
        det = scoring.options_for("detection")
        terminalreporter.write_line(
            f"omfc: {float(det.get('ci_level', 0.9)):.0%} intervals over trials: DeLong's for an AUC, else the "
            f"percentile bootstrap ({det.get('ci_iterations')} draws, seed {det.get('seed')})"
        )
        for note in notes:
            terminalreporter.write_line(f"  {note}")

    def _comparison_table(self, terminalreporter: Any, scorer: Scorer, where: str) -> None:
        """The comparison with ``--omfc-baseline`` under the scorer's table, with its notes."""
        compared = self.comparisons()
        if not compared or where:
            return
        order = list(SCORERS).index(scorer.name)
        entries = [
            (pos, {**r, **compared[key]})
            for key, r in sorted(self.results.items())
            if key in compared and key[1] == order
            for pos in [key[2]]
        ]
        if not entries:
            return
        from ..report.comparison import COMPARISON_COLUMNS, comparison_rows

        rows, notes = comparison_rows(entries)
        trials = next((e.get("compared_trials") for _, e in entries if e.get("compared_trials")), None) or {}
        level = trials.get("level")
        title = f"omfc {scorer.title} compared with the baseline"
        _print_table(terminalreporter, self.config, title, ("result", *COMPARISON_COLUMNS), rows)
        baseline = self.settings.baseline.name if self.settings.baseline else "the baseline"
        head = f"omfc: diff = this run - {baseline}, on the n trials both scored"
        if level is not None:
            head += (
                f"; {level:.0%} intervals; p two-sided (DeLong's test, or a paired bootstrap of "
                f"{trials.get('draws')} draws, seed {trials.get('seed')})"
            )
        terminalreporter.write_line(head)
        for note in notes:
            terminalreporter.write_line(f"  {note}")

    def _table(
        self,
        terminalreporter: Any,
        scorer: Scorer,
        entries: list[tuple[int, dict[str, Any]]],
        common: dict[str, Any],
        scoring: ScoringSettings,
        where: str,
    ) -> None:
        opts = scoring.options_for(scorer.name)
        title = f"omfc {scorer.title} scores" + (f": {where}" if where else "")
        view = view_for(scorer.name, scorer.metrics)
        rows, notes, alarms = summary_rows(view, entries, opts)
        _print_table(terminalreporter, self.config, title, ("result", *view.columns(opts)), rows)
        footer = view.footer(opts, common)
        for line in ([footer] if footer else []) + [f"  {n}" for n in notes]:
            terminalreporter.write_line(line)
        for line in alarms:
            terminalreporter.write_line(f"  {line}", red=True, bold=True)


def _print_table(
    terminalreporter: Any, config: pytest.Config, title: str, columns: tuple[str, ...], rows: list[tuple[str, ...]]
) -> None:
    """A rich table in the summary (the scorer's and the comparison's look alike)."""
    from rich import box
    from rich.console import Console
    from rich.table import Table

    table = Table(
        title=title,
        min_width=len(title),
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        padding=(0, 1),
        collapse_padding=True,
    )
    table.add_column(columns[0], no_wrap=True)
    for col in columns[1:]:
        table.add_column(col, justify="right", no_wrap=True)
    for row in rows:
        table.add_row(*row)
    from rich.measure import Measurement

    buf = io.StringIO()
    console = Console(file=buf, width=10_000, force_terminal=terminalreporter.hasmarkup)
    needed = Measurement.get(console, console.options, table).maximum  # a table is never cut short
    console.width = max(100, config.get_terminal_writer().fullwidth, needed)
    console.print(table)
    terminalreporter.write_line("")
    terminalreporter.write(buf.getvalue())


_SHA_KEY = pytest.StashKey[dict[Path, "str | None"]]()


def _sha256(config: pytest.Config, path: Path) -> str | None:
    """The SHA-256 of an input, hashed once per process."""
    from ..stamp import fingerprint

    known = config.stash.setdefault(_SHA_KEY, {})
    if path not in known:
        value = fingerprint(path).get("sha256")
        known[path] = None if value is None else str(value)
    return known[path]


def _side_tables(
    document: dict[str, Any],
    path: Path,
    written: list[str],
    errors: list[str],
    guarded: list[Guarded],
    inputs: list[Path],
) -> dict[str, Any]:
    """Write each result's ``tables`` (name -> CSV text, e.g. provenance's ``node_mapping``) beside the metrics
    JSON as ``<stem>[-<EXPID>].<name>.csv`` and put the file names in their place: a table of 100,000 rows
    stays a compact file instead of a JSON record per row.  A name the run must not write (a file it reads,
    a guarded place: the up-front guard knows only the single submission's names, not an EXPID's) is not
    written: an error says so.  Returns the document to dump (entries copied)."""
    docs: list[dict[str, Any]] = document["expids"] if "expids" in document else [document]
    for doc in docs:
        stem = path.stem if doc is document else f"{path.stem}-{doc['submission']}"
        results = []
        for entry in doc["results"]:
            tables = entry.get("tables")
            if isinstance(tables, dict) and tables and all(isinstance(v, str) for v in tables.values()):
                names = {}
                for name, text in tables.items():
                    target = path.with_name(f"{stem}.{name}.csv")
                    if (why := why_not_writable(target, guarded, inputs)) is not None:
                        errors.append(f"--omfc-metrics-json: the {name} table {why}")
                        continue
                    write_atomic(target, text)
                    written.append(f"{name} table: {target}")
                    names[name] = target.name
                entry = {**entry, "tables": names}
            results.append(entry)
        doc["results"] = results
    return document


def _json_default(obj: Any) -> Any:
    import numpy as np

    if isinstance(obj, (np.integer,)):
        return int(obj)
    if isinstance(obj, (np.floating,)):
        return None if not np.isfinite(obj) else float(obj)
    return str(obj)
