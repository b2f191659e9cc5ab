"""One definition of a path the run may write (pytest_omfc/outputs.py), for every output: the table of what is
refused, the atomic writer, and each output option pointed at a FIFO, an uploaded archive or an EXPID folder
(before: a FIFO hung the run, --junitxml overwrote the upload, an EXPID folder was not refused)."""

from __future__ import annotations

import os
import shutil
import stat
import tarfile
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers.paths import EXAMPLES
from helpers.runs import run_capped

from pytest_omfc.outputs import why_not_folder, why_not_writable, write_atomic

SUB = "p-baseline_3_imdl"
INDEX = EXAMPLES / "datasets/OpenMFC2020/indexes/OpenMFC20_Image-IMDL-index.csv"
REFERENCE = EXAMPLES / "datasets/OpenMFC2020/reference/IMDL/OpenMFC20_Image-IMDL-ref.csv"


def _fifo(p: Path) -> Path:
    os.mkfifo(p)
    return p


def _link(p: Path) -> Path:
    p.symlink_to(p.parent / "elsewhere.txt")
    return p


def _dir(p: Path) -> Path:
    p.mkdir()
    return p


def _file(p: Path) -> Path:
    p.write_text("old", encoding="utf-8")
    return p


#: (case, how the path is made under tmp_path, the start of the refusal or None)
CASES: list[tuple[str, Callable[[Path], Path], str | None]] = [
    ("a new file", lambda t: t / "out.json", None),
    ("an existing regular file", lambda t: _file(t / "out.json"), None),
    ("a new file in a new folder", lambda t: t / "new" / "out.json", None),
    ("a FIFO", lambda t: _fifo(t / "out.json"), "must be a regular file or a new one (got"),
    ("a directory", lambda t: _dir(t / "out.json"), "must be a regular file or a new one (got"),
    ("a symbolic link", lambda t: _link(t / "out.json"), "must not be a symbolic link"),
    ("a character device", lambda t: Path("/dev/null"), "must be a regular file or a new one (got /dev/null, a char"),
    ("inside the submission", lambda t: t / "sub" / "out.json", "must not point into the submission directory"),
    ("deep inside the submission", lambda t: t / "sub" / "mask" / "x.png", "must not point into the submission"),
    ("the uploaded archive", lambda t: t / "upload.tar", "must not be the uploaded archive"),
    ("through a link to the submission", lambda t: t / "via" / "out.json", "must not point into the submission"),
    ("a file the run reads", lambda t: t / "index.csv", "must not overwrite a file the run reads"),
    ("a hard link to a file the run reads", lambda t: t / "hard.csv", "must not overwrite a file the run reads"),
]


@pytest.mark.parametrize(("case", "make", "why"), CASES, ids=[c[0] for c in CASES])
def test_what_a_run_may_write(tmp_path: Path, case: str, make: Callable[[Path], Path], why: str | None) -> None:
    (tmp_path / "sub" / "mask").mkdir(parents=True)
    (tmp_path / "upload.tar").write_bytes(b"x")
    (tmp_path / "via").symlink_to(tmp_path / "sub", target_is_directory=True)
    (tmp_path / "index.csv").write_text("TaskID|ProbeFileID\n", encoding="utf-8")
    os.link(tmp_path / "index.csv", tmp_path / "hard.csv")
    guarded = [("submission directory", tmp_path / "sub"), ("uploaded archive", tmp_path / "upload.tar")]
    got = why_not_writable(make(tmp_path), guarded, [tmp_path / "index.csv"])
    assert (got is None) if why is None else (got is not None and got.startswith(why)), got


def test_a_plot_folder(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    guarded = [("submission directory", tmp_path / "sub")]
    assert why_not_folder(tmp_path / "plots", guarded) is None
    assert why_not_folder(tmp_path / "sub" / "plots", guarded) == (
        f"must not point into the submission directory {tmp_path / 'sub'} (got {tmp_path / 'sub' / 'plots'})"
    )
    (tmp_path / "file").write_text("x", encoding="utf-8")
    assert str(why_not_folder(tmp_path / "file")).startswith("must be a folder or a new one (got")


def test_write_atomic_replaces_a_fifo_instead_of_opening_it(tmp_path: Path) -> None:
    """A FIFO put in the file's place after the check: the rename replaces it (opening it would block)."""
    target = _fifo(tmp_path / "out.json")
    # a daemon thread with a deadline, not SIGALRM: under pytest-xdist a test may run outside the main thread
    # (execnet's older thread model), where signals cannot be set; a blocked open would leave the thread behind
    errors: list[BaseException] = []

    def write() -> None:
        try:
            write_atomic(target, '{"ok": true}\n')
        except BaseException as exc:  # noqa: BLE001  reported below
            errors.append(exc)

    worker = threading.Thread(target=write, daemon=True)
    worker.start()
    worker.join(10)
    assert not worker.is_alive(), "write_atomic blocked on the FIFO"
    assert errors == []
    assert stat.S_ISREG(os.lstat(target).st_mode) and target.read_text(encoding="utf-8") == '{"ok": true}\n'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]  # no temporary file left
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o666 & ~umask


def _upload(tmp_path: Path) -> Path:
    archive = tmp_path / f"{SUB}.tar"
    with tarfile.open(archive, "w") as tf:
        tf.add(EXAMPLES / "submissions/imdl" / SUB, arcname=SUB)
    return archive


@pytest.mark.parametrize("flag", ["--junitxml", "--omfc-metrics-json", "--omfc-html", "--omfc-per-probe-csv"])
@pytest.mark.parametrize("entry", ["pytest_omfc", "pytest"])
def test_every_output_refuses_a_fifo_and_the_upload(tmp_path: Path, flag: str, entry: str) -> None:
    archive = _upload(tmp_path)
    before = archive.read_bytes()
    fifo = _fifo(tmp_path / "out.fifo")
    base = ["-m", entry, "--omfc-submission", str(archive), "--omfc-index", str(INDEX)]
    base += ["--omfc-reference", str(REFERENCE)]
    if entry == "pytest":
        (tmp_path / "config").mkdir()  # not beside the upload: that is refused (tests/glue/test_plugin.py)
        (tmp_path / "config" / "empty.ini").write_text("[pytest]\n", encoding="utf-8")
        base += ["-p", "no:cacheprovider", "-c", str(tmp_path / "config" / "empty.ini"), "--rootdir", str(tmp_path)]
    for target, why in ((fifo, "must be a regular file or a new one"), (archive, "must not be the uploaded archive")):
        run = run_capped([*base, f"{flag}={target}"], cwd=tmp_path, timeout=60)
        assert run.ret == 4, (run.ret, run.out[-2000:], run.err[-2000:])  # None: it hung
        assert f"ERROR: {flag}: {why}" in run.err
    assert archive.read_bytes() == before


def test_an_output_inside_an_expid_folder_is_refused(tmp_path: Path) -> None:
    package = tmp_path / "NIST_NC17_DRYRUN17_5"
    shutil.copytree(EXAMPLES / "submissions/nc2017" / package.name, package)
    shutil.copytree(EXAMPLES / "datasets/NC2017", tmp_path / "NC2017")
    expid = next(p for p in sorted(package.iterdir()) if p.is_dir())
    target = expid / "report.html"
    run = run_capped(
        ["-m", "pytest_omfc", "--omfc-submission", str(package), "--omfc-dataset", str(tmp_path / "NC2017"),
         "--omfc-html", str(target)],
        cwd=tmp_path,
        timeout=60,
    )  # fmt: skip
    assert run.ret == 4 and "ERROR: --omfc-html: must not point into the" in run.err, run.err
    assert not target.exists()
