"""Hostile system outputs: size bombs, junk floods, blank lines, symlinks and FIFOs (issue "Hostile submissions").

Bounds are documented in pytest_omfc/csvio.py: a system output may hold at most
4 KiB per index trial + 1 MiB (else CSV-03 fails naming its size, unread) and
2 records per index trial + 1000 (else CSV-03 fails at the first record too
many); findings are kept up to KEEP_FINDINGS per rule and severity, the rest
counted.  Hostile cases run in a child process with an address-space limit
(RLIMIT_AS) and a timeout, so that a regression fails fast instead of eating
the machine.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from helpers.columns import layout_case
from helpers.hostile import HEADER, run_capped

from pytest_omfc.findings import KEEP_FINDINGS

CSV = "p-test_1/p-test_1.csv"


def write_csv(case: Any, data: bytes) -> Path:
    path = case.submission / f"{case.submission.name}.csv"
    path.write_bytes(data)
    return path


GOOD = HEADER + b"0042|0.5||Processed|\n0043|0.5||Processed|\n0044|0.5||Processed|\n"


# ---------------------------------------------------------------------------- size and record bounds


def test_sparse_tail_fails_naming_its_size_unread(omfc):
    """A valid file followed by a 12 GiB sparse tail of NUL bytes: CSV-03 names the size, nothing is read
    (before: MemoryError under a 3 GB cap, > 8 GB without)."""
    case = layout_case(omfc)
    path = write_csv(case, GOOD)
    os.truncate(path, len(GOOD) + 12 * 1024**3)  # sparse: costs no disk
    res = run_capped(case.pytester.path, *case.args)
    reports = res.junit()
    assert reports["CSV-03"][:2] == (
        "failed",
        f"CSV-03: {CSV} is 12 GiB, more than an index of 3 trials can justify (at most 1.0 MiB) (showing 1)",
    )
    assert (
        f"the system output must be at most 1060864 bytes for an index of 3 trials (4 KiB per trial + 1 MiB; "
        f"got {len(GOOD) + 12 * 1024**3} bytes; the file was not read)"
    ) in reports["CSV-03"][2]
    assert reports["CSV-01"][:2] == (
        "skipped",
        f"CSV-01 skipped: CSV-03 failed: {CSV} is 12 GiB, more than an index of 3 trials can justify (at most 1.0 MiB)",
    )
    assert reports["IDX-06"][0] == "skipped"
    assert "Traceback" not in res.out and "INTERNALERROR" not in res.out
    assert res.peak_mb < 600 and res.seconds < 60


def test_junk_records_stop_at_the_record_bound(omfc):
    """200,000 one-field junk records (before: all parsed into rows and findings; 2,000,000 took 272 s and 4 GB):
    CSV-03 fails at the first record the index cannot justify, counting the lines."""
    case = layout_case(omfc)
    write_csv(case, GOOD + b"x\n" * 200_000)
    res = run_capped(case.pytester.path, *case.args)
    outcome, message, body = res.junit()["CSV-03"]
    assert (outcome, message) == (
        "failed",
        f"CSV-03: {CSV} has more records than an index of 3 trials can justify (at most 1006) (showing 20)",
    )
    first = body.splitlines()[1]
    assert first == (
        f"  {CSV}:1008: the system output must have at most 1006 records for an index of 3 trials "
        "(2 per trial + 1000; got record 1007 here, 200004 lines in all; the rest was not parsed)"
    )
    assert body.splitlines()[-1] == "  ... and 984 more (1004 in all)"  # the bound + 1003 ragged records (1000 kept)
    assert res.junit()["IDX-06"][:2] == (
        "skipped",
        f"IDX-06 skipped: CSV-03 failed: {CSV} has more records than an index of 3 trials can justify (at most 1006)",
    )
    assert res.peak_mb < 600 and res.seconds < 60


def test_blank_lines_are_counted_not_listed(omfc):
    """300,000 blank lines (before: one finding object each, all shown with -1): a warning that keeps
    KEEP_FINDINGS of them and counts the rest."""
    case = layout_case(omfc)
    write_csv(case, GOOD + b"\n" * 300_000)
    res = run_capped(case.pytester.path, *case.args, "--omfc-max-findings", "-1")
    reports = res.junit()
    assert reports["CSV-03"][0] == "passed"
    assert reports["IDX-06"][0] == "passed"
    warning = res.warning("CSV-03").splitlines()
    assert warning[0] == f"CSV-03: 300000 blank lines (showing {KEEP_FINDINGS})"
    assert warning[1].startswith(f"  {CSV}:5: a blank line should not be there")
    assert len(warning) == KEEP_FINDINGS + 2
    assert warning[-1] == f"  ... and {300_000 - KEEP_FINDINGS} more (300000 in all)"
    assert res.peak_mb < 600 and res.seconds < 60


def test_findings_beyond_the_cap_are_counted(omfc):
    """A rule with more findings than KEEP_FINDINGS (1,500 bad scores): -1 shows the kept ones and the
    last line counts them all; the headline counts all of them."""
    n = KEEP_FINDINGS + 500
    trials = [{"ProbeFileID": f"{i:05d}"} for i in range(n)]
    rows = [f"{i:05d}|1.5||Processed|" for i in range(n)]
    case = layout_case(
        omfc, trials=trials, index_trials=trials, csv_text="\n".join([HEADER.decode().strip(), *rows]) + "\n"
    )
    res = case.run("--omfc-max-findings", "-1")
    lines = res.text("SCORE-03").splitlines()
    assert lines[0] == f"SCORE-03: {n} of {n} scores are outside [0, 1] (showing {KEEP_FINDINGS})"
    assert lines[-1] == f"  ... and 500 more ({n} in all)"
    assert len(lines) == KEEP_FINDINGS + 2


# ---------------------------------------------------------------------------- symlinks and special files


def test_symlinked_csv_leaving_the_submission_is_never_read(omfc):
    """<ID>.csv -> a file outside: PKG-01 fails (D-24's path safety, as for masks and the description), the
    CSV rules are skipped naming it, and nothing of the outside file is printed (before: CSV-01 quoted it)."""
    case = layout_case(omfc)
    outside = case.pytester.path / "outside.csv"
    outside.write_text("root:x:0:0:SECRET-CONTENT:/root:/bin/bash\n")
    link = case.submission / "p-test_1.csv"
    link.unlink()
    link.symlink_to(outside)
    res = case.run()
    assert res.outcome("PKG-01") == "failed"
    assert (
        res.first_line("PKG-01") == "PKG-01: the system output p-test_1.csv points outside the submission (showing 1)"
    )
    assert res.text("PKG-01").splitlines()[1] == (
        f"  {CSV}: the system output must stay inside the submission directory (got a symlink to {outside.resolve()})"
    )
    assert res.first_line("CSV-01") == f"CSV-01 skipped: PKG-01 failed: {CSV} points outside the submission"
    assert res.first_line("IDX-06") == f"IDX-06 skipped: PKG-01 failed: {CSV} points outside the submission"
    assert not any("SECRET" in text for _, text in res.reports.values())


def test_fifo_csv_is_not_a_regular_file_and_never_opened(omfc):
    """A FIFO named <ID>.csv (opening it for reading would block forever): CSV-08 and PKG-09 say what it is
    (before: "is missing (got no such file)")."""
    case = layout_case(omfc)
    path = case.submission / "p-test_1.csv"
    path.unlink()
    os.mkfifo(path)
    res = run_capped(case.pytester.path, *case.args)
    reports = res.junit()
    assert reports["CSV-08"][:2] == ("failed", f"CSV-08: {CSV} is not a regular file (got a FIFO) (showing 1)")
    assert f"{CSV}: the file must be a regular file (got a FIFO; it was not opened)" in reports["CSV-08"][2]
    assert reports["PKG-09"][:2] == ("failed", "PKG-09: p-test_1.csv in p-test_1/ is not a regular file (showing 1)")
    assert "p-test_1/: the system output p-test_1.csv must be a regular file (got a FIFO)" in reports["PKG-09"][2]
    assert reports["PKG-01"][0] == reports["PKG-02"][0] == "passed"
    assert reports["CSV-01"][:2] == (
        "skipped",
        f"CSV-01 skipped: CSV-08 failed: {CSV} is not a regular file (got a FIFO)",
    )


def test_fifo_description_is_not_read(omfc):
    """A FIFO named <ID>.txt: PKG-03 names it and the DESC rules, which read the file, are skipped."""
    case = layout_case(omfc, description=None)
    os.mkfifo(case.submission / "p-test_1.txt")
    res = run_capped(case.pytester.path, *case.args)
    reports = res.junit()
    assert reports["PKG-03"][:2] == (
        "failed",
        "PKG-03: the system description p-test_1.txt is not a regular file (showing 1)",
    )
    assert (
        "p-test_1/p-test_1.txt: the system description must be the text file p-test_1.txt "
        "(got a FIFO, not a regular file)"
    ) in reports["PKG-03"][2]
    assert {reports[r][0] for r in ("DESC-02", "DESC-03", "DESC-04")} == {"skipped"}


def test_fifo_index_is_a_usage_error_naming_it(omfc):
    """--omfc-index naming a FIFO: exit 4 saying it is not a regular file (before: "no such file")."""
    case = layout_case(omfc)
    case.index.unlink()
    os.mkfifo(case.index)
    res = run_capped(case.pytester.path, *case.args)
    assert res.ret == 4
    assert f"--omfc-index: not a regular file: {case.index}" in res.out


def test_a_bound_far_above_the_file_does_not_allocate_the_bound(tmp_path: Path) -> None:
    """A 1,000,000-line list passed the 4 GiB bound but read(bound) allocated it up front: MemoryError under the
    address-space limit portals set.  The read asks for the file's size; the same file under a 700 MB cap."""
    from helpers.runs import run_capped

    path = tmp_path / "list.txt"
    path.write_text("".join(f"train_release/{i}.jpg 1 {i % 3} {i % 16}\n" for i in range(200_000)), encoding="utf-8")
    script = (
        "import sys\nfrom pathlib import Path\nfrom pytest_omfc.csvio import Limits, ParseResult, read_text\n"
        "res = ParseResult(table=None, display='list.txt')\n"
        "text = read_text(Path(sys.argv[1]), 'list.txt', Limits(8 << 30, 10**9, 'a bound', 'fixed'), res)\n"
        "print(len(text) if text is not None else res.fatal)\n"
    )
    run = run_capped(["-c", script, str(path)], cwd=tmp_path, timeout=60, cap=700 << 20)
    assert run.ret == 0 and run.out.strip() == str(len(path.read_text(encoding="utf-8"))), run.err[-2000:]
