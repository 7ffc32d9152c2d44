"""The import rules of docs/architecture.md, read from the source with ``ast``.

Data flows one way: the package's import graph has no cycle, kernels import
nothing outside ``acesim.kernels``, nothing imports the CLI, the Dask backend
does not import its users, model files load without the game layer, and no
module but the CLI imports an acesim module inside a function (the CLI does so
for start-up time: ``acesim --help`` compiles no kernel).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "acesim"
# third-party packages a kernel may use
KERNEL_DEPENDENCIES = {"numpy", "numba", "llvmlite"}
# optional extras, imported where they are used so the core runs without them
OPTIONAL = {"distributed", "dask", "pyspiel", "open_spiel"}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imports(path: Path) -> list[tuple[str, bool]]:
    """``(imported module, inside a function)`` for every import statement of ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                found.extend((alias.name, in_function) for alias in child.names)
            elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
                found.append((child.module, in_function))
                # "from acesim.kernels import game" imports the module acesim.kernels.game
                found.extend((f"{child.module}.{alias.name}", in_function) for alias in child.names
                             if f"{child.module}.{alias.name}" in MODULES)
            visit(child, inner)

    visit(tree, False)
    return found


def acesim_imports(name: str) -> set[str]:
    return {m for m, _ in imports(MODULES[name]) if m in MODULES and m != name}


def test_the_layout_sees_the_package():
    assert {"acesim.cli", "acesim.rules", "acesim.kernels.game", "acesim.kernels.board"} <= set(MODULES)


@pytest.mark.parametrize("name", [n for n in MODULES if n.startswith("acesim.kernels")])
def test_kernels_import_only_kernels_numpy_and_numba(name):
    for module, _ in imports(MODULES[name]):
        top = module.split(".")[0]
        if top == "acesim":
            assert module.startswith("acesim.kernels"), f"{name} imports {module}"
        else:
            assert top in KERNEL_DEPENDENCIES or top in sys.stdlib_module_names, f"{name} imports {module}"


@pytest.mark.parametrize("name", [n for n in MODULES if n != "acesim.cli"])
def test_nothing_imports_the_cli(name):
    assert "acesim.cli" not in acesim_imports(name)


@pytest.mark.parametrize("name", [n for n in MODULES if n != "acesim.cli"])
def test_no_acesim_import_inside_a_function(name):
    inner = [m for m, in_function in imports(MODULES[name]) if in_function and m.split(".")[0] == "acesim"]
    assert not inner, f"{name} imports {inner} inside a function"


def test_the_import_graph_has_no_cycle():
    graph = {name: acesim_imports(name) for name in MODULES}
    # a package imports its submodules' names only through them; "acesim" itself is the version
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycle = path[path.index(nxt):] + [nxt]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if nxt not in state:
                visit(nxt)
        path.pop()
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name)


def reaches(start: str) -> set[str]:
    """Every acesim module ``start`` imports, directly or through others."""
    seen, todo = set(), [start]
    while todo:
        for module in acesim_imports(todo.pop()) - seen:
            seen.add(module)
            todo.append(module)
    return seen


@pytest.mark.parametrize(
    "importer, forbidden",
    [
        ("acesim.cluster", {"acesim.simulate", "acesim.report", "acesim.ladder", "acesim.learned"}),
        ("acesim.tasks", {"acesim.simulate", "acesim.report", "acesim.ladder", "acesim.learned",
                          "acesim.cluster", "acesim.games"}),
        ("acesim.io", {"acesim.simulate", "acesim.report", "acesim.games", "acesim.strategies"}),
        ("acesim.model_files", {"acesim.games", "acesim.learned", "acesim.simulate", "acesim.strategies"}),
        ("acesim.strategies", {"acesim.games", "acesim.learned", "acesim.simulate"}),
        ("acesim.rule_inputs", {"acesim.games", "acesim.learned", "acesim.model_files", "acesim.strategies"}),
    ],
)
def test_lower_layers_do_not_import_their_users(importer, forbidden):
    if importer not in MODULES:
        pytest.fail(f"{importer} is named in docs/architecture.md but does not exist")
    assert not reaches(importer) & forbidden


def test_analyses_use_no_private_name_of_the_game_layer():
    for name in (n for n in MODULES if n.startswith("acesim.analysis")):
        for node in ast.walk(ast.parse(MODULES[name].read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module in ("acesim.games", "acesim.strategies"):
                assert not [a.name for a in node.names if a.name.startswith("_")], name


@pytest.mark.parametrize("name", [n for n in MODULES if n.startswith(("acesim.analysis", "acesim.plots"))])
def test_analyses_and_plots_take_data_not_runs(name):
    runners = {"acesim.simulate", "acesim.report", "acesim.tasks", "acesim.cluster", "acesim.ladder"}
    assert not acesim_imports(name) & runners


@pytest.mark.parametrize("name", list(MODULES))
def test_optional_extras_are_imported_where_used(name):
    for module, in_function in imports(MODULES[name]):
        if module.split(".")[0] in OPTIONAL:
            assert in_function, f"{name} imports the optional {module} at module level"
