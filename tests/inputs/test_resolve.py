"""``pytest_omfc.inputs``: what a run checks, resolved from plain option values without pytest, as the plugin
and ``omfc_score()`` both resolve it (issue 34: input resolution exists once).  A table of the option
combinations the docs show (getting-started, participants, portals, ForgeryNet), each with what it resolves to,
and a table of the bad ones, each with the option it names, worded for the command line and for the API."""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import pytest
from helpers.paths import REPO

from pytest_omfc.editions import Edition, Task
from pytest_omfc.inputs import InputError, Values, is_archive, reference_path, resolve_settings, unpack_upload

EX = REPO / "examples"
SUBS, DATA = EX / "submissions", EX / "datasets"
IMDL = SUBS / "imdl" / "p-baseline_3_imdl"
IMDL_INDEX = DATA / "OpenMFC2020" / "indexes" / "OpenMFC20_Image-IMDL-index.csv"
PACKAGE = SUBS / "nc2017" / "NIST_NC17_DRYRUN17_5"
FNET_IMAGE = SUBS / "forgerynet" / "image-classification" / "p-fnet_1_image"
FNET_TEMPORAL = SUBS / "forgerynet" / "temporal" / "p-fnet_1_temporal"


def _no_archive(sub: Path) -> None:
    assert not is_archive(sub)


def _resolve(values: dict[str, Any], base: Path = REPO) -> Any:
    return resolve_settings(Values({f"omfc_{k}": v for k, v in values.items()}, base), _no_archive)


@pytest.mark.parametrize(
    ("values", "want"),
    [
        # getting-started: the folder and the index; edition and task from the index's name
        ({"submission": IMDL, "index": IMDL_INDEX}, (IMDL, "p-baseline_3_imdl.csv", Edition.OpenMFC2020, Task.IMG)),
        # the system output file itself stands for its folder
        (
            {"submission": IMDL / "p-baseline_3_imdl.csv", "index": IMDL_INDEX},
            (IMDL, "p-baseline_3_imdl.csv", Edition.OpenMFC2020, Task.IMG),
        ),
        # relative paths, from the base (the invocation or ini directory)
        (
            {"submission": "examples/submissions/imdl/p-baseline_3_imdl", "index": IMDL_INDEX.relative_to(REPO)},
            (IMDL, "p-baseline_3_imdl.csv", Edition.OpenMFC2020, Task.IMG),
        ),
        # the dataset root and the task: the task's index under indexes/
        (
            {"submission": IMDL, "dataset": DATA / "OpenMFC2020", "task": "IMDL"},
            (IMDL, "p-baseline_3_imdl.csv", Edition.OpenMFC2020, Task.IMG),
        ),
        # an NC2017 EXPID: its name gives the task, the dataset root the index
        (
            {
                "submission": PACKAGE / "NIST_NC17_DRYRUN17_Splice_ImgOnly_p-baseline_3",
                "dataset": DATA / "NC2017",
            },
            (
                PACKAGE / "NIST_NC17_DRYRUN17_Splice_ImgOnly_p-baseline_3",
                "NIST_NC17_DRYRUN17_Splice_ImgOnly_p-baseline_3.csv",
                Edition.NC2017,
                Task.SPL,
            ),
        ),
    ],
    ids=["folder-index", "csv-file", "relative", "dataset-task", "nc2017-expid"],
)
def test_a_submission_folder(values: dict[str, Any], want: tuple[Path, str, Edition, Task]) -> None:
    from pytest_omfc.submission import Settings

    got = _resolve(values)
    assert isinstance(got, Settings)
    assert (got.submission, got.csv.name if got.csv else None, got.edition, got.task) == want
    assert got.index.is_file() and got.archive is None


def test_an_nc2017_package_has_one_settings_per_expid() -> None:
    got = _resolve({"submission": PACKAGE, "dataset": DATA / "NC2017", "package_max_expids": 1})
    assert got.is_package and len(got.members) == 1  # the bound of --omfc-package-max-expids
    assert [m.task for m in got.members] == [Task.IMG]
    assert [name for name, _ in got.unchecked] == ["NIST_NC17_DRYRUN17_Splice_ImgOnly_p-baseline_3"]


def test_forgerynet_needs_no_index_and_reads_its_task_options() -> None:
    got = _resolve(
        {
            "submission": FNET_IMAGE,
            "edition": "ForgeryNet",
            "task": "image-classification",
            "classes": 3,
            "reference": DATA / "ForgeryNet" / "image_cls_3way_ref.csv",
        }
    )
    assert (got.edition, got.task, got.classes) == (Edition.ForgeryNet, Task.FIC, 3)
    temporal = _resolve(
        {
            "submission": FNET_TEMPORAL,
            "task": "temporal",  # a ForgeryNet task: the edition follows
            "reference": "examples/datasets/ForgeryNet/temporal_gt.json",
            "time_unit": "seconds",
            "fps": 25,
        }
    )
    assert (temporal.edition, temporal.time_unit, temporal.fps) == (Edition.ForgeryNet, "seconds", 25.0)


def test_an_upload_is_unpacked_by_the_callers_cleanup(tmp_path: Path) -> None:
    upload = tmp_path / "p-baseline_3_imdl.tar"
    with tarfile.open(upload, "w") as tar:
        tar.add(IMDL, arcname=IMDL.name)
    cleanups: list[Any] = []
    given = Values({"omfc_submission": upload, "omfc_index": IMDL_INDEX})
    got = resolve_settings(given, lambda sub: unpack_upload(sub, given, cleanups.append) if is_archive(sub) else None)
    assert got is not None and got.archive is not None and got.csv is not None
    assert got.submission.name == IMDL.name and got.csv.read_bytes() == (IMDL / f"{IMDL.name}.csv").read_bytes()
    assert not got.submission.is_relative_to(tmp_path)  # a private directory, never beside the upload
    (cleanup,) = cleanups
    cleanup()
    assert not got.submission.exists()


@pytest.mark.parametrize(
    ("values", "option", "flag_text", "keyword_text", "missing"),
    [
        ({"submission": "nowhere"}, "omfc_submission", "--omfc-submission: no such file", "submission: no such", True),
        (
            {"submission": IMDL},
            "omfc_index",
            "(or --omfc-dataset ROOT with --omfc-task)",
            "(or dataset=ROOT with task)",
            False,
        ),
        (
            {"submission": IMDL, "index": IMDL.parent / "none.csv"},
            "omfc_index",
            "--omfc-index: no such file:",
            "index: no such file:",
            True,
        ),
        (
            {"submission": IMDL, "index": IMDL_INDEX, "edition": "MFC2030"},
            "omfc_edition",
            "--omfc-edition: ",
            "edition: ",
            False,
        ),
        (
            {"submission": IMDL, "dataset": DATA / "NC2017"},
            "omfc_dataset",
            "2 index files match",
            "; add task=TASKID",
            False,
        ),
        (
            {"submission": FNET_IMAGE, "task": "image-classification"},
            "omfc_reference",
            "ForgeryNet needs the reference",
            "reference: ",
            False,
        ),
        (
            {"submission": FNET_IMAGE, "task": "image-classification", "index": IMDL_INDEX},
            "omfc_index",
            "--omfc-index: ForgeryNet takes no index",
            "index: ForgeryNet takes no index",
            False,
        ),
        (
            {"submission": FNET_IMAGE, "task": "image-classification", "classes": 5, "reference": IMDL_INDEX},
            "omfc_classes",
            "--omfc-classes: must be 2, 3 or 16 for image-classification (got '5')",
            "classes: must be 2, 3 or 16",
            False,
        ),
        (
            {"submission": FNET_TEMPORAL, "task": "temporal", "reference": IMDL_INDEX, "time_unit": "seconds"},
            "omfc_time_unit",
            "--omfc-time-unit: seconds needs the videos' frame rate: give --omfc-fps FPS",
            "time_unit: seconds needs the videos' frame rate: give fps=FPS",
            False,
        ),
        (
            {"submission": FNET_IMAGE, "task": "image-classification", "reference": IMDL_INDEX, "fps": 25},
            "omfc_fps",
            "--omfc-fps: only for the ForgeryNet temporal task",
            "fps: only for",
            False,
        ),
        (
            {"submission": IMDL, "index": IMDL_INDEX, "jobs": 999},
            "omfc_jobs",
            "--omfc-jobs: must be",
            "jobs: must be",
            False,
        ),
    ],
    ids=[
        "no-submission",
        "no-index",
        "index-missing",
        "bad-edition",
        "two-indexes",
        "fnet-no-reference",
        "fnet-index",
        "fnet-classes",
        "seconds-without-fps",
        "fps-for-another-task",
        "jobs-bound",
    ],
)
def test_a_bad_option_is_named_for_each_surface(
    values: dict[str, Any], option: str, flag_text: str, keyword_text: str, missing: bool
) -> None:
    with pytest.raises(InputError) as caught:
        _resolve(values)
    exc = caught.value
    assert exc.option == option and exc.missing is missing
    assert flag_text in str(exc), str(exc)
    api = exc.for_api()
    assert isinstance(api, FileNotFoundError if missing else ValueError)
    assert keyword_text in str(api) and "--omfc" not in str(api), str(api)


def test_the_reference_is_taken_from_the_dataset_root_first() -> None:
    given = Values({"omfc_reference": "reference/IMDL/OpenMFC20_Image-IMDL-ref.csv"}, base=Path("/"))
    got = reference_path(given, DATA / "OpenMFC2020")
    assert got == DATA / "OpenMFC2020" / "reference" / "IMDL" / "OpenMFC20_Image-IMDL-ref.csv"
    with pytest.raises(InputError) as caught:
        reference_path(Values({"omfc_reference": "nowhere.csv"}), DATA / "OpenMFC2020")
    assert caught.value.missing and str(caught.value).startswith("--omfc-reference: no such file: ")


def test_resolution_imports_no_pytest() -> None:
    """The plugin's, the CLI's and the API's one resolution runs in a process without pytest."""
    code = (
        "import json, sys; from pytest_omfc.inputs import Values, resolve_settings;"
        f"s = resolve_settings(Values({{'omfc_submission': {str(IMDL)!r}, 'omfc_index': {str(IMDL_INDEX)!r}}}),"
        " lambda p: None);"
        "print(json.dumps([s.task.value, sorted(m for m in sys.modules if m.split('.')[0] in ('pytest', '_pytest'))]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO)
    assert json.loads(out.stdout) == ["IMG", []]


def test_omfc_score_takes_the_upload_as_the_command_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The API resolves through the same code: an archive is scored as its folder, and its private directory is
    gone when the call returns."""
    from pytest_omfc import omfc_score

    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    upload = tmp_path / "p-baseline_3_imdl.tgz"
    with tarfile.open(upload, "w:gz") as tar:
        tar.add(IMDL, arcname=IMDL.name)
    ref = DATA / "OpenMFC2020" / "reference" / "IMDL" / "OpenMFC20_Image-IMDL-ref.csv"
    folder = omfc_score(submission=IMDL, index=IMDL_INDEX, reference=ref, score="detection").detection.AUC
    packed = omfc_score(submission=upload, index=IMDL_INDEX, reference=ref, score="detection").detection.AUC
    assert packed == folder
    assert [p.name for p in (tmp_path / "tmp").iterdir()] == []
