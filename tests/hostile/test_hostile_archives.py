"""Hostile archives through the portal's entry point, in a capped subprocess: each is a failing ARC rule with
a clear message, exit 1, no traceback, peak memory under 300 MB, nothing written outside the private
directory (which is gone afterwards)."""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import tarfile
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers.paths import EXAMPLES
from helpers.runs import PEAK_MB, run_capped

SUB = "p-baseline_3_imdl"
FOLDER = EXAMPLES / "submissions" / "imdl" / SUB
INDEX = EXAMPLES / "datasets" / "OpenMFC2020" / "indexes" / "OpenMFC20_Image-IMDL-index.csv"

#: Runs the entry point in this process and prints its peak resident memory (the unpacking happens here).
PEAK = (
    "import json, sys\n" + PEAK_MB + "from pytest_omfc.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "print(json.dumps({'peak_mb': peak_mb()}), file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def _add(tf: tarfile.TarFile, name: str, data: bytes = b"", **attrs: object) -> None:
    info = tarfile.TarInfo(name)
    for k, v in attrs.items():
        setattr(info, k, v)
    info.size = len(data) if info.type == tarfile.REGTYPE else 0
    tf.addfile(info, io.BytesIO(data) if info.size else None)


def _archive(path: Path, mode: str, extra: Callable[[tarfile.TarFile], None]) -> Path:
    with tarfile.open(path, mode, format=tarfile.GNU_FORMAT, encoding="utf-8", errors="surrogateescape") as tf:
        tf.add(FOLDER, arcname=SUB)
        extra(tf)
    return path


class _Zeros(io.RawIOBase):
    def __init__(self, n: int) -> None:
        self.left = n

    def readable(self) -> bool:
        return True

    def readinto(self, b: memoryview) -> int:  # type: ignore[override]
        n = min(len(b), self.left)
        b[:n] = bytes(n)
        self.left -= n
        return n


def bomb(path: Path) -> Path:
    """100 MiB of zeros in about 100 KiB: expands 1000 times."""
    with gzip.open(path, "wb", compresslevel=6) as gz, tarfile.open(fileobj=gz, mode="w") as tf:
        tf.add(FOLDER, arcname=SUB)
        info = tarfile.TarInfo(f"{SUB}/zeros.bin")
        info.size = 100 << 20
        tf.addfile(info, io.BufferedReader(_Zeros(info.size)))
    return path


def links(path: Path) -> Path:
    def extra(tf: tarfile.TarFile) -> None:
        _add(tf, f"{SUB}/mask/passwd.png", type=tarfile.SYMTYPE, linkname="/etc/passwd")
        _add(tf, f"{SUB}/pipe", type=tarfile.FIFOTYPE)
        _add(tf, f"{SUB}/null", type=tarfile.CHRTYPE, devmajor=1, devminor=3)
        _add(tf, f"{SUB}/../../escaped.txt", b"x")

    return _archive(path, "w", extra)


def names(path: Path) -> Path:
    def extra(tf: tarfile.TarFile) -> None:
        _add(tf, f"{SUB}/" + "n" * 4000, b"x")
        _add(tf, f"{SUB}/caf\udce9.png", b"x")  # the byte 0xE9 alone: not UTF-8

    return _archive(path, "w", extra)


def truncated(path: Path) -> Path:
    whole = _archive(path.with_suffix(".whole"), "w:gz", lambda tf: None).read_bytes()
    path.write_bytes(whole[: len(whole) // 2])
    return path


def nested(path: Path) -> Path:
    inner = _archive(path.with_suffix(".inner"), "w", lambda tf: None).read_bytes()
    return _archive(path, "w", lambda tf: _add(tf, f"{SUB}/mask/inner.png", inner))


def many(path: Path) -> Path:
    return _archive(path, "w:gz", lambda tf: [_add(tf, f"{SUB}/e/{k}") for k in range(20_000)])


CASES = [
    ("bomb.tgz", bomb, "ARC-06", []),
    ("links.tar", links, "ARC-03", []),
    ("names.tar", names, "ARC-03", []),
    ("truncated.tgz", truncated, "ARC-01", []),
    ("nested.tar", nested, "ARC-07", []),
    ("many.tgz", many, "ARC-06", ["--omfc-archive-max-entries", "1000"]),
]


@pytest.mark.parametrize(("name", "make", "rule", "extra"), CASES, ids=[c[0] for c in CASES])
def test_hostile_archive_is_a_failing_rule_within_bounds(
    tmp_path: Path, name: str, make: Callable[[Path], Path], rule: str, extra: list[str]
) -> None:
    upload = tmp_path / "upload"
    upload.mkdir()
    archive = make(upload / name)
    private = tmp_path / "tmp"
    private.mkdir()
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    args = ["--omfc-submission", str(archive), "--omfc-index", str(INDEX), "-q", f"--junitxml={tmp_path / 'j.xml'}"]
    env = {**os.environ, "TMPDIR": str(private)}
    res = run_capped(["-c", PEAK, *args, *extra], cwd=tmp_path, env=env, timeout=120, cap=2 * 1024**3)
    assert res.ret == 1, (res.ret, res.out[-2000:], res.err[-2000:])
    assert "Traceback" not in res.out + res.err and "INTERNALERROR" not in res.out + res.err
    failed = {
        tc.get("name"): (tc.find("failure").get("message") or "")  # type: ignore[union-attr]
        for tc in ET.parse(tmp_path / "j.xml").iter("testcase")
        if tc.find("failure") is not None
    }
    assert rule in failed, failed
    peak = json.loads(res.err.strip().splitlines()[-1])["peak_mb"]
    assert peak < 300, f"peak {peak:.0f} MB"
    after = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    assert [p for p in after if p not in before] == [Path("j.xml")]  # the private directory is gone too
    assert not (tmp_path.parent / "escaped.txt").exists() and not (upload.parent / "escaped.txt").exists()
    shutil.rmtree(upload)


def test_a_path_through_a_link_in_the_private_folder_is_refused(tmp_path: Path) -> None:
    """The second guard (tarfile's data-filter check, made here for every Python): a path that resolves outside
    the private folder is refused even if the name checks let it through."""
    from pytest_omfc.archive import _escapes

    dest = tmp_path / "private"
    (dest / "sub").mkdir(parents=True)
    (dest / "sub" / "out").symlink_to(tmp_path, target_is_directory=True)
    real = os.path.realpath(dest)
    for resolved in ({}, {str(dest / "sub"): real + "/sub"}):  # each folder resolved once, then kept
        assert not _escapes(real, str(dest / "sub" / "file.csv"), resolved)
        assert not _escapes(real, str(dest), resolved)
        assert _escapes(real, str(dest / "sub" / "out" / "file.csv"), resolved)
        assert _escapes(real, str(tmp_path / "private-sibling" / "x"), resolved)


def _loose(path: Path, names: list[str]) -> Path:
    """An archive of the valid submission's files packed from inside its folder (no folder above them), plus
    ``names`` as small files at the top."""
    with tarfile.open(path, "w") as tf:
        for item in sorted(FOLDER.rglob("*")):
            tf.add(item, arcname=item.relative_to(FOLDER).as_posix(), recursive=False)
        for name in names:
            _add(tf, name, b"from the upload\n")
    return path


@pytest.mark.parametrize("entry", ["pytest_omfc", "pytest"])
@pytest.mark.parametrize(
    ("upload", "tops"),
    [
        ("...tar", ["keep.txt"]),  # its stem is '..': the gathering folder was the private folder's parent
        (f"{SUB}.tar", [SUB]),  # a top-level file named as the stem: FileExistsError, INTERNALERROR
        (".tar", []),
    ],
)
def test_the_private_folder_never_takes_its_place_from_the_upload(
    tmp_path: Path, upload: str, tops: list[str], entry: str
) -> None:
    """Members packed without a folder are gathered in a fixed place inside the private folder: nothing is moved
    into TMPDIR (a file already there keeps its content), nothing stays behind, and the run ends in rule
    verdicts (exit 1: ARC-02 and the SubID rules), not exit 5 or an INTERNALERROR."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    (tmp / "keep.txt").write_text("the portal's own file\n", encoding="utf-8")
    archive = _loose(tmp_path / upload, tops)
    args = ["-m", entry, "--omfc-submission", str(archive), "--omfc-index", str(INDEX)]
    if entry == "pytest":
        (tmp_path / "config").mkdir()  # not beside the upload: that is refused (tests/glue/test_plugin.py)
        (tmp_path / "config" / "empty.ini").write_text("[pytest]\n", encoding="utf-8")
        args += ["-p", "no:cacheprovider", "--rootdir", str(tmp_path), "-c", str(tmp_path / "config" / "empty.ini")]
    env = {**os.environ, "TMPDIR": str(tmp)}
    run = run_capped(args, cwd=tmp_path, env=env, timeout=120)
    text = run.out + run.err
    assert run.ret == 1 and "INTERNALERROR" not in text and "Traceback" not in text, text[-3000:]
    assert "ARC-02" in text
    assert (tmp / "keep.txt").read_text(encoding="utf-8") == "the portal's own file\n"
    assert sorted(p.name for p in tmp.iterdir()) == ["keep.txt"]


def test_a_csv_holding_ustar_at_offset_257_is_a_csv(tmp_path: Path) -> None:
    """Format by its own signature, strictly: a tar needs a valid header checksum, not only 'ustar' at 257."""
    from pytest_omfc.archive import kind_of

    text = (FOLDER / f"{SUB}.csv").read_text(encoding="utf-8").splitlines()
    header, rows = text[0], text[1:]
    padded = header + "\n" + rows[0] + "\n"
    filler = 257 - len(padded[:-1].encode())
    assert filler > 0
    csv = tmp_path / f"{SUB}.csv"
    csv.write_text(padded[:-1] + " " * filler + "ustar\n" + "\n".join(rows[1:]) + "\n", encoding="utf-8")
    assert csv.read_bytes()[257:262] == b"ustar" and kind_of(csv) is None
    real = tmp_path / "real.tar"
    with tarfile.open(real, "w", format=tarfile.USTAR_FORMAT) as tf:
        tf.add(FOLDER, arcname=SUB)
    assert kind_of(real) == "tar"
    with tarfile.open(tmp_path / "gnu.tar", "w", format=tarfile.GNU_FORMAT) as tf:  # 'ustar  ' (GNU magic)
        tf.add(FOLDER, arcname=SUB)
    assert kind_of(tmp_path / "gnu.tar") == "tar"
