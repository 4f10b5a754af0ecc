"""What every bot declares in its declaration turn (RULES.md C10m): as the table would (C10).

One rule for every level, from the seat's own view: the exchange first (D4: the card taken may
complete a canto or a tute), then tute (C9: before any canto), then one canto in C8's order (the 40;
between 20s the suit held fewest; then O, C, E, B), then pass. Declared one at a time, these make
the declarations that ``declarations: auto`` makes, but for one case a seat cannot see: in pairs the
table declares a partner's tute before the trick winner's canto (the hand ends by tute either way).
"""

from __future__ import annotations

from typing import Any

from games.engine.cards import SUITS

PASS: dict[str, Any] = {"type": "pass"}


def is_declaration_turn(view: dict[str, Any]) -> bool:
    """Whether the view's seat is to declare (the ``declare`` phase of C10m)."""
    return bool(view["hand"]["phase"] == "declare")


def as_the_table(view: dict[str, Any]) -> dict[str, Any]:
    """The declaration the table would make for this seat now; one of the view's ``legal_actions``."""
    legal = view["legal_actions"]
    for kind in ("exchange", "tute"):
        if {"type": kind} in legal:
            return {"type": kind}
    suits = [a["suit"] for a in legal if a["type"] == "sing"]
    if not suits:
        return PASS
    trump = view["hand"]["trump"]
    if trump in suits:
        return {"type": "sing", "suit": trump}
    hand = view["my_hand"]
    suit = min(suits, key=lambda s: (sum(1 for card in hand if card[0] == s), SUITS.index(s)))
    return {"type": "sing", "suit": suit}
