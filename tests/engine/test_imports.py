"""The engine's modules import one another as a ladder: no circle, not even through a late import."""

from __future__ import annotations

import ast
from pathlib import Path

import games.engine

ENGINE = Path(games.engine.__file__).parent


def engine_imports(path: Path) -> set[str]:
    """Every engine module that ``path`` imports, wherever the import stands (a function, ``TYPE_CHECKING``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:
                base = node.module
            elif node.level == 0 and node.module and node.module.startswith("games.engine."):
                base = node.module.removeprefix("games.engine.")
            else:
                continue
            if base is None:  # from . import x
                found.update(alias.name for alias in node.names)
            else:
                found.add(base.split(".")[0])
        elif isinstance(node, ast.Import):
            found.update(
                alias.name.removeprefix("games.engine.").split(".")[0]
                for alias in node.names
                if alias.name.startswith("games.engine.")
            )
    return found


def graph() -> dict[str, set[str]]:
    return {path.stem: engine_imports(path) for path in ENGINE.glob("*.py")}


def test_the_engine_modules_import_no_circle() -> None:
    edges = graph()
    done: set[str] = set()

    def visit(module: str, path: list[str]) -> None:
        if module in path:
            raise AssertionError("import circle: " + " -> ".join([*path[path.index(module):], module]))
        if module in done:
            return
        for imported in sorted(edges.get(module, ())):
            visit(imported, [*path, module])
        done.add(module)

    for module in sorted(edges):
        visit(module, [])


def test_the_state_module_stands_below_the_variants() -> None:
    edges = graph()
    assert edges["state"] <= {"cards", "options"}
    assert "state" in edges["variants"] and "snapshot" not in edges["variants"]
    assert edges["actions"] <= {"cards", "errors"}
