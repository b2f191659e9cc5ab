"""Every option of pytest-omfc, declared once as data: :class:`Option`.

An option is a flag, its ini name, its argparse keywords (help, metavar, action, choices), MediScore's
equivalent, its default and ``parse``, which turns the text given on the command line, in an ini file or
to ``omfc_score()`` into a typed value and raises ``ValueError("must be ... (got ...)")`` out of bounds.
From these declarations come the pytest options and ini settings (:func:`pytest_omfc.pytest_glue.hooks.
pytest_addoption`), the ``pytest-omfc`` arguments (:mod:`pytest_omfc.cli`), the keywords of
``omfc_score()`` (:mod:`pytest_omfc.api`), the option tables of docs/options.md (:mod:`pytest_omfc.docgen`)
and every bounds check; the values are resolved once into typed settings
(:class:`pytest_omfc.submission.Settings`, the scoring settings).

Here: :data:`CHECK_OPTIONS` (what is checked, and how) and :data:`SCORING_OPTIONS` (shared by every
scorer); each scorer family declares its own in ``scoring/<family>/options.py`` with the same class;
:func:`pytest_omfc.scoring.families.every_option` lists them all, in order.  Light (read at plugin load):
no third-party import.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .findings import DEFAULT_MAX_FINDINGS, KEEP_FINDINGS

__all__ = [
    "ARCHIVE_OPTIONS",
    "CHECK_OPTIONS",
    "CONVENTION_NAMES",
    "OUTPUT_PATHS",
    "SCORING_OPTIONS",
    "DASK",
    "MAP_PIXELS",
    "Option",
    "bounded",
    "exclusive_queries",
    "flag",
    "integer",
    "one_of",
]


#: The most pixels the ForgeryNet system maps of one run may hold together by default (``--omfc-map-pixels``):
#: the benchmark's sets hold some 10^11; a portal may set less.
MAP_PIXELS = 10**12


def bounded(conv: Callable[[Any], Any], ok: Callable[[Any], bool], must: str) -> Callable[[Any], Any]:
    """A :attr:`Option.parse`: ``conv(text)`` when ``ok``, else ``ValueError("must be <must> (got x)")``.

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


_TRUE = ("true", "yes", "on", "1")
_FALSE = ("false", "no", "off", "0", "")


def flag(value: Any) -> bool:
    """A store_true option (a bool) or its ini or keyword value: true/false, yes/no, on/off, 1/0."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise ValueError(f"must be true or false (got {value!r})")


def one_of(choices: Sequence[str]) -> Callable[[Any], str]:
    """A choice among ``choices``, case and surrounding blanks ignored."""
    return bounded(lambda v: str(v).strip().lower(), lambda v: v in choices, "one of " + ", ".join(choices))


def exclusive_queries(given: Sequence[str]) -> str | None:
    """What is wrong when more than one kind of query is given (their names as the caller spells them:
    flags, keywords or engine arguments), else None.  One result table per query: MediScore's -q, -qm
    and -qp exclude each other, and so do ours, on the command line, in ``omfc_score()`` and in the engines."""
    if len(given) <= 1:
        return None
    return f"{' and '.join(given)} are mutually exclusive (as MediScore's -q, -qm and -qp)"


def text(value: Any) -> str:
    """A free text (a query, a name): as given, surrounding blanks dropped."""
    return str(value).strip()


def texts(value: Any) -> list[str]:
    """A repeatable text option: one text or a list of them (``omfc_score(query=[...])``)."""
    return [str(v) for v in ([value] if isinstance(value, str) else list(value))]


@dataclass(frozen=True)
class Option:
    """One option: a command-line flag and the ini setting ``ini``, declared once.

    ``parse`` turns the given text into the value the code gets and raises ``ValueError("must be ...
    (got ...)")`` when it is out of bounds; the pytest layer prefixes the flag and makes it a usage error
    (exit 4), ``omfc_score()`` a ``ValueError`` naming the keyword.  ``name`` is the key in the settings
    (default: ``ini`` without ``omfc_``).  An option whose ``metavar`` is ``PATH`` names a file the run
    reads, unless it is one of :data:`OUTPUT_PATHS` (resolved once, from the dataset root, then the
    invocation or ini directory).
    """

    flag: str
    ini: str
    kwargs: Mapping[str, Any]  # argparse keywords: metavar/help/action/choices
    mediscore: str = ""  # MediScore's equivalent (docs/options.md), "" if none
    default: Any = None
    parse: Callable[[Any], Any] = text
    name: str = ""

    @property
    def key(self) -> str:
        return self.name or self.ini.removeprefix("omfc_")

    @property
    def help(self) -> str:
        return str(self.kwargs.get("help", ""))

    @property
    def repeatable(self) -> bool:
        return self.kwargs.get("action") == "append"

    @property
    def is_flag(self) -> bool:
        return self.kwargs.get("action") == "store_true"

    @property
    def reads_file(self) -> bool:
        return self.kwargs.get("metavar") == "PATH" and self.ini not in OUTPUT_PATHS

    @property
    def ini_type(self) -> Literal["linelist"] | None:
        """pytest's ini type: a list for a repeatable option, else the text (parsed by :attr:`parse`)."""
        return "linelist" if self.repeatable else None

    def value(self, given: Any) -> Any:
        """The parsed value of ``given`` (None: the default); ``ValueError`` out of bounds."""
        return self.default if given is None else self.parse(given)


def _path_text(value: Any) -> str:
    """A path as given (a folder name may begin or end with a blank)."""
    out = str(value)
    if not 0 < len(out.strip()) <= 4096:
        raise ValueError(f"must be a file path (got {value!r})")
    return out


def _classes(value: Any) -> int:
    """``--omfc-classes``: which numbers a task allows is checked with the task (2, 3, 16 or 2, 3, 9)."""
    return int(str(value).strip())


#: What is checked and how (the archive limits follow, :data:`ARCHIVE_OPTIONS`).
_CHECK_OPTIONS: tuple[Option, ...] = (
    Option(
        "--omfc-submission",
        "omfc_submission",
        {"metavar": "DIR", "help": "submission directory <ID>/ holding <ID>.csv (turns the plugin on)"},
        parse=_path_text,
    ),
    Option(
        "--omfc-index",
        "omfc_index",
        {"metavar": "PATH", "help": "the task index file <DataSet>-<TaskID>-index.csv"},
        parse=_path_text,
    ),
    Option(
        "--omfc-dataset",
        "omfc_dataset",
        {"metavar": "ROOT", "help": "top of the data distribution; locates indexes/<...>-<task>-index.csv"},
        parse=_path_text,
    ),
    Option(
        "--omfc-edition",
        "omfc_edition",
        {
            "metavar": "NAME",
            "help": "NC2016, NC2017, MFC2018, MFC2019, OpenMFC2020, OpenMFC2021 (default: from the index name) or "
            "ForgeryNet",
        },
    ),
    Option(
        "--omfc-task",
        "omfc_task",
        {
            "metavar": "TASKID",
            "help": "IMDL, IGMDL, VMD, VGMD, manipulation(-image), manipulation-video, splice, provenancefiltering, "
            "provenance, eventverification, camera (case-insensitive; default: from the index); ForgeryNet: "
            "image-classification, spatial, video-classification, temporal",
        },
    ),
    Option(
        "--omfc-max-findings",
        "omfc_max_findings",
        {
            "metavar": "N",
            "help": f"findings shown per failing rule, -1 to 1000 (default {DEFAULT_MAX_FINDINGS}; -1 for all kept: "
            "at most 1000 per rule and severity, the rest counted)",
        },
        default=DEFAULT_MAX_FINDINGS,
        # no more are kept (findings.py); below -1 means nothing
        parse=bounded(integer, lambda v: -1 <= v <= KEEP_FINDINGS, f"an integer from -1 to {KEEP_FINDINGS}"),
    ),
    Option(
        "--omfc-slices",
        "omfc_slices",
        {
            "metavar": "N",
            "help": "items per file-heavy rule, each covering a slice of the rows, 1 to 64 (default 4; an NC2017 "
            "package shares them among its EXPIDs)",
        },
        default=4,
        # 0 would collect no MASK-08 item (a broken mask passes); a huge count never finishes collecting
        parse=bounded(integer, lambda v: 1 <= v <= 64, "an integer from 1 to 64"),
    ),
    Option(
        "--omfc-jobs",
        "omfc_jobs",
        {
            "metavar": "N",
            "help": "processes for file-heavy checks within one item, 0 to 64 (default 0: one per CPU; 1 = none)",
        },
        default=0,
        parse=bounded(integer, lambda v: 0 <= v <= 64, "an integer from 0 to 64"),  # each job is a process
    ),
    Option(
        "--omfc-allow-touching-segments",
        "omfc_allow_touching_segments",
        {
            "action": "store_true",
            "help": "VSEG-07: intervals may share an endpoint, e.g. [[1,10],[10,20]] (MediScore forbids it)",
        },
        default=False,
        parse=flag,
    ),
    Option(
        "--omfc-ignore-overlap",
        "omfc_ignore_overlap",
        {
            "action": "store_true",
            "help": "VSEG-07: overlapping intervals are warnings, like MediScore's --ignore_overlap",
        },
        "--ignore_overlap",
        default=False,
        parse=flag,
    ),
    Option(
        "--omfc-classes",
        "omfc_classes",
        {
            "metavar": "K",
            "help": "ForgeryNet classification: 2, 3 or 16 classes for image-classification, 2, 3 or 9 for "
            "video-classification (default 2)",
        },
        default=2,
        parse=_classes,
    ),
    Option(
        "--omfc-time-unit",
        "omfc_time_unit",
        {
            "choices": ["frames", "seconds"],
            "help": "ForgeryNet temporal with a video list as the reference (frames): the unit of the "
            "predictions' segments; seconds needs --omfc-fps (default frames)",
        },
        default="frames",
        parse=one_of(("frames", "seconds")),
    ),
    Option(
        "--omfc-fps",
        "omfc_fps",
        {"metavar": "FPS", "help": "frames per second of the videos, for --omfc-time-unit seconds"},
        # a bound, not only positive: 1e308 passed and overflowed the segment times to infinity in the scorer
        parse=bounded(
            float, lambda v: math.isfinite(v) and 0 < v <= 1000, "a number of frames per second in (0, 1000]"
        ),
    ),
    Option(
        "--omfc-spatial-maps",
        "omfc_spatial_maps",
        {
            "metavar": "DIR",
            "help": "ForgeryNet spatial with an image list as the reference: the folder of the reference maps "
            "(the benchmark's spatial_localize; default: spatial_localize/ beside the list)",
        },
        parse=_path_text,
    ),
    Option(
        "--omfc-map-pixels",
        "omfc_map_pixels",
        {
            "metavar": "N",
            "help": "ForgeryNet spatial: the most pixels the system maps of one run may hold together, "
            "1 to 10^15 (default 10^12); the maps past it are FNET-07 findings and are not decoded",
        },
        default=MAP_PIXELS,
        # the per-map bound (160 MP) caps memory; this caps the run's decoding time, for a portal
        parse=bounded(integer, lambda v: 1 <= v <= 10**15, "an integer from 1 to 10^15"),
    ),
    Option(
        "--omfc-video-info",
        "omfc_video_info",
        {
            "metavar": "PATH",
            "help": "ForgeryNet temporal with a video list: '<video> <frame count>' per line, the videos' "
            "durations in frames (segments are then checked against them, FNET-10)",
        },
        parse=_path_text,
    ),
    Option(
        "--omfc-html",
        "omfc_html",
        {
            "metavar": "PATH",
            "help": "write one self-contained HTML report here: verdict, rules, findings, scores, ROC/DET, mask "
            "thumbnails (once, by the xdist controller)",
        },
        parse=_path_text,
    ),
    Option(
        "--omfc-findings-json",
        "omfc_findings_json",
        {
            "metavar": "PATH",
            "help": "write every rule's outcome and findings (file, line, trial, column, value) as JSON here, with "
            "the scores and gates that ran (once, by the xdist controller; schemas/findings.FindingsDocument.json)",
        },
        parse=_path_text,
    ),
    Option(
        "--omfc-html-masks",
        "omfc_html_masks",
        {
            "metavar": "N",
            "help": "mask thumbnails in the HTML report: the N worst and N best probes, 0 to 100 (default 8)",
        },
        default=8,
        # each probe shown reads its masks in full
        parse=bounded(integer, lambda v: 0 <= v <= 100, "an integer from 0 to 100"),
    ),
)

#: ``--omfc-convention`` choices (:data:`pytest_omfc.scoring.conventions.CONVENTIONS` has their differences;
#: a test checks they agree).
CONVENTION_NAMES = ("mediscore", "plan")

#: Limits of an uploaded archive (ARC-06), as check options.
ARCHIVE_OPTIONS: tuple[Option, ...] = (
    Option(
        "--omfc-archive-max-entries",
        "omfc_archive_max_entries",
        {"metavar": "N", "help": "members an archive may hold, 1 to 10000000 (default 100000)"},
        default=100_000,
        parse=bounded(integer, lambda v: 1 <= v <= 10_000_000, "an integer from 1 to 10000000"),
    ),
    Option(
        "--omfc-package-max-expids",
        "omfc_package_max_expids",
        {
            "metavar": "N",
            "help": "EXPID folders of an NC2017 package checked, 1 to 100000 (default 1000); "
            "the others are named by PKG-10",
        },
        default=1000,
        parse=bounded(integer, lambda v: 1 <= v <= 100_000, "an integer from 1 to 100000"),
    ),
    Option(
        "--omfc-archive-max-bytes",
        "omfc_archive_max_bytes",
        {"metavar": "BYTES", "help": "bytes an archive may unpack to, 1 MiB to 1 TiB (default 16 GiB = 17179869184)"},
        default=16 << 30,
        parse=bounded(integer, lambda v: 1 << 20 <= v <= 1 << 40, f"an integer from {1 << 20} to {1 << 40}"),
    ),
    Option(
        "--omfc-archive-max-ratio",
        "omfc_archive_max_ratio",
        {
            "metavar": "R",
            "help": "times an archive may expand (unpacked bytes per archive byte, judged past 64 MiB), 1 to 100000 "
            "(default 200)",
        },
        default=200.0,
        parse=bounded(float, lambda v: 1.0 <= v <= 100_000.0, "a number from 1 to 100000"),
    ),
)

#: What is checked and how, the archive limits included.
CHECK_OPTIONS: tuple[Option, ...] = (*_CHECK_OPTIONS, *ARCHIVE_OPTIONS)

#: The scoring set-up shared by every scorer.  ``--omfc-score``'s choices are the registered scorers (filled
#: in by :func:`pytest_omfc.scoring.families.every_option`).
#: ``--omfc-dask``: listed by every scorer that reads pixels (masks, ForgeryNet spatial maps), declared once; a
#: check reads it too (MASK-04's inflating of a large submission, :class:`pytest_omfc.submission.CheckSettings`).
DASK = Option(
    "--omfc-dask",
    "omfc_dask",
    {
        "metavar": "ADDRESS",
        "help": "score masks and ForgeryNet spatial maps, and inflate a large check's masks (MASK-04), on a "
        "dask.distributed scheduler (tcp://host:8786) or 'local' (a LocalCluster); needs pytest-omfc[dask]",
    },
    "",
    None,
    bounded(lambda v: str(v).strip(), lambda v: 0 < len(v) <= 1000, "a scheduler address or 'local'"),
)


SCORING_OPTIONS: tuple[Option, ...] = (
    Option(
        "--omfc-reference",
        "omfc_reference",
        {
            "metavar": "PATH",
            "help": "reference <DataSet>-<TaskID>-ref.csv (absolute, or relative to the dataset root); turns "
            "scoring on",
        },
        "-r",
        parse=_path_text,
    ),
    Option(
        "--omfc-score",
        "omfc_score",
        {"help": "the scorers to run (default all: every scorer the task and reference allow)"},
        default="all",
    ),
    Option(
        "--omfc-baseline",
        "omfc_baseline",
        {
            "metavar": "PATH",
            "help": "compare this run, trial by trial, with an earlier run's metrics JSON of the same task and "
            "reference, or with another submission (a folder or an upload) scored in this run: per metric the "
            "difference, its interval (--omfc-ci-level, --omfc-ci-iterations draws, --omfc-seed) and a paired "
            "test's p-value",
        },
        parse=_path_text,
    ),
    Option(
        "--omfc-metrics-json",
        "omfc_metrics_json",
        {
            "metavar": "PATH",
            "help": "write every result as JSON here (once, by the xdist controller; needs --omfc-reference)",
        },
        "-o (CSV)",
        parse=_path_text,
    ),
    Option(
        "--omfc-per-probe-csv",
        "omfc_per_probe_csv",
        {
            "metavar": "PATH",
            "help": "write the mask scorer's per-probe table here, pipe-separated (MediScore's perimage CSV; needs "
            "--omfc-reference)",
        },
        "-o (perimage CSV)",
        parse=_path_text,
    ),
    Option(
        "--omfc-plots",
        "omfc_plots",
        {
            "metavar": "DIR",
            "help": "write roc.png, roc.svg, det.png, det.svg into DIR: one curve per result, AUC and trial counts in "
            "the legend",
        },
        "--plotType",
        parse=_path_text,
    ),
    Option(
        "--omfc-optout",
        "omfc_optout",
        {
            "action": "store_true",
            "help": "score only trials whose IsOptOut/ProbeStatus says detection was done",
        },
        "--optOut",
        default=False,
        parse=flag,
    ),
    Option(
        "--omfc-query",
        "omfc_query",
        {
            "action": "append",
            "metavar": "QUERY",
            "help": 'pandas query over index, reference and journal columns ("*": every trial, as MediScore\'s VTL '
            "scorer); repeatable, one result per query",
        },
        "-q",
        parse=texts,
    ),
    Option(
        "--omfc-query-partition",
        "omfc_query_partition",
        {
            "metavar": "QUERY",
            "help": "Name==['a','b'] & ... expanded into one result per combination (crashes in MediScore)",
        },
        "-qp",
    ),
    Option(
        "--omfc-query-manipulation",
        "omfc_query_manipulation",
        {
            "action": "append",
            "metavar": "QUERY",
            "help": "keeps targets with at least one matching journal operation and every non-target; repeatable",
        },
        "-qm",
        parse=texts,
    ),
    Option(
        "--omfc-convention",
        "omfc_convention",
        {
            "choices": list(CONVENTION_NAMES),
            "help": "mediscore (default: the portal's numbers) or plan (the evaluation plans' definitions)",
        },
        default="mediscore",
        parse=bounded(lambda v: str(v).strip().lower(), lambda v: v in CONVENTION_NAMES, "mediscore or plan"),
    ),
    Option(
        "--omfc-require",
        "omfc_require",
        {
            "action": "append",
            "metavar": "GATE",
            "help": "a metric gate such as AUC>=0.8, mask:OptimumMCC>0.3 or detection[q1]:EER<=0.2, checked by an "
            "item <sub>::require::GATE; repeatable",
        },
        parse=texts,
    ),
)

#: Options naming a file or directory the run writes: refused inside the submission or the dataset and over
#: a file the run reads.
OUTPUT_PATHS = ("omfc_html", "omfc_findings_json", "omfc_metrics_json", "omfc_plots", "omfc_per_probe_csv")


def declared(ini: str) -> Option:
    """A check, scoring or shared option by its ini name (the scorers' own options are found by
    :func:`pytest_omfc.scoring.families.option`, which knows the registered scorers); KeyError if none."""
    found = next((o for o in (*CHECK_OPTIONS, *SCORING_OPTIONS, DASK) if o.ini == ini), None)
    if found is None:
        raise KeyError(ini)
    return found
