"""``--omfc-html``: the self-contained HTML report (pytester runs; the browser test is test_html_report_browser.py).

The cases are copies of the bundled IMDL example (examples/README.md) whose SCORE-03 fails (a
ConfidenceScore of 1.7), made richer where a test needs it: a third target probe with a reference
mask, and a system mask for OpenMFC2020_0102 that misses part of the region and marks some pixels
outside it, so the overlay has true and false positives, misses and a no-score zone.
"""

from __future__ import annotations

import html
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers.html import REF_REL, SUB_NAME, _rect, example_case, text_of
from PIL import Image

from pytest_omfc.report import mask_cards, pick_probes, render_page
from pytest_omfc.report.page import ReportData, RuleRow

XSS = "<script>alert(1)</script>"


def run_report(
    pytester: pytest.Pytester,
    *extra: str,
    reference: bool = True,
    rich: bool = True,
    probe: str | None = None,
    out: str = "out/report.html",
) -> tuple[Any, str | None, Path]:
    """Run on a fresh example copy; (run result, page text or None, submission dir)."""
    sub, index = example_case(pytester.path, rich=rich, probe=probe)
    args = ["--omfc-submission", str(sub), "--omfc-index", str(index), "-p", "no:cacheprovider", "--omfc-html", out]
    if reference:
        args += ["--omfc-reference", REF_REL]
    res = pytester.runpytest(*args, *extra)
    page = pytester.path / out
    return res, page.read_text(encoding="utf-8") if page.is_file() else None, sub


def cards(page: str) -> list[str]:
    return re.findall(r'<div class="card"><div class="id">(.*?)</div>', page)


# ---------------------------------------------------------------------------- content


def test_report_of_a_failing_submission_with_scores(pytester: pytest.Pytester) -> None:
    res, page, _ = run_report(pytester)
    assert res.ret == pytest.ExitCode.TESTS_FAILED
    res.stdout.fnmatch_lines(["omfc: wrote HTML report: *report.html"])
    assert page is not None
    text = text_of(page)
    assert "Failed: 1 rule failed and 0 warnings" in text
    assert re.search(r'<tr data-family="SCORE" data-status="failed"><td><a href="#f-SCORE-03">SCORE-03</a>', page)
    assert re.search(r'<tr data-family="IDX" data-status="passed"><td>IDX-04</td>', page)
    assert "SCORE-03: 1 of 4 scores are outside [0, 1] (showing 1)" in text
    assert "ConfidenceScore must be in [0, 1] (got 1.7)" in text
    # detection: 3 targets (0101, 0102, 0103) and 1 non-target; mask: OptimumMCC of the three probes
    assert re.search(r"<td>all</td><td class=\"num\">3</td><td class=\"num\">1</td>", page)
    assert page.count("<svg ") == 2 and "Detection curves" in text
    assert "2 worst" in text and "1 best" in text  # 3 scored probes, N = 8: each shown once
    assert len(cards(page)) == 3
    assert len(re.findall(r'<img alt="overlay" src="data:image/png;base64,', page)) == 3


def test_without_reference_the_report_has_rules_only(pytester: pytest.Pytester) -> None:
    res, page, _ = run_report(pytester, reference=False, rich=False)
    assert res.ret == pytest.ExitCode.TESTS_FAILED
    assert page is not None
    text = text_of(page)
    assert "Failed: 1 rule failed and 0 warnings" in text
    assert "SCORE-03" in text and "Rules" in text
    assert "Scores" not in text and "<svg" not in page and "<img" not in page


def test_the_report_says_what_produced_it(pytester: pytest.Pytester) -> None:
    """A collapsed Environment section: version, UTC time, the command, the options given, Python and the
    libraries, and the SHA-256 of the system output, the index and the reference."""
    import hashlib

    from pytest_omfc import __version__

    _res, page, sub = run_report(pytester, "--omfc-max-findings", "7")
    assert page is not None
    env = page[page.index('<details id="environment">') :]
    assert "<summary>Environment</summary>" in env and env.index("</details>") > 0
    text = text_of(env)
    assert __version__ in text and "--omfc-max-findings" in text and "numpy" in text and "pandas" in text
    assert re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", text)
    csv = sub / f"{SUB_NAME}.csv"
    assert hashlib.sha256(csv.read_bytes()).hexdigest() in text
    assert REF_REL.rsplit("/", 1)[-1] in text


def test_a_passing_run_says_passed(pytester: pytest.Pytester) -> None:
    sub, index = example_case(pytester.path, rich=False)
    csv = sub / f"{SUB_NAME}.csv"
    csv.write_text(csv.read_text(encoding="utf-8").replace("|1.7|", "|0.7|"), encoding="utf-8")
    res = pytester.runpytest(
        "--omfc-submission", str(sub), "--omfc-index", str(index), "-p", "no:cacheprovider", "--omfc-html", "r.html"
    )
    assert res.ret == 0
    assert '<div id="verdict" class="verdict pass">Passed: passed</div>' in (pytester.path / "r.html").read_text(
        encoding="utf-8"
    )


def test_findings_are_truncated_like_the_terminal_with_the_total(pytester: pytest.Pytester) -> None:
    sub, index = example_case(pytester.path, rich=False)
    csv = sub / f"{SUB_NAME}.csv"
    csv.write_text(
        csv.read_text(encoding="utf-8").replace("|0.93|", "|9.3|").replace("|0.08|", "|-8|"), encoding="utf-8"
    )
    res = pytester.runpytest(
        "--omfc-submission",
        str(sub),
        "--omfc-index",
        str(index),
        "-p",
        "no:cacheprovider",
        "--omfc-html",
        "r.html",
        "--omfc-max-findings",
        "1",
    )
    text = text_of((pytester.path / "r.html").read_text(encoding="utf-8"))
    assert "SCORE-03: 3 of 4 scores are outside [0, 1] (showing 1)" in text
    assert "... and 2 more (3 in all)" in text
    assert text.count("ConfidenceScore must be in [0, 1]") == 1
    res.stdout.fnmatch_lines(["*... and 2 more (3 in all)"])  # the same as the terminal


def test_submission_text_is_escaped(pytester: pytest.Pytester) -> None:
    """A probe ID ``<script>alert(1)</script>`` shows as text in the findings and on its thumbnail card."""
    _res, page, _ = run_report(pytester, probe=XSS)
    assert page is not None
    assert XSS not in page
    assert page.count("<script") == 1  # the page's own filter script
    assert html.escape(XSS) in page
    assert XSS in text_of(page)
    assert html.escape(XSS) in cards(page)


def test_no_network_references(pytester: pytest.Pytester) -> None:
    _, page, _ = run_report(pytester)
    assert page is not None
    links = re.findall(
        r"""\b(?:src|href|xlink:href|action|poster|data)\s*=\s*["']?([^"'\s>]*)""", page, flags=re.IGNORECASE
    )
    assert links and all(v.startswith(("data:image/png;base64,", "#")) for v in links), links
    assert not re.search(r"https?://", page)  # no URL at all (the SVG namespace is implied inline)
    assert not re.search(r"<link\b|@import|url\(|<iframe|<object|<embed", page, flags=re.IGNORECASE)
    assert "default-src 'none'" in page  # and the Content-Security-Policy forbids any fetch


# ---------------------------------------------------------------------------- thumbnails


@pytest.mark.parametrize(("n", "want"), [("1", ["OpenMFC2020_0101", "OpenMFC2020_0103"]), ("0", [])])
def test_html_masks_chooses_the_n_worst_and_n_best(pytester: pytest.Pytester, n: str, want: list[str]) -> None:
    # per-probe OptimumMCC: 0101 lowest, 0103 highest, 0102 between (checked against the metrics JSON)
    _res, page, _ = run_report(pytester, "--omfc-html-masks", n, "--omfc-metrics-json", "m.json")
    import json

    rows = json.loads((pytester.path / "m.json").read_text())["results"][1]["per_probe"]
    mcc = {r["ProbeFileID"]: r["OptimumMCC"] for r in rows}
    assert mcc["OpenMFC2020_0101"] < mcc["OpenMFC2020_0102"] < mcc["OpenMFC2020_0103"], mcc
    assert page is not None
    assert cards(page) == want
    if n == "0":
        assert "Thumbnails are off (--omfc-html-masks 0)." in text_of(page)


def test_html_masks_is_bounded(pytester: pytest.Pytester) -> None:
    sub, index = example_case(pytester.path, rich=False)
    res = pytester.runpytest(
        "--omfc-submission", str(sub), "--omfc-index", str(index), "--omfc-html", "r.html", "--omfc-html-masks", "101"
    )
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    res.stderr.fnmatch_lines(["ERROR: --omfc-html-masks: must be an integer from 0 to 100 (got 101)"])


def _mask(tmp: Path, name: str, rows: slice, cols: slice, shape: tuple[int, int] = (10, 10)) -> str:
    _rect(shape, rows, cols).save(tmp / name)
    return name


def test_overlay_counts_by_hand(tmp_path: Path) -> None:
    """10x10 masks, no no-score zone (eks = dks = 0): reference rows/cols 2-5 (16 px), system rows/cols 4-7 (16 px).

    TP = rows 4-5 x cols 4-5 = 4; FN = 16 - 4 = 12; FP = 16 - 4 = 12; TN = 100 - 4 - 12 - 12 = 72.
    With eks = dks = 3 the no-score zone is dilate3(GT) - erode3(GT) = 6x6 - 2x2 = 32 pixels; GT keeps
    rows/cols 3-4 (TP: (4,4) only, FN 3), and of the system's 16 pixels the 6x6 zone rows/cols 1-6 holds
    rows/cols 4-6 = 9, so FP = 16 - 9 = 7 and TN = 100 - 32 - 1 - 3 - 7 = 57.
    """
    _mask(tmp_path, "ref.png", slice(2, 6), slice(2, 6))
    _mask(tmp_path, "sys.png", slice(4, 8), slice(4, 8))
    row = {
        "ProbeFileID": "P1",
        "ProbeMaskFileName": "ref.png",
        "OutputProbeMaskFileName": "sys.png",
        "OptimumThreshold": 0,
        "OptimumMCC": 0.1,
    }
    (card,) = mask_cards([row], ref_root=tmp_path, sys_root=tmp_path, options={"eks": 0, "dks": 0})
    assert card.error is None
    assert card.counts == {"TP": 4, "FN": 12, "FP": 12, "TN": 72, "NS": 0}
    (card,) = mask_cards([row], ref_root=tmp_path, sys_root=tmp_path, options={"eks": 3, "dks": 3})
    assert card.counts == {"TP": 1, "FN": 3, "FP": 7, "TN": 57, "NS": 32}
    # threshold -1: nothing is called manipulated, every GT pixel is a miss
    (card,) = mask_cards(
        [{**row, "OptimumThreshold": -1}], ref_root=tmp_path, sys_root=tmp_path, options={"eks": 0, "dks": 0}
    )
    assert card.counts == {"TP": 0, "FN": 16, "FP": 0, "TN": 84, "NS": 0}


def test_overlay_thumbnail_is_bounded_and_keeps_the_colours(tmp_path: Path) -> None:
    import base64
    import io

    _mask(tmp_path, "ref.png", slice(100, 400), slice(100, 700), shape=(600, 1000))
    _mask(tmp_path, "sys.png", slice(300, 500), slice(600, 900), shape=(600, 1000))
    row = {
        "ProbeFileID": "P",
        "ProbeMaskFileName": "ref.png",
        "OutputProbeMaskFileName": "sys.png",
        "OptimumThreshold": 0,
        "OptimumMCC": 0.2,
    }
    (card,) = mask_cards([row], ref_root=tmp_path, sys_root=tmp_path, options={})
    assert [p.caption for p in card.panels] == ["probe reference", "system at threshold 0", "overlay"]
    with Image.open(io.BytesIO(base64.b64decode(card.panels[2].uri.split(",", 1)[1]))) as im:
        assert im.size == (256, 154)  # 1000x600 -> 256 on the long side
        colours = {c for _, c in im.convert("RGB").getcolors(1 << 16)}
    assert colours == {(0, 128, 0), (255, 0, 0), (255, 165, 0), (128, 0, 128), (255, 255, 255)}


def test_a_mask_that_cannot_be_read_is_a_reason_not_a_crash(tmp_path: Path) -> None:
    _mask(tmp_path, "ref.png", slice(2, 6), slice(2, 6))
    (tmp_path / "sys.png").write_bytes(b"GIF89a not a png")
    rows = [
        {
            "ProbeFileID": "P",
            "ProbeMaskFileName": "ref.png",
            "OutputProbeMaskFileName": "sys.png",
            "OptimumThreshold": 0,
            "OptimumMCC": 0.0,
        },
        {
            "ProbeFileID": "Q",
            "ProbeMaskFileName": "../outside.png",
            "OutputProbeMaskFileName": None,
            "OptimumThreshold": 0,
            "OptimumMCC": 0.0,
        },
    ]
    got = mask_cards(rows, ref_root=tmp_path, sys_root=tmp_path, options={})
    assert got[0].panels == () and got[0].error == "cannot draw: sys.png: must be a PNG file (got GIF data)"
    assert got[1].error is not None and "must stay inside the submission directory" in got[1].error


def test_pick_probes_orders_by_the_primary_metric_and_shows_each_once() -> None:
    rows = [{"ProbeFileID": f"P{i}", "OptimumMCC": v} for i, v in enumerate([0.5, None, 0.1, 0.9, 0.1, 0.3])]
    worst, best = pick_probes(rows, 2)
    assert [r["ProbeFileID"] for r in worst] == ["P2", "P4"]  # ties by ID; P1 (not scored) never shown
    assert [r["ProbeFileID"] for r in best] == ["P3", "P0"]
    worst, best = pick_probes(rows, 4)
    assert [r["ProbeFileID"] for r in worst] == ["P2", "P4", "P5"] and [r["ProbeFileID"] for r in best] == ["P3", "P0"]
    splice = [{"ProbeFileID": "A", "pOptimumMCC": 0.2}, {"ProbeFileID": "B", "pOptimumMCC": -0.1}]
    assert [r["ProbeFileID"] for r in pick_probes(splice, 1)[0]] == ["B"]


def test_render_page_escapes_and_words_the_verdict() -> None:
    data = ReportData(
        "s<1>",
        "OpenMFC2020",
        "IMDL",
        rules=[
            RuleRow("IDX-04", "t", "IDX", "error", "failed", text=f"IDX-04: 1 trial {XSS}"),
            RuleRow("DESC-02", "d", "DESC", "warning", "warning", warning="DESC-02: a warning"),
            RuleRow("CSV-01", "c", "CSV", "error", "failed", text="CSV-01: x"),
        ],
    )
    page = render_page(data)
    assert "Failed: 2 rules failed and 1 warning" in text_of(page)
    assert XSS not in page and "s&lt;1&gt;" in page


# ---------------------------------------------------------------------------- where and how often


def test_written_once_by_the_controller_under_xdist(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """With -n 2 every worker is watched by an audit hook (test_scoring_xdist): none writes; the page has it all."""
    from helpers.xdist import WATCH_CONFTEST

    sub, index = example_case(pytester.path)
    out_dir, log = pytester.path / "out", pytester.path / "log"
    log.mkdir()
    monkeypatch.setenv("OMFC_WATCH", str(out_dir))
    monkeypatch.setenv("OMFC_LOG", str(log))
    pytester.makeconftest(WATCH_CONFTEST)
    res = pytester.runpytest_subprocess(
        "--omfc-submission",
        str(sub),
        "--omfc-index",
        str(index),
        "-p",
        "no:cacheprovider",
        "--omfc-reference",
        REF_REL,
        "--omfc-html",
        str(out_dir / "r.html"),
        "-n",
        "2",
    )
    assert res.ret == pytest.ExitCode.TESTS_FAILED
    assert [line for line in res.outlines if line.startswith("omfc: wrote HTML report:")] == [
        f"omfc: wrote HTML report: {out_dir / 'r.html'}"
    ]
    assert sorted(p.name for p in log.iterdir()) == ["gw0.txt", "gw1.txt"]  # both workers were watched
    assert [p.read_text() for p in sorted(log.iterdir())] == ["", ""]  # and neither wrote
    assert sorted(p.name for p in out_dir.iterdir()) == ["r.html"]
    page = (out_dir / "r.html").read_text(encoding="utf-8")
    text = text_of(page)
    assert "Failed: 1 rule failed and 0 warnings" in text and "SCORE-03: 1 of 4 scores are outside [0, 1]" in text
    assert page.count("<svg ") == 2 and len(cards(page)) == 3  # scores and thumbnails crossed from the workers


@pytest.mark.parametrize("where", ["submission", "dataset", "directory"])
def test_never_written_into_the_submission_or_dataset(pytester: pytest.Pytester, where: str) -> None:
    sub, index = example_case(pytester.path, rich=False)
    target = {
        "submission": sub / "report.html",
        "dataset": pytester.path / "OpenMFC2020" / "r.html",
        "directory": pytester.path,
    }[where]
    res = pytester.runpytest(
        "--omfc-submission", str(sub), "--omfc-index", str(index), "-p", "no:cacheprovider", "--omfc-html", str(target)
    )
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    want = {
        "submission": f"ERROR: --omfc-html: must not point into the submission directory {sub} (got {target})",
        "dataset": f"ERROR: --omfc-html: must not point into the dataset directory {pytester.path / 'OpenMFC2020'} "
        f"(got {target})",
        "directory": f"ERROR: --omfc-html: must be a regular file or a new one (got {target}, a directory)",
    }[where]
    assert [line for line in res.errlines if line.strip()] == [want]
    assert not target.is_file()


def test_an_unwritable_path_is_an_error_line_and_exit_1(pytester: pytest.Pytester) -> None:
    sub, index = example_case(pytester.path, rich=False)
    csv = sub / f"{SUB_NAME}.csv"
    csv.write_text(csv.read_text(encoding="utf-8").replace("|1.7|", "|0.7|"), encoding="utf-8")  # every rule passes
    pytester.path.joinpath("blocker").write_text("a file, not a directory")
    res = pytester.runpytest(
        "--omfc-submission",
        str(sub),
        "--omfc-index",
        str(index),
        "-p",
        "no:cacheprovider",
        "--omfc-html",
        "blocker/r.html",
    )
    assert res.ret == pytest.ExitCode.TESTS_FAILED
    res.stdout.fnmatch_lines(["omfc: ERROR --omfc-html: cannot write */blocker/r.html: *"])
    assert "INTERNALERROR" not in res.stdout.str()


def test_the_report_package_does_not_import_pytest() -> None:
    """pytest_omfc.report is pure (the glue imports it only when it writes a report)."""
    import subprocess
    import sys

    code = (
        "import sys, pytest_omfc.report\n"
        "print(sorted(k for k in sys.modules if k.split('.')[0] in ('pytest', '_pytest')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "[]"


def test_ini_path_is_taken_from_the_ini_files_directory(pytester: pytest.Pytester) -> None:
    sub, index = example_case(pytester.path, rich=False)
    conf = pytester.path / "conf"
    conf.mkdir()
    (conf / "pytest.ini").write_text("[pytest]\nomfc_html = reports/r.html\nomfc_html_masks = 0\n", encoding="utf-8")
    res = pytester.runpytest(
        "-c",
        str(conf / "pytest.ini"),
        "--rootdir",
        str(pytester.path),
        "--omfc-submission",
        str(sub),
        "--omfc-index",
        str(index),
        "-p",
        "no:cacheprovider",
    )
    assert res.ret == pytest.ExitCode.TESTS_FAILED
    assert (conf / "reports" / "r.html").is_file()


def test_a_fifo_mask_is_never_opened(tmp_path: Path) -> None:
    import os

    _mask(tmp_path, "ref.png", slice(2, 6), slice(2, 6))
    os.mkfifo(tmp_path / "sys.png")  # opening it for reading would block
    row = {
        "ProbeFileID": "P",
        "ProbeMaskFileName": "ref.png",
        "OutputProbeMaskFileName": "sys.png",
        "OptimumThreshold": 0,
        "OptimumMCC": 0.0,
    }
    (card,) = mask_cards([row], ref_root=tmp_path, sys_root=tmp_path, options={})
    assert card.panels == () and card.error == "cannot draw: system mask 'sys.png': must be a regular file (got a FIFO)"


# ---------------------------------------------------------------------------- invisible characters (issue 17)

#: bidi controls, marks, isolates, zero-width and tag characters: each would reorder or hide text around it
INVISIBLE_PAYLOADS = [
    "\u202e",
    "\u2066",
    "\u2067",
    "\u2068",
    "\u2069",
    "\u200f",
    "\u200e",
    "\u061c",
    "\u200b",
    "\u200d",
    "\u2060",
    "\ufeff",
    "\u2028",
    "\U000e0041",
]


@pytest.mark.parametrize("payload", INVISIBLE_PAYLOADS, ids=[f"U+{ord(p):04X}" for p in INVISIBLE_PAYLOADS])
def test_every_place_of_the_page_shows_invisible_characters_as_escapes(payload: str) -> None:
    """Each place where submission or dataset text lands (title, edition, rule texts and warnings, score
    failures, table cells and notes, plot labels, mask card IDs, captions and errors, the mask note,
    output errors) gets the payload; the page must contain none of it raw, and its escape in each place."""
    from pytest_omfc.report import Plot, ReportData, RuleRow, ScoreTable
    from pytest_omfc.report.masks import MaskCard, MaskPanel
    from pytest_omfc.report.plots import _Canvas  # type: ignore[attr-defined]

    t = f"x{payload}y"
    fig = _Canvas((100, 50), (0.0, 1.0), (0.0, 1.0))
    fig.text(1, 1, f"legend {t}")
    data = ReportData(
        submission=f"sub{t}",
        edition=f"ed{t}",
        task=f"task{t}",
        rules=[
            RuleRow("SUB-10", f"title{t}", "SUB", "error", "failed", text=f"finding{t}\nsecond line"),
            RuleRow("DESC-02", f"wt{t}", "DESC", "warning", "passed", warning=f"warning{t}"),
        ],
        score_failures=[f"score::mask: fail{t}"],
        tables=[ScoreTable(f"table{t}", (f"col{t}",), ((f"cell{t}",),), (f"note{t}",))],
        plots=[Plot(f"plot{t}", fig.to_svg())],
        worst=[MaskCard(f"probe{t}", "OptimumMCC", 0.5, 0, (MaskPanel(f"caption{t}", "data:image/png;base64,AA=="),))],
        best=[MaskCard(f"probe2{t}", "OptimumMCC", 0.5, 0, error=f"cannot draw: {t}")],
        mask_note=f"note{t}",
        scored=True,
        errors=[f"error{t}"],
    )
    page = render_page(data)
    assert payload not in page
    code = f"\\u{ord(payload):04x}" if ord(payload) < 0x10000 else f"\\U{ord(payload):08x}"
    for place in (
        "sub",
        "ed",
        "task",
        "title",
        "finding",
        "warning",
        "fail",
        "table",
        "col",
        "cell",
        "note",
        "legend ",
        "plot",
        "probe",
        "caption",
        "cannot draw: ",
        "error",
    ):
        assert f"{place}x{code}y" in page, place
    assert "finding" + f"x{code}y" + "\nsecond line" in page  # line breaks of a <pre> are kept


@pytest.mark.parametrize("what", ["reference outside the dataset", "index", "journal beside the reference", "symlink"])
def test_never_overwrites_a_file_the_run_reads(pytester: pytest.Pytester, what: str) -> None:
    """Issue 17: ``--omfc-html`` named a reference kept outside the dataset root and overwrote it (exit 0).
    Every output is now refused when it is, or links to, a file the run reads (exit 4, file unchanged)."""
    sub, index = example_case(pytester.path, rich=False)
    ref = pytester.path / "refs" / "OpenMFC20_Image-IMDL-ref.csv"
    ref.parent.mkdir()
    shutil.copy(pytester.path / "OpenMFC2020" / REF_REL, ref)
    journal = ref.with_name("OpenMFC20_Image-IMDL-ref-journalmask.csv")
    journal.write_text("JournalName|StartNodeID|EndNodeID|Operation\n", encoding="utf-8")
    link = pytester.path / "link.html"
    link.symlink_to(ref)
    target = {
        "reference outside the dataset": ref,
        "index": index,
        "journal beside the reference": journal,
        "symlink": link,
    }[what]
    before = {p: p.read_bytes() for p in (ref, index, journal)}
    for flag in ("--omfc-html", "--omfc-metrics-json", "--omfc-per-probe-csv"):
        res = pytester.runpytest(
            "--omfc-submission",
            str(sub),
            "--omfc-index",
            str(index),
            "-p",
            "no:cacheprovider",
            "--omfc-reference",
            str(ref),
            flag,
            str(target),
        )
        assert res.ret == pytest.ExitCode.USAGE_ERROR, (flag, res.stdout.str()[-2000:])
        why = "must not point into the" if what == "index" else "must not overwrite a file the run reads"
        assert any(f"{flag}: {why}" in line for line in res.errlines), res.errlines
    assert {p: p.read_bytes() for p in (ref, index, journal)} == before


def test_the_report_builder_names_no_scorer() -> None:
    """The HTML report iterates over the run's scorers and asks each one's view (report/views/) for its extra
    sections: the builder has no branch on a scorer's name and imports no private helper of the engines."""
    import ast

    from pytest_omfc.pytest_glue import html as builder
    from pytest_omfc.scoring.registry import SCORERS

    tree = ast.parse(Path(builder.__file__).read_text(encoding="utf-8"))
    names = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    assert not names & set(SCORERS), names & set(SCORERS)
    private = [
        a.name
        for n in ast.walk(tree)
        if isinstance(n, ast.ImportFrom)
        for a in n.names
        if a.name.startswith("_") and "scoring" in (n.module or "")
    ]
    assert private == []
