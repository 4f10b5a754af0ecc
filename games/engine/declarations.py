"""What the table declares for a player (C10): tute (C9), cantos (C7, C8, CB3) and exchanges (D4);
and, with ``declarations: manual`` (C10m), what the entitled player may declare in their turn."""

from __future__ import annotations

from .actions import EXCHANGE, SINGS, TUTE, Action
from .cards import ACE, CODES, FOUR, KING, KINGS, KNIGHT, KNIGHTS, SEVEN, SOTA, SUIT_MASK, SUITS, TWO, king, knight
from .state import Log, State

TUTE_KINDS = ("kings", "knights")
#: Per trump suit, the cards that may be exchanged for the face-up card (D4): its 7 and its 2.
EXCHANGEABLE = tuple(1 << (s * 10 + SEVEN) | 1 << (s * 10 + TWO) for s in range(4))


#: What a seat did in its declaration turn (``State.declared``, C10m): one canto per won trick (C8), one exchange.
DECLARED_CANTO, DECLARED_EXCHANGE = 1, 2


def declare_tute(state: State, seat: int, events: Log, declared: bool = False) -> bool:
    """C9: a seat holding four kings or four knights wins the hand at once.

    ``declared``: the player declared it (C10m); its event says so, since it records their action.
    """
    hand = state.hands[seat]
    if hand & KINGS != KINGS and hand & KNIGHTS != KNIGHTS:
        return False
    for kind, four in enumerate((KINGS, KNIGHTS)):
        if hand & four == four:
            state.tute = [seat, kind]
            state.seen[seat] |= four
            shown = [CODES[c] for c in range(40) if four >> c & 1]
            if events is not None:
                data = {"kind": TUTE_KINDS[kind], "cards": shown}
                events.append({"type": "tute", "seat": seat, "data": {**data, "declared": True} if declared else data})
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


def _score_canto(state: State, seat: int, suit: int, points: int, events: Log, declared: bool = False) -> None:
    state.sung |= 1 << suit
    state.sung_points[seat] += points
    state.cantos.append([seat, suit, points])
    cards = [CODES[king(suit)], CODES[knight(suit)]]
    if events is not None:
        data = {"suit": SUITS[suit], "points": points, "cards": cards}
        events.append({"type": "canto", "seat": seat, "data": {**data, "declared": True} if declared else data})


def exchange_card(state: State, seat: int) -> int:
    """D4: the card the seat may swap for the face-up card (the 7 or the 2 of trump), or -1."""
    face_up = state.face_up
    if face_up < 0:
        return -1
    trump = state.trump
    rank = face_up % 10
    if SOTA <= rank <= ACE:
        give = trump * 10 + SEVEN
    elif FOUR <= rank <= SEVEN:
        give = trump * 10 + TWO
    else:
        return -1
    return give if state.hands[seat] >> give & 1 else -1


def exchange(state: State, seat: int, events: Log, declared: bool = False) -> None:
    """D4: the seat swaps the 7 of trump for a face-up 1, 3, 12, 11 or 10, or the 2 for a face-up 4–7."""
    give = exchange_card(state, seat)
    if give < 0:
        return
    face_up = state.face_up
    state.hands[seat] ^= 1 << give | 1 << face_up
    state.seen[seat] |= 1 << face_up
    state.face_up = give
    if events is not None:
        data = {"gave": CODES[give], "took": CODES[face_up]}
        events.append({"type": "exchange", "seat": seat, "data": {**data, "declared": True} if declared else data})


# -- C10m: the player declares ------------------------------------------------------------------


def declarations(state: State, seat: int) -> list[Action]:
    """What ``seat`` may declare now, pass aside (C10m): each suit it may sing (C7, C8), tute (C9), the exchange (D4).

    Meaningful for the seat whose side just won a trick; empty when it has nothing to declare.
    """
    hand = state.hands[seat]
    found: list[Action] = []
    if not state.declared & DECLARED_CANTO:
        pairs = hand & hand >> 1 & KNIGHTS  # a knight's bit for each suit whose king is held too
        found += [SINGS[s] for s in range(4) if pairs >> knight(s) & 1 and not state.sung >> s & 1]
    if state.rules.tute and (hand & KINGS == KINGS or hand & KNIGHTS == KNIGHTS):
        found.append(TUTE)
    if not state.declared & DECLARED_EXCHANGE and exchange_card(state, seat) >= 0:
        found.append(EXCHANGE)
    return found


def open_declarations(state: State, seats: list[int], events: Log) -> None:
    """C10m: after a trick, ``seats`` (the winner first, then a partner: CL3) declare in turn; a seat with
    nothing to declare is never asked. With nobody to ask the hand goes on at once."""
    state.declaring, state.declared = seats, 0
    next_declarer(state, events)


def next_declarer(state: State, events: Log) -> None:
    """The first seat of ``state.declaring`` that has something to declare gets the turn; with none left the
    declarations are over: the trick's winner leads (in ``dos`` after the draw, D2)."""
    declaring = state.declaring
    while declaring:
        if declarations(state, declaring[0]):
            state.phase, state.turn = "declare", declaring[0]
            return
        declaring = state.declaring = declaring[1:]
        state.declared = 0
    state.phase, state.turn = "play", state.lead
    state.rules.after_declarations(state, state.lead, events)


def sing_suit(state: State, seat: int, suit: int, events: Log) -> None:
    """C10m: the seat sings ``suit``, which :func:`declarations` allows (C7: 40 in trump, else 20)."""
    state.seen[seat] |= 1 << king(suit) | 1 << knight(suit)
    _score_canto(state, seat, suit, 40 if suit == state.trump else 20, events, declared=True)
    state.declared |= DECLARED_CANTO
