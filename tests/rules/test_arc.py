"""ARC rules: the uploaded archive, checked as it is uploaded (tar, tar.gz, ...), never unpacked where it says.

Archives are made the ways participants make them: Python's tarfile and GNU tar (``tar cvf <SubID>.tar
<SubID>`` as the OpenMFC plan says), from inside the folder, with a home-directory prefix, with macOS clutter,
and hostile ones (links, FIFOs, devices, ``..``, bombs).
"""

from __future__ import annotations

import gzip
import io
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path
from typing import Any

import pytest
from helpers.columns import layout_case
from helpers.paths import REPO
from helpers.runs import Case, RunOutcome
from hypothesis import given
from hypothesis import strategies as st

SUB = "p-test_1"
ARC = ["ARC-01", "ARC-02", "ARC-03", "ARC-04", "ARC-05", "ARC-06", "ARC-07"]


def _pack(case: Case, name: str, mode: str = "w", *, arcname: str | None = SUB, extra: Any = None) -> Path:
    """``tar cvf name SUB`` with Python's tarfile (``arcname`` "" packs the folder's content, from inside it);
    ``extra(tf)`` adds members."""
    out = case.pytester.path / "upload" / name
    out.parent.mkdir(exist_ok=True)
    with tarfile.open(out, mode) as tf:
        if arcname == "":
            for child in sorted(case.submission.iterdir()):
                tf.add(child, arcname=child.name)
        else:
            tf.add(case.submission, arcname=arcname)
        if extra is not None:
            extra(tf)
    return out


def _member(tf: tarfile.TarFile, name: str, data: bytes = b"", **attrs: Any) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data) if attrs.get("type", tarfile.REGTYPE) == tarfile.REGTYPE else 0
    for k, v in attrs.items():
        setattr(info, k, v)
    tf.addfile(info, io.BytesIO(data) if info.size else None)


def _run(case: Case, archive: Path, *extra: str) -> RunOutcome:
    return Case(case.pytester, archive, case.index).run(*extra)


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where the private directories go in this test, to see that they are removed."""
    where = tmp_path / "tmp"
    where.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(where))
    return where


@pytest.mark.compat  # an archive on every Python (3.11.0-3.11.3's tarfile has no data_filter)
def test_a_tar_checks_as_its_folder_with_the_archive_rules_added(omfc: Any, private_tmp: Path) -> None:
    case = layout_case(omfc)
    folder = case.run()
    archive = _run(case, _pack(case, f"{SUB}.tar"))
    assert {r: o for r, (o, _) in archive.reports.items() if not r.startswith("ARC")} == {
        r: o for r, (o, _) in folder.reports.items()
    }
    assert [archive.outcome(r) for r in ARC] == ["passed"] * 7 and archive.ret == folder.ret == 0
    assert list(private_tmp.iterdir()) == []  # the private directory is gone with the session


@pytest.mark.parametrize("mode", ["w:gz", "w:bz2", "w:xz"])
def test_compressed_tars_are_recognised_by_content_not_name(omfc: Any, mode: str) -> None:
    case = layout_case(omfc)
    res = _run(case, _pack(case, f"{SUB}.tar", mode))  # named .tar whatever the compression
    assert [res.outcome(r) for r in ARC] == ["passed"] * 7 and res.failed() == []


@pytest.mark.compat  # an archive on every Python (3.11.0-3.11.3's tarfile has no data_filter)
def test_gnu_tar_as_the_plan_says(omfc: Any) -> None:
    if shutil.which("tar") is None:
        pytest.skip("GNU tar is not installed")
    case = layout_case(omfc)
    plan = case.pytester.path / f"{SUB}.tar"
    subprocess.run(["tar", "cvf", str(plan), SUB], cwd=case.submission.parent, check=True, capture_output=True)
    res = _run(case, plan)
    assert res.failed() == [] and res.warning("ARC-02") is None and res.outcome("ARC-02") == "passed"
    other = case.pytester.path / "upload.tgz"
    subprocess.run(["tar", "czf", str(other), SUB], cwd=case.submission.parent, check=True)
    res = _run(case, other)
    assert res.failed() == []
    assert "should be named p-test_1.tar as the plan's tar cvf p-test_1.tar p-test_1 makes it (got upload.tgz)" in (
        res.warning("ARC-02") or ""
    )


def test_arc01_a_zip_is_not_what_the_plans_ask(omfc: Any) -> None:
    case = layout_case(omfc)
    upload = case.pytester.path / f"{SUB}.zip"
    with zipfile.ZipFile(upload, "w") as zf:
        for f in case.submission.rglob("*"):
            zf.write(f, f.relative_to(case.submission.parent).as_posix())
    res = _run(case, upload)
    assert res.outcome("ARC-01") == "failed"
    assert "the archive must be a tar archive as the plans ask (tar cvf ...; got a zip)" in res.text("ARC-01")


def test_arc01_a_truncated_gzip_fails_without_a_traceback(omfc: Any) -> None:
    case = layout_case(omfc)
    good = _pack(case, f"{SUB}.tgz", "w:gz").read_bytes()
    cut = case.pytester.path / f"{SUB}-cut.tgz"
    cut.write_bytes(good[: len(good) // 2])
    res = _run(case, cut)
    assert res.first_line("ARC-01") == "ARC-01: p-test_1-cut.tgz cannot be read (showing 1)"
    assert "must be a complete, readable tar.gz archive" in res.text("ARC-01")


def test_arc02_packed_from_inside_the_folder(omfc: Any) -> None:
    case = layout_case(omfc)
    res = _run(case, _pack(case, f"{SUB}.tar", arcname=""))
    assert res.outcome("ARC-02") == "failed"
    assert "packed from inside the folder); pack the folder itself from its parent: tar cvf p-test_1.tar p-test_1" in (
        res.text("ARC-02")
    )
    assert res.outcome("PKG-03") == "passed"  # the files are still checked, gathered under the archive's name


def test_arc02_a_home_directory_prefix(omfc: Any) -> None:
    case = layout_case(omfc)
    res = _run(case, _pack(case, f"{SUB}.tar", arcname=f"home/user/{SUB}"))
    assert res.outcome("ARC-02") == "failed" and "under the prefix home/user/" in res.text("ARC-02")
    assert res.outcome("SUB-10") == "passed"  # the submission found below the prefix


@pytest.mark.compat  # an archive on every Python (3.11.0-3.11.3's tarfile has no data_filter)
def test_arc03_links_devices_fifos_and_escapes_are_named_and_never_unpacked(omfc: Any, private_tmp: Path) -> None:
    case = layout_case(omfc)

    def hostile(tf: tarfile.TarFile) -> None:
        _member(tf, f"{SUB}/mask/passwd.png", type=tarfile.SYMTYPE, linkname="/etc/passwd")
        _member(tf, f"{SUB}/mask/hard.png", type=tarfile.LNKTYPE, linkname=f"{SUB}/{SUB}.csv")
        _member(tf, f"{SUB}/pipe", type=tarfile.FIFOTYPE)
        _member(tf, f"{SUB}/dev", type=tarfile.CHRTYPE)
        _member(tf, f"{SUB}/../../escaped.txt", b"x")
        _member(tf, "/tmp/absolute.txt", b"x")

    res = _run(case, _pack(case, f"{SUB}.tar", extra=hostile))
    assert res.first_line("ARC-03") == "ARC-03: 6 unsafe members (showing 6)"
    text = res.text("ARC-03")
    for part in (
        "is a symbolic link (to '/etc/passwd'): links are never followed; not unpacked",
        "is a hard link",
        "is a FIFO",
        "is a device",
        "has a '..' component",
        "has an absolute name",
    ):
        assert part in text, part
    assert "p-test_1.tar:p-test_1/mask/passwd.png" in text
    assert not (case.pytester.path / "escaped.txt").exists() and not Path("/tmp/absolute.txt").exists()


def test_arc04_repeated_and_case_colliding_members(omfc: Any) -> None:
    case = layout_case(omfc)

    def twice(tf: tarfile.TarFile) -> None:
        _member(tf, f"{SUB}/{SUB}.TXT", b"other")
        _member(tf, f"{SUB}/{SUB}.csv", b"ProbeFileID\n")

    res = _run(case, _pack(case, f"{SUB}.tar", extra=twice))
    assert res.first_line("ARC-04") == "ARC-04: 2 repeated members (showing 2)"
    assert "is the same file as 'p-test_1/p-test_1.txt' on a case-insensitive file system" in res.text("ARC-04")
    assert "is in the archive twice; the later one is not unpacked" in res.text("ARC-04")
    assert res.outcome("CSV-01") == "passed"  # the first one is what was unpacked


def test_arc05_macos_clutter_is_a_warning_and_left_out(omfc: Any) -> None:
    case = layout_case(omfc)

    def clutter(tf: tarfile.TarFile) -> None:
        _member(tf, f"__MACOSX/{SUB}/._{SUB}.csv", b"\x00\x05\x16\x07")
        _member(tf, f"{SUB}/.DS_Store", b"\x00\x00\x00\x01Bud1")

    res = _run(case, _pack(case, f"{SUB}.tar", extra=clutter))
    assert res.outcome("ARC-05") == "passed" and res.failed() == []
    assert "is operating-system clutter" in (res.warning("ARC-05") or "")
    assert res.outcome("ARC-02") == "passed"  # __MACOSX/ is not a second top folder: it was left out


def test_arc06_limits_name_the_option(omfc: Any) -> None:
    case = layout_case(omfc)
    upload = _pack(case, f"{SUB}.tar")
    res = _run(case, upload, "--omfc-archive-max-entries", "2")
    assert "must hold at most 2 members (--omfc-archive-max-entries; unpacking stopped there)" in res.text("ARC-06")

    def big(tf: tarfile.TarFile) -> None:
        _member(tf, f"{SUB}/big.bin", b"\x00" * (2 << 20))

    res = _run(case, _pack(case, "big.tar", extra=big), "--omfc-archive-max-bytes", str(1 << 20))
    assert f"must unpack to at most {1 << 20} bytes (--omfc-archive-max-bytes" in res.text("ARC-06")


def test_arc06_a_compression_bomb_stops_at_the_ratio(omfc: Any, private_tmp: Path) -> None:
    """70 MiB of zeros in about 70 KiB of gzip: past 64 MiB the ratio (default 200) stops it."""
    case = layout_case(omfc)
    upload = case.pytester.path / "bomb.tgz"
    with gzip.open(upload, "wb", compresslevel=9) as gz, tarfile.open(fileobj=gz, mode="w") as tf:
        info = tarfile.TarInfo(f"{SUB}/zeros.bin")
        info.size = 70 << 20

        class Zeros(io.RawIOBase):
            left = info.size

            def readable(self) -> bool:
                return True

            def readinto(self, b: Any) -> int:
                n = min(len(b), self.left)
                b[:n] = bytes(n)
                self.left -= n
                return n

        tf.addfile(info, io.BufferedReader(Zeros()))
    assert upload.stat().st_size < 1 << 20
    res = _run(case, upload)
    assert "must expand at most 200 times its size (--omfc-archive-max-ratio" in res.text("ARC-06")
    assert res.first_line("ARC-06") == "ARC-06: bomb.tgz exceeds a limit: unpacking stopped (showing 1)"


def test_arc07_an_archive_inside_the_archive(omfc: Any) -> None:
    case = layout_case(omfc)
    inner = _pack(case, "inner.tar")

    def nested(tf: tarfile.TarFile) -> None:
        _member(tf, f"{SUB}/mask/inner.png", inner.read_bytes())

    res = _run(case, _pack(case, f"{SUB}.tar", extra=nested))
    assert "must not be an archive inside the archive (got tar); not unpacked" in res.text("ARC-07")


def test_a_directory_submission_collects_no_archive_rule(omfc: Any) -> None:
    res = layout_case(omfc).run()
    assert not [r for r in res.reports if r.startswith("ARC")]


@pytest.mark.compat  # an archive on every Python (3.11.0-3.11.3's tarfile has no data_filter)
def test_the_readme_archive_commands_run_as_shown(tmp_path: Path) -> None:
    """docs/participants.md, "Checking the archive you upload": GNU tar as the plan says, then the portal's entry
    point."""
    if shutil.which("tar") is None:
        pytest.skip("GNU tar is not installed")
    text = (REPO / "docs" / "participants.md").read_text(encoding="utf-8")
    section = text[text.index("## Checking the archive you upload") :]
    start = section.index("```console\n") + len("```console\n")
    block = section[start : section.index("\n```", start)]
    tar_cmd, check_cmd = (ln[2:] for ln in block.splitlines() if ln.startswith("$ "))
    assert tar_cmd.startswith("tar cvf ") and check_cmd.startswith("pytest-omfc --omfc-submission ")
    (tmp_path / "examples").symlink_to(REPO / "examples")
    subprocess.run(tar_cmd, shell=True, cwd=tmp_path, check=True, capture_output=True)  # noqa: S602  (our docs)
    exe = Path(sys.executable).with_name("pytest-omfc")
    cmd = check_cmd.replace("pytest-omfc", str(exe) if exe.exists() else f"{sys.executable} -m pytest_omfc", 1)
    out = subprocess.run(cmd, shell=True, cwd=tmp_path, capture_output=True, text=True, timeout=300)  # noqa: S602
    assert out.returncode == 0, out.stdout[-2000:] + out.stderr[-2000:]
    assert re.search(r"\b54 passed\b", out.stdout) and "ARC" not in out.stdout  # 47 rule items + 7 ARC, all pass


def test_a_submission_holding_only_its_mask_folder_keeps_its_name(omfc: Any) -> None:
    """The prefix search (home/user/<SubID>/) stops at <SubID>/ when all it holds is mask/: the checks speak
    of p-test_1, not of a submission called "mask"."""
    case = layout_case(omfc)
    for name in ("p-test_1.csv", "p-test_1.txt"):
        (case.submission / name).unlink()
    (case.submission / "mask").mkdir(exist_ok=True)
    (case.submission / "mask" / "a.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    res = _run(case, _pack(case, f"{SUB}.tar"))
    assert res.outcome("ARC-02") == "passed"
    assert res.first_line("CSV-08") == "CSV-08: p-test_1/p-test_1.csv is missing (showing 1)"


@given(st.text(max_size=12))
def test_fs_key_folds_normal_forms_and_simple_case(name: str) -> None:
    """hypothesis: NFC and NFD spellings, and upper and lower case, give one key; the key never grows a
    character into two (full case folding's ß -> ss)."""
    import unicodedata

    from pytest_omfc.archive import fs_key

    key = fs_key(name)
    assert fs_key(unicodedata.normalize("NFD", name)) == key == fs_key(unicodedata.normalize("NFC", name))
    assert fs_key(name.lower()) == fs_key(name.upper()) or any(len(c.upper()) > 1 or len(c.lower()) > 1 for c in name)
    assert len(key) == len(unicodedata.normalize("NFC", name))
