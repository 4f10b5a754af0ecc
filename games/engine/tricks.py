"""Playing to a trick and winning it (RULES.md C5, C6)."""

from __future__ import annotations

from .cards import ABOVE, CODES, SUIT_MASK, SUITS
from .errors import Code, IllegalAction
from .state import State


def legal_cards(state: State) -> int:
    """The bit set of the cards the seat to act may play to the trick (C5)."""
    hand = state.hands[state.turn]
    if not state.trick or state.face_up >= 0:
        return hand  # the leader plays any card; C5.h: no duty while the stock lasts (D2)
    best = state.winning_card
    led = state.trick[0] // 10
    follow = hand & SUIT_MASK[led]
    if follow:  # C5.a
        if best // 10 != led:
            return follow  # C5.b: once trumped, any card of the led suit
        return follow & ABOVE[best] or follow  # C5.b: beat if you can (C5.f: even your partner)
    trump = state.trump
    if trump < 0:
        return hand  # C5.g: no trump yet
    trumps = hand & SUIT_MASK[trump]
    if not trumps:
        return hand  # C5.e
    if best // 10 == trump:
        return trumps & ABOVE[best] or hand  # C5.d: over-trump, or any card
    return trumps  # C5.c


def refuse_card(state: State, card: int) -> IllegalAction:
    """The error naming the duty that playing ``card`` would break (C5)."""
    seat = state.turn
    hand = state.hands[seat]
    name = CODES[card]
    if not hand >> card & 1:
        return IllegalAction(Code.CARD_NOT_IN_HAND, f"{name} is not in seat {seat}'s hand")
    led = state.trick[0] // 10
    best = state.winning_card
    if hand & SUIT_MASK[led]:
        if card // 10 != led:
            return IllegalAction(
                Code.MUST_FOLLOW_SUIT, f"{name} does not follow suit: play a card of {SUITS[led]}", rule="C5.a"
            )
        return IllegalAction(
            Code.MUST_BEAT, f"{name} does not beat {CODES[best]}: play a higher {SUITS[led]}", rule="C5.b"
        )
    trump = state.trump
    if best // 10 == trump:
        return IllegalAction(
            Code.MUST_OVERTRUMP, f"{name} does not over-trump {CODES[best]}: play a higher {SUITS[trump]}",
            rule="C5.d",
        )
    return IllegalAction(
        Code.MUST_TRUMP, f"{name} is neither {SUITS[led]} nor trump: play a trump ({SUITS[trump]})", rule="C5.c"
    )


def beats(state: State, card: int) -> bool:
    """Whether ``card`` takes the trick from the card winning it now (C6)."""
    best = state.winning_card
    if card // 10 == best // 10:
        return card > best
    return card // 10 == state.trump
