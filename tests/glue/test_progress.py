"""Progress on long work inside one item (issue 13, "Progress on long work").

The mask engine reports ``progress(done, total)`` (pytest-free); the pytest
layer draws a rich bar only for a person at a terminal: never when stdout is
not a tty, never with ``CI`` set, never under ``-q``, never on an xdist
worker, and only for long work (the threshold is lowered here through the
undocumented ``OMFC_PROGRESS_MIN_WORK`` so that the bundled example's two
masks count as long).  The terminal runs use a pseudo-terminal (``pty``).
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from helpers.mask_scoring import REF, SHIFTED, MaskCase
from helpers.paths import REPO

from pytest_omfc.pytest_glue.progress import MIN_WORK_ENV, ProgressBar, wanted
from pytest_omfc.scoring.mask.run import score_masks
from pytest_omfc.scoring.provenance import score_filtering, score_graph_building

ROOT = REPO
IMDL = ROOT / "examples" / "submissions" / "imdl" / "p-baseline_3_imdl"
IMDL_DATASET = ROOT / "examples" / "datasets" / "OpenMFC2020"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
BAR = re.compile(r"\d+/\d+ masks")  # the bar's count column


# ---------------------------------------------------------------------------- the engine


def test_engine_reports_each_scored_mask_with_the_total(omfc: Any) -> None:
    c = MaskCase(omfc, {"0001": REF, "0002": SHIFTED, "0003": None})  # 3 targets (0003: no system mask), 1 non-target
    calls: list[tuple[int, int]] = []
    report = c.engine(jobs=1, progress=lambda done, total: calls.append((done, total)))
    # one call before the first mask, then one per target's mask side: the non-target 0009 is not scored
    assert calls == [(0, 3), (1, 3), (2, 3), (3, 3)]
    assert report.runs[0].results[0].aggregate["totalTrials"] == 4


def test_engine_counts_each_run_of_a_pool(omfc: Any) -> None:
    c = MaskCase(omfc, {"0001": REF, "0002": SHIFTED})
    calls: list[tuple[int, int]] = []
    c.engine(jobs=2, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(0, 2), (1, 2), (2, 2)]  # in input order from the process pool too


def test_engine_without_a_callback_gives_the_same_numbers(omfc: Any) -> None:
    c = MaskCase(omfc, {"0001": REF, "0002": SHIFTED})
    nokern = {"eks": 0, "dks": 0, "ntdks": 0, "jobs": 1}
    a = c.engine(**nokern).runs[0].results[0].aggregate
    b = c.engine(**nokern, progress=lambda done, total: None).runs[0].results[0].aggregate
    # 0001 perfect (MCC 1); 0002 shifted by 2: TP 36, FP = FN 28, TN 164 of 256 ->
    # MCC = (36*164 - 28*28) / sqrt(64*64*192*192) = 5120/12288 = 0.41667; mean 0.70833
    assert a["OptimumMCC"] == b["OptimumMCC"] == pytest.approx((1 + 5120 / 12288) / 2)
    assert score_masks.__kwdefaults__["progress"] is None


def _provenance(tmp: Path) -> dict[str, Any]:
    """One probe P (journal A -> P), three system rows: two good graphs and one malformed JSON."""
    probe, pfile = "p" * 32, f"world/{'p' * 32}.jpg"

    def table(name: str, rows: list[list[str]]) -> Path:
        (tmp / name).write_text("\n".join("|".join(r) for r in rows) + "\n", encoding="utf-8")
        return tmp / name

    (tmp / "journals").mkdir()
    (tmp / "journals" / "j1.json").write_text(
        json.dumps(
            {
                "directed": True,
                "nodes": [
                    {"id": "A", "nodetype": "base", "file": "A.png"},
                    {"id": "P", "nodetype": "final", "file": "P.png"},
                ],
                "links": [{"source": 0, "target": 1, "op": "Blur"}],
            }
        )
    )
    graph = {
        "directed": True,
        "links": [{"source": 0, "target": 1, "relationshipConfidenceScore": 1}],
        "nodes": [
            {"id": "0", "file": "world/A.jpg", "fileid": "A", "nodeConfidenceScore": 1.0},
            {"id": "1", "file": pfile, "fileid": "P", "nodeConfidenceScore": 1.0},
        ],
    }
    (tmp / "jsons").mkdir()
    (tmp / "jsons" / "s0.json").write_text(json.dumps(graph))
    (tmp / "jsons" / "s1.json").write_text('{"nodes": [')
    (tmp / "jsons" / "s2.json").write_text(json.dumps(graph))
    return {
        "index": table(
            "index.csv", [["TaskID", "ProvenanceProbeFileID", "ProvenanceProbeFileName"], ["provenance", probe, pfile]]
        ),
        "reference": table(
            "ref.csv",
            [
                ["TaskID", "ProvenanceProbeFileID", "ProvenanceProbeFileName", "JournalName", "JournalFileName"],
                ["provenance", probe, pfile, "J1", "journals/j1.json"],
            ],
        ),
        "node": table(
            "node.csv",
            [
                ["ProvenanceProbeFileID", "WorldFileID", "WorldFileName", "JournalNodeID"],
                [probe, probe, pfile, "P"],
                [probe, "wA", "world/A.jpg", "A"],
            ],
        ),
        "world": table("world.csv", [["TaskID", "WorldFileID", "WorldFileName"], ["provenance", "wA", "world/A.jpg"]]),
        "system": table(
            "sys.csv",
            [["ProvenanceProbeFileID", "ProvenanceOutputFileName"]] + [[probe, f"jsons/s{i}.json"] for i in range(3)],
        ),
        "ref_dir": tmp,
        "sys_dir": tmp,
    }


@pytest.mark.parametrize("engine", [score_graph_building, score_filtering])
def test_provenance_engines_report_each_trial_with_the_total(tmp_path: Path, engine: Any) -> None:
    calls: list[tuple[int, int]] = []
    res = engine(**_provenance(tmp_path), progress=lambda done, total: calls.append((done, total)))
    assert calls == [(0, 3), (1, 3), (2, 3), (3, 3)]  # the malformed JSON's trial counts too: it was looked at
    assert len(res.trial_scores) == 2 and [r.reason.split(":")[0] for r in res.reasons] == [f"{tmp_path}/jsons/s1.json"]


# ---------------------------------------------------------------------------- when a bar is wanted


def _config(verbosity: int = 0, worker: bool = False, terminal: bool = True) -> Any:
    plugins = {"terminalreporter": object() if terminal else None, "capturemanager": None}
    cfg = SimpleNamespace(get_verbosity=lambda: verbosity, pluginmanager=SimpleNamespace(getplugin=plugins.get))
    if worker:
        cfg.workerinput = {}
    return cfg


@pytest.mark.parametrize(
    ("kw", "ci", "why"),
    [
        ({"verbosity": -1}, "", "-q"),
        ({"verbosity": -2}, "", "-qq"),
        ({"worker": True}, "", "an xdist worker"),
        ({"terminal": False}, "", "no terminal reporter (-p no:terminal)"),
        ({}, "true", "CI set"),
    ],
)
def test_no_bar_when_nobody_watches(monkeypatch: pytest.MonkeyPatch, kw: dict[str, Any], ci: str, why: str) -> None:
    monkeypatch.setattr(sys, "stdout", SimpleNamespace(isatty=lambda: True))
    monkeypatch.setenv("CI", ci)
    assert not wanted(_config(**kw)), why
    monkeypatch.setenv("CI", "")
    assert wanted(_config()), "the same terminal, otherwise plain, wants a bar"


def test_short_work_draws_no_bar() -> None:
    bar = ProgressBar(_config(), "score::mask", "masks", min_work=500)
    bar(0, 2), bar(1, 2)
    assert bar._progress is None  # never started: 2 masks are below the threshold
    bar.close()


# ---------------------------------------------------------------------------- through pytest


def test_no_progress_text_in_a_captured_run(omfc: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """pytester's output is not a terminal: not a character of a bar, even for 'long' work."""
    monkeypatch.setenv(MIN_WORK_ENV, "1")
    monkeypatch.delenv("CI", raising=False)
    c = MaskCase(omfc, {"0001": REF, "0002": SHIFTED})
    res = c.case.pytester.runpytest(
        *c.case.args, "--omfc-reference", str(c.reference), "--omfc-jobs", "1", "-p", "no:cacheprovider"
    )
    assert res.ret == 0
    text = res.stdout.str()
    assert "omfc mask scores" in text
    assert not BAR.search(text) and "━" not in text


def _pty_run(args: list[str], cwd: Path, **env: str) -> str:
    """``python -m pytest args`` on a pseudo-terminal (120x40); its screen bytes without colours."""
    environ = {k: v for k, v in os.environ.items() if k != "CI" and not k.startswith("PYTEST_")}
    environ |= {"PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]), "TERM": "xterm", **env}
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    proc = subprocess.Popen(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", *args],
        cwd=cwd,
        env=environ,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        close_fds=True,
    )
    os.close(slave)
    out, deadline = b"", time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # the child closed the terminal
                    break
                if not chunk:
                    break
                out += chunk
            elif proc.poll() is not None:
                break
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=30)
        os.close(master)
    assert proc.returncode == 0, out.decode("utf-8", "replace")[-3000:]
    return ANSI.sub("", out.decode("utf-8", "replace"))


def _example(tmp_path: Path, *extra: str, **env: str) -> str:
    args = [
        "--omfc-submission",
        str(IMDL),
        "--omfc-dataset",
        str(IMDL_DATASET),
        "--omfc-task",
        "IMDL",
        "--omfc-reference",
        "reference/IMDL/OpenMFC20_Image-IMDL-ref.csv",
        "--omfc-jobs",
        "1",
        *extra,
    ]
    return _pty_run(args, tmp_path, **{MIN_WORK_ENV: "1", **env})


def test_a_terminal_shows_the_bar_of_the_mask_item(tmp_path: Path) -> None:
    screen = _example(tmp_path)
    assert re.search(r"score::mask +━+ +0/2 masks", screen), screen[-2000:]  # drawn before the first mask
    assert re.search(r"score::mask +━+ +2/2 masks", screen), screen[-2000:]  # and at the end (then erased)
    assert "omfc mask scores" in screen and " passed" in screen


@pytest.mark.parametrize(("extra", "env"), [((), {"CI": "true"}), (("-q",), {})], ids=["CI", "-q"])
def test_a_terminal_in_ci_or_quiet_shows_no_bar(tmp_path: Path, extra: tuple[str, ...], env: dict[str, str]) -> None:
    screen = _example(tmp_path, *extra, **env)
    assert not BAR.search(screen) and "━" not in screen
    assert " passed" in screen
