"""No import circle in the project: every import (module top, function body or TYPE_CHECKING
block) of `lab`, `engine` and `timecontrol` is an edge, and the graph must have no cycle.

Importing `a.b.c` also runs `a/__init__.py` and `a/b/__init__.py` first, so an import is an edge
to those packages too, except to the importing module's own packages (already being imported,
which Python allows): `lab.page.calibration` importing `lab.calibration.config` once ran
`lab.calibration`'s `__init__`, which imported the page back, and importing the page alone
failed."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("lab", "engine", "timecontrol")


def modules(root: Path, packages: tuple[str, ...]) -> dict[str, Path]:
    """Dotted module name -> file, for every module of `packages` under `root`."""
    found = {}
    for package in packages:
        for path in (root / package).rglob("*.py"):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join(parts)] = path
    return found


def imported(name: str, path: Path, node: ast.Import | ast.ImportFrom,
             known: dict[str, Path]) -> set[str]:
    """The project modules one import statement of module `name` loads."""
    targets = set()
    if isinstance(node, ast.Import):
        targets = {alias.name for alias in node.names}
    else:
        base = node.module or ""
        if node.level:
            package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
            package = package[:len(package) - node.level + 1]
            base = ".".join(package + ([base] if base else []))
        for alias in node.names:
            full = f"{base}.{alias.name}"
            targets.add(full if full in known else base)
    own_packages = {name.rsplit(".", depth)[0] for depth in range(1, name.count(".") + 1)}
    result = set()
    for target in targets:
        while target:
            if target in known and target != name and target not in own_packages:
                result.add(target)
            target = target.rpartition(".")[0]
    return result


def import_graph(root: Path, packages: tuple[str, ...]) -> dict[str, set[str]]:
    """Module -> the project modules it imports anywhere in its source."""
    known = modules(root, packages)
    graph = {}
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        graph[name] = set().union(*(imported(name, path, node, known) for node in ast.walk(tree)
                                    if isinstance(node, (ast.Import, ast.ImportFrom))))
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_project_has_no_import_cycle() -> None:
    graph = import_graph(ROOT, PACKAGES)
    assert "lab.runner" in graph and "lab.tournament" in graph["lab.runner"]
    assert cycles(graph) == []


@pytest.mark.parametrize(("late", "expected"), [
    ("import pkg.a", [["pkg.a", "pkg.b", "pkg.c"]]),
    ("from . import a", [["pkg.a", "pkg.b", "pkg.c"]]),
    ("from .a import thing", [["pkg.a", "pkg.b", "pkg.c"]]),
    ("import json", []),
    ("from pkg.sub.d import thing", [["pkg.a", "pkg.b", "pkg.c", "pkg.sub"]]),
])
def test_a_cycle_hidden_in_a_function_is_found(tmp_path: Path, late: str,
                                               expected: list[list[str]]) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg import b\n")
    (package / "b.py").write_text("import pkg.c\n")
    (package / "c.py").write_text(f"def later():\n    {late}\n")
    (package / "sub").mkdir()
    (package / "sub" / "__init__.py").write_text("from pkg.sub import d\nfrom pkg import a\n")
    (package / "sub" / "d.py").write_text("import pkg.sub\nthing = 1\n")
    assert cycles(import_graph(tmp_path, ("pkg",))) == expected
