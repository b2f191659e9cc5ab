"""MASK, OOPIX and PKG-04 — image masks (docs/rules/mask.md, docs/rules/oopix.md, docs/rules/pkg.md).

Every referenced mask is looked at once per process (:func:`mask_facts`):
the reference is checked to stay inside the submission (PKG-04, D-24), the
file is stat'ed and its chunks read and CRC-checked (:mod:`pytest_omfc.png`),
not inflated.  The MASK items then only filter that table, so 16,000 masks
cost one pass of small reads.

Pixels are inflated (:func:`_decoded`) for MASK-04 (is the image data a
complete zlib stream?) and MASK-08 (is every sample black?) in one pass, only
for masks whose header size equals the index size (MASK-06: memory and time
are bounded by the index, not by what a file declares), and once per file
(by device and inode, so symlinks and hard links to one file cost one
decode) per process; big batches go to the pool of :mod:`pytest_omfc.work.pool`
(``--omfc-jobs``), split by the bytes they inflate to.  When the run plans MASK-04 in
this process, that inflating starts during the header pass, chunk by chunk
(:class:`_Early`), so that both CPUs work while the headers are read.

Rows whose status is ``FailedValidation`` are excused from every mask check,
as MediScore excuses them (STATUS-08); in splice files ``ProbeStatus`` excuses
the probe mask, ``DonorStatus`` the donor mask and ``IsOptOut`` both.
"""

from __future__ import annotations

import os
import re
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .. import arrays, png
from ..arrays import Rows
from ..editions import Group, Task
from ..findings import Finding, Report, Severity, Unavailable, plural, shorten
from ..paths import WINDOWS_ABS, resolve_inside
from ..registry import Part, not_checked, rule
from ..submission import NotApplicable, Submission
from ..work.pool import cut, map_slices, resolve_jobs, slices_worth, xdist_worker

N17, M18, M19, O2X = Group.N17, Group.M18, Group.M19, Group.O2X
MASK_TASKS = {Task.IMG, Task.SPL, Task.CAM}
PROBE_COL, DONOR_COL = "OutputProbeMaskFileName", "OutputDonorMaskFileName"
PROBE_PIX, DONOR_PIX = "ProbeOptOutPixelValue", "DonorOptOutPixelValue"
FAILED = "FailedValidation"
_REQ = ("CSV-01",)

#: A mask to inflate: path, width, height, bit depth, colour type, interlace, IDAT offset, measure its dark share
#: (png.decode_pixels).
Item = png.DecodeItem
_INTEGER = re.compile(r"^[+-]?\d+$")

# ---------------------------------------------------------------------------- facts (once per process)


@dataclass
class MaskFacts:
    """One row per non-blank mask reference of the system output, with what its file is.

    ``refs`` columns: pos (row of the system output), side (probe|donor),
    column, raw (the field as written), name (stripped), excused (STATUS-08),
    unsafe (PKG-04 reason or ""), state (a :mod:`pytest_omfc.png` code), msg,
    width, height, bit_depth, colour, interlace, trns, idat, path, fid (the file's
    identity: equal for names reaching the same file; -1 without a readable file).
    """

    refs: Rows
    blanks: Rows  # fields that look blank but are not empty (MASK-01): pos, side, column, raw, excused
    columns: dict[str, str]  # side -> column present in the file
    total: int  # number of rows of the system output
    dims: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)  # side -> expected (w, h) per ref
    decoded: dict[int, png.Verdict] = field(default_factory=dict)  # fid -> png.decode_pixels verdict (this process)
    blackness: dict[int, png.Verdict] = field(default_factory=dict)  # fid -> black or not only (MASK-08 alone)
    #: the row of the system output of each reference (``refs["pos"]``, known before ``refs`` is built)
    pos: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    #: one file in ``dark_step`` has its dark share measured by its one inflate (:func:`_measured`, MASK-08)
    dark_step: int = 1
    early: _Early | None = None  # MASK-04's inflating started during the header pass, not yet taken in
    #: the row selections every MASK rule starts from (:func:`_checked`, :func:`_headers_ok`), made once: ``refs``
    #: is complete before any rule reads it, and a package of 1,000 EXPIDs made each a dozen times per EXPID
    views: dict[str, Rows] = field(default_factory=dict)


def mask_facts(ctx: Submission) -> MaskFacts:
    """The mask table of this process's submission, built on first use."""
    return ctx.memo("mask.facts", lambda: _build_facts(ctx))


def _excused(ctx: Submission, side: str) -> np.ndarray:
    """STATUS-08: FailedValidation rows skip the mask checks (per side in splice files)."""
    cols = ["IsOptOut", "ProbeStatus" if side == "probe" else "DonorStatus"]
    table = ctx.sysout()
    out = np.zeros(len(table), dtype=bool)
    for c in cols:
        if table.has(c):
            out |= ctx.stripped(c) == FAILED
    return out


def _build_facts(ctx: Submission) -> MaskFacts:
    table = ctx.sysout()
    wanted = [("probe", PROBE_COL)] + ([("donor", DONOR_COL)] if ctx.task is Task.SPL else [])
    columns = {side: col for side, col in wanted if table.has(col)}
    if not columns:
        raise Unavailable(ctx.column_rule, f"column {PROBE_COL} is absent")
    parts: list[_Columns] = []
    blank_parts: list[_Columns] = []
    for side, col in columns.items():
        excused = _excused(ctx, side)
        lookalike = ctx.placeholders(col)
        pos = np.arange(len(table))
        raw_texts, names = ctx.column(col), ctx.stripped(col)
        given = (names != "") & ~lookalike
        for into, rows, extra in ((blank_parts, lookalike, {}), (parts, given, {"name": names[given]})):
            n = int(rows.sum())
            into.append(
                {
                    "pos": pos[rows],
                    "side": np.full(n, side, dtype=object),
                    "column": np.full(n, col, dtype=object),
                    "raw": raw_texts[rows],
                    **extra,
                    "excused": excused[rows],
                }
            )
    base = _in_file_order(parts)
    facts = MaskFacts(
        refs=Rows({}),  # set by _probe_files
        blanks=Rows(_in_file_order(blank_parts)),
        columns=columns,
        total=len(table),
        pos=base["pos"],
    )
    facts.early = _probe_files(ctx, facts, base)
    return facts


#: Columns of references by name, as arrays of one length, before they become ``MaskFacts.refs``.
_Columns = dict[str, np.ndarray]


def _in_file_order(parts: list[_Columns]) -> _Columns:
    """The sides' rows together in file order, the probe mask before the donor mask of a row.  One side (every
    task but splice) is in file order already."""
    if len(parts) == 1:
        return parts[0]
    joined = {c: np.concatenate([p[c] for p in parts]) for c in parts[0]}
    order = np.lexsort((joined["side"] != "probe", joined["pos"]))  # by pos, then the probe side first; stable
    return {c: v[order] for c, v in joined.items()}


def _probe_files(ctx: Submission, facts: MaskFacts, base: _Columns) -> _Early | None:
    """Set ``facts.refs``: the references of ``base`` with their file columns: path safety first (PKG-04), then
    stat + PNG header of each unique file; MASK-04's inflating started on the way (:class:`_Early`), or None.

    Directories are resolved once each (usually only ``mask/``); a file is
    resolved on its own only when it is itself a symlink.  Nothing outside the
    submission is opened or stat'ed.
    """
    root = ctx.dir
    parents: dict[str, tuple[str | None, str | None]] = {}
    unsafe: dict[str, str] = {}
    path_of: dict[str, str] = {}
    names = base["name"].tolist()
    for name in dict.fromkeys(names):
        norm = name.replace("\\", "/")
        head, _, leaf = norm.rpartition("/")
        why: str | None = None
        if leaf in ("", ".", "..") or norm.startswith("/") or WINDOWS_ABS.match(name):
            where, why = resolve_inside(root, name)
            path = str(where) if where is not None else None
        else:
            if head not in parents:
                folder, reason = resolve_inside(root, head) if head else (root, None)
                parents[head] = (str(folder) if folder is not None else None, reason)
            base_text, why = parents[head]
            path = f"{base_text}/{leaf}" if base_text is not None else None
            if why is not None:  # say it for the whole name, not only its directory
                why = resolve_inside(root, name)[1] or why
        if why is not None or path is None:
            unsafe[name] = why or "cannot be resolved"
        else:
            path_of[name] = path
    files = sorted(set(path_of.values()))
    facts.dark_step = max(1, -(-len(files) // DARK_SAMPLE))
    early = _early(ctx, facts, base, path_of, files)
    if early is None:
        file_heads = map_slices(png.read_headers, files, ctx.settings.jobs, min_per_job=HEADERS_PER_JOB)
    else:
        file_heads = []
        for at in range(0, len(files), EARLY_CHUNK):
            chunk = files[at : at + EARLY_CHUNK]
            got = png.read_headers(chunk)
            file_heads += got
            early.add(chunk, got)
    results = dict(zip(files, file_heads, strict=False))
    for name, path in path_of.items():  # a final symlink: followed only once it resolves inside
        if results[path].state == png.LINK:
            where, why = resolve_inside(root, name)
            if why is not None or where is None:
                unsafe[name] = why or "cannot be resolved"
            else:
                results[path] = png.read_header(path, follow=True)
    paths = [path_of.get(n, "") for n in names]
    heads = [results.get(p, _UNSAFE_RESULT) if p else _UNSAFE_RESULT for p in paths]
    why_unsafe = [unsafe.get(n, "") for n in names]
    columns: dict[str, np.ndarray] = {"unsafe": arrays.text_array(why_unsafe), "path": arrays.text_array(paths)}
    for col in ("state", "width", "height", "bit_depth", "colour", "interlace", "idat"):
        columns[col] = np.fromiter((getattr(h, col) for h in heads), dtype=np.int64, count=len(heads))
    columns["trns"] = np.fromiter((h.trns for h in heads), dtype=bool, count=len(heads))
    columns["msg"] = arrays.text_array([h.message for h in heads])
    state = columns["state"]
    state[np.fromiter((bool(w) for w in why_unsafe), dtype=bool, count=len(why_unsafe))] = png.UNSAFE
    ids: dict[tuple[int, int], int] = {}  # (device, inode) -> fid
    columns["fid"] = np.fromiter(
        (
            ids.setdefault((h.dev, h.ino), len(ids)) if s == png.OK else -1
            for h, s in zip(heads, state.tolist(), strict=True)
        ),
        dtype=np.int64,
        count=len(heads),
    )
    facts.refs = Rows({**base, **columns})
    return early


class _Early:
    """MASK-04's inflating, started while the header pass goes on: each chunk of headers read sends its files
    of the index size to a pool of one process per CPU (or, with ``--omfc-dask``, one task per chunk to the
    check's cluster), so that the CPUs work during the header pass instead of one.  The files and the
    arguments are those :func:`_decoded` would pass (a sound header whose size is the index size of a
    reference that is not excused, once per file), so the verdicts are the same; what this did not inflate,
    a pool or a cluster that fails, and a mask a cluster's workers found unusable (they may not see the
    submission: :func:`_spread` says so), :func:`_decoded` inflates itself.  Chunks found while the cluster
    is still starting wait for it.  Started only when the run plans MASK-04 here (:func:`_early`), so a check
    that does not inflate never starts it."""

    def __init__(self, want: dict[str, set[tuple[int, int]]], jobs: int, dark_step: int, dask: str | None) -> None:
        from ..work.executors import Executor

        self.want, self.dark_step, self.dask = want, dark_step, dask
        self.seen: set[tuple[int, int]] = set()  # (device, inode): a file reached by two names is sent once
        self.sent: list[tuple[list[Item], Any]] = []  # items, their future (the pool's or dask's)
        self.waiting: list[list[Item]] = []  # chunks found while the cluster starts
        # the scorers' allocator setting in every worker: without it the workers spent far more CPU
        self.executor: Executor | None = Executor(jobs=jobs, dask=dask)

    def add(self, paths: list[str], heads: list[png.HeaderResult]) -> None:
        items: list[Item] = []
        for path, h in zip(paths, heads, strict=True):
            if h.state == png.OK and (h.width, h.height) in self.want.get(path, ()) and (h.dev, h.ino) not in self.seen:
                self.seen.add((h.dev, h.ino))
                measure = _measured(path, self.dark_step)
                items.append((path, h.width, h.height, h.bit_depth, h.colour, h.interlace, h.idat, measure))
        if items:
            self.waiting.append(items)
        if self.executor is not None and self.executor.ready():
            self._send()

    def _send(self) -> None:
        chunks, self.waiting = self.waiting, []
        try:
            for items in chunks:
                assert self.executor is not None
                self.sent.append((items, self.executor.submit(png.decode_many, items)))
        except Exception:  # noqa: BLE001  no processes or no cluster: _decoded inflates these and later files
            self.want = {}

    def verdicts(self) -> dict[Item, png.Verdict]:
        """What the pool or the cluster gave, by the arguments of each file; the executor is closed."""
        out: dict[Item, png.Verdict] = {}
        try:
            if self.waiting and self.want:
                self._send()  # the cluster's start is awaited now
            for items, future in self.sent:
                try:
                    got = future.result()
                except Exception:  # noqa: BLE001  a dead worker: _decoded inflates those files itself
                    continue
                for item, verdict in zip(items, got, strict=True):
                    if self.dask is None or verdict.state != png.BAD_DATA:  # a worker's BAD_DATA: read again here
                        out[item] = verdict
        finally:
            self.close()
        return out

    def close(self) -> None:
        """Cancel what has not started and stop the pool or leave the cluster (idempotent)."""
        executor, self.executor, sent, self.sent, self.waiting = self.executor, None, self.sent, [], []
        if executor is None:
            return
        if self.dask is not None:
            for _, future in sent:
                future.cancel()
        executor.close()


def _early(
    ctx: Submission, facts: MaskFacts, base: _Columns, path_of: dict[str, str], files: list[str]
) -> _Early | None:
    """An :class:`_Early` when MASK-04 will inflate with a pool or a dask cluster anyway: the run plans MASK-04
    (the rules left after deselection, not an xdist worker, which inflates only its slice), more than one
    process or ``--omfc-dask``, the header pass in this process (as :func:`map_slices` would decide), and at
    least two pool slices of work by the index sizes (else None: the header pass runs whole and MASK-04
    inflates later, as without it).  The expected sizes come from :func:`_index_dims` (kept for MASK-06)."""
    jobs = resolve_jobs(ctx.settings.jobs)
    if (
        ctx.planned is None
        or "MASK-04" not in ctx.planned
        or len(files) < 2  # one file is one task: a pool started early gains nothing
        or xdist_worker()
        or (jobs <= 1 and ctx.settings.dask is None)
        or slices_worth(files, HEADERS_PER_JOB) > 1
    ):
        return None
    want: dict[str, set[tuple[int, int]]] = {}
    for side in facts.columns:
        try:
            widths, heights = _index_dims(ctx, facts, side)
        except Unavailable:
            continue
        mine = (base["side"] == side) & ~base["excused"]
        for name, w, h in zip(base["name"][mine].tolist(), widths[mine].tolist(), heights[mine].tolist(), strict=True):
            path = path_of.get(name)
            if path is not None and 0 < w < 2**31 and 0 < h < 2**31 and w == int(w) and h == int(h):
                want.setdefault(path, set()).add((int(w), int(h)))
    work = [max(w * h for w, h in sizes) for sizes in want.values()]  # about what 8-bit grey masks inflate to
    if slices_worth(work, SCANS_PER_JOB, work) <= 1:
        return None
    early = _Early(want, jobs, facts.dark_step, ctx.settings.dask)
    ctx.on_close(early.close)
    return early


_UNSAFE_RESULT = png.HeaderResult(png.UNSAFE)
#: Header states of a name that reaches no regular file (MASK-03).
_ABSENT = (png.MISSING, png.NOT_FILE)

#: Pool thresholds.  With a warm page cache a header read (all chunks, CRCs) costs ~15 us, while a forkserver
#: worker takes ~0.3 s to start: at evaluation scale (16,000 masks) the header pass stays in the item's
#: process.  SCANS_PER_JOB counts inflated bytes: 256 MB per worker, about 20 ms of zlib-ng's inflating at the
#: 10 to 13 GB/s benchmarks/inflate.py prints for these masks (it was set when Python's zlib inflated at
#: 0.5 GB/s); a large check has its forkserver started while pytest collects (pool.warm_up), so that a
#: worker then costs a fork.
HEADERS_PER_JOB = 50_000
SCANS_PER_JOB = 1 << 28
#: MASK-08's mostly-black masks: about this many masks have their dark share measured (their one inflate
#: kept and unfiltered, some milliseconds each for 1920x1080), chosen by :func:`_measured`; a mask is mostly
#: black when more than :data:`MOSTLY_BLACK` of its pixels are below 128, and the submission draws the
#: warning when at least half of the masks measured are
DARK_SAMPLE = 64
MOSTLY_BLACK = 0.5
#: Masks per process for MASK-08's early-stopping scan (a few kilobytes each): a pool only for many.
BLACKNESS_PER_JOB = 20_000
#: Files per chunk of the header pass when MASK-04's inflating starts during it (:class:`_Early`): a chunk's
#: files go to the pool as soon as their headers are read.
EARLY_CHUNK = 1000


def _checked(facts: MaskFacts) -> Rows:
    """References the MASK rules look at: not excused (STATUS-08), inside the submission (PKG-04)."""
    view = facts.views.get("checked")
    if view is None:
        refs = facts.refs
        view = facts.views["checked"] = refs.keep(~refs["excused"].astype(bool) & (refs["unsafe"] == ""))
    return view


def _headers_ok(facts: MaskFacts) -> Rows:
    view = facts.views.get("headers_ok")
    if view is None:
        refs = _checked(facts)
        view = facts.views["headers_ok"] = refs.keep(refs["state"] == png.OK)
    return view


def _rows(refs: Rows, mask: np.ndarray | None = None) -> Iterator[Any]:
    """The rows of ``refs`` (those of ``mask``) as named tuples, or nothing at once when no row is selected."""
    if mask is not None:
        if not mask.any():
            return iter(())
        refs = refs.keep(mask)
    return refs.tuples()


def _finding(
    ctx: Submission, ref: Any, message: str, severity: Severity | None = None, expected: str | None = None
) -> Finding:
    """A finding at the CSV row of ``ref`` (a row of ``refs`` from :func:`_rows`)."""
    return Finding(message, severity=severity, **ctx.loc(int(ref.pos), str(ref.column), ref.raw), expected=expected)


def _show(name: str) -> str:
    """A mask name as a message shows it (long names are cut in the middle)."""
    return shorten(name, 80)


def _of_total(n: int, facts: MaskFacts) -> str:
    return f"{n} of {len(_checked(facts))}"


# ---------------------------------------------------------------------------- PKG-04


@rule(
    "PKG-04",
    "Masks are relative paths under <ID>/mask/ that stay inside the submission",
    tasks=MASK_TASKS,
    severity_by_group={N17: Severity.WARNING},
    requires=_REQ,
)
def pkg_04(ctx: Submission) -> Report:
    """D-24: a relative path without '..' under ``mask/``; NC2017 says "should", so there the location is a warning.

    Leaving the submission (absolute path, '..', a symlink pointing out) is an
    error in every edition, also on FailedValidation rows: the file outside is
    never opened.
    """
    facts = mask_facts(ctx)
    refs = facts.refs
    found: list[Finding] = []
    n_out = n_loc = 0
    unsafe = refs["unsafe"] != ""
    for ref in _rows(refs, unsafe):
        found.append(_finding(ctx, ref, ref.unsafe, Severity.ERROR))
        n_out += 1
    elsewhere = ~unsafe & ~refs["excused"].astype(bool)  # inside the submission: is it under mask/?
    names = refs["name"][elsewhere].tolist()
    elsewhere[elsewhere] = ~np.fromiter(map(_under_mask_dir, names), dtype=bool, count=len(names))
    for ref in _rows(refs, elsewhere):
        found.append(_finding(ctx, ref, f"must be a file under mask/ in the submission directory (got {ref.name!r})"))
        n_loc += 1
    heads = []
    if n_out:
        heads.append(f"{plural(n_out, 'mask path')} leave{'s' if n_out == 1 else ''} the submission directory")
    if n_loc:
        heads.append(f"{n_loc} of {len(refs)} masks are not under {ctx.sub_id}/mask/")
    return Report(found, headline="; ".join(heads) if heads else None)


def _under_mask_dir(name: str) -> bool:
    """``mask/<file>`` (also ``./mask/<file>``), the D-24 location."""
    parts = [p for p in name.replace("\\", "/").split("/") if p not in ("", ".")]
    return len(parts) >= 2 and parts[0] == "mask"


# ---------------------------------------------------------------------------- MASK-01...07


@rule("MASK-01", "A blank mask field is empty (no mask: no localizable change)", tasks=MASK_TASKS, requires=_REQ)
def mask_01(ctx: Submission) -> Report:
    """Blank masks are allowed everywhere, OpenMFC included (D-25); a field of spaces or 'None' is not blank to
    MediScore."""
    facts = mask_facts(ctx)
    blanks = facts.blanks.keep(~facts.blanks["excused"].astype(bool))
    found = [
        Finding(
            f"a missing mask must be an empty field (got {ref.raw!r}, which names a file)",
            **ctx.loc(int(ref.pos), str(ref.column), ref.raw),
        )
        for ref in _rows(blanks)
    ]
    return Report(found, headline=f"{plural(len(found), 'mask field')} look blank but are not empty" if found else None)


#: A name's extension: the last '.' and what follows it, in its last path component.
_SUFFIX = re.compile(r"(\.[^./\\]*)$")


@rule("MASK-02", "The mask file name ends in .png", tasks=MASK_TASKS, requires=_REQ)
def mask_02(ctx: Submission) -> Report:
    """The plans name masks ``{MaskFileName}.png``.  MediScore's image validator takes any case, its splice
    validator only ``.png``/``.PNG`` (a ``.Png`` splice mask is an error); other capitalisations warn."""
    facts = mask_facts(ctx)
    refs = _checked(facts)
    suffix = [m.group(1) if (m := _SUFFIX.search(name)) else "" for name in refs["name"].tolist()]
    odd = np.fromiter((ext != ".png" for ext in suffix), dtype=bool, count=len(suffix))
    found = []
    for ref, ext in zip(_rows(refs, odd), [e for e in suffix if e != ".png"], strict=False):
        if ext.lower() == ".png" and not (ctx.task is Task.SPL and ext != ".PNG"):
            found.append(
                _finding(ctx, ref, f"the name should end in '.png' in lower case (got {ext!r})", Severity.WARNING)
            )
        else:
            got = f"{ext!r}" if ext else "no extension"
            found.append(_finding(ctx, ref, f"the name must end in '.png' (got {got})", Severity.ERROR))
    n_err = sum(1 for f in found if f.severity is Severity.ERROR)
    n = n_err or len(found)
    return Report(found, headline=f"{_of_total(n, facts)} masks are not named .png" if found else None)


@rule("MASK-03", "The referenced mask file exists", tasks=MASK_TASKS, requires=_REQ)
def mask_03(ctx: Submission) -> Report:
    """MediScore enforces it.  A name with surrounding white space or with '\\' separators is not found by
    MediScore either (it joins the name to the CSV's directory as given), so both are errors too."""
    facts = mask_facts(ctx)
    refs = _checked(facts)
    missing = np.isin(refs["state"], _ABSENT)
    names = refs["name"].tolist()
    spaced = refs["raw"] != refs["name"]
    backslash = np.fromiter(("\\" in n for n in names), dtype=bool, count=len(names))
    found = []
    for ref in _rows(refs, missing | spaced | backslash):
        if ref.state in _ABSENT:
            found.append(_finding(ctx, ref, f"{_show(ref.name)} {ref.msg}"))
        elif "\\" in ref.name:
            found.append(
                _finding(
                    ctx,
                    ref,
                    "must use '/' between directories (got '\\', with which MediScore and the "
                    "scorer on Linux do not find the file)",
                )
            )
        else:
            found.append(
                _finding(ctx, ref, f"must be the exact file name (got surrounding white space in {ref.raw!r})")
            )
    return Report(found, headline=f"{_of_total(len(found), facts)} referenced masks do not exist" if found else None)


@rule(
    "MASK-04",
    "The mask is a readable PNG file (by its signature, not its name)",
    tasks=MASK_TASKS,
    requires=_REQ,
    sliced=True,
)
def mask_04(ctx: Submission, part: Part) -> Report:
    """MASK-04: OpenCV must decode the mask.  The PNG signature is required (JPEG bytes named .png
    fail here, unlike in MediScore, which lets OpenCV sniff the format), every chunk must match its CRC
    (libpng rejects a damaged critical chunk, Pillow one before the image data), the file must end with
    IEND, and the image data must be one complete zlib stream holding the whole image (decoders stop with
    "Not enough image data" / "image file is truncated").  The image data is inflated only for masks of
    the index size (a mask failing MASK-06 is not decoded: the index bounds the work).  Sliced as MASK-08
    is (rows by position), so that xdist workers share the inflating; with ``--omfc-dask`` a large check
    inflates on that cluster (``_spread``)."""
    facts = mask_facts(ctx)
    found = [_finding(ctx, ref, f"{_show(ref.name)} {why}") for ref, why in _unreadable(ctx, facts, part)]
    return Report(found, headline=f"{_of_total(len(found), facts)} masks are not readable PNG files" if found else None)


def _unreadable(ctx: Submission, facts: MaskFacts, part: Part | None = None) -> list[tuple[Any, str]]:
    """MASK-04's files, (reference row, why): a bad header, or image data that is not one complete stream
    (the rows of ``part``, else all)."""
    refs = _checked(facts)
    # one process runs every slice: one pass over every file (one pool); an xdist worker inflates its slice
    decoded = _decoded(ctx, facts, refs if part is None or not xdist_worker() else _in(refs, part))
    if part is not None:
        refs = _in(refs, part)
    header_bad = np.isin(refs["state"], (png.UNREADABLE, png.NOT_PNG, png.CORRUPT))
    data_bad = np.array([decoded.get(f, ("", ""))[0] == png.BAD_DATA for f in refs["fid"].tolist()], dtype=bool)
    return [(ref, ref.msg if ref.msg else decoded[ref.fid][1]) for ref in _rows(refs, header_bad | data_bad)]


@rule("MASK-05", "The mask is single-channel grey (no colour, palette or alpha)", tasks=MASK_TASKS, requires=_REQ)
def mask_05(ctx: Submission) -> Report:
    """Colour type 0 without a tRNS chunk; RGB, RGBA, grey+alpha and palette images are "not evaluated" and
    MediScore rejects them."""
    facts = mask_facts(ctx)
    found = [_finding(ctx, ref, f"{_show(ref.name)} {why}") for ref, why in _not_grey(facts)]
    return Report(
        found, headline=f"{_of_total(len(found), facts)} masks are not single-channel grey" if found else None
    )


def _not_grey(facts: MaskFacts) -> list[tuple[Any, str]]:
    """MASK-05's files, (reference row, why): colour, palette, alpha, or grey with a tRNS chunk."""
    refs = _headers_ok(facts)
    bad = (refs["colour"] != 0) | refs["trns"].astype(bool)
    return [
        (ref, f"must be single-channel grey (got {png.colour_name(int(ref.colour), bool(ref.trns))})")
        for ref in _rows(refs, bad)
    ]


def _index_dims(ctx: Submission, facts: MaskFacts, side: str) -> tuple[np.ndarray, np.ndarray]:
    """The index size of ``side`` (probe or donor) for the row of every reference; NaN where the trial or the
    number is unknown (IDX-03 and the index are other rules' business).  D-26: the index, not the output."""
    if side in facts.dims:
        return facts.dims[side]
    index = ctx.index()
    wcol, hcol = ("ProbeWidth", "ProbeHeight") if side == "probe" else ("DonorWidth", "DonorHeight")
    for c in (wcol, hcol):
        if not index.has(c):
            raise Unavailable("CSV-07", f"index {index.display} lacks column {c}")
    widths, heights = ctx.index_memo(
        ("sizes", wcol, hcol),
        lambda: (arrays.parse_floats(index.column(wcol)), arrays.parse_floats(index.column(hcol))),
    )
    facts.dims[side] = (ctx.index_at(widths, np.nan)[facts.pos], ctx.index_at(heights, np.nan)[facts.pos])
    return facts.dims[side]


def _sized(ctx: Submission, facts: MaskFacts, refs: Rows) -> np.ndarray:
    """Which of ``refs`` (rows of ``facts.refs``) have the index size of their side, i.e. pass MASK-06.

    Only these are inflated, so the work is bounded by the index, whatever size a header declares.
    Without an index size (unknown trial, missing column) nothing bounds it and nothing is inflated.
    """
    out = np.zeros(len(refs), dtype=bool)
    rows = refs.index
    w, h = refs["width"], refs["height"]
    for side in facts.columns:
        try:
            ew, eh = _index_dims(ctx, facts, side)
        except Unavailable:
            continue
        out |= (refs["side"] == side) & (w == ew[rows]) & (h == eh[rows])  # NaN: never equal
    return out


def _in(refs: Rows, part: Part) -> Rows:
    """The references of the rows of ``part`` (by position in the system output, as every sliced rule)."""
    if part.count == 1:
        return refs
    return refs.keep(refs["pos"] % part.count == part.index)


def _decoded(ctx: Submission, facts: MaskFacts, refs: Rows, full: bool = True) -> dict[int, png.Verdict]:
    """The :func:`png.decode_pixels` verdicts (by fid) of the files of ``refs`` with a sound header and the index size.

    Each file (by device and inode) is inflated at most once per process: MASK-04 inflates every file
    and the MASK-08 slices reuse its verdicts.  Where MASK-04 did not run in this process (another xdist
    worker had that slice, or MASK-08 runs alone), MASK-08 asks ``full=False``: black or not, stopping
    at the first sample above 0, a few kilobytes into a mask with a white background.
    """
    if facts.early is not None:
        _take_early(facts)
    got = facts.decoded if full else {**facts.blackness, **facts.decoded}
    fids = refs["fid"] if len(refs) else np.empty(0, np.int64)
    if all(f in got for f in fids.tolist() if f >= 0):  # every file inflated already (MASK-08 after MASK-04)
        return got
    refs = refs.keep(refs["state"] == png.OK)
    refs = refs.keep(_sized(ctx, facts, refs))
    known = list(facts.decoded) if full else [*facts.decoded, *facts.blackness]
    todo = refs.keep(~np.isin(refs["fid"], known)) if known else refs
    if len(todo) > 1:
        todo = todo.first_of("fid")
    if not todo.empty:
        paths = todo["path"].tolist()
        items: list[Item] = list(
            zip(
                paths,
                *(todo[c].tolist() for c in ("width", "height", "bit_depth", "colour", "interlace", "idat")),
                [_measured(p, facts.dark_step) for p in paths],
                strict=True,
            )
        )
        fn, into = (png.decode_many, facts.decoded) if full else (png.blackness_many, facts.blackness)
        work = [png.raw_size(*item[1:6]) for item in items] if full else None
        min_per_job = SCANS_PER_JOB if full else BLACKNESS_PER_JOB
        verdicts = _spread(ctx, fn, items, min_per_job=min_per_job, weights=work)
        into.update(zip(todo["fid"].tolist(), verdicts, strict=False))
    return facts.decoded if full else {**facts.blackness, **facts.decoded}


def _measured(path: str, step: int) -> bool:
    """Is the dark share of this file measured (one file in ``step``, :data:`DARK_SAMPLE` in all)?  Decided by
    the path alone, so that every process and every pool picks the same files whatever order it sees them in."""
    return step == 1 or zlib.crc32(path.encode("utf-8", "surrogateescape")) % step == 0


def _take_early(facts: MaskFacts) -> None:
    """The verdicts of the inflating started during the header pass, into ``facts.decoded`` by file."""
    early, facts.early = facts.early, None
    assert early is not None
    got = early.verdicts()
    if not got:
        return
    ok = facts.refs.keep(facts.refs["state"] == png.OK)
    columns = ("path", "width", "height", "bit_depth", "colour", "interlace", "idat")
    for fid, *item in zip(ok["fid"].tolist(), *(ok[c].tolist() for c in columns), strict=True):
        verdict = got.get((*item, _measured(item[0], facts.dark_step)))
        if verdict is not None:
            facts.decoded.setdefault(fid, verdict)


def _spread(
    ctx: Submission,
    fn: Callable[[list[Item]], list[png.Verdict]],
    items: list[Item],
    *,
    min_per_job: float,
    weights: list[int] | None,
) -> list[png.Verdict]:
    """``fn`` over slices of ``items``, verdicts in input order: on the dask cluster of ``--omfc-dask`` when
    the work is worth more than one slice of ``min_per_job`` (then one task per such slice, so that a task
    inflates about 256 MB and costs the scheduler once, not once per mask), else in this machine's processes
    (:func:`~pytest_omfc.work.pool.map_slices`).  The workers read the files themselves, by the absolute paths
    this process resolved inside the submission: they must see them at the same place.  A cluster that
    cannot serve leaves the work to the local processes with an :class:`~pytest_omfc.errors.ExecutionWarning`
    (the verdicts do not depend on where they are computed).  A mask the cluster found unusable is read
    again here, so that a worker that does not see the submission can never fail a mask this process reads
    (a warning counts such masks)."""
    dask, worth = ctx.settings.dask, slices_worth(items, min_per_job, weights)
    if dask is None or worth <= 1:
        return map_slices(fn, items, ctx.settings.jobs, min_per_job=min_per_job, weights=weights)
    import warnings

    from ..errors import ExecutionError, ExecutionWarning
    from ..work.executors import Executor

    try:
        with Executor(jobs=resolve_jobs(ctx.settings.jobs), dask=dask) as cluster:
            verdicts = [v for part in cluster.map(fn, cut(items, worth, weights), batch=1) for v in part]
    except ExecutionError as exc:
        warnings.warn(f"{exc}: the masks were inflated here instead", ExecutionWarning, stacklevel=2)
        return map_slices(fn, items, ctx.settings.jobs, min_per_job=min_per_job, weights=weights)
    again = [i for i, verdict in enumerate(verdicts) if verdict.state == png.BAD_DATA]
    here = map_slices(fn, [items[i] for i in again], ctx.settings.jobs, min_per_job=min_per_job) if again else []
    differ = [i for i, verdict in zip(again, here, strict=True) if verdict.state != png.BAD_DATA]
    for i, verdict in zip(again, here, strict=True):
        verdicts[i] = verdict
    if differ:
        warnings.warn(
            f"dask: the workers of {dask!r} could not use {plural(len(differ), 'mask')} that this process reads "
            f"(first: {items[differ[0]][0]}): they must see the submission at the same paths; those masks were "
            "inflated here",
            ExecutionWarning,
            stacklevel=2,
        )
    return verdicts


@rule("MASK-06", "The mask has the size of its probe (or donor) in the index", tasks=MASK_TASKS, requires=_REQ)
def mask_06(ctx: Submission) -> Report:
    """D-26: the reference size is the index ``ProbeWidth``x``ProbeHeight`` (``DonorWidth``x``DonorHeight`` for
    donor masks), the rendered, EXIF-rotated size, as MediScore compares."""
    facts = mask_facts(ctx)
    found = [
        _finding(ctx, ref, f"{_show(ref.name)} {why}", expected=want) for ref, why, want in _wrong_size(ctx, facts)
    ]
    found.sort(key=lambda f: f.line or 0)
    whose = "their probe or donor" if ctx.task is Task.SPL else "their probe"
    return Report(
        found, headline=f"{_of_total(len(found), facts)} masks differ in size from {whose}" if found else None
    )


def _wrong_size(ctx: Submission, facts: MaskFacts, skip_unknown: bool = False) -> list[tuple[Any, str, str]]:
    """MASK-06's files, (reference row, why, the size wanted), side by side; a side whose index size cannot be
    read raises :class:`Unavailable` (the rule is not checkable), or is passed over with ``skip_unknown``."""
    refs = facts.refs  # its index is the row position (0..n-1), as in _sized
    ok = _headers_ok(facts).index
    sides, widths, heights = refs["side"], refs["width"], refs["height"]
    out = []
    for side in facts.columns:
        try:
            ew, eh = _index_dims(ctx, facts, side)
        except Unavailable:
            if skip_unknown:
                continue
            raise
        sel = ok[sides[ok] == side]
        w, h = widths[sel], heights[sel]
        known = ~np.isnan(ew[sel]) & ~np.isnan(eh[sel])
        bad = sel[known & ((w != ew[sel]) | (h != eh[sel]))]
        if not len(bad):
            continue
        for i, ref in zip(bad, refs.take(bad).tuples(), strict=True):
            want, got = f"{int(ew[i])}x{int(eh[i])}", f"{ref.width}x{ref.height}"
            out.append((ref, f"is {got}, {side} is {want}: must be {want} (got {got})", want))
    return out


@rule("MASK-07", "One byte per pixel (8 bits or fewer)", tasks=MASK_TASKS, requires=_REQ)
def mask_07(ctx: Submission) -> Report:
    """D-14: 1-, 2-, 4- and 8-bit greyscale are accepted (decoders expand them to 0-255); 16-bit samples are an
    error, although MediScore lets them pass."""
    facts = mask_facts(ctx)
    found = [_finding(ctx, ref, f"{_show(ref.name)} {why}") for ref, why in _too_deep(facts)]
    return Report(
        found, headline=f"{_of_total(len(found), facts)} masks use more than one byte per pixel" if found else None
    )


def _too_deep(facts: MaskFacts) -> list[tuple[Any, str]]:
    """MASK-07's files, (reference row, why): more than 8 bits per sample."""
    refs = _headers_ok(facts)
    return [
        (ref, f"must use one byte per pixel, 8 bits or fewer (got {ref.bit_depth}-bit samples)")
        for ref in _rows(refs, refs["bit_depth"] > 8)
    ]


# ---------------------------------------------------------------------------- MASK-08 (pixels)


def _black_masks(n: int) -> str:
    """MASK-08's headline for ``n`` entirely black masks."""
    return f"{plural(n, 'mask')} {'is' if n == 1 else 'are'} entirely black (every pixel claimed manipulated)"


def _inverted_masks(n: int) -> str:
    """MASK-08's headline for the findings of its slices summed (entirely black masks, and slice 0's mostly
    black ones)."""
    return f"{plural(n, 'mask')} {'is' if n == 1 else 'are'} entirely or mostly black: inverted polarity?"


@rule(
    "MASK-08",
    "Pixel semantics: 0 is manipulated, 255 not (no all-black masks; not most masks mostly black)",
    tasks=MASK_TASKS,
    severity=Severity.WARNING,
    requires=_REQ,
    sliced=True,
    summary=_inverted_masks,
)
def mask_08(ctx: Submission, part: Part) -> Report:
    """Lower values mean manipulated.  What a file can show about that is an entirely black mask: it claims
    every pixel was changed, which almost always means inverted polarity (255 used for manipulated).
    Whether greyscale values were meant as binary cannot be told, so it is not judged.

    Inverted masks are more often mostly black than entirely: the manipulated region left white, the rest
    black.  One mask that is mostly manipulated is plausible; most of them are not.  So the first slice also
    measures the share of pixels below 128 on a sample of about :data:`DARK_SAMPLE` masks and warns, naming
    each mask's share, when at least half of those measured are more than :data:`MOSTLY_BLACK` dark
    (:func:`_mostly_black`).  The share comes from MASK-04's one inflate of each file, unfiltered.

    Only grey masks of 8 bits or fewer that passed MASK-04/05/06/07 are read (a mask of the wrong size
    needs no pixel scan); rows whose opt-out pixel value is 0 are left alone.  The pixels come from the
    one inflate per file that MASK-04 does (:func:`_decoded`); image data that cannot be inflated is
    MASK-04's finding, not this rule's.
    """
    facts = mask_facts(ctx)
    refs = _in(_headers_ok(facts), part)
    grey = (refs["colour"] == 0) & ~refs["trns"].astype(bool)
    refs = refs.keep(grey & (refs["bit_depth"] <= 8))
    refs = refs.keep(~_opt_out_zero(ctx, refs))
    if refs.empty and part.index != 0:  # slice 0 also looks for the submission's pattern (_mostly_black)
        return Report()
    decoded = _decoded(ctx, facts, refs, full=False)
    black = np.array([decoded.get(f, ("", ""))[0] == png.BLACK for f in refs["fid"].tolist()], dtype=bool)
    found = [
        _finding(
            ctx,
            ref,
            f"{_show(ref.name)} should be white (255) where not manipulated (got an entirely "
            f"black mask, which claims every pixel of the {ref.side} was manipulated: inverted polarity?)",
        )
        for ref in _rows(refs, black)
    ]
    heads = [_black_masks(len(found))] if found else []
    if part.index == 0:  # the submission's pattern, once (not per slice)
        mostly, measured = _mostly_black(ctx, facts)
        if mostly:
            pct = f"{MOSTLY_BLACK:.0%}"
            n = len(mostly) + sum(1 for _, dark in measured if dark >= 1.0)
            pattern = f"{n} of {plural(len(measured), 'mask')} measured are mostly black"
            found += [
                _finding(
                    ctx,
                    ref,
                    f"{_show(ref.name)} should be white (255) where not manipulated (got {dark:.0%} of its pixels "
                    f"below 128, claimed manipulated; {pattern}: inverted polarity?)",
                )
                for ref, dark in mostly
            ]
            heads.append(f"{pattern} (over {pct} of their pixels below 128): inverted polarity?")
    return Report(found, headline="; ".join(heads) if heads else None)


def _mostly_black(ctx: Submission, facts: MaskFacts) -> tuple[list[tuple[Any, float]], list[tuple[Any, float]]]:
    """The submission's masks that look inverted without being entirely black: ``(mostly, measured)``, each a
    list of (reference row, dark share).  The dark share (pixels below 128) is measured on about
    :data:`DARK_SAMPLE` masks (:func:`_measured`: 8-bit grey, not interlaced, of the index size, not excused,
    whose opt-out value is not 0), from the one inflate MASK-04 makes of each file.  ``mostly`` lists the
    measured masks over :data:`MOSTLY_BLACK` that are not entirely black (those are findings already), and
    only when at least half of the measured masks are over it (entirely black ones included): one mask that
    is mostly manipulated is plausible, most of a submission's masks are not."""
    if facts.decoded and not xdist_worker() and not any(v.dark > MOSTLY_BLACK for v in facts.decoded.values()):
        return [], []  # MASK-04 measured every sampled file in this process, none is mostly black: no pattern
    refs = _headers_ok(facts)
    refs = refs.keep(
        (refs["colour"] == 0) & ~refs["trns"].astype(bool) & (refs["bit_depth"] == 8) & (refs["interlace"] == 0)
    )
    refs = refs.keep(~_opt_out_zero(ctx, refs))
    refs = refs.keep(np.fromiter((_measured(p, facts.dark_step) for p in refs["path"].tolist()), bool, len(refs)))
    if refs.empty:
        return [], []
    decoded = _decoded(ctx, facts, refs)
    measured: list[tuple[Any, float]] = []
    seen: set[int] = set()
    for ref in _rows(refs):
        verdict = decoded.get(ref.fid)
        if verdict is not None and verdict.dark >= 0 and ref.fid not in seen:
            seen.add(ref.fid)
            measured.append((ref, verdict.dark))
    over = [(ref, dark) for ref, dark in measured if dark > MOSTLY_BLACK]
    if not measured or 2 * len(over) < len(measured):
        return [], measured
    return [(ref, dark) for ref, dark in over if dark < 1.0], measured


def _opt_out_zero(ctx: Submission, refs: Rows) -> np.ndarray:
    """Rows whose opt-out pixel value is 0: their black pixels are opted out, not claimed."""
    out = np.zeros(len(refs), dtype=bool)
    table = ctx.sysout()
    for side, col in (("probe", PROBE_PIX), ("donor", DONOR_PIX)):
        if table.has(col):
            zero = ctx.stripped(col) == "0"
            out |= (refs["side"] == side) & zero[refs["pos"]]
    return out


# ---------------------------------------------------------------------------- MASK-09...13


@rule(
    "MASK-09",
    "Splice: the probe mask fits the probe, the donor mask the donor (each may be blank)",
    tasks={Task.SPL},
    requires=_REQ,
)
def mask_09(ctx: Submission) -> Report:
    """Each side is checked on its own (a blank side is fine).  A mask that has the other image's size
    and not its own is reported as swapped; plain size errors are MASK-06's."""
    facts = mask_facts(ctx)
    refs = facts.refs
    ok = _headers_ok(facts).index
    found = []
    for side, other in (("probe", "donor"), ("donor", "probe")):
        if side not in facts.columns:
            continue
        ew, eh = _index_dims(ctx, facts, side)
        ow, oh = _index_dims(ctx, facts, other)
        sel = ok[refs["side"][ok] == side]
        w, h = refs["width"][sel], refs["height"][sel]
        own = (w == ew[sel]) & (h == eh[sel])
        theirs = (w == ow[sel]) & (h == oh[sel])
        for ref in refs.take(sel[~own & theirs]).tuples():
            size = f"{ref.width}x{ref.height}"
            found.append(
                _finding(
                    ctx,
                    ref,
                    f"the {side} mask must be relative to the {side} (got the {other}'s size {size}: "
                    "probe and donor masks swapped?)",
                )
            )
    found.sort(key=lambda f: f.line or 0)
    return Report(found, headline=f"{plural(len(found), 'mask')} fit the other image of the pair" if found else None)


@rule(
    "MASK-10",
    "Camera: one mask per (probe, TrainCamID) pair",
    groups={M18, M19},
    tasks={Task.CAM},
    severity=Severity.WARNING,
    requires=_REQ,
)
def mask_10(ctx: Submission) -> Report:
    """The mask "must be relative to the probe-camera pair" (MFC19 2.1.6); its size is checked against the
    index row of the pair by MASK-06.  A file shared by several pairs cannot be relative to each, so it is
    reported (a warning: MediScore and the scorer accept it)."""
    facts = mask_facts(ctx)
    refs = _checked(facts)
    groups: dict[str, list[int]] = {}  # path -> positions in refs, in file order
    for i, path in enumerate(refs["path"].tolist() if len(refs) else []):
        if path:
            groups.setdefault(path, []).append(i)
    keys = ctx.sys_keys
    found = []
    for group in (refs.take(np.array(at)) for at in groups.values() if len(at) > 1):
        pairs = [keys[int(p)] for p in group["pos"]]
        if len(set(pairs)) < 2:
            continue
        for ref in group.tuples():
            others = [k for k in pairs if k != keys[int(ref.pos)]]
            found.append(
                _finding(
                    ctx,
                    ref,
                    f"each (probe, TrainCamID) pair should have its own mask (got {_show(ref.name)} "
                    f"also for {others[0]}" + (f" and {len(others) - 1} more" if len(others) > 1 else "") + ")",
                )
            )
    found.sort(key=lambda f: f.line or 0)
    return Report(found, headline=f"{plural(len(found), 'row')} share a mask file with another pair" if found else None)


@rule(
    "MASK-11",
    "NC2017 and OpenMFC video have no mask column",
    groups={N17, O2X},
    tasks={Task.VID},
    severity=Severity.WARNING,
    requires=_REQ,
)
def mask_11(ctx: Submission) -> Report:
    """NC2017 video has no localization and OpenMFC VMD/VGMD are detection only: a mask is never evaluated."""
    table = ctx.sysout()
    if not table.has(PROBE_COL):
        return Report()
    col = table.column(PROBE_COL)
    given = (ctx.stripped(PROBE_COL) != "").nonzero()[0]
    found = [
        Finding(
            f"{ctx.edition.value} video is detection only: the mask column should be left out (got a mask name)",
            **ctx.loc(int(p), PROBE_COL, col[p]),
        )
        for p in given
    ]
    return Report(
        found, headline=f"{plural(len(found), 'row')} name a video mask that is never evaluated" if found else None
    )


not_checked(
    "MASK-12",
    "(MediScore option) --output_revised_system rewrites wrong-size rows to FailedValidation",
    "a MediScore tool behaviour; pytest-omfc never writes into the submission (MASK-06 reports the sizes and "
    "STATUS-08 excuses FailedValidation rows)",
    tasks=MASK_TASKS,
)
not_checked(
    "MASK-13",
    "(MediScore option) -nm skips every mask check",
    "a MediScore command-line option, not a rule of the submission; deselect the items with -k 'not MASK' instead",
    tasks=MASK_TASKS,
)


# ---------------------------------------------------------------------------- OOPIX


def _pixel_columns(ctx: Submission) -> list[str]:
    table = ctx.sysout()
    cols = [c for c in (PROBE_PIX, DONOR_PIX) if table.has(c)]
    if not cols:
        raise NotApplicable("no ProbeOptOutPixelValue column (COL-* decide whether it is required)")
    return cols


def _pixel_values(ctx: Submission, col: str) -> tuple[np.ndarray, np.ndarray]:
    """The values as written and stripped, and which of them are integers (``_INTEGER``)."""
    text = ctx.stripped(col)
    match = _INTEGER.match
    return text, np.fromiter((match(t) is not None for t in text.tolist()), dtype=bool, count=len(text))


_OOPIX_TASKS = {Task.IMG, Task.SPL, Task.CAM, Task.VID}


def _video_severity(ctx: Submission) -> Severity | None:
    """D-16: MFC video mask columns are optional and not evaluated, so their findings are warnings."""
    return Severity.WARNING if ctx.task is Task.VID else None


@rule(
    "OOPIX-01", "The opt-out pixel value is blank or an integer", groups={M18, M19}, tasks=_OOPIX_TASKS, requires=_REQ
)
def oopix_01(ctx: Submission) -> Report:
    """MediScore enforces it where the column exists (not for video, where D-16 makes it a warning)."""
    found = []
    for col in _pixel_columns(ctx):
        values = ctx.column(col)
        text, integer = _pixel_values(ctx, col)
        bad = ((text != "") & ~integer).nonzero()[0]
        found += [
            Finding(
                f"must be blank or an integer (got {values[p]!r})",
                severity=_video_severity(ctx),
                **ctx.loc(int(p), col, values[p]),
            )
            for p in bad
        ]
    found.sort(key=lambda f: f.line or 0)
    return Report(
        found,
        headline=f"{plural(len(found), 'opt-out pixel value')} {'is' if len(found) == 1 else 'are'} "
        "neither blank nor an integer"
        if found
        else None,
    )


@rule(
    "OOPIX-02",
    "The opt-out pixel value is a one-byte value, 0-255",
    groups={M18, M19},
    tasks=_OOPIX_TASKS,
    requires=_REQ,
)
def oopix_02(ctx: Submission) -> Report:
    """Masks hold one byte per pixel (MASK-07), so no other value can occur in them; MediScore lets 300 pass."""
    found = []
    for col in _pixel_columns(ctx):
        values = ctx.column(col)
        text, integer = _pixel_values(ctx, col)
        ints = np.where(integer, arrays.parse_floats(text), np.nan)
        bad = ((ints < 0) | (ints > 255)).nonzero()[0]
        found += [
            Finding(
                f"must be a one-byte pixel value 0-255 (got {text[p]})",
                severity=_video_severity(ctx),
                **ctx.loc(int(p), col, values[p]),
            )
            for p in bad
        ]
    found.sort(key=lambda f: f.line or 0)
    return Report(
        found,
        headline=f"{plural(len(found), 'opt-out pixel value')} {'is' if len(found) == 1 else 'are'} outside 0-255"
        if found
        else None,
    )


@rule("OOPIX-03", "OpenMFC: ProbeOptOutPixelValue is blank", groups={O2X}, tasks={Task.IMG}, requires=_REQ)
def oopix_03(ctx: Submission) -> Report:
    """OMFC 5.1: "blank for OpenMFC evaluation"; OpenMFC has no opt-out, so a value is an error."""
    table = ctx.sysout()
    if not table.has(PROBE_PIX):
        raise NotApplicable("no ProbeOptOutPixelValue column (COL-02 decides whether it is required)")
    values = table.column(PROBE_PIX)
    bad = (ctx.stripped(PROBE_PIX) != "").nonzero()[0]
    found = [
        Finding(f"must be blank for OpenMFC (got {values[p]!r})", **ctx.loc(int(p), PROBE_PIX, values[p])) for p in bad
    ]
    return Report(found, headline=f"{len(found)} of {len(values)} rows give a ProbeOptOutPixelValue" if found else None)


@rule(
    "OOPIX-04",
    "NC2017: no pixel opt-out column",
    groups={N17},
    tasks={Task.IMG, Task.SPL},
    severity=Severity.WARNING,
    requires=_REQ,
)
def oopix_04(ctx: Submission) -> Report:
    """NC17 5.1.1 has no pixel opt-out; a column would be ignored, so it should be left out."""
    table = ctx.sysout()
    found = []
    for col in (PROBE_PIX, DONOR_PIX):
        if table.has(col):
            n = int((ctx.stripped(col) != "").sum())
            values = plural(n, "value") if n else "no values"
            found.append(
                Finding(
                    f"NC2017 has no pixel opt-out: the column should be left out (got {col} with {values})",
                    file=table.display,
                    line=1,
                    column=col,
                )
            )
    return Report(found, headline=f"{plural(len(found), 'pixel opt-out column')} in an NC2017 file" if found else None)


# ---------------------------------------------------------------------------- the scorer's view of the same files


def rejected_masks(ctx: Submission) -> dict[str, str]:
    """Every system mask file that a file rule (MASK-03..07) fails with an error: ``{absolute path: "MASK-0x: ..."}``.

    The mask scorer does not score these (the trial is "not scored: MASK-04 ..."), so a file the rules
    reject is never scored and a file they accept is read by the scorer through the same header pass and
    the same inflate (:func:`pytest_omfc.png.read_header`, :func:`pytest_omfc.png.unfiltered`).  MASK-04's
    image-data verdicts are those of this process (inflated once, shared with MASK-04 and MASK-08).  Rules
    that are warnings for the edition do not reject a file.  Nothing when the system output cannot be read
    (the scorer says why itself).
    """
    from ..registry import REGISTRY

    try:
        facts = mask_facts(ctx)
    except Unavailable:
        return {}
    refs = _checked(facts)
    if refs.empty:
        return {}
    absent = [(ref, ref.msg) for ref in _rows(refs, np.isin(refs["state"], _ABSENT))]
    problems: list[tuple[str, Callable[[], list[tuple[Any, str]]]]] = [
        ("MASK-03", lambda: absent),
        ("MASK-04", lambda: _unreadable(ctx, facts)),
        ("MASK-05", lambda: _not_grey(facts)),
        ("MASK-06", lambda: [(ref, why) for ref, why, _ in _wrong_size(ctx, facts, skip_unknown=True)]),
        ("MASK-07", lambda: _too_deep(facts)),
    ]
    out: dict[str, str] = {}
    for rid, found in problems:
        if REGISTRY[rid].severity_for(ctx.group) is not Severity.ERROR:
            continue
        for ref, why in found():
            if ref.path:
                out.setdefault(os.path.abspath(ref.path), f"{rid}: {_show(ref.name)} {why}")
    return out
