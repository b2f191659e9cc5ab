"""Checking the uploaded archive against checking the unpacked folder, on the same submission, in one run.

The submission is ``validate_scale.py``'s (an OpenMFC IMDL index and ``p-bench_1/`` with N probes and
their PNG masks, one file per mask as a real upload has; ``--hard-links`` links them), packed as the OpenMFC plan
says (``tar cvf p-bench_1.tar p-bench_1``) and as a gzip-compressed ``.tgz``.  Each is checked by
``pytest --omfc-submission ...`` in a subprocess; the script prints the wall time and the CPU time of the
whole process tree (``benchmarks/_tree.py``; the best of ``--repeat`` runs) and the ratio of each archive
against the folder.  The
archive's cost is reading it once, member by member: the PNG masks under ``mask/`` are read in place
(offsets into the plain tar; the compressed tar's decompressed once into one spool file) and only the
other members become files in the private directory.  For reference it then prints the time of unpacking
as the check does, of unpacking every member into a file of its own, and of creating as many empty files
on this disk.  Prints; asserts nothing (target: an archive costs at most 1.3 times its folder).

Run: ``python benchmarks/validate_archive.py [--probes N] [--hard-links] [--repeat R] [--packer python|gnu]``
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tarfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the scripts run from this folder
from validate_scale import SUB_ID, best_run, cache_root, generate  # noqa: E402

from pytest_omfc.archive import UNPACKED, private_dir, remove, unpack  # noqa: E402


def pack(sub: Path, mode: str, name: str, packer: str) -> Path:
    """``tar cvf name SUB_ID`` beside the submission (made once): by GNU tar, as the plans write the command
    (``--packer gnu``; ``czf`` for the tgz), or by Python's tarfile (pax headers for every member)."""
    out = sub.parent / (name if packer == "python" else f"gnu-{name}")
    if not out.is_file():
        tmp = out.with_suffix(".partial")
        if packer == "gnu":
            flags = "-czf" if mode.endswith("gz") else "-cf"
            subprocess.run(["tar", flags, str(tmp), "-C", str(sub.parent), SUB_ID], check=True)
        else:
            with tarfile.open(tmp, mode) as tf:
                tf.add(sub, arcname=SUB_ID)
        tmp.rename(out)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--probes", type=int, default=16_000)
    ap.add_argument("--hard-links", action="store_true", help="masks hard-linked to two files: not a real upload")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each form; the best is kept")
    ap.add_argument("--packer", choices=("python", "gnu"), default="python", help="who packs the archives")
    args = ap.parse_args()
    index, sub = generate(args.probes, cache_root(), not args.hard_links)
    forms = {
        "folder": sub,
        "tar": pack(sub, "w", f"{SUB_ID}.tar", args.packer),
        "tgz": pack(sub, "w:gz", f"{SUB_ID}.tgz", args.packer),
    }
    print(
        f"OpenMFC IMDL, {args.probes} probes ({'HARD-LINKED masks' if args.hard_links else 'distinct masks'}), "
        f"packed by {'GNU tar' if args.packer == 'gnu' else 'Python tarfile'}"
    )
    print(f"{'form':<8}{'size MB':>9}{'wall s':>9}{'CPU s':>8}{'wall ratio':>12}{'peak PSS MB':>13}  result")
    base = None
    for name, path in forms.items():
        size = sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() else path.stat().st_size
        run, line = best_run(index, path, args.repeat, None, [])
        wall, cpu = run.wall, run.cpu
        base = wall if base is None else base
        pss = run.peak_pss_mb
        print(f"{name:<8}{size / 2**20:>9.1f}{wall:>9.2f}{cpu:>8.2f}{wall / base:>11.2f}x{pss:>13.0f}  {line}")
        if name != "folder" and Path("/dev/shm").is_dir():  # the private directory on a tmpfs (TMPDIR)
            saved = os.environ.get("TMPDIR")
            os.environ["TMPDIR"] = "/dev/shm"
            try:
                run, line = best_run(index, path, args.repeat, None, [])
            finally:
                if saved is None:
                    del os.environ["TMPDIR"]
                else:
                    os.environ["TMPDIR"] = saved
            label = f"{name}+shm"
            print(
                f"{label:<8}{size / 2**20:>9.1f}{run.wall:>9.2f}{run.cpu:>8.2f}{run.wall / base:>11.2f}x"
                f"{run.peak_pss_mb:>13.0f}  {line}"
            )
    print("target: an archive costs at most 1.3x its folder; CPU of every process of the tree; +shm: TMPDIR=/dev/shm")
    for name in ("tar", "tgz"):  # where the difference goes: unpacking as the check does, and every member a file
        folder = private_dir()
        t0 = time.perf_counter()
        report = unpack(forms[name], folder / UNPACKED)  # PNG masks read in place
        wall = time.perf_counter() - t0
        dest = private_dir()
        t0 = time.perf_counter()
        unpack(forms[name], dest, in_place=False)  # every member a file of its own
        every = time.perf_counter() - t0
        files = [p for p in dest.rglob("*") if p.is_file()]
        probe = private_dir()
        t0 = time.perf_counter()
        for k in range(len(files)):
            os.close(os.open(probe / str(k), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
        create = time.perf_counter() - t0
        for done in (folder, dest, probe):
            remove(done)
        print(
            f"unpacking the {name} as the check does: {wall:.2f} s for {report.members} members (masks read in "
            f"place); every member as a file: {every:.2f} s; creating {len(files)} empty files in one folder "
            f"here: {create:.2f} s ({1000 * create / max(len(files), 1):.2f} ms a file)"
        )


if __name__ == "__main__":
    main()
