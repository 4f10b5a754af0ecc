"""Rebuilding a match from its log: the recorded deals and the actions (C12)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .cards import parse
from .game import Step, new_match, push
from .state import Event

#: The events that record a player's action, and the action each one records.
_ACTION_OF_EVENT: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "card_played": lambda data: {"type": "play", "card": data["card"]},
    "bid": lambda data: {"type": "bid", "amount": data["amount"]},
    "pass": lambda data: {"type": "pass"},
    "trump_chosen": lambda data: {"type": "choose_trump", "suit": data["suit"]},
}


def actions_of(events: Iterable[Event]) -> list[tuple[int, dict[str, Any]]]:
    """The ``(seat, action)`` pairs that the log records, in order."""
    return [(e["seat"], _ACTION_OF_EVENT[e["type"]](e["data"])) for e in events if e["type"] in _ACTION_OF_EVENT]


def replay(variant: str, options: Mapping[str, Any] | None, events: Iterable[Event]) -> Step:
    """The match a log describes, rebuilt from its deals and actions; the events are produced anew.

    Works for matches without a seed too, since every ``hand_started`` event records its deck.
    """
    events = list(events)
    deals = [e["data"] for e in events if e["type"] == "hand_started"]
    if not deals:
        raise ValueError("the log has no hand_started event")
    decks = [[parse(c) for c in deal["deck"]] for deal in deals]
    state, produced = new_match(variant, options, first_dealer=deals[0]["dealer"], decks=decks)
    for seat, action in actions_of(events):
        produced += push(state, seat, action)
    return Step(state, produced)
