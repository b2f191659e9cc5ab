"""Loading and merging of detection inputs (docs/scoring/detection.md#inputs-and-merge,
docs/scoring/detection.md#opt-out, docs/scoring/detection.md#queries).

Pure pandas, no pytest. Everything here works on string tables read with
:func:`read_table` (pipe-separated, ``dtype=str``, no NA conversion) so that
identifiers such as ``0042`` stay exactly as written; only the confidence score
is converted, explicitly, to float.

The merge reproduces MediScore's ``DetectionScorer.py`` row for row, including
its row order (which drives the bootstrap, docs/scoring/detection.md#bootstrap-confidence-intervals) and its handling of
trials that have no system output (docs/scoring/detection.md#inputs-and-merge step 3).
"""

from __future__ import annotations

import ast
import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
import pandas as pd

from .. import arrays
from ..errors import QueryError, ScoringError, SetupError, SubmissionError, Undefined
from ..paths import not_regular

__all__ = [
    "SCORE_COLUMN",
    "TARGET_COLUMN",
    "TASK_KEYS",
    "Convention",
    "JournalTables",
    "QueryKind",
    "ScoringError",
    "TrialTable",
    "apply_optout",
    "find_journal_tables",
    "journal_frame",
    "merge_trials",
    "normalize_task",
    "partition_query",
    "read_scores",
    "read_table",
    "require",
    "as_frame",
    "select_query",
    "typed_frame",
]

Convention = Literal["mediscore", "plan"]
QueryKind = Literal["all", "q", "qp", "qm"]

SCORE_COLUMN = "ConfidenceScore"
TARGET_COLUMN = "IsTarget"
RESPONSE_COLUMN = "_omfc_has_response"

#: Trial key of each detection task (docs/scoring/detection.md#inputs-and-merge step 1 and 1.12). The merge
#: itself uses every system column that also appears in the reference, as
#: MediScore does; these are the columns that must be among them.
TASK_KEYS: dict[str, tuple[str, ...]] = {
    "manipulation": ("ProbeFileID",),
    "splice": ("ProbeFileID", "DonorFileID"),
    "eventverification": ("ProbeFileID", "EventName"),
    "camera": ("ProbeFileID", "TrainCamID"),
}

_TASK_ALIASES: dict[str, str] = {
    "manipulation": "manipulation",
    "imagemanipulation": "manipulation",
    "videomanipulation": "manipulation",
    "manipulationimage": "manipulation",
    "manipulationvideo": "manipulation",
    "splice": "splice",
    "imagesplice": "splice",
    "eventverification": "eventverification",
    "event": "eventverification",
    "camera": "camera",
    "cameraverification": "camera",
}

# docs/scoring/detection.md#opt-out: statuses kept by MediScore's --optOut.
_KEEP_ISOPTOUT = frozenset({"N", "Localization"})
_KEEP_PROBESTATUS_MEDISCORE = frozenset(
    {"Processed", "NonProcessed", "OptOutLocalization", "FailedValidation", "OptOutTemporal", "OptOutSpatial"}
)
# Plan convention (MFC2019 plan 2.2, OpenMFC plan): only trials on which detection
# was actually performed count as responded; NonProcessed/FailedValidation are not.
_KEEP_PROBESTATUS_PLAN = frozenset({"Processed", "OptOutLocalization", "OptOutTemporal", "OptOutSpatial"})

_BOOL_STRINGS = {"True": True, "TRUE": True, "true": True, "False": False, "FALSE": False, "false": False}


@dataclass(frozen=True)
class JournalTables:
    """The two journal tables that sit beside a reference (docs/scoring/detection.md#queries)."""

    join: pd.DataFrame
    mask: pd.DataFrame
    join_path: Path | None = None
    mask_path: Path | None = None


@dataclass
class TrialTable:
    """Merged trials, one row per scored trial candidate, in MediScore order.

    ``frame`` holds every reference, system and index column as strings, except
    ``ConfidenceScore`` (float). ``total`` is MediScore's ``total_num``
    (docs/scoring/detection.md#inputs-and-merge step 6), the TRR denominator.
    """

    frame: pd.DataFrame
    key: tuple[str, ...]
    task: str
    total: int
    system_columns: tuple[str, ...]
    n_reference: int
    n_index: int
    n_system: int
    n_missing: int
    n_index_unmatched: int
    convention: Convention
    journal: JournalTables | None = None
    notes: list[str] = field(default_factory=list)


def normalize_task(task: str) -> str:
    """Map task spellings (``image-manipulation``, ``EventVerification``...) to a key of TASK_KEYS."""
    norm = re.sub(r"[^a-z]", "", str(task).lower())
    try:
        return _TASK_ALIASES[norm]
    except KeyError:
        raise SetupError(f"unknown detection task {task!r}; expected one of {sorted(TASK_KEYS)}") from None


def read_table(path: str | Path, what: str = "table", error: type[ScoringError] = SetupError) -> pd.DataFrame:
    """Read a pipe-separated MediFor table with every column as a string; problems raise ``error``
    (a :class:`SetupError` for the reference and journal tables, :class:`SubmissionError` for a system output)."""
    p = Path(path)
    kind = not_regular(p)  # stat only: a FIFO is never opened (it would block)
    if kind == "no such file":
        raise error(f"{what} file not found: {p}")
    if kind is not None:
        raise error(f"{what} {p} must be a regular file (got {kind})")
    try:
        df = pd.read_csv(p, sep="|", dtype=str, keep_default_na=False, na_filter=False)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as exc:
        raise error(f"cannot parse {what} {p}: {exc}") from None
    return df


def as_frame(obj: str | Path | pd.DataFrame, what: str, error: type[ScoringError] = SetupError) -> pd.DataFrame:
    """A string DataFrame of ``obj`` (a table path or a DataFrame; NaN becomes "")."""
    if isinstance(obj, pd.DataFrame):
        clean = obj.astype(object).where(obj.notna(), "")
        return clean.astype(str).reset_index(drop=True)
    return read_table(obj, what, error)


def require(
    df: pd.DataFrame,
    columns: Sequence[str],
    what: str,
    error: type[ScoringError] = SetupError,
    hidden: Sequence[str] = (),
) -> None:
    """``error`` naming the columns of ``columns`` that ``df`` lacks (``hidden`` columns are not listed as present)."""
    missing = [c for c in columns if c not in df.columns]
    if missing:
        raise error(f"{what} lacks column(s) {missing}; it has {[c for c in df.columns if c not in hidden]}")


_as_frame, _require = as_frame, require


def find_journal_tables(reference_path: str | Path) -> JournalTables | None:
    """Find ``<ref stem>-probejournaljoin.csv`` and ``<ref stem>-journalmask.csv`` beside the reference.

    Both must exist (MediScore skips the journal merge otherwise, docs/scoring/detection.md#queries).
    """
    ref = Path(reference_path)
    stem = ref.with_suffix("") if ref.suffix else ref
    join_path = stem.parent / f"{stem.name}-probejournaljoin.csv"
    mask_path = stem.parent / f"{stem.name}-journalmask.csv"
    if not (join_path.is_file() and mask_path.is_file()):
        return None
    return JournalTables(
        join=read_table(join_path, "probe-journal join table"),
        mask=read_table(mask_path, "journal mask table"),
        join_path=join_path,
        mask_path=mask_path,
    )


def read_scores(text: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The scores of stripped texts, read as the rules read them (``arrays.parse_floats``, SCORE-01), and which texts
    are garbage: neither a number nor no score (empty, or "nan" in any case, which the treatment of missing scores
    decides)."""
    values = arrays.parse_floats(text)
    garbage = np.isnan(values) & np.fromiter((t.lower() not in ("", "nan") for t in text.tolist()), bool, len(text))
    return values, garbage


def _parse_scores(raw: pd.Series, what: str) -> np.ndarray:
    """Convert score strings to float; empty strings become NaN, garbage raises."""
    text = arrays.strip(raw.astype(str).to_numpy(dtype=object))
    values, bad = read_scores(text)
    if bad.any():
        examples = sorted(set(text[bad].tolist()))[:5]
        raise SubmissionError(f"{what}: {int(bad.sum())} {SCORE_COLUMN} value(s) are not numbers, e.g. {examples}")
    return values


def _check_reference_trials(ref: pd.DataFrame, idx: pd.DataFrame, keys: Sequence[str]) -> None:
    """One reference row per trial, and every index trial in the reference.

    A trial listed twice would be scored twice (a 4-trial index scored as 3
    targets and 2 non-targets); an index trial the reference lacks would be
    dropped by the inner merge with the index (docs/scoring/detection.md#inputs-and-merge step 5) and the
    rest scored as if the set were complete.  Both are reference errors, not
    the submission's: the scoring item fails.
    """
    dup = ref.duplicated(list(keys), keep=False).to_numpy()
    if dup.any():
        trials = _key_strings(ref.loc[dup], keys).drop_duplicates()
        raise SetupError(
            f"reference lists {_count(len(trials), 'trial')} more than once ({_examples(trials)}); "
            "each trial must have one row"
        )
    on = [c for c in keys if c in idx.columns]
    if not on or idx.empty:
        return  # the merge with the index reports what it cannot join
    known = set(_key_strings(ref, on))
    idx_keys = _key_strings(idx, on)
    lacking = idx_keys[~idx_keys.isin(known)].drop_duplicates()
    if 0 < len(lacking) < len(idx_keys.drop_duplicates()):  # none matching at all: the merge says so
        raise SetupError(
            f"reference lacks {len(lacking)} of the {idx_keys.nunique()} index trials ({_examples(lacking)}); "
            "a reference must cover every trial of the index"
        )


def _key_strings(df: pd.DataFrame, keys: Sequence[str]) -> pd.Series:
    """``ProbeFileID=x`` or ``ProbeFileID=x:DonorFileID=y`` per row: how trials are named in messages."""
    out = df[keys[0]].astype(str)
    if len(keys) == 1:
        return out.reset_index(drop=True)
    for k in keys[1:]:
        out = out + ":" + df[k].astype(str)
    return out.reset_index(drop=True)


def _examples(trials: pd.Series, shown: int = 5) -> str:
    head = ", ".join(repr(_short(t)) for t in trials.iloc[:shown])
    return head + (f" and {len(trials) - shown} more" if len(trials) > shown else "")


def _short(text: str, width: int = 60) -> str:
    return text if len(text) <= width else f"{text[:28]}...{text[-28:]} ({len(text)} characters)"


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def merge_trials(
    index: str | Path | pd.DataFrame,
    reference: str | Path | pd.DataFrame,
    system: str | Path | pd.DataFrame,
    *,
    task: str = "manipulation",
    convention: Convention = "mediscore",
) -> TrialTable:
    """Merge reference, system output and index as MediScore does (docs/scoring/detection.md#inputs-and-merge).

    ``convention="mediscore"`` drops reference trials that have no (or an empty)
    system score, because of MediScore's overwrite bug (1.1 step 3).
    ``convention="plan"`` keeps them, scored at the lowest system score and
    counted as not responded (plans: opted-out/unprocessed trials get a score
    below every processed trial).
    """
    if convention not in ("mediscore", "plan"):
        raise SetupError(f"unknown convention {convention!r}; use 'mediscore' or 'plan'")
    task_key = normalize_task(task)
    ref = _as_frame(reference, "reference")
    idx = _as_frame(index, "index")
    sys_df = _as_frame(system, "system output", SubmissionError)
    _require(ref, [TARGET_COLUMN, *TASK_KEYS[task_key]], "reference")
    _require(sys_df, [SCORE_COLUMN, *TASK_KEYS[task_key]], "system output", SubmissionError)
    _require(idx, ["ProbeFileID"], "index")
    if ref.empty:
        raise SetupError("reference has no rows")
    _check_reference_trials(ref, idx, TASK_KEYS[task_key])
    if sys_df.empty:
        raise SubmissionError("system output has no rows")

    # 1.1 step 1: the trial key is every system column also in the reference.
    key = tuple(c for c in sys_df.columns if c in ref.columns)
    sys_scores = _parse_scores(sys_df[SCORE_COLUMN], "system output")
    system_columns = tuple(c for c in sys_df.columns if c not in key)

    sys_m = sys_df.copy()
    sys_m[RESPONSE_COLUMN] = "Y"
    # 1.1 step 2: left merge, reference order, one row per matching system row.
    try:
        merged = ref.merge(sys_m, how="left", on=list(key), sort=False)
    except (ValueError, KeyError, TypeError) as exc:
        raise SetupError(f"cannot merge reference and system output on {list(key)}: {exc}") from None
    for col in system_columns + (RESPONSE_COLUMN,):
        merged[col] = merged[col].fillna("").astype(str)
    scores = _parse_scores(merged[SCORE_COLUMN], "system output")
    responded = merged[RESPONSE_COLUMN].to_numpy() == "Y"
    missing = ~responded | np.isnan(scores)

    if convention == "mediscore":
        # 1.1 step 3: rows without a score are overwritten and never match the
        # index, i.e. they are dropped.
        merged = merged.loc[~missing].copy()
        scores = scores[~missing]
    else:
        finite = sys_scores[~np.isnan(sys_scores)]
        if finite.size == 0:
            raise SubmissionError("system output has no numeric ConfidenceScore at all")
        scores = np.where(missing, finite.min(), scores)
        merged[RESPONSE_COLUMN] = np.where(missing, "N", "Y")
    merged[SCORE_COLUMN] = scores  # 1.1 step 4

    # 1.1 step 5: inner merge with the index on the index columns that are in the reference.
    on = [c for c in idx.columns if c in ref.columns]
    if not on:
        raise SetupError(f"index and reference share no column (index has {list(idx.columns)})")
    idx_only = idx[[c for c in idx.columns if c not in merged.columns or c in on]]
    try:
        frame = merged.merge(idx_only, how="inner", on=on, sort=False)
    except (ValueError, KeyError, TypeError) as exc:
        raise SetupError(f"cannot merge trials with the index on {on}: {exc}") from None
    ref_keys = ref[on].drop_duplicates()
    n_index_unmatched = int(len(idx) - len(idx.merge(ref_keys, how="inner", on=on)))
    if len(idx) and n_index_unmatched == len(idx):
        raise SetupError(
            f"reference does not match the index: none of the {len(idx)} index rows is in the reference "
            f"(joined on {on})"
        )
    if frame.empty:
        raise Undefined("no trial left after merging reference, system output and index")
    frame = frame.reset_index(drop=True)

    n_missing_total = int(missing.sum())
    return TrialTable(
        frame=frame,
        key=key,
        task=task_key,
        total=len(frame),  # 1.1 step 6
        system_columns=system_columns,
        n_reference=len(ref),
        n_index=len(idx),
        n_system=len(sys_df),
        n_missing=n_missing_total,
        n_index_unmatched=n_index_unmatched,
        convention=convention,
    )


def optout_mask(frame: pd.DataFrame, convention: Convention = "mediscore") -> np.ndarray | None:
    """Boolean mask of the rows kept by ``--optOut`` (docs/scoring/detection.md#opt-out), or None if no status
    column."""
    if "IsOptOut" in frame.columns:
        keep = frame["IsOptOut"].isin(_KEEP_ISOPTOUT).to_numpy()
    elif "ProbeStatus" in frame.columns:
        allowed = _KEEP_PROBESTATUS_MEDISCORE if convention == "mediscore" else _KEEP_PROBESTATUS_PLAN
        keep = frame["ProbeStatus"].isin(allowed).to_numpy()
    else:
        return None
    if convention == "plan" and RESPONSE_COLUMN in frame.columns:
        keep = keep & (frame[RESPONSE_COLUMN].to_numpy() == "Y")
    return keep


def apply_optout(frame: pd.DataFrame, convention: Convention = "mediscore") -> pd.DataFrame:
    """Rows kept by ``--optOut`` (docs/scoring/detection.md#opt-out); unchanged when there is no status column."""
    keep = optout_mask(frame, convention)
    if keep is None:
        if convention == "plan" and RESPONSE_COLUMN in frame.columns:
            return frame.loc[frame[RESPONSE_COLUMN] == "Y"].reset_index(drop=True)
        return frame
    return frame.loc[keep].reset_index(drop=True)


def journal_frame(frame: pd.DataFrame, journal: JournalTables | None) -> pd.DataFrame:
    """JT-merge trials with the journal tables, one row per (trial, journal operation)
    (docs/scoring/detection.md#queries)."""
    if journal is None:
        return frame
    jshared = [c for c in journal.join.columns if c in journal.mask.columns]
    if not jshared:
        raise SetupError("journal join and journal mask tables share no column")
    jt = journal.join.merge(journal.mask, how="left", on=jshared, sort=False)
    shared = [c for c in frame.columns if c in jt.columns]
    if not shared:
        raise SetupError(f"journal tables share no column with the trials (journal has {list(jt.columns)})")
    out = frame.merge(jt, how="left", on=shared, sort=False)
    for col in out.columns:
        if col != SCORE_COLUMN and out[col].isna().any():
            out[col] = out[col].astype(object).where(out[col].notna(), "").astype(str)
    return out.reset_index(drop=True)


def _typed_column(col: pd.Series) -> pd.Series:
    """Give a string column the type pandas' CSV reader would infer, so queries like ``300 <= ProbeWidth`` work."""
    text = col.astype(str)
    nonempty = text != ""
    if not nonempty.any():
        return text.astype(object)
    if nonempty.all() and text.isin(list(_BOOL_STRINGS)).all():
        return text.map(_BOOL_STRINGS).astype(bool)
    num = pd.to_numeric(text.where(nonempty, None), errors="coerce")
    if num[nonempty].notna().all():
        return num
    return text.astype(object)


def typed_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """Copy of ``frame`` with pandas-default column types, for evaluating queries."""
    return pd.DataFrame(
        {c: (frame[c] if c == SCORE_COLUMN else _typed_column(frame[c])) for c in frame.columns},
        index=frame.index,
    )


def select_query(
    frame: pd.DataFrame,
    query: str,
    kind: QueryKind,
    key: Sequence[str],
    typed: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """Apply one ``q``/``qm``/``qp`` query and de-duplicate on the trial key (docs/scoring/detection.md#queries).

    ``frame`` is the (JT-merged) trial frame. ``qm`` keeps a target when any of
    its journal operations matches and keeps every non-target; ``"*"`` keeps every trial. Pass
    ``typed=typed_frame(frame)`` to reuse the typed copy across queries.
    """
    if query.strip() == "*":
        # MediScore's VTL scorer takes "*" for every probe (docs/scoring/temporal.md#definition); every scorer reads
        # it so, then
        # one --omfc-query "*" serves detection and temporal alike instead of failing one of them.
        return frame.drop_duplicates(subset=list(key), keep="first").reset_index(drop=True)
    if kind == "qm":
        expr = f"({query} and IsTarget == ['Y']) or IsTarget == ['N']"
    else:
        expr = query
    if typed is None:
        typed = typed_frame(frame)
    try:
        selected = typed.query(expr, engine="python")
    except Exception as exc:  # pandas raises many types (NameError, SyntaxError, TypeError...)
        msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        hint = ""
        unquoted = re.sub(r"'[^']*'|\"[^\"]*\"|`[^`]*`", " ", query)
        names = set(re.findall(r"(?<![\w.])[A-Za-z_]\w*", unquoted)) - {"and", "or", "not", "in", "True", "False"}
        unknown = sorted(n for n in names if n not in frame.columns)
        if unknown:
            hint = f"; unknown column(s) {unknown}"
        raise QueryError(
            f"query {query!r} ({kind}) cannot be evaluated: {type(exc).__name__}: {msg}{hint}", unknown
        ) from None
    if not isinstance(selected, pd.DataFrame):
        raise QueryError(f"query {query!r} ({kind}) is not a row filter")
    out = frame.loc[selected.index]
    return out.drop_duplicates(subset=list(key), keep="first").reset_index(drop=True)


_QP_SPLIT = re.compile(r"\s*(?:&|\band\b)\s*")
_QP_LIST = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*==\s*(\[.*\])\s*$")


def partition_query(query: str) -> list[str]:
    """Expand a ``-qp`` query into one query per partition (docs/scoring/detection.md#queries).

    Factors ``Name==['a','b']`` are expanded by Cartesian product; other
    conditions (``<``, ``<=``...) are added to every partition. Unlike MediScore,
    the split is on ``&`` and the whole word ``and`` only, so values or names
    containing "and" are not cut.
    """
    parts = [p for p in _QP_SPLIT.split(query.strip()) if p]
    if not parts:
        raise QueryError(f"empty partition query {query!r}")
    factors: list[list[str]] = []
    others: list[str] = []
    for part in parts:
        m = _QP_LIST.match(part)
        if m:
            try:
                values = ast.literal_eval(m.group(2))
            except (ValueError, SyntaxError):
                raise QueryError(f"partition query {query!r}: cannot parse list in {part!r}") from None
            if not isinstance(values, list) or not values:
                raise QueryError(f"partition query {query!r}: {part!r} needs a non-empty list")
            factors.append([f"{m.group(1)} == [{v!r}]" for v in values])
        else:
            others.append(part)
    if not factors:
        return [" & ".join(others)]
    return [" & ".join([*combo, *others]) for combo in itertools.product(*factors)]
