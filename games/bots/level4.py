"""level-4: determinized search (perfect-information Monte Carlo).

For each decision the bot samples deals of the cards it cannot see, consistent with everything public
(hand sizes, cards shown by cantos, exchanges and the trump card, voids and missing higher cards inferred
from the play: :mod:`games.bots.deals`). On each deal it plays every legal card and finishes the hand with
full knowledge of that deal: exactly (:mod:`games.bots.solver`) once few enough cards are left and the
stock is gone, else by a fast playout (:mod:`games.bots.playout`). It plays the card with the best
average outcome: the hand won (by the variant's rule) first, the point margin second.

Its budget (:class:`Budget`) bounds the deals sampled and the time spent per decision. Bids and trump
choice use :mod:`games.bots.bidding`; once every card is known it plays as level-3 does, exactly.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, fields
from typing import Any

from games.engine import State, play_card
from games.engine.cards import CODES, KING, KNIGHT, POINTS, parse

from . import bidding, level3
from .deals import build_state, sample_deal
from .knowledge import Knowledge, read_view
from .playout import playout_card, teams
from .solver import INF, MARGIN_WEIGHT, Solver, TooBig

#: A candidate whose mean outcome trails the best by more than this is dropped (see :func:`search`).
PRUNE = 0.25
#: How much better on average (a hand won = 1) a card must do than level-3's to be played instead.
MARGIN = 0.03
#: Cards left in the hands from which a playout is finished exactly, by number of players.
_SOLVE_CARDS = {2: 6, 3: 9, 4: 8}
#: Variants whose hands the exact solver plays (two sides, or paranoid in ``individual``).
_SOLVED = ("clasico", "dos", "individual", "subastado", "subastado_parejas")


@dataclass(frozen=True)
class Budget:
    """How hard level-4 thinks: at most ``samples`` deals and about ``time`` seconds per decision.

    By default the deals bound it (64: tens of milliseconds a decision, docs/bots.md) and the time
    only guards a slow machine, so that a seeded match plays the same moves however busy the server
    is, and the bot that plays is the one the arena measured.

    ``solve_cards``: the search is exact on a deal once no more than this many cards are left in the
    hands (and the stock is gone), by default 6 with two players, 9 with three and 8 with four;
    ``solve_nodes`` bounds each exact search.
    """

    time: float = 1.0
    samples: int = 64
    min_samples: int = 8
    solve_cards: int = 0
    solve_nodes: int = 4_000

    @classmethod
    def parse(cls, text: str) -> Budget:
        """A budget from ``"time=0.1,samples=40"`` (any of the fields, the rest default)."""
        names = {f.name: f.type for f in fields(cls)}
        values: dict[str, Any] = {}
        for item in text.split(","):
            name, _, value = item.partition("=")
            name = name.strip()
            if name not in names:
                raise ValueError(f"unknown budget field {name!r}; known: {', '.join(names)}")
            values[name] = float(value) if name == "time" else int(value)
        return cls(**values)


DEFAULT = Budget()


def choose(view: dict[str, Any], rng: random.Random, budget: Budget | None = None) -> dict[str, Any]:
    legal = view["legal_actions"]
    if len(legal) == 1:
        action: dict[str, Any] = legal[0]
        return action
    if legal[0]["type"] != "play":
        return bidding.choose(view)
    budget = budget or DEFAULT
    k = read_view(view)
    card = level3.exact_card(view, k, node_limit=20_000)
    if card is None:
        cards = distinct_cards([parse(a["card"]) for a in legal], k)
        if len(cards) == 1:
            card = cards[0]
        else:
            prior = level3.endgame_card(view, k, rng)
            if prior is None:
                prior = level3.heuristic_card(k, sum(1 << c for c in cards))
            card = search(view, k, cards, rng, budget, prior)
    return {"type": "play", "card": CODES[card]}


def distinct_cards(cards: list[int], k: Knowledge) -> list[int]:
    """The cards less the blanks that are interchangeable: same suit, no card still in play between them."""
    live = k.rules.deck & ~k.played & ~k.hand
    for _, card in k.trick:
        live |= 1 << card
    out: list[int] = []
    for card in sorted(cards):
        prev = out[-1] if out else -1
        if prev >= 0 and prev // 10 == card // 10 and _blank(prev) and _blank(card):
            between = ((1 << card) - 1) & ~((2 << prev) - 1)
            if not live & between:
                continue
        out.append(card)
    return out


def _blank(card: int) -> bool:
    return POINTS[card] == 0 and card % 10 not in (KING, KNIGHT)


def search(
    view: dict[str, Any], k: Knowledge, cards: list[int], rng: random.Random, budget: Budget, prior: int = -1
) -> int:
    """The card with the best average outcome over sampled deals.

    Every candidate is played on the same deals (common random numbers); after 8, 16 and 32 deals the
    candidates far behind the best are dropped, so that the time goes to the close ones. The ``prior``
    (level-3's card) is kept to the end and played unless another card beats it by :data:`MARGIN` on average:
    the search overrules the rules of thumb only when it is confident.
    """
    deadline = time.perf_counter() + budget.time
    if prior >= 0 and prior not in cards:
        cards = [*cards, prior]
    totals = dict.fromkeys(cards, 0.0)
    alive = list(cards)
    samples = 0
    for done in range(budget.samples):
        if done >= budget.min_samples and time.perf_counter() > deadline:
            break
        if done in (8, 16, 32) and len(alive) > 2:
            top = max(totals[c] for c in alive)
            alive = [c for c in alive if totals[c] >= top - PRUNE * done or c == prior]
        deal = sample_deal(k, rng)
        base = build_state(view, k, deal)
        for card in alive:
            totals[card] += evaluate(base, card, k.me, budget)
        samples = done + 1
    best = max(alive, key=lambda c: totals[c])
    if prior in totals and totals[best] - totals[prior] <= MARGIN * samples:
        return prior
    return best


def evaluate(base: State, card: int, me: int, budget: Budget) -> float:
    """The outcome for ``me`` of playing ``card`` on a fully known deal.

    The hand is played out by :func:`playout_card` until few enough cards are left (and the stock is gone),
    then the rest is searched exactly.
    """
    state = base.copy()
    play_card(state, card, None)
    team = teams(state)
    limit = (budget.solve_cards or _SOLVE_CARDS[state.players]) if state.variant in _SOLVED else -1
    while state.status == "active":
        if not state.trick and not state.stock and state.face_up < 0 and cards_left(state) <= limit:
            solver = Solver(state, me, budget.solve_nodes)
            try:
                value = solver.value(-INF, INF)
            except TooBig:
                limit = -1
            else:
                return solver.score(state, value)
        play_card(state, playout_card(state, team), None)
    return outcome(state, me)


def cards_left(state: State) -> int:
    total = 0
    for hand in state.hands:
        total += hand.bit_count()
    return total


def outcome(state: State, me: int) -> float:
    """How good the finished hand is for ``me``: 1 for a hand won (0 lost) plus a little for the margin."""
    result: dict[str, Any] = state.results[-1]
    rules = state.rules
    variant = state.variant
    points: list[int] = result.get("points") or [0] * rules.sides
    if variant == "cabron":
        return 0.0 if me in result["losers"] else 1.0
    if variant == "subastado":
        soloist: int = result["soloist"]
        made = bool(result["made"])
        margin: float = points[soloist] - result["bid"]
        if me == soloist:
            return float(made) + margin * MARGIN_WEIGHT
        return float(not made) - margin * MARGIN_WEIGHT
    side: int = rules.side_of(me)
    if variant == "subastado_parejas":
        gains: list[int] = result["gains"]
        margin = gains[side] - gains[1 - side]
        return float(margin > 0) + margin * MARGIN_WEIGHT
    best_other = max(p for s, p in enumerate(points) if s != side)
    won = result["winner"] == side
    return float(won) + (points[side] - best_other) * MARGIN_WEIGHT
