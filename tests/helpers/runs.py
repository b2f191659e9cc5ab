"""Builders shared by the tests, from conftest.py."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

SHARED = Path(__file__).resolve().parents[3] / "shared"


CONFORMANCE = SHARED / "conformance" / "mediscore" / "test_suite"


#: index file name per (edition, task id)
INDEX_NAMES = {
    ("OpenMFC2020", "IMDL"): "OpenMFC20_Image-IMDL-index.csv",
    ("OpenMFC2020", "IGMDL"): "OpenMFC20_Image-IGMDL-index.csv",
    ("OpenMFC2020", "VMD"): "OpenMFC20_Video-VMD-index.csv",
    ("OpenMFC2020", "VGMD"): "OpenMFC20_Video-VGMD-index.csv",
    ("OpenMFC2021", "IMDL"): "OpenMFC21_Image-IMDL-index.csv",
    ("MFC2019", "manipulation-image"): "MFC2019-manipulation-image-index.csv",
    ("MFC2019", "manipulation-video"): "MFC2019-manipulation-video-index.csv",
    ("MFC2019", "splice"): "MFC2019-splice-index.csv",
    ("MFC2019", "eventverification"): "MFC2019-eventverification-index.csv",
    ("MFC2019", "camera"): "MFC2019-cameraverification-index.csv",
    ("MFC2019", "provenancefiltering"): "MFC2019-provenancefiltering-index.csv",
    ("MFC2019", "provenance"): "MFC2019-provenance-index.csv",
    ("MFC2018", "manipulation-image"): "MFC18-manipulation-image-index.csv",
    ("MFC2018", "manipulation-video"): "MFC18-manipulation-video-index.csv",
    ("MFC2018", "splice"): "MFC18-splice-index.csv",
    ("MFC2018", "eventverification"): "MFC18-eventverification-index.csv",
    ("MFC2018", "camera"): "MFC18-camera-index.csv",
    ("MFC2018", "provenancefiltering"): "MFC18-provenancefiltering-index.csv",
    ("MFC2018", "provenance"): "MFC18-provenance-index.csv",
    ("NC2017", "manipulation"): "NC2017-manipulation-index.csv",
    ("NC2017", "manipulation-video"): "NC2017-manipulation-video-index.csv",
    ("NC2017", "splice"): "NC2017-splice-index.csv",
    ("NC2017", "provenancefiltering"): "NC2017_Dev1-provenancefiltering-index.csv",
    ("NC2017", "provenance"): "NC2017_Dev1-provenance-index.csv",
}


def psv(header: list[str], rows: list[list[Any]]) -> str:
    """A '|'-separated file's text."""
    return "\n".join("|".join(str(v) for v in r) for r in [header, *rows]) + "\n"


def snapshot(*roots: Path) -> dict[str, tuple[int, int]]:
    """Size and mtime of every file and directory under ``roots`` (and of the roots): a run must leave it equal."""
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for r in roots for p in sorted(r.rglob("*"))} | {
        str(r): (0, r.stat().st_mtime_ns) for r in roots
    }


@dataclass
class RunOutcome:
    """Rule ID -> (outcome, failure/skip text) from one in-process run."""

    ret: int
    reports: dict[str, tuple[str, str]]
    props: dict[str, list[tuple[str, Any]]] = field(default_factory=dict)

    def outcome(self, rule_id: str) -> str:
        return self.reports[rule_id][0]

    def text(self, rule_id: str) -> str:
        return self.reports[rule_id][1]

    def first_line(self, rule_id: str) -> str:
        return self.text(rule_id).splitlines()[0] if self.text(rule_id) else ""

    def failed(self) -> list[str]:
        return sorted(r for r, (o, _) in self.reports.items() if o == "failed")

    def warning(self, rule_id: str) -> str | None:
        for name, value in self.props.get(rule_id, []):
            if name == "omfc.warning":
                return str(value)
        return None


@dataclass
class Case:
    pytester: pytest.Pytester
    submission: Path
    index: Path

    @property
    def args(self) -> list[str]:
        return ["--omfc-submission", str(self.submission), "--omfc-index", str(self.index)]

    def run(self, *extra: str) -> RunOutcome:
        rec = self.pytester.inline_run(*self.args, "-p", "no:cacheprovider", *extra)
        reports: dict[str, tuple[str, str]] = {}
        props: dict[str, list[tuple[str, Any]]] = {}
        for rep in rec.getreports("pytest_runtest_logreport"):
            rid = rep.nodeid.rsplit("::", 1)[-1]
            if rep.when == "call" or (rep.when == "setup" and rep.outcome != "passed"):
                text = ""
                if rep.failed:
                    text = str(rep.longrepr)
                elif rep.skipped:
                    text = rep.longrepr[2] if isinstance(rep.longrepr, tuple) else str(rep.longrepr)
                    text = text.removeprefix("Skipped: ")
                reports[rid] = (rep.outcome, text)
                props[rid] = list(rep.user_properties)
        merge_slices(reports, props)
        return RunOutcome(ret=int(rec.ret), reports=reports, props=props)


def merge_slices(reports: dict[str, tuple[str, str]], props: dict[str, list[tuple[str, Any]]]) -> None:
    """A sliced rule's items (``MASK-04[2/4]``) also under the rule's ID: failed when a slice failed (the
    failing slices' texts), else passed when one passed, else skipped; the slices' properties together."""
    slices: dict[str, list[str]] = {}
    for rid in reports:
        if rid.endswith("]") and "[" in rid:
            slices.setdefault(rid.split("[", 1)[0], []).append(rid)
    for base, parts in slices.items():
        outcomes = [reports[p][0] for p in parts]
        outcome = next((o for o in ("failed", "passed") if o in outcomes), "skipped")
        text = "\n".join(reports[p][1] for p in parts if reports[p][0] == outcome and reports[p][1])
        reports[base] = (outcome, text)
        props[base] = [prop for p in parts for prop in props.get(p, [])]


def run_untouched(pytester: pytest.Pytester, submission: Path, index: Path, *extra: str) -> RunOutcome:
    """Run the plugin on data it must only read (MediScore's) and assert nothing was written there."""
    before = snapshot(submission, index.parent)
    # Without an ini file pytest takes the rootdir from the option values; when they share no ancestor with
    # the (temporary) invocation directory but the file-system root, that is MediScore's data directory,
    # which the plugin refuses as a rootdir inside the dataset (issue 9): name a rootdir of our own.
    res = Case(pytester, submission, index).run("--rootdir", str(pytester.path), *extra)
    assert snapshot(submission, index.parent) == before, "the run wrote into the MediScore test data"
    return res


def write_file(root: Path, rel: str, content: str | bytes) -> Path:
    """Write ``root/rel`` (parents made), text as UTF-8 with the newlines given, bytes as they are."""
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8", newline="")
    return path


class OmfcFactory:
    """Writes datasets and submissions under the pytester directory."""

    def __init__(self, pytester: pytest.Pytester) -> None:
        self.pytester = pytester
        self.root = pytester.path

    def write(self, rel: str, content: str | bytes) -> Path:
        return write_file(self.root, rel, content)

    def case(
        self,
        edition: str,
        task: str,
        *,
        header: list[str],
        rows: list[list[Any]],
        index_header: list[str],
        index_rows: list[list[Any]],
        sub_id: str = "p-test_1",
        description: str | None = "default",
        csv_text: str | bytes | None = None,
        files: dict[str, str | bytes] | None = None,
    ) -> Case:
        """A dataset (indexes/<name>) and a submission <sub_id>/ with <sub_id>.csv and .txt."""
        index = self.write(f"dataset/indexes/{INDEX_NAMES[(edition, task)]}", psv(index_header, index_rows))
        sub = self.root / sub_id
        sub.mkdir(parents=True, exist_ok=True)
        self.write(f"{sub_id}/{sub_id}.csv", csv_text if csv_text is not None else psv(header, rows))
        if description == "default":
            description = DEFAULT_DESCRIPTION.format(sub_id=sub_id)
        if description is not None:
            self.write(f"{sub_id}/{sub_id}.txt", description)
        for rel, content in (files or {}).items():
            self.write(f"{sub_id}/{rel}", content)
        return Case(self.pytester, sub, index)


DEFAULT_DESCRIPTION = """\
1. Submission Identifier(s): {sub_id}
2. System Description: a test system. Opt-out criteria: none; NonProcessed trials are system failures.
3. OptOut Criteria: none
4. System Hardware Description and Runtime Computation: 2 CPU cores, 1 minute.
5. Training Data and Knowledge Sources: none.
6. References: none.
"""


@dataclass
class Capped:
    """A finished (or killed) capped run."""

    ret: int | None  # None: timed out
    out: str
    err: str

    @property
    def errlines(self) -> list[str]:
        return [ln for ln in self.err.splitlines() if ln.strip()]


#: Source of ``peak_mb()`` for a child process: its own peak RSS in MB since it started, from VmHWM in
#: /proc/self/status.  Not ``ru_maxrss``: Linux carries the parent's peak across fork and exec into it, so a
#: child of a 300 MB xdist worker reported 300 MB whatever it did (benchmarks/score_masks.py says so too).
PEAK_MB = """
def peak_mb():
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
"""


def run_capped(
    args: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 60, cap: int = 3 * 1024**3
) -> Capped:
    """``python <args>`` under an address-space cap (RLIMIT_AS, bytes) and a timeout; a timeout gives
    ``ret=None`` instead of raising.  Hostile-input tests run their subprocesses through this, so a
    regression fails fast instead of eating the machine."""
    inherited = env is None
    env = dict(os.environ if env is None else env)
    for name in list(env):  # an outer xdist run's worker variables, or the caller's PYTEST_ADDOPTS, are not this run's
        if (
            name.startswith("PYTEST_XDIST")
            or name == "PYTEST_CURRENT_TEST"
            or (inherited and name.startswith("PYTEST_"))
        ):
            del env[name]
    try:
        proc = subprocess.run(
            [sys.executable, *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (cap, cap)),
        )
    except subprocess.TimeoutExpired as exc:
        return Capped(None, str(exc.stdout or ""), f"timed out after {timeout} s")
    return Capped(proc.returncode, proc.stdout, proc.stderr)
