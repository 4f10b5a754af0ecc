"""What a seat, or a spectator, may see (API.md "Hidden information"; boardgame.io's player view).

This is the one place that decides visibility: the API renders states only through :func:`view`
and events only through :func:`redact`.
"""

from __future__ import annotations

from typing import Any

from .cards import CODES, SUITS, codes
from .game import legal_actions, rules_of
from .state import Event, State


def view(state: State, seat: int | None) -> dict[str, Any]:
    """The match as ``seat`` sees it at the table; ``None`` for a spectator."""
    n = state.players
    rules = rules_of(state)
    return {
        "variant": state.variant,
        "options": state.options,
        "players": n,
        "status": state.status,
        "scoreboard": list(state.scoreboard),
        "sides": [rules.side_of(s) for s in range(n)],
        "results": list(state.results),
        "winners": state.winners,
        "my_seat": seat,
        "my_hand": codes(state.hands[seat]) if seat is not None else None,
        "legal_actions": legal_actions(state, seat) if seat is not None else [],
        "hand": {
            "number": state.hand_number,
            "dealer": state.dealer,
            "mano": (state.dealer + 1) % n,
            "phase": state.phase,
            "turn": state.turn if state.turn >= 0 else None,
            "trump": SUITS[state.trump] if state.trump >= 0 else None,
            "trump_card": CODES[state.trump_card] if state.trump_card >= 0 else None,
            "face_up": CODES[state.face_up] if state.face_up >= 0 else None,
            "stock_count": len(state.stock) + (state.face_up >= 0),
            "trick": _plays(state.lead, state.trick, n),
            "last_trick": _plays(state.last_lead, state.last_trick, n),
            "last_trick_winner": state.last_winner if state.last_trick else None,
            "tricks": [_plays(lead, cards, n) for lead, cards in state.tricks],
            "hand_sizes": [h.bit_count() for h in state.hands],
            "shown": [codes(state.seen[s] & state.hands[s]) for s in range(n)],
            "tricks_won": list(state.tricks_won),
            "points": [state.taken[s] + state.sung_points[s] for s in range(n)],
            "cantos": [{"seat": s, "suit": SUITS[suit], "points": p} for s, suit, p in state.cantos],
            "bids": [{"seat": s, "amount": a or None} for s, a in state.bids],
            "contract": {"seat": state.soloist, "bid": state.high_bid} if state.soloist >= 0 else None,
        },
    }


def table(state: State) -> dict[str, Any]:
    """The whole table with every hand face up and the stock in draw order: records and replays only."""
    out = view(state, None)
    out["hand"]["hands"] = [codes(h) for h in state.hands]
    out["hand"]["stock"] = [CODES[c] for c in reversed(state.stock)]
    if len(state.trick) == state.players:  # a replay's step between the last card and the trick taken
        out["hand"]["turn"] = None
    return out


def _plays(lead: int, cards: list[int], n: int) -> list[dict[str, Any]]:
    return [{"seat": (lead + i) % n, "card": CODES[c]} for i, c in enumerate(cards)]


def redact(event: Event, seat: int | None) -> Event:
    """The event as ``seat`` may see it: other players' cards and the stock are hidden."""
    kind = event["type"]
    data = event["data"]
    if kind == "hand_started":
        hands = data["hands"]
        data = {k: v for k, v in data.items() if k not in ("deck", "stock", "hands")}
        data["hand_sizes"] = [len(h) for h in hands]
        data["my_hand"] = hands[seat] if seat is not None else None
        data["stock_count"] = len(event["data"]["stock"]) + (event["data"]["face_up"] is not None)
    elif kind == "draw" and event["seat"] != seat and not data.get("face_up"):
        data = {**data, "card": None}  # a draw from the stock is seen by the one who draws it
    else:
        return event
    return {**event, "data": data}
