"""Built-in bots: pure Python policies beside the engine (no Django).

A policy sees only what its seat sees, the :func:`games.engine.view` of the match for that seat,
plus a random generator, and returns one of the view's ``legal_actions``::

    action = choose_action("level-2", view(state, seat), random.Random())
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from . import level1, level2

Policy = Callable[[dict[str, Any], random.Random], dict[str, Any]]

POLICIES: dict[str, Policy] = {
    "level-1": level1.choose,
    "level-2": level2.choose,
}
LEVELS = tuple(POLICIES)


def choose_action(level: str, view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The action the bot of that level takes in this view; raises ``KeyError`` for an unknown level."""
    if not view["legal_actions"]:
        raise ValueError("the bot's seat has nothing to do in this view")
    return POLICIES[level](view, rng)
