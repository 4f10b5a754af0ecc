"""Every level plays a legal action in every variant, phase and seat, from the seat's view alone."""

from __future__ import annotations

import json
import random

import pytest

from games.bots import LEVELS, choose_action, make_policy
from games.bots.level4 import Budget
from games.engine import legal_actions, view

from .helpers import CASES, positions

TINY = "level-4:samples=3,time=0.05,min_samples=1"


@pytest.mark.parametrize("level", [*LEVELS, TINY])
def test_every_level_returns_a_legal_action_in_every_variant(level: str) -> None:
    policy = make_policy(level)
    rng = random.Random(1)
    phases = set()
    count = 2 if level == "level-4" else 4 if level == TINY else 10  # level-4 thinks up to 0.1 s per decision
    for variant, _options, state in positions(count, seed=2):
        seat = state.turn
        seen = view(state, seat)
        action = policy(seen, rng)
        assert action in legal_actions(state, seat), (variant, state.phase, action)
        phases.add((variant, state.phase))
    assert {v for v, _ in phases} == {v for v, _ in CASES}


def test_choose_action_is_the_public_interface() -> None:
    state = positions(1).__next__()[2]
    seen = view(state, state.turn)
    assert choose_action("level-3", seen, random.Random(0)) in seen["legal_actions"]
    with pytest.raises(KeyError):
        choose_action("level-9", seen, random.Random(0))
    with pytest.raises(ValueError, match="nothing to do"):
        choose_action("level-2", view(state, (state.turn + 1) % state.players), random.Random(0))


def test_bot_specs_take_a_budget_only_for_level_4() -> None:
    assert make_policy("level-4:time=0.1,samples=7")
    assert Budget.parse("time=0.1,samples=7") == Budget(time=0.1, samples=7)
    with pytest.raises(ValueError):
        make_policy("level-3:time=1")
    with pytest.raises(ValueError, match="unknown budget field"):
        Budget.parse("depth=3")


@pytest.mark.parametrize("level", ["level-3", TINY])
def test_a_policy_sees_only_the_view(level: str) -> None:
    """The same view gives the same action, whatever the hidden cards: a JSON copy of the view is all it reads."""
    policy = make_policy(level)
    for variant, _options, state in positions(2, seed=5):
        if state.phase != "play":
            continue
        seat = state.turn
        seen = view(state, seat)
        other = _swap_hidden(state, seat)
        if other is None:
            continue
        assert view(other, seat) == seen
        first = policy(json.loads(json.dumps(seen)), random.Random(3))
        second = policy(view(other, seat), random.Random(3))
        assert first == second, variant


def _swap_hidden(state, seat):  # type: ignore[no-untyped-def]
    """The same position with two hidden cards of two other holders exchanged (None if there are none)."""
    from games.bots.knowledge import read_view
    from games.engine.cards import cards_of

    k = read_view(view(state, seat))
    holders = [s for s in range(state.players) if s != seat]
    for a in holders:
        for b in holders:
            if a >= b:
                continue
            for x in cards_of(state.hands[a] & k.unknown & ~k.cannot[b]):
                for y in cards_of(state.hands[b] & k.unknown & ~k.cannot[a]):
                    other = state.copy()
                    other.hands[a] ^= 1 << x | 1 << y
                    other.hands[b] ^= 1 << x | 1 << y
                    return other
    if state.stock:
        other = state.copy()
        opponent = holders[0]
        x = next(iter(cards_of(state.hands[opponent] & k.unknown)), None)
        if x is not None:
            y = other.stock[0]
            other.hands[opponent] ^= 1 << x | 1 << y
            other.stock[0] = x
            return other
    return None


def test_level4_never_weighs_two_interchangeable_blanks() -> None:
    from games.bots.knowledge import read_view
    from games.bots.level4 import distinct_cards
    from games.engine import new_match
    from games.engine.cards import parse

    state = new_match("clasico", {}, seed=1).state
    k = read_view(view(state, state.turn))
    k.hand = 1 << parse("B2") | 1 << parse("B4") | 1 << parse("B6") | 1 << parse("B1")
    k.played = 1 << parse("B5")
    # B2 and B4 are next to each other; B5 is gone, so B4 and B6 are too: one blank of bastos is enough
    assert distinct_cards([parse("B2"), parse("B4"), parse("B6"), parse("B1")], k) == [parse("B2"), parse("B1")]


def test_level_4_by_default_plays_the_same_move_from_the_same_view_and_seed() -> None:
    """Its default budget is a number of deals, not a time, so a seeded match replays its moves
    however busy the machine is (the time is only a guard against a very slow one)."""
    assert Budget().samples == 64 and Budget().time >= 1.0
    for variant, _options, state in positions(1, seed=5):
        seen = view(state, state.turn)
        first = choose_action("level-4", seen, random.Random(9))
        assert choose_action("level-4", seen, random.Random(9)) == first, variant


def test_level_1_in_an_auction_passes_or_bids_the_lowest_amount_at_random() -> None:
    from games.engine import new_match

    state = new_match("subastado_parejas", {}, seed=5).state
    seen = view(state, state.turn)
    bids = [a["amount"] for a in seen["legal_actions"] if a["type"] == "bid"]
    assert len(bids) > 10
    chosen = [choose_action("level-1", seen, random.Random(seed)) for seed in range(200)]
    assert {json.dumps(a, sort_keys=True) for a in chosen} == {
        json.dumps({"type": "pass"}),
        json.dumps({"type": "bid", "amount": min(bids)}, sort_keys=True),
    }


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_player_with_three_level_1_bots_finishes_a_match_of_subastado_in_pairs(seed: int) -> None:
    """With bids drawn from every amount, no pair reached the target: thousands of hands."""
    from games.engine import apply_action, new_match

    state = new_match("subastado_parejas", {}, seed=seed).state
    rng = random.Random(seed)
    levels = ["level-2", "level-1", "level-1", "level-1"]
    while state.status == "active" and state.hand_number <= 200:
        seat = state.turn
        state = apply_action(state, seat, choose_action(levels[seat], view(state, seat), rng)).state
    assert state.status == "finished", state.hand_number
