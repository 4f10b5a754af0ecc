"""level-2's rules of play, and level-3's count-sharpened reading of them, checked on every position where
they apply among the turns of random clásico (and dos) hands."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from games.bots import make_policy
from games.bots.level3 import ENDGAME_CARDS
from games.bots.tricks import trick_state
from games.engine import legal_actions, new_match, push, view
from games.engine.cards import ACE, KING, KNIGHT, POINTS, SUITS, parse


def turns(variant: str, hands: int, seed: int = 0) -> Iterator[dict[str, Any]]:
    """Every card to play in ``hands`` first hands of random play, with the view of the seat to play."""
    rng = random.Random(seed)
    for number in range(hands):
        state = new_match(variant, {}, seed=seed * 10_000 + number).state
        while state.status == "active" and state.hand_number == 1:
            actions = legal_actions(state)
            if actions[0]["type"] == "play" and len(actions) > 1:
                yield view(state, state.turn)
            push(state, state.turn, rng.choice(actions))


def card_of(policy: str, seen: dict[str, Any]) -> int:
    action = make_policy(policy)(seen, random.Random(0))
    return parse(action["card"])


def facts(seen: dict[str, Any]) -> tuple[list[int], list[int], int, set[int]]:
    """The hand, the legal cards, the trump suit and the cantos in waiting (king and knight, suit unsung)."""
    hand = [parse(c) for c in seen["my_hand"]]
    legal = [parse(a["card"]) for a in seen["legal_actions"]]
    trump = SUITS.index(seen["hand"]["trump"])
    sung = {SUITS.index(c["suit"]) for c in seen["hand"]["cantos"]}
    keep = set()
    for suit in set(range(4)) - sung:
        pair = {suit * 10 + KING, suit * 10 + KNIGHT}
        if pair <= set(hand):
            keep |= pair
    return hand, legal, trump, keep


def test_with_three_trumps_and_no_plain_ace_the_leader_draws_trumps() -> None:
    """level-2 leads the ace of trumps if it holds it, else its lowest trump; level-3 leads its top trump
    whenever no higher trump is left in play (it counts them), else its lowest."""
    seen_leads = 0
    for seen in turns("clasico", 150):
        if seen["hand"]["trick"]:
            continue
        hand, legal, trump, keep = facts(seen)
        trumps = [c for c in legal if c // 10 == trump and c not in keep]
        if len(trumps) < 3 or any(c % 10 == ACE and c // 10 != trump for c in legal):
            continue
        seen_leads += 1
        assert card_of("level-2", seen) == (max(trumps) if trump * 10 + ACE in trumps else min(trumps))
        if len(hand) <= ENDGAME_CARDS:
            continue  # level-3 solves the last tricks instead
        played = {parse(p["card"]) for trick in seen["hand"]["tricks"] for p in trick}
        higher_live = [c for c in range(max(trumps) + 1, trump * 10 + 10) if c not in played]
        assert card_of("level-3", seen) == (min(trumps) if higher_live else max(trumps))
    assert seen_leads >= 20


def test_in_dos_with_the_stock_still_there_level2_leads_no_trump_to_draw() -> None:
    """While the stock lasts nobody must follow (C5.h): drawing trumps would only spend them."""
    checked = 0
    for seen in turns("dos", 100):
        if seen["hand"]["trick"] or not seen["hand"]["stock_count"]:
            continue
        _hand, legal, trump, keep = facts(seen)
        plain = [c for c in legal if c // 10 != trump]
        trumps = [c for c in legal if c // 10 == trump and c not in keep]
        if len(trumps) < 3 or not plain or any(c % 10 == ACE for c in plain):
            continue
        checked += 1
        assert card_of("level-2", seen) // 10 != trump
    assert checked >= 10


def test_level2_feeds_a_partner_whose_ace_holds_the_trick() -> None:
    checked = 0
    for seen in turns("clasico", 150):
        trick = seen["hand"]["trick"]
        if not trick or len(trick) == 3:
            continue
        _hand, legal, trump, keep = facts(seen)
        best, best_seat, _points = trick_state(seen)
        if best % 10 != ACE or seen["sides"][best_seat] != seen["sides"][seen["my_seat"]]:
            continue
        spare = [c for c in legal if c not in keep and c // 10 != trump]
        if not spare or len({POINTS[c] for c in legal}) == 1:
            continue
        checked += 1
        assert POINTS[card_of("level-2", seen)] == max(POINTS[c] for c in spare)
    assert checked >= 10


def test_level2_takes_a_trick_with_a_card_that_spares_its_canto() -> None:
    """Holding king and knight of an unsung suit, it does not break the pair to take a trick another card takes."""
    checked = 0
    for seen in turns("clasico", 300):
        if not seen["hand"]["trick"]:
            continue
        _hand, legal, trump, keep = facts(seen)
        best, best_seat, _points = trick_state(seen)
        if seen["sides"][best_seat] == seen["sides"][seen["my_seat"]]:
            continue
        takers = [c for c in legal if (c // 10 == best // 10 and c > best) or (c // 10 == trump != best // 10)]
        if not any(c in keep for c in takers) or all(c in keep for c in takers):
            continue
        checked += 1
        assert card_of("level-2", seen) in [c for c in takers if c not in keep]
    assert checked >= 5
