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

from games.engine.cards import CODES, parse
from games.engine.game import play_card
from games.engine.state import State

from . import bidding, level3
from .deals import build_state, sample_deal
from .knowledge import Knowledge, read_view
from .playout import playout_card, teams
from .solver import INF, MARGIN_WEIGHT, Solver, TooBig

#: Cards left in the hands from which a playout is finished exactly, by number of players.
_SOLVE_CARDS = {2: 6, 3: 9, 4: 8}
#: Variants whose hands the exact solver plays (two sides, or paranoid in ``individual``).
_SOLVED = ("clasico", "dos", "individual", "subastado", "subastado_parejas")


@dataclass(frozen=True)
class Budget:
    """How hard level-4 thinks: at most ``samples`` deals and about ``time`` seconds per decision.

    ``solve_cards``: the search is exact on a deal once no more than this many cards are left in the
    hands (and the stock is gone), by default 6 with two players, 9 with three and 8 with four;
    ``solve_nodes`` bounds each exact search.
    """

    time: float = 0.25
    samples: int = 400
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
        cards = [parse(a["card"]) for a in legal]
        card = search(view, k, cards, rng, budget)
    return {"type": "play", "card": CODES[card]}


def search(view: dict[str, Any], k: Knowledge, cards: list[int], rng: random.Random, budget: Budget) -> int:
    """The card with the best average outcome over sampled deals."""
    deadline = time.perf_counter() + budget.time
    totals = dict.fromkeys(cards, 0.0)
    for done in range(budget.samples):
        if done >= budget.min_samples and time.perf_counter() > deadline:
            break
        deal = sample_deal(k, rng)
        base = build_state(view, k, deal)
        for card in cards:
            totals[card] += evaluate(base, card, k.me, budget)
    return max(cards, key=lambda c: totals[c])


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
