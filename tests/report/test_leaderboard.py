"""``pytest-omfc leaderboard``: runs of one task on one reference ranked per headline metric, each with its interval;
neighbours whose paired difference is not significant share a rank; runs of another reference are refused; the
page is static, escapes the runs' names and renders in headless Chromium (docs/scoring/comparison.md)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers.detection import TRIALS, make

from pytest_omfc.cli import main
from pytest_omfc.leaderboard import build

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _runs(omfc: Any) -> dict[str, Path]:
    """Three scored runs of the detection helper: the helper's, the same again, and a reversed ranking."""
    out: dict[str, Path] = {}
    for name, score in (
        ("good", None),
        ("same", None),
        ("reversed", {i: str(round(1 - s, 2)) for i, _, s, _ in TRIALS}),
    ):
        s = make(omfc, score=score)
        s.json("--omfc-ci")
        out[name] = s.root / f"{name}.json"
        shutil.copy(s.root / "out" / "metrics.json", out[name])
    return out


def test_runs_are_ranked_and_tied_neighbours_share_a_rank(omfc: Any) -> None:
    runs = _runs(omfc)
    board = build([runs["reversed"], runs["good"], runs["same"]], metrics=["AUC", "EER"], level=0.9, draws=200)
    (auc, eer) = board["boards"]
    assert (auc["scorer"], auc["metric"], auc["higher_is_better"]) == ("detection", "AUC", True)
    assert (eer["metric"], eer["higher_is_better"]) == ("EER", False)
    rows = auc["rows"]
    assert [r["value"] for r in rows] == [0.8125, 0.8125, 0.1875]
    assert [r["rank"] for r in rows] == [1, 1, 3]  # the two equal runs tie; the reversed one is significantly worse
    assert rows[0]["significant"] is False and rows[0]["next_p_value"] == 1.0 and rows[0]["next_test"] == "delong"
    assert rows[1]["significant"] is True and rows[1]["next_difference"] == pytest.approx(0.625)
    assert rows[2]["significant"] is None  # the last row has no next one
    assert all(r["ci_low"] <= r["value"] <= r["ci_high"] for r in rows)
    assert [r["value"] for r in eer["rows"]] == sorted(r["value"] for r in eer["rows"])  # less is better


def test_the_command_writes_the_page_and_the_json_and_refuses_another_reference(
    omfc: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs = _runs(omfc)
    page, doc = tmp_path / "board.html", tmp_path / "board.json"
    assert main(["leaderboard", str(runs["good"]), str(runs["reversed"]), "-o", str(page), "--json", str(doc)]) == 0
    written = json.loads(doc.read_text(encoding="utf-8"))
    assert written["schema"] == "pytest-omfc-leaderboard/1"
    assert [(b["scorer"], b["metric"]) for b in written["boards"]] == [("detection", "AUC")]  # the headline metric
    assert "<h2>detection: AUC" in page.read_text(encoding="utf-8")
    other = json.loads(runs["same"].read_text(encoding="utf-8"))
    other["run"]["inputs"] = [dict(i, sha256="f" * 64) for i in other["run"]["inputs"]]
    runs["same"].write_text(json.dumps(other), encoding="utf-8")
    assert main(["leaderboard", str(runs["good"]), str(runs["same"]), "-o", str(page)]) == 4
    err = capsys.readouterr().err
    assert f"{runs['same']}: reference (SHA-256) 'ffffffffffffffff' differs from good.json's" in err
    assert main(["leaderboard", str(runs["good"]), "-o", str(runs["good"])]) == 4  # never over a run it reads


def test_names_are_escaped_and_reports_linked(omfc: Any, tmp_path: Path) -> None:
    runs = _runs(omfc)
    doc = json.loads(runs["good"].read_text(encoding="utf-8"))
    doc["submission"] = '<img src=x onerror="alert(1)">\u202e'
    doc["run"]["options"]["--omfc-html"] = "reports/good.html"
    doc["run"]["working_directory"] = str(tmp_path)
    runs["good"].write_text(json.dumps(doc), encoding="utf-8")
    page = tmp_path / "board.html"
    assert main(["leaderboard", str(runs["good"]), str(runs["reversed"]), "-o", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    assert "<img" not in text and "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;\\u202e" in text
    assert '<a href="reports/good.html">' in text
    assert "<script" not in text


@pytest.mark.skipif(CHROMIUM is None, reason="headless Chromium not found: apt-get install chromium")
def test_the_page_renders_in_chromium(omfc: Any, tmp_path: Path) -> None:
    import subprocess

    runs = _runs(omfc)
    page = tmp_path / "board.html"
    assert main(["leaderboard", *(str(p) for p in runs.values()), "-o", str(page)]) == 0
    assert CHROMIUM is not None
    run = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
         f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    assert "detection: AUC" in run.stdout and "0.8125" in run.stdout and "tied" in run.stdout
    assert "CONSOLE" not in run.stderr and "Uncaught" not in run.stderr
