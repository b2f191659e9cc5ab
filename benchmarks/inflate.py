"""Which inflater for MASK-04: the candidates on the masks of ``validate_scale.py``, one process, same files.

Reads the cached 16,000-probe dataset of ``benchmarks/validate_scale.py`` (run that first), takes every
128th mask (both sizes, both kinds of content), collects each file's IDAT stream in memory and inflates it
with each candidate the way MASK-04 does: streaming, at most 256 KiB of output per call (memory bounded
whatever a stream declares).  libdeflate cannot stream (it needs the whole output buffer at once), so it is
timed whole-buffer, as a bound.  Prints GB/s of inflated data per core and the ratio to the standard
library's zlib; asserts nothing.  Candidates not installed are named and skipped.

Run: ``python benchmarks/inflate.py [--probes N] [--repeat R]``
"""

from __future__ import annotations

import argparse
import importlib
import struct
import time
from collections.abc import Callable
from pathlib import Path

from validate_scale import cache_root

STEP = 1 << 18


def _idat(path: Path) -> bytes:
    data, pos, out = path.read_bytes(), 8, []
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        if kind == b"IDAT":
            out.append(data[pos + 8 : pos + 8 + length])
        pos += 12 + length
    return b"".join(out)


def _streaming(module: str) -> Callable[[bytes], int] | None:
    try:
        lib = importlib.import_module(module)
    except ImportError:
        return None

    def inflate(stream: bytes) -> int:
        d, n, data = lib.decompressobj(), 0, stream
        while True:
            out = d.decompress(data, STEP)
            n += len(out)
            data = d.unconsumed_tail
            if d.eof or (not data and len(out) < STEP):
                return n

    return inflate


def _libdeflate() -> Callable[[bytes], int] | None:
    try:
        import deflate  # type: ignore[import-not-found]
    except ImportError:
        return None
    return lambda stream: len(deflate.zlib_decompress(stream, 1920 * 1081 + 64))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--probes", type=int, default=16_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    mask_dir = cache_root() / f"imdl-{args.probes}-distinct" / "p-bench_1" / "mask"
    if not mask_dir.is_dir():
        raise SystemExit(f"no dataset at {mask_dir}: run python benchmarks/validate_scale.py first")
    streams = [_idat(p) for p in sorted(mask_dir.iterdir())[::128]]
    candidates = {
        "zlib (standard library)": _streaming("zlib"),
        "zlib-ng (zlib_ng.zlib_ng, shipped)": _streaming("zlib_ng.zlib_ng"),
        "isal (isal.isal_zlib)": _streaming("isal.isal_zlib"),
        "libdeflate (deflate, whole buffer: no streaming)": _libdeflate(),
    }
    print(f"{len(streams)} masks from {mask_dir}, {sum(map(len, streams)) / 1e6:.1f} MB of IDAT; best of {args.repeat}")
    base = None
    for name, fn in candidates.items():
        if fn is None:
            print(f"  {name:<50} not installed")
            continue
        best, total = float("inf"), 0
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            total = sum(fn(s) for s in streams)
            best = min(best, time.perf_counter() - t0)
        base = base or best
        print(f"  {name:<50} {total / best / 1e9:6.2f} GB/s   {base / best:5.1f}x the standard library")


if __name__ == "__main__":
    main()
