"""Helpers for the engine's tests: chosen deals, positions built card by card, and an independent C5.

The C5 here is written from RULES.md with card codes and the rank order of C3, on purpose without
anything of ``games/engine/tricks.py``: the property tests check the engine against it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from typing import Any

from games.engine import IllegalAction, State, Step, cards, new_match, push

SUITS = "OCEB"
#: C3: strongest first.
ORDER = ("1", "3", "12", "11", "10", "7", "6", "5", "4", "2")
#: C4.
CARD_POINTS = {"1": 11, "3": 10, "12": 4, "11": 3, "10": 2}
ALL_CODES = tuple(f"{s}{r}" for s in SUITS for r in ("1", "2", "3", "4", "5", "6", "7", "10", "11", "12"))
CODES_36 = tuple(c for c in ALL_CODES if c[1:] != "2")


CARD_CODE = re.compile(r"(?<![A-Za-z0-9])[OCEB](?:1[012]|[1-7])(?![0-9])")


def codes_in(value: Any) -> set[str]:
    """Every card code written anywhere in a JSON value (keys, strings, nested)."""
    return set(CARD_CODE.findall(json.dumps(value)))


def suit(code: str) -> str:
    return code[0]


def rank(code: str) -> str:
    return code[1:]


def strength(code: str) -> int:
    """C3: a bigger number is a stronger card of its suit."""
    return len(ORDER) - ORDER.index(rank(code))


def points(code: str) -> int:
    return CARD_POINTS.get(rank(code), 0)


def c(code: str) -> int:
    """The engine's int for a card code."""
    return cards.parse(code)


def mask(codes: Iterable[str]) -> int:
    return cards.mask_of([c(x) for x in codes])


def hand_codes(state: State, seat: int) -> set[str]:
    return set(cards.codes(state.hands[seat]))


# -- chosen deals ------------------------------------------------------------------------------


def deck_for(
    players: int,
    dealer: int,
    hands: Mapping[int, list[str]],
    *,
    size: int | None = None,
    last: str | None = None,
    deck: Iterable[str] | None = None,
) -> list[int]:
    """A deck that deals each seat the cards listed for it (C11: one at a time from the mano).

    ``deck[i]`` goes to seat ``(mano + i) % players``; the dealer gets the last card, which is the
    trump card in clásico and individual (``last`` chooses it). Seats not listed, or listed short,
    get the unused cards in deck order.
    """
    all_codes = list(deck) if deck is not None else list(CODES_36 if players == 3 else ALL_CODES)
    size = size or len(all_codes) // players
    wanted = {seat: list(codes) for seat, codes in hands.items()}
    if last is not None:
        wanted.setdefault(dealer, [])
        assert last not in wanted[dealer]
    used = {x for codes in wanted.values() for x in codes} | ({last} if last else set())
    assert len(used) == sum(len(v) for v in wanted.values()) + (1 if last else 0), "a card listed twice"
    spare = [x for x in all_codes if x not in used]
    full: dict[int, list[str]] = {}
    for seat in range(players):
        codes = wanted.get(seat, [])
        room = size - len(codes) - (1 if last is not None and seat == dealer else 0)
        assert room >= 0, f"too many cards for seat {seat}"
        full[seat] = codes + [spare.pop(0) for _ in range(room)]
        if last is not None and seat == dealer:
            full[seat].append(last)
    mano = (dealer + 1) % players
    out = [full[(mano + i) % players][i // players] for i in range(size * players)]
    return [c(x) for x in out]


def dos_deck(
    dealer: int,
    hands: Mapping[int, list[str]],
    face_up: str,
    stock: list[str] = (),  # type: ignore[assignment]
    *,
    size: int = 8,
) -> list[int]:
    """A deck for ``dos`` (D1): ``size`` each alternating from the non-dealer, the face-up card, then the
    stock in draw order (``stock`` first, then the unused cards)."""
    used = [x for codes in hands.values() for x in codes] + [face_up, *stock]
    assert len(set(used)) == len(used), "a card listed twice"
    spare = [x for x in ALL_CODES if x not in used]
    full = {seat: list(hands.get(seat, [])) for seat in (0, 1)}
    for seat in (0, 1):
        while len(full[seat]) < size:
            full[seat].append(spare.pop(0))
    mano = 1 - dealer
    dealt = [full[(mano + i) % 2][i // 2] for i in range(2 * size)]
    return [c(x) for x in [*dealt, face_up, *stock, *spare]]


def deal(
    variant: str,
    options: Mapping[str, Any] | None = None,
    *,
    dealer: int = 0,
    hands: Mapping[int, list[str]] | None = None,
    last: str | None = None,
    decks: list[list[int]] | None = None,
    size: int | None = None,
) -> Step:
    """A match whose first hand deals ``hands`` (see :func:`deck_for`); later hands are seeded."""
    if decks is None:
        players = {"clasico": 4, "subastado": 3, "dos": 2, "subastado_parejas": 4}.get(variant)
        players = players or int((options or {}).get("players", 4))
        decks = [deck_for(players, dealer, hands or {}, last=last, size=size)]
    return new_match(variant, options or {}, seed=1, first_dealer=dealer, decks=decks)


# -- acting ------------------------------------------------------------------------------------


def play(state: State, *codes: str) -> list[dict[str, Any]]:
    """The seats to act play these cards in turn; returns the events."""
    events: list[dict[str, Any]] = []
    for code in codes:
        events += push(state, state.turn, {"type": "play", "card": code})
    return events


def of_type(events: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == kind]


def trick_winner(events: list[dict[str, Any]]) -> int:
    """The seat that won the (only) trick finished in these events."""
    (won,) = of_type(events, "trick_won")
    seat: int = won["seat"]
    return seat


def refusal(state: State, action: Mapping[str, Any], seat: int | None = None) -> IllegalAction:
    """The error an action is refused with (and a check that the refusal changed nothing)."""
    from games.engine import to_json

    before = to_json(state)
    try:
        push(state, state.turn if seat is None else seat, action)
    except IllegalAction as error:
        assert to_json(state) == before, "a refused action changed the state"
        return error
    raise AssertionError(f"{action} was accepted")


def legal_codes(state: State) -> set[str]:
    from games.engine import legal_actions

    return {a["card"] for a in legal_actions(state) if a["type"] == "play"}


def position(
    variant: str,
    options: Mapping[str, Any] | None,
    *,
    trump: str | None,
    hands: Mapping[int, list[str]],
    lead: int,
    played: Iterable[str] = (),
) -> State:
    """A trick in progress: each seat holds the cards listed for it (seats not listed hold nothing),
    ``lead`` leads and the cards ``played`` have been played in seat order from the lead."""
    state = deal(variant, options).state
    state.hands = [mask(hands.get(seat, [])) for seat in range(state.players)]
    state.trump = SUITS.index(trump) if trump else -1
    state.face_up, state.stock = -1, []
    state.phase, state.turn, state.lead = "play", lead, lead
    play(state, *played)
    return state


# -- C5 written again from RULES.md ------------------------------------------------------------


def c5_refusal(hand: Iterable[str], trick: list[str], card: str, trump: str | None, stock_phase: bool) -> str | None:
    """The code of the duty of C5 that playing ``card`` from ``hand`` breaks, or None if it is legal.

    ``trick`` holds the cards already played, the led card first; ``trump`` is a suit letter or None
    (C5.g); ``stock_phase`` is D2's stock phase (C5.h).
    """
    hand = set(hand)
    if card not in hand:
        return "card_not_in_hand"
    if stock_phase or not trick:
        return None  # C5.h; the leader plays any card
    led = suit(trick[0])
    follow = [x for x in hand if suit(x) == led]
    trumps_on_trick = [x for x in trick if trump is not None and suit(x) == trump]
    if follow:
        if suit(card) != led:
            return "must_follow_suit"  # C5.a
        if trump is not None and led != trump and trumps_on_trick:
            return None  # C5.b: someone trumped: any card of the led suit
        highest = max(strength(x) for x in trick if suit(x) == led)
        higher = [x for x in follow if strength(x) > highest]
        if higher and card not in higher:
            return "must_beat"  # C5.b
        return None
    if trump is None:
        return None  # C5.g
    my_trumps = [x for x in hand if suit(x) == trump]
    if not my_trumps:
        return None  # C5.e
    if trumps_on_trick:
        top = max(strength(x) for x in trumps_on_trick)
        over = [x for x in my_trumps if strength(x) > top]
        if over and card not in over:
            return "must_overtrump"  # C5.d
        return None  # C5.d: cannot over-trump: any card
    if suit(card) != trump:
        return "must_trump"  # C5.c
    return None


def c6_winner(trick: list[tuple[int, str]], trump: str | None) -> int:
    """C6: the seat whose card wins a complete trick of ``(seat, card)`` pairs."""
    trumps = [(strength(x), seat) for seat, x in trick if trump is not None and suit(x) == trump]
    if trumps:
        return max(trumps)[1]
    led = suit(trick[0][1])
    return max((strength(x), seat) for seat, x in trick if suit(x) == led)[1]
