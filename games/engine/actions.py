"""An action of a seat as a small immutable value, read from and written to the API's JSON.

In the spirit of python-chess's ``Move.from_uci()`` / ``Move.uci()``::

    action = Action.from_json({"type": "play", "card": "O1"})   # Action(type='play', value=9)
    action.to_json()                                            # {'type': 'play', 'card': 'O1'}

An :class:`Action` is a named pair: its type, one of :data:`ACTION_TYPES`, and its value: the card
(an int of :mod:`games.engine.cards`) for ``play``, the amount for ``bid``, the suit (0–3, ``O C E B``)
for ``choose_trump`` and ``sing``, and -1 for ``pass``, ``tute`` and ``exchange`` (``sing``, ``tute`` and
``exchange`` are the declarations of C10m). The engine reads every action through this module and writes
every legal action with :meth:`Action.to_json`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, NamedTuple

from .cards import ALL_CARDS, CODES, SUITS
from .errors import Code, IllegalAction

#: Every type of action, the one list of them.
ACTION_TYPES: Final = ("play", "bid", "pass", "choose_trump", "sing", "tute", "exchange")


class Action(NamedTuple):
    """One action of a seat: ``Action("play", card)``, ``Action("bid", amount)``, ``Action("pass")``,
    ``Action("choose_trump", suit)``, ``Action("sing", suit)``, ``Action("tute")``, ``Action("exchange")``.
    Immutable, hashable, and cheap to build."""

    type: str
    value: int = -1

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Action:
        """The action that the API's JSON describes, e.g. ``{"type": "bid", "amount": 75}``.

        Raises :class:`IllegalAction` for an unknown type (``invalid_action``), a missing or bad card
        (``invalid_action``), amount (``invalid_action``) or suit (``invalid_suit``); keys other than the
        type's field are ignored. Whether the action is legal now is for the engine to say.
        """
        return read_field(read_type(data), data)

    def to_json(self) -> dict[str, Any]:
        """The action as the API posts it: what :meth:`from_json` reads back to this action."""
        kind, value = self
        if kind == "play":
            return {"type": "play", "card": CODES[value]}
        if kind == "bid":
            return {"type": "bid", "amount": value}
        if kind == "pass":
            return {"type": "pass"}
        if kind == "choose_trump" or kind == "sing":
            return {"type": kind, "suit": SUITS[value]}
        if kind == "tute" or kind == "exchange":
            return {"type": kind}
        raise IllegalAction(Code.INVALID_ACTION, f"unknown action type {kind!r}")


#: The play of each card, by the card's int.
PLAYS: Final = tuple(Action("play", card) for card in ALL_CARDS)
#: The choice of each suit as trump, by the suit's int.
TRUMP_CHOICES: Final = tuple(Action("choose_trump", suit) for suit in range(len(SUITS)))
PASS: Final = Action("pass")
#: The declarations of C10m: singing each suit, by the suit's int; tute; the exchange of D4.
SINGS: Final = tuple(Action("sing", suit) for suit in range(len(SUITS)))
TUTE: Final = Action("tute")
EXCHANGE: Final = Action("exchange")

_PLAY_OF_CODE: Final = {CODES[action.value]: action for action in PLAYS}
_TRUMP_CHOICE_OF_LETTER: Final = {SUITS[action.value]: action for action in TRUMP_CHOICES}
_SING_OF_LETTER: Final = {SUITS[action.value]: action for action in SINGS}


def read_type(action: object) -> str:
    """The type of an :class:`Action` or of an action's JSON; :class:`IllegalAction` for anything else.

    The first half of :meth:`Action.from_json`: the engine checks the phase before it reads the field.
    """
    if type(action) is dict:  # the usual case, ahead of the slower check for any mapping
        kind: object = action.get("type")
    elif isinstance(action, Action):
        kind = action.type
    else:
        kind = action.get("type") if isinstance(action, Mapping) else None
    if kind not in ACTION_TYPES:
        raise IllegalAction(Code.INVALID_ACTION, f"unknown action type {kind!r}")
    return kind


def read_field(kind: str, action: Action | Mapping[str, Any]) -> Action:
    """The action of type ``kind`` (from :func:`read_type`) with its field read from its JSON.

    The second half of :meth:`Action.from_json`. Given an :class:`Action` built by hand, its value is
    checked the same way (a card 0–39, a suit 0–3, an int amount) and the action returned as it is.
    """
    if type(action) is not dict and isinstance(action, Action):
        return _checked(action)
    if kind == "play":
        name = action.get("card")
        play = _PLAY_OF_CODE.get(name) if isinstance(name, str) else None
        if play is None:
            raise _not_a_card(name)
        return play
    if kind == "bid":
        amount = action.get("amount")
        if type(amount) is not int:
            raise _not_an_amount(amount)
        return Action("bid", amount)
    if kind == "pass":
        return PASS
    if kind == "tute":
        return TUTE
    if kind == "exchange":
        return EXCHANGE
    letter = action.get("suit")
    by_letter = _SING_OF_LETTER if kind == "sing" else _TRUMP_CHOICE_OF_LETTER
    choice = by_letter.get(letter) if isinstance(letter, str) else None
    if choice is None:
        raise _not_a_suit(letter)
    return choice


def _checked(action: Action) -> Action:
    kind, value = action
    if kind == "play":
        if type(value) is not int or not 0 <= value < len(CODES):
            raise _not_a_card(value)
    elif kind == "bid":
        if type(value) is not int:
            raise _not_an_amount(value)
    elif kind in ("choose_trump", "sing") and (type(value) is not int or not 0 <= value < len(SUITS)):
        raise _not_a_suit(value)
    return action


def _not_a_card(name: object) -> IllegalAction:
    return IllegalAction(Code.INVALID_ACTION, f"{name!r} is not a card; cards are written like O1 or E12")


def _not_an_amount(amount: object) -> IllegalAction:
    return IllegalAction(Code.INVALID_ACTION, f"a bid's amount must be a whole number; got {amount!r}")


def _not_a_suit(letter: object) -> IllegalAction:
    return IllegalAction(Code.INVALID_SUIT, f"{letter!r} is not a suit; suits are O, C, E, B")


__all__ = [
    "ACTION_TYPES", "EXCHANGE", "PASS", "PLAYS", "SINGS", "TRUMP_CHOICES", "TUTE", "Action", "read_field", "read_type",
]
