"""The import layout of DESIGN.md: no circles, model files without the game layer, backends handed ``fn``.

Only top-level imports count: an import inside a function is how the circles
of issue 15 were hidden, so the checks below would not see through one; the
last test forbids that in the modules that had them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "acesim"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(tree: ast.AST, top_level: bool = True) -> set[str]:
    nodes = tree.body if top_level else ast.walk(tree)
    found = set()
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("acesim"):
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("acesim"))
    return found


def _graph() -> dict[str, set[str]]:
    trees = {_module_name(p): ast.parse(p.read_text()) for p in PACKAGE.rglob("*.py")}
    return {name: {d for d in _imports(tree) if d in trees and d != name} for name, tree in trees.items()}


def _reaches(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        for d in graph[todo.pop()] - seen:
            seen.add(d)
            todo.append(d)
    return seen


def test_no_import_circles():
    graph = _graph()
    circles = [m for m in graph if m in _reaches(graph, m)]
    assert circles == []


@pytest.mark.parametrize("module, forbidden", [
    ("acesim.model_files", {"acesim.games", "acesim.strategies", "acesim.learned", "acesim.simulate"}),
    ("acesim.cluster", {"acesim.simulate", "acesim.report", "acesim.ladder", "acesim.learned"}),
    ("acesim.tasks", {"acesim.simulate", "acesim.cluster", "acesim.games"}),
    ("acesim.io", {"acesim.simulate", "acesim.games", "acesim.strategies"}),
])
def test_lower_layers_do_not_import_their_users(module, forbidden):
    assert _reaches(_graph(), module) & forbidden == set()


@pytest.mark.parametrize("name", ["games", "strategies", "learned", "simulate", "ladder", "cluster", "tasks",
                                  "model_files", "analysis/equity", "analysis/luck"])
def test_no_acesim_import_inside_a_function(name):
    tree = ast.parse((PACKAGE / f"{name}.py").read_text())
    inner = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            inner |= _imports(node, top_level=False)
    assert inner == set()


def test_analyses_use_no_private_name_of_the_game_layer():
    for path in (PACKAGE / "analysis").glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module in ("acesim.games", "acesim.strategies"):
                assert not [a.name for a in node.names if a.name.startswith("_")], path.name
