"""What each variant of RULES.md changes in the one trick-taking core.

A :class:`Variant` is a small set of hooks over the shared flow of :mod:`games.engine.game`:
how the cards are dealt, who sings after a trick, how a hand is scored and when the match ends.
"""

from __future__ import annotations

from typing import Any

from .cards import CODES, DECK_36, DECK_40, KINGS, KNIGHTS
from .declarations import EXCHANGEABLE, declare_tute, exchange, open_declarations, sing, sing_table_cantos
from .options import OptionValue, player_count
from .state import Log, State


class Variant:
    """The rules every variant shares; subclasses override what RULES.md changes. Provides :class:`~.state.Rules`."""

    name = ""
    pairs = False  # C11: seats 0 and 2 against 1 and 3
    auction = False  # SU, SP: the hand starts with bids
    tute = False  # C9 is allowed
    shows_trump_card = True  # CL1, IN1: the dealer's last card is trump

    def __init__(self, options: dict[str, OptionValue]):
        self.options = options
        self.manual = options.get("declarations") == "manual"  # C10m: the players declare
        self.players = player_count(self.name, options)
        self.sides = 2 if self.pairs else self.players
        self.deck = DECK_36 if self.players == 3 else DECK_40  # C1, CB1, SU1, IN1
        n = self.players
        #: The seats in playing order from each seat (C11).
        self.seats_from = [[(lead + i) % n for i in range(n)] for lead in range(n)]

    def side_of(self, seat: int) -> int:
        return seat % 2 if self.pairs else seat

    def seats_of(self, side: int) -> list[int]:
        return [s for s in range(self.players) if self.side_of(s) == side]

    # -- the deal ---------------------------------------------------------------------
    def deal(self, state: State, deck: list[int]) -> None:
        """C11: one card at a time from the mano, so the dealer receives the last one."""
        n = self.players
        mano = (state.dealer + 1) % n
        for i, card in enumerate(deck):
            state.hands[(mano + i) % n] |= 1 << card
        if self.shows_trump_card:
            state.trump_card = deck[-1]
            state.trump = deck[-1] // 10
            state.seen[state.dealer] |= 1 << deck[-1]

    # -- after each trick -------------------------------------------------------------
    def singers(self, state: State, winner: int) -> list[int]:
        """The seats that may sing after ``winner`` took a trick (C8): the winner by default."""
        return [winner]

    def after_trick(self, state: State, winner: int, last: bool, events: Log) -> bool:
        """Declarations after a trick (C10); True when a tute ended the hand."""
        if last:
            return False  # C8: never after the last trick
        if self.manual:
            open_declarations(state, self.singers(state, winner), events)  # C10m
            return False
        return declare(state, self.singers(state, winner), self.tute, events)

    def after_declarations(self, state: State, winner: int, events: Log) -> None:
        """What follows the players' declarations after a trick (C10m): nothing but in ``dos``."""

    # -- scoring ----------------------------------------------------------------------
    def side_points(self, state: State) -> list[int]:
        """Each side's points in the hand: cards, last ten and cantos (C4, C7)."""
        points = [0] * self.sides
        for seat in range(self.players):
            points[self.side_of(seat)] += state.taken[seat] + state.sung_points[seat]
        return points

    def score_hand(self, state: State) -> dict[str, Any]:
        """Score the finished hand into the scoreboard; returns the hand's result."""
        raise NotImplementedError

    def match_winners(self, state: State) -> list[int] | None:
        """The winning sides once the match is over, else None."""
        raise NotImplementedError

    def hand_winner(self, state: State, points: list[int]) -> int:
        """C13: most points; among tied sides the one that won a trick latest."""
        latest = [max(state.last_won[s] for s in self.seats_of(side)) for side in range(self.sides)]
        return max(range(self.sides), key=lambda side: (points[side], latest[side]))


def declare(state: State, seats: list[int], tute: bool, events: Log) -> bool:
    """C9 before C8: a tute by any of ``seats`` ends the hand; otherwise each sings once, in order."""
    hands = state.hands
    if tute:
        for seat in seats:
            hand = hands[seat]
            if (hand & KINGS == KINGS or hand & KNIGHTS == KNIGHTS) and declare_tute(state, seat, events):
                return True
    for seat in seats:
        if hands[seat] & hands[seat] >> 1 & KNIGHTS:  # holds a king and its knight
            sing(state, seat, events)
    return False


class GamesVariant(Variant):
    """Variants where each hand is one game for the side with most points (CL4, IN3, D6)."""

    tute = True

    def score_hand(self, state: State) -> dict[str, Any]:
        points = self.side_points(state)
        tute = state.tute
        winner = self.side_of(tute[0]) if tute is not None else self.hand_winner(state, points)
        state.scoreboard[winner] += 1
        return {"points": points, "winner": winner}

    def match_winners(self, state: State) -> list[int] | None:
        games = self.options["games_to_win"]
        won = [side for side, score in enumerate(state.scoreboard) if score >= games]  # type: ignore[operator]
        return won or None


class Clasico(GamesVariant):
    name = "clasico"
    pairs = True

    def singers(self, state: State, winner: int) -> list[int]:
        return [winner, (winner + 2) % 4]  # CL3: both partners, the trick's winner first


class Individual(GamesVariant):
    name = "individual"


class Dos(GamesVariant):
    name = "dos"
    shows_trump_card = False

    def deal(self, state: State, deck: list[int]) -> None:
        """D1: ``hand_size`` each, non-dealer first; the next card face up is trump; the rest is the stock."""
        size = self.options["hand_size"]
        assert isinstance(size, int)
        mano = 1 - state.dealer
        for i, card in enumerate(deck[: 2 * size]):
            state.hands[(mano + i) % 2] |= 1 << card
        state.face_up = deck[2 * size]
        state.trump = deck[2 * size] // 10
        state.stock = deck[:2 * size:-1]  # the next card to draw is the last of the list

    def after_trick(self, state: State, winner: int, last: bool, events: Log) -> bool:
        hands = state.hands
        if self.manual:  # C10m: the winner declares, then draws (D4, D5)
            if state.face_up >= 0 or self.options["cantos_in_arrastre"] and not last:
                open_declarations(state, [winner], events)
            return False
        if state.face_up < 0:  # D3: the arrastre; D5: declarations only with cantos_in_arrastre
            return bool(self.options["cantos_in_arrastre"]) and not last and declare(state, [winner], True, events)
        if hands[winner] & EXCHANGEABLE[state.trump]:
            exchange(state, winner, events)  # D4, before the declarations
        hand = hands[winner]
        may_declare = hand & hand >> 1 & KNIGHTS or hand & KINGS == KINGS or hand & KNIGHTS == KNIGHTS
        if may_declare and declare(state, [winner], True, events):  # D5
            return True
        self.draw(state, winner, events)
        return False

    def after_declarations(self, state: State, winner: int, events: Log) -> None:
        if state.face_up >= 0:
            self.draw(state, winner, events)  # D4, D5: the declarations come before the draw

    def draw(self, state: State, winner: int, events: Log) -> None:
        """D2: the winner draws first, then the loser; the face-up card is the last one drawn."""
        hands = state.hands
        stock, loser = state.stock, 1 - winner
        card = stock.pop()
        hands[winner] |= 1 << card
        _log_draw(events, winner, card, False)
        if stock:
            card, face_up = stock.pop(), False
        else:
            card, face_up, state.face_up = state.face_up, True, -1
            state.seen[loser] |= 1 << card
        hands[loser] |= 1 << card
        _log_draw(events, loser, card, face_up)


def _log_draw(events: Log, seat: int, card: int, face_up: bool) -> None:
    if events is not None:
        data: dict[str, Any] = {"card": CODES[card], "face_up": True} if face_up else {"card": CODES[card]}
        events.append({"type": "draw", "seat": seat, "data": data})


class Cabron(Variant):
    """CB: each for themselves, trump made by the first table canto, lose in the middle."""

    name = "cabron"
    shows_trump_card = False

    def after_trick(self, state: State, winner: int, last: bool, events: Log) -> bool:
        cards = state.last_trick
        sing_table_cantos(state, winner, cards, events)  # CB3: a canto in the last trick counts too
        return False

    def score_hand(self, state: State) -> dict[str, Any]:
        points = self.side_points(state)
        losers = self.losers(state, points)
        for seat in losers:
            state.scoreboard[seat] += 1  # CB5: a letter each
        return {"points": points, "losers": losers}

    def losers(self, state: State, points: list[int]) -> list[int]:
        """CB4: the first rule that names anyone decides."""
        seats = range(self.players)
        if self.options["zero_rule"] == "tricks":
            losers = [s for s in seats if state.tricks_won[s] == 0]  # CB6
        else:
            losers = [s for s in seats if points[s] == 0]  # CB4.1
        losers = losers or [s for s in seats if points[s] > 100]  # CB4.2
        high, low = max(points), min(points)
        losers = losers or [s for s in seats if low < points[s] < high]  # CB4.3
        return losers or [s for s in seats if points.count(points[s]) > 1]  # CB4.4

    def match_winners(self, state: State) -> list[int] | None:
        letters = state.scoreboard
        if max(letters) < self.options["letters"]:  # type: ignore[operator]
            return None
        fewest = min(letters)
        holders = [s for s, n in enumerate(letters) if n == fewest]
        return holders if len(holders) == 1 else None  # CB5: play on until one alone has fewest


class AuctionVariant(Variant):
    """SU and SP: an auction, then the highest bidder chooses trump and leads."""

    auction = True
    shows_trump_card = False

    def match_winners(self, state: State) -> list[int] | None:
        """SU6: the highest total once someone reaches the target; a tie at the top plays on."""
        scores = state.scoreboard
        if max(scores) < self.options["target"]:  # type: ignore[operator]
            return None
        top = max(scores)
        holders = [side for side, score in enumerate(scores) if score == top]
        return holders if len(holders) == 1 else None


class Subastado(AuctionVariant):
    name = "subastado"

    def singers(self, state: State, winner: int) -> list[int]:
        return [winner] if winner == state.soloist else []  # SU4: only the soloist sings

    def score_hand(self, state: State) -> dict[str, Any]:
        points = self.side_points(state)
        soloist, bid = state.soloist, state.high_bid
        value = bid * 2 if bid >= 120 else bid  # SU5: 120 or more counts double
        made = points[soloist] >= bid
        gains = [0] * self.players
        if made:
            gains[soloist] = value
        else:
            each = value if self.options["failed_bid"] == "each" else -(-value // 2)
            for seat in range(self.players):
                if seat != soloist:
                    gains[seat] = each
        for seat, gain in enumerate(gains):
            state.scoreboard[seat] += gain
        return {"points": points, "soloist": soloist, "bid": bid, "made": made, "gains": gains}


class SubastadoParejas(AuctionVariant):
    name = "subastado_parejas"
    pairs = True

    def singers(self, state: State, winner: int) -> list[int]:
        if winner % 2 != state.soloist % 2:
            return []  # SP2: the defenders do not sing
        return [winner, (winner + 2) % 4]

    def score_hand(self, state: State) -> dict[str, Any]:
        points = self.side_points(state)
        bidders, bid = state.soloist % 2, state.high_bid
        made = points[bidders] >= bid
        gains = [0, 0]
        gains[bidders] = points[bidders] if made else -bid  # SP3
        gains[1 - bidders] = points[1 - bidders]
        for side, gain in enumerate(gains):
            state.scoreboard[side] += gain
        return {"points": points, "soloist": state.soloist, "bid": bid, "made": made, "gains": gains}


VARIANT_CLASSES: dict[str, type[Variant]] = {
    cls.name: cls for cls in (Clasico, Cabron, Subastado, Dos, Individual, SubastadoParejas)
}
_BUILT: dict[tuple[str, tuple[tuple[str, OptionValue], ...]], Variant] = {}


def rules_for(variant: str, options: dict[str, OptionValue]) -> Variant:
    """The rules of a variant with (validated) options, built once and shared."""
    key = (variant, tuple(sorted(options.items())))
    rules = _BUILT.get(key)
    if rules is None:
        rules = _BUILT[key] = VARIANT_CLASSES[variant](options)
    return rules

__all__ = ["VARIANT_CLASSES", "Variant", "rules_for"]
