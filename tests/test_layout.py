"""The import rules of docs/architecture.md, read from the source with ``ast``.

Data flows one way: every module sits in one layer, a sub-package of ``acesim``
(``LAYERS``), and imports only from its own layer and those below; the
package's import graph has no cycle, kernels import
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
                # "from acesim.kernels import game_loop" imports the module acesim.kernels.game_loop
                found.extend((f"{child.module}.{alias.name}", in_function) for alias in child.names
                             if f"{child.module}.{alias.name}" in MODULES)
            visit(child, inner)

    visit(tree, False)
    return found


def acesim_imports(name: str) -> set[str]:
    return {m for m, _ in imports(MODULES[name]) if m in MODULES and m != name}


# The layers, bottom first, as docs/architecture.md draws them: a module may import from its own
# layer and the ones listed before it. The kernels and the common tools sit side by side at the
# bottom: neither imports the other.
LAYERS = ("kernels", "common", "engine", "analyses", "outputs", "runs", "cli")
MAY_IMPORT = {
    "kernels": {"kernels"},
    "common": {"common"},
    **{layer: set(LAYERS[:i + 1]) for i, layer in enumerate(LAYERS) if i >= 2},
}


def layer_of(name: str) -> str:
    """The layer a module belongs to: the sub-package under ``acesim`` that holds it."""
    parts = name.split(".")
    return "package" if len(parts) == 1 else parts[1]


def test_the_layout_sees_the_package():
    assert {"acesim.cli", "acesim.engine.rules", "acesim.kernels.game_loop", "acesim.kernels.board"} <= set(MODULES)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_every_module_sits_in_a_layer(name):
    assert name == "acesim" or layer_of(name) in LAYERS, f"{name} is in no layer of {LAYERS}"


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n != "acesim"))
def test_imports_go_down_the_layers(name):
    allowed = MAY_IMPORT[layer_of(name)]
    upward = sorted(m for m in acesim_imports(name) if m != "acesim" and layer_of(m) not in allowed)
    assert not upward, f"{name} ({layer_of(name)}) imports from a layer above it: {upward}"


def drawn_modules() -> set[str]:
    """The module files docs/architecture.md's picture of the layers shows: ``acesim/FOLDER/`` lines
    open a layer, the indented ``NAME.py`` lines under one are its modules."""
    page = (PACKAGE.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    picture = page.split("## The layers", 1)[1].split("```")[1]
    shown, folder = set(), ""
    for line in picture.splitlines():
        word = line.split()[0] if line.strip() else ""
        if line.startswith("acesim/"):
            folder = word if word.endswith("/") else ""
            if word.endswith(".py"):
                shown.add(word)
        elif line.startswith("  ") and word.endswith(".py") and folder:
            shown.add(folder + word)
    return shown


def test_the_architecture_page_draws_the_layers():
    """The page's picture shows each module above the kernels in the folder that holds it, and no other."""
    drawn = drawn_modules()
    real = {path.relative_to(PACKAGE.parent).as_posix() for name, path in MODULES.items()
            if path.name != "__init__.py" and layer_of(name) not in ("kernels", "package")}
    assert real - drawn == set(), "docs/architecture.md does not show these"
    assert drawn - real == set(), "docs/architecture.md shows modules that do not exist"


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
        ("acesim.common.cluster", {"acesim.runs.simulate", "acesim.runs.report", "acesim.runs.ladder", "acesim.runs.training"}),
        ("acesim.common.tasks", {"acesim.runs.simulate", "acesim.runs.report", "acesim.runs.ladder", "acesim.runs.training",
                          "acesim.common.cluster", "acesim.engine.games"}),
        ("acesim.common.files", {"acesim.runs.simulate", "acesim.runs.report", "acesim.engine.games", "acesim.engine.strategies"}),
        ("acesim.engine.model_files", {"acesim.engine.games", "acesim.runs.training", "acesim.runs.simulate", "acesim.engine.strategies"}),
        ("acesim.engine.strategies", {"acesim.engine.games", "acesim.runs.training", "acesim.runs.simulate"}),
        ("acesim.engine.rule_inputs", {"acesim.engine.games", "acesim.runs.training", "acesim.engine.model_files", "acesim.engine.strategies"}),
    ],
)
def test_lower_layers_do_not_import_their_users(importer, forbidden):
    if importer not in MODULES:
        pytest.fail(f"{importer} is named in docs/architecture.md but does not exist")
    assert not reaches(importer) & forbidden


def test_analyses_use_no_private_name_of_the_game_layer():
    for name in (n for n in MODULES if n.startswith("acesim.analyses")):
        for node in ast.walk(ast.parse(MODULES[name].read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module in ("acesim.engine.games", "acesim.engine.strategies"):
                assert not [a.name for a in node.names if a.name.startswith("_")], name


@pytest.mark.parametrize("name", [n for n in MODULES if n.startswith(("acesim.analyses", "acesim.outputs"))])
def test_analyses_and_outputs_take_data_not_runs(name):
    """The runs hand work to the task runner; an analysis or a chart is handed its data."""
    runners = {"acesim.common.tasks", "acesim.common.cluster"}
    assert not acesim_imports(name) & runners


@pytest.mark.parametrize("name", list(MODULES))
def test_optional_extras_are_imported_where_used(name):
    for module, in_function in imports(MODULES[name]):
        if module.split(".")[0] in OPTIONAL:
            assert in_function, f"{name} imports the optional {module} at module level"
