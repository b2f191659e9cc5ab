"""VMASK and PKG-05 — MFC2019 video spatial masks in HDF5 (docs/rules/vmask.md, docs/rules/pkg.md).

The mask columns of the MFC2019 video output are optional and "not
evaluated" (COL-06, D-16), so every VMASK finding is a warning.  PKG-05 is
an error only for a reference that leaves the submission directory (D-24):
such a file is never opened.

Each HDF5 file is opened at most once per process, read-only, without file
locking, inside a ``with`` block; only link types, group names, dataset
shapes, dtypes and storage layouts are read (never pixels), and only that
plain summary is kept.  External and soft links are reported, never followed.

A mask whose data lives in another file (a dataset with external raw-data
storage, a virtual dataset mapping another file, an external link anywhere in
the tree) would make any reader of the mask read outside bytes, e.g.
``/etc/passwd``: PKG-05 reports it as an error (D-24: the mask must be in
``<SubID>/mask/``).  The VMASK checks only see the metadata summary above, so
they never read those bytes either; a check that reads pixels must skip a file
with ``MaskFile.n_outside``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import arrays
from ..editions import Group, Task
from ..findings import Finding, Report, Severity, plural, shorten
from ..paths import resolve_inside
from ..registry import not_checked, rule
from ..submission import NotApplicable, Submission

if TYPE_CHECKING:
    import h5py

__all__ = ["MaskFile", "Block", "inspect_hdf5", "index_values"]

MASK_COLUMN = "OutputProbeMaskFileName"
PIXEL_COLUMN = "ProbeOptOutPixelValue"
_VID = {Task.VID}
#: MFC2019's plan defines the HDF5 video masks; MFC2018 (no plan here) has the same mask columns (COL-06) and
#: NIST's MFC2018 data had such masks, so its files get the same checks, all warnings but a path leaving the
#: submission (D-16, D-24)
_MASK_GROUPS = {Group.M18, Group.M19}
_REQ = ("CSV-01",)
#: Top-level members examined per file; a file with more is reported, not walked further.
MAX_BLOCKS = 10_000
#: Links visited per file when looking for data stored in other files (PKG-05).
MAX_LINKS = 100_000
_FRAME_NAME = re.compile(r"0|[1-9][0-9]*", re.ASCII)


# ---------------------------------------------------------------------------- HDF5 summary


@dataclass(frozen=True)
class Block:
    """One top-level member of a mask file: ideally group ``<start frame>`` holding dataset ``masks``."""

    name: str
    problem: str | None = None  # why it is not a usable block (VMASK-02)
    shape: tuple[int, ...] | None = None
    dtype: str | None = None


@dataclass
class MaskFile:
    """What a mask file holds, as plain data; ``problem`` is set when it cannot be read (VMASK-07)."""

    problem: str | None = None
    blocks: list[Block] = field(default_factory=list)
    truncated: bool = False
    #: where the file takes data from another file (PKG-05, D-24): the first few, and how many in all
    outside: list[str] = field(default_factory=list)
    n_outside: int = 0
    #: the tree has more than MAX_LINKS links, so it was not searched to the end for them
    outside_unknown: bool = False


def inspect_hdf5(path: Path) -> MaskFile:
    """Summarise ``path`` without reading pixel data; never raises."""
    try:
        if not path.exists():
            return MaskFile("must exist (got no such file)")
        if path.is_dir():
            return MaskFile("must be an HDF5 file (got a directory)")
        if not path.is_file():
            return MaskFile("must be a regular HDF5 file (got a special file)")
        size = path.stat().st_size
        if size == 0:
            return MaskFile("must be an HDF5 file (got an empty file, 0 bytes)")
        head = _signature_head(path, size)
        if head is not None:
            return MaskFile(
                f"must be readable as HDF5 (got {size} bytes without the HDF5 signature, starting {head!r})"
            )
        import h5py

        with h5py.File(path, "r", locking=False) as f:
            out = _summarise(f, h5py)
            _find_outside(f, h5py, out)
            return out
    except Exception as exc:  # a broken file must become a finding, not a crash
        return MaskFile(f"must be readable as HDF5 (got {type(exc).__name__}: {str(exc)[:120]})")


_SIGNATURE = b"\x89HDF\r\n\x1a\n"


def _signature_head(path: Path, size: int) -> bytes | None:
    """None when the HDF5 signature is at offset 0, 512, 1024, ... (after a user block); else the first 8 bytes.

    Read directly rather than with ``h5py.is_hdf5``, which may take a file lock.
    """
    with path.open("rb") as fh:
        head = fh.read(8)
        offset = 0
        while offset + 8 <= size and offset <= 1 << 30:
            fh.seek(offset)
            if fh.read(8) == _SIGNATURE:
                return None
            offset = 512 if offset == 0 else offset * 2
    return head


def _link_kind(link: object) -> str:
    """How a non-hard link is named in messages."""
    return {"SoftLink": "a soft link", "ExternalLink": "an external link"}.get(type(link).__name__, "a link")


def _frame_order(name: str) -> tuple[int, int, str]:
    """Blocks in frame order, names that are not numbers last."""
    return (0, int(name), name) if name.isdigit() and name.isascii() else (1, 0, name)


def _summarise(f: h5py.File, h5: ModuleType) -> MaskFile:
    """Link types, group names, shapes and dtypes of the top-level blocks (h5py imported lazily as ``h5``)."""
    out = MaskFile()
    names = list(f.keys())
    if len(names) > MAX_BLOCKS:
        out.truncated = True
        names = names[:MAX_BLOCKS]
    names.sort(key=_frame_order)
    for name in names:
        link = f.get(name, getlink=True)
        if _is_metadata(f, h5, name, link):  # NIST's own files carry e.g. a 'probe_ids' group: no block, no finding
            continue
        if not isinstance(link, h5.HardLink):
            out.blocks.append(Block(name, f"must be a group, not {_link_kind(link)} (links are not followed)"))
            continue
        obj = f.get(name)
        if not isinstance(obj, h5.Group):
            out.blocks.append(Block(name, f"must be a group '<start frame>/masks' (got a {type(obj).__name__})"))
            continue
        mlink = obj.get("masks", getlink=True)
        if mlink is None:
            out.blocks.append(Block(name, f"must hold a dataset 'masks' (got members {sorted(obj.keys())[:5]})"))
            continue
        if not isinstance(mlink, h5.HardLink):
            out.blocks.append(
                Block(name, f"'masks' must be a dataset, not {_link_kind(mlink)} (links are not followed)")
            )
            continue
        ds = obj.get("masks")
        if not isinstance(ds, h5.Dataset):
            out.blocks.append(Block(name, f"'masks' must be a dataset (got a {type(ds).__name__})"))
            continue
        shape = ds.shape
        if shape is None:
            out.blocks.append(Block(name, "'masks' must hold frames (got an empty dataspace)"))
            continue
        out.blocks.append(Block(name, shape=tuple(int(x) for x in shape), dtype=str(ds.dtype)))
    return out


#: MediScore's whole-video layout: one dataset 'masks/masks' whose frame 0 is the video's first frame.
WHOLE_VIDEO = "masks"


def _is_metadata(f: h5py.File, h5: ModuleType, name: str, link: object) -> bool:
    """A top-level member that is no block: its name is not a frame number (nor :data:`WHOLE_VIDEO`) and it is
    not a group holding 'masks' (a block under a wrong name stays a block, and VMASK-02 names it).  NIST's
    reader (MediScore's ``video``) takes only numbered groups and 'masks/masks', so such members are
    metadata to it: its own files carry a 'probe_ids' group and attributes beside the blocks."""
    if name == WHOLE_VIDEO or _FRAME_NAME.fullmatch(name):
        return False
    if not isinstance(link, h5.HardLink):
        return True
    obj = f.get(name)
    return not (isinstance(obj, h5.Group) and "masks" in obj)


def _outside_of(f: h5py.File, h5: ModuleType, name: str, link: object) -> str | None:
    """How the member ``name`` takes data from another file, or None; reads the layout, never the data."""
    if isinstance(link, h5.ExternalLink):
        return f"an external link {name!r} to {shorten(link.filename, 60)!r}"
    if not isinstance(link, h5.HardLink):
        return None  # soft links stay inside this file
    obj = f.get(name)
    if not isinstance(obj, h5.Dataset):
        return None
    external = obj.external
    if external:
        return f"the dataset {name!r} stored in the external file {shorten(external[0][0], 60)!r}"
    if obj.is_virtual:
        sources = [m.file_name for m in obj.virtual_sources() if m.file_name != "."]
        if sources:
            return f"the virtual dataset {name!r} mapping the file {shorten(sources[0], 60)!r}"
    return None


def _find_outside(f: h5py.File, h5: ModuleType, out: MaskFile) -> None:
    """Record in ``out`` every place of the tree whose data lives in another file (PKG-05).

    Every link is visited once (``visititems_links`` does not follow external
    links, nor loop on hard-link cycles), at most :data:`MAX_LINKS`.
    """
    seen = 0

    def visit(name: str, link: object) -> bool | None:
        nonlocal seen
        seen += 1
        if seen > MAX_LINKS:
            out.outside_unknown = True
            return True  # stops the visit
        try:
            where = _outside_of(f, h5, name, link)
        except Exception:  # an unreadable member is VMASK-02's to report, not proof of outside data
            where = None
        if where:
            out.n_outside += 1
            if len(out.outside) < 3:
                out.outside.append(where)
        return None

    f.visititems_links(visit)


def index_values(ctx: Submission, column: str) -> tuple[np.ndarray, np.ndarray] | None:
    """Per system-output row: the index ``column`` as float64 (NaN when blank, not numeric or no such trial),
    and the raw text (empty for a trial the index lacks); None when the index has no such column."""
    index = ctx.index()
    if not index.has(column):
        return None
    mapped = ctx.index_at(index.column(column), "")
    return arrays.parse_floats(mapped), mapped


# ---------------------------------------------------------------------------- rows


@dataclass
class _Ref:
    pos: int
    name: str
    path: Path | None  # None when unsafe (PKG-05)
    why: str | None


def _refs(ctx: Submission) -> list[_Ref]:
    """Non-blank mask references of rows that are checked (FailedValidation rows are excused, STATUS-08)."""
    table = ctx.sysout()
    if not table.has(MASK_COLUMN):
        raise NotApplicable(f"no {MASK_COLUMN} column (optional and not evaluated in MFC2019 video, D-16)")
    names = table.column(MASK_COLUMN)
    live = ctx.stripped(MASK_COLUMN) != ""
    if table.has("ProbeStatus"):
        live &= ctx.stripped("ProbeStatus") != "FailedValidation"
    rows = np.flatnonzero(live)
    if not len(rows):
        raise NotApplicable("no video masks are named")
    out = []
    for pos in rows:
        name = names[pos]
        path, why = resolve_inside(ctx.dir, name)
        out.append(_Ref(int(pos), name, path, why))
    return out


def _files(ctx: Submission) -> list[tuple[_Ref, MaskFile]]:
    """Safe references with their HDF5 summary (each file inspected once per process)."""
    cache: dict[Path, MaskFile] = ctx.memo("vmask.files", dict)
    out = []
    for ref in _refs(ctx):
        if ref.path is None:
            continue
        if ref.path not in cache:
            cache[ref.path] = inspect_hdf5(ref.path)
        out.append((ref, cache[ref.path]))
    return out


def _loc(ctx: Submission, ref: _Ref) -> dict[str, Any]:
    return ctx.loc(ref.pos, MASK_COLUMN, ref.name)


def _index(ctx: Submission, column: str) -> np.ndarray:
    got = index_values(ctx, column)
    return got[0] if got is not None else np.full(len(ctx.sysout()), np.nan)


# ---------------------------------------------------------------------------- rules


@rule(
    "PKG-05",
    "Video masks live in <SubID>/mask/{MaskFileName}.hdf5",
    groups=_MASK_GROUPS,
    tasks=_VID,
    severity=Severity.WARNING,
    requires=_REQ,
)
def pkg_05(ctx: Submission) -> Report:
    """MFC19 §5.1.2.  A path leaving the submission (``..``, absolute, symlink out) is an error (D-24) and is
    never opened; a path elsewhere inside the submission is a warning (the column is not evaluated, D-16).

    A mask that takes its data from another file (external raw-data storage, a virtual dataset, an external
    link) is an error too: its frames are not in ``<SubID>/mask/`` (D-24), and reading them reads that file.
    """
    mask_dir = (ctx.dir / "mask").resolve()
    found = []
    for ref in _refs(ctx):
        if ref.path is None:
            found.append(Finding(f"the mask path {ref.why}", **_loc(ctx, ref), severity=Severity.ERROR))
        elif not ref.path.resolve().is_relative_to(mask_dir):
            found.append(
                Finding(f"the mask must be under {ctx.sub_id}/mask/ (got {ref.name.strip()!r})", **_loc(ctx, ref))
            )
    out_of_file = []
    for ref, mf in _files(ctx):
        if mf.n_outside:
            more = f"; {mf.n_outside - 1} more like it" if mf.n_outside > 1 else ""
            out_of_file.append(
                Finding(
                    f"the HDF5 mask must hold its frames in {ctx.sub_id}/mask/, not take them from "
                    f"another file (got {mf.outside[0]}{more})",
                    **_loc(ctx, ref),
                    severity=Severity.ERROR,
                )
            )
        elif mf.outside_unknown:
            found.append(
                Finding(
                    f"the HDF5 mask should have at most {MAX_LINKS} links to be searched for data in "
                    "other files (got more)",
                    **_loc(ctx, ref),
                )
            )
    if out_of_file:
        k = len(out_of_file)
        head = (
            f"{plural(k, 'HDF5 mask')} {'takes' if k == 1 else 'take'} data from another file"
            if not found
            else f"video masks outside {ctx.sub_id}/mask/ or taking data from another file"
        )
        return Report(found + out_of_file, headline=head)
    unsafe = sum(1 for f in found if f.severity is Severity.ERROR)
    if unsafe and unsafe < len(found):
        return Report(found, headline=f"video mask paths outside {ctx.sub_id}/mask/")
    if unsafe:
        return Report(
            found,
            headline=f"{plural(unsafe, 'video mask path')} leave the submission directory"
            if unsafe > 1
            else "1 video mask path leaves the submission directory",
        )
    if not found:
        return Report()
    verb = "is" if len(found) == 1 else "are"
    return Report(found, headline=f"{plural(len(found), 'video mask')} {verb} outside {ctx.sub_id}/mask/")


@rule(
    "VMASK-01",
    "A named video mask is an .hdf5 file",
    groups=_MASK_GROUPS,
    tasks=_VID,
    severity=Severity.WARNING,
    requires=_REQ,
)
def vmask_01(ctx: Submission) -> Report:
    """MFC19 §5.1.2.2: "The mask must be in an HDF5 file"; a blank name means no spatial change (D-16: warning)."""
    found = [
        Finding(
            f"the video mask must be an .hdf5 file (got {Path(r.name.strip()).suffix or 'no extension'!r})",
            **_loc(ctx, r),
        )
        for r in _refs(ctx)
        if not r.name.strip().endswith(".hdf5")
    ]
    if not found:
        return Report()
    verb = "does" if len(found) == 1 else "do"
    return Report(found, headline=f"{plural(len(found), 'video mask name')} {verb} not end in .hdf5")


@rule(
    "VMASK-02",
    "HDF5 blocks are groups '<0-indexed start frame>/masks' within FrameCount, not overlapping",
    groups=_MASK_GROUPS,
    tasks=_VID,
    severity=Severity.WARNING,
    requires=_REQ,
)
def vmask_02(ctx: Submission) -> Report:
    """MFC19 §5.1.2.2.  D-15: group names are 0-indexed start frames, ``0 <= g < FrameCount``, and a block of
    n frames covers ``g ... g+n-1`` (so ``g + n <= FrameCount``); blocks are disjoint ("disjoint intervals").
    As NIST's reader: 'masks/masks' is the whole video from frame 0, and members that are no block (a
    'probe_ids' group, a dataset beside the blocks) are metadata, not findings."""
    fc = _index(ctx, "FrameCount")
    found: list[Finding] = []
    files = 0
    for ref, mf in _files(ctx):
        if mf.problem:
            continue
        before = len(found)
        count = fc[ref.pos]
        bound = f"[0, {int(count) - 1}]" if not np.isnan(count) else None
        spans: list[tuple[int, int, str]] = []
        if mf.truncated:
            found.append(
                Finding(
                    f"the HDF5 mask must hold at most {MAX_BLOCKS} blocks to be checked (got more)", **_loc(ctx, ref)
                )
            )
        for b in mf.blocks:
            if b.problem:
                found.append(Finding(f"block {b.name!r} {b.problem}", **_loc(ctx, ref)))
                continue
            if not (b.name == WHOLE_VIDEO or _FRAME_NAME.fullmatch(b.name)):
                found.append(
                    Finding(
                        f"block {b.name!r}: the group name must be the 0-indexed start frame, "
                        f"an integer such as 0 or 30 (got {b.name!r})",
                        **_loc(ctx, ref),
                    )
                )
                continue
            assert b.shape is not None
            if len(b.shape) < 3:
                found.append(
                    Finding(
                        f"block {b.name!r}: 'masks' must be 3-D (frames, height, width) (got shape {b.shape})",
                        **_loc(ctx, ref),
                    )
                )
                continue
            g, n = (0 if b.name == WHOLE_VIDEO else int(b.name)), b.shape[0]
            if bound and g >= count:
                found.append(
                    Finding(
                        f"block {b.name!r}: the start frame must be in {bound} "
                        f"(0-indexed, FrameCount {int(count)}, D-15) (got {g})",
                        **_loc(ctx, ref),
                    )
                )
                continue
            if bound and g + n > count:
                found.append(
                    Finding(
                        f"block {b.name!r}: its {n} frames (0-indexed {g}-{g + n - 1}) must end within "
                        f"{bound} (got {g + n - count:.0f} frame(s) beyond FrameCount {int(count)})",
                        **_loc(ctx, ref),
                    )
                )
            spans.append((g, g + n - 1, b.name))
        spans.sort()
        for (s0, e0, n0), (s1, e1, n1) in zip(spans, spans[1:], strict=False):
            if s1 <= e0:
                found.append(
                    Finding(
                        f"block {n1!r} (frames {s1}-{e1}) must not overlap block {n0!r} (frames {s0}-{e0})",
                        **_loc(ctx, ref),
                    )
                )
        files += len(found) > before
    if not found:
        return Report()
    return Report(found, headline=f"{plural(len(found), 'block layout problem')} in {plural(files, 'HDF5 mask')}")


@rule(
    "VMASK-03",
    "HDF5 mask frames have the probe's frame size",
    groups=_MASK_GROUPS,
    tasks=_VID,
    severity=Severity.WARNING,
    requires=_REQ,
)
def vmask_03(ctx: Submission) -> Report:
    """MFC19 §5.1.2.2/§5.1.2.3: frames are exactly ``ProbeWidth`` x ``ProbeHeight`` of the index (D-26).  NIST's
    video scorer refuses a mask of another size; it is a warning here because the mask columns are "not
    evaluated" in MFC2019 (D-16), and the message says both."""
    width, height = _index(ctx, "ProbeWidth"), _index(ctx, "ProbeHeight")
    found = []
    for ref, mf in _files(ctx):
        w, h = width[ref.pos], height[ref.pos]
        if mf.problem or np.isnan(w) or np.isnan(h):
            continue
        for b in mf.blocks:
            if b.shape is None or len(b.shape) < 3:
                continue
            bh, bw = b.shape[1], b.shape[2]
            if (bw, bh) != (w, h):
                found.append(
                    Finding(
                        f"block {b.name!r}: frames must be {int(w)}x{int(h)} (width x height) like the probe "
                        f"(got {bw}x{bh}; NIST's video scorer refuses a mask of another size: a warning here only "
                        "because MFC2019 does not evaluate video masks, D-16)",
                        **_loc(ctx, ref),
                    )
                )
                break
    if not found:
        return Report()
    return Report(
        found,
        headline=f"{plural(len(found), 'HDF5 mask')} differ in frame size from their probe"
        if len(found) != 1
        else "1 HDF5 mask differs in frame size from its probe",
    )


@rule(
    "VMASK-04",
    "HDF5 mask frames are single-channel, one byte per pixel (uint8)",
    groups=_MASK_GROUPS,
    tasks=_VID,
    severity=Severity.WARNING,
    requires=_REQ,
)
def vmask_04(ctx: Submission) -> Report:
    """MFC19 §5.1.2.2: "single channel (grey)", "a one-byte integer number between 0 and 255"."""
    found = []
    for ref, mf in _files(ctx):
        if mf.problem:
            continue
        for b in mf.blocks:
            if b.shape is None or len(b.shape) < 3:
                continue
            if len(b.shape) > 3:
                found.append(
                    Finding(
                        f"block {b.name!r}: frames must be single-channel grey, shape (frames, height, width) "
                        f"(got shape {b.shape})",
                        **_loc(ctx, ref),
                    )
                )
                break
            if b.dtype != "uint8":
                found.append(
                    Finding(f"block {b.name!r}: pixels must be one byte, uint8 (got {b.dtype})", **_loc(ctx, ref))
                )
                break
    if not found:
        return Report()
    return Report(
        found,
        headline=f"{plural(len(found), 'HDF5 mask')} are not single-channel uint8"
        if len(found) != 1
        else "1 HDF5 mask is not single-channel uint8",
    )


not_checked(
    "VMASK-05",
    "Frames outside the stored blocks are white (255)",
    "a definition of what is not stored: there is nothing in the file to check",
    groups=_MASK_GROUPS,
    tasks=_VID,
)


@rule(
    "VMASK-06",
    "The video opt-out pixel value is blank or a one-byte value",
    groups=_MASK_GROUPS,
    tasks=_VID,
    severity=Severity.WARNING,
    requires=_REQ,
)
def vmask_06(ctx: Submission) -> Report:
    """MFC19 §5.1.2.2: a per-probe opt-out pixel value (OOPIX-01) for one-byte frames, so 0-255.

    Warnings (D-16: column 8 is "not evaluated"); MediScore does not read it for video.
    """
    table = ctx.sysout()
    if not table.has(PIXEL_COLUMN):
        raise NotApplicable(f"no {PIXEL_COLUMN} column (optional in MFC2019 video, D-16)")
    raw = ctx.stripped(PIXEL_COLUMN)
    value = arrays.parse_floats(raw)
    with np.errstate(invalid="ignore"):
        ok = (raw == "") | ((np.mod(value, 1) == 0) & (value >= 0) & (value <= 255))
    found = [
        Finding(
            f"the opt-out pixel value must be blank or an integer in [0, 255] (got {raw[p]!r})",
            **ctx.loc(int(p), PIXEL_COLUMN, table.column(PIXEL_COLUMN)[p]),
        )
        for p in np.flatnonzero(~ok)
    ]
    return Report(found, headline=f"{plural(len(found), 'opt-out pixel value')} outside [0, 255]" if found else None)


@rule(
    "VMASK-07",
    "A named video mask exists in <SubID>/mask and is readable as HDF5",
    groups={*_MASK_GROUPS, Group.O2X},
    tasks=_VID,
    severity=Severity.WARNING,
    requires=_REQ,
)
def vmask_07(ctx: Submission) -> Report:
    """MFC19 §5.1.2.3; MediScore never opens the file (``vid_with_mask_cols``).  Warnings (D-16)."""
    found = []
    for ref, mf in _files(ctx):
        if mf.problem:
            found.append(Finding(f"the HDF5 mask {mf.problem}", **_loc(ctx, ref)))
    if not found:
        return Report()
    verb = "is" if len(found) == 1 else "are"
    return Report(found, headline=f"{plural(len(found), 'HDF5 mask')} {verb} missing or unreadable")
