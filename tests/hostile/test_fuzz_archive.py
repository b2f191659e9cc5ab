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
