"""A progress bar for long work inside one item (scoring thousands of masks), on a terminal only.

pytest shows progress where items are the unit; one score item may read and
score thousands of masks, so the engine reports ``progress(done, total)``
through :attr:`~pytest_omfc.scoring.registry.ScoringInput.progress` (the
engines stay pytest- and rich-free) and this module draws it with rich.

A bar is drawn only when a person watches: stdout is an interactive terminal,
the environment variable ``CI`` is unset (or empty), pytest is not quiet
(``-q``/``-qq``) and this process is not an xdist worker; and only for long
work (at least :data:`MIN_WORK` steps).  Otherwise :func:`progress_for`
returns None and the engine skips its calls.  The bar is transient (erased
when the work ends) and is drawn with pytest's output capture suspended, so
it never lands in a captured section, a log or the JUnit XML.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID

__all__ = ["MIN_WORK", "ProgressBar", "progress_for", "wanted"]

#: Steps (e.g. masks) below which no bar is drawn: short work finishes before one would help.
MIN_WORK = 500

#: Undocumented: tests lower :data:`MIN_WORK` with it (a few tiny masks instead of hundreds).
MIN_WORK_ENV = "OMFC_PROGRESS_MIN_WORK"

#: Seconds between two redraws (the engine may call thousands of times per second).
REDRAW = 0.1


def _min_work() -> int:
    try:
        return max(0, int(os.environ.get(MIN_WORK_ENV, "")))
    except ValueError:
        return MIN_WORK


@contextlib.contextmanager
def _uncaptured(config: pytest.Config) -> Iterator[None]:
    """pytest's capture suspended (the real stdout is ``sys.stdout`` and fd 1 inside)."""
    capman: Any = config.pluginmanager.getplugin("capturemanager")
    if capman is None:
        yield
        return
    with capman.global_and_fixture_disabled():
        yield


def wanted(config: pytest.Config) -> bool:
    """True when a person watches this run on a terminal (see the module docstring)."""
    if os.environ.get("CI") or hasattr(config, "workerinput") or config.get_verbosity() < 0:
        return False
    if config.pluginmanager.getplugin("terminalreporter") is None:
        return False
    try:
        with _uncaptured(config):
            return sys.stdout.isatty()
    except (OSError, ValueError, AttributeError):
        return False


class ProgressBar:
    """``bar(done, total)`` draws a rich bar labelled ``label`` and counting ``unit``; :meth:`close` erases it.

    Never raises: a terminal that goes away (a closed pipe) stops the drawing, not the scoring.
    """

    def __init__(self, config: pytest.Config, label: str, unit: str, min_work: int) -> None:
        self.config = config
        self.label = label
        self.unit = unit
        self.min_work = min_work
        self._progress: Progress | None = None
        self._task: TaskID | None = None
        self._drawn = 0.0
        self._broken = False

    def __call__(self, done: int, total: int) -> None:
        if self._broken or total < self.min_work:
            return
        now = time.monotonic()
        if self._progress is not None and done < total and now - self._drawn < REDRAW:
            return
        self._drawn = now
        try:
            with _uncaptured(self.config):
                if self._progress is None:
                    self._start(total)
                assert self._progress is not None and self._task is not None
                self._progress.update(self._task, completed=done, total=total)
                self._progress.refresh()
        except Exception:  # noqa: BLE001  drawing is optional; the work goes on
            self._broken = True
            self._progress = None
            return
        if done >= total:
            self.close()

    def _start(self, total: int) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        reporter: Any = self.config.pluginmanager.getplugin("terminalreporter")
        if reporter is not None:
            reporter.ensure_newline()  # pytest's dots line stays; pytest starts a new one afterwards
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn(self.unit),
            TimeElapsedColumn(),
            TextColumn("eta"),
            TimeRemainingColumn(),
            console=Console(),
            transient=True,
            auto_refresh=False,
            redirect_stdout=False,
            redirect_stderr=False,
        )
        self._progress.start()
        self._task = self._progress.add_task(self.label, total=total)

    def close(self) -> None:
        """Erase the bar (idempotent); call it also when the work stops early."""
        progress, self._progress = self._progress, None
        if progress is None:
            return
        try:
            with _uncaptured(self.config):
                progress.stop()
        except Exception:  # noqa: BLE001
            self._broken = True


def progress_for(config: pytest.Config, label: str, unit: str) -> ProgressBar | None:
    """A bar for long work inside one item, or None when nobody watches (CI, not a tty, ``-q``, xdist)."""
    return ProgressBar(config, label, unit, _min_work()) if wanted(config) else None
