"""level-2: simple sound play.

Lead a plain ace, or draw trumps when holding three (:func:`~games.bots.tricks.lead_by_rules`); follow
cheaply; win a trick with the lowest card that wins it, sparing kings and knights that can still make a
canto; feed a partner's trick that is sure or held by an ace; throw blanks on lost tricks
(:func:`~games.bots.tricks.follow_by_rules`); bid what the hand is worth.
In cabrón, steer away from finishing at 0, over 100 or in the middle (CB4).
"""

from __future__ import annotations

import random
from typing import Any

from games.engine.cards import ACE, CODES, KING, KNIGHT, POINTS, SUITS, THREE, parse

from .tricks import (
    beats,
    can_still_sing,
    cheapest,
    follow_by_rules,
    lead_by_rules,
    lowest_winner,
    trick_state,
    trump_of,
)


def choose(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    legal = view["legal_actions"]
    kind = legal[0]["type"]
    if kind == "play":
        card = _card(view)
        return {"type": "play", "card": CODES[card]}
    if kind == "choose_trump":
        return {"type": "choose_trump", "suit": SUITS[best_trump(_hand(view))]}
    return _bid(view, legal)


def _hand(view: dict[str, Any]) -> list[int]:
    return [parse(c) for c in view["my_hand"]]


def _card(view: dict[str, Any]) -> int:
    hand = _hand(view)
    legal = [parse(a["card"]) for a in view["legal_actions"]]
    trump = trump_of(view)
    sung = {SUITS.index(c["suit"]) for c in view["hand"]["cantos"]}
    keep = {c for c in hand if can_still_sing(c, hand, sung)}
    best, best_seat, points = trick_state(view)
    seat, n = view["my_seat"], view["players"]
    sides = view["sides"]
    trick_size = len(view["hand"]["trick"])
    last_to_play = trick_size == n - 1
    if view["variant"] == "cabron":
        return _cabron_card(view, legal, trump, keep, best, points)
    if trick_size == 0:
        draw_trumps = not view["hand"]["stock_count"]
        return lead_by_rules(legal, trump, keep, draw_trumps, master_trump=trump * 10 + ACE)
    partner_winning = best_seat >= 0 and best_seat != seat and sides[best_seat] == sides[seat]
    return follow_by_rules(legal, best, partner_winning, last_to_play, points, trump, keep)


def _cabron_card(
    view: dict[str, Any], legal: list[int], trump: int, keep: set[int], best: int, points: int
) -> int:
    """CB4: take a trick when at 0, stop taking once high, otherwise stay away from the middle."""
    totals = view["hand"]["points"]
    me = totals[view["my_seat"]]
    others = [t for s, t in enumerate(totals) if s != view["my_seat"]]
    want = me == 0 or (me < 90 and me >= max(others))
    winner = lowest_winner(legal, best, trump)
    if want and winner is not None:
        return winner
    losers = [c for c in legal if best >= 0 and c != winner and not beats(c, best, trump)]
    pool = losers or legal
    return min(pool, key=lambda c: (POINTS[c], c % 10)) if not want else cheapest(pool, trump, set())


def hand_value(hand: list[int], trump: int) -> int:
    """A rough count of the points a hand takes with this trump: high cards, trump length, cantos."""
    value = 0
    for card in hand:
        suit, rank = card // 10, card % 10
        if rank == ACE:
            value += 11
        elif rank == THREE and suit * 10 + ACE in hand:
            value += 10
        if suit == trump:
            value += 6
    for suit in range(4):
        if suit * 10 + KING in hand and suit * 10 + KNIGHT in hand:
            value += 40 if suit == trump else 20
    return value


def best_trump(hand: list[int]) -> int:
    return max(range(4), key=lambda s: (hand_value(hand, s), sum(1 for c in hand if c // 10 == s)))


def _bid(view: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
    hand = _hand(view)
    value = hand_value(hand, best_trump(hand)) + (25 if view["variant"] == "subastado_parejas" else 10)
    bids = [a for a in legal if a["type"] == "bid" and a["amount"] <= value]
    if not bids:
        return {"type": "pass"}
    return bids[0]  # the lowest bid that is enough
