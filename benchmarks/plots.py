"""The hand-drawn ROC/DET plots (pytest_omfc/report/plots.py) against matplotlib (docs/outputs.md, Plots).

Prints, measured in one run: the extra import time of each (in a fresh interpreter, over the detection
engine, which the plugin loads anyway when it scores), the time to draw ROC and DET of 16,000 trials as SVG text (what
the HTML report inlines) and as PNG files, the SVG sizes, and the installed size of matplotlib and
the packages it adds.  Asserts nothing.  Without matplotlib only the plugin's own figures are printed.

Run: ``PYTHONPATH=. python3 benchmarks/plots.py [--trials N] [--repeat R]``
(to compare, in an environment that has matplotlib: ``pip install matplotlib`` in a scratch venv).
"""

from __future__ import annotations

import argparse
import io
import subprocess
import sys
import tempfile
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import numpy as np
from _timing import best  # benchmarks/_timing.py: the scripts run from this folder

from pytest_omfc.report.plots import DET_LIMITS, DET_TICKS, det_svg, probit, roc_svg, write_plots
from pytest_omfc.scoring import score_trials

#: matplotlib and what it installs beyond the plugin's own dependencies (numpy, Pillow, packaging)
MPL_DISTS = ("matplotlib", "contourpy", "cycler", "fonttools", "kiwisolver", "pyparsing", "python-dateutil", "six")


def _best(fn: Callable[[], object], repeat: int) -> float:
    """Best wall time of ``repeat`` runs (least disturbed by other load)."""
    return best(fn, repeat).wall


def _import_time(code: str, repeat: int) -> float:
    """Best wall time of a fresh interpreter running ``code``."""
    return _best(lambda: subprocess.run([sys.executable, "-c", code], check=True, capture_output=True), repeat)


def _installed_mb(names: tuple[str, ...]) -> tuple[float, list[str]]:
    total, found = 0, []
    for name in names:
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        found.append(f"{name} {dist.version}")
        for f in dist.files or ():
            try:
                total += Path(str(dist.locate_file(f))).stat().st_size
            except OSError:
                pass
    return total / 1e6, found


def _mpl_svgs(result, fmt: str = "svg") -> list[bytes]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = []
    for kind in ("roc", "det"):
        fig, ax = plt.subplots(figsize=(8, 6), dpi=100)
        fpr, tpr = result.roc.fpr, result.roc.tpr
        if kind == "roc":
            ax.plot(fpr, tpr)
            ax.plot([0, 1], [0, 1], "--", color="0.6")
        else:
            ax.plot(probit(np.clip(fpr, *DET_LIMITS)), probit(np.clip(1 - tpr, *DET_LIMITS)))
            ticks = probit(np.array(DET_TICKS))
            ax.set_xticks(ticks, [f"{v * 100:g}%" for v in DET_TICKS])
            ax.set_yticks(ticks, [f"{v * 100:g}%" for v in DET_TICKS])
        ax.set_title(kind.upper())
        buf = io.BytesIO()
        fig.savefig(buf, format=fmt)
        plt.close(fig)
        out.append(buf.getvalue())
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=16_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    rng = np.random.default_rng(2024)
    y = rng.random(args.trials) < 0.5
    s = np.round(rng.normal(np.where(y, 0.8, 0.0), 1.0), 4)
    result = score_trials(s, y)
    print(f"{args.trials} trials, {result.roc.fpr.size} ROC points; best of {args.repeat}")

    base = _import_time("import pytest_omfc.scoring.detection.engine", args.repeat)  # the engine the plots draw from
    ours_import = _import_time("import pytest_omfc.report.plots", args.repeat) - base
    ours_svg = _best(lambda: (roc_svg(result), det_svg(result)), args.repeat)
    svg_kb = (len(roc_svg(result)) + len(det_svg(result))) / 1e3
    with tempfile.TemporaryDirectory() as tmp:
        ours_files = _best(lambda: write_plots([result], tmp), args.repeat)
    print(
        f"plugin (plots.py): import +{max(ours_import, 0.0) * 1e3:.0f} ms over the detection engine; "
        f"ROC+DET SVG text {ours_svg * 1e3:.0f} ms, {svg_kb:.0f} KB; PNG+SVG files {ours_files * 1e3:.0f} ms"
    )
    try:
        import matplotlib
    except ImportError:
        print("matplotlib: not installed (nothing to compare)")
        return
    mpl_import = (
        _import_time(
            "import pytest_omfc.scoring.detection.engine, matplotlib; matplotlib.use('Agg'); import matplotlib.pyplot",
            args.repeat,
        )
        - base
    )
    mpl_svg = _best(lambda: _mpl_svgs(result), args.repeat)
    mpl_kb = sum(len(b) for b in _mpl_svgs(result)) / 1e3
    mpl_png = _best(lambda: _mpl_svgs(result, "png"), args.repeat)
    size, found = _installed_mb(MPL_DISTS)
    print(
        f"matplotlib {matplotlib.__version__}: import +{mpl_import * 1e3:.0f} ms over the detection engine; ROC+DET "
        f"SVG {mpl_svg * 1e3:.0f} ms, "
        f"{mpl_kb:.0f} KB (text as glyph paths); PNG {mpl_png * 1e3:.0f} ms"
    )
    print(f"installed size of matplotlib and what it adds: {size:.1f} MB ({', '.join(found)})")
    print(
        f"ratios (matplotlib / plugin): SVG time {mpl_svg / ours_svg:.1f}x, SVG size {mpl_kb / svg_kb:.1f}x, "
        f"PNG time {mpl_png / ours_files:.1f}x (the plugin's figure includes writing the SVG files too)"
    )


if __name__ == "__main__":
    main()
