"""The package's layering: no import circles, engines and rules free of pytest (issue 10, "Architecture first").

The import graph is read from the source (every ``import`` statement, also the
ones inside functions, which is where circles used to hide: plugin.py and
registry.py and submission.py, the detection engine and its bootstrap).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import pytest_omfc

PACKAGE = Path(pytest_omfc.__file__).resolve().parent


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in PACKAGE.rglob("*.py")}


def import_graph() -> dict[str, set[str]]:
    """module -> the package modules it imports (a ``from X import name`` names X.name when that is a module)."""
    mods = _modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        is_pkg = path.name == "__init__.py"
        base = mod.split(".") if is_pkg else mod.split(".")[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    anchor = base[: len(base) - (node.level - 1)]
                    src = ".".join(anchor + ([node.module] if node.module else []))
                else:
                    src = node.module or ""
                targets = [f"{src}.{a.name}" if f"{src}.{a.name}" in mods else src for a in node.names]
            graph[mod] |= {t for t in targets if t in mods and t != mod}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle, as the list of modules around it, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                return stack[stack.index(n) :] + [n]
            if n not in state and (found := visit(n)):
                return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (found := visit(m)):
            return found
    return None


def test_the_walker_sees_a_circle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_graph_sees_function_level_imports() -> None:
    graph = import_graph()
    assert "pytest_omfc.scoring.detection.bootstrap" in graph["pytest_omfc.scoring.detection.engine"]
    assert "pytest_omfc.pytest_glue.hooks" in graph["pytest_omfc.plugin"]


def test_no_import_circles() -> None:
    assert find_cycle(import_graph()) is None


@pytest.mark.parametrize(
    ("modules", "layer"),
    [
        (
            [
                "pytest_omfc.scoring",
                "pytest_omfc.scoring.families",
                "pytest_omfc.scoring.registry",
                "pytest_omfc.scoring.mask.run",
                "pytest_omfc.scoring.detection.engine",
                "pytest_omfc.scoring.provenance.run",
                "pytest_omfc.scoring.temporal.engine",
            ],
            "scoring",
        ),
        (["pytest_omfc.inputs", "pytest_omfc.api"], "inputs"),
        (
            [
                "pytest_omfc.rules",
                "pytest_omfc.submission",
                "pytest_omfc.registry",
                "pytest_omfc.forgerynet.submission",
            ],
            "rules",
        ),
        (["pytest_omfc.report.views", "pytest_omfc.report.page", "pytest_omfc.report.plots"], "report"),
    ],
)
def test_engines_and_rules_do_not_import_pytest(modules: list[str], layer: str) -> None:
    code = (
        f"import sys\nfor m in {modules!r}: __import__(m)\n"
        "print(sorted(k for k in sys.modules if k.split('.')[0] in ('pytest', '_pytest')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "[]", f"{layer} imports pytest: {out.stdout}"


def test_private_pytest_api_lives_in_one_module() -> None:
    """Only pytest_glue/compat.py imports ``_pytest`` or reads pytest's private attributes, each use with its
    reason there; everything else uses pytest's public API."""
    private = ("_decide_args", "_conftest_plugins", "_cachedir", "._tw", "_use_item_location", "_must_rewrite")
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "compat.py":
            continue
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                assert not any(n == "_pytest" or n.startswith("_pytest.") for n in names), f"{path}:{node.lineno}"
        hits = [p for p in private if p in text]
        assert not hits, f"{path.relative_to(PACKAGE)} uses private pytest API {hits}"


def test_code_cites_rules_and_plans_never_issue_numbers() -> None:
    """Comments and docstrings cite a rule ID or a plan section; an issue number means nothing to a reader."""
    import re

    hits = [
        f"{p.relative_to(PACKAGE)}:{i}"
        for p in sorted(PACKAGE.rglob("*.py"))
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if re.search(r"\b[Ii]ssue \d", line)
    ]
    assert hits == []


#: Shared modules of the scoring layer that the pytest glue and the API may import (everything else in
#: ``scoring/`` is a family's, reached through the registry).
SHARED_SCORING = {
    "pytest_omfc.scoring",
    "pytest_omfc.scoring.conventions",
    "pytest_omfc.scoring.families",
    "pytest_omfc.scoring.merge",
    "pytest_omfc.scoring.options",
    "pytest_omfc.scoring.registry",
    "pytest_omfc.scoring.results",
}


def _family(module: str) -> str | None:
    parts = module.split(".")
    return (
        parts[2]
        if len(parts) > 2 and parts[1] == "scoring" and f"{'.'.join(parts[:3])}" not in SHARED_SCORING
        else None
    )


def test_scorer_families_are_reached_through_the_registry() -> None:
    """The glue, the API and the CLI import shared scoring modules only: scorers come from the registry, which
    :mod:`pytest_omfc.scoring.families` (the one module importing the adapters) fills."""
    graph = import_graph()
    callers = ("pytest_omfc.pytest_glue", "pytest_omfc.api", "pytest_omfc.cli", "pytest_omfc.plugin")
    bad = [
        (m, d)
        for m, deps in graph.items()
        if m.startswith(callers)
        for d in deps
        if d.startswith("pytest_omfc.scoring") and d not in SHARED_SCORING
    ]
    assert bad == []
    adapters = [
        (m, d)
        for m, deps in graph.items()
        for d in deps
        if d.endswith(".adapter") and m != "pytest_omfc.scoring.families"
    ]
    assert adapters == []


def test_rules_and_the_inputs_they_read_never_import_scoring() -> None:
    """The rules (``rules/``) and what they read (the submissions, the readers, the models, ForgeryNet's files,
    the input resolution of ``inputs/``) sit below the scorers: no module of theirs imports ``scoring/``, whose
    adapters read them in turn."""
    graph = import_graph()
    below = (
        "pytest_omfc.rules",
        "pytest_omfc.forgerynet",
        "pytest_omfc.models",
        "pytest_omfc.submission",
        "pytest_omfc.inputs",
    )
    up = [
        (m, d) for m, deps in graph.items() if m.startswith(below) for d in deps if d.startswith("pytest_omfc.scoring")
    ]
    assert up == []


def test_the_nist_rules_and_the_tables_they_read_never_import_pandas() -> None:
    """A check that scores nothing imports no pandas (its import alone took longer than MediScore's validator takes
    to start): the rules of the NIST editions, the submission and the column operations work on numpy columns, and
    the reader imports pandas only in ``Table.df`` (for the scorers and the ``omfc`` fixture).  Function-level
    imports count."""
    checked = [
        *sorted((PACKAGE / "rules").glob("*.py")),
        PACKAGE / "submission.py",
        PACKAGE / "arrays.py",
        PACKAGE / "package.py",
        PACKAGE / "csvio.py",
    ]
    found = []
    for path in checked:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        allowed = {
            id(n) for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.name == "df" for n in ast.walk(f)
        }
        for node in ast.walk(tree):
            names = _imported(node)
            if any(n.split(".")[0] == "pandas" for n in names) and id(node) not in allowed:
                if not _under_type_checking(tree, node):
                    found.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert found == []


def _imported(node: ast.AST) -> list[str]:
    """The modules an ``import`` or ``from ... import`` statement names ([] for any other node)."""
    if isinstance(node, ast.Import):
        return [a.name for a in node.names]
    if isinstance(node, ast.ImportFrom):
        return [node.module or ""]
    return []


def _under_type_checking(tree: ast.Module, node: ast.AST) -> bool:
    """Whether ``node`` sits in an ``if TYPE_CHECKING:`` block (annotations only, never imported)."""
    return any(
        isinstance(block, ast.If)
        and isinstance(block.test, ast.Name)
        and block.test.id == "TYPE_CHECKING"
        and any(node is n for n in ast.walk(block))
        for block in ast.walk(tree)
    )


def test_every_family_has_the_same_parts() -> None:
    """A family is a folder with its engine modules, ``options.py`` and ``adapter.py``."""
    families = sorted(p.parent.name for p in (PACKAGE / "scoring").glob("*/__init__.py"))
    assert families == ["detection", "forgerynet", "mask", "provenance", "temporal"]
    for family in families:
        folder = PACKAGE / "scoring" / family
        assert (folder / "options.py").is_file() and (folder / "adapter.py").is_file(), family
    text = (PACKAGE / "scoring" / "families.py").read_text(encoding="utf-8")
    assert [f for f in families if f"from .{f} import adapter" not in text] == []


def test_engines_import_no_presentation_and_report_no_engine_internals() -> None:
    """Engines (``scoring/``) import neither ``report/`` nor the glue; ``report/`` reads a family through its
    package (public names) or its ``options`` module, never an engine module."""
    graph = import_graph()
    up = [
        (m, d)
        for m, deps in graph.items()
        if m.startswith("pytest_omfc.scoring")
        for d in deps
        if d.startswith(("pytest_omfc.report", "pytest_omfc.pytest_glue", "pytest_omfc.api", "pytest_omfc.plugin"))
    ]
    assert up == []
    inside = [
        (m, d)
        for m, deps in graph.items()
        if m.startswith("pytest_omfc.report")
        for d in deps
        if _family(d) is not None and d.count(".") > 2 and not d.endswith(".options")
    ]
    assert inside == []


TESTS = PACKAGE.parent / "tests"


def test_tests_mirror_the_package_and_never_import_each_other() -> None:
    """Tests sit where what they test sits (rules, each scorer family, report, glue, inputs, work; hostile input apart);
    shared builders live in tests/helpers/, and no test module imports another or conftest."""
    families = {p.parent.name for p in (PACKAGE / "scoring").glob("*/adapter.py")}
    allowed = {"rules", "scoring", "report", "glue", "hostile", "inputs", "work", *(f"scoring/{f}" for f in families)}
    misplaced = []
    imports = []
    for path in sorted(TESTS.rglob("test_*.py")):
        folder = path.parent.relative_to(TESTS).as_posix()
        if folder != "." and folder not in allowed:
            misplaced.append(str(path.relative_to(TESTS)))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = _imported(node)
            imports += [f"{path.name}: {n}" for n in names if n.split(".")[-1].startswith(("test_", "conftest"))]
    top = sorted(p.name for p in TESTS.glob("test_*.py"))
    assert misplaced == [] and imports == []
    assert top == [
        "test_docs.py",
        "test_docs_site.py",
        "test_examples.py",
        "test_install.py",
        "test_layers.py",
        "test_schemas.py",
    ]
    assert {f"scoring/{f}" for f in families} <= {p.parent.relative_to(TESTS).as_posix() for p in TESTS.rglob("test_*")}


def test_the_mask_pipeline_is_made_of_small_functions() -> None:
    """No function under scoring/mask/ is over 80 lines or takes more than 8 parameters (``self`` aside, ``*args``
    and ``**keywords`` one each), so that a step of the pipeline reads on one screen and takes its settings as
    one object (the run's ``_RunSetup``, the engine's ``Kernels``, the scorer's ``MaskOptions``)."""
    over = []
    for path in sorted((PACKAGE / "scoring" / "mask").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                args = node.args
                params = [*args.posonlyargs, *args.args, *args.kwonlyargs, *(a for a in (args.vararg, args.kwarg) if a)]
                n = len([a for a in params if a.arg not in ("self", "cls")])
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                name = f"{path.stem}.{node.name}"
                if lines > 80 or n > 8:
                    over.append(f"{name}: {lines} lines, {n} parameters")
    assert over == []
