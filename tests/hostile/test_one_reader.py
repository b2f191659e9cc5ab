"""Rules and scorers read a file the same way and agree on it (issue 17).

Each case below gave two verdicts before: a rule accepted what the scorer refused, or the scorer
scored what a rule refused, or the scorer's own reader hung or held gigabytes where the rules'
header pass did neither.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import textwrap
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from helpers.mask_scoring import NOKERN, REF, SHIFTED, MaskCase, png_bytes, props
from helpers.provenance import ProvCase, _ranked

from pytest_omfc.scoring.mask.io import MaskReadError, read_colour_reference, read_system_mask


def chunk(ctype: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + ctype + data + struct.pack(">I", zlib.crc32(ctype + data))


def with_chunk(png: bytes, ctype: bytes, data: bytes) -> bytes:
    """``png`` with one more chunk right after IHDR (before the image data, where decoders read it)."""
    return png[:33] + chunk(ctype, data) + png[33:]


def bad_idat_crc(png: bytes) -> bytes:
    at = png.index(b"IDAT")
    length = struct.unpack(">I", png[at - 4 : at])[0]
    crc_at = at + 4 + length
    return png[:crc_at] + bytes([png[crc_at] ^ 0xFF]) + png[crc_at + 1 :]


# ---------------------------------------------------------------------------- special files: never opened


def _mask_run_capped(c: MaskCase, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            *c.case.args,
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(c.root),
            "--omfc-reference",
            str(c.reference),
            *NOKERN,
            "-rA",
        ],
        cwd=c.root,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def test_a_fifo_as_system_mask_is_not_scored_and_never_hangs(omfc: Any) -> None:
    c = MaskCase(omfc, {"0001": REF, "0002": SHIFTED})
    fifo = c.case.submission / "mask" / "0002.png"
    fifo.unlink()
    os.mkfifo(fifo)
    proc = _mask_run_capped(c)  # before: score::mask blocked in open() forever
    out = proc.stdout
    assert proc.returncode == 1, out[-3000:]
    assert "score::mask: 1 mask(s) could not be scored (0002: MASK-03: mask/0002.png must name a regular file " in out


def test_a_fifo_as_reference_mask_is_not_scored_and_never_hangs(omfc: Any) -> None:
    c = MaskCase(omfc, {"0001": REF, "0002": SHIFTED})
    fifo = c.root / "dataset" / "reference" / "mask" / "0002.png"
    fifo.unlink()
    os.mkfifo(fifo)
    proc = _mask_run_capped(c)
    assert proc.returncode == 1, proc.stdout[-3000:]
    assert "(0002: reference mask 0002.png: must name a regular file (got a FIFO))" in proc.stdout


def test_a_character_device_is_refused_by_stat_alone(tmp_path: Path) -> None:
    dev = tmp_path / "zero.png"
    try:
        os.mknod(dev, 0o600 | __import__("stat").S_IFCHR, os.makedev(1, 5))  # /dev/zero's numbers
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot make a device node here ({exc})")
    for reader in (read_system_mask, read_colour_reference):
        with pytest.raises(MaskReadError, match=r"must name a regular file \(got a character device\)"):
            reader(dev)


# ---------------------------------------------------------------------------- ancillary chunks: bounded


def test_a_huge_ancillary_chunk_costs_no_memory_in_the_scorer(tmp_path: Path) -> None:
    """A 256 MB tEXt chunk before the image data: Pillow read it whole (twice its size in the issue's
    measurement); the scorer's reader now hands Pillow the critical chunks only.  Measured in a fresh
    process as the peak RSS growth: below 64 MB whatever the chunk's size."""
    path = tmp_path / "big.png"
    base = png_bytes(SHIFTED)
    with path.open("wb") as fh:  # written in pieces: the test itself must not hold 256 MB
        fh.write(base[:33])
        size = 256 << 20
        fh.write(struct.pack(">I", size) + b"tEXt")
        crc = zlib.crc32(b"tEXt")
        piece = b"k\0" + b"x" * ((1 << 20) - 2)
        rest = b"x" * (1 << 20)
        for i in range(256):
            block = piece if i == 0 else rest
            crc = zlib.crc32(block, crc)
            fh.write(block)
        fh.write(struct.pack(">I", crc))
        fh.write(base[33:])
    code = textwrap.dedent(f"""
        import resource
        from pytest_omfc.scoring.mask.io import read_system_mask, read_colour_reference
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        a = read_system_mask({str(path)!r}, (16, 16))
        b = read_colour_reference({str(path)!r}, grey=True)
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        print(int(a.sum()), int(b.sum()), (after - before) // 1024)
    """)
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    ).stdout.split()
    assert int(out[0]) == int(SHIFTED.astype(np.int64).sum()) == int(out[1])
    assert int(out[2]) < 64, f"peak RSS grew by {out[2]} MB reading one 16x16 mask"


def test_a_mask_with_a_10_mb_ztxt_passes_the_rules_and_is_scored(omfc: Any) -> None:
    """Before: every MASK rule passed, then Pillow refused the zTXt (over its 1 MB text limit) and the
    valid submission exited 1.  Now the scorer decodes what the rules checked."""
    big = with_chunk(png_bytes(SHIFTED), b"zTXt", b"comment\0\0" + zlib.compress(b"a" * (10 << 20), 9))
    c = MaskCase(omfc, {"0001": REF, "0002": big})
    res = c.run(*NOKERN)
    assert [r for r in res.failed() if r.startswith("MASK")] == []
    assert res.outcome("mask") == "passed", res.text("mask")
    assert props(res, "mask")["OptimumMCC"] == pytest.approx((1 + 5 / 12) / 2, abs=1e-12)
    assert res.ret == 0


# ---------------------------------------------------------------------------- a file a rule fails is not scored


def test_a_system_mask_mask04_rejects_is_not_scored(omfc: Any) -> None:
    """Bad IDAT CRC: MASK-04 fails it, and the scorer (which scored it before, passing) says MASK-04."""
    c = MaskCase(omfc, {"0001": REF, "0002": bad_idat_crc(png_bytes(SHIFTED))})
    res = c.run(*NOKERN)
    assert res.outcome("MASK-04") == "failed"
    assert res.outcome("mask") == "failed"
    assert res.first_line("mask").startswith(
        "score::mask: 1 mask(s) could not be scored (0002: MASK-04: mask/0002.png must have an intact IDAT chunk"
    )
    assert props(res, "mask")["ScoreableTrials"] == 1


def test_an_rgb_system_mask_mask05_rejects_is_not_scored(omfc: Any) -> None:
    """MASK-05 is an error (MediScore rejects colour masks): the scorer does not convert and score it."""
    rgb = png_bytes(np.repeat(SHIFTED[:, :, None], 3, axis=2))
    c = MaskCase(omfc, {"0001": REF, "0002": rgb})
    res = c.run(*NOKERN)
    assert res.outcome("MASK-05") == "failed"
    assert res.first_line("mask").startswith("score::mask: 1 mask(s) could not be scored (0002: MASK-05: ")


def test_a_reference_mask_with_a_bad_crc_is_reported_not_scored_silently(omfc: Any) -> None:
    c = MaskCase(omfc, {"0001": REF, "0002": SHIFTED})
    (c.root / "dataset" / "reference" / "mask" / "0002.png").write_bytes(bad_idat_crc(png_bytes(REF)))
    res = c.run(*NOKERN)
    assert res.outcome("mask") == "failed"
    assert res.first_line("mask").startswith(
        "score::mask: 1 mask(s) could not be scored (0002: reference mask 0002.png: must have an intact IDAT chunk"
    )


def test_an_overflowing_json_number_is_a_prov02_finding(omfc: Any) -> None:
    """``"nodeConfidenceScore": 1e400``: every PROV rule passed (exit 0 when validating) while the scorer
    refused the file; the shared reader now refuses it for both."""
    doc = _ranked(55)
    text = json.dumps(doc).replace('"nodeConfidenceScore": 1000}', '"nodeConfidenceScore": 1e400}', 1)
    assert "1e400" in text
    c = ProvCase(omfc, "provenancefiltering", text.encode())
    res = c.run()
    assert res.outcome("PROV-02") == "failed"
    assert "must be valid JSON with numbers a double can hold (got 1e400, which overflows)" in res.text("PROV-02")
    assert res.outcome("provenance") == "failed"


def test_a_fifo_as_journal_table_fails_the_item_and_never_hangs(tmp_path: Path) -> None:
    """Scorers' tables (journal, node, world) are read by merge.read_table, which stats before opening."""
    from pytest_omfc.scoring.merge import ScoringError, read_table

    fifo = tmp_path / "x-journalmask.csv"
    os.mkfifo(fifo)
    with pytest.raises(ScoringError, match=r"must be a regular file \(got a FIFO\)"):
        read_table(fifo, "journal mask table")


def test_a_json_off_the_schema_is_not_scored_naming_the_rule(omfc: Any) -> None:
    """PROV-03 (the schema MediScore enforces) fails a filtering JSON whose node lacks ``file``: the scorer
    does not score that trial but names PROV-03, where before it scored what it could read."""
    doc = _ranked(55)
    del doc["nodes"][5]["file"]
    c = ProvCase(omfc, "provenancefiltering", json.dumps(doc).encode())
    res = c.run()
    assert res.outcome("PROV-03") == "failed"
    assert res.outcome("provenance") == "failed"
    assert "PROV-03: p-test_1/jsons/s0.json nodes[5]: " in res.first_line("provenance")
