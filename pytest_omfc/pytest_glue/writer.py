"""One written report per run: the controller (or the only process) writes it once at the end, through the
guarded writer; a file that cannot be written, or a report that cannot be built, is an ``omfc: ERROR`` line
and exit status 1, never a traceback that hides the run's verdict.  The HTML report and the findings JSON."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..outputs import write_atomic

__all__ = ["ReportWriter"]


class ReportWriter:
    """A plugin writing ``text()`` to ``path`` at the end of the session; ``flag`` and ``what`` name it in
    messages (``--omfc-html``, ``HTML report``)."""

    flag = ""
    what = ""

    def __init__(self, config: pytest.Config, path: Path) -> None:
        self.config, self.path = config, path
        self.done: str | None = None
        self.error: str | None = None

    def text(self) -> str:  # pragma: no cover - every writer defines it
        raise NotImplementedError

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(self.config, "workerinput"):
            return
        try:
            write_atomic(self.path, self.text())
            self.done = str(self.path)
        except OSError as exc:
            self.error = f"{self.flag}: cannot write {self.path}: {exc}"
        except Exception as exc:  # noqa: BLE001  a report bug must not hide the run's verdict or crash it
            self.error = f"{self.flag}: the {self.what} could not be built: {type(exc).__name__}: {exc}"
        if self.error and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if hasattr(self.config, "workerinput"):
            return
        if self.done:
            terminalreporter.write_line(f"omfc: wrote {self.what}: {self.done}")
        if self.error:
            terminalreporter.write_line(f"omfc: ERROR {self.error}", red=True, bold=True)
