"""The bots use the engine's public surface only: ``games.engine`` and ``games.engine.cards``."""

from __future__ import annotations

import ast
from pathlib import Path

import games.bots
import games.engine
import games.engine.cards

PUBLIC = {"games.engine": set(games.engine.__all__), "games.engine.cards": set(games.engine.cards.__all__)}


def engine_imports() -> list[tuple[str, str, str]]:
    """(bot module, engine module, name) for every name a bot imports from the engine, wherever it stands."""
    found = []
    for path in sorted(Path(games.bots.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and (node.module or "").startswith("games.engine"):
                found += [(path.name, node.module or "", alias.name) for alias in node.names]
            elif isinstance(node, ast.Import):
                found += [(path.name, a.name, "") for a in node.names if a.name.startswith("games.engine")]
    return found


def test_the_bots_import_only_the_public_names_of_the_engine() -> None:
    imports = engine_imports()
    assert imports, "the bots import nothing of the engine?"
    outside = [(bot, module, name) for bot, module, name in imports if name not in PUBLIC.get(module, ())]
    assert outside == []


def test_every_public_name_is_there() -> None:
    for module, names in PUBLIC.items():
        namespace = games.engine if module == "games.engine" else games.engine.cards
        assert all(hasattr(namespace, name) for name in names), module
