"""The state of a match: one mutable value with slots, cheap to copy, lossless to JSON.

:class:`Rules` is what the flow of a match asks of a variant; :class:`games.engine.variants.Variant`
provides it, and :mod:`games.engine.snapshot` writes a state as JSON and reads it back.
"""

from __future__ import annotations

from typing import Any, Protocol

from .cards import cards_of
from .options import OptionValue

Event = dict[str, Any]
"""An event as the log stores it: ``{"type": str, "seat": int | None, "data": dict}``."""

Log = list[Event] | None
"""Where the functions that change a state record their events; None to simulate without a record."""

PHASES = ("auction", "trump_choice", "play", "declare", "over")

# Fields holding plain JSON values (ints, strings, lists of ints, dicts of JSON).
_PLAIN = (
    "variant", "options", "seed", "players", "status", "hand_number", "dealer", "scoreboard",
    "results", "winners", "phase", "turn", "lead", "trick_number", "winning_seat", "trump",
    "last_lead", "last_winner", "taken", "sung_points", "tricks_won", "last_won", "sung", "bids", "passed",
    "auction_turns", "high_bid", "high_bidder", "soloist", "cantos", "tute", "decks", "tricks", "fair_deals",
    "declaring", "declared",
)
# Fields holding one card (-1 for none), a list of cards, or a list of bit sets of cards.
_CARD = ("trump_card", "face_up", "winning_card")
_CARD_LIST = ("trick", "last_trick", "stock")
_MASK_LIST = ("hands", "seen")
_MASK = ("played",)
_FIELDS = (*_PLAIN, *_CARD, *_CARD_LIST, *_MASK_LIST, *_MASK)


class State:
    """Everything about a match: the scoreboard, and the hand being played.

    Build one with :func:`games.engine.new_match`; change it only through
    :func:`games.engine.push` / :func:`games.engine.apply_action`.
    Cards are ints and sets of cards bit sets (see :mod:`games.engine.cards`).
    """

    __slots__ = (*_FIELDS, "rules")

    variant: str
    options: dict[str, Any]
    seed: int | None
    players: int
    status: str  # "active" or "finished"
    hand_number: int
    dealer: int
    scoreboard: list[int]  # per side: games won, CABRÓN letters, or points
    results: list[dict[str, Any]]  # one summary per finished hand
    winners: list[int] | None  # winning sides once finished
    phase: str  # one of PHASES
    turn: int  # seat to act, -1 for none
    lead: int  # seat that led the trick in progress
    trick_number: int  # tricks completed in this hand
    winning_seat: int
    trump: int  # suit, -1 for none yet
    last_lead: int
    last_winner: int  # seat that won the last completed trick, -1 for none (M4)
    taken: list[int]  # card points (and the last ten) each seat took this hand
    sung_points: list[int]  # canto points each seat scored this hand
    tricks_won: list[int]
    last_won: list[int]  # number of the latest trick each seat won, -1 for none (C13)
    sung: int  # bit set of the suits sung this hand (C7)
    bids: list[list[int]]  # [seat, amount], amount 0 for a pass
    passed: int  # bit set of seats that passed
    auction_turns: int
    high_bid: int
    high_bidder: int
    soloist: int  # the auction's winner, -1 for none
    cantos: list[list[int]]  # [seat, suit, points]
    tute: list[int] | None  # [seat, 0 for kings / 1 for knights] when a tute ended the hand
    decks: list[list[int]]  # recorded deals still to be dealt (replays)
    tricks: list[list[Any]]  # [lead, [cards]] of each completed trick of this hand
    fair_deals: dict[str, Any] | None  # C12v: {"key": hex, "seeds": [str | None per seat]}, or None
    # C10m (declarations: manual): the seats still to declare after the trick just won, the one to act first;
    # replaced, never changed in place (so copies may share it). [] outside the "declare" phase.
    declaring: list[int]
    declared: int  # what the seat to declare did in this turn: DECLARED_CANTO | DECLARED_EXCHANGE bits
    trump_card: int  # the dealer's card shown for trump (CL1, IN1)
    face_up: int  # the face-up card under the stock (D1), -1 once drawn
    winning_card: int
    trick: list[int]  # cards of the trick in progress, in play order from `lead`
    last_trick: list[int]
    stock: list[int]  # face-down stock; the next card to draw is the last
    hands: list[int]  # each seat's cards
    seen: list[int]  # cards each seat is known to have held this hand, publicly (cantos, exchanges)
    played: int  # cards played this hand
    rules: Rules  # the variant's rules for these options (a games.engine.variants.Variant), not serialized

    def copy(self) -> State:
        """An independent copy (lists copied, immutable values shared)."""
        new = State.__new__(State)
        for name in _PLAIN + _CARD + _MASK:
            setattr(new, name, getattr(self, name))
        new.rules = self.rules
        for name in _CARD_LIST + _MASK_LIST:
            setattr(new, name, list(getattr(self, name)))
        new.scoreboard = list(self.scoreboard)
        new.results = list(self.results)
        new.taken = list(self.taken)
        new.sung_points = list(self.sung_points)
        new.tricks_won = list(self.tricks_won)
        new.last_won = list(self.last_won)
        new.bids = list(self.bids)
        new.cantos = list(self.cantos)
        new.decks = list(self.decks)
        new.tricks = list(self.tricks)
        return new

    def __eq__(self, other: object) -> bool:
        """Equal when every field but the rules is: when both write the same snapshot (:mod:`.snapshot`)."""
        return isinstance(other, State) and all(getattr(self, name) == getattr(other, name) for name in _FIELDS)

    def __repr__(self) -> str:
        return f"<State {self.variant} hand {self.hand_number} {self.phase} turn {self.turn}>"


class Rules(Protocol):
    """What the flow of a match (:mod:`games.engine.game`) asks of a variant's rules for some options.

    :class:`games.engine.variants.Variant` is the one implementation; RULES.md says what each hook does there.
    """

    name: str
    options: dict[str, OptionValue]
    players: int
    sides: int  # 2 in the games of pairs, else one per seat
    deck: int  # the bit set of the cards dealt
    pairs: bool
    auction: bool
    tute: bool
    seats_from: list[list[int]]  # the seats in playing order from each seat

    manual: bool  # C10m: the entitled players declare (option declarations: manual)

    def side_of(self, seat: int) -> int: ...

    def seats_of(self, side: int) -> list[int]: ...

    def deal(self, state: State, deck: list[int]) -> None: ...

    def singers(self, state: State, winner: int) -> list[int]: ...

    def after_trick(self, state: State, winner: int, last: bool, events: Log) -> bool: ...

    def after_declarations(self, state: State, winner: int, events: Log) -> None: ...

    def score_hand(self, state: State) -> dict[str, Any]: ...

    def match_winners(self, state: State) -> list[int] | None: ...


__all__ = ["PHASES", "Event", "Log", "Rules", "State", "cards_of"]
