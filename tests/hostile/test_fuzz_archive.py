"""Hypothesis mutates tar headers and bytes of a valid submission archive: unpacking never raises, never writes
outside its private directory and never unpacks a link, a device or a FIFO (the ARC rules' reader).

Runs at the reader's level (thousands of archives a second); the plugin's handling of its report is
covered by tests/rules/test_arc.py.  ``HYPOTHESIS_PROFILE=deep`` (tests/helpers/fuzz.py registers
the profiles) runs hundreds of examples.
"""

from __future__ import annotations

import gzip
import io
import os
import tarfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from pytest_omfc import archive
from pytest_omfc.archive import ArchiveLimits, unpack

pytestmark = pytest.mark.fuzz

LIMITS = ArchiveLimits(entries=1_000, total_bytes=8 << 20, ratio=200.0)


def _valid() -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tf:
        for name, data in (
            ("p-x_1/p-x_1.csv", b"ProbeFileID|ConfidenceScore\n0042|0.5\n"),
            ("p-x_1/p-x_1.txt", b"1. Submission Identifier(s): p-x_1\n"),
            ("p-x_1/mask/0042.png", b"\x89PNG\r\n\x1a\n" + bytes(64)),
        ):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("p-x_1/mask/link.png")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tf.addfile(link)
    return buf.getvalue()


VALID = _valid()
#: Header fields of the first member (offsets in the 512-byte header): name, mode, size, checksum, type, link.
FIELDS = [(0, 100), (100, 8), (124, 12), (148, 8), (156, 1), (157, 100), (257, 8)]


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    data = bytearray(VALID)
    header = 512 * draw(st.integers(0, 3))  # the first headers of the archive
    for _ in range(draw(st.integers(1, 4))):
        start, length = draw(st.sampled_from(FIELDS))
        value = draw(st.binary(min_size=1, max_size=length))
        data[header + start : header + start + len(value)] = value
    if draw(st.booleans()):
        data = data[: draw(st.integers(0, len(data)))]  # truncated
    if draw(st.booleans()):
        data = bytearray(gzip.compress(bytes(data)))
    return bytes(data)


def _files(root: Path) -> list[Path]:
    return [Path(d) / f for d, _, fs in os.walk(root) for f in fs]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=mutated())
@example(data=VALID)
@example(data=VALID[:700])
@example(data=gzip.compress(VALID)[:40])
def test_mutated_archives_are_findings_never_escapes(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    base = tmp_path_factory.mktemp("fuzz-archive")
    upload = base / "upload.tar"
    upload.write_bytes(data)
    dest = base / "private"
    dest.mkdir()
    before = set(_files(base))
    report = unpack(upload, dest, LIMITS)  # never raises
    written = set(_files(base)) - before
    assert all(p.is_relative_to(dest) for p in written)
    for p in written:
        assert p.is_file() and not p.is_symlink()
    assert not (dest / "p-x_1" / "mask" / "link.png").exists()
    assert all(p.rule.startswith("ARC-0") for p in report.problems)
    assert report.unpacked_bytes <= LIMITS.total_bytes
    # unpacked as a check does (its PNG masks read in place): the same report, and fewer files written
    root = base / "pytest-omfc-archive-fuzz"
    root.mkdir(mode=0o700)
    (root / "unpacked").mkdir()
    placed = unpack(upload, root / "unpacked", LIMITS)
    shown = [(p.rule, p.member, p.message.replace(placed.root, "<dest>")) for p in placed.problems]
    assert shown == [(p.rule, p.member, p.message.replace(report.root, "<dest>")) for p in report.problems]
    assert (placed.members, placed.unpacked_bytes, placed.tops) == (report.members, report.unpacked_bytes, report.tops)
    assert {p.relative_to(root / "unpacked") for p in _files(root / "unpacked")} <= {
        p.relative_to(dest) for p in written
    }
    # and read by tarfile alone (no fast reading of a plain tar's headers): the same report again
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(archive, "FAST_PLAIN", False)
        slow_dest = base / "slow"
        slow_dest.mkdir()
        slow = unpack(upload, slow_dest, LIMITS)
    shown = [(p.rule, p.member, p.message.replace(slow.root, "<dest>")) for p in slow.problems]
    assert shown == [(p.rule, p.member, p.message.replace(report.root, "<dest>")) for p in report.problems]
    assert (slow.members, slow.unpacked_bytes, slow.tops) == (report.members, report.unpacked_bytes, report.tops)
    assert sorted(p.relative_to(slow_dest) for p in _files(slow_dest)) == sorted(p.relative_to(dest) for p in written)


@pytest.mark.parametrize("name", ["././", "./././", ".//./"])
def test_a_member_naming_the_folder_itself_is_skipped_as_dot_is(tmp_path: Path, name: str) -> None:
    """A member named ``././`` has no component once ``.`` and empty ones are dropped: it names the folder,
    as ``.`` does (it raised IndexError before)."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tf:
        for member, data in ((name, b"abc"), ("p-x_1/p-x_1.csv", b"ProbeFileID|ConfidenceScore\n")):
            info = tarfile.TarInfo(member)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    upload = tmp_path / "upload.tar"
    upload.write_bytes(buf.getvalue())
    (tmp_path / "private").mkdir()
    report = unpack(upload, tmp_path / "private", LIMITS)
    assert report.tops == ("p-x_1",) and [p.rule for p in report.problems] in ([], ["ARC-03"])


def _big_tar(size: int) -> bytes:
    """A tar of a system output and one member of ``size`` random bytes under ``mask/``."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tf:
        for name, data in (
            ("p-x_1/p-x_1.csv", b"ProbeFileID|ConfidenceScore\n0042|0.5\n"),
            ("p-x_1/mask/noise.png", b"\x89PNG\r\n\x1a\n" + os.urandom(size)),
        ):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def _fast_and_streamed(upload: Path, base: Path, batch: int | None = None) -> list[tuple[object, ...]]:
    """The upload unpacked with the fast reading, then by tarfile alone: each report (private paths shown as
    ``<dest>``) with the files it wrote."""
    out = []
    for fast in (True, False):
        dest = base / f"dest-{fast}"
        dest.mkdir()
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(archive, "FAST_PLAIN", fast)
            if batch is not None:
                mp.setattr(archive, "_CHECK_BATCH", batch)
            report = unpack(upload, dest, LIMITS)
        problems = [(p.rule, p.member, p.message.replace(str(dest), "<dest>")) for p in report.problems]
        files = {p.relative_to(dest): p.read_bytes() for p in _files(dest)}
        out.append((report.kind, problems, report.members, report.unpacked_bytes, report.tops, files))
    return out


_FORMATS = st.sampled_from([tarfile.GNU_FORMAT, tarfile.USTAR_FORMAT, tarfile.PAX_FORMAT])
_MEMBER_NAMES = st.sampled_from(
    ["p-x_1/p-x_1.csv", "p-x_1/mask/0042.png", "p-x_1/mask/", "p-x_1/", "p-x_1/mask/a.png/b.png",
     "p-x_1/" + "d" * 120 + "/x.png", "p-x_1/é.txt", "./p-x_1/mask/c.png", "p-x_1//mask/./e.png"]
)  # fmt: skip
#: numeric header fields (mode, uid, gid, size, mtime, checksum, device numbers) and the name, prefix and type
_HEADER_FIELDS = st.sampled_from([(100, 8), (108, 8), (116, 8), (124, 12), (136, 12), (329, 8), (337, 8),
                                  (0, 100), (345, 155), (156, 1)])  # fmt: skip
_FIELD_BYTES = st.binary(max_size=12) | st.text(alphabet="0123456789 +-_\x00\t/x.", max_size=12).map(str.encode)


@st.composite
def plain_tars(draw: st.DrawFn) -> bytes:
    """A plain tar of a few members in one of tarfile's formats, often with a header field changed and its
    checksum made right again (so that tarfile reads it), sometimes cut or followed by bytes past its end."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=draw(_FORMATS)) as tf:
        for name in draw(st.lists(_MEMBER_NAMES, min_size=1, max_size=4)):
            info = tarfile.TarInfo(name)
            if name.endswith("/"):
                info.type = tarfile.DIRTYPE
                tf.addfile(info)
            else:
                data = b"\x89PNG\r\n\x1a\n" + bytes(draw(st.integers(0, 700))) if name.endswith(".png") else b"a|b\n"
                info.size = len(data)
                tf.addfile(info, io.BytesIO(data))
    data = bytearray(buf.getvalue())
    headers = [i for i in range(0, len(data) - 512, 512) if tarfile.calc_chksums(bytes(data[i : i + 512]))[0] ==
               tarfile.nti(bytes(data[i + 148 : i + 156])) and any(data[i : i + 512])]  # fmt: skip
    for _ in range(draw(st.integers(0, 3))):  # (the first header's checksum decides whether it is a tar at all)
        at = draw(st.sampled_from(headers[1:] if len(headers) > 1 and draw(st.booleans()) else headers))
        start, length = draw(_HEADER_FIELDS)
        value = draw(_FIELD_BYTES)[:length]
        data[at + start : at + start + len(value)] = value
        if draw(st.booleans()):  # a checksum that matches again, as tarfile's unsigned sum
            data[at + 148 : at + 156] = b" " * 8
            data[at + 148 : at + 156] = b"%06o\x00 " % (sum(data[at : at + 512]) % 0o1000000)
    if draw(st.booleans()):
        data = data[: draw(st.integers(0, len(data)))]
    if draw(st.booleans()):
        data += draw(st.binary(max_size=1024))
    return bytes(data)


def _retyped(kind: bytes, fix: bool = True) -> bytes:
    """A folder member whose type is changed to ``kind`` (checksum made right): an old tar's folder is a
    regular file whose name ends with a slash."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tf:
        folder = tarfile.TarInfo("p-x_1/mask/")
        folder.type = tarfile.DIRTYPE
        tf.addfile(folder)
        info = tarfile.TarInfo("p-x_1/p-x_1.csv")
        info.size = 4
        tf.addfile(info, io.BytesIO(b"a|b\n"))
    data = bytearray(buf.getvalue())
    data[156:157] = kind
    data[148:156] = b" " * 8
    data[148:156] = b"%06o\x00 " % sum(data[:512])
    if not fix:  # the second header's name changed, its checksum not: tarfile stops there (ARC-01)
        data[512] ^= 1
    return bytes(data)


@pytest.mark.compat  # tarfile differs between Pythons: the fast reader must read as each one does
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=plain_tars())
@example(data=_retyped(tarfile.AREGTYPE))
@example(data=_retyped(tarfile.AREGTYPE, fix=False))
@example(data=_retyped(tarfile.REGTYPE))
def test_a_plain_tar_read_fast_reads_as_tarfile_reads_it(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    """The fast reading of a plain tar's headers (archive._scan_plain) gives what tarfile gives: the same
    members with the same names, types and data, the same findings, the same files; or it leaves the archive
    to tarfile."""
    base = tmp_path_factory.mktemp("fast-tar")
    upload = base / "upload.tar"
    upload.write_bytes(data)
    fast, streamed = _fast_and_streamed(upload, base, batch=2)  # checksums compared in batches, as for thousands
    assert fast == streamed


@pytest.mark.compat  # tarfile differs between Pythons: the fast reader must read as each one does
@pytest.mark.parametrize(
    "variant",
    ["one member", "two members", "garbage after", "zeros after", "cut", "bzip2", "xz", "empty tar", "over the limit"],
)
def test_a_compressed_upload_decompressed_whole_reads_as_streamed(tmp_path: Path, variant: str) -> None:
    """A compressed upload decompressed once into a stream file (the fast reading) gives the report tarfile's
    streaming gives, for every way a gzip file ends (a second member holds the rest of the tar, bytes after
    it, a cut) and for bzip2 and xz."""
    import bz2
    import lzma

    tar = bytes(1024) if variant == "empty tar" else VALID
    if variant == "over the limit":
        tar = _big_tar(LIMITS.total_bytes + (1 << 20))
    data = {
        "one member": gzip.compress(tar),
        "two members": gzip.compress(tar[:1024]) + gzip.compress(tar[1024:]),
        "garbage after": gzip.compress(tar) + b"not gzip at all",
        "zeros after": gzip.compress(tar) + bytes(4096),
        "cut": gzip.compress(tar)[:-30],
        "bzip2": bz2.compress(tar),
        "xz": lzma.compress(tar),
        "empty tar": gzip.compress(tar),
        "over the limit": gzip.compress(tar, compresslevel=1),  # noise: as large compressed as not
    }[variant]
    upload = tmp_path / "upload.tgz"
    upload.write_bytes(data)
    fast, streamed = _fast_and_streamed(upload, tmp_path)
    assert fast == streamed
