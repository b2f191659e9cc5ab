"""Hostile submissions: time and peak memory of the plugin on inputs built to hurt it.

Each case starts from a tiny valid submission (OpenMFC2020 IMDL like ``examples/``, or an
MFC2019 camera one for CAM-02) and adds one hostile input, generated here in a temp dir:

=============  ==========================================================================
bomb           a 67-byte interlaced grey PNG mask whose IHDR declares 1 x 2147483647 pixels
symlinks       one ~1 MB all-black 50000x20000 PNG named by 21 rows through symlinks
csv-sparse     a valid system output followed by a 12 GiB sparse tail of NUL bytes
csv-junk       2,000,000 one-field junk records after a valid system output
csv-blank      2 MB of blank lines after a valid system output
desc-160k-cam  a 160 KB one-line system description, MFC2019 camera (CAM-02's regex)
desc-1m-cam    the same at 1 MB
desc-160k-imdl the 160 KB description on the IMDL submission (DESC rules only)
desc-1m-imdl   the same at 1 MB
=============  ==========================================================================

Every case runs ``python -m pytest --omfc-submission ... --omfc-index ...`` in its own
subprocess, one at a time, under an address-space cap (RLIMIT_AS, ``--cap-gb``, default 4)
and a timeout (``--timeout``, default 120 s), and the table gives the exit code, the wall
time, the peak RSS of that process (``os.wait4``'s rusage, so one case never hides
another's), whether the cap or the timeout stopped it, whether a traceback, INTERNALERROR or
"please report this as a pytest-omfc bug" was printed, and whether anything in the
submission changed.  Prints; asserts nothing.

Run: ``python benchmarks/hostile.py [--only bomb,csv-junk] [--quick] [--cap-gb 4] [--timeout 120]``
(``--quick`` shrinks every size about tenfold; ``--json FILE`` also writes the rows).
Sparse files cost no disk; the symlinks case writes ~1 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

GiB = 1 << 30

# ------------------------------------------------------------------ PNG by hand


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def _ihdr(width: int, height: int, colour: int = 0, interlace: int = 0) -> bytes:
    return _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, colour, 0, 0, interlace))


def grey_png(rows: list[bytes], width: int) -> bytes:
    """An 8-bit grey PNG of the given pixel rows (filter 0), zlib-compressed."""
    raw = b"".join(b"\x00" + r for r in rows)
    return (
        b"\x89PNG\r\n\x1a\n" + _ihdr(width, len(rows)) + _chunk(b"IDAT", zlib.compress(raw, 9)) + _chunk(b"IEND", b"")
    )


def tiny_zeros_zlib() -> bytes:
    """A 10-byte zlib stream inflating to 259 zero bytes: one fixed-Huffman block with the
    literal 0, one <length 258, distance 1> match and the end-of-block code."""
    bits: list[int] = []

    def put(value: int, n: int, msb_first: bool) -> None:
        order = range(n - 1, -1, -1) if msb_first else range(n)
        bits.extend((value >> i) & 1 for i in order)

    put(1, 1, False)  # BFINAL
    put(1, 2, False)  # BTYPE = 01, fixed Huffman
    put(0b00110000, 8, True)  # literal 0
    put(0b11000101, 8, True)  # length code 285 = 258
    put(0, 5, True)  # distance code 0 = 1
    put(0, 7, True)  # end of block (256)
    bits.extend([0] * (-len(bits) % 8))
    deflate = bytes(sum(b << i for i, b in enumerate(bits[k : k + 8])) for k in range(0, len(bits), 8))
    out = b"\x78\x01" + deflate + struct.pack(">I", zlib.adler32(b"\x00" * 259))
    assert zlib.decompress(out) == b"\x00" * 259
    return out


def bomb_png() -> bytes:
    """The 67-byte header bomb: interlaced grey, 1 x 2147483647 pixels, a 10-byte IDAT."""
    data = (
        b"\x89PNG\r\n\x1a\n"
        + _ihdr(1, 2**31 - 1, interlace=1)
        + _chunk(b"IDAT", tiny_zeros_zlib())
        + _chunk(b"IEND", b"")
    )
    assert len(data) == 67
    return data


def black_png(path: Path, width: int, height: int) -> None:
    """An all-black grey PNG written row by row (a 50000x20000 one is ~1 MB; never 1 GB in memory)."""
    comp = zlib.compressobj(9)
    row = b"\x00" * (width + 1)
    with path.open("wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + _ihdr(width, height))
        parts = [comp.compress(row) for _ in range(height)]
        parts.append(comp.flush())
        f.write(_chunk(b"IDAT", b"".join(parts)))
        f.write(_chunk(b"IEND", b""))


# ------------------------------------------------------------------ base submissions

IMDL_INDEX = "OpenMFC20_Image-IMDL-index.csv"
CAM_INDEX = "MFC2019-cameraverification-index.csv"
W, H = 64, 48

DESCRIPTION = """\
Section 1 Submission Identifier(s)
{sub_id}

Section 2 System Description
A benchmark system. Train-test condition: training Image, testing Image.

Section 3 OptOut Criteria
None; NonProcessed trials are probes the system could not decode.

Section 4 System Hardware Description and Runtime Computation
1 CPU core, 2 seconds.

Section 5 Training Data and Knowledge Sources
None.

Section 6 References
None.
"""


def _psv(rows: Sequence[Sequence[object]]) -> str:
    return "".join("|".join(str(v) for v in r) + "\n" for r in rows)


def _mask(width: int = W, height: int = H) -> bytes:
    rows = [bytes([0 if 8 <= x < 24 and 8 <= y < 20 else 255 for x in range(width)]) for y in range(height)]
    return grey_png(rows, width)


@dataclass
class Built:
    """A case on disk: its submission directory and index."""

    submission: Path
    index: Path


def imdl(
    root: Path,
    n: int = 4,
    size: tuple[int, int] = (W, H),
    mask_names: dict[int, str] | None = None,
    sub_id: str = "p-hostile_1",
) -> Built:
    """An OpenMFC2020 IMDL submission with ``n`` probes; masks for the odd-numbered ones by default."""
    ids = [f"OpenMFC2020_{101 + i:04d}" for i in range(n)]
    index = root / "dataset" / "indexes" / IMDL_INDEX
    index.parent.mkdir(parents=True)
    index.write_text(
        _psv(
            [["TaskID", "ProbeFileID", "ProbeFileName", "ProbeWidth", "ProbeHeight"]]
            + [["Image Manipulation", p, f"probe/{p}.jpg", size[0], size[1]] for p in ids]
        )
    )
    sub = root / sub_id
    (sub / "mask").mkdir(parents=True)
    names = mask_names if mask_names is not None else {i: f"mask/{ids[i]}-mask.png" for i in range(0, n, 2)}
    rows: list[list[object]] = [
        ["ProbeFileID", "ConfidenceScore", "OutputProbeMaskFileName", "ProbeStatus", "ProbeOptOutPixelValue"]
    ]
    for i, p in enumerate(ids):
        rows.append([p, f"{(i % 10) / 10:.1f}", names.get(i, ""), "Processed", ""])
    (sub / f"{sub_id}.csv").write_text(_psv(rows))
    if mask_names is None:
        for name in names.values():
            (sub / name).write_bytes(_mask())
    (sub / f"{sub_id}.txt").write_text(DESCRIPTION.format(sub_id=sub_id))
    return Built(sub, index)


def camera(root: Path, sub_id: str = "p-hostile_1") -> Built:
    """An MFC2019 camera-verification submission with three probes (CAM-02 runs on it)."""
    index = root / "dataset" / "indexes" / CAM_INDEX
    index.parent.mkdir(parents=True)
    cams = ["CAM-A_primary_image", "CAM-A_primary_image", "CAM-B_primary_video"]
    index.write_text(
        _psv(
            [["TaskID", "ProbeFileID", "ProbeFileName", "ProbeWidth", "ProbeHeight", "TrainCamID"]]
            + [["camera", f"T{i}", f"probe/T{i}.jpg", W, H, c] for i, c in enumerate(cams)]
        )
    )
    sub = root / sub_id
    sub.mkdir(parents=True)
    rows: list[list[object]] = [
        [
            "ProbeFileID",
            "TrainCamID",
            "OutputProbeMaskFileName",
            "ConfidenceScore",
            "ProbeStatus",
            "ProbeOptOutPixelValue",
        ]
    ]
    rows += [[f"T{i}", c, "", "0.5", "Processed", ""] for i, c in enumerate(cams)]
    (sub / f"{sub_id}.csv").write_text(_psv(rows))
    (sub / f"{sub_id}.txt").write_text(DESCRIPTION.format(sub_id=sub_id))
    return Built(sub, index)


# ------------------------------------------------------------------ the hostile cases


def case_bomb(root: Path, quick: bool) -> Built:
    b = imdl(root)
    (b.submission / "mask" / "OpenMFC2020_0101-mask.png").write_bytes(bomb_png())
    return b


def case_symlinks(root: Path, quick: bool) -> Built:
    width, height = (10000, 4000) if quick else (50000, 20000)
    n = 21
    b = imdl(root, n=n, size=(width, height), mask_names={i: f"mask/link{i:02d}.png" for i in range(n)})
    black_png(b.submission / "black.png", width, height)
    for i in range(n):
        os.symlink("../black.png", b.submission / "mask" / f"link{i:02d}.png")
    return b


def _csv(b: Built) -> Path:
    return b.submission / f"{b.submission.name}.csv"


def case_csv_sparse(root: Path, quick: bool) -> Built:
    b = imdl(root)
    os.truncate(_csv(b), (1 if quick else 12) * GiB)
    return b


def case_csv_junk(root: Path, quick: bool) -> Built:
    b = imdl(root)
    with _csv(b).open("a") as f:
        f.write("junk\n" * (200_000 if quick else 2_000_000))
    return b


def case_csv_blank(root: Path, quick: bool) -> Built:
    b = imdl(root)
    with _csv(b).open("a") as f:
        f.write("\n" * (200_000 if quick else 2_000_000))
    return b


def long_description(sub_id: str, size: int) -> str:
    """One line of ``size`` characters: the SubID, then "condition " over and over (no '.'), which
    makes a lazy ``condition[^.\\n]*?...`` pattern scan to the end of the line from every word."""
    head = f"{sub_id} "
    unit = "condition "
    return (head + unit * ((size - len(head)) // len(unit) + 1))[:size]


def _desc_case(builder: Callable[[Path], Built], size: int) -> Callable[[Path, bool], Built]:
    def build(root: Path, quick: bool) -> Built:
        b = builder(root)
        (b.submission / f"{b.submission.name}.txt").write_text(
            long_description(b.submission.name, size // (10 if quick else 1))
        )
        return b

    return build


CASES: dict[str, Callable[[Path, bool], Built]] = {
    "bomb": case_bomb,
    "symlinks": case_symlinks,
    "csv-sparse": case_csv_sparse,
    "csv-junk": case_csv_junk,
    "csv-blank": case_csv_blank,
    "desc-160k-cam": _desc_case(camera, 160_000),
    "desc-1m-cam": _desc_case(camera, 1_000_000),
    "desc-160k-imdl": _desc_case(imdl, 160_000),
    "desc-1m-imdl": _desc_case(imdl, 1_000_000),
}

# ------------------------------------------------------------------ running


@dataclass
class Result:
    case: str
    exit: int | None
    wall_s: float
    peak_rss_mb: float
    stopped: str  # "", "killed: memory cap", "timed out", "killed by signal N"
    crash: bool  # a traceback, INTERNALERROR or "please report this as a pytest-omfc bug" was printed
    wrote: bool  # something in the submission changed
    summary: str


CRASH_MARKS = ("Traceback", "INTERNALERROR", "please report this as a pytest-omfc bug")
MEMORY_WORDS = ("MemoryError", "Unable to allocate", "Cannot allocate memory", "std::bad_alloc", "out of memory")


def snapshot(root: Path) -> dict[str, tuple[int, int]]:
    """Size and mtime of everything under ``root`` (symlinks not followed)."""
    out = {str(root): (0, root.lstat().st_mtime_ns)}
    for p in sorted(root.rglob("*")):
        st = p.lstat()
        out[str(p)] = (st.st_size, st.st_mtime_ns)
    return out


def run_case(name: str, built: Built, cwd: Path, cap_gb: float, timeout: float, runner: str) -> Result:
    """One capped, timed pytest subprocess; peak RSS from its own rusage (``os.wait4``)."""
    module = ["-m", "pytest_omfc"] if runner == "pytest-omfc" else ["-m", "pytest", "-p", "pytest_omfc.plugin"]
    cmd = [
        sys.executable,
        *module,
        f"--omfc-submission={built.submission}",
        f"--omfc-index={built.index}",
        "-p",
        "no:cacheprovider",
        "-q",
        f"--rootdir={cwd}",
    ]
    env = dict(os.environ, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    env.pop("PYTEST_ADDOPTS", None)
    cap = int(cap_gb * GiB)
    # set the cap, then become pytest (no preexec_fn: the timer thread may already exist on a later case)
    launcher = (
        "import os, resource, sys; n = int(sys.argv[1]); resource.setrlimit(resource.RLIMIT_AS, (n, n)); "
        "os.execv(sys.executable, [sys.executable, *sys.argv[2:]])"
    )
    cmd = [sys.executable, "-c", launcher, str(cap), *cmd[1:]]

    before = snapshot(built.submission)
    timed_out = threading.Event()
    with tempfile.TemporaryFile() as out:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )

        def kill() -> None:
            timed_out.set()
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # the session we started: pytest and its workers
            except ProcessLookupError:
                pass

        timer = threading.Timer(timeout, kill)
        timer.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode("utf-8", errors="replace")
    rc = proc.returncode
    stopped = ""
    if timed_out.is_set():
        stopped = "timed out"
    elif any(w in text for w in MEMORY_WORDS):
        stopped = "killed: memory cap"
    elif rc < 0:
        stopped = f"killed by signal {-rc}"
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    summary = lines[-1] if lines else ""
    return Result(
        name,
        None if timed_out.is_set() else rc,
        round(wall, 2),
        round(usage.ru_maxrss / 1024, 1),
        stopped,
        any(m in text for m in CRASH_MARKS),
        snapshot(built.submission) != before,
        summary[:100],
    )


def table(results: list[Result]) -> str:
    head = (
        f"{'case':<15} {'exit':>4} {'wall s':>8} {'peak RSS MB':>12}  {'stopped':<19} {'crash':<5} {'wrote':<5} summary"
    )
    rows = [head, "-" * len(head)]
    for r in results:
        rows.append(
            f"{r.case:<15} {'-' if r.exit is None else r.exit:>4} {r.wall_s:>8.2f} {r.peak_rss_mb:>12.1f}  "
            f"{r.stopped or 'no':<19} {'yes' if r.crash else 'no':<5} {'yes' if r.wrote else 'no':<5} {r.summary}"
        )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help=f"comma-separated cases (default all): {', '.join(CASES)}")
    ap.add_argument("--quick", action="store_true", help="reduced sizes (about a tenth)")
    ap.add_argument("--cap-gb", type=float, default=4.0, help="address-space cap per run, GB (default 4)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per run (default 120)")
    ap.add_argument(
        "--runner",
        choices=("pytest", "pytest-omfc"),
        default="pytest",
        help="'pytest -p pytest_omfc.plugin' (default) or the 'python -m pytest_omfc' entry point",
    )
    ap.add_argument("--json", type=Path, help="also write the rows as JSON here")
    args = ap.parse_args(argv)
    names = [n.strip() for n in args.only.split(",") if n.strip()] or list(CASES)
    unknown = [n for n in names if n not in CASES]
    if unknown:
        ap.error(f"unknown case(s) {', '.join(unknown)}; choose from {', '.join(CASES)}")
    print(
        f"cap {args.cap_gb:g} GB, timeout {args.timeout:g} s, {'quick' if args.quick else 'full'} sizes, "
        f"{args.runner}, {sys.executable}",
        flush=True,
    )
    results = []
    for name in names:  # one at a time: never two bombs at once
        with tempfile.TemporaryDirectory(prefix=f"omfc-hostile-{name}-") as tmp:
            root = Path(tmp)
            built = CASES[name](root / "case", args.quick)
            results.append(run_case(name, built, root, args.cap_gb, args.timeout, args.runner))
        r = results[-1]
        print(f"  {name}: exit {r.exit}, {r.wall_s:.2f} s, {r.peak_rss_mb:.0f} MB {r.stopped}", flush=True)
    print(table(results))
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
