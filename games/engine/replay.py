"""Rebuilding a match from its log: the recorded deals and the actions (C12)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .actions import EXCHANGE, PASS, SINGS, TUTE, Action
from .cards import SUITS, parse
from .game import Step, _act, _create, _start_hand, new_match, push
from .state import Event, State
from .views import table

#: The events that record a player's action, and the action each one records. A canto, a tute or an
#: exchange records one only when the player declared it (``"declared": true``, C10m), not the table (C10);
#: a pass is an auction's or a declaration turn's.
_ACTION_OF_EVENT: dict[str, Callable[[dict[str, Any]], Action | None]] = {
    "card_played": lambda data: Action.from_json({"type": "play", "card": data["card"]}),
    "bid": lambda data: Action.from_json({"type": "bid", "amount": data["amount"]}),
    "pass": lambda data: PASS,
    "trump_chosen": lambda data: Action.from_json({"type": "choose_trump", "suit": data["suit"]}),
    "canto": lambda data: SINGS[SUITS.index(data["suit"])] if data.get("declared") else None,
    "tute": lambda data: TUTE if data.get("declared") else None,
    "exchange": lambda data: EXCHANGE if data.get("declared") else None,
}


def _actions(events: Iterable[Event]) -> list[tuple[int, Action]]:
    found = []
    for event in events:
        read = _ACTION_OF_EVENT.get(event["type"])
        action = read(event["data"]) if read is not None else None
        if action is not None:
            found.append((event["seat"], action))
    return found


def actions_of(events: Iterable[Event]) -> list[tuple[int, dict[str, Any]]]:
    """The ``(seat, action)`` pairs that the log records, in order, each action as the API posts it."""
    return [(seat, action.to_json()) for seat, action in _actions(events)]


def _decks(events: list[Event]) -> tuple[int, list[list[int]]]:
    """The first dealer and every deck that the log's ``hand_started`` events recorded."""
    deals = [e["data"] for e in events if e["type"] == "hand_started"]
    if not deals:
        raise ValueError("the log has no hand_started event")
    return deals[0]["dealer"], [[parse(c) for c in deal["deck"]] for deal in deals]


def replay(
    variant: str, options: Mapping[str, Any] | None, events: Iterable[Event], seed: int | None = None
) -> Step:
    """The match a log describes, rebuilt from its deals and actions; the events are produced anew.

    Works for matches without a seed too, since every ``hand_started`` event records its deck;
    give the match's ``seed`` so that the rebuilt match deals its later hands as the original would (C12).
    """
    events = list(events)
    first_dealer, decks = _decks(events)
    state, produced = new_match(variant, options, seed, first_dealer=first_dealer, decks=decks)
    for seat, action in _actions(events):
        produced += push(state, seat, action)
    return Step(state, produced)


class _Reached(Exception):
    def __init__(self, table: dict[str, Any]):
        self.table = table


class _Watch(list[Event]):
    """An event log that photographs the table when it holds ``count`` events."""

    def __init__(self, state: State, count: int):
        super().__init__()
        self.state, self.limit = state, count

    def append(self, event: Event) -> None:
        super().append(event)
        if len(self) == self.limit:
            raise _Reached(table(self.state))


def table_after(variant: str, options: Mapping[str, Any] | None, events: Iterable[Event], count: int) -> dict[str, Any]:
    """The whole table (:func:`table`) as it stood right after the log's first ``count`` events.

    The engine records each event once the table shows it, so stepping ``count`` from 1 to the
    log's length shows a match card by card: the fourth card on the trick, then the trick taken.
    """
    events = list(events)
    if not 1 <= count <= len(events):
        raise ValueError(f"count must be between 1 and {len(events)}; got {count}")
    first_dealer, decks = _decks(events)
    state = _create(variant, options, None, first_dealer, decks)
    log = _Watch(state, count)
    try:
        _start_hand(state, state.rules, log)
        for seat, action in _actions(events):
            _act(state, seat, action, log)
    except _Reached as reached:
        return reached.table
    raise ValueError("the log's actions produce fewer events than it holds")
