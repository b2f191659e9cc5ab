"""Builders shared by the tests, from test_hostile_csv.py."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from helpers.runs import PEAK_MB

#: Address space of the child: pandas & co. need ~1 GB of it (BLAS pools kept to one thread); the old reader
#: failed with MemoryError on the sparse tail under this cap (it needs > 12 GiB).
AS_LIMIT = 3 * 1024**3


_ONE_THREAD = {name: "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}


TIMEOUT = 90  # seconds; every case takes a few seconds (mostly imports) when fixed


_CHILD = """\
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({cap}, {cap}))
import pytest
{peak}
rc = pytest.main(sys.argv[1:])
sys.stderr.write("\\nOMFC-PEAK-KB %d\\n" % (peak_mb() * 1024))
sys.exit(rc)
"""


@dataclass
class Capped:
    """What a capped child run printed and reported (JUnit), with its time and peak memory."""

    ret: int
    out: str
    xml: str
    seconds: float
    peak_mb: float

    def junit(self) -> dict[str, tuple[str, str, str]]:
        """Rule ID -> (outcome, JUnit message, body) from the JUnit file."""
        found: dict[str, tuple[str, str, str]] = {}
        for case in ET.fromstring(self.xml).iter("testcase"):
            outcome, message, body = "passed", "", ""
            for tag in ("failure", "skipped", "error"):
                el = case.find(tag)
                if el is not None:
                    outcome, message, body = {"failure": "failed"}.get(tag, tag), el.get("message", ""), el.text or ""
            found[case.get("name", "")] = (outcome, message, body)
        return found

    def warning(self, rule_id: str) -> str:
        """The ``omfc.warning`` property of a rule's testcase ("" when it has none)."""
        for case in ET.fromstring(self.xml).iter("testcase"):
            if case.get("name") == rule_id:
                for prop in case.iter("property"):
                    if prop.get("name") == "omfc.warning":
                        return prop.get("value", "")
        return ""


def run_capped(cwd: Path, *args: str) -> Capped:
    """pytest in a child limited to AS_LIMIT bytes and TIMEOUT seconds (TimeoutExpired fails the test)."""
    xml = cwd / "capped.xml"
    start = time.monotonic()
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            _CHILD.format(cap=AS_LIMIT, peak=PEAK_MB),
            *args,
            "-p",
            "no:cacheprovider",
            f"--junitxml={xml}",
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        errors="replace",
        timeout=TIMEOUT,
        env={**os.environ, **_ONE_THREAD},
    )
    seconds = time.monotonic() - start
    peak = [ln for ln in proc.stderr.splitlines() if ln.startswith("OMFC-PEAK-KB ")]
    assert peak, f"the child did not finish normally:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    text = xml.read_text(encoding="utf-8") if xml.exists() else "<testsuites/>"
    return Capped(proc.returncode, proc.stdout + proc.stderr, text, seconds, int(peak[-1].split()[1]) / 1024)


HEADER = b"ProbeFileID|ConfidenceScore|OutputProbeMaskFileName|ProbeStatus|ProbeOptOutPixelValue\n"
