"""NC2017 packages: one folder ``<TEAM>_<YEAR>_<DATA>_<SUBNUM>/`` holding one or more EXPID folders.

The NC2017 plan packs every system output as ``<TEAM>_<YEAR>_<DATA>_<SUBNUM>/<EXPID>/{<EXPID>.txt,
<EXPID>.csv, mask/}`` and tars that one folder (A-b, A-c: "a submission file can contain multiple
EXPIDs"; PKG-07 in docs/rules).  A folder (or an uploaded archive's folder) is read as a package when it
has no system output of its own and at least one subfolder ``E`` holding ``E/E.csv``.  Each EXPID is then
checked as its own submission, with the edition's rules for the task its name gives (SUB-05's <TASK>
field; ``Manipulation`` under a ``Vid*`` condition is the video task), against that task's index; the
package itself gets PKG-07 and, for an upload, the ARC rules.

:func:`find_package` is light (the standard library): the pytest glue calls it while resolving the
options.  :class:`PackageSettings` and :class:`Package` are what the package's own rules run on.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from .paths import not_regular
from .submission import Checked, CheckSettings, Settings

__all__ = ["Package", "PackageLayout", "PackageSettings", "find_package"]


@dataclass(frozen=True)
class PackageLayout:
    """What a package folder holds: its EXPID folders (``E/E.csv`` inside) and everything else, by name."""

    folder: Path
    expids: tuple[str, ...]
    others: tuple[str, ...]


def find_package(folder: Path) -> PackageLayout | None:
    """The package in ``folder``, or None when it is not one (no subfolder ``E`` holds ``E/E.csv``).

    Never follows a link: a linked folder is one of the ``others`` (ARC-03 and PKG-07 say so)."""
    expids: list[str] = []
    others: list[str] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                is_dir = entry.is_dir(follow_symlinks=False)
                if is_dir and not_regular(Path(entry.path) / f"{entry.name}.csv") is None:
                    expids.append(entry.name)
                else:
                    others.append(entry.name)
    except OSError:
        return None
    if not expids:
        return None
    return PackageLayout(folder, tuple(sorted(expids)), tuple(sorted(others)))


@dataclass(frozen=True, kw_only=True)
class PackageSettings(CheckSettings):
    """A package's settings: the folder (``submission``), each EXPID's own :class:`Settings` and the
    entries that are not checked, with why (PKG-07).  ``task`` is the first EXPID's (or the one given):
    the package rules apply to every task."""

    members: tuple[Settings, ...] = ()
    unchecked: tuple[tuple[str, str], ...] = ()  # (entry name, why it is not checked as an EXPID)
    is_package: ClassVar[bool] = True

    @property
    def listing(self) -> tuple[str, Path]:
        return "package", self.submission


class Package(Checked):
    """The package folder as its own rules see it (PKG-07, ARC-*); its EXPIDs are :class:`Submission` s."""

    settings: PackageSettings

    def __init__(self, settings: PackageSettings) -> None:
        super().__init__(settings)
        self.settings = settings

    @property
    def expids(self) -> tuple[str, ...]:
        return tuple(m.submission.name for m in self.settings.members)
