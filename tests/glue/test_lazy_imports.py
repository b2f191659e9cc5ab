"""Installed but unused, the plugin costs nothing (issue 13, "A plugin that costs nothing when it is not used").

The ``pytest11`` entry point is loaded by every pytest run of the environment,
also by a team's unrelated test suite: loading it registers options and hooks
and imports none of the heavy libraries; ``--omfc-submission`` imports them.
Each run is a fresh subprocess (this process has them imported already), with
plugin autoload off and the plugin named by ``-p``, so that no other installed
plugin's imports are counted.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest
from helpers.runs import Capped, run_capped

import pytest_omfc

#: What loading the plugin must not import (top-level package names).
HEAVY = ("pandas", "numpy", "PIL", "pydantic", "h5py", "rich", "glymur", "jsonschema", "scipy", "dask")

PACKAGE = Path(pytest_omfc.__file__).resolve().parent
EXAMPLES = PACKAGE.parent / "examples"
IMDL = EXAMPLES / "submissions" / "imdl" / "p-baseline_3_imdl"
IMDL_DATASET = EXAMPLES / "datasets" / "OpenMFC2020"

#: A plugin that writes the modules of the run as it ends (``pytest_unconfigure``: after every item and the terminal
#: summary; a probe test would run before the submission's items and miss what they import).
PROBE = """
import json, os, sys

def pytest_unconfigure(config):
    with open(os.environ["OMFC_MODULES_OUT"], "w") as fh:
        json.dump(sorted(sys.modules), fh)
"""


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PACKAGE.parent), os.environ.get("PYTHONPATH", "")) if p)
    return env | extra


def _heavy(modules: list[str]) -> list[str]:
    return sorted({m.split(".")[0] for m in modules} & set(HEAVY))


def _probe_run(tmp_path: Path, *args: str) -> tuple[Capped, list[str]]:
    (tmp_path / "omfc_probe.py").write_text(PROBE, encoding="utf-8")
    (tmp_path / "test_one.py").write_text("def test_one():\n    pass\n", encoding="utf-8")
    out = tmp_path / "modules.json"
    res = run_capped(
        [
            "-m",
            "pytest",
            "-p",
            "pytest_omfc.plugin",
            "-p",
            "omfc_probe",
            "-p",
            "no:cacheprovider",
            "test_one.py",
            *args,
        ],
        cwd=tmp_path,
        env=_env(OMFC_MODULES_OUT=str(out)),
        timeout=120,
    )
    assert res.ret == 0, res.out[-2000:] + res.err[-2000:]
    return res, json.loads(out.read_text(encoding="utf-8"))


def test_a_run_without_a_submission_imports_nothing_heavy(tmp_path: Path) -> None:
    _, modules = _probe_run(tmp_path)
    assert "pytest_omfc.pytest_glue.hooks" in modules  # the plugin was loaded
    assert "pytest_omfc.scoring.families" in modules  # and its scorer options declared
    assert "pytest_omfc.report.views" in modules  # and the views that print the header lines
    assert _heavy(modules) == []
    assert not [
        m for m in modules if m.startswith(("pytest_omfc.rules", "pytest_omfc.submission", "pytest_omfc.models"))
    ]


def test_with_a_submission_the_bundled_example_is_still_checked_and_scored(tmp_path: Path) -> None:
    res, modules = _probe_run(
        tmp_path,
        "--omfc-submission",
        str(IMDL),
        "--omfc-dataset",
        str(IMDL_DATASET),
        "--omfc-task",
        "IMDL",
        "--omfc-reference",
        "reference/IMDL/OpenMFC20_Image-IMDL-ref.csv",
        "--omfc-jobs",
        "1",
    )
    assert {"numpy", "pandas"} <= set(_heavy(modules))  # the scorers read their tables as frames
    assert "pydantic" not in _heavy(modules)  # the rules read models/columns.py, not the models (schemas/ only)
    assert "omfc mask scores" in res.out and "omfc detection scores" in res.out
    assert re.search(r"\b\d+ passed\b", res.out) and " failed" not in res.out


def test_a_video_check_imports_no_pydantic(tmp_path: Path) -> None:
    """The rules read the column table (models/columns.py), the identifier grammars, the interval lists and the
    description with plain code: pydantic and the models are for ``schemas/`` (and provenance's JSON)."""
    vmd = EXAMPLES / "submissions" / "vmd" / "p-baseline_3_vmd"
    index = EXAMPLES / "datasets" / "OpenMFC2020" / "indexes" / "OpenMFC20_Video-VMD-index.csv"
    res, modules = _probe_run(tmp_path, "--omfc-submission", str(vmd), "--omfc-index", str(index))
    assert "pytest_omfc.rules.vseg" in modules and "pytest_omfc.models.columns" in modules
    assert "pydantic" not in _heavy(modules) and "pytest_omfc.models.tabular" not in modules
    assert re.search(r"\b\d+ passed\b", res.out) and " failed" not in res.out


def test_help_lists_every_option_and_imports_nothing_heavy(tmp_path: Path) -> None:
    from pytest_omfc.scoring.families import every_option

    res = run_capped(
        ["-X", "importtime", "-m", "pytest", "-p", "pytest_omfc.plugin", "-s", "--help"],  # -s: see every import
        cwd=tmp_path,
        env=_env(),
        timeout=120,
    )
    assert res.ret == 0, res.err[-2000:]
    flags = [o.flag for o in every_option()]
    assert "--omfc-kernel" in flags and "--omfc-far-stop" in flags
    assert [f for f in flags if f not in res.out] == []
    imported = re.findall(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)", res.err, re.MULTILINE)
    # the plugin's own line may be missing (pytest imports an installed pytest11 plugin through its
    # assertion-rewriting loader, which -X importtime does not always report); its hooks module is not
    assert "pytest_omfc.pytest_glue.hooks" in imported
    assert _heavy(imported) == []


def test_every_module_read_at_load_time_is_light(tmp_path: Path) -> None:
    """The entry point, every family's package, options and adapter (a new family is checked too), the views
    and cli."""
    modules = ["pytest_omfc.plugin", "pytest_omfc.cli", "pytest_omfc.pytest_glue.progress", "pytest_omfc.report.views"]
    families = sorted(p.parent.name for p in (PACKAGE / "scoring").glob("*/adapter.py"))
    assert {"detection", "mask", "provenance", "temporal", "forgerynet"} <= set(families)
    modules += [f"pytest_omfc.scoring.{f}.{m}" for f in families for m in ("options", "adapter")]
    modules += ["pytest_omfc.scoring", "pytest_omfc.report", "pytest_omfc.scoring.families"]
    code = (
        f"import sys\nfor m in {modules!r}: __import__(m)\n"
        f"print(sorted({{k.split('.')[0] for k in sys.modules}} & set({HEAVY!r})))"
    )
    res = run_capped(["-c", code], cwd=tmp_path, env=_env(), timeout=120)
    assert res.ret == 0, res.err[-2000:]
    assert res.out.strip() == "[]", (
        f"imported at plugin load: {res.out.strip()} (see CONTRIBUTING.md, Keeping the plugin light)"
    )


def test_lazy_names_resolve_to_the_real_objects() -> None:
    from pytest_omfc import plugin, report, scoring
    from pytest_omfc.report import page
    from pytest_omfc.scoring import mask
    from pytest_omfc.scoring.detection import engine as detection
    from pytest_omfc.scoring.mask import run

    assert scoring.score_detection is detection.score_detection
    assert mask.score_masks is run.score_masks and report.render_page is page.render_page
    for module in (scoring, mask, report):
        with pytest.raises(AttributeError, match="no attribute 'nothing'"):
            module.nothing  # noqa: B018
    # the entry point is the hooks and the fixture: nothing else to import from it
    assert sorted(n for n in plugin.__all__ if not n.startswith("pytest_")) == ["HEAVY_MODULES", "omfc", "preload"]


def test_provenance_node_type_choices_cover_the_engine_types() -> None:
    """Not a module-level assert of the provenance options, which would import the engine at plugin load."""
    from pytest_omfc.scoring.provenance import NODE_TYPES
    from pytest_omfc.scoring.provenance.adapter import filter_metrics
    from pytest_omfc.scoring.provenance.options import NODE_TYPE_CHOICES

    assert set(NODE_TYPES) <= set(NODE_TYPE_CHOICES)
    assert filter_metrics() == ("NodeRecallAt50", "NodeRecallAt100", "NodeRecallAt200", "NodeRecallAt300")


def test_the_test_process_sees_what_it_imports() -> None:
    """Sanity of the probe's premise: this process (conftest preloads) has them, so only a fresh one can tell."""
    assert "pandas" in sys.modules


def test_declared_metric_names_match_the_engines() -> None:
    """The gates' metric names are written out in the light scorer modules; they must be the engines' own."""
    from pytest_omfc.scoring.detection.adapter import DETECTION, DETECTION_METRICS
    from pytest_omfc.scoring.detection.engine import METRIC_COLUMNS
    from pytest_omfc.scoring.provenance.adapter import FILTER_METRICS, filter_metrics

    assert DETECTION_METRICS == METRIC_COLUMNS
    assert DETECTION.metrics == METRIC_COLUMNS
    assert FILTER_METRICS == filter_metrics()


def test_a_check_without_masks_imports_neither_pillow_nor_the_mask_scorer_nor_pandas(tmp_path: Path) -> None:
    """Start-up of a small check (issues 20 and 37): a video detection submission has no mask to read or draw,
    so the whole run (collection, items, terminal summary) imports neither Pillow nor the mask scorer; and the
    rules read the system output and the index as numpy columns (``csvio.Table``), so it imports no pandas,
    whose import alone took longer than MediScore's validator takes to start."""
    vmd = EXAMPLES / "submissions" / "vmd" / "p-baseline_3_vmd"
    index = EXAMPLES / "datasets" / "OpenMFC2020" / "indexes" / "OpenMFC20_Video-VMD-index.csv"
    res = run_capped(
        # -s: without it pytest captures fd 2 while the items run, and the imports they make would not be seen
        ["-X", "importtime", "-m", "pytest", "-p", "pytest_omfc.plugin", "-p", "no:cacheprovider", "-s"]
        + ["--omfc-submission", str(vmd), "--omfc-index", str(index)],
        cwd=tmp_path,
        env=_env(),
        timeout=120,
    )
    assert res.ret == 0, res.out[-2000:] + res.err[-2000:]
    imported = re.findall(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)", res.err, re.MULTILINE)
    assert "pytest_omfc.rules.vseg" in imported and "pytest_omfc.csvio" in imported  # the check ran
    assert [m for m in imported if m.split(".")[0] in ("pandas", "dateutil", "pytz")] == []
    readers = ("pytest_omfc.scoring.mask.engine", "pytest_omfc.scoring.mask.io", "pytest_omfc.report.masks")
    assert [m for m in imported if m.split(".")[0] == "PIL" or m.startswith(readers)] == []


def test_an_image_check_with_masks_imports_no_pandas(tmp_path: Path) -> None:
    """The bundled image example, every MASK rule included (its masks are read, inflated and judged), runs on numpy
    columns: the mask facts are ``arrays.Rows``, not a DataFrame, so only a scorer imports pandas (issue 37)."""
    res = run_capped(
        ["-X", "importtime", "-m", "pytest", "-p", "pytest_omfc.plugin", "-p", "no:cacheprovider", "-v", "-s"]
        + ["--omfc-submission", str(IMDL), "--omfc-dataset", str(IMDL_DATASET), "--omfc-task", "IMDL"],
        cwd=tmp_path,
        env=_env(),
        timeout=120,
    )
    assert res.ret == 0, res.out[-2000:] + res.err[-2000:]
    assert re.search(r"::MASK-04\[1/\d+\] PASSED", res.out) and "::MASK-08[1/" in res.out  # the masks were read
    imported = re.findall(r"^import time:\s+\d+ \|\s+\d+ \|\s*(\S+)", res.err, re.MULTILINE)
    assert "pytest_omfc.rules.mask" in imported
    assert [m for m in imported if m.split(".")[0] in ("pandas", "dateutil", "pytz")] == []


def test_the_pools_forkserver_preloads_no_table_library(tmp_path: Path) -> None:
    """The forkserver imports :data:`pytest_omfc.work.pool.PRELOAD` before the first worker of every pool (MASK-04's
    inflating, a mask scoring run): the readers and one mask side's scoring, not pandas or pydantic, which
    only the main process's tables and rules need (benchmarks/plugin_overhead.py times both preloads)."""
    from pytest_omfc.work.pool import PRELOAD

    assert "pytest_omfc.scoring.mask.job" in PRELOAD  # the unit of work of mask scoring
    code = f"import sys\nfor m in {PRELOAD!r}: __import__(m)\nprint(sorted({{k.split('.')[0] for k in sys.modules}}))"
    res = run_capped(["-c", code], cwd=tmp_path, env=_env(), timeout=120)
    assert res.ret == 0, res.err[-2000:]
    loaded = set(json.loads(res.out.strip().replace("'", '"')))
    assert {"numpy", "PIL", "zlib_ng"} <= loaded
    assert not loaded & {"pandas", "pydantic", "h5py", "glymur", "jsonschema", "dask"}


def test_a_provenance_pool_worker_imports_no_table_library(tmp_path: Path) -> None:
    """The PROV rules' unit of work (``provfacts.read_many``, pickled by reference) is all a pool worker of a
    large provenance check imports: the JSON reader (the schema, pydantic and jsonschema, with the first file
    validated), not pandas, numpy or the rules (benchmarks/score_provenance.py --only-whole measures the tree)."""
    from pytest_omfc import provfacts
    from pytest_omfc.rules import prov

    assert prov.read_many is provfacts.read_many
    code = "import json, sys, pytest_omfc.provfacts\nprint(json.dumps(sorted(sys.modules)))"
    res = run_capped(["-c", code], cwd=tmp_path, env=_env(), timeout=120)
    assert res.ret == 0, res.err[-2000:]
    modules = json.loads(res.out.strip())
    loaded = {m.split(".")[0] for m in modules}
    assert not loaded & {"pandas", "numpy", "PIL", "h5py", "glymur", "dask", "pydantic", "jsonschema"}
    assert not [m for m in modules if m.startswith(("pytest_omfc.rules", "pytest_omfc.submission"))]


AS_WHEEL = """
import json, os, sys

for finder in sys.meta_path:  # what pytest does for a plugin installed from a wheel: mark its whole package
    if hasattr(finder, "mark_rewrite"):
        finder.mark_rewrite("pytest_omfc")


def pytest_unconfigure(config):
    rewritten = sorted(
        name for name, mod in list(sys.modules.items())
        if name.split(".")[0] == "pytest_omfc"
        and type(getattr(mod, "__loader__", None)).__name__ == "AssertionRewritingHook"
    )
    imported = sorted(name for name in sys.modules if name.split(".")[0] == "pytest_omfc")
    with open(os.environ["OMFC_MODULES_OUT"], "w") as fh:
        json.dump({"rewritten": rewritten, "imported": imported}, fh)
"""


def test_a_check_rewrites_only_the_modules_imported_before_the_plugin(tmp_path: Path) -> None:
    """pytest marks an installed plugin's whole package for assertion rewriting: every module it imports is then
    parsed and compiled from source on each run where pytest may not write byte code (PYTHONDONTWRITEBYTECODE,
    the first run of a fresh CI environment).  The plugin takes its package off that list as it loads (compat.py,
    ``leave_unrewritten``): only what was imported before that (the package's ``__init__`` and what it imports,
    the entry point, the compat module) is rewritten, not the dozens of modules a check imports."""
    (tmp_path / "omfc_as_wheel.py").write_text(AS_WHEEL, encoding="utf-8")
    out = tmp_path / "modules.json"
    index = IMDL_DATASET / "indexes" / "OpenMFC20_Image-IMDL-index.csv"
    res = run_capped(
        ["-m", "pytest", "-p", "omfc_as_wheel", "-p", "pytest_omfc.plugin", "-p", "no:cacheprovider", "-q"]
        + ["--omfc-submission", str(IMDL), "--omfc-index", str(index)],
        cwd=tmp_path,
        env=_env(OMFC_MODULES_OUT=str(out), PYTHONDONTWRITEBYTECODE="1"),
        timeout=120,
    )
    assert res.ret == 0, res.out[-2000:] + res.err[-2000:]
    seen = json.loads(out.read_text(encoding="utf-8"))
    assert "pytest_omfc.plugin" in seen["rewritten"], "the marking module did not take effect: the test shows nothing"
    assert len(seen["imported"]) > 40 and "pytest_omfc.rules.mask" in seen["imported"]
    before_the_plugin = {"pytest_omfc", "pytest_omfc._version", "pytest_omfc.editions", "pytest_omfc.findings"}
    before_the_plugin.add("pytest_omfc.registry")
    assert set(seen["rewritten"]) <= before_the_plugin | {
        "pytest_omfc.plugin",
        "pytest_omfc.pytest_glue",
        "pytest_omfc.pytest_glue.compat",
    }
