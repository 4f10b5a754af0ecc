"""Built-in bots: pure Python policies beside the engine (no Django).

A policy sees only what its seat sees, the :func:`games.engine.view` of the match for that seat,
plus a random generator, and returns one of the view's ``legal_actions``::

    action = choose_action("level-2", view(state, seat), random.Random())

The ladder, each level stronger than the one below (``docs/bots.md`` has the measured table):

- ``level-1``: a random legal action (in an auction, a pass or the lowest bid);
- ``level-2``: simple sound rules;
- ``level-3``: counts the cards, infers voids, plays the end of a hand exactly once the cards are known;
- ``level-4``: determinized search (perfect-information Monte Carlo) within a time budget.

Every level declares as the table would in a declaration turn (C10m, :mod:`.declarations`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from . import level1, level2, level3, level4
from .declarations import as_the_table, is_declaration_turn

Policy = Callable[[dict[str, Any], random.Random], dict[str, Any]]


def declaring(policy: Policy) -> Policy:
    """The policy, declaring as the table would in a declaration turn (C10m)."""

    def choose(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        return as_the_table(view) if is_declaration_turn(view) else policy(view, rng)

    return choose


POLICIES: dict[str, Policy] = {
    "level-1": declaring(level1.choose),
    "level-2": declaring(level2.choose),
    "level-3": declaring(level3.choose),
    "level-4": declaring(level4.choose),
}
LEVELS = tuple(POLICIES)


def choose_action(level: str, view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """The action the bot of that level takes in this view; raises ``KeyError`` for an unknown level."""
    if not view["legal_actions"]:
        raise ValueError("the bot's seat has nothing to do in this view")
    return POLICIES[level](view, rng)


def make_policy(spec: str) -> Policy:
    """The policy a bot spec names: a level, with level-4's budget optionally after a colon.

    ``"level-4:time=0.1,samples=40"`` is level-4 thinking at most 0.1 s and 40 deals per decision.
    Raises ``KeyError`` for an unknown level and ``ValueError`` for a bad parameter.
    """
    level, _, params = spec.partition(":")
    policy = POLICIES[level]
    if not params:
        return policy
    if level != "level-4":
        raise ValueError(f"{level} takes no parameters")
    budget = level4.Budget.parse(params)

    def tuned(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        return level4.choose(view, rng, budget)

    return declaring(tuned)
