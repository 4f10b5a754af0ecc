"""Two states are equal exactly when they write the same snapshot."""

from __future__ import annotations

import random

import pytest

from games.engine import State, from_json, legal_actions, new_match, push, to_json

CASES = [
    ("clasico", {}),
    ("cabron", {"players": 3}),
    ("subastado", {}),
    ("dos", {"hand_size": 6}),
    ("individual", {"players": 4}),
    ("subastado_parejas", {}),
    ("dos", {"declarations": "manual"}),
    ("clasico", {"declarations": "manual"}),
]


def states_of_a_match(variant: str, options: dict[str, object], seed: int) -> list[State]:
    rnd = random.Random(seed)
    state = new_match(variant, options, seed=seed).state
    states = [state.copy()]
    while state.status == "active" and state.hand_number <= 2:
        push(state, state.turn, rnd.choice(legal_actions(state)))
        states.append(state.copy())
    return states


@pytest.mark.parametrize(("variant", "options"), CASES)
def test_states_are_equal_when_their_snapshots_are(variant: str, options: dict[str, object]) -> None:
    states = states_of_a_match(variant, options, seed=3)
    twin = states_of_a_match(variant, options, seed=3)
    for a, b, again in zip(states, states[1:], twin, strict=False):
        assert a == again == from_json(to_json(a)) and a == a.copy()
        assert (a == b) == (to_json(a) == to_json(b)) and a != b
    state = states[-1].copy()
    state.hands = [*state.hands[:-1], state.hands[-1] ^ 1]
    assert state != states[-1] and to_json(state) != to_json(states[-1])
    assert state != "a state"


def test_C10m_a_snapshot_written_before_manual_declarations_reads_with_no_declaration_turn() -> None:
    state = new_match("clasico", {}, seed=4).state
    old = {k: v for k, v in to_json(state).items() if k not in ("declaring", "declared")}
    assert from_json(old) == state
