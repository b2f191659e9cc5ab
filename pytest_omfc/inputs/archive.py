"""An uploaded archive as input: recognised by its signature, unpacked once into a private directory that is
removed when the caller's run ends (also at exit and on SIGTERM), and the submission folder found in it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from .given import Given, value_of

if TYPE_CHECKING:
    from ..archive import ArchiveReport

__all__ = ["archived_submission", "is_archive", "unpack_upload"]

#: What an unpacked upload needs of its caller: a place to register its removal (the plugin: the config's
#: cleanups; the API: the call's own ``finally``).
OnCleanup = Callable[[Callable[[], None]], object]


def is_archive(path: Path) -> bool:
    from ..archive import kind_of

    return kind_of(path) is not None


def unpack_upload(sub: Path, given: Given, on_cleanup: OnCleanup) -> ArchiveReport:
    """Unpack the upload ``sub`` member by member (ARC rules, within the ``--omfc-archive-max-*`` limits) into a
    new private directory; its removal is registered with ``on_cleanup``, at exit and on SIGTERM (a portal's
    time-out), and directories that killed runs left behind are swept first."""
    import atexit

    from .. import private as _private
    from ..archive import UNPACKED, ArchiveLimits, private_dir, remove, unpack

    _private.sweep()  # what runs killed before their cleanup left in TMPDIR
    folder = private_dir()
    unpacked: list[int] = [0]  # files written, once unpacked: a large tree is removed by a detached rm

    def cleanup() -> None:
        remove(folder, unpacked[0])
        _private.forget(cleanup)

    on_cleanup(cleanup)
    atexit.register(lambda: remove(folder, unpacked[0]))  # also when the caller never reaches its cleanup
    _private.on_terminate(cleanup)
    dest = folder / UNPACKED
    dest.mkdir()
    limits = ArchiveLimits(
        entries=value_of(given, "omfc_archive_max_entries"),
        total_bytes=value_of(given, "omfc_archive_max_bytes"),
        ratio=value_of(given, "omfc_archive_max_ratio"),
    )
    report = unpack(sub, dest, limits)
    unpacked[0] = report.members - report.in_place
    return report


def archived_submission(report: ArchiveReport) -> Path:
    """The submission folder inside the private directory: the archive's one top folder; when the members
    were packed without one (from inside the folder), a folder named after the archive gathers them (ARC-02
    says so)."""
    from .. import members
    from ..archive import GATHERED, gathered_name
    from ..models.identifiers import expid_task, package_problem
    from ..package import find_package

    root = Path(report.root)
    dirs = [t for t in report.tops if (root / t).is_dir()]
    if len(report.tops) == 1 and dirs:
        folder = root / dirs[0]
        while True:  # a prefix (home/user/<SubID>/): down to the first folder holding a file, a second folder or
            # mask/, or an NC2017 package holding one EXPID folder (named as one: home/user/<SubID>/ is no package)
            inside = [*folder.iterdir(), *(folder / n for n in sorted(members.listdir(folder)))]  # in-place PNGs too
            if len(inside) != 1 or not inside[0].is_dir() or inside[0].name == "mask":
                return folder
            if find_package(folder) and (expid_task(inside[0].name) or package_problem(folder.name) is None):
                return folder
            folder = inside[0]
    folder = root.parent / GATHERED / gathered_name(Path(report.archive).name)  # beside unpacked/, never in it
    folder.mkdir(parents=True, exist_ok=True)
    for top in report.tops:
        if (root / top).exists() or (root / top).is_symlink():
            (root / top).rename(folder / top)
    return folder
