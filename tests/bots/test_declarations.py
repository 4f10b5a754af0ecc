"""Bots declare as the table would (RULES.md C10m), at every level, from the seat's view alone."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.bots import LEVELS, choose_action, make_policy
from games.bots.declarations import as_the_table
from games.engine import State, legal_actions, new_match, push, view

TINY = "level-4:samples=3,time=0.05,min_samples=1"
MANUAL = {"declarations": "manual"}


def declaration_turns(level: str, variant: str, options: dict[str, Any], seed: int) -> int:
    """Play the first hand with ``level`` at every seat; check each declaration; return how many there were."""
    policy = make_policy(level)
    rng = random.Random(seed)
    state = new_match(variant, {**options, **MANUAL}, seed=seed).state
    turns = 0
    while state.status == "active" and state.hand_number == 1:
        seen = view(state, state.turn)
        action = policy(seen, rng)
        assert action in legal_actions(state), (variant, state.phase, action)
        if state.phase == "declare":
            assert action == as_the_table(seen)
            turns += 1
        push(state, state.turn, action)
    return turns


@pytest.mark.parametrize("level", [*LEVELS, TINY])
def test_C10m_every_level_declares_as_the_table(level: str) -> None:
    seeds = range(2) if level in ("level-4", TINY) else range(6)
    cases = [("clasico", {}), ("dos", {}), ("individual", {"players": 3})]
    if level == "level-4":
        cases = [("dos", {})]
    assert sum(declaration_turns(level, v, o, seed) for v, o in cases for seed in seeds) > 0


def test_C10m_the_table_s_order_from_the_view() -> None:
    def seen(legal: list[dict[str, Any]], hand: list[str], trump: str = "O") -> dict[str, Any]:
        return {"legal_actions": legal, "my_hand": hand, "hand": {"phase": "declare", "trump": trump}}

    sing = [{"type": "sing", "suit": s} for s in "CE"]
    hand = ["C12", "C11", "C1", "E12", "E11"]
    assert as_the_table(seen([*sing, {"type": "pass"}], hand)) == {"type": "sing", "suit": "E"}  # held fewest
    assert as_the_table(seen([*sing, {"type": "pass"}], hand, trump="C")) == {"type": "sing", "suit": "C"}  # the 40
    assert as_the_table(seen([*sing, {"type": "tute"}, {"type": "pass"}], hand)) == {"type": "tute"}
    legal = [{"type": "tute"}, {"type": "exchange"}, {"type": "pass"}]
    assert as_the_table(seen(legal, hand)) == {"type": "exchange"}  # D4: it may complete a canto or a tute
    assert as_the_table(seen([{"type": "pass"}], hand)) == {"type": "pass"}


def bots_hand(variant: str, options: dict[str, Any], seed: int) -> State:
    rng = random.Random(seed)
    state = new_match(variant, options, seed=seed).state
    while state.status == "active" and state.hand_number == 1:
        push(state, state.turn, choose_action("level-2", view(state, state.turn), rng))
    return state


@pytest.mark.parametrize("case", [("dos", {}), ("individual", {"players": 4}), ("subastado", {})])
def test_C10m_bots_make_the_hand_of_auto_mode(case: tuple[str, dict[str, Any]]) -> None:
    variant, options = case
    for seed in range(4):
        auto, manual = bots_hand(variant, options, seed), bots_hand(variant, {**options, **MANUAL}, seed)
        assert manual.results == auto.results and manual.cantos == auto.cantos
