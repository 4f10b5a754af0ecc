"""Random positions of every variant, reached by random legal play, for the bots' tests."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from games.engine import State, legal_actions, new_match, push

#: Every variant, with each player count and the options that change how a hand is played.
CASES: list[tuple[str, dict[str, Any]]] = [
    ("clasico", {}),
    ("dos", {}),
    ("dos", {"hand_size": 6, "cantos_in_arrastre": True}),
    ("cabron", {"players": 3}),
    ("cabron", {"players": 4}),
    ("subastado", {}),
    ("subastado", {"auction_rounds": "many"}),
    ("individual", {"players": 3}),
    ("individual", {"players": 4}),
    ("subastado_parejas", {}),
]


def positions(count: int, seed: int = 0, first_hand_only: bool = True) -> Iterator[tuple[str, dict[str, Any], State]]:
    """``count`` positions per case: random legal play to a random point of the first hand."""
    rng = random.Random(seed)
    for variant, options in CASES:
        found = 0
        attempt = 0
        while found < count:
            attempt += 1
            state = new_match(variant, options, seed=seed * 1000 + attempt).state
            for _ in range(rng.randrange(0, 48)):
                if state.status != "active" or (first_hand_only and state.hand_number > 1):
                    break
                push(state, state.turn, rng.choice(legal_actions(state)))
            if state.status == "active" and (not first_hand_only or state.hand_number == 1):
                found += 1
                yield variant, options, state
