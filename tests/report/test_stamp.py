"""What produced a report (pytest_omfc.stamp): fingerprints that never open a special file, the command with paths
under the working directory shown relative to it, and a bounded list of inputs."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from pytest_omfc import stamp


def test_a_fingerprint_is_the_size_and_sha256_and_never_opens_a_fifo(tmp_path: Path) -> None:
    data = tmp_path / "sub.csv"
    data.write_bytes(b"ProbeFileID|ConfidenceScore\n" * 100_000)
    got = stamp.fingerprint(data)
    assert got == {
        "path": str(data),
        "bytes": data.stat().st_size,
        "sha256": hashlib.sha256(data.read_bytes()).hexdigest(),
    }
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert stamp.fingerprint(fifo) == {"path": str(fifo), "kind": "special file"}  # would block if opened
    assert stamp.fingerprint(tmp_path) == {"path": str(tmp_path), "kind": "directory"}
    assert "error" in stamp.fingerprint(tmp_path / "absent")
    assert stamp.fingerprint(data, "up.tar:x/x.csv")["path"] == "up.tar:x/x.csv"


def test_the_command_shows_paths_under_the_working_directory_relative(tmp_path: Path) -> None:
    cwd = tmp_path / "runs"
    args = [
        "--omfc-submission",
        str(cwd / "p-x_1"),
        f"--omfc-html={cwd / 'out' / 'r.html'}",
        "--omfc-index",
        "/data/i.csv",
    ]
    assert stamp.command_line(["pytest-omfc", *args], cwd) == (
        "pytest-omfc --omfc-submission p-x_1 --omfc-html=out/r.html --omfc-index /data/i.csv"
    )
    assert stamp.command_line(["pytest", "-k", "a b"], cwd) == "pytest -k 'a b'"


def test_inputs_are_fingerprinted_once_and_at_most_a_bound(tmp_path: Path) -> None:
    files = []
    for i in range(stamp.MAX_FINGERPRINTS + 5):
        f = tmp_path / f"{i}.csv"
        f.write_text(str(i))
        files.append((f, None))
    got = stamp.stamp(version="0", program="pytest", args=[], cwd=tmp_path, options={}, inputs=files + files[:3])
    assert len(got["inputs"]) == stamp.MAX_FINGERPRINTS and got["inputs_total"] == stamp.MAX_FINGERPRINTS + 5
    assert got["time_utc"].endswith("Z") and got["environment"]["python"]
