"""Exact play of the rest of a hand once every card's place is known and the stock is gone.

:class:`Solver` is an alpha-beta search with a transposition table over the tricks still to play,
for two sides: the seat's pair or itself against the rest (paranoid, in ``individual``), or soloist
against defenders (``subastado``). It follows the engine's rules for the tail of a hand: the duties of
C5, C6, the last ten (C4), the hand cantos of each variant (C8, CL3, SU4, SP2, D5) and tute (C9).
Cabrón (table cantos, trump made mid-hand, each for themselves) is played by :func:`maxn` instead.

Values are in half points from the searching side's view: twice its points minus twice the other side's,
plus one if it wins the last trick and minus one if not, so that a tie of points (C13) is never a tie.
"""

from __future__ import annotations

from collections.abc import Callable

from games.engine import State, legal_cards, play_card
from games.engine.cards import ABOVE, KING, KINGS, KNIGHT, KNIGHTS, POINTS, SUIT_MASK, cards_of

TUTE = 100_000  # a tute wins the hand whatever the points (C9)
#: What a point of margin is worth next to a hand won (a hand = 200 points), in :meth:`Solver.score`.
MARGIN_WEIGHT = 1 / 200
INF = 1_000_000
_KNIGHT_BITS = KNIGHTS  # a knight's bit marks a suit in the "pairs" bit sets
_SUIT_OF_KNIGHT = {s * 10 + KNIGHT: s for s in range(4)}
#: Cards worth nothing and singing nothing: interchangeable when no live card lies between them.
_BLANK = [POINTS[c] == 0 and c % 10 not in (KING, KNIGHT) for c in range(40)]


class TooBig(Exception):
    """The search went over its node budget."""


class Solver:
    """The exact value of each card the seat to act may play, for one fully known deal with no stock."""

    def __init__(self, state: State, me: int, node_limit: int = 200_000):
        if state.stock or state.face_up >= 0:
            raise ValueError("the solver plays only once the stock is gone")
        rules = state.rules
        n = self.n = state.players
        self.hands = list(state.hands)
        self.trump = state.trump
        self.sung = state.sung
        self.limit = node_limit
        self.nodes = 0
        self.tt: dict[tuple[int, ...], tuple[int, int, int]] = {}
        variant = state.variant
        if variant == "subastado":
            teams = [1 if s == state.soloist else 0 for s in range(n)]
        elif variant == "individual":
            teams = [1 if s == me else 0 for s in range(n)]
        else:
            teams = [rules.side_of(s) for s in range(n)]
        mine = teams[me]
        self.mine = [t == mine for t in teams]
        # Paranoid weights: in a game of each for themselves my points count for all the others'.
        rivals = sum(1 for t in teams if t != mine)
        friends = n - rivals
        self.weight = [2 * (rivals if m else friends) for m in self.mine]
        self.tute = bool(rules.tute)
        if variant == "dos":
            arrastre_cantos = bool(state.options["cantos_in_arrastre"])
            self.singers = [[w] if arrastre_cantos else [] for w in range(n)]
            self.tute = self.tute and arrastre_cantos
        elif variant == "cabron":
            raise ValueError("cabrón is searched by maxn")
        else:
            self.singers = [rules.singers(state, w) for w in range(n)]
        self.turn = state.turn
        self.trick = list(state.trick)
        self.lead = state.lead
        self.best_card = state.winning_card if state.trick else -1
        self.best_seat = state.winning_seat if state.trick else -1

    def score(self, state: State, remaining: int) -> float:
        """How good a value found on ``state`` is for the searching side: 1 for a hand won, plus the margin/200.

        In the auctions a hand is won by the bid, not the margin: there the margin alone counts (SU5, SP3).
        """
        if abs(remaining) >= TUTE // 2:
            return 1.0 if remaining > 0 else 0.0
        final = remaining
        for seat in range(self.n):
            sign = 1 if self.mine[seat] else -1
            final += sign * self.weight[seat] * (state.taken[seat] + state.sung_points[seat])
        me = self.mine.index(True)
        margin = final / (2 * self.weight[me])
        if state.variant in ("subastado", "subastado_parejas"):
            return margin * 2 * MARGIN_WEIGHT
        return (1.0 if final > 0 else 0.0) + margin * MARGIN_WEIGHT

    # -- the search ---------------------------------------------------------------------
    def values(self) -> dict[int, int]:
        """The exact value of each legal card (half points, see the module's docstring)."""
        out = {}
        seat = self.turn
        legal = self._legal(seat, self.trick, self.best_card)
        for card in cards_of(legal):
            out[card] = self._play(seat, card, self.trick, self.best_card, self.best_seat, -INF, INF)
        return out

    def best(self) -> int:
        """The card with the best exact value (equivalent cards counted once)."""
        seat = self.turn
        trick = self.trick
        moves = self._moves(seat, self._legal(seat, trick, self.best_card), trick)
        alpha, chosen = -INF, moves[0]
        for card in moves:
            value = self._play(seat, card, trick, self.best_card, self.best_seat, alpha, INF)
            if value > alpha:
                alpha, chosen = value, card
        return chosen

    def value(self, alpha: int = -INF, beta: int = INF) -> int:
        """The position's exact value (within the window)."""
        return self._node(self.turn, self.trick, self.best_card, self.best_seat, alpha, beta)

    def _legal(self, seat: int, trick: list[int], best: int) -> int:
        hand = self.hands[seat]
        if not trick:
            return hand
        led = trick[0] // 10
        follow = hand & SUIT_MASK[led]
        if follow:  # C5.a, C5.b
            if best // 10 != led:
                return follow
            return follow & ABOVE[best] or follow
        trump = self.trump
        if trump < 0:
            return hand
        trumps = hand & SUIT_MASK[trump]
        if not trumps:
            return hand
        if best // 10 == trump:  # C5.d
            return trumps & ABOVE[best] or hand
        return trumps  # C5.c

    def _moves(self, seat: int, legal: int, trick: list[int]) -> list[int]:
        """The legal cards less the equivalent blanks, most promising first."""
        live = 0
        for s in range(self.n):
            if s != seat:
                live |= self.hands[s]
        for card in trick:
            live |= 1 << card
        out = []
        prev = -1
        for card in cards_of(legal):
            if _BLANK[card] and prev >= 0 and prev // 10 == card // 10 and _BLANK[prev]:
                between = ((1 << card) - 1) & ~((2 << prev) - 1)
                if not live & between:
                    prev = card
                    continue
            out.append(card)
            prev = card
        out.reverse()  # strongest first: a good first guess for both sides
        return out

    def _node(self, seat: int, trick: list[int], best: int, best_seat: int, alpha: int, beta: int) -> int:
        self.nodes += 1
        if self.nodes > self.limit:
            raise TooBig
        key: tuple[int, ...] = ()
        first = -1
        if not trick:
            key = (*self.hands, seat, self.sung, self.trump)
            entry = self.tt.get(key)
            if entry is not None:
                lo, hi, first = entry
                if lo >= beta:
                    return lo
                if hi <= alpha:
                    return hi
                if lo == hi:
                    return lo
                alpha, beta = max(alpha, lo), min(beta, hi)
        a0, b0 = alpha, beta
        moves = self._moves(seat, self._legal(seat, trick, best), trick)
        if first in moves:
            moves.remove(first)
            moves.insert(0, first)
        maximize = self.mine[seat]
        value = -INF if maximize else INF
        chosen = moves[0]
        for card in moves:
            child = self._play(seat, card, trick, best, best_seat, alpha, beta)
            if maximize:
                if child > value:
                    value, chosen = child, card
                    if value > alpha:
                        alpha = value
            elif child < value:
                value, chosen = child, card
                if value < beta:
                    beta = value
            if alpha >= beta:
                break
        if not trick:
            lo, hi = -INF, INF
            entry = self.tt.get(key)
            if entry is not None:
                lo, hi = entry[0], entry[1]
            if value <= a0:
                hi = value
            elif value >= b0:
                lo = value
            else:
                lo = hi = value
            self.tt[key] = (lo, hi, chosen)
        return value

    def _play(self, seat: int, card: int, trick: list[int], best: int, best_seat: int, alpha: int, beta: int) -> int:
        hands = self.hands
        hands[seat] ^= 1 << card
        if not trick or (card // 10 == best // 10 and card > best) or (card // 10 == self.trump != best // 10):
            best, best_seat = card, seat
        trick.append(card)
        try:
            if len(trick) < self.n:
                return self._node((seat + 1) % self.n, trick, best, best_seat, alpha, beta)
            return self._finish(trick, best_seat, alpha, beta)
        finally:
            trick.pop()
            hands[seat] ^= 1 << card

    def _finish(self, trick: list[int], winner: int, alpha: int, beta: int) -> int:
        """C6, C4, C8/C9: the trick's points, the declarations after it, then the rest of the hand."""
        points = 0
        for card in trick:
            points += POINTS[card]
        hands = self.hands
        sign = 1 if self.mine[winner] else -1
        if not any(hands):
            return sign * ((points + 10) * self.weight[winner] + 1)
        gained = points * self.weight[winner] * sign
        sung_before = self.sung
        for singer in self.singers[winner]:
            hand = hands[singer]
            if self.tute and (hand & KINGS == KINGS or hand & KNIGHTS == KNIGHTS):
                self.sung = sung_before
                return TUTE if self.mine[singer] else -TUTE
        for singer in self.singers[winner]:
            gained += self._sing(singer)
        try:
            return gained + self._node(winner, [], -1, -1, alpha - gained, beta - gained)
        finally:
            self.sung = sung_before

    def _sing(self, seat: int) -> int:
        """C8: the canto the table makes for ``seat`` (the 40 first, then its shortest suit), as a value."""
        hand = self.hands[seat]
        pairs = hand & hand >> 1 & _KNIGHT_BITS
        if not pairs:
            return 0
        suits = [_SUIT_OF_KNIGHT[c] for c in cards_of(pairs)]
        suits = [s for s in suits if not self.sung >> s & 1]
        if not suits:
            return 0
        trump = self.trump
        suit = trump if trump in suits else min(suits, key=lambda s: ((hand & SUIT_MASK[s]).bit_count(), s))
        self.sung |= 1 << suit
        points = 40 if suit == trump else 20
        return points * self.weight[seat] * (1 if self.mine[seat] else -1)


def solve(state: State, me: int, node_limit: int = 200_000) -> dict[int, int] | None:
    """Each legal card's exact value for ``me`` (see :class:`Solver`), or None past the node budget."""
    try:
        return Solver(state, me, node_limit).values()
    except TooBig:
        return None


# -- cabrón: each for themselves ---------------------------------------------------------


def maxn(
    state: State, utility: Callable[[State, int], float], node_limit: int = 20_000
) -> dict[int, list[float]] | None:
    """Max-n over the engine: each seat plays the card best for its own ``utility`` of the final state.

    Returns, for each legal card of the seat to act, the utilities of every seat at the end; None past
    the node budget. For the last few tricks of cabrón (CB3, CB4).
    """
    nodes = [0]

    def node(st: State) -> list[float]:
        nodes[0] += 1
        if nodes[0] > node_limit:
            raise TooBig
        if st.status != "active":
            return [utility(st, s) for s in range(st.players)]
        seat = st.turn
        best: list[float] | None = None
        for card in cards_of(legal_cards(st)):
            child = st.copy()
            play_card(child, card, None)
            values = node(child)
            if best is None or values[seat] > best[seat]:
                best = values
        assert best is not None
        return best

    out: dict[int, list[float]] = {}
    try:
        for card in cards_of(legal_cards(state)):
            child = state.copy()
            play_card(child, card, None)
            out[card] = node(child)
    except TooBig:
        return None
    return out


def engine_minimax(state: State, evaluate: Callable[[State], int], maximize: Callable[[int], bool]) -> int:
    """Plain minimax over the engine's own rules: the brute force that tests check the solver against."""
    if state.status != "active":
        return evaluate(state)
    values = []
    for card in cards_of(legal_cards(state)):
        child = state.copy()
        play_card(child, card, None)
        values.append(engine_minimax(child, evaluate, maximize))
    return max(values) if maximize(state.turn) else min(values)
