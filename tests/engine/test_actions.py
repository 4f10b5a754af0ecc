"""Actions as values (``games.engine.actions``): their JSON both ways, and the engine reading them."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import (
    ACTION_TYPES,
    CODES,
    SUITS,
    Action,
    Code,
    IllegalAction,
    State,
    apply_action,
    legal_actions,
    new_match,
    push,
    to_json,
)

from .helpers import refusal

#: Every variant and player count, as the benchmark plays them.
CASES = [
    ("clasico", {}),
    ("cabron", {"players": 3}),
    ("cabron", {"players": 4}),
    ("subastado", {}),
    ("subastado", {"auction_rounds": "many", "bid_step": 10}),
    ("dos", {"hand_size": 8}),
    ("dos", {"hand_size": 6, "cantos_in_arrastre": True}),
    ("individual", {"players": 3}),
    ("individual", {"players": 4}),
    ("clasico", {"declarations": "manual"}),
    ("dos", {"declarations": "manual"}),
    ("dos", {"hand_size": 6, "cantos_in_arrastre": True, "declarations": "manual"}),
    ("subastado_parejas", {}),
]

ACTIONS = st.one_of(
    st.builds(Action, st.just("play"), st.integers(0, 39)),
    st.builds(Action, st.just("bid"), st.integers()),
    st.just(Action("pass")),
    st.builds(Action, st.just("choose_trump"), st.integers(0, 3)),
)


@given(ACTIONS)
def test_every_action_round_trips_through_its_json(action: Action) -> None:
    data = action.to_json()
    assert Action.from_json(data) == action
    assert Action.from_json(json.loads(json.dumps(data))) == action
    assert data["type"] == action.type in ACTION_TYPES


def test_the_json_of_each_type() -> None:
    assert Action.from_json({"type": "play", "card": "O1"}) == Action("play", CODES.index("O1"))
    assert Action.from_json({"type": "bid", "amount": 75}) == Action("bid", 75)
    assert Action.from_json({"type": "pass"}) == Action("pass")
    assert Action.from_json({"type": "choose_trump", "suit": "E"}) == Action("choose_trump", 2)
    assert Action("play", CODES.index("E12")).to_json() == {"type": "play", "card": "E12"}
    assert Action("bid", 75).to_json() == {"type": "bid", "amount": 75}
    assert Action("pass").to_json() == {"type": "pass"}
    assert Action("choose_trump", 3).to_json() == {"type": "choose_trump", "suit": "B"}
    # Keys beside the type's field are ignored, as the engine always did.
    assert Action.from_json({"type": "pass", "amount": 70}) == Action("pass")
    assert Action.from_json({"type": "play", "card": "C3", "suit": "O"}).to_json() == {"type": "play", "card": "C3"}


def test_an_action_is_a_small_immutable_value() -> None:
    action = Action("play", 9)
    assert action == Action.from_json({"type": "play", "card": "O1"}) and hash(action) == hash(Action("play", 9))
    assert len({action, Action("play", 9), Action("bid", 9)}) == 2
    with pytest.raises(AttributeError):
        action.value = 3  # type: ignore[misc]
    assert not hasattr(action, "__dict__")


def play_randomly(variant: str, options: dict[str, Any], seed: int, hands: int = 2) -> list[list[dict[str, Any]]]:
    """The legal actions at every turn of the first ``hands`` hands of a random match."""
    rnd = random.Random(seed)
    state = new_match(variant, options, seed=seed).state
    seen = []
    while state.status == "active" and state.hand_number <= hands:
        actions = legal_actions(state, state.turn)
        seen.append(actions)
        push(state, state.turn, rnd.choice(actions))
    return seen


@given(case=st.sampled_from(CASES), seed=st.integers(0, 2**32 - 1))
def test_every_legal_action_round_trips_through_action(case: tuple[str, dict[str, Any]], seed: int) -> None:
    for actions in play_randomly(*case, seed):
        for data in actions:
            assert Action.from_json(data).to_json() == data


def test_action_types_are_what_legal_actions_ever_produces() -> None:
    assert ACTION_TYPES == ("play", "bid", "pass", "choose_trump", "sing", "tute", "exchange")
    produced = set()
    for variant, options in CASES:
        for seed in range(3):
            for actions in play_randomly(variant, options, seed):
                produced |= {a["type"] for a in actions}
    assert produced == set(ACTION_TYPES)


# -- malformed JSON: the same refusals as the engine's ---------------------------------------------


def in_phase(phase: str) -> State:
    """A fresh state whose seat to act is in ``phase``."""
    if phase == "play":
        return new_match("clasico", {}, seed=5).state
    state = new_match("subastado", {}, seed=5).state
    if phase == "trump_choice":
        push(state, state.turn, {"type": "bid", "amount": 60})
        push(state, state.turn, {"type": "pass"})
        push(state, state.turn, {"type": "pass"})
    assert state.phase == phase
    return state


def refused(data: Any) -> IllegalAction:
    with pytest.raises(IllegalAction) as raised:
        Action.from_json(data)
    return raised.value


ANYTHING = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=4),
    st.lists(st.integers(), max_size=2),
)
BAD_TYPES = st.one_of(ANYTHING.filter(lambda v: v not in ACTION_TYPES), st.sampled_from(["Play", "bid ", "fold", ""]))
BAD_CARDS = st.one_of(ANYTHING.filter(lambda v: v not in CODES), st.sampled_from(["O8", "O9", "X1", "o1", "O01", "1O"]))
BAD_SUITS = st.one_of(ANYTHING.filter(lambda v: not (isinstance(v, str) and len(v) == 1 and v in SUITS)),
                      st.sampled_from(["o", "OC", "X", "", "Oros"]))
BAD_AMOUNTS = ANYTHING.filter(lambda v: type(v) is not int)


def same_refusal(data: dict[str, Any], phase: str, code: Code) -> IllegalAction:
    """Action.from_json refuses ``data`` as the engine does, in a state of ``phase``."""
    error = refused(data)
    engine = refusal(in_phase(phase), data)
    assert (error.code, error.message, error.rule) == (engine.code, engine.message, engine.rule)
    assert error.code == code
    return error


@given(kind=BAD_TYPES, card=st.sampled_from(CODES))
def test_an_unknown_type_is_refused(kind: Any, card: str) -> None:
    error = same_refusal({"type": kind, "card": card}, "play", Code.INVALID_ACTION)
    assert error.message == f"unknown action type {kind!r}"


@pytest.mark.parametrize("data", [{}, {"card": "O1"}, None, "play", ["play", "O1"], ("play",), 7])
def test_a_missing_type_or_no_mapping_at_all_is_an_unknown_type(data: Any) -> None:
    error = refused(data)
    assert error.code == Code.INVALID_ACTION
    kind = data.get("type") if isinstance(data, dict) else None
    assert error.message == f"unknown action type {kind!r}"
    assert (refusal(in_phase("play"), data).message) == error.message


@given(card=BAD_CARDS)
def test_a_bad_card_is_refused(card: Any) -> None:
    error = same_refusal({"type": "play", "card": card}, "play", Code.INVALID_ACTION)
    assert error.message == f"{card!r} is not a card; cards are written like O1 or E12"


def test_a_missing_card_amount_or_suit_is_refused() -> None:
    assert same_refusal({"type": "play"}, "play", Code.INVALID_ACTION).message == (
        "None is not a card; cards are written like O1 or E12"
    )
    assert same_refusal({"type": "bid"}, "auction", Code.INVALID_ACTION).message == (
        "a bid's amount must be a whole number; got None"
    )
    assert same_refusal({"type": "choose_trump"}, "trump_choice", Code.INVALID_SUIT).message == (
        "None is not a suit; suits are O, C, E, B"
    )


@given(suit=BAD_SUITS)
def test_a_bad_suit_is_refused(suit: Any) -> None:
    error = same_refusal({"type": "choose_trump", "suit": suit}, "trump_choice", Code.INVALID_SUIT)
    assert error.message == f"{suit!r} is not a suit; suits are O, C, E, B"


@given(amount=BAD_AMOUNTS)
def test_an_amount_that_is_no_int_is_refused(amount: Any) -> None:
    error = same_refusal({"type": "bid", "amount": amount}, "auction", Code.INVALID_ACTION)
    assert error.message == f"a bid's amount must be a whole number; got {amount!r}"


# -- the engine reads an Action as it reads its JSON -------------------------------------------------


@pytest.mark.parametrize(("variant", "options"), CASES)
def test_push_takes_an_action_or_its_json_alike(variant: str, options: dict[str, Any]) -> None:
    rnd = random.Random(11)
    by_json = new_match(variant, options, seed=11).state
    first = legal_actions(by_json)[0]
    assert apply_action(by_json, by_json.turn, Action.from_json(first)) == apply_action(by_json, by_json.turn, first)
    by_action = by_json.copy()
    while by_json.status == "active" and by_json.hand_number <= 2:
        data = rnd.choice(legal_actions(by_json))
        seat = by_json.turn
        assert push(by_action, seat, Action.from_json(data)) == push(by_json, seat, data)
        assert to_json(by_action) == to_json(by_json)


@pytest.mark.parametrize(
    ("phase", "action", "code", "message"),
    [
        ("play", Action("fold"), Code.INVALID_ACTION, "unknown action type 'fold'"),
        ("play", Action("play", 40), Code.INVALID_ACTION, "40 is not a card; cards are written like O1 or E12"),
        ("play", Action("play", -1), Code.INVALID_ACTION, "-1 is not a card; cards are written like O1 or E12"),
        ("auction", Action("bid", "75"), Code.INVALID_ACTION, "a bid's amount must be a whole number; got '75'"),
        ("auction", Action("bid", True), Code.INVALID_ACTION, "a bid's amount must be a whole number; got True"),
        ("trump_choice", Action("choose_trump", 4), Code.INVALID_SUIT, "4 is not a suit; suits are O, C, E, B"),
        ("trump_choice", Action("choose_trump"), Code.INVALID_SUIT, "-1 is not a suit; suits are O, C, E, B"),
        ("auction", Action("play", 9), Code.ACTION_NOT_ALLOWED_NOW, "'play' is not allowed now; expected bid or pass"),
    ],
)
def test_a_bad_action_built_by_hand_is_refused(phase: str, action: Action, code: Code, message: str) -> None:
    error = refusal(in_phase(phase), action)
    assert (error.code, error.message) == (code, message)


def test_the_engine_checks_the_match_the_turn_the_type_the_phase_then_the_field() -> None:
    over = in_phase("auction")
    over.status = "finished"
    assert refusal(over, {"type": "fold"}, seat=(over.turn + 1) % over.players).code == Code.MATCH_NOT_ACTIVE
    state = in_phase("auction")
    other = (state.turn + 1) % state.players
    assert refusal(state, {"type": "bid", "amount": "x"}, seat=other).code == Code.NOT_YOUR_TURN
    assert refusal(state, Action("play", 99), seat=other).code == Code.NOT_YOUR_TURN
    assert refusal(state, {"type": "fold"}).code == Code.INVALID_ACTION
    assert refusal(state, {"type": "play", "card": "X9"}).code == Code.ACTION_NOT_ALLOWED_NOW
    assert refusal(state, {"type": "choose_trump", "suit": 7}).code == Code.ACTION_NOT_ALLOWED_NOW
    assert refusal(state, {"type": "bid", "amount": "x"}).code == Code.INVALID_ACTION
    assert refusal(state, {"type": "bid", "amount": 61}).code == Code.INVALID_BID
    play = in_phase("play")
    hand = play.hands[play.turn]
    not_held = next(card for card in range(40) if not hand >> card & 1)
    assert refusal(play, {"type": "play", "card": CODES[not_held]}).code == Code.CARD_NOT_IN_HAND
    assert refusal(play, Action("play", not_held)).code == Code.CARD_NOT_IN_HAND
