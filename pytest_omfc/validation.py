"""``omfc_validate()``: a submission's checks as a plain function, for scripts and portals (no pytest session to
manage).  It runs exactly what the ``pytest-omfc`` command runs (isolated: no ini file, conftest or plugin of
the caller's environment takes effect) in this process, and returns the findings document of
``--omfc-findings-json``, typed (:class:`pytest_omfc.models.findings.FindingsDocument`)::

    from pytest_omfc import omfc_validate
    report = omfc_validate("p-baseline_3_imdl.tar", index="indexes/OpenMFC20_Image-IMDL-index.csv")
    if report.verdict == "failed":
        for rule in report.rules:
            for f in rule.errors.findings:
                print(rule.rule, f.file, f.line, f.message)
"""

from __future__ import annotations

import io
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .models.findings import FindingsDocument

__all__ = ["omfc_validate"]


def _flags(options: dict[str, Any]) -> list[str]:
    """Keyword options as the command's flags: ``max_findings=5`` is ``--omfc-max-findings 5``, ``True`` a bare
    switch, ``False`` or None nothing, a list one flag per value."""
    out: list[str] = []
    for key, value in options.items():
        flag = "--omfc-" + key.removeprefix("omfc_").replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            out.append(flag)
        elif isinstance(value, (list, tuple)):
            for v in value:
                out += [flag, str(v)]
        else:
            out += [flag, str(value)]
    return out


def omfc_validate(
    submission: str | Path,
    *,
    index: str | Path | None = None,
    dataset: str | Path | None = None,
    reference: str | Path | None = None,
    **options: Any,
) -> FindingsDocument:
    """Check ``submission`` (a folder, an archive as uploaded, or an NC2017 package) and return the findings
    document: the verdict, every rule's outcome and findings, the score and gate items when a ``reference`` is
    given, and what produced the run.  ``options`` are the command's, by name (``edition="MFC2019"``,
    ``task="IMDL"``, ``max_findings=5``, ``jobs=2``, ``require=["AUC>=0.8"]``...).  A missing input raises
    :class:`FileNotFoundError`; a usage error (a bad or unknown option) :class:`ValueError` with the command's
    message; a failing submission never raises."""
    from .cli import main
    from .models.findings import FindingsDocument

    named = {"submission": submission, "index": index, "dataset": dataset, "reference": reference}
    for what in ("submission", "index"):
        value = named[what]
        if value is not None and not Path(value).expanduser().exists():
            raise FileNotFoundError(f"{what}: no such file or directory: {value}")
    argv = _flags({k: v for k, v in named.items() if v is not None}) + _flags(options)
    with tempfile.TemporaryDirectory(prefix="pytest-omfc-validate-") as tmp:
        out = Path(tmp) / "findings.json"
        argv += ["--omfc-findings-json", str(out), "-q"]
        stdout, stderr = io.StringIO(), io.StringIO()
        keep = _KeepSubmission()
        with redirect_stdout(stdout), redirect_stderr(stderr):
            code = main(argv, own_process=False, plugins=[keep])
        if not out.is_file():
            errors = [ln.removeprefix("ERROR: ") for ln in stderr.getvalue().splitlines() if ln.startswith("ERROR")]
            raise ValueError(errors[-1] if errors else f"the check could not run (exit status {code})")
        report = FindingsDocument.model_validate_json(out.read_text(encoding="utf-8"))
        report._checked = keep.submission
        return report


class _KeepSubmission:
    """Keeps the run's parsed submission (its tables, and the rules' outcomes, which say what files they
    reject) for ``omfc_score(validated=...)``: only a folder's, whose files stay where they are."""

    def __init__(self) -> None:
        self.submission: Any = None

    def pytest_sessionfinish(self, session: Any) -> None:
        from .pytest_glue.state import SETTINGS_KEY, submission_for

        settings = session.config.stash.get(SETTINGS_KEY, None)
        if settings is not None and not settings.is_package and settings.archive is None:
            self.submission = submission_for(session.config, settings)
