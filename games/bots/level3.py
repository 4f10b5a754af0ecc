"""level-3: card counting, inference, and exact play once the cards are known.

The bot reads its view into a :class:`~games.bots.knowledge.Knowledge`: every card played, the cards a
canto, an exchange or the trump card showed, and the voids (and missing higher cards) that failures to
follow, to beat or to trump reveal (C5). Once every card's place is determined (in ``dos`` as soon as the
stock is gone) it plays the rest of the hand exactly (:mod:`games.bots.solver`), and in the last tricks it
solves the deals the count leaves possible (all of them, or a sample). Before that, in clásico, individual
and subastado in pairs it plays level-2's rules with the count's one sharpening that measured better
(:func:`rules_card`); in the other variants it estimates, for each card it might play, how likely the
later players are to beat it, and weighs the points won or given away. Either way it keeps kings and
knights that can still sing (C7). Bids and trump choice: :mod:`.bidding`.
"""

from __future__ import annotations

import random
from typing import Any

from games.engine.cards import ACE, CODES, KING, KNIGHT, POINTS, SUIT_MASK, THREE, cards_of, parse

from . import bidding
from .deals import all_deals, build_state, determined_deal, sample_deal
from .knowledge import Knowledge, read_view, trick_winner
from .playout import p_none
from .solver import Solver, TooBig, maxn
from .tricks import follow_by_rules, lead_by_rules

#: Nodes the exact solver may visit before level-3 falls back to its rules (about 20 ms).
SOLVER_NODES = 6_000
#: With this many cards or fewer in hand, level-3 solves every possible deal of the rest (or a sample of them).
ENDGAME_CARDS = 3
ENDGAME_DEALS = 24
#: Cabrón is searched exactly (max-n over the engine) only with this many cards or fewer left in hands.
CABRON_EXACT_CARDS = 8
#: Variants whose middle game level-3 plays by level-2's rules read with its count (:func:`rules_card`):
#: over 2,000 duplicate deals against level-2 these won more than its own probability rules below,
#: which it keeps for subastado, where they still do better (docs/bots.md).
RULES_VARIANTS = frozenset({"clasico", "individual", "subastado_parejas"})


def choose(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    legal = view["legal_actions"]
    if len(legal) == 1:
        action: dict[str, Any] = legal[0]
        return action
    if legal[0]["type"] != "play":
        return bidding.choose(view)
    k = read_view(view)
    card = exact_card(view, k)
    if card is None:
        card = endgame_card(view, k, rng)
    if card is None:
        card = heuristic_card(k, _legal_mask(view))
    return {"type": "play", "card": CODES[card]}


def _legal_mask(view: dict[str, Any]) -> int:
    mask = 0
    for action in view["legal_actions"]:
        mask |= 1 << parse(action["card"])
    return mask


# -- exact play ---------------------------------------------------------------------------


def exact_card(view: dict[str, Any], k: Knowledge, node_limit: int = SOLVER_NODES) -> int | None:
    """The best card by exact search when every card's place is determined and the search is small enough."""
    if k.stock_hidden or k.face_up >= 0:
        return None
    cards_left = sum(k.sizes)
    if k.variant == "cabron" and cards_left > CABRON_EXACT_CARDS:
        return None
    deal = determined_deal(k)
    if deal is None:
        return None
    state = build_state(view, k, deal)
    if k.variant == "cabron":
        values = maxn(state, cabron_utility, node_limit)
        if values is None:
            return None
        return max(values, key=lambda c: (values[c][k.me], -POINTS[c]))
    try:
        return Solver(state, k.me, node_limit).best()
    except TooBig:
        return None


def endgame_card(view: dict[str, Any], k: Knowledge, rng: random.Random) -> int | None:
    """The last few tricks, the cards not yet determined: the best card on average over the possible deals.

    Every deal consistent with the view is solved exactly when there are few enough of them, else a
    sample of them; each card is scored by the hands it wins and then its margin (:meth:`Solver.score`).
    """
    if k.variant == "cabron" or k.stock_hidden or k.face_up >= 0 or k.sizes[k.me] > ENDGAME_CARDS:
        return None
    deals = all_deals(k, ENDGAME_DEALS)
    if deals is None:
        deals = [sample_deal(k, rng) for _ in range(ENDGAME_DEALS)]
    totals: dict[int, float] = {}
    for deal in deals:
        state = build_state(view, k, deal)
        solver = Solver(state, k.me, SOLVER_NODES)
        try:
            values = solver.values()
        except TooBig:
            return None
        for card, value in values.items():
            totals[card] = totals.get(card, 0.0) + solver.score(state, value)
    return max(totals, key=lambda c: (totals[c], -POINTS[c])) if totals else None


def cabron_utility(state: Any, seat: int) -> float:
    """CB4 for one seat at the end of a hand: 1 when not a loser, with a small pull away from the edges."""
    result = state.results[-1]
    points = result["points"]
    if seat in result["losers"]:
        return 0.0
    return 1.0 + (0.001 if 0 < points[seat] <= 100 else 0.0)


# -- rules of thumb -------------------------------------------------------------------------


class Table:
    """The probabilities level-3 reasons with, computed from one Knowledge."""

    def __init__(self, k: Knowledge):
        self.k = k
        n = k.players
        self.pool = [k.unknown & ~k.cannot[s] for s in range(n)]
        self.drawn = [k.sizes[s] - k.known[s].bit_count() for s in range(n)]
        if k.stock_hidden:  # dos: the stock draws from the same unknown cards
            self.pool_size = [k.unknown.bit_count() for _ in range(n)]
        else:
            self.pool_size = [p.bit_count() for p in self.pool]
        self.outstanding = k.rules.deck & ~k.played & ~k.hand  # not played and not mine
        self.keep = singable(k.hand, k.sung)
        if k.variant == "subastado":
            self.may_sing = k.me == k.soloist  # SU4
        elif k.variant == "subastado_parejas":
            self.may_sing = k.team(k.me) == k.team(k.soloist)  # SP2
        else:
            self.may_sing = k.variant in ("clasico", "individual")

    def sing_after(self, card: int) -> int:
        """The canto a trick won with ``card`` would let me make (C8): the 40 first, else a 20; 0 if none."""
        k = self.k
        if not self.may_sing:
            return 0
        left = self.keep & ~(1 << card)
        if card % 10 in (KING, KNIGHT):
            left &= ~(1 << (card // 10 * 10 + KING) | 1 << (card // 10 * 10 + KNIGHT))
        if not left:
            return 0
        trump = k.trump
        return 40 if trump >= 0 and left >> (trump * 10 + KING) & 1 else 20

    def p_holds(self, seat: int, cards: int) -> float:
        """The chance that ``seat`` holds at least one of ``cards``."""
        k = self.k
        if k.known[seat] & cards:
            return 1.0
        wanted = (self.pool[seat] & cards).bit_count()
        return 1.0 - p_none(self.pool_size[seat], wanted, self.drawn[seat])

    def p_beats(self, seat: int, led: int, best: int, duties: bool) -> float:
        """The chance that ``seat``, playing next to a trick led in ``led`` and won by ``best``, can take it."""
        trump = self.k.trump
        best_suit = best // 10
        above = SUIT_MASK[best_suit] & ~((2 << best) - 1)
        if not duties:
            cards = above if best_suit == trump or trump < 0 else above | SUIT_MASK[trump]
            return self.p_holds(seat, cards)
        if best_suit == led:
            higher = self.p_holds(seat, above)
            if trump < 0 or led == trump:
                return higher
            void = 1.0 - self.p_holds(seat, SUIT_MASK[led])
            return min(1.0, higher + void * self.p_holds(seat, SUIT_MASK[trump]))
        # the trick is trumped: only a void in the led suit holding a higher trump takes it
        void = 1.0 - self.p_holds(seat, SUIT_MASK[led])
        return void * self.p_holds(seat, above)

    def p_safe(self, card: int, led: int, best_after: int, later: list[int], duties: bool) -> float:
        """The chance that no later rival takes a trick that ``best_after`` is winning."""
        p = 1.0
        for seat in later:
            if self.k.team(seat) != self.k.team(self.k.me):
                p *= 1.0 - self.p_beats(seat, led, best_after, duties)
        return p


def singable(hand: int, sung: int) -> int:
    """Kings and knights in hand whose partner card is in hand too and whose suit has not been sung (C7)."""
    out = 0
    for suit in range(4):
        king, knight = suit * 10 + KING, suit * 10 + KNIGHT
        if not sung >> suit & 1 and hand >> king & 1 and hand >> knight & 1:
            out |= 1 << king | 1 << knight
    return out


def trump_cost(card: int, trump: int) -> float:
    """What spending a trump costs beyond its points: it would take a trick later."""
    if card // 10 != trump:
        return 0.0
    return 6.0 + (card % 10)


def cheapest(cards: list[int], trump: int, keep: int) -> int:
    """The card that costs least to give away: not a canto in waiting, not trump, no points, weakest."""
    return min(cards, key=lambda c: (keep >> c & 1, c // 10 == trump, POINTS[c], c % 10))


def heuristic_card(k: Knowledge, legal: int) -> int:
    """level-3's rules of thumb for the card to play."""
    cards = cards_of(legal)
    if len(cards) == 1:
        return cards[0]
    table = Table(k)
    if k.variant == "cabron":
        return cabron_card(k, table, cards)
    if k.stock_hidden or k.face_up >= 0:
        return stock_card(k, table, cards)
    if k.variant in RULES_VARIANTS:
        return rules_card(k, table, cards)
    if not k.trick:
        return lead_card(k, table, cards)
    return follow_card(k, table, cards)


def rules_card(k: Knowledge, table: Table, cards: list[int]) -> int:
    """level-2's rules (:func:`~.tricks.lead_by_rules`, :func:`~.tricks.follow_by_rules`) read with the count:
    the top trump is led as master only when no higher trump is still in play, and partners are the
    hand's sides as :meth:`Knowledge.team` knows them."""
    trump, keep = k.trump, set(cards_of(table.keep))
    if not k.trick:
        live_trumps = cards_of(k.rules.deck & ~k.played & SUIT_MASK[trump]) if trump >= 0 else []
        return lead_by_rules(cards, trump, keep, True, master_trump=max(live_trumps, default=-1))
    best_seat, best = trick_winner(k.trick, trump)
    partner_winning = best_seat != k.me and k.team(best_seat) == k.team(k.me)
    last_to_play = len(k.trick) == k.players - 1
    points = sum(POINTS[c] for _, c in k.trick)
    return follow_by_rules(cards, best, partner_winning, last_to_play, points, trump, keep)


def _later(k: Knowledge) -> list[int]:
    """The seats still to play to the trick after me."""
    n = k.players
    return [(k.me + i) % n for i in range(1, n - len(k.trick))]


def follow_card(k: Knowledge, table: Table, cards: list[int]) -> int:
    """Following with duties (C5): take valuable tricks safely and cheaply, feed a partner who holds the trick."""
    trump, keep = k.trump, table.keep
    led = k.trick[0][1] // 10
    best_seat, best = trick_winner(k.trick, trump)
    later = _later(k)
    on_trick = sum(POINTS[c] for _, c in k.trick)
    last_trick = k.sizes[k.me] == 1
    bonus = 10 if last_trick else 0
    mine = k.team(k.me)
    if k.team(best_seat) == mine:
        held = table.p_safe(best, led, best, later, True)
        if held >= 0.7:
            return feed(cards, trump, keep, best)
        return cheapest(cards, trump, keep)
    options = []
    for card in cards:
        wins = card // 10 == best // 10 and card > best or card // 10 == trump != best // 10
        value = -POINTS[card] - 20 * (keep >> card & 1) - trump_cost(card, trump) * 0.5
        if wins:
            safe = table.p_safe(card, led, card, later, True)
            value = (
                safe * (on_trick + POINTS[card] + bonus + 4 + 2 * len(later) + table.sing_after(card))
                - (1 - safe) * (POINTS[card] + on_trick * 0.2)
                - trump_cost(card, trump)
                - 20 * (keep >> card & 1)
            )
        options.append((value, -(card % 10), card))
    return max(options)[2]


def feed(cards: list[int], trump: int, keep: int, best: int) -> int:
    """The most points to give a partner who is taking the trick, sparing cantos and high trumps."""

    def value(c: int) -> tuple[int, int]:
        spare = keep >> c & 1 or (c // 10 == trump and c % 10 >= THREE)
        return (-1 if spare else POINTS[c], -(c % 10))

    return max(cards, key=value)


def lead_card(k: Knowledge, table: Table, cards: list[int]) -> int:
    """Leading with duties: cash safe winners, draw trumps when strong in them, else lead low."""
    trump, keep = k.trump, table.keep
    later = _later(k)
    rivals_trumps = table.outstanding & SUIT_MASK[trump] if trump >= 0 else 0
    best_value, best_card = -1e9, -1
    for card in cards:
        suit = card // 10
        master = not table.outstanding & SUIT_MASK[suit] & ~((2 << card) - 1)
        safe = table.p_safe(card, suit, card, later, True) if master else 0.0
        if suit == trump:
            mine = (k.hand & SUIT_MASK[trump]).bit_count()
            value = (safe * 6 + mine - 4) if master and rivals_trumps else -5.0 - card % 10
            value -= 20 * (keep >> card & 1)
        elif master:
            value = safe * (POINTS[card] + 8 + table.sing_after(card)) - (1 - safe) * POINTS[card]
            value -= 20 * (keep >> card & 1)
        else:
            # a low lead: the less it gives away and the more the suit's high cards are elsewhere, the better
            value = -POINTS[card] * 1.5 - 20 * (keep >> card & 1) - (card % 10) * 0.3
            if suit * 10 + ACE not in cards_of(k.hand) and (k.hand >> (suit * 10 + THREE) & 1):
                value -= 4  # a 3 whose ace is out is better kept behind than led into
        if value > best_value:
            best_value, best_card = value, card
    return best_card


def stock_card(k: Knowledge, table: Table, cards: list[int]) -> int:
    """dos while the stock lasts (no duties, C5.h): win points and cantos cheaply, spare trumps."""
    trump, keep = k.trump, table.keep
    canto = _canto_bonus(k.hand, k.sung, trump)
    if not k.trick:

        def lead_value(c: int) -> tuple[float, int]:
            risk = table.p_beats(1 - k.me, c // 10, c, False)
            value = -risk * POINTS[c] - trump_cost(c, trump) - 25 * (keep >> c & 1)
            return value, -(c % 10)

        return max(cards, key=lead_value)
    led = k.trick[0][1]
    best_value, best_card = -1e9, cards[0]
    for card in cards:
        wins = card // 10 == led // 10 and card > led or card // 10 == trump != led // 10
        rest = k.hand & ~(1 << card)
        held = _canto_bonus(rest, k.sung, trump)
        value = POINTS[led] + POINTS[card] + held + 2.0 if wins else -float(POINTS[led] + POINTS[card])
        value -= trump_cost(card, trump) + (canto - held) * 0.8
        if value > best_value or value == best_value and card % 10 < best_card % 10:
            best_value, best_card = value, card
    return best_card


def _canto_bonus(hand: int, sung: int, trump: int) -> int:
    """The cantos a hand is waiting to make (40 for trump, 20 otherwise)."""
    total = 0
    for suit in range(4):
        if not sung >> suit & 1 and hand >> (suit * 10 + KING) & 1 and hand >> (suit * 10 + KNIGHT) & 1:
            total += 40 if suit == trump else 20
    return total


def cabron_card(k: Knowledge, table: Table, cards: list[int]) -> int:
    """CB4: win a trick while at 0, stop winning once high, keep out of the middle."""
    me = k.me
    totals = k.points
    others = [t for s, t in enumerate(totals) if s != me]
    mine = totals[me]
    trump = k.trump
    if not k.trick:
        want = mine == 0 or (mine < 80 and mine >= max(others))
        if want:
            return max(cards, key=lambda c: (c % 10, -POINTS[c]))
        return min(cards, key=lambda c: (c % 10, POINTS[c]))
    led = k.trick[0][1] // 10
    _, best = trick_winner(k.trick, trump)
    on_trick = sum(POINTS[c] for _, c in k.trick)
    want = mine == 0 or (mine + on_trick <= 90 and mine >= max(others))
    winners = [c for c in cards if c // 10 == best // 10 and c > best or c // 10 == trump != best // 10]
    losers = [c for c in cards if c not in winners]
    later = _later(k)
    if want and winners:
        return max(winners, key=lambda c: (table.p_safe(c, led, c, later, trump >= 0), -POINTS[c]))
    if losers:
        return min(losers, key=lambda c: (POINTS[c], -(c % 10))) if not want else min(losers, key=lambda c: c % 10)
    return min(cards, key=lambda c: (c % 10, POINTS[c]))
