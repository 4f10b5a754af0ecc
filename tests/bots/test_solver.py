"""The exact solver of level-3 and level-4 against a brute force over the engine's own rules."""

from __future__ import annotations

import random

import pytest

from games.bots.deals import Deal, build_state
from games.bots.knowledge import read_view
from games.bots.level3 import exact_card
from games.bots.solver import TUTE, Solver, engine_minimax
from games.engine import State, legal_actions, legal_cards, new_match, play_card, push, view
from games.engine.cards import cards_of

SOLVED = [
    ("clasico", {}),
    ("dos", {}),
    ("dos", {"hand_size": 6, "cantos_in_arrastre": True}),
    ("subastado", {}),
    ("individual", {"players": 3}),
    ("individual", {"players": 4}),
    ("subastado_parejas", {}),
]


def _endgame(variant: str, options: dict, seed: int, cards_left: int) -> State | None:  # type: ignore[type-arg]
    rng = random.Random(seed)
    state = new_match(variant, options, seed=seed).state
    while state.status == "active" and state.hand_number == 1 and (
        sum(h.bit_count() for h in state.hands) > cards_left or state.stock or state.face_up >= 0
        or state.phase != "play"
    ):
        push(state, state.turn, rng.choice(legal_actions(state)))
    return state if state.status == "active" and state.hand_number == 1 else None


@pytest.mark.parametrize(("variant", "options"), SOLVED)
def test_solver_matches_a_brute_force_on_small_endgames(variant: str, options: dict) -> None:  # type: ignore[type-arg]
    checked = 0
    for seed in range(40):
        state = _endgame(variant, options, seed, cards_left=8 if state_players(variant, options) <= 2 else 9)
        if state is None:
            continue
        me = state.turn
        seen = view(state, me)
        built = build_state(seen, read_view(seen), Deal(list(state.hands), []))
        solver = Solver(built, me)
        assert solver.values() == brute_force_values(built, solver)
        checked += 1
    assert checked >= 20


def brute_force_values(built: State, solver: Solver) -> dict[int, int]:
    """Each legal card's value by plain minimax over the engine, in the solver's units."""
    mine, weight = solver.mine, solver.weight

    def score(st: State) -> int:
        return sum((1 if mine[s] else -1) * weight[s] * (st.taken[s] + st.sung_points[s]) for s in range(st.players))

    base = score(built)

    def evaluate(st: State) -> int:
        if st.tute is not None:
            return TUTE if mine[st.tute[0]] else -TUTE
        return score(st) - base + (1 if mine[st.lead] else -1)  # the last trick's winner leads on

    out = {}
    for card in cards_of(legal_cards(built)):
        child = built.copy()
        play_card(child, card, None)
        out[card] = engine_minimax(child, evaluate, lambda seat: mine[seat])
    return out


def state_players(variant: str, options: dict) -> int:  # type: ignore[type-arg]
    return new_match(variant, options, seed=0).state.players


def test_level3_plays_the_arrastre_exactly() -> None:
    """In dos every card is known once the stock is gone: level-3's card has the best exact value."""
    for seed in range(15):
        state = _endgame("dos", {}, seed + 100, cards_left=12)
        if state is None:
            continue
        me = state.turn
        seen = view(state, me)
        k = read_view(seen)
        card = exact_card(seen, k)
        assert card is not None
        values = Solver(build_state(seen, k, Deal(list(state.hands), [])), me).values()
        assert values[card] == max(values.values())
