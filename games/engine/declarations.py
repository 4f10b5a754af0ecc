"""What the table declares for a player (C10): tute (C9), cantos (C7, C8, CB3) and exchanges (D4)."""

from __future__ import annotations

from .cards import ACE, CODES, FOUR, KING, KINGS, KNIGHT, KNIGHTS, SEVEN, SOTA, SUIT_MASK, SUITS, TWO, king, knight
from .state import Log, State

TUTE_KINDS = ("kings", "knights")
#: Per trump suit, the cards that may be exchanged for the face-up card (D4): its 7 and its 2.
EXCHANGEABLE = tuple(1 << (s * 10 + SEVEN) | 1 << (s * 10 + TWO) for s in range(4))


def declare_tute(state: State, seat: int, events: Log) -> bool:
    """C9: a seat holding four kings or four knights wins the hand at once."""
    hand = state.hands[seat]
    if hand & KINGS != KINGS and hand & KNIGHTS != KNIGHTS:
        return False
    for kind, four in enumerate((KINGS, KNIGHTS)):
        if hand & four == four:
            state.tute = [seat, kind]
            state.seen[seat] |= four
            shown = [CODES[c] for c in range(40) if four >> c & 1]
            if events is not None:
                events.append({"type": "tute", "seat": seat, "data": {"kind": TUTE_KINDS[kind], "cards": shown}})
            return True
    return False


def sing(state: State, seat: int, events: Log) -> None:
    """C8: one canto for ``seat`` from its hand, if it holds an unsung king and knight."""
    hand = state.hands[seat]
    pairs = hand & hand >> 1 & KNIGHTS  # a knight's bit for each suit whose king is held too
    if not pairs:
        return
    suits = [s for s in range(4) if pairs >> knight(s) & 1 and not state.sung >> s & 1]
    if not suits:
        return
    # The 40 first; then the suit the singer holds fewest of; ties by suit order O, C, E, B.
    suit = state.trump if state.trump in suits else min(suits, key=lambda s: ((hand & SUIT_MASK[s]).bit_count(), s))
    state.seen[seat] |= 1 << king(suit) | 1 << knight(suit)  # a canto shows both cards
    _score_canto(state, seat, suit, 40 if suit == state.trump else 20, events)


def sing_table_cantos(state: State, winner: int, trick: list[int], events: Log) -> None:
    """CB3: a king and a knight of one suit falling in one trick are sung by the trick's winner.

    The first canto of the hand is worth 40 and makes its suit trump from the next trick on;
    later ones are worth 20. Two cantos in one trick are sung in the order their pairs were completed.
    """
    seen = 0
    for card in trick:
        seen |= 1 << card
        rank = card % 10
        if rank not in (KING, KNIGHT):
            continue
        suit = card // 10
        if seen >> king(suit) & 1 and seen >> knight(suit) & 1:
            first = state.trump < 0
            if first:
                state.trump = suit
            _score_canto(state, winner, suit, 40 if first else 20, events)


def _score_canto(state: State, seat: int, suit: int, points: int, events: Log) -> None:
    state.sung |= 1 << suit
    state.sung_points[seat] += points
    state.cantos.append([seat, suit, points])
    cards = [CODES[king(suit)], CODES[knight(suit)]]
    if events is not None:
        events.append({"type": "canto", "seat": seat, "data": {"suit": SUITS[suit], "points": points, "cards": cards}})


def exchange(state: State, seat: int, events: Log) -> None:
    """D4: the seat swaps the 7 of trump for a face-up 1, 3, 12, 11 or 10, or the 2 for a face-up 4–7."""
    face_up = state.face_up
    trump = state.trump
    rank = face_up % 10
    if SOTA <= rank <= ACE:
        give = trump * 10 + SEVEN
    elif FOUR <= rank <= SEVEN:
        give = trump * 10 + TWO
    else:
        return
    if not state.hands[seat] >> give & 1:
        return
    state.hands[seat] ^= 1 << give | 1 << face_up
    state.seen[seat] |= 1 << face_up
    state.face_up = give
    if events is not None:
        events.append({"type": "exchange", "seat": seat, "data": {"gave": CODES[give], "took": CODES[face_up]}})
