"""A state as plain JSON values and back: the snapshot that the API stores (``Match.state``).

Cards are written as their C2 codes (``"O1"``) and bit sets of cards as lists of codes, so a
snapshot reads well and loses nothing; reading one back builds the variant's rules anew.
"""

from __future__ import annotations

from typing import Any

from .cards import CODES, codes, mask_of, parse
from .state import _CARD, _CARD_LIST, _MASK, _MASK_LIST, _PLAIN, State
from .variants import rules_for


def _copied(value: Any) -> Any:
    """A plain JSON value with its lists and dicts copied all the way down."""
    if isinstance(value, list):
        return [_copied(item) for item in value]
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    return value


def to_json(state: State) -> dict[str, Any]:
    """The state as plain JSON values, cards written as C2 codes; a snapshot that shares nothing with the state."""
    out: dict[str, Any] = {name: _copied(getattr(state, name)) for name in _PLAIN if name not in ("decks", "tricks")}
    out["decks"] = [[CODES[c] for c in deck] for deck in state.decks]
    out["tricks"] = [[lead, [CODES[c] for c in cards]] for lead, cards in state.tricks]
    for name in _CARD:
        card = getattr(state, name)
        out[name] = CODES[card] if card >= 0 else None
    for name in _CARD_LIST:
        out[name] = [CODES[c] for c in getattr(state, name)]
    for name in _MASK_LIST:
        out[name] = [codes(mask) for mask in getattr(state, name)]
    for name in _MASK:
        out[name] = codes(getattr(state, name))
    return out


def from_json(data: dict[str, Any]) -> State:
    """The state that :func:`to_json` wrote."""
    if "last_winner" not in data:  # a snapshot written before M4 kept the last trick across hands
        data = {**data, "last_winner": data["lead"] if data["last_trick"] else -1}
    if "fair_deals" not in data:  # a snapshot written before C12v dealt without a key
        data = {**data, "fair_deals": None}
    if "declaring" not in data:  # a snapshot written before C10m
        data = {**data, "declaring": [], "declared": 0}
    state = State.__new__(State)
    for name in _PLAIN:
        setattr(state, name, _copied(data[name]))
    state.decks = [[parse(c) for c in deck] for deck in data["decks"]]
    state.tricks = [[lead, [parse(c) for c in cards]] for lead, cards in data["tricks"]]
    for name in _CARD:
        setattr(state, name, -1 if data[name] is None else parse(data[name]))
    for name in _CARD_LIST:
        setattr(state, name, [parse(c) for c in data[name]])
    for name in _MASK_LIST:
        setattr(state, name, [mask_of([parse(c) for c in cards]) for cards in data[name]])
    for name in _MASK:
        setattr(state, name, mask_of([parse(c) for c in data[name]]))
    state.rules = rules_for(state.variant, state.options)
    return state


__all__ = ["from_json", "to_json"]
