"""Archive members read in place (pytest_omfc.members): a plain tar's PNG masks read at their offsets, a compressed
tar's from one spool file; every verdict as if each member had been unpacked into a file of its own (ARC rules,
MASK rules' header and pixel reads, the mask scorer's reads), and no read past a member's declared size."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.masks import pil_png, raw_png
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_omfc import archive, members, png
from pytest_omfc.archive import UNPACKED, ArchiveLimits, ArchiveReport, private_dir, remove, unpack
from pytest_omfc.paths import not_regular
from pytest_omfc.scoring.mask.io import MaskReadError, read_system_mask

#: the reading of archives is tarfile's on every Python, and the fast reader must agree with each one
pytestmark = pytest.mark.compat


@pytest.fixture
def private_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    where = tmp_path / "tmp"
    where.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(where))
    yield where
    members._TABLES.clear()


def _tar(path: Path, files: list[tuple[str, bytes | None]], mode: str = "w") -> Path:
    """A tar of ``files`` (None: a folder), in that order."""
    with tarfile.open(path, mode) as tf:
        for name, data in files:
            info = tarfile.TarInfo(name)
            if data is None:
                info.type = tarfile.DIRTYPE
                tf.addfile(info)
            else:
                info.size = len(data)
                tf.addfile(info, io.BytesIO(data))
    return path


DEFAULT = ArchiveLimits()


def _both(upload: Path, limits: ArchiveLimits = DEFAULT) -> tuple[ArchiveReport, Path, ArchiveReport, Path]:
    """The archive unpacked as the check does (in place; headers read as ``archive.FAST_PLAIN`` says) and as
    tarfile streams it with every member a file (the reference)."""
    placed = private_dir() / UNPACKED
    placed.mkdir()
    every = private_dir() / UNPACKED
    every.mkdir()
    placed_report = unpack(upload, placed, limits)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(archive, "FAST_PLAIN", False)
        every_report = unpack(upload, every, limits, in_place=False)
    return placed_report, placed, every_report, every


def _same(a: ArchiveReport, b: ArchiveReport) -> None:
    """Two reports alike but for where they unpacked (a message naming a private path keeps its words)."""
    fields = ("archive", "kind", "members", "unpacked_bytes", "tops")
    assert [getattr(a, f) for f in fields] == [getattr(b, f) for f in fields]
    strip = [(p.rule, p.member, p.message.replace(a.root, "<root>"), p.warning) for p in a.problems]
    assert strip == [(p.rule, p.member, p.message.replace(b.root, "<root>"), p.warning) for p in b.problems]


SUB = "p-x_1"
MASKS = {f"{SUB}/mask/{i:04d}.png": pil_png(size=(40 + i, 30)) for i in range(3)}
OTHERS = {f"{SUB}/{SUB}.csv": b"ProbeFileID|ConfidenceScore\n", f"{SUB}/{SUB}.txt": b"about\n"}


@pytest.fixture(params=[True, False], ids=["fast", "tarfile"])
def fast(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Headers read by the fast reader of a plain tar stream (a compressed one decompressed whole first), or
    by tarfile's streaming reader alone."""
    monkeypatch.setattr(archive, "FAST_PLAIN", request.param)
    return bool(request.param)


@pytest.mark.parametrize("mode", ["w", "w:gz", "w:bz2", "w:xz"])
def test_masks_are_read_in_place_and_other_members_are_files(private_tmp: Path, mode: str, fast: bool) -> None:
    files = [(f"{SUB}/", None), (f"{SUB}/mask/", None), *OTHERS.items(), *MASKS.items()]
    upload = _tar(private_tmp.parent / f"up.tar{mode[2:] and '.' + mode[2:]}", files, mode)
    placed_report, placed, every_report, every = _both(upload)
    _same(placed_report, every_report)
    assert placed_report.problems == ()
    assert (placed_report.in_place, every_report.in_place) == (len(MASKS), 0)  # files not written: not removed
    assert ArchiveReport.from_dict(placed_report.as_dict()) == placed_report  # as it crosses to xdist workers
    for name, data in OTHERS.items():
        assert (placed / name).read_bytes() == data  # a file, as before
    for name, data in MASKS.items():
        path = str(placed / name)
        assert not os.path.lexists(path)  # no file of its own
        assert not_regular(Path(path)) is None  # yet a regular file to every check
        member = members.locate(path)
        assert member is not None and member.size == len(data)
        region = members.open_member(member)
        try:
            assert region.pread(len(data) + 100, 0) == data  # never past the member
        finally:
            region.close()
        got, want = png.read_header(path), png.read_header(str(every / name))
        assert (got.state, got.width, got.height, got.idat) == (want.state, want.width, want.height, want.idat)
        assert png.decode_pixels(path, got.width, got.height, 8, 0, 0, got.idat) == png.decode_pixels(
            str(every / name), got.width, got.height, 8, 0, 0, got.idat
        )
        assert (read_system_mask(path) == read_system_mask(every / name)).all()
    assert (placed / SUB / "mask").is_dir()  # mask/ itself is a real folder
    assert members.listdir(placed / SUB / "mask") == {n.rsplit("/", 1)[1] for n in MASKS}
    backing = members.locate(str(placed / next(iter(MASKS))))
    assert backing is not None
    if mode == "w":  # the masks copied from the upload into the private directory's spool
        assert backing.backing == str(placed.parent / members.SPOOL)
        copied = (placed.parent / members.SPOOL).stat().st_size  # consecutive masks in one copy, headers between
        assert sum(len(d) for d in MASKS.values()) <= copied < upload.stat().st_size
    else:  # the whole tar stream decompressed once, or the masks appended to a spool as tarfile streams them
        assert backing.backing == str(placed.parent / (members.STREAM if fast else members.SPOOL))


def test_paths_resolve_as_the_kernel_resolves_them(private_tmp: Path) -> None:
    upload = _tar(private_tmp.parent / "up.tar", list(MASKS.items()))
    placed = private_dir() / UNPACKED
    placed.mkdir()
    unpack(upload, placed)
    mask = placed / SUB / "mask"
    assert members.locate(f"{mask}/./0000.png") == members.locate(f"{mask}//0000.png") is not None
    assert members.locate(f"{mask}/../mask/0001.png") == members.locate(f"{mask}/0001.png") is not None
    for through in (f"{mask}/0000.png/", f"{mask}/0000.png/x.png", f"{mask}/0000.png/."):
        with pytest.raises(NotADirectoryError):
            members.locate(through)
        assert png.read_header(through).state == png.MISSING  # "a parent of it is not a directory"
    assert members.locate(f"{mask}/missing.png") is None and png.read_header(f"{mask}/missing.png").state == png.MISSING
    assert not_regular(Path(f"{mask}/0000.png/x")) == "a file that cannot be examined (Not a directory)"
    with pytest.raises(MaskReadError, match="file not found"):
        read_system_mask(f"{mask}/missing.png")


def test_a_table_is_trusted_only_in_a_private_folder_of_this_user(private_tmp: Path) -> None:
    upload = _tar(private_tmp.parent / "up.tar", list(MASKS.items()))
    root = private_dir()
    (root / UNPACKED).mkdir()
    unpack(upload, root / UNPACKED)
    path = str(root / UNPACKED / next(iter(MASKS)))
    assert members.locate(path) is not None
    members.forget(root)
    root.chmod(0o777)  # anyone could have written the table
    try:
        assert members.locate(path) is None
    finally:
        root.chmod(0o700)
    members.forget(root)
    assert members.locate(path) is not None
    remove(root)
    assert not root.exists() and members.locate(path) is None  # forgotten with its folder


def test_a_folder_where_a_member_stands_fails_as_making_it_would(private_tmp: Path) -> None:
    """A member read in place stands where a later member needs a folder, or a folder stands where a member
    goes: the same ARC-01 as unpacking every member into a file."""
    png_data = next(iter(MASKS.values()))
    for files in (
        [(f"{SUB}/mask/a.png", png_data), (f"{SUB}/mask/a.png/b.png", png_data)],
        [(f"{SUB}/mask/a.png", png_data), (f"{SUB}/mask/a.png/sub/", None)],
        [(f"{SUB}/mask/a.png/b.png", png_data), (f"{SUB}/mask/a.png", png_data)],
        [(f"{SUB}/mask/a.png/", None), (f"{SUB}/mask/a.png", png_data)],
    ):
        placed_report, _, every_report, _ = _both(_tar(private_tmp.parent / "up.tar", files))
        _same(placed_report, every_report)
        assert [p.rule for p in placed_report.problems] in (["ARC-01"], ["ARC-04"])


@pytest.mark.parametrize("mode", ["w", "w:gz"])
@pytest.mark.parametrize("limit", [1 << 20, (1 << 20) + 600, 3 << 20])
def test_the_size_limit_stops_at_the_same_member_with_the_same_total(private_tmp: Path, mode: str, limit: int) -> None:
    big = raw_png(idat=os.urandom(3 << 20))  # PNG-signed and 3 MiB: read in place, in several chunks
    files = [(f"{SUB}/mask/{i}.png", big) for i in range(3)]
    upload = _tar(private_tmp.parent / "up.tar", files, mode)
    limits = ArchiveLimits(total_bytes=limit)
    placed_report, placed, every_report, every = _both(upload, limits)
    _same(placed_report, every_report)
    assert placed_report.of("ARC-06")
    for name, _ in files:  # a member cut at the stop is as long as the file unpacking would have left
        cut = every / name
        size = cut.stat().st_size if cut.exists() else None
        member = members.locate(str(placed / name))
        assert (member.size if member is not None else None) == size


def test_a_plain_tar_cut_inside_a_member_is_arc01(private_tmp: Path) -> None:
    whole = _tar(private_tmp.parent / "whole.tar", [(f"{SUB}/mask/a.png", raw_png(idat=os.urandom(50_000)))])
    cut = private_tmp.parent / "cut.tar"
    cut.write_bytes(whole.read_bytes()[:20_000])
    placed_report, _, every_report, _ = _both(cut)
    _same(placed_report, every_report)
    assert [p.rule for p in placed_report.problems] == ["ARC-01"]


_NAMES = st.sampled_from(
    [f"{SUB}/mask/a.png", f"{SUB}/mask/b.png", f"{SUB}/mask/a.png/c.png", f"{SUB}/mask/", f"{SUB}/mask/a.png/",
     f"{SUB}/a.png", f"{SUB}/{SUB}.csv", f"{SUB}/mask/sub/d.png", f"{SUB}/Mask/e.png", f"{SUB}/MASK/A.PNG",
     "mask/f.png", f"{SUB}/mask/._g.png"]
)  # fmt: skip
_DATA = st.one_of(
    st.none(),
    st.sampled_from([pil_png(), raw_png(), raw_png()[:40], b"\x89PNG\r\n\x1a\n", b"not a png", b""]),
    st.binary(max_size=64).map(lambda b: b"\x89PNG\r\n\x1a\n" + b),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files=st.lists(st.tuples(_NAMES, _DATA), max_size=6), mode=st.sampled_from(["w", "w:gz"]), fast=st.booleans())
def test_in_place_or_every_member_a_file_read_alike(
    private_tmp: Path, files: list[tuple[str, bytes | None]], mode: str, fast: bool
) -> None:
    """Any archive of these names: the same report, and every path a check could ask reads the same (state,
    message and header) whether the members were read in place or unpacked into files."""
    upload = _tar(private_tmp.parent / "up.tar", files, mode)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(archive, "FAST_PLAIN", fast)
        placed_report, placed, every_report, every = _both(upload)
    _same(placed_report, every_report)
    asked = {name.rstrip("/") for name, _ in files} | {f"{SUB}/mask/a.png/c.png", f"{SUB}/mask/zz.png"}
    for name in sorted(asked):
        got, want = png.read_header(str(placed / name)), png.read_header(str(every / name))
        assert (got.state, got.message, got.width, got.height, got.idat) == (
            want.state, want.message, want.width, want.height, want.idat
        ), name  # fmt: skip
        assert not_regular(placed / name) == not_regular(every / name), name
    remove(placed.parent)
    remove(every.parent)


@pytest.mark.parametrize("packer", ["gnu", "gnu-posix", "gnu-ustar", "python-pax", "python-gnu", "python-ustar"])
def test_archives_as_participants_pack_them_are_read_without_tarfile(tmp_path: Path, packer: str) -> None:
    """``tar cvf <SubID>.tar <SubID>`` (GNU tar, each of its formats) and Python's tarfile (each format): every
    header is read by the fast reader, not handed to tarfile (which costs five times as much)."""
    folder = tmp_path / SUB
    for name, data in {**OTHERS, **MASKS}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(data)
    upload = tmp_path / f"{SUB}.tar"
    if packer.startswith("gnu"):
        tar = shutil.which("tar")
        if tar is None or "GNU" not in subprocess.run([tar, "--version"], capture_output=True, text=True).stdout:
            pytest.skip("GNU tar is not installed (Debian: apt-get install tar)")
        form = {"gnu": "gnu", "gnu-posix": "posix", "gnu-ustar": "ustar"}[packer]
        subprocess.run([tar, f"--format={form}", "-cf", str(upload), "-C", str(tmp_path), SUB], check=True)
    else:
        formats = {"python-pax": tarfile.PAX_FORMAT, "python-gnu": tarfile.GNU_FORMAT}
        with tarfile.open(upload, "w", format=formats.get(packer, tarfile.USTAR_FORMAT)) as tf:
            tf.add(folder, arcname=SUB)
    with upload.open("rb") as fh:
        scanned = archive._scan_plain(fh.fileno(), upload.stat().st_size, 1000)
    assert scanned is not None
    assert sorted(n for n, kind, _, _ in scanned if kind != tarfile.DIRTYPE) == sorted({**OTHERS, **MASKS})


@pytest.mark.parametrize("backing", ["/etc/passwd", "../outside.bin", "members.dat"])
def test_a_table_shipped_in_an_upload_reads_nothing_outside_its_folder(tmp_path: Path, backing: str) -> None:
    """A folder made to look like a private directory (a portal unpacked an upload that holds
    ``pytest-omfc-archive-x/members.json`` and pointed the check at the folder inside): the table names a file
    elsewhere, or its own ``members.dat`` as a link to one; no read leaves the folder."""
    secret = tmp_path / "outside.bin"
    secret.write_bytes(b"\x89PNG\r\n\x1a\nSECRET" * 10)
    root = tmp_path / "uploads" / "pytest-omfc-archive-x"
    (root / "unpacked" / SUB / "mask").mkdir(parents=True)
    root.chmod(0o700)
    (root / members.TABLE).write_text(json.dumps({"backing": backing, "members": {f"{SUB}/mask/a.png": [0, 80]}}))
    if backing == "members.dat":
        (root / "members.dat").symlink_to(secret)
    path = root / "unpacked" / SUB / "mask" / "a.png"
    member = members.locate(path)
    assert member is None or os.path.dirname(member.backing) == str(root)
    head = png.read_header(str(path))
    assert head.state in (png.MISSING, png.UNREADABLE) and "SECRET" not in head.message
    with pytest.raises(MaskReadError) as caught:
        read_system_mask(path)
    assert "SECRET" not in str(caught.value)


def test_other_processes_read_the_members_in_place(tmp_path: Path) -> None:
    """The process pool's workers and a LocalCluster's dask workers find the table from the path alone and read
    the same headers as this process.  (In the real TMPDIR: multiprocessing keeps the temporary folder it first
    meets for its forkserver's socket, and a test's folder would outlive the test there.)"""
    pytest.importorskip("distributed", reason="dask.distributed is not installed (pip install pytest-omfc[dask])")
    from pytest_omfc.work.executors import Executor
    from pytest_omfc.work.pool import map_slices

    upload = _tar(tmp_path / "up.tar", list(MASKS.items()))
    placed = private_dir() / UNPACKED
    try:
        placed.mkdir()
        assert unpack(upload, placed).in_place == len(MASKS)
        paths = [str(placed / name) for name in MASKS]
        here = png.read_headers(paths)
        assert all(h.state == png.OK for h in here)
        pooled = map_slices(png.read_headers, paths, 2, min_per_job=1)
        with Executor(jobs=2, dask="local") as cluster:
            remote = [h for part in cluster.map(png.read_headers, [[p] for p in paths], batch=1) for h in part]
        assert pooled == here and remote == here
    finally:
        remove(placed.parent)


@pytest.mark.parametrize("kernel", ["missing", "refuses", "short writes"])
def test_masks_are_copied_through_a_buffer_where_the_kernel_cannot(
    private_tmp: Path, monkeypatch: pytest.MonkeyPatch, kernel: str
) -> None:
    """macOS has no ``copy_file_range``, and Linux refuses it across some file systems: the masks of a plain tar
    are then copied through a buffer, to the same bytes, also where ``write`` takes only part of a buffer."""
    if kernel in ("missing", "short writes"):
        monkeypatch.delattr(os, "copy_file_range", raising=False)
        if kernel == "short writes":
            write = os.write
            monkeypatch.setattr(os, "write", lambda fd, data: write(fd, bytes(data[:7])))
    else:

        def refuse(*args: object) -> int:
            raise OSError(18, "Invalid cross-device link")

        monkeypatch.setattr(os, "copy_file_range", refuse, raising=False)
    upload = _tar(private_tmp.parent / "up.tar", [(f"{SUB}/", None), *OTHERS.items(), *MASKS.items()])
    placed = private_dir() / UNPACKED
    placed.mkdir()
    assert unpack(upload, placed).in_place == len(MASKS)
    for name, data in MASKS.items():
        member = members.locate(str(placed / name))
        assert member is not None
        region = members.open_member(member)
        try:
            assert region.pread(len(data) + 10, 0) == data
        finally:
            region.close()
