"""An upload read the way GNU tar reads it, completely, in bounded memory (pytest_omfc/archive.py): every gzip
member, headers whose sizes are bounded before they are read, no recursion that input drives, sparse members
refused.  Each archive is unpacked in a subprocess under an address-space cap, so a regression fails instead of
taking the machine: before, the concatenated gzip hid its symlink, the long name and the pax record reached
MemoryError (3.1 GB for a 1.5 GiB name), the global headers RecursionError, the bzip2 bomb 786 MB."""

from __future__ import annotations

import bz2
import gzip
import io
import json
import tarfile
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers.paths import EXAMPLES
from helpers.runs import PEAK_MB, run_capped

#: tarfile's header reading is overridden (archive._BoundedInfo): checked on every supported Python
pytestmark = pytest.mark.compat

SUB = "p-baseline_3_imdl"
FOLDER = EXAMPLES / "submissions" / "imdl" / SUB
CAP = 700 << 20  # the address space of the unpacking process: Python and the plugin's imports fit well below

UNPACK = (
    "import json, sys\n" + PEAK_MB + "from pathlib import Path\n"
    "from pytest_omfc.archive import unpack\n"
    "report = unpack(Path(sys.argv[1]), Path(sys.argv[2]))\n"
    "peak = peak_mb()\n"
    "print(json.dumps({'peak_mb': peak, 'problems': [[p.rule, p.member, p.message] for p in report.problems],"
    " 'members': report.members}))\n"
)


def _unpack(tmp_path: Path, archive: Path) -> dict[str, object]:
    dest = tmp_path / "private"
    dest.mkdir()
    run = run_capped(["-c", UNPACK, str(archive), str(dest)], cwd=tmp_path, timeout=120, cap=CAP)
    assert run.ret == 0, run.err[-3000:]
    out: dict[str, object] = json.loads(run.out.strip().splitlines()[-1])
    return out


def _header(name: str, size: int, kind: bytes) -> bytes:
    info = tarfile.TarInfo(name)
    info.size, info.type = size, kind
    return info.tobuf(format=tarfile.GNU_FORMAT)


def _valid_tar() -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tf:
        tf.add(FOLDER, arcname=SUB)
        end = tf.offset
    return buf.getvalue()[:end]  # without the end-of-archive blocks and padding: more members follow


def _gzip_stream(parts: Iterator[bytes]) -> bytes:
    comp = zlib.compressobj(1, zlib.DEFLATED, 31)
    return b"".join(comp.compress(p) for p in parts) + comp.flush()


def _repeat(byte: bytes, n: int, chunk: int = 1 << 22) -> Iterator[bytes]:
    block = byte * chunk
    while n > 0:
        yield block[: min(n, chunk)]
        n -= chunk


def test_a_second_gzip_member_is_read(tmp_path: Path) -> None:
    """gzip -d and GNU tar read every member of a concatenated gzip; so does the check."""
    link = tarfile.TarInfo(f"{SUB}/mask/passwd.png")
    link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
    second = link.tobuf(format=tarfile.GNU_FORMAT) + b"\0" * 1024
    archive = tmp_path / f"{SUB}.tgz"
    archive.write_bytes(gzip.compress(_valid_tar()) + gzip.compress(second))
    out = _unpack(tmp_path, archive)
    assert any(
        p[0] == "ARC-03" and p[1] == f"{SUB}/mask/passwd.png" and "symbolic link" in p[2] for p in out["problems"]
    ), out


@pytest.mark.parametrize(
    ("kind", "what"), [(tarfile.GNUTYPE_LONGNAME, "GNU long name"), (tarfile.XHDTYPE, "pax header")]
)
def test_a_huge_header_is_refused_before_it_is_read(tmp_path: Path, kind: bytes, what: str) -> None:
    """A 256 MiB long name (or pax record) in a 256 KiB tgz: refused by its declared size, never held."""
    size = 256 << 20
    archive = tmp_path / f"{SUB}.tgz"
    parts = [_valid_tar(), _header("././@LongLink" if what.startswith("GNU") else "pax", size, kind)]
    archive.write_bytes(_gzip_stream(iter([*parts, *_repeat(b"a", size), b"\0" * 2048])))
    out = _unpack(tmp_path, archive)
    assert any(p[0] == "ARC-06" and what in p[2] and "must be at most" in p[2] for p in out["problems"]), out
    assert out["peak_mb"] < 300, out["peak_mb"]


@pytest.mark.parametrize(
    ("kind", "what"), [(tarfile.GNUTYPE_LONGNAME, "GNU long name"), (tarfile.XHDTYPE, "pax header")]
)
def test_a_huge_declared_header_in_a_plain_tar_is_refused_unread(tmp_path: Path, kind: bytes, what: str) -> None:
    """A plain tar whose extended header declares 2 GiB that the file does not hold: refused by the declared
    size, as tarfile refuses it, and no reader asks for 2 GiB (under the address-space cap, a read of that size
    was a MemoryError, another finding)."""
    archive = tmp_path / f"{SUB}.tar"
    declared = _header("././@LongLink" if what.startswith("GNU") else "pax", 2 << 30, kind)
    archive.write_bytes(_valid_tar() + declared + b"\0" * 4096)
    out = _unpack(tmp_path, archive)
    assert any(p[0] == "ARC-06" and what in p[2] and "must be at most" in p[2] for p in out["problems"]), out
    assert out["peak_mb"] < 300, out["peak_mb"]


def test_a_chain_of_global_headers_is_refused_without_recursion(tmp_path: Path) -> None:
    """200,000 pax global headers in a row (about 200 KB as tgz): tarfile read each by recursion."""
    record = b"16 comment=abcd\n"
    one = _header("pax_global_header", len(record), tarfile.XGLTYPE) + record.ljust(512, b"\0")
    archive = tmp_path / f"{SUB}.tgz"
    archive.write_bytes(_gzip_stream(iter([_valid_tar(), *(one for _ in range(200_000)), b"\0" * 1024])))
    out = _unpack(tmp_path, archive)
    assert any(p[0] == "ARC-06" and "extended headers in a row" in p[2] for p in out["problems"]), out


def test_a_bzip2_bomb_stays_in_bounded_memory(tmp_path: Path) -> None:
    """256 MiB of zeros as one member of a bzip2 tar: decompressed a buffer at a time, stopped by the ratio."""
    size = 256 << 20
    comp = bz2.BZ2Compressor(9)
    body = [_valid_tar(), _header(f"{SUB}/zeros.bin", size, tarfile.REGTYPE), *_repeat(b"\0", size), b"\0" * 1024]
    archive = tmp_path / f"{SUB}.tar.bz2"
    archive.write_bytes(b"".join(comp.compress(p) for p in body) + comp.flush())
    out = _unpack(tmp_path, archive)
    assert any(p[0] == "ARC-06" and "must expand at most" in p[2] for p in out["problems"]), out
    assert out["peak_mb"] < 300, out["peak_mb"]


def test_a_sparse_member_is_refused(tmp_path: Path) -> None:
    sparse = _header(f"{SUB}/sparse.bin", 0, tarfile.GNUTYPE_SPARSE)
    archive = tmp_path / f"{SUB}.tar"
    archive.write_bytes(_valid_tar() + sparse + b"\0" * 1024)
    out = _unpack(tmp_path, archive)
    assert any(p[0] == "ARC-03" and "sparse" in p[2] for p in out["problems"]), out
    assert not (tmp_path / "private" / SUB / "sparse.bin").exists()


@pytest.mark.parametrize("garbage", [b"x" * 512, b"16 comment=abcd\n".ljust(512, b"\0")])
def test_a_corrupt_header_after_members_is_a_finding(tmp_path: Path, garbage: bytes) -> None:
    """A block that is no header where a member should start: GNU tar reports it; tarfile ended its iteration
    there silently on some Pythons, and the members after it were never checked."""
    link = tarfile.TarInfo(f"{SUB}/mask/passwd.png")
    link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
    archive = tmp_path / f"{SUB}.tar"
    archive.write_bytes(_valid_tar() + garbage + link.tobuf(format=tarfile.GNU_FORMAT) + b"\0" * 1024)
    out = _unpack(tmp_path, archive)
    assert any(p[0] == "ARC-01" and "corrupt header at byte" in p[2] for p in out["problems"]), out


def _tar_of(tmp_path: Path, names: list[str]) -> Path:
    archive = tmp_path / f"{SUB}.tar"
    with tarfile.open(archive, "w", format=tarfile.PAX_FORMAT) as tf:
        tf.add(FOLDER, arcname=SUB)
        for name in names:
            info = tarfile.TarInfo(name)
            info.size = 1
            tf.addfile(info, io.BytesIO(b"x"))
    return archive


@pytest.mark.parametrize(
    ("names", "rule", "member", "text"),
    [
        ([f"{SUB}/..\\..\\..\\evil.txt"], "ARC-03", f"{SUB}/..\\..\\..\\evil.txt", "'..' component"),
        ([f"{SUB}/mask\\x.png"], "ARC-03", f"{SUB}/mask\\x.png", "backslash"),
        ([f"{SUB}/\u00e9.txt", f"{SUB}/e\u0301.txt"], "ARC-04", f"{SUB}/e\u0301.txt", "another Unicode normal form"),
        ([f"{SUB}/A.txt", f"{SUB}/a.txt"], "ARC-04", f"{SUB}/a.txt", "case-insensitive"),
    ],
)
def test_member_names_as_the_three_file_systems_read_them(
    tmp_path: Path, names: list[str], rule: str, member: str, text: str
) -> None:
    out = _unpack(tmp_path, _tar_of(tmp_path, names))
    assert any(p[0] == rule and p[1] == member and text in p[2] for p in out["problems"]), out


def test_names_that_are_two_files_everywhere_are_not_a_collision(tmp_path: Path) -> None:
    """straße and strasse are two files on NTFS and APFS (full case folding would make them one)."""
    out = _unpack(tmp_path, _tar_of(tmp_path, [f"{SUB}/stra\u00dfe.txt", f"{SUB}/strasse.txt"]))
    assert not [p for p in out["problems"] if p[0] == "ARC-04"], out
