"""ForgeryNet's inputs: no index (the reference lists the IDs), the task, its number of classes, and the task's
own options (the spatial maps and their pixel budget; the temporal time unit, frame rate and video table)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..editions import FORGERYNET_CLASSES, FORGERYNET_TASKS, Task
from ..options import declared as option
from .given import Given, InputError, flag, text_of, value_of

if TYPE_CHECKING:
    from ..forgerynet.submission import ForgeryNetSettings

__all__ = ["forgerynet_inputs"]


def forgerynet_inputs(given: Given, sub: Path, task: Task | None, dataset: Path | None) -> ForgeryNetSettings:
    """ForgeryNet: no index, the reference lists the IDs; ``--omfc-reference`` is needed to validate."""
    names = ", ".join(t.value for t in sorted(FORGERYNET_TASKS, key=list(Task).index))
    if task is None:
        raise InputError("omfc_task", f"give the ForgeryNet task: {names}")
    if task not in FORGERYNET_TASKS:
        raise InputError("omfc_task", f"task {task.value} is not offered in ForgeryNet (must be one of {names})")
    if text_of(given, "omfc_index")[0] is not None:
        raise InputError("omfc_index", "ForgeryNet takes no index (the reference lists the IDs); drop it")
    ref_text, ref_base = text_of(given, "omfc_reference")
    if ref_text is None:
        raise InputError("omfc_reference", "ForgeryNet needs the reference (it lists the IDs to check)")
    ref = Path(ref_text).expanduser()
    if not ref.is_absolute():
        ref = (dataset / ref) if dataset is not None else (ref_base / ref)
    ref = ref.resolve()
    if not (ref.is_file() or (task is Task.FSL and ref.is_dir())):  # spatial: also the maps folder alone
        where = "the dataset root" if dataset is not None else "the current directory"
        what = "file or maps folder" if task is Task.FSL else "file"
        raise InputError(
            "omfc_reference", f"no such {what}: {ref} (a relative path is taken from {where})", missing=True
        )
    classes = _classes(given, task)
    task_options = _task_options(given, task, dataset)
    from ..forgerynet.submission import forgerynet_settings  # numpy and pandas: only for a ForgeryNet check

    return forgerynet_settings(
        sub,
        ref,
        task,
        classes,
        dataset,
        value_of(given, "omfc_max_findings"),
        value_of(given, "omfc_jobs"),
        **task_options,
    )


def _classes(given: Given, task: Task) -> int:
    classes_value = given.raw("omfc_classes")[0]
    if classes_value is None:
        return 2
    allowed = FORGERYNET_CLASSES.get(task)
    if allowed is None:
        raise InputError(
            "omfc_classes", f"only for image-classification and video-classification (got task {task.value})"
        )
    try:
        classes = int(option("omfc_classes").parse(classes_value))
    except ValueError:
        classes = -1
    if classes not in allowed:
        raise InputError(
            "omfc_classes",
            f"must be {', '.join(map(str, allowed[:-1]))} or {allowed[-1]} for "
            f"{task.value} (got {str(classes_value).strip()!r})",
        )
    return classes


def _task_options(given: Given, task: Task, dataset: Path | None) -> dict[str, Any]:
    """The options of one ForgeryNet task: ``--omfc-spatial-maps`` and ``--omfc-map-pixels`` (spatial),
    ``--omfc-time-unit``, ``--omfc-fps`` and ``--omfc-video-info`` (temporal); given for another task, an
    error.  The file is resolved as every input path is (:func:`pytest_omfc.paths.resolve_input`), the folder
    likewise (the dataset root first, then the invocation or ini directory)."""
    from ..paths import resolve_input

    maps_text, maps_base = text_of(given, "omfc_spatial_maps")
    if task is not Task.FSL and given.raw("omfc_map_pixels")[0] is not None:
        raise InputError("omfc_map_pixels", f"only for the ForgeryNet spatial task (got {task.value})")
    if task is Task.FSL:
        budget = {"map_pixels": value_of(given, "omfc_map_pixels")}
        if maps_text is None:
            return budget
        given_maps = Path(maps_text).expanduser()  # a folder: the dataset root first, then the base
        cands = (
            [given_maps]
            if given_maps.is_absolute()
            else [*([dataset / given_maps] if dataset else []), maps_base / given_maps]
        )
        maps = next((c for c in cands if c.is_dir()), cands[-1]).absolute()
        if not maps.is_dir():
            raise InputError("omfc_spatial_maps", f"no such folder: {maps}", missing=True)
        return {**budget, "spatial_maps": maps}
    if maps_text is not None:
        raise InputError("omfc_spatial_maps", f"only for the ForgeryNet spatial task (got {task.value})")
    temporal = ("omfc_time_unit", "omfc_fps", "omfc_video_info")
    if task is not Task.FTL:
        told = next((n for n in temporal if given.raw(n)[0] is not None), None)
        if told is not None:
            raise InputError(told, f"only for the ForgeryNet temporal task (got {task.value})")
        return {}
    unit = value_of(given, "omfc_time_unit")
    fps = value_of(given, "omfc_fps")
    if unit == "seconds" and fps is None:
        raise InputError("omfc_time_unit", f"seconds needs the videos' frame rate: give {flag('omfc_fps', 'FPS')}")
    info_text, info_base = text_of(given, "omfc_video_info")
    info = None
    if info_text is not None:
        info = resolve_input(info_text, info_base, dataset)
        if not info.is_file():
            raise InputError("omfc_video_info", f"no such file: {info}", missing=True)
    return {"time_unit": unit, "fps": fps, "video_info": info}
