"""Archive members read in place: the PNG masks of an uploaded archive are not unpacked into files of their own.

Creating a file costs far more than reading one (on the test machine's ext4 disk, 0.23 ms a file: 3.6 s for
the 15,676 members of a 16,000-probe upload, more than checking them), so :func:`pytest_omfc.archive.unpack`
does not write a member whose content is a PNG and whose folder is ``mask`` as a file of its own: its bytes
lie in one file of the private directory (a plain tar's masks copied there by the kernel, consecutive ones in
one ``copy_file_range``; a compressed tar decompressed there whole; or the masks appended there as tarfile
streams them), and a table records where.  Every other member (the system output,
the description, HDF5 and JSON files, anything that is not a PNG under ``mask/``) is still a file, so every
listing of a submission folder (PKG rules, the search for the submission folder) sees what it saw before:
``mask/`` itself is a real folder, and only what lies in it may be in place.

The table of those members is ``members.json`` in the private directory; :func:`locate` reads it in whatever
process asks (the process pool's workers, a dask worker that shares the storage), found from the path alone:
a path below ``<TMPDIR>/pytest-omfc-archive-*/unpacked/`` (or ``gathered/<name>/``, where members packed
without a folder are moved).  A table is only trusted in a directory of this user's that nobody else can
write (mode 0700, as :func:`pytest_omfc.private.make` makes it), and it only points into a file of that
directory (never a link): a table shipped in an upload cannot make a check read another file.

:func:`locate` answers as the kernel would for the path (the private tree holds no links: ARC-03 refuses
them): the member, ``None`` when the path is none (the caller asks the file system), or ``NotADirectoryError``
for a path that goes through a member as if it were a folder.  A member is read through :class:`Region`,
whose reads never go past the member's declared size.  The readers that take members (:mod:`pytest_omfc.png`
and the mask scorer's signature read through it) are the only readers of PNG masks.  No pytest import.
"""

from __future__ import annotations

import errno
import io
import json
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "FOLDER",
    "SIGNATURE",
    "SPOOL",
    "STREAM",
    "TABLE",
    "Member",
    "PositionalStream",
    "Region",
    "Table",
    "forget",
    "in_place",
    "listdir",
    "locate",
    "open_member",
    "open_region",
    "stream",
]

#: The private directories that may hold a table (:func:`pytest_omfc.private.make` with kind ``archive``).
ROOT_PREFIX = "pytest-omfc-archive-"
TABLE = "members.json"
#: The in-place members' bytes, in the private directory: copied from a plain tar, or appended as tarfile streams
#: a compressed one.
SPOOL = "members.dat"
#: A compressed archive decompressed whole (the fast reading of :func:`pytest_omfc.archive.unpack`).
STREAM = "stream.tar"
#: The folder whose PNG members are read in place, and what a PNG starts with.
FOLDER = "mask"
SIGNATURE = b"\x89PNG\r\n\x1a\n"


def in_place(name: str, head: bytes) -> bool:
    """Whether the member ``name`` (a safe, normalised archive name) whose content starts with ``head`` is read
    in place: a PNG in a folder named ``mask``."""
    parent = name.rpartition("/")[0]
    return head.startswith(SIGNATURE) and parent.rpartition("/")[2] == FOLDER


@dataclass
class Table:
    """The in-place members of one archive, as :func:`pytest_omfc.archive.unpack` records them: names (as
    unpacked, below ``unpacked/``), each with the offset of its data in ``backing`` and its size.  ``backing`` is
    :data:`SPOOL` or :data:`STREAM`, a file of the private directory itself: a table shipped in an upload (a
    folder that looks like a private directory) can point reads only at its own folder's files."""

    backing: str
    entries: dict[str, tuple[int, int]] = field(default_factory=dict)

    def add(self, name: str, offset: int, size: int) -> None:
        self.entries[name] = (offset, size)

    def save(self, root: Path) -> None:
        """Write the table into the private directory ``root`` (only when it holds a member)."""
        if not self.entries:
            return
        tmp = root / f"{TABLE}.partial"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:  # one string (json.dump writes piece by piece)
            fh.write(json.dumps({"backing": self.backing, "members": self.entries}, separators=(",", ":")))
        os.replace(tmp, root / TABLE)


@dataclass(frozen=True)
class Member:
    """Where one in-place member's bytes are: ``size`` bytes at ``offset`` of the file ``backing``; ``dev`` and
    ``ino`` identify it (the backing file's device, and a number no file has) as a file's would."""

    backing: str
    offset: int
    size: int
    dev: int
    ino: int


class _Loaded:
    """A table as read by a process: members by name, and the names of each folder (for listings)."""

    def __init__(self, backing: str, entries: dict[str, list[int]], dev: int) -> None:
        self.backing = backing
        self.dev = dev
        self.entries = entries
        self._folders: dict[str, set[str]] | None = None

    def folders(self) -> dict[str, set[str]]:
        if self._folders is None:
            self._folders = {}
            for name in self.entries:
                parent, _, base = name.rpartition("/")
                self._folders.setdefault(parent, set()).add(base)
        return self._folders


#: Tables read in this process, by private directory (None: that directory has none, or is not trusted).
_TABLES: dict[str, _Loaded | None] = {}
_TABLES_KEPT = 8


def _trusted(path: str) -> bool:
    """A directory (not a link) of this user's that no one else can write, or a regular file of this user's."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    mine = not hasattr(os, "getuid") or st.st_uid == os.getuid()
    if stat.S_ISDIR(st.st_mode):
        return mine and not st.st_mode & 0o022
    return mine and stat.S_ISREG(st.st_mode)


def _table(root: str) -> _Loaded | None:
    if root in _TABLES:
        return _TABLES[root]
    found: _Loaded | None = None
    path = os.path.join(root, TABLE)
    if _trusted(root) and _trusted(path):
        try:
            with open(path, encoding="utf-8") as fh:
                data = json.load(fh)
            backing = os.path.join(root, data["backing"])  # a file of the private directory, nothing else
            if data["backing"] in (SPOOL, STREAM) and _trusted(backing) and isinstance(data["members"], dict):
                found = _Loaded(backing, data["members"], os.lstat(backing).st_dev)
        except (OSError, ValueError, KeyError, TypeError):
            found = None
    if len(_TABLES) >= _TABLES_KEPT:
        _TABLES.clear()
    _TABLES[root] = found
    return found


def forget(root: str | Path) -> None:
    """Drop what this process read of the private directory ``root`` (it is being removed)."""
    _TABLES.pop(os.fspath(root), None)
    _FOLDERS.clear()


#: Folders met by :func:`locate`, each with its table and its name below the unpacked folder ("a/b/"), or None
#: (no table, or a name with an empty, ``.`` or ``..`` component): a plain name in a known folder is one key.
_FOLDERS: dict[str, tuple[_Loaded, str] | None] = {}
_FOLDERS_KEPT = 1024


def _split(path: str) -> tuple[_Loaded, list[str]] | None:
    """The table of the private directory ``path`` lies in and the path's components below the folder the
    members were unpacked to, or None (not below a private directory of an archive with in-place members)."""
    at = path.rfind(os.sep + ROOT_PREFIX)
    if at < 0:
        return None
    end = path.find(os.sep, at + 1)
    if end < 0:
        return None
    table = _table(path[:end])
    if table is None:
        return None
    parts = path[end + 1 :].split(os.sep)
    if parts[0] == "unpacked":
        return table, parts[1:]
    if parts[0] == "gathered" and len(parts) > 1:
        return table, parts[2:]
    return None


def locate(path: str | os.PathLike[str]) -> Member | None:
    """The in-place member ``path`` names, None when it names none (ask the file system), or
    ``NotADirectoryError`` when it goes through a member as through a folder (as the kernel says)."""
    text = os.fspath(path)
    if ROOT_PREFIX not in text:
        return None
    folder, _, leaf = text.rpartition(os.sep)
    known = _FOLDERS[folder] if folder in _FOLDERS else _folder(folder)
    if known is not None and leaf not in ("", ".", ".."):  # the usual case: one lookup
        table, prefix = known
        hit = table.entries.get(prefix + leaf)
        if hit is not None:
            return Member(table.backing, hit[0], hit[1], table.dev, -1 - hit[0])
    found = _split(text)
    if found is None:
        return None
    table, parts = found
    entries = table.entries
    hit = entries.get("/".join(parts))
    if hit is None or "" in parts or "." in parts or ".." in parts:
        key = _walk(entries, parts, text)
        if key is None:
            return None
        hit = entries[key]
    offset, size = hit
    return Member(table.backing, offset, size, table.dev, -1 - offset)


def _folder(folder: str) -> tuple[_Loaded, str] | None:
    """What :data:`_FOLDERS` keeps for ``folder``: its table and name, or None (no table, or a name that is not
    plain: :func:`locate` then resolves the whole path)."""
    found = _split(folder + os.sep)
    known: tuple[_Loaded, str] | None = None
    if found is not None and not any(p in ("", ".", "..") for p in found[1][:-1]):
        known = (found[0], "".join(p + "/" for p in found[1][:-1]))
    if len(_FOLDERS) >= _FOLDERS_KEPT:
        _FOLDERS.clear()
    _FOLDERS[folder] = known
    return known


def _walk(entries: dict[str, list[int]], parts: list[str], text: str) -> str | None:
    """The member a path with empty, ``.`` or ``..`` components names, resolved one component at a time as the
    kernel resolves it in a tree without links; ``NotADirectoryError`` when a component follows a member (a
    separator at the end included: ``x.png/`` means a folder)."""
    stack: list[str] = []
    for part in parts:
        if stack and "/".join(stack) in entries:
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), text)
        if part in ("", "."):
            continue
        if part == "..":
            if not stack:
                return None  # above the unpacked folder: the file system answers
            stack.pop()
            continue
        stack.append(part)
    key = "/".join(stack)
    return key if key in entries else None


def listdir(folder: str | os.PathLike[str]) -> set[str]:
    """The names of the in-place members directly in ``folder`` (empty for a folder outside any archive)."""
    text = os.fspath(folder).rstrip(os.sep)
    if ROOT_PREFIX not in text:
        return set()
    found = _split(text + os.sep)
    if found is None:
        return set()
    table, parts = found
    return set(table.folders().get("/".join(p for p in parts if p), ()))


class Region:
    """Positional reads of one file, or of one in-place member of it: ``pread(n, pos)`` reads at most ``n``
    bytes at ``pos`` of the member and never past its end (``size``; a plain file is read to its end)."""

    __slots__ = ("base", "fd", "size")

    def __init__(self, fd: int, base: int = 0, size: int | None = None) -> None:
        self.fd, self.base, self.size = fd, base, size

    def pread(self, n: int, pos: int) -> bytes:
        if self.size is not None:
            n = min(n, self.size - pos)
            if n <= 0:
                return b""
        return os.pread(self.fd, n, self.base + pos)

    def close(self) -> None:
        os.close(self.fd)


_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
_MEMBER_FLAGS = _FLAGS | getattr(os, "O_NOFOLLOW", 0)


def open_region(path: str | os.PathLike[str]) -> Region:
    """A :class:`Region` of the file or in-place member at ``path`` (``OSError`` as ``open`` raises it)."""
    member = locate(path)
    if member is None:
        return Region(os.open(path, _FLAGS))
    return Region(os.open(member.backing, _MEMBER_FLAGS), member.offset, member.size)


def open_member(member: Member) -> Region:
    """A :class:`Region` of an in-place member (``OSError`` when its backing file cannot be opened)."""
    return Region(os.open(member.backing, _MEMBER_FLAGS), member.offset, member.size)


class PositionalStream(io.RawIOBase):
    """A read-only, seekable stream of ``size`` bytes over a :class:`Region`, read with ``pread`` as a decoder
    asks (``_read_at`` gives the bytes at a position: the region's own, or pieces of it); closing it closes
    the region."""

    def __init__(self, region: Region, size: int) -> None:
        super().__init__()
        self._src, self._size, self._pos = region, size, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self._size}[whence]
        self._pos = max(0, base + offset)
        return self._pos

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        done = 0
        while done < len(view) and self._pos < self._size:
            got = self._read_at(self._pos, len(view) - done)
            if not got:
                break
            view[done : done + len(got)] = got
            done += len(got)
            self._pos += len(got)
        return done

    def _read_at(self, pos: int, n: int) -> bytes:
        return self._src.pread(n, pos)

    def close(self) -> None:
        if not self.closed:
            self._src.close()
        super().close()


def stream(region: Region, buffer_size: int = io.DEFAULT_BUFFER_SIZE) -> io.BufferedReader:
    """A buffered read-only stream of ``region`` (closing it closes the region)."""
    size = region.size if region.size is not None else os.fstat(region.fd).st_size
    return io.BufferedReader(PositionalStream(region, size), buffer_size=buffer_size)
