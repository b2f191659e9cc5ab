"""Reading an uploaded submission archive safely: recognised by content, unpacked member by member into one
private directory (its masks read in place), never where the archive says.

Participants upload an archive, not a directory: OpenMFC's plan says ``tar cvf <SubID>.tar <SubID>``, NC2017's
``tar -cvf - ./<TEAM>_<YEAR>_<DATA>_<SUBNUM> | gzip > <TEAM>_<YEAR>_<DATA>_<SUBNUM>.tgz``.  :func:`unpack`
streams a tar (plain, gzip, bzip2 or xz: told by the first bytes, not the file name) once, and for each
member decides before writing a byte:

* **unsafe** (ARC-03): an absolute name, a ``..`` component, a name that is not UTF-8 or too long for a
  file system, a symbolic or hard link, a device, a FIFO or any other special member: named, never followed,
  never unpacked;
* **repeated** (ARC-04): a name given twice, or two names that are one file on a case-insensitive file
  system (macOS, Windows): the later one is not unpacked;
* **junk** (ARC-05, a warning): ``__MACOSX/``, ``._*``, ``.DS_Store``, ``Thumbs.db``: not unpacked;
* **nested** (ARC-07): a member whose content is itself an archive (tar, gzip, bzip2, xz, zip): not unpacked.

The rest is written below the private directory, each path resolved first and refused unless it lies there
(the check of :func:`tarfile.data_filter`, which Python 3.10 and 3.11.0-3.11.3 lack, made here as a second guard).
The archive is read as GNU tar reads it, completely: every member of a concatenated gzip (and every bzip2 or
xz stream), decompressed a buffer at a time.  Limits are enforced while streaming (ARC-06): the number of
members, the total unpacked size and the expansion ratio (unpacked bytes per archive byte), both counted on
everything tarfile reads, headers included; a GNU long name or pax header over :data:`MAX_META` and more than
:data:`MAX_META_CHAIN` such headers in a row are refused by their declared sizes, before they are read.
Reaching a limit stops the unpacking with a finding that names it.  Memory stays at a few read buffers
whatever the archive holds; time is bounded by the archive's size and the limits.  An archive that cannot be
read (a zip, a truncated gzip, a corrupt header) is ARC-01.

Two ways make an upload of thousands of masks cost little more than its folder, with the same findings:

* **masks read in place** (:mod:`pytest_omfc.members`): unpacking into a private directory's ``unpacked/``,
  a PNG member of a ``mask/`` folder is not written as a file of its own but kept in one file of the private
  directory, and a table says where;
* **a fast reader of plain tar headers** (:func:`_scan_plain`): tarfile costs about 80 microseconds a member,
  so a plain tar stream whose every header is a plain one (files, folders, pax records of times only) is
  read with one window of ``pread`` and checksums compared in batches; a compressed upload is decompressed
  once into one file first, unless it could reach a limit.  Anything else is read by tarfile, as before.

No pytest import; nothing here raises on bad input.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import re
import tarfile
import tempfile
import unicodedata
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, cast

from . import members, private
from .members import in_place as in_place_member

__all__ = [
    "ArchiveLimits",
    "ArchiveProblem",
    "ArchiveReport",
    "DEFAULT_LIMITS",
    "archive_stem",
    "fs_key",
    "is_junk",
    "kind_of",
    "gathered_name",
    "private_dir",
    "remove",
    "unpack",
]

#: First bytes of the formats a submission may arrive in ("tar" sits at offset 257).
_MAGIC = (
    (b"\x1f\x8b", "gzip"),
    (b"BZh", "bzip2"),
    (b"\xfd7zXZ\x00", "xz"),
    (b"PK\x03\x04", "zip"),
    (b"PK\x05\x06", "zip"),
)
_CHUNK = 1 << 20
#: A name component longer than this (bytes) cannot be created on common file systems.
MAX_COMPONENT = 255
MAX_NAME = 4096
#: The expansion ratio is judged only past this many unpacked bytes (a small archive of text may compress 100x).
RATIO_FLOOR = 64 << 20
JUNK_NAMES = (".DS_Store", "Thumbs.db", "desktop.ini")


@dataclass(frozen=True)
class ArchiveLimits:
    """What one archive may hold (``--omfc-archive-max-*``)."""

    entries: int = 100_000  # a 16,000-probe submission with masks has about 16,000 members
    total_bytes: int = 16 << 30  # 16 GiB unpacked
    ratio: float = 200.0  # unpacked bytes per archive byte (PNG masks barely compress: about 1)


DEFAULT_LIMITS = ArchiveLimits()


@dataclass(frozen=True)
class ArchiveProblem:
    """One finding of the archive rules: its rule, the member it names ("" for the archive) and the message."""

    rule: str
    member: str
    message: str
    warning: bool = False


@dataclass(frozen=True)
class ArchiveReport:
    """What unpacking found (plain data: it crosses to xdist workers as JSON)."""

    archive: str  # the archive's file name, as findings show it
    kind: str  # tar, tar.gz, tar.bz2, tar.xz (or zip, unread)
    root: str  # the private directory the members went to (empty when none was unpacked)
    members: int = 0
    unpacked_bytes: int = 0
    tops: tuple[str, ...] = ()  # the first name components of the unpacked members, in order
    problems: tuple[ArchiveProblem, ...] = ()
    in_place: int = 0  # members read in place, not written as files (pytest_omfc.members)

    def as_dict(self) -> dict[str, Any]:
        return {
            "archive": self.archive,
            "kind": self.kind,
            "root": self.root,
            "members": self.members,
            "unpacked_bytes": self.unpacked_bytes,
            "tops": list(self.tops),
            "problems": [[p.rule, p.member, p.message, p.warning] for p in self.problems],
            "in_place": self.in_place,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ArchiveReport:
        return cls(
            archive=d["archive"],
            kind=d["kind"],
            root=d["root"],
            members=d["members"],
            unpacked_bytes=d["unpacked_bytes"],
            tops=tuple(d["tops"]),
            problems=tuple(ArchiveProblem(*p) for p in d["problems"]),
            in_place=d.get("in_place", 0),
        )

    def of(self, rule: str) -> list[ArchiveProblem]:
        return [p for p in self.problems if p.rule == rule]


def _kind(head: bytes) -> str | None:
    """The format of a file from its first 512 bytes (see :func:`kind_of`)."""
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return name
    return "tar" if _tar_header(head) else None


def _tar_header(head: bytes) -> bool:
    """Whether ``head`` starts with a tar header: ``ustar`` at offset 257 and a valid header checksum (the sum
    of the 512 bytes with the checksum field read as blanks, written in octal at offset 148), as tar itself
    checks.  A text file that happens to hold ``ustar`` there (a CSV given as the system output) is no tar."""
    if len(head) < 512 or head[257:262] != b"ustar":
        return False
    field = head[148:156].replace(b"\x00", b" ").strip()
    try:
        stored = int(field, 8)
    except ValueError:
        return False
    computed = sum(head[:148]) + 8 * 32 + sum(head[156:512])
    return stored == computed


def kind_of(path: Path) -> str | None:
    """``tar``, ``gzip``, ``bzip2``, ``xz`` or ``zip`` by the file's first bytes; None for anything else (a CSV,
    a directory, a FIFO: only a regular file is opened)."""
    try:
        if not path.is_file():
            return None
        with path.open("rb") as fh:
            return _kind(fh.read(512))
    except OSError:
        return None


def archive_stem(name: str) -> str:
    """An archive's file name without its tar suffixes: ``p-x_1.tar.gz`` -> ``p-x_1``."""
    for suffix in (".tar.gz", ".tar.bz2", ".tar.xz", ".tgz", ".tbz2", ".txz", ".tar"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def private_dir() -> Path:
    """A new private directory (mode 0700) for one archive: its members go to ``<private>/unpacked/``, and
    members packed without a folder above them are gathered in ``<private>/gathered/<name>/``
    (:func:`gathered_name`): no name taken from the upload ever decides where a file lands outside these."""
    return private.make("archive")


#: Where, inside the private directory, the members are unpacked and loose members gathered.
UNPACKED, GATHERED = "unpacked", "gathered"


def gathered_name(archive_name: str) -> str:
    """The folder that gathers members packed without one: the archive's stem (``p-x_1.tar`` -> ``p-x_1``), or
    ``submission`` when the stem is no usable folder name ('', '.', '..', a separator or NUL in it: an upload
    named ``...tar`` must not make the private directory's parent the submission folder)."""
    stem = archive_stem(archive_name)
    bad = stem in ("", ".", "..") or any(c in stem for c in "/\\\x00") or len(stem.encode("utf-8", "replace")) > 255
    return "submission" if bad else stem


class _Counting:
    """A read-only file wrapper that counts the bytes read: the archive's (for the expansion ratio), and the
    decompressed stream tarfile reads, headers included (``limit``: :class:`_Stop` past it)."""

    def __init__(self, fh: IO[bytes], limit: int | None = None, why: str = "") -> None:
        self.fh = fh
        self.read_bytes = 0
        self.limit = limit
        self.why = why

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def read(self, n: int = -1) -> bytes:
        data = self.fh.read(n)
        self.read_bytes += len(data)
        if self.limit is not None and self.read_bytes > self.limit:
            raise _Stop("ARC-06", self.why)
        return data


class _Stop(Exception):
    """Reading stops with a finding: ``args`` are the rule and the message."""


#: A GNU long name or link, or a pax record set, larger than this is refused before it is read (a name over
#: :data:`MAX_NAME` is a finding anyway): tarfile would hold it in memory whole (a 1.5 GiB name took 3 GB).
MAX_META = 1 << 20
#: More header blocks than this in a row before a member (pax records, long names, global headers) are refused:
#: tarfile reads each by recursion (two million global headers ended in RecursionError).
MAX_META_CHAIN = 32
_PAX_TYPES = (tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE)
_META_TYPES = (tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK, *_PAX_TYPES)
#: tarfile's error for a block that is no header (a checksum that does not match); not in its typed names
_INVALID_HEADER: type[Exception] = getattr(tarfile, "InvalidHeaderError", tarfile.HeaderError)


class _BoundedInfo(tarfile.TarInfo):
    """tarfile's header reading with bounds (:data:`MAX_META`, :data:`MAX_META_CHAIN`) and sparse members read
    without their map (they are refused, ARC-03): memory stays bounded whatever the headers say, on every
    Python (the overridden methods are the same from 3.10 to 3.13)."""

    omfc_sparse = False

    @classmethod
    def fromtarfile(cls, tarfile_: tarfile.TarFile) -> _BoundedInfo:
        """The next header (tarfile's own steps); one that is not a header (its checksum is wrong) where a member
        should start is a finding: tarfile ends its iteration there without a word on some Pythons (3.11.2
        after a malformed pax record), which would hide every member after it."""
        fileobj: Any = tarfile_.fileobj
        buf = fileobj.read(tarfile.BLOCKSIZE)
        try:
            obj = cls.frombuf(buf, tarfile_.encoding, tarfile_.errors)
        except _INVALID_HEADER as exc:
            offset = fileobj.tell() - tarfile.BLOCKSIZE
            raise _Stop(
                "ARC-01", f"must be a complete, readable tar archive (got a corrupt header at byte {offset}: {exc})"
            ) from None
        obj.offset = fileobj.tell() - tarfile.BLOCKSIZE
        return cast(_BoundedInfo, obj._proc_member(tarfile_))

    def _proc_member(self, tarfile_: tarfile.TarFile) -> tarfile.TarInfo:
        if self.type in _META_TYPES:
            chain = getattr(tarfile_, "omfc_chain", 0) + 1
            tarfile_.omfc_chain = chain  # type: ignore[attr-defined]
            kind = "a pax header" if self.type in _PAX_TYPES else "a GNU long name or link header"
            if self.size > MAX_META:
                raise _Stop("ARC-06", f"has {kind} of {self.size} bytes: it must be at most {MAX_META} bytes")
            if chain > MAX_META_CHAIN:
                raise _Stop("ARC-06", f"has more than {MAX_META_CHAIN} extended headers in a row before a member")
        return super()._proc_member(tarfile_)  # type: ignore[misc]

    def _proc_sparse(self, tarfile_: tarfile.TarFile) -> tarfile.TarInfo:
        """A GNU sparse member: its extension blocks are skipped one at a time (never collected)."""
        _structs, isextended, _origsize = self._sparse_structs  # type: ignore[attr-defined]
        del self._sparse_structs  # type: ignore[attr-defined]
        fileobj: Any = tarfile_.fileobj
        while isextended:
            buf = fileobj.read(tarfile.BLOCKSIZE)
            if len(buf) < tarfile.BLOCKSIZE:
                raise tarfile.ReadError("unexpected end of data in a sparse header")
            isextended = bool(buf[504])
        self.sparse = None
        self.omfc_sparse = True
        self.offset_data = fileobj.tell()
        tarfile_.offset = self.offset_data + self._block(self.size)  # type: ignore[attr-defined]
        return self


def _decompressed(kind: str, counting: _Counting) -> IO[bytes]:
    """The tar stream of an archive of ``kind``: every gzip member, bzip2 stream and xz stream in turn (as
    ``gzip -d`` reads them: a second member is no hiding place), decompressed a buffer at a time."""
    import bz2
    import gzip
    import lzma

    if kind == "gzip":
        return cast(IO[bytes], gzip.GzipFile(fileobj=cast(Any, counting), mode="rb"))
    if kind == "bzip2":
        return bz2.BZ2File(cast(Any, counting))
    if kind == "xz":
        return lzma.LZMAFile(cast(Any, counting))
    return cast(IO[bytes], counting)


def fs_key(name: str) -> str:
    """The name as the case-insensitive file systems of macOS (APFS, HFS+) and Windows (NTFS) compare names: in
    one Unicode normal form (macOS takes NFC and NFD spellings of ``é`` for one name) and with each character's
    simple upper case (one character to one: ``ß`` stays ``ß``, so ``straße`` and ``strasse`` are two files, as
    they are there; ``str.casefold`` would make them one)."""
    text = unicodedata.normalize("NFC", name)
    return "".join(u if len(u := c.upper()) == 1 else c for c in text)


def _why_unsafe(name: str, member: tarfile.TarInfo) -> str | None:
    """Why a member must not be unpacked (ARC-03), or None."""
    if "\x00" in name:
        return "has a NUL byte in its name"
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return "has a name that is not UTF-8"
    size = len(name.encode())
    if size > MAX_NAME or (size > MAX_COMPONENT and any(len(c.encode()) > MAX_COMPONENT for c in name.split("/"))):
        return f"has a name longer than a file system takes ({MAX_COMPONENT} bytes a component, {MAX_NAME} in all)"
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":"):
        return "has an absolute name"
    if ".." in name.replace("\\", "/").split("/"):
        return "has a '..' component (it would be written outside the submission on some file system)"
    if "\\" in name:
        return "has a backslash in its name (a folder separator on Windows: the layout would change there)"
    if member.issym():
        return f"is a symbolic link (to {member.linkname!r}): links are never followed"
    if member.islnk():
        return f"is a hard link (to {member.linkname!r}): links are never followed"
    if member.ischr() or member.isblk():
        return "is a device"
    if member.isfifo():
        return "is a FIFO"
    if getattr(member, "omfc_sparse", False):
        return "is a sparse file (GNU tar --sparse): pack the files as they are"
    if not (member.isreg() or member.isdir()):
        return f"is a special member (tar type {member.type!r})"
    return None


def _escapes(real_dest: str, target: str, real_dirs: dict[str, str]) -> bool:
    """Whether ``target`` resolves (symbolic links followed) outside ``real_dest`` (a resolved directory).
    ``real_dirs`` keeps each folder's resolved path: below the destination only this function's caller makes
    entries, never a link, so a folder resolves once and a new name in it adds no link."""
    parent, _, leaf = target.rpartition(os.sep)
    real_parent = real_dirs.get(parent)
    if real_parent is None:
        real_parent = real_dirs[parent] = os.path.realpath(parent)
    real = os.path.join(real_parent, leaf) if leaf not in (".", "..") else os.path.realpath(target)
    return real != real_dest and not real.startswith(real_dest + os.sep)


def _parts(name: str) -> list[str]:
    """The components of a relative member name as :class:`~pathlib.PurePosixPath` gives them (no empty or
    ``.`` component)."""
    return [p for p in name.split("/") if p not in ("", ".")]


def is_junk(name: str) -> bool:
    parts = _parts(name)
    return bool(parts) and (parts[0] == "__MACOSX" or parts[-1].startswith("._") or parts[-1] in JUNK_NAMES)


def _members(tf: tarfile.TarFile) -> Iterator[tarfile.TarInfo]:
    """The members of a stream, each forgotten once passed (tarfile keeps every TarInfo it read otherwise)."""
    while True:
        member = tf.next()
        if member is None:
            return
        # the attribute exists (tarfile appends every TarInfo to it); typeshed does not declare it
        tf.members = []  # type: ignore[attr-defined]
        yield member


#: The header types the fast reading of a plain tar takes (regular files and folders); any other makes it
#: hand the whole archive to tarfile.
_PLAIN_TYPES = (tarfile.REGTYPE, tarfile.AREGTYPE, tarfile.DIRTYPE)
#: The numeric fields of a header that tarfile converts besides the size and the checksum (mode, uid, gid,
#: mtime, device numbers): the fast reading needs only their validity, the same for most members.
_OTHER_NUMBERS = ((100, 108), (108, 116), (116, 124), (136, 148), (329, 337), (337, 345))
_ZEROS = bytes(tarfile.BLOCKSIZE)
#: A pax record the fast reading takes: a time (Python's tarfile writes ``mtime`` for every member of a pax
#: archive), which sets no name, type or size; any other record (a path, a size, sparse maps) is tarfile's.
_PAX_TIME = re.compile(rb"([1-9][0-9]{0,5}) [acm]time=[0-9.]{1,40}\n")
#: Whether a plain tar may be read by :func:`_scan_plain` (the tests compare both ways).
FAST_PLAIN = True


def _octal(field: bytes) -> int | None:
    """A numeric header field as tarfile reads it (``tarfile.nti``), when it is plain octal digits between
    spaces up to the first NUL; None for anything else (base-256, signs, other white space: tarfile decides)."""
    digits = field.split(b"\0", 1)[0].strip(b" ")
    if not digits:
        return 0
    if not digits.isdigit():
        return None
    try:
        return int(digits, 8)
    except ValueError:  # an 8 or a 9
        return None


class _Window:
    """Reads of a file through one window of at most :data:`_CHUNK` bytes (a header is a slice, not a call)."""

    def __init__(self, fd: int) -> None:
        self.fd, self.start, self.buf = fd, 0, b""

    def get(self, pos: int, n: int) -> bytes:
        """``n`` bytes at ``pos`` (fewer at the end of the file)."""
        if pos < self.start or pos + n > self.start + len(self.buf):
            self.buf, self.start = os.pread(self.fd, max(n, _CHUNK), pos), pos
        return self.buf[pos - self.start : pos - self.start + n]


def _pax_times(data: bytes, size: int) -> bool:
    """Whether pax header data of ``size`` bytes (``data``: its whole blocks) holds only well-formed time
    records, padded with NUL to its block: what every supported Python's tarfile reads alike."""
    if len(data) < -(-size // tarfile.BLOCKSIZE) * tarfile.BLOCKSIZE:  # (the caller bounded size by MAX_META)
        return False
    pos = 0
    while pos < size:
        match = _PAX_TIME.match(data, pos, size)
        if match is None or int(match.group(1)) != match.end() - pos:
            return False
        pos = match.end()
    return pos == size and not data[size:].strip(b"\0")


def _checksums_match(headers: list[bytes], stored: list[int]) -> bool:
    """Whether each header's stored checksum is tarfile's unsigned sum (256 for the checksum field, plus every
    other byte), summed for many headers at once."""
    import numpy as np

    if not headers:
        return True
    blocks = np.frombuffer(b"".join(headers), dtype=np.uint8).reshape(len(headers), tarfile.BLOCKSIZE)
    sums = blocks.sum(axis=1, dtype=np.int64) - blocks[:, 148:156].sum(axis=1, dtype=np.int64) + 256
    return bool(np.array_equal(sums, np.asarray(stored, dtype=np.int64)))


#: Headers whose checksums are compared at once (:func:`_checksums_match`).
_CHECK_BATCH = 4096


def _scan_plain(fd: int, size: int, most: int) -> list[tuple[str, bytes, int, int]] | None:
    """The members of a plain tar read with ``pread``, up to ``most`` of them: (name, type, size, offset of
    the data), named and typed as tarfile's ``TarInfo.frombuf`` and ``_proc_builtin`` make them; or None when
    any header up to there is not a plain one (a type other than file or folder, a pax or GNU extension, a
    number tarfile reads otherwise, a checksum only tarfile's signed sum accepts) or the archive does not end
    at a zero block or at the end of a member: then tarfile reads the archive, and decides.  tarfile's own
    reading costs about 80 microseconds a member (two headers each for Python's pax archives), as much as the
    rest of the check of a 16,000-probe upload."""
    out: list[tuple[str, bytes, int, int]] = []
    window = _Window(fd)
    pos = 0
    pax = False  # the header before was a pax header of times only
    plain: set[bytes] = set()  # the other numeric fields of headers seen, found plain octal
    headers: list[bytes] = []  # headers whose checksums are still to be compared
    stored: list[int] = []
    block = tarfile.BLOCKSIZE
    while len(out) < most:
        buf = window.get(pos, block)
        if not buf or buf == _ZEROS:
            if pos == 0 or pax:
                return None
            break
        if len(buf) < block:
            return None
        others = buf[100:124] + buf[136:148] + buf[329:345]
        if others not in plain:
            if any(_octal(buf[a:b]) is None for a, b in _OTHER_NUMBERS):
                return None
            if len(plain) < 4096:
                plain.add(others)
        length, checksum = _octal(buf[124:136]), _octal(buf[148:156])
        if length is None or checksum is None:
            return None
        headers.append(buf)
        stored.append(checksum)
        if len(headers) >= _CHECK_BATCH:
            if not _checksums_match(headers, stored):
                return None
            headers, stored = [], []
        kind = buf[156:157]
        if kind == tarfile.XHDTYPE and not pax:
            if length > MAX_META:  # tarfile refuses it by its declared size (ARC-06), before reading it
                return None
            blocks = -(-length // block) * block
            if not _pax_times(window.get(pos + block, blocks), length):
                return None
            pos += block + blocks
            pax = True
            continue
        pax = False
        if kind not in _PLAIN_TYPES:
            return None
        name = tarfile.nts(buf[0:100], tarfile.ENCODING, "surrogateescape")  # type: ignore[attr-defined]
        prefix = tarfile.nts(buf[345:500], tarfile.ENCODING, "surrogateescape")  # type: ignore[attr-defined]
        if kind == tarfile.AREGTYPE and name.endswith("/"):
            kind = tarfile.DIRTYPE
        if kind == tarfile.DIRTYPE:
            name = name.rstrip("/")
        if prefix:
            name = prefix + "/" + name
        data = pos + block
        pos = data if kind == tarfile.DIRTYPE else data + -(-length // block) * block
        if pos > size:  # cut inside a member: tarfile says "unexpected end of data"
            return None
        out.append((name, kind, length, data))
    return out if _checksums_match(headers, stored) else None


def _spool(kind: str, raw: IO[bytes], into: IO[bytes], limits: ArchiveLimits, stream_limit: int) -> int | None:
    """Decompress the whole archive into ``into`` (every gzip member, bzip2 or xz stream, as :func:`unpack`
    reads them): the tar stream's size; None when it is larger than ``stream_limit``, when it expands by more
    than half the ratio limit at any point past half the ratio's floor (so that no limit tarfile's reading
    could reach is reached), or when it cannot be read: then :func:`unpack` reads it as a stream, and its
    findings say why."""
    counting = _Counting(raw)
    read = 0
    try:
        if kind == "gzip":  # zlib-ng's port of the gzip module: the same members read, twice as fast
            from zlib_ng import gzip_ng

            stream: IO[bytes] = cast(IO[bytes], gzip_ng.GzipFile(fileobj=cast(Any, counting), mode="rb"))  # type: ignore[no-untyped-call]
        else:
            stream = _decompressed(kind, counting)
        while chunk := stream.read(_CHUNK):
            read += len(chunk)
            if read > stream_limit or (read > RATIO_FLOOR // 2 and read > limits.ratio * counting.read_bytes / 2):
                return None
            into.write(chunk)
        into.flush()
    except Exception:  # noqa: BLE001  any failure: the streaming reader says what it is
        return None
    return read


def _fast_source(
    kind: str,
    raw: IO[bytes],
    dest: Path | None,
    limits: ArchiveLimits,
    stream_limit: int,
    opened: contextlib.ExitStack,
) -> tuple[int, int, str, list[tuple[str, bytes, int, int]]] | None:
    """A plain tar stream whose headers :func:`_scan_plain` read: (descriptor, size, path of the stream file or
    "" for the upload itself, members): the upload itself for a plain tar, else its decompressed stream in one
    spool file (``stream.tar`` in the private directory of ``dest``, where members read in place point; an
    unnamed temporary file when ``dest`` is None).  None: tarfile reads the archive as a stream."""
    if not FAST_PLAIN:
        return None
    fd = raw.fileno()
    if kind == "tar":
        size = os.fstat(fd).st_size
        if size > stream_limit:
            return None
        scanned = _scan_plain(fd, size, limits.entries + 1)
        return None if scanned is None else (fd, size, "", scanned)
    if os.fstat(fd).st_size > stream_limit:  # a compressed stream is about as large at least: over the limit
        return None  # (its streaming reader stops there; decompressing it twice would only double the work)
    named = dest.parent / members.STREAM if dest is not None else None
    try:
        if named is not None:
            spool = opened.enter_context(os.fdopen(os.open(named, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600), "w+b"))
        else:
            spool = opened.enter_context(tempfile.TemporaryFile())
    except OSError:
        return None
    spooled = _spool(kind, raw, spool, limits, stream_limit)
    scanned = None if spooled is None else _scan_plain(spool.fileno(), spooled, limits.entries + 1)
    if spooled is None or scanned is None:
        spool.truncate(0)
        if named is not None:
            with contextlib.suppress(OSError):
                os.unlink(named)
        return None
    return spool.fileno(), spooled, str(named or ""), scanned


class _Slice:
    """The data of one member of a plain tar, read with ``pread`` and never past its declared size."""

    def __init__(self, fd: int, start: int, size: int) -> None:
        self.fd, self.pos, self.end = fd, start, start + size

    def read(self, n: int = -1) -> bytes:
        n = self.end - self.pos if n < 0 else min(n, self.end - self.pos)
        data = os.pread(self.fd, n, self.pos) if n > 0 else b""
        self.pos += len(data)
        return data


def _scanned(fd: int, scanned: list[tuple[str, bytes, int, int]]) -> Iterator[tuple[tarfile.TarInfo, Any]]:
    """The members :func:`_scan_plain` found, as tarfile's ``TarInfo`` objects, each with its data's reader."""
    for name, kind, size, data in scanned:
        member = tarfile.TarInfo(name)
        member.type, member.size, member.offset_data = kind, size, data
        yield member, functools.partial(_Slice, fd, data, size)


def _streamed(tf: tarfile.TarFile) -> Iterator[tuple[tarfile.TarInfo, Any]]:
    """The members tarfile reads from the stream, each with its data's reader (``tf.extractfile``)."""
    for member in _members(tf):
        tf.omfc_chain = 0  # type: ignore[attr-defined]
        yield member, functools.partial(tf.extractfile, member)


def unpack(path: Path, dest: Path, limits: ArchiveLimits = DEFAULT_LIMITS, in_place: bool = True) -> ArchiveReport:
    """Stream the archive at ``path`` into ``dest`` (a private directory), checking every member first.

    With ``in_place`` and ``dest`` the ``unpacked/`` folder of a private directory (:func:`private_dir`), the
    PNG members of a ``mask/`` folder are not written as files of their own (:mod:`pytest_omfc.members`): their
    bytes go to one file of the private directory (a plain tar's copied, a compressed tar's decompressed there
    whole or appended); the verdicts, findings and limits are those of unpacking them."""
    kind = kind_of(path)
    display = path.name
    if kind == "zip":
        return ArchiveReport(
            display,
            "zip",
            str(dest),
            problems=(ArchiveProblem("ARC-01", "", "must be a tar archive as the plans ask (tar cvf ...; got a zip)"),),
        )
    if kind is None:
        return ArchiveReport(
            display, "unknown", str(dest), problems=(ArchiveProblem("ARC-01", "", "is not an archive"),)
        )
    problems: list[ArchiveProblem] = []
    seen: dict[str, str] = {}  # casefolded name -> the name unpacked
    made: set[str] = set()  # folders created, with every folder made on the way
    real_dirs: dict[str, str] = {}  # folder -> its resolved path (_escapes)
    dest_text = str(dest)
    tops: dict[str, None] = {}
    total = members = 0
    real_dest = os.path.realpath(dest)
    try:
        raw = path.open("rb")
    except OSError as exc:
        return ArchiveReport(
            display, kind, str(dest), problems=(ArchiveProblem("ARC-01", "", f"cannot be read ({exc})"),)
        )
    names = {"tar": "tar", "gzip": "tar.gz", "bzip2": "tar.bz2", "xz": "tar.xz"}
    # everything tarfile reads, headers and padding included, counts against the unpacked-size limit
    stream_limit = limits.total_bytes + 2048 * limits.entries + 2 * MAX_META
    private_tree = in_place and _private_unpacked(dest)
    table: _InPlace | None = None
    counting: _Counting | None = None  # the archive's bytes and the tar stream's, as tarfile reads them
    tar_stream: _Counting | None = None
    try:
        with raw, contextlib.ExitStack() as opened:
            fast = _fast_source(kind, raw, dest if private_tree else None, limits, stream_limit, opened)
            if fast is not None:  # every header read by _scan_plain; no stop can come from the stream
                fd, size, backing, scanned = fast
                if private_tree:  # a compressed upload's stream file is the private directory's own
                    table = _InPlace(dest, None if backing else fd, size, stream=bool(backing))
                    opened.callback(table.flush)  # before the upload is closed
                entries = _scanned(fd, scanned)
            else:
                raw.seek(0)
                counting = _Counting(raw)
                tar_stream = _Counting(
                    _decompressed(kind, counting),
                    stream_limit,
                    f"must unpack to at most {limits.total_bytes} bytes, headers included (--omfc-archive-max-bytes; "
                    "unpacking stopped there)",
                )
                if private_tree:  # a plain tar's members copied from the upload, a compressed one's appended
                    table = _InPlace(dest, raw.fileno() if kind == "tar" else None, os.fstat(raw.fileno()).st_size)
                    opened.callback(table.flush)  # before the upload is closed
                tf = opened.enter_context(
                    tarfile.open(fileobj=tar_stream, mode="r|", tarinfo=_BoundedInfo)  # type: ignore[call-overload]
                )
                entries = _streamed(tf)
            for member, data_of in entries:
                members += 1
                if (
                    tar_stream is not None
                    and counting is not None
                    and tar_stream.read_bytes > RATIO_FLOOR
                    and tar_stream.read_bytes > limits.ratio * max(counting.read_bytes, 1)
                ):
                    problems.append(
                        ArchiveProblem(
                            "ARC-06",
                            "",
                            f"must expand at most {limits.ratio:g} times its size (--omfc-archive-max-ratio; "
                            f"{tar_stream.read_bytes} bytes of tar stream from {counting.read_bytes} read, headers "
                            "included: a compression bomb? unpacking stopped there)",
                        )
                    )
                    break
                if members > limits.entries:
                    problems.append(
                        ArchiveProblem(
                            "ARC-06",
                            "",
                            f"must hold at most {limits.entries} members (--omfc-archive-max-entries; "
                            "unpacking stopped there)",
                        )
                    )
                    break
                name = member.name.removeprefix("./")
                if not name or name == ".":
                    continue
                why = _why_unsafe(name, member)
                if why is not None:  # a name that is not UTF-8 is shown with its bytes escaped (\udce9)
                    shown = name.encode("utf-8", "backslashreplace").decode("utf-8")
                    problems.append(ArchiveProblem("ARC-03", shown, f"{why}; not unpacked"))
                    continue
                if is_junk(name):
                    problems.append(
                        ArchiveProblem(
                            "ARC-05", name, "is operating-system clutter, not part of a submission; not unpacked", True
                        )
                    )
                    continue
                norm = name.rstrip("/")
                folded = norm.upper() if norm.isascii() else fs_key(norm)  # (ASCII: one to one, as fs_key)
                if folded in seen:
                    other = seen[folded]
                    if other == norm:
                        what = "is in the archive twice"
                    elif unicodedata.normalize("NFC", other) == unicodedata.normalize("NFC", norm):
                        what = f"is the same file as {other!r} on macOS (the same name in another Unicode normal form)"
                    else:
                        what = f"is the same file as {other!r} on a case-insensitive file system (macOS, Windows)"
                    if not (member.isdir() and other == norm):
                        problems.append(ArchiveProblem("ARC-04", norm, f"{what}; the later one is not unpacked"))
                    continue
                seen[folded] = norm
                target = f"{dest_text}{os.sep}{norm}"
                if _escapes(real_dest, target, real_dirs):  # a second guard after the name checks (data filter)
                    problems.append(ArchiveProblem("ARC-03", name, "would be written outside the submission folder"))
                    continue
                parts = _parts(norm)
                if not parts:  # "./" or "././": the folder itself, as "." is
                    continue
                tops.setdefault(parts[0], None)
                if member.isdir():
                    if table is not None:
                        table.no_member_above(norm, target)
                    Path(target).mkdir(parents=True, exist_ok=True)
                    _made(made, dest_text, target)
                    continue
                src = data_of()
                if src is None:
                    continue
                head = src.read(min(_CHUNK, 512))
                nested = _kind(head)
                if nested is not None:
                    problems.append(
                        ArchiveProblem(
                            "ARC-07",
                            name,
                            f"must not be an archive inside the archive (got {nested}); not unpacked: pack the "
                            "submission folder itself",
                        )
                    )
                    continue
                parent = target.rpartition(os.sep)[0]
                if parent not in made:
                    if table is not None:
                        table.no_member_above(norm.rpartition("/")[0], parent)
                    Path(parent).mkdir(parents=True, exist_ok=True)
                    _made(made, dest_text, parent)
                if table is not None and in_place_member(norm, head):
                    total, stop = table.add(norm, member, target, target in made, src, head, total, counting, limits)
                else:
                    out_fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
                    with os.fdopen(out_fd, "wb") as out:
                        total, stop = _copy(src, head, out, total, counting, limits)
                if stop is not None:
                    problems.append(ArchiveProblem("ARC-06", name, stop))
                    break
    except _Stop as stop:
        problems.append(ArchiveProblem(str(stop.args[0]), "", str(stop.args[1])))
    except (MemoryError, RecursionError) as exc:  # a last guard: the bounds above are meant to prevent these
        problems.append(ArchiveProblem("ARC-06", "", f"cannot be read within bounded memory ({type(exc).__name__})"))
    except (tarfile.TarError, EOFError, zlib.error, OSError, ValueError) as exc:
        text = str(exc) or type(exc).__name__
        problems.append(
            ArchiveProblem("ARC-01", "", f"must be a complete, readable {names[kind]} archive (got: {text})")
        )
    if table is not None:  # what was recorded was unpacked, also when unpacking stopped
        try:
            table.close()
        except OSError as exc:
            problems.append(ArchiveProblem("ARC-01", "", f"cannot be unpacked here ({exc.strerror or exc})"))
    placed = len(table.table.entries) if table is not None else 0
    return ArchiveReport(display, names[kind], str(dest), members, total, tuple(tops), tuple(problems), placed)


def _copy(
    src: IO[bytes], head: bytes, out: IO[bytes], total: int, counting: _Counting | None, limits: ArchiveLimits
) -> tuple[int, str | None]:
    """Copy a member's data (``head`` already read) to ``out`` a chunk at a time, counting ``total`` unpacked
    bytes against the limits: the new total, and why unpacking stops (ARC-06) or None.  ``counting`` is the
    archive's bytes read for the expansion ratio (None: the ratio was judged before, by :func:`_spool`)."""
    chunk = head
    while chunk:
        total += len(chunk)
        if total > limits.total_bytes:
            return total, (
                f"must unpack to at most {limits.total_bytes} bytes (--omfc-archive-max-bytes; unpacking stopped there)"
            )
        if counting is not None and total > RATIO_FLOOR and total > limits.ratio * max(counting.read_bytes, 1):
            return total, (
                f"must expand at most {limits.ratio:g} times its size (--omfc-archive-max-ratio; "
                f"{total} bytes unpacked from {counting.read_bytes} read: a compression bomb? "
                "unpacking stopped there)"
            )
        out.write(chunk)
        chunk = src.read(_CHUNK)
    return total, None


def _made(made: set[str], dest: str, folder: str) -> None:
    """Note ``folder`` (below ``dest``) as made, and every folder above it that ``mkdir(parents=True)`` made."""
    while folder not in made and len(folder) > len(dest):
        made.add(folder)
        folder = folder.rpartition(os.sep)[0]


def _private_unpacked(dest: Path) -> bool:
    """Whether ``dest`` is the ``unpacked/`` folder of a private directory (where :mod:`pytest_omfc.members`
    finds a table of members read in place)."""
    return dest.name == UNPACKED and dest.parent.name.startswith(members.ROOT_PREFIX)


class _InPlace:
    """The members of one archive read in place (:mod:`pytest_omfc.members`), recorded while unpacking, their
    bytes in one file of the private directory: a compressed tar's whole stream (:data:`members.STREAM`, where
    the offsets already are), or :data:`members.SPOOL`, where a plain tar's members are copied from the upload
    (``source``: its descriptor) and a streamed compressed tar's appended."""

    def __init__(self, dest: Path, source: int | None, size: int, stream: bool = False) -> None:
        """``source``: the upload's descriptor (a plain tar of ``size`` bytes); ``stream``: the offsets are those
        of :data:`members.STREAM`."""
        self.root = dest.parent
        self.source = source
        self.plain = source is not None or stream
        self.size = size
        self.table = members.Table(members.STREAM if stream else members.SPOOL)
        self.spool: IO[bytes] | None = None
        self.run: tuple[int, int, int] | None = None  # the upload's bytes still to copy: start, end, spool offset

    def _spool(self) -> IO[bytes]:
        if self.spool is None:
            fd = os.open(self.root / members.SPOOL, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            self.spool = os.fdopen(fd, "wb")
        return self.spool

    def _place(self, start: int, size: int) -> int:
        """Where the upload's ``size`` bytes at ``start`` go in the spool; copied in runs (a member's data and the
        next one's are a header apart)."""
        if self.source is None:  # a compressed tar's stream file holds them where they are
            return start
        if self.run is not None and 0 <= start - self.run[1] <= _RUN_GAP:
            begin, _, at = self.run
            self.run = (begin, start + size, at)
            return at + start - begin
        at = self._flush()
        self.run = (start, start + size, at)
        return at

    def _flush(self) -> int:
        """Copy the pending run into the spool; the spool's size after it."""
        spool = self._spool()
        if self.run is not None and self.source is not None:
            begin, end, _ = self.run
            spool.flush()
            _copy_range(self.source, spool.fileno(), begin, end - begin)
            spool.seek(0, os.SEEK_END)
            self.run = None
        return spool.tell()

    def no_member_above(self, rel: str, target: str) -> None:
        """The error ``mkdir`` raises when a folder to be made at ``rel`` is a member read in place (it exists as
        a file) or lies below one (a file stands where a folder must)."""
        parts = rel.split("/") if rel else []
        for i in range(1, len(parts) + 1):
            if "/".join(parts[:i]) in self.table.entries:
                if i == len(parts):
                    raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), target)
                raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), target)

    def add(
        self,
        name: str,
        member: tarfile.TarInfo,
        target: str,
        folder: bool,
        src: IO[bytes],
        head: bytes,
        total: int,
        counting: _Counting | None,
        limits: ArchiveLimits,
    ) -> tuple[int, str | None]:
        """Record the member ``name`` instead of writing it at ``target``: the new unpacked total and why
        unpacking stops (ARC-06), as :func:`_copy` says them; a plain tar cut inside the member's data is ARC-01
        (``tarfile.ReadError``), as reading it would be."""
        if folder:  # a folder made for an earlier member: creating the file would fail
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), target)
        if not self.plain:
            spool = self._spool()
            start = spool.tell()
            total, stop = _copy(src, head, spool, total, counting, limits)
            self.table.add(name, start, spool.tell() - start)  # cut short at a stop, as a file would be
            return total, stop
        start, size = member.offset_data, member.size
        there = max(0, min(size, self.size - start))  # the bytes the upload holds
        allowed = limits.total_bytes - total
        if there > allowed:  # as _copy stops: the head, then whole chunks, while the total stays within
            kept = 0 if allowed < len(head) else min(there, len(head) + (allowed - len(head)) // _CHUNK * _CHUNK)
            self.table.add(name, self._place(start, kept), kept)
            crossing = len(head) if kept == 0 else min(_CHUNK, there - kept)
            return total + kept + crossing, (
                f"must unpack to at most {limits.total_bytes} bytes (--omfc-archive-max-bytes; unpacking stopped there)"
            )
        if there < size:
            raise tarfile.ReadError("unexpected end of data")
        self.table.add(name, self._place(start, size), size)
        return total + size, None

    def flush(self) -> None:
        """Copy what is pending from the upload (while it is open; also after a stop: what was recorded was
        unpacked)."""
        if self.run is not None:
            self._flush()

    def close(self) -> None:
        """Close the spool and write the table."""
        if self.spool is not None:
            self.spool.close()
        self.table.save(self.root)


#: Bytes between two members' data that a copy takes along rather than starting another (a header and padding).
_RUN_GAP = 4 * tarfile.BLOCKSIZE


def _copy_range(source: int, into: int, start: int, length: int) -> None:
    """Copy ``length`` bytes at ``start`` of ``source`` to the end of ``into`` (both descriptors), in the kernel
    where it can (``copy_file_range``), else through a buffer."""
    done = 0
    copy = getattr(os, "copy_file_range", None)
    while copy is not None and done < length:
        try:
            got = copy(source, into, length - done, start + done)
        except OSError:  # not across these file systems, or not on this kernel: the buffer below
            break
        if got <= 0:
            break
        done += got
    while done < length:
        data = os.pread(source, min(_CHUNK, length - done), start + done)
        if not data:
            raise tarfile.ReadError("unexpected end of data")
        done += os.write(into, data)  # a short write: the rest is read and written again


def remove(root: str | Path, members: int = 0) -> None:
    """Remove a private directory and everything in it (never fails); one that holds more than
    :data:`~pytest_omfc.private.DETACH_MEMBERS` unpacked members by a detached ``rm`` (:func:`private.remove`)."""
    from . import members as in_place_members  # (the parameter's name hides the module here)

    in_place_members.forget(root)
    private.remove(root, detach=members > private.DETACH_MEMBERS)
