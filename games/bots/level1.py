"""level-1: a random legal action; in an auction, a pass or the lowest bid, at even odds.

A bid drawn from every legal amount would be over 150 most of the time, and far more than random play
takes. In subastado in pairs a failed bid is taken off the bidding pair's score (SP3), so with such
bids no pair ever reached the target: a match of a player and three level-1 bots went on for
thousands of hands. With the lowest bid it ends in a few dozen (tests/bots/test_policies.py).
"""

from __future__ import annotations

import random
from typing import Any


def choose(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    legal: list[dict[str, Any]] = view["legal_actions"]
    bids = [action for action in legal if action["type"] == "bid"]
    if bids:
        passes = [action for action in legal if action["type"] == "pass"]
        return rng.choice([*passes, min(bids, key=lambda bid: int(bid["amount"]))])
    return rng.choice(legal)
