"""Bids and trump choice for the auctions of ``subastado`` and ``subastado_parejas`` (SU2, SU4, SP1, SP2).

A hand is valued, for each possible trump, by the points it should take: its aces and guarded threes,
the length of the trump suit and the cantos it holds (only the bidding side sings, SU4, SP2).
The bot bids the lowest amount it can, up to what its hand is worth; with the auction won it names the
trump that values the hand highest.
"""

from __future__ import annotations

from typing import Any

from games.engine.cards import ACE, KING, KNIGHT, SUIT_MASK, SUITS, THREE, parse

#: Points added to the hand's value before bidding: what the play adds beyond the count (the lead, cards won
#: from the rivals' discards) and, in pairs, the partner's cards. Set by arena runs of level-3 against level-2.
_DARING = {"subastado": 22, "subastado_parejas": 40}


def hand_value(hand: int, trump: int, players: int) -> float:
    """The points a hand should take as the bidding side with this trump (cards, last ten, cantos)."""
    per_trick = 130 / (36 // players if players == 3 else 10)
    tricks = 0.0
    for suit in range(4):
        mine = hand & SUIT_MASK[suit]
        length = mine.bit_count()
        if suit == trump:
            tricks += length * 0.55 + (mine >> (suit * 10 + ACE) & 1) * 0.4 + (mine >> (suit * 10 + THREE) & 1) * 0.3
            continue
        if mine >> (suit * 10 + ACE) & 1:
            tricks += 0.9
            if mine >> (suit * 10 + THREE) & 1:
                tricks += 0.75
        elif mine >> (suit * 10 + THREE) & 1 and length >= 3:
            tricks += 0.35
    cantos = 0
    for suit in range(4):
        if hand >> (suit * 10 + KING) & 1 and hand >> (suit * 10 + KNIGHT) & 1:
            cantos += 40 if suit == trump else 20
    return tricks * per_trick + cantos * 0.8


def best_trump(hand: int, players: int) -> int:
    return max(range(4), key=lambda s: (hand_value(hand, s, players), (hand & SUIT_MASK[s]).bit_count()))


def choose(view: dict[str, Any], margin: float = 0.0) -> dict[str, Any]:
    """A bid, a pass or a trump choice for the seat to act."""
    legal = view["legal_actions"]
    hand = 0
    for code in view["my_hand"]:
        hand |= 1 << parse(code)
    players = view["players"]
    trump = best_trump(hand, players)
    if legal[0]["type"] == "choose_trump":
        return {"type": "choose_trump", "suit": SUITS[trump]}
    value = hand_value(hand, trump, players) + _DARING[view["variant"]] - margin
    bids = [a for a in legal if a["type"] == "bid" and a["amount"] <= value]
    return bids[0] if bids else {"type": "pass"}
