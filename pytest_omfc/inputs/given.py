"""Where option values come from, and the one error of input resolution.

The plugin reads options from the command line and ini files (each value with the directory a relative path
in it is taken from); ``omfc_score()`` from keyword arguments.  Both are a :class:`Given`: the resolution in
this package asks it for raw values and never knows which surface it serves.  An :class:`InputError` names
the option at fault; the plugin words it with flags (``--omfc-index: ...``, a usage error) and the API with
keywords (``index: ...``, a :class:`ValueError`, or :class:`FileNotFoundError` for a missing input).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol

from ..options import declared as option

__all__ = ["Given", "InputError", "Values", "flag", "keyword_of", "path_of", "text_of", "value_of"]

_MENTION = re.compile("\x00(omfc_[a-z0-9_]+)(?:\x01([^\x00]*))?\x00")


def _flag_of(ini: str, metavar: str = "") -> str:
    return f"{option(ini).flag} {metavar}" if metavar else option(ini).flag


def keyword_of(ini: str, metavar: str = "") -> str:
    """An option as ``omfc_score()`` names it: ``index``, ``index=PATH``."""
    key = ini.removeprefix("omfc_")
    return f"{key}={metavar}" if metavar else key


def flag(ini: str, metavar: str = "") -> str:
    """An option mentioned inside a message (with the value's name, ``PATH``), worded by the surface that shows
    it: ``--omfc-index PATH`` on the command line, ``index=PATH`` in the API."""
    return f"\x00{ini}\x01{metavar}\x00" if metavar else f"\x00{ini}\x00"


class InputError(ValueError):
    """What the options name cannot be checked: ``option`` (an ini name) is the one to fix; ``missing`` when
    the file or folder it names does not exist."""

    def __init__(self, option_ini: str, message: str, *, missing: bool = False) -> None:
        self.option = option_ini
        self.message = message
        self.missing = missing
        super().__init__(self.worded())

    def said(self, name: Callable[[str, str], str] | None = None) -> str:
        """The message, every option it mentions named by ``name`` (default: its flag)."""
        return _MENTION.sub(lambda m: (name or _flag_of)(m.group(1), m.group(2) or ""), self.message)

    def worded(self, name: Callable[[str, str], str] | None = None) -> str:
        """``<option>: <message>``, every option named by ``name`` (a flag for the plugin, a keyword for the API)."""
        return f"{(name or _flag_of)(self.option, '')}: {self.said(name)}"

    def for_api(self) -> Exception:
        """The exception ``omfc_score()`` raises: keywords instead of flags."""
        text = self.worded(keyword_of)
        return FileNotFoundError(text) if self.missing else ValueError(text)


class Given(Protocol):
    def raw(self, ini: str) -> tuple[Any, Path]:
        """The option's value as given (None when unset) and the directory a relative path in it is taken from."""
        ...


class Values:
    """Options from a mapping of ini names to values (``omfc_score()``); relative paths from ``base``."""

    def __init__(self, values: Mapping[str, Any], base: Path | None = None) -> None:
        self.values = {k: v for k, v in values.items() if v is not None}
        self.base = base or Path.cwd()

    def raw(self, ini: str) -> tuple[Any, Path]:
        return self.values.get(ini), self.base


def text_of(given: Given, ini: str) -> tuple[str | None, Path]:
    """The given text of an option and the directory a relative path in it is taken from."""
    value, base = given.raw(ini)
    return (None if value is None else str(value)), base


def value_of(given: Given, ini: str) -> Any:
    """An option's typed value (its default when unset); :class:`InputError` "must be ... (got ...)"."""
    try:
        return option(ini).value(given.raw(ini)[0])
    except ValueError as exc:
        raise InputError(ini, str(exc)) from None


def path_of(given: Given, ini: str) -> Path | None:
    """A path option (parsed by its declaration), made absolute from where it was given."""
    value, base = given.raw(ini)
    if value is None:
        return None
    try:
        text = option(ini).parse(value)
    except ValueError as exc:
        raise InputError(ini, str(exc)) from None
    p = Path(text).expanduser()
    return (p if p.is_absolute() else base / p).resolve()
