"""The parsed ForgeryNet submission and reference, shared by the FNET rules and scorers.

A :class:`ForgeryNetSubmission` is the ForgeryNet edition's :class:`~pytest_omfc.submission.Submission`:
the same outcome cache, prerequisites and crash handling, but no index (the reference lists the
IDs) and other files: a pipe-separated ``<SubID>/<SubID>.csv`` for classification and spatial
localization, an ActivityNet ``<SubID>/<SubID>.json`` for temporal localization.  Every file is
read once, bounded (the reference bounds the submission), and every problem becomes a
:class:`~pytest_omfc.findings.Finding` naming file, line or JSON path, ID, value and what was
expected.  Rows that fail a rule are left out of scoring (:meth:`scorable`); nothing here raises
on bad input.
"""

from __future__ import annotations

import functools
import json
import math
import os
from collections.abc import MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from .. import jpeg, png
from ..csvio import Limits, ParseResult, Table, limits_for, read_psv
from ..editions import Edition, Task
from ..findings import DEFAULT_MAX_FINDINGS, Finding, Severity, Unavailable
from ..jsonio import JsonProblem, load_json
from ..options import MAP_PIXELS
from ..paths import resolve_inside
from ..submission import CheckSettings, Submission
from ..work.pool import map_slices
from .maps import too_many_pixels

if TYPE_CHECKING:  # pandas is imported where a ForgeryNet file is read
    import pandas as pd

    from .lists import ParsedList

__all__ = [
    "TOP_PREDICTIONS",
    "SUM_TOLERANCE",
    "ForgeryNetSettings",
    "ForgeryNetSubmission",
    "MaskInfo",
    "Predictions",
    "Reference",
    "json_path",
    "show_json",
]

#: Only the 10 highest-scored predictions of a video are scored
# (docs/scoring/forgerynet.md#temporal-localization-metrics).
TOP_PREDICTIONS = 10
#: k-way probabilities must sum to 1 within this (a warning, FNET-06).
SUM_TOLERANCE = 1e-6

#: JSON files are read by the package's one JSON reader (:func:`pytest_omfc.jsonio.load_json`: bounded, no
#: FIFO, no duplicated key), with NaN and Infinity kept so that FNET-11 can name the value and its JSON path.
#: A result file may hold this much per reference video (a prediction is ~60 bytes: 1000 of them), ...
JSON_BYTES_PER_VIDEO = 64 * 1024
#: ... plus this margin; without a usable reference (and for the reference itself) the bound is
#: :data:`NO_REFERENCE_BYTES`.
JSON_BYTES_MARGIN = 1 << 20
NO_REFERENCE_BYTES = 256 << 20


def json_limit(videos: int | None) -> int:
    """The largest result file a reference of ``videos`` videos justifies (None: no usable reference)."""
    return NO_REFERENCE_BYTES if videos is None else JSON_BYTES_PER_VIDEO * videos + JSON_BYTES_MARGIN


def _why(exc: JsonProblem) -> str:
    """A JSON problem as a predicate after the file's name: "does not exist", "must be valid JSON (...)"."""
    return "does not exist" if exc.missing else exc.why


def json_path(video: str, index: int | None = None, key: str | None = None, root: str = "results") -> str:
    """``results["vid7"][3].segment``: where a value sits in a JSON document."""
    out = f"{root}[{json.dumps(video, ensure_ascii=False)}]"
    if index is not None:
        out += f"[{index}]"
    return out + (f".{key}" if key else "")


def _number(value: Any) -> float | None:
    """A JSON number as float (NaN and infinities included); None for anything else (a bool is not a number)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        return float(value)
    except OverflowError:  # an integer with 400 digits
        return math.inf if value > 0 else -math.inf


@dataclass(frozen=True)
class MaskInfo:
    """A mask named by a row: where it is (None if unsafe) and its PNG header (None if not looked at)."""

    name: str
    path: Path | None
    problem: str | None  # why it cannot be used, "must ... (got ...)"
    width: int = 0
    height: int = 0


#: Map headers per process (``--omfc-jobs``): a header costs some 30 us, a pool of warm workers a fraction
#: of a second, so only the sets of tens of thousands of maps spread.
HEADERS_PER_JOB = 10_000


def map_names(image: str) -> list[str]:
    """Where the map of ``image`` (a name of the image list) may be in the maps folder, most likely first.

    ForgeryNet's maps are named as their image (JPEG).  The training list's ``train_release/...`` images
    have theirs under ``train_mask_release/...``; the validation list's ``val_perturb_release/...`` under
    the same name, or, in copies whose maps folder lacks that first folder, under the rest of the name
    (the two ways its loaders build the path).  Each place is also tried with the extension ``.png``
    (maps converted to PNG).  A name with ``..``, an absolute one or one with a backslash is only itself:
    the maps folder's guard (:func:`pytest_omfc.paths.resolve_inside`) then judges it.
    """
    parts = image.split("/")
    if not image or image.startswith("/") or "\\" in image or ".." in parts:
        return [image]
    places = [image]
    if len(parts) > 1:
        if parts[0] == "train_release":
            places.insert(0, "/".join(["train_mask_release", *parts[1:]]))
        places.append("/".join(parts[1:]))
    out = []
    for place in places:
        out.append(place)
        stem = place.rsplit(".", 1)[0] if "." in place.rsplit("/", 1)[-1] else place
        if f"{stem}.png" != place:
            out.append(f"{stem}.png")
    return out


def _mask_info(name: str, path: Path, head: png.HeaderResult) -> MaskInfo:
    """What a row's (or a reference line's) mask is, from its header."""
    if head.state != png.OK:
        return MaskInfo(name, None, head.message or "must be a readable PNG file")
    if head.kind == "JPEG":  # a reference map as ForgeryNet ships it (jpeg.read_map_header)
        if head.colour not in (0, 2) or head.bit_depth != 8:
            got = f"{jpeg.components_name(head)}, {head.bit_depth}-bit"
            return MaskInfo(name, None, f"must be a grey or YCbCr JPEG of 8-bit samples (got {got})")
    elif head.colour != 0 or head.trns or head.bit_depth not in (1, 8):
        got = png.colour_name(head.colour, head.trns)
        return MaskInfo(
            name,
            None,
            f"must be a grey (mode L, 8-bit) or 1-bit PNG (got {got}, {head.bit_depth}-bit)",
            head.width,
            head.height,
        )
    too_big = too_many_pixels(head.width, head.height)  # two 30000x30000 maps of 1 MB took scoring to 3.5 GB
    if too_big is not None:
        return MaskInfo(name, None, too_big, head.width, head.height)
    return MaskInfo(name, path, None, head.width, head.height)


def _within_budget(infos: list[MaskInfo], budget: int) -> list[MaskInfo]:
    """The system maps, in row order, with every usable map past the run's pixel budget made unusable (FNET-07,
    naming the total it would reach): the per-map bound caps the memory of a decode, this the run's decoding
    time.  The scorer leaves those rows out as it leaves out every unusable map."""
    usable = np.fromiter((i.path is not None and i.problem is None for i in infos), dtype=bool, count=len(infos))
    pixels = np.fromiter((i.width * i.height for i in infos), dtype=np.int64, count=len(infos)) * usable
    totals = np.cumsum(pixels)
    over = np.flatnonzero(usable & (totals > budget))
    if not over.size:
        return infos
    out = list(infos)
    for pos in over.tolist():
        info = infos[pos]
        out[pos] = MaskInfo(
            info.name,
            None,
            f"must fit the run's pixel budget: the system maps may hold at most {budget:,} pixels together "
            f"(--omfc-map-pixels; with this {info.width}x{info.height} map they would hold {int(totals[pos]):,})",
            info.width,
            info.height,
        )
    return out


@dataclass
class Reference:
    """The reference, parsed: IDs in file order with their labels, masks, segments and durations."""

    display: str
    ids: list[str] = field(default_factory=list)
    lines: MutableMapping[str, int] = field(default_factory=dict)  # ID -> line (CSV)
    labels: MutableMapping[str, int] = field(default_factory=dict)
    masks: dict[str, MaskInfo] = field(default_factory=dict)  # spatial; "" name: a real image, no map
    segments: dict[str, list[tuple[float, float]]] = field(default_factory=dict)  # temporal
    durations: dict[str, float | None] = field(default_factory=dict)
    problems: list[Finding] = field(default_factory=list)
    fatal: str | None = None  # the reference cannot be used at all
    label_array: np.ndarray | None = None  # the labels in the order of ``ids``, where the reader gave them


@dataclass
class Predictions:
    """Every entry of an ActivityNet result file, flattened (one row per entry)."""

    video: list[str] = field(default_factory=list)
    index: list[int] = field(default_factory=list)
    start: list[float] = field(default_factory=list)
    end: list[float] = field(default_factory=list)
    score: list[float] = field(default_factory=list)
    segment_problem: list[str | None] = field(default_factory=list)  # FNET-09
    segment_value: list[Any] = field(default_factory=list)
    score_problem: list[str | None] = field(default_factory=list)  # FNET-11
    score_value: list[Any] = field(default_factory=list)
    videos: list[str] = field(default_factory=list)  # the result's video IDs, in file order
    structure: list[Finding] = field(default_factory=list)  # FNET-01: entries that are not objects, ...
    fatal: str | None = None


def forgerynet_settings(
    sub: Path,
    reference: Path,
    task: Task,
    classes: int,
    dataset_root: Path | None,
    max_findings: int = DEFAULT_MAX_FINDINGS,
    jobs: int = 0,
    *,
    time_unit: str = "frames",
    fps: float | None = None,
    video_info: Path | None = None,
    spatial_maps: Path | None = None,
    map_pixels: int = MAP_PIXELS,
) -> ForgeryNetSettings:
    """The settings of a ForgeryNet check (the plugin's and ``omfc_score``'s): the system file is the file
    given, else ``<ID>/<ID>.json`` (temporal) or ``<ID>/<ID>.csv``; the reference lists the IDs."""
    sub_dir = sub.parent if sub.is_file() else sub
    system = sub if sub.is_file() else sub_dir / f"{sub_dir.name}{'.json' if task is Task.FTL else '.csv'}"
    return ForgeryNetSettings(
        submission=sub_dir,
        csv=system,
        reference=reference,
        classes=classes,
        edition=Edition.ForgeryNet,
        task=task,
        dataset_root=dataset_root if dataset_root is not None else reference.parent,
        max_findings=max_findings,
        jobs=jobs,
        time_unit=time_unit,
        fps=fps,
        video_info=video_info,
        spatial_maps=spatial_maps,
        map_pixels=map_pixels,
    )


@dataclass(frozen=True, kw_only=True)
class ForgeryNetSettings(CheckSettings):
    """The settings of a ForgeryNet check: no index; the reference lists the IDs and ``classes`` picks the
    label level of a classification task.  Temporal localization against a video list (frames):
    ``time_unit`` of the predictions (``seconds`` are multiplied by ``fps``), ``video_info`` the videos'
    frame counts (their durations, for FNET-10)."""

    reference: Path
    classes: int = 2
    time_unit: str = "frames"
    fps: float | None = None
    video_info: Path | None = None
    spatial_maps: Path | None = None  # spatial against an image list: the reference maps (spatial_localize)
    map_pixels: int = MAP_PIXELS  # spatial: the most pixels the system maps may hold together (--omfc-map-pixels)

    @property
    def listing(self) -> tuple[str, Path]:
        return "reference", self.reference


class ForgeryNetSubmission(Submission):
    """A ForgeryNet submission: the system file, the reference and what the FNET rules derive from both."""

    settings: ForgeryNetSettings

    def __init__(self, settings: ForgeryNetSettings) -> None:
        super().__init__(settings)
        self.settings = settings
        self._resolved: dict[str, Path] = {}  # real paths of the folders the maps are in (resolve_inside)

    @property
    def classes(self) -> int:
        return self.settings.classes

    @property
    def reference_path(self) -> Path:
        return self.settings.reference

    @property
    def keys(self) -> tuple[str, ...]:
        return ("ID",)

    @property
    def column_rule(self) -> str:
        return "FNET-03"

    @property
    def is_temporal(self) -> bool:
        return self.task is Task.FTL

    @functools.cached_property
    def ref_display(self) -> str:
        root = self.settings.dataset_root
        path = self.reference_path
        shown = path.name
        if root is not None and path.is_relative_to(root):
            shown = str(path.relative_to(root.parent if root.parent != root else root))
        return shown + "/" if path.is_dir() else shown

    # ------------------------------------------------------------------ columns

    @property
    def prob_columns(self) -> list[str]:
        """The columns holding probabilities: Score (2-way, spatial) or P0..P<k-1>."""
        if self.task is Task.FSL or self.classes == 2:
            return ["Score"]
        return [f"P{i}" for i in range(self.classes)]

    @property
    def expected_columns(self) -> list[str]:
        return ["ID", *self.prob_columns] + (["MaskFileName"] if self.task is Task.FSL else [])

    def header_text(self) -> str:
        return "|".join(self.expected_columns)

    # ------------------------------------------------------------------ reference

    @functools.cached_property
    def reference(self) -> Reference:
        """The reference, parsed once; its problems are FNET-02's findings.  A classification reference may
        be the benchmark's own image or video list (recognised by content, :func:`.lists.sniff`)."""
        kind = self.reference_kind
        if kind == "maps-folder":
            return self._folder_reference()
        if self.is_temporal:
            return self._list_reference(kind) if kind == "video-list" else self._json_reference()
        if kind in ("image-list", "video-list") and self.task is not Task.FSL:
            return self._list_reference(kind)
        if kind == "image-list":
            return self._map_reference()
        return self._csv_reference()

    def _map_reference(self) -> Reference:
        """Spatial localization against the image list: its IDs and binary labels, the map of each fake image
        in the maps folder (``--omfc-spatial-maps``, default ``spatial_localize/`` beside the list) where the
        benchmark's loaders look for it (:func:`map_names`), none for a real image (all zero)."""
        from .lists import read_image_list

        ref = self._from_list(read_image_list(self.reference_path, self.ref_display, 2))
        folder = self.settings.spatial_maps or self.reference_path.parent / "spatial_localize"
        if ref.fatal is None and not folder.is_dir():
            ref.fatal = f"{self.ref_display} has no maps folder {folder} (give it with --omfc-spatial-maps)"
            ref.problems.append(
                Finding(f"the reference maps folder must exist (got no {folder})", file=self.ref_display)
            )
            return ref
        fakes, names = [], []
        layout = 0  # the candidate that found the last map: one layout serves a whole list, so it is tried first
        for rid in ref.ids:
            if not ref.labels[rid]:
                ref.masks[rid] = MaskInfo("", None, None)
                continue
            fakes.append(rid)
            candidates = map_names(rid)
            layout = min(layout, len(candidates) - 1)
            order = [layout, *(i for i in range(len(candidates)) if i != layout)]
            found = next((i for i in order if os.path.lexists(folder / candidates[i])), None)
            if found is not None:
                layout = found
            names.append(candidates[layout if found is None else found])
        infos = self._masks(folder, names, within="the maps folder", reference=True)
        for rid, name, info in zip(fakes, names, infos, strict=True):
            self._reference_map(ref, rid, info, f"{folder.name}/{name}")
        return ref

    def _folder_reference(self) -> Reference:
        """Spatial localization against the maps folder alone (``--omfc-reference spatial_localize/``): every
        PNG or JPEG under it (:data:`MAP_SUFFIXES`) is the map of a fake image, named as the image (ForgeryNet's
        JPEG maps) or as the image with ``.png``; the reference IDs are those names without the extension
        (:func:`_image_of`), and a prediction's ID matches when it names the same image with any extension
        (:attr:`sys_ids`).  Real images have no map, so a folder alone lists fake images only (the image list,
        with the folder beside it, scores real ones too).  The walk is bounded and follows no link."""
        folder = self.reference_path  # (a folder for another task is a usage error: the glue and the API refuse it)
        ref = Reference(display=self.ref_display)
        names: list[str] = []
        for top, dirs, files in os.walk(folder, followlinks=False):
            dirs.sort()
            for name in sorted(files):
                if name.lower().endswith(MAP_SUFFIXES):
                    names.append(os.path.relpath(os.path.join(top, name), folder).replace(os.sep, "/"))
            if len(names) > MAX_REFERENCE_MAPS:
                ref.fatal = f"{self.ref_display} holds more than {MAX_REFERENCE_MAPS:,} maps"
                ref.problems.append(
                    Finding(f"the maps folder must hold at most {MAX_REFERENCE_MAPS:,} maps", file=self.ref_display)
                )
                return ref
        if not names:
            ref.fatal = f"{self.ref_display} holds no PNG or JPEG map"
            ref.problems.append(
                Finding("the maps folder must hold the PNG or JPEG maps of the fake images", file=self.ref_display)
            )
            return ref
        first: dict[str, str] = {}  # image ID -> its map; frame.png, frame.PNG and frame.jpg name one image
        for name in names:
            if (other := first.setdefault(_image_of(name), name)) != name:
                ref.problems.append(
                    Finding(
                        f"each image must have one map (got {name!r} beside {other!r}; {other!r} is used)",
                        file=self.ref_display,
                        key=_image_of(name),
                        value=name,
                    )
                )
        names = list(first.values())
        infos = self._masks(folder, names, within="the maps folder", reference=True)
        for name, info in zip(names, infos, strict=True):
            rid = _image_of(name)
            ref.ids.append(rid)
            ref.labels[rid] = 1
            self._reference_map(ref, rid, info, name)
        return ref

    def _reference_map(self, ref: Reference, rid: str, info: MaskInfo, value: str, column: str | None = None) -> None:
        """Keep a reference image's map; an unusable one is an FNET-02 finding naming the reference line."""
        ref.masks[rid] = info
        if info.problem:
            ref.problems.append(
                Finding(
                    f"the reference map {info.problem}",
                    file=self.ref_display,
                    line=ref.lines.get(rid),
                    key=rid,
                    column=column,
                    value=value,
                )
            )

    @functools.cached_property
    def reference_kind(self) -> str:
        """``maps-folder`` for a directory, else ``json``, ``psv``, ``image-list`` or ``video-list`` from the
        reference's first non-blank line."""
        from .lists import sniff

        if self.reference_path.is_dir():
            return "maps-folder"
        return sniff(_head(self.reference_path))

    def _from_list(self, parsed: ParsedList) -> Reference:
        """A parsed image or video list as the reference (its problems are FNET-02's findings)."""
        return Reference(
            display=self.ref_display,
            ids=parsed.ids,
            lines=parsed.lines,
            labels=parsed.labels,
            segments=parsed.segments,
            problems=parsed.problems,
            fatal=parsed.fatal,
            label_array=parsed.label_array,
        )

    def _list_reference(self, kind: str) -> Reference:
        from .lists import read_image_list, read_video_list

        read = read_image_list if kind == "image-list" else read_video_list
        ref = self._from_list(read(self.reference_path, self.ref_display, self.classes))
        if self.is_temporal and self.settings.video_info is not None:
            from .lists import read_video_info

            info = self.settings.video_info
            frames, problems = read_video_info(info, info.name, set(ref.ids))
            ref.durations = {vid: frames.get(vid) for vid in ref.ids}
            ref.problems += problems
        return ref

    def reference_or_skip(self) -> Reference:
        """The reference; :class:`Unavailable` naming FNET-02 when it cannot be used at all."""
        ref = self.reference
        if ref.fatal is not None:
            raise Unavailable("FNET-02", ref.fatal)
        return ref

    def _csv_reference(self) -> Reference:
        import pandas as pd

        res = read_psv(self.reference_path, self.ref_display, strip_values=True)
        ref = Reference(display=self.ref_display)
        if res.table is None:
            ref.fatal = res.fatal[1] if res.fatal else f"{self.ref_display} cannot be read"
            return ref
        for rule_issues in res.issues.values():
            ref.problems += [f for f in rule_issues if f.severity is not Severity.WARNING]
        table = res.table
        want = ["ID", "Label"] + (["MaskFileName"] if self.task is Task.FSL else [])
        missing = [c for c in want if not table.has(c)]
        if missing:
            ref.fatal = f"{self.ref_display} lacks the column{'s' if len(missing) > 1 else ''} {', '.join(missing)}"
            ref.problems.append(
                Finding(
                    f"the reference header must be {'|'.join(want)} (got {'|'.join(table.header)})",
                    file=self.ref_display,
                    line=table.header_line,
                )
            )
            return ref
        k = 2 if self.task is Task.FSL else self.classes
        ids = table.df["ID"].astype(str)
        raw = table.df["Label"].astype(str)
        from .lists import INTEGER

        # an integer as every ForgeryNet reader takes it: ASCII digits only, so '1.0', '1e0' and '٢' are refused
        # here as in the predictions and the lists (to_numeric alone took them as 1 and 2)
        text = raw.str.strip()
        labels = pd.to_numeric(text.where(text.str.fullmatch(INTEGER, na=False)), errors="coerce")
        empty = (ids == "").to_numpy()
        repeated = ids.duplicated(keep="first").to_numpy() & ~empty
        bad_label = (
            ~(labels.notna() & labels.between(0, k - 1) & (labels == labels.round())).to_numpy() & ~empty & ~repeated
        )
        first_line = dict(
            zip(
                ids[~ids.duplicated(keep="first")].tolist(),
                table.lines[~ids.duplicated(keep="first").to_numpy()].tolist(),
                strict=False,
            )
        )
        for pos in np.flatnonzero(empty | repeated | bad_label).tolist():  # findings for the bad rows only
            rid, line, value = ids.iat[pos], table.line_of(pos), raw.iat[pos]
            if empty[pos]:
                ref.problems.append(
                    Finding(
                        "the reference ID must not be empty", file=self.ref_display, line=line, column="ID", value=rid
                    )
                )
            elif repeated[pos]:
                ref.problems.append(
                    Finding(
                        f"each reference ID must appear once (got it again; first on line {first_line[rid]})",
                        file=self.ref_display,
                        line=line,
                        key=rid,
                        column="ID",
                        value=rid,
                    )
                )
            else:
                ref.problems.append(
                    Finding(
                        f"Label must be an integer from 0 to {k - 1} (got {value!r})",
                        file=self.ref_display,
                        line=line,
                        key=rid,
                        column="Label",
                        value=value,
                    )
                )
        ok = ~(empty | repeated | bad_label)
        ref.ids = ids[ok].tolist()
        ref.lines = dict(zip(ref.ids, table.lines[ok].tolist(), strict=False))
        ref.labels = dict(zip(ref.ids, labels[ok].astype(np.int64).tolist(), strict=False))
        if self.task is Task.FSL:
            names = dict(zip(ids.tolist(), table.df["MaskFileName"].astype(str).tolist(), strict=False))
            given = [names[rid] for rid in ref.ids]
            infos = self._masks(
                self.reference_path.parent, given, allow_empty=True, within="the reference's folder", reference=True
            )
            for rid, name, info in zip(ref.ids, given, infos, strict=True):
                self._reference_map(ref, rid, info, name, "MaskFileName")
        return ref

    def _json_reference(self) -> Reference:
        ref = Reference(display=self.ref_display)
        try:
            doc = load_json(self.reference_path, NO_REFERENCE_BYTES, what="JSON file", allow_nan=True)
        except JsonProblem as exc:
            ref.fatal = f"{self.ref_display} {_why(exc)}"
            return ref
        db = doc.get("database") if isinstance(doc, dict) else None
        if not isinstance(db, dict):
            got = "no database key" if isinstance(doc, dict) else f"a JSON {type(doc).__name__}"
            ref.fatal = f'{self.ref_display} must be an object with a "database" object (got {got})'
            return ref
        for vid, entry in db.items():
            where = json_path(vid, root="database")
            if not isinstance(entry, dict) or not isinstance(entry.get("annotations"), list):
                ref.problems.append(
                    Finding(
                        'must be an object with an "annotations" list',
                        file=self.ref_display,
                        key=vid,
                        column=where,
                        value=show_json(entry),
                    )
                )
                continue
            duration = entry.get("duration")
            dur = _number(duration) if duration is not None else None
            if duration is not None and (dur is None or not math.isfinite(dur) or dur < 0):
                ref.problems.append(
                    Finding(
                        f"duration must be a finite number >= 0 (got {show_json(duration)})",
                        file=self.ref_display,
                        key=vid,
                        column=f"{where}.duration",
                        value=show_json(duration),
                    )
                )
                continue
            segs: list[tuple[float, float]] = []
            for i, ann in enumerate(entry["annotations"]):
                seg = ann.get("segment") if isinstance(ann, dict) else None
                problem = _segment_problem(seg)
                if (
                    problem is None
                    and seg is not None
                    and dur is not None
                    and not (0 <= float(seg[0]) and float(seg[1]) <= dur)
                ):
                    problem = f"must lie inside [0, {dur:g}], the video's duration (got {show_json(seg)})"
                if problem is not None:
                    ref.problems.append(
                        Finding(
                            f"segment {problem}",
                            file=self.ref_display,
                            key=vid,
                            column=f"{where}.annotations[{i}].segment",
                            value=show_json(seg),
                        )
                    )
                    continue
                assert seg is not None  # _segment_problem found none: two finite numbers
                segs.append((float(seg[0]), float(seg[1])))
            ref.ids.append(vid)
            ref.segments[vid] = segs
            ref.durations[vid] = dur
        return ref

    # ------------------------------------------------------------------ system output (CSV tasks)

    @functools.cached_property
    def sysout_path(self) -> Path | None:
        """``<SubID>/<SubID>.csv`` (or ``.json``) if it exists in any form, else None (FNET-01: missing)."""
        path = self.settings.csv
        return path if path is not None and os.path.lexists(path) else None

    @functools.cached_property
    def sysout_parse(self) -> ParseResult:
        """The system output, parsed once: pipe-separated, or the plain ``<name> <score...>`` lines a model
        prints (:func:`.lists.read_plain_predictions`), recognised by content."""
        path = self.sysout_path
        if path is not None and not self.is_temporal and not self.sysout_unsafe and os.path.isfile(path):
            from .lists import is_plain, read_plain_predictions

            if is_plain(_head(path)) and self.task is not Task.FSL:
                return read_plain_predictions(path, self.display(path), self.prob_columns, self.sysout_limits)
        return super().sysout_parse

    def sysout(self) -> Table:
        """The system output table; :class:`Unavailable` names FNET-01 (which reports the reader's findings)."""
        res = self.sysout_parse
        if res.table is None:
            raise Unavailable("FNET-01", res.fatal[1] if res.fatal else f"{res.display} cannot be read")
        return res.table

    @functools.cached_property
    def sysout_limits(self) -> Limits:
        """The reference bounds the submission, as the index does for NIST (4 KiB per ID + 1 MiB)."""
        ref = self.reference
        return limits_for(len(ref.ids) if ref.fatal is None else None)

    @functools.cached_property
    def sys_ids(self) -> pd.Series:
        """The IDs of the rows as matched against the reference: as written, or without the image's extension
        against a maps folder (whose IDs are the maps' names without their extension)."""
        ids = self.sysout().df["ID"].astype(str)
        if self.reference_kind == "maps-folder":
            ids = ids.str.replace(r"\.[^./]*$", "", regex=True)
        return ids

    @functools.cached_property
    def sys_id_list(self) -> list[str]:
        """:attr:`sys_ids` as a list, for reading one by position (a Series' ``iloc`` costs microseconds)."""
        return self.sys_ids.tolist()

    @functools.cached_property
    def probs(self) -> np.ndarray:
        """(n, c) float64 of the probability columns; NaN where a cell is not a number."""
        import pandas as pd

        df = self.sysout().df
        # to_numeric already accepts surrounding blanks (a .str.strip() first would cost 2.5x the parse)
        cols = [pd.to_numeric(df[c], errors="coerce").to_numpy(dtype=np.float64) for c in self.prob_columns]
        return np.column_stack(cols) if cols else np.zeros((len(df), 0))

    @functools.cached_property
    def prob_ok(self) -> np.ndarray:
        """Rows whose every probability is finite and in [0, 1] (FNET-05)."""
        p = self.probs
        with np.errstate(invalid="ignore"):
            return np.asarray(np.isfinite(p).all(axis=1) & (p >= 0).all(axis=1) & (p <= 1).all(axis=1))

    @functools.cached_property
    def ref_position(self) -> np.ndarray:
        """For each row, the position of its ID in the reference's IDs (-1: unknown), hashed once for the
        FNET rules and the scorers (a million IDs: a fraction of a second)."""
        import pandas as pd

        ref_ids = pd.Index(np.asarray(self.reference.ids, dtype=object))
        return np.asarray(ref_ids.get_indexer(self.sys_ids.to_numpy(dtype=object)), dtype=np.int64)

    @functools.cached_property
    def repeats(self) -> tuple[np.ndarray, np.ndarray]:
        """(rows whose ID came earlier, rows whose ID occurs more than once), for FNET-04 and :attr:`id_ok`."""
        ids = self.sys_ids
        return ids.duplicated(keep="first").to_numpy(), ids.duplicated(keep=False).to_numpy()

    @functools.cached_property
    def ref_labels(self) -> np.ndarray:
        """The reference labels in the order of the reference's IDs."""
        ref = self.reference
        if ref.label_array is not None and len(ref.label_array) == len(ref.ids):
            return ref.label_array
        return np.fromiter(map(ref.labels.__getitem__, ref.ids), dtype=np.int64, count=len(ref.ids))

    @functools.cached_property
    def id_ok(self) -> np.ndarray:
        """Rows whose ID is in the reference and appears once in the submission (FNET-04)."""
        return np.asarray((self.ref_position >= 0) & ~self.repeats[1])

    # ------------------------------------------------------------------ masks

    def _masks(
        self,
        folder: Path,
        names: list[str],
        allow_empty: bool = False,
        within: str = "the submission directory",
        reference: bool = False,
    ) -> list[MaskInfo]:
        """Resolve each mask name inside ``folder`` (named ``within`` in a message) and read its PNG header,
        never its pixels.  The paths are resolved here, one by one (PKG-04's rules: nothing outside ``folder``
        is opened); the headers of a large set are read on ``--omfc-jobs`` processes (:data:`HEADERS_PER_JOB`),
        as the maps are decoded later, with the same :func:`png.read_header` either way."""
        where: list[tuple[str, Path | None, str | None]] = []  # (name, path, why): path None and why None: empty
        for name in names:
            text = name.strip()
            if not text and allow_empty:
                where.append((name, None, None))
                continue
            where.append((name, *resolve_inside(folder, text, within, self._resolved)))
        todo = [str(path) for _, path, _ in where if path is not None]
        read = jpeg.read_followed_map_headers if reference else png.read_followed_headers  # reference maps: also JPEG
        heads = iter(map_slices(read, todo, self.settings.jobs, min_per_job=HEADERS_PER_JOB))
        out = []
        for name, path, why in where:
            out.append(MaskInfo(name, None, why) if path is None else _mask_info(name, path, next(heads)))
        return out

    @functools.cached_property
    def masks(self) -> list[MaskInfo]:
        """The system mask of each row, headers read once (FNET-07, FNET-08)."""
        table = self.sysout()
        folder = (self.sysout_path or self.dir / "x").parent
        return _within_budget(
            self._masks(folder, [str(v) for v in table.df["MaskFileName"].tolist()]), self.settings.map_pixels
        )

    def size_problem(self, pos: int) -> str | None:
        """Why row ``pos``'s mask does not have the reference map's size, or None."""
        mask = self.masks[pos]
        ref = self.reference.masks.get(self.sys_id_list[pos])
        if mask.path is None or ref is None or ref.path is None:
            return None
        if (mask.width, mask.height) != (ref.width, ref.height):
            return f"must be {ref.width}x{ref.height} like the reference map (got {mask.width}x{mask.height})"
        return None

    # ------------------------------------------------------------------ system output (temporal)

    @functools.cached_property
    def predictions(self) -> Predictions:
        """The result file, flattened; its structural problems are FNET-01's findings."""
        out = Predictions()
        path = self.sysout_path
        display = self.display(path) if path is not None else f"{self.sub_id}/{self.sub_id}.json"
        if path is None or not path.exists():
            out.fatal = f"{display} is missing: the results must be {self.sub_id}/{self.sub_id}.json"
            return out
        if self.sysout_unsafe:
            out.fatal = f"{display} {self.sysout_unsafe}"
            return out
        ref = self.reference
        try:
            limit = json_limit(len(ref.ids) if ref.fatal is None else None)
            doc = load_json(path, limit, what="JSON file", allow_nan=True)
        except JsonProblem as exc:
            out.fatal = f"{display} {_why(exc)}"
            return out
        results = doc.get("results") if isinstance(doc, dict) else None
        if not isinstance(results, dict):
            got = "no results key" if isinstance(doc, dict) else f"a JSON {type(doc).__name__}"
            if isinstance(doc, dict) and "results" in doc:
                got = f"results as a JSON {type(doc['results']).__name__}"
            out.fatal = f'{display} must be an object with a "results" object (got {got})'
            return out
        for vid, entries in results.items():
            out.videos.append(vid)
            if not isinstance(entries, list):
                out.structure.append(
                    Finding(
                        f"must be a list of predictions (got a JSON {type(entries).__name__})",
                        file=display,
                        key=vid,
                        column=json_path(vid),
                        value=show_json(entries),
                    )
                )
                continue
            for i, entry in enumerate(entries):
                if not isinstance(entry, dict):
                    out.structure.append(
                        Finding(
                            f"must be an object with segment and score (got a JSON {type(entry).__name__})",
                            file=display,
                            key=vid,
                            column=json_path(vid, i),
                            value=show_json(entry),
                        )
                    )
                    continue
                seg, score = entry.get("segment"), entry.get("score")
                seg_problem = "is missing" if "segment" not in entry else _segment_problem(seg)
                s = _number(score)
                score_problem = None
                if "score" not in entry:
                    score_problem = "must be given (got no score key)"
                elif s is None:
                    score_problem = f"must be a number (got a JSON {type(score).__name__})"
                elif not math.isfinite(s):
                    score_problem = f"must be a finite number (got {s})"
                ok = seg_problem is None and seg is not None
                out.video.append(vid)
                out.index.append(i)
                out.start.append(float(seg[0]) if ok and seg is not None else math.nan)
                out.end.append(float(seg[1]) if ok and seg is not None else math.nan)
                out.score.append(s if score_problem is None and s is not None else math.nan)
                out.segment_problem.append(seg_problem)
                out.segment_value.append(seg)
                out.score_problem.append(score_problem)
                out.score_value.append(score)
        if self.reference_kind == "video-list" and self.settings.time_unit == "seconds" and self.settings.fps:
            fps = self.settings.fps  # the reference counts frames: predictions in seconds are scaled to them
            out.start = [v * fps for v in out.start]
            out.end = [v * fps for v in out.end]
        return out

    def predictions_or_skip(self) -> Predictions:
        preds = self.predictions
        if preds.fatal is not None:
            raise Unavailable("FNET-01", preds.fatal)
        return preds

    def duration_problem(self, k: int) -> str | None:
        """Why prediction ``k``'s (valid) segment leaves its video's reference duration, or None."""
        p = self.predictions
        dur = self.reference.durations.get(p.video[k])
        if dur is None or p.segment_problem[k] is not None:
            return None
        if p.start[k] < 0 or p.end[k] > dur:
            return f"must lie inside [0, {dur:g}], the video's duration (got [{p.start[k]:g}, {p.end[k]:g}])"
        return None

    @property
    def json_display(self) -> str:
        path = self.sysout_path
        return self.display(path) if path is not None else f"{self.sub_id}/{self.sub_id}.json"


#: A maps folder given as the reference holds at most this many maps (the walk stops past it: FNET-02).
MAX_REFERENCE_MAPS = 5_000_000
#: the names of the maps a maps folder holds (case-insensitive): PNG, and JPEG as ForgeryNet ships them
MAP_SUFFIXES = (".png", ".jpg", ".jpeg")


def _image_of(name: str) -> str:
    """The image a map of a maps folder belongs to: its name without the extension (one of
    :data:`MAP_SUFFIXES`), and ForgeryNet's training maps ``train_mask_release/...`` are those of the
    images ``train_release/...`` (:func:`map_names` the other way)."""
    stem = name.rsplit(".", 1)[0]
    top, sep, rest = stem.partition("/")
    return f"train_release/{rest}" if top == "train_mask_release" and sep else stem


def _head(path: Path, size: int = 64 * 1024) -> str:
    """The first bytes of a regular file as text ("" for anything else: the readers say why)."""
    try:
        if not path.is_file():
            return ""
        with open(path, "rb", opener=lambda p, f: os.open(p, f | os.O_NONBLOCK)) as fh:
            return fh.read(size).decode("utf-8", errors="replace")
    except OSError:
        return ""


def show_json(value: Any) -> str:
    """A JSON value as text for a finding (shortened later by the findings machinery)."""
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=True)[:4096]
    except (TypeError, ValueError):
        return repr(value)[:4096]


def _segment_problem(seg: Any) -> str | None:
    """Why ``seg`` is not ``[start, end]`` with two finite numbers and start < end, or None."""
    if not isinstance(seg, list) or len(seg) != 2:
        what = f"a list of {len(seg)}" if isinstance(seg, list) else f"a JSON {type(seg).__name__}"
        return f"must be [start, end], two numbers (got {what})"
    a, b = _number(seg[0]), _number(seg[1])
    if a is None or b is None:
        return "must be [start, end], two numbers (got a value that is not a number)"
    if not (math.isfinite(a) and math.isfinite(b)):
        return "must be two finite numbers (got NaN or an infinity)"
    if not a < b:
        return f"must have start < end (got [{a:g}, {b:g}])"
    return None
