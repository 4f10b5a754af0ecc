"""What a seat knows about the hidden cards: card counting and inference from its view only.

:func:`read_view` turns a seat's view into a :class:`Knowledge`: the cards played, the cards each
seat is publicly known to hold (cantos, exchanges, the trump card, the face-up card drawn), the cards
each seat cannot hold (inferred from failures to follow, to beat or to trump, C5), and the cards
whose place is unknown, which lie in the other hands or face down in the stock.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from games.engine import Variant, rules_for
from games.engine.cards import ABOVE, KING, KNIGHT, SUIT_MASK, SUITS, parse


@dataclass
class Knowledge:
    """One seat's picture of the hand being played. Cards are ints, sets of cards bit sets."""

    variant: str
    rules: Variant
    players: int
    me: int
    phase: str
    turn: int
    dealer: int
    hand: int  # my cards
    trump: int  # suit, -1 for none (yet)
    played: int  # cards played this hand, the trick in progress included
    tricks: list[list[tuple[int, int]]]  # completed tricks: (seat, card) in play order
    winners: list[int]  # the winner of each completed trick
    trick: list[tuple[int, int]]  # the trick in progress
    known: list[int]  # per seat, the cards publicly known to be in that hand (mine: my whole hand)
    shown: list[int]  # per seat, the cards of that hand shown to the table (the view's ``shown``)
    cannot: list[int]  # per seat, the cards that seat cannot hold (inferred, C5)
    sizes: list[int]  # cards in each hand
    face_up: int  # dos: the face-up card under the stock, -1 for none
    stock_hidden: int  # dos: face-down cards in the stock
    unknown: int  # cards whose place this seat does not know
    sung: int  # bit set of the suits sung (C7)
    points: list[int]  # points each seat has in this hand (cards, last ten, cantos)
    sung_points: list[int]  # canto points each seat scored in this hand
    soloist: int  # the auction's winner, -1 for none
    high_bid: int
    bids: list[tuple[int, int]]  # (seat, amount), amount 0 for a pass
    sides: list[int]

    def team(self, seat: int) -> int:
        """The side a seat plays for in this hand: the pair, or soloist (1) against the rest (0) in subastado."""
        if self.variant == "subastado":
            return 1 if seat == self.soloist else 0
        return self.sides[seat]


def _plays(items: list[dict[str, Any]]) -> list[tuple[int, int]]:
    return [(p["seat"], parse(p["card"])) for p in items]


def trick_winner(plays: list[tuple[int, int]], trump: int) -> tuple[int, int]:
    """C6: the seat and card winning a (possibly partial) trick."""
    seat, best = plays[0]
    for s, card in plays[1:]:
        if card // 10 == best // 10:
            if card > best:
                seat, best = s, card
        elif card // 10 == trump:
            seat, best = s, card
    return seat, best


def infer_cannot(plays: list[tuple[int, int]], trump: int, cannot: list[int]) -> None:
    """C5: what each follower's card says about the cards it did not hold.

    Following suit below the best card of the led suit (no trump on the trick) shows no higher card of
    it (C5.b); not following shows a void (C5.a); then not trumping shows no trump (C5.c), or, with a
    trump on the trick, no trump above it (C5.d). Before any trump exists nothing is owed (C5.g).
    """
    if not plays:
        return
    _, best = plays[0]
    led = best // 10
    for seat, card in plays[1:]:
        suit = card // 10
        if suit == led:
            if best // 10 == led and card < best:
                cannot[seat] |= ABOVE[best]
        else:
            cannot[seat] |= SUIT_MASK[led]
            if trump >= 0:
                if best // 10 == trump:
                    if not (suit == trump and card > best):
                        cannot[seat] |= ABOVE[best]
                elif suit != trump:
                    cannot[seat] |= SUIT_MASK[trump]
        if suit == best // 10:
            if card > best:
                best = card
        elif suit == trump:
            best = card


def _table_canto_trumps(tricks: list[list[tuple[int, int]]]) -> list[int]:
    """Cabrón (CB3): the trump in force during each trick and after the last one."""
    trump = -1
    out = []
    for plays in tricks:
        out.append(trump)
        if trump < 0:
            seen = 0
            for _, card in plays:
                seen |= 1 << card
                if card % 10 in (KING, KNIGHT):
                    suit = card // 10
                    if seen >> (suit * 10 + KING) & 1 and seen >> (suit * 10 + KNIGHT) & 1:
                        trump = suit
                        break
    out.append(trump)
    return out


def read_view(view: dict[str, Any]) -> Knowledge:
    """Everything ``view``'s seat may deduce about where the cards are."""
    hand_view = view["hand"]
    variant = view["variant"]
    rules = rules_for(variant, view["options"])
    n = view["players"]
    me = view["my_seat"]
    hand = 0
    for code in view["my_hand"]:
        hand |= 1 << parse(code)
    trump = SUITS.index(hand_view["trump"]) if hand_view["trump"] else -1
    tricks = [_plays(t) for t in hand_view["tricks"]]
    trick = _plays(hand_view["trick"])
    winners = [t[0][0] for t in tricks[1:]]
    if tricks:
        winners.append(hand_view["last_trick_winner"])
    played = 0
    for plays in [*tricks, trick]:
        for _, card in plays:
            played |= 1 << card
    known = [0] * n
    for seat, cards in enumerate(hand_view["shown"]):
        for code in cards:
            known[seat] |= 1 << parse(code)
    shown = list(known)
    known[me] = hand
    face_up = parse(hand_view["face_up"]) if hand_view["face_up"] else -1
    stock_count = hand_view["stock_count"]
    stock_hidden = stock_count - (1 if face_up >= 0 else 0)
    cannot = [0] * n
    # C5.h: no duty while the stock lasts in dos; so only tricks played after it ran out say anything.
    if variant == "dos":
        size = view["options"]["hand_size"]
        free = (rules.deck.bit_count() - 2 * size) // 2
        for plays in tricks[free:]:
            infer_cannot(plays, trump, cannot)
        if stock_count == 0:
            infer_cannot(trick, trump, cannot)
    elif variant == "cabron":
        trumps = _table_canto_trumps(tricks)
        for plays, in_force in zip(tricks, trumps, strict=False):
            infer_cannot(plays, in_force, cannot)
        infer_cannot(trick, trumps[-1], cannot)
    else:
        for plays in [*tricks, trick]:
            infer_cannot(plays, trump, cannot)
    known_all = 0
    for seat in range(n):
        known_all |= known[seat]
        cannot[seat] &= ~known[seat]
    unknown = rules.deck & ~played & ~known_all & ~hand
    if face_up >= 0:
        unknown &= ~(1 << face_up)
    for seat in range(n):
        if seat != me:
            for other in range(n):
                if other != seat:
                    cannot[seat] |= known[other]
    sung = 0
    sung_points = [0] * n
    for canto in hand_view["cantos"]:
        sung |= 1 << SUITS.index(canto["suit"])
        sung_points[canto["seat"]] += canto["points"]
    contract = hand_view["contract"]
    return Knowledge(
        variant=variant,
        rules=rules,
        players=n,
        me=me,
        phase=hand_view["phase"],
        turn=hand_view["turn"] if hand_view["turn"] is not None else -1,
        dealer=hand_view["dealer"],
        hand=hand,
        trump=trump,
        played=played,
        tricks=tricks,
        winners=winners,
        trick=trick,
        known=known,
        shown=shown,
        cannot=cannot,
        sizes=list(hand_view["hand_sizes"]),
        face_up=face_up,
        stock_hidden=stock_hidden,
        unknown=unknown,
        sung=sung,
        points=list(hand_view["points"]),
        sung_points=sung_points,
        soloist=contract["seat"] if contract else -1,
        high_bid=contract["bid"] if contract else max((b["amount"] or 0 for b in hand_view["bids"]), default=0),
        bids=[(b["seat"], b["amount"] or 0) for b in hand_view["bids"]],
        sides=list(view["sides"]),
    )
