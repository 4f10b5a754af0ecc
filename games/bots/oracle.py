"""The oracle: a cheating player for the arena only, to measure how far a variant rewards skill.

It sees every hand and the stock (the whole :class:`State`, never a seat's view alone, so it is no
bot a match can seat). For each card it may play it plays the hand out on the true deal, as level-4
does on each of its sampled deals (:func:`level4.evaluate`: fast playouts, then the exact solver once
few cards are left), and plays the best. Bids and trump choice are level-4's.

What the oracle wins against a bot bounds what any honest bot can win against it under the same
measure: ``manage.py arena --a oracle --b level-1`` (docs/bots.md).
"""

from __future__ import annotations

from typing import Any

from games.engine import State, view
from games.engine.cards import CODES, parse

from . import bidding
from .deals import Deal, build_state
from .knowledge import read_view
from .level4 import DEFAULT, evaluate

NAME = "oracle"


def oracle_action(state: State, seat: int) -> dict[str, Any]:
    """The oracle's action at ``seat``, the seat to act, from the whole state."""
    seen = view(state, seat)
    legal: list[dict[str, Any]] = seen["legal_actions"]
    if len(legal) == 1:
        return legal[0]
    if legal[0]["type"] != "play":
        return bidding.choose(seen)
    k = read_view(seen)
    base = build_state(seen, k, Deal(hands=list(state.hands), stock=list(state.stock)))
    cards = [parse(a["card"]) for a in legal]
    best = max(cards, key=lambda card: evaluate(base, card, seat, DEFAULT))
    return {"type": "play", "card": CODES[best]}
