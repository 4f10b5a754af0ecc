"""level-1: a random legal action."""

from __future__ import annotations

import random
from typing import Any


def choose(view: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    action: dict[str, Any] = rng.choice(view["legal_actions"])
    return action
