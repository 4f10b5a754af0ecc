"""Manual declarations (RULES.md C10m): the entitled player sings, declares tute, exchanges or passes."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import (
    InvalidOptions,
    State,
    actions_of,
    legal_actions,
    new_match,
    push,
    replay,
    view,
)

from .helpers import c, hand_codes, of_type, play, position, refusal
from .test_dos import kinds, stock_position

MANUAL = {"declarations": "manual"}
PASS = {"type": "pass"}


def sing(suit: str) -> dict[str, Any]:
    return {"type": "sing", "suit": suit}


def declare(state: State, action: dict[str, Any]) -> list[dict[str, Any]]:
    return push(state, state.turn, action)


def individual(hands: dict[int, list[str]], trump: str = "B") -> State:
    return position("individual", {"players": 4, **MANUAL}, trump=trump, lead=0, hands=hands)


# -- the option ----------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", ["clasico", "subastado", "dos", "individual", "subastado_parejas"])
def test_C10m_manual_in_every_variant_but_cabron(variant: str) -> None:
    assert new_match(variant, MANUAL).state.options["declarations"] == "manual"


def test_C10m_not_in_cabron_whose_cantos_belong_to_the_table() -> None:
    with pytest.raises(InvalidOptions) as error:
        new_match("cabron", MANUAL)
    assert error.value.code == "invalid_option" and error.value.field == "declarations"


# -- the declaration turn --------------------------------------------------------------------------


def test_C10m_the_entitled_player_has_the_turn_with_the_declarations_only() -> None:
    state = individual({0: ["B1", "O12", "O11", "C12", "C11"], 1: ["B4", "E1"], 2: ["B5", "E3"], 3: ["B6", "E4"]})
    events = play(state, "B1", "B4", "B5", "B6")
    assert kinds(events)[-1] == "trick_won"  # nothing declared for the player
    assert (state.phase, state.turn) == ("declare", 0)
    assert legal_actions(state) == [sing("O"), sing("C"), PASS]
    assert view(state, 0)["legal_actions"] == [sing("O"), sing("C"), PASS]
    assert view(state, 0)["hand"]["phase"] == "declare"
    error = refusal(state, {"type": "play", "card": "O12"})
    assert error.code == "action_not_allowed_now"
    assert error.message == "'play' is not allowed now; expected sing or tute or exchange or pass"
    assert refusal(state, PASS, seat=1).code == "not_your_turn"


def test_C10m_in_any_order_the_table_s_order_binds_only_the_table() -> None:
    state = individual({0: ["B1", "O12", "O11", "C12", "C11"], 1: ["B4", "E1"], 2: ["B5", "E3"], 3: ["B6", "E4"]},
                       trump="O")
    play(state, "B1", "B4", "B5", "B6")
    events = declare(state, sing("C"))  # the 20 before the 40
    assert events == [{
        "type": "canto", "seat": 0, "data": {"suit": "C", "points": 20, "cards": ["C12", "C11"], "declared": True},
    }]
    assert state.sung_points[0] == 20 and {"C11", "C12"} <= set(view(state, 1)["hand"]["shown"][0])


def test_C10m_one_canto_per_won_trick_and_the_canto_not_sung_waits() -> None:
    hands = {0: ["B1", "B3", "O12", "O11", "C12", "C11"], 1: ["B4", "E1", "E2"], 2: ["B5", "E3", "E5"],
             3: ["B6", "E4", "E6"]}
    state = individual(hands, trump="O")
    play(state, "B1", "B4", "B5", "B6")
    declare(state, sing("C"))
    assert (state.phase, state.turn) == ("play", 0)  # C8: one canto per won trick; the turn ends by itself
    assert refusal(state, sing("O")).code == "action_not_allowed_now"
    play(state, "B3", "E1", "E3", "E4")
    assert legal_actions(state) == [sing("O"), PASS]  # the 40 waited for a later won trick
    assert of_type(declare(state, sing("O")), "canto")[0]["data"]["points"] == 40


def test_C10m_a_canto_waits_only_while_both_cards_are_held() -> None:
    hands = {0: ["B1", "O12", "O11", "C1"], 1: ["B4", "O1", "C3"], 2: ["B5", "E3", "C4"], 3: ["B6", "E4", "C5"]}
    state = individual(hands)
    play(state, "B1", "B4", "B5", "B6")
    assert declare(state, PASS) == [{"type": "pass", "seat": 0, "data": {}}]
    play(state, "O12", "O1", "E3", "E4")  # seat 1 wins with the ace; the king is gone
    play(state, "C3", "C4", "C5", "C1")
    assert (state.phase, state.turn) == ("play", 0) and state.cantos == []


def test_C10m_pass_declares_nothing_more() -> None:
    state = individual({0: ["B1", "O12", "O11"], 1: ["B4", "E1"], 2: ["B5", "E3"], 3: ["B6", "E4"]})
    play(state, "B1", "B4", "B5", "B6")
    assert declare(state, PASS) == [{"type": "pass", "seat": 0, "data": {}}]
    assert (state.phase, state.turn, state.lead) == ("play", 0, 0) and state.cantos == []


def test_C10m_pairs_the_trick_winner_declares_first_then_the_partner() -> None:
    hands = {0: ["B1", "O12", "O11"], 1: ["B4", "E1"], 2: ["B5", "C12", "C11"], 3: ["B6", "E4"]}
    state = position("clasico", MANUAL, trump="E", lead=0, hands=hands)
    play(state, "B1", "B4", "B5", "B6")
    assert (state.phase, state.turn) == ("declare", 0)
    assert refusal(state, sing("C"), seat=2).code == "not_your_turn"
    assert refusal(state, sing("C")).code == "cannot_declare"
    declare(state, sing("O"))
    assert (state.phase, state.turn) == ("declare", 2)  # CL3: one canto each
    assert legal_actions(state) == [sing("C"), PASS]
    declare(state, sing("C"))
    assert (state.phase, state.turn) == ("play", 0)  # the trick's winner leads
    assert [(s, p) for s, _, p in state.cantos] == [(0, 20), (2, 20)]


def test_C10m_pairs_a_partner_with_nothing_to_declare_is_never_asked() -> None:
    hands = {0: ["B1", "O12", "O11"], 1: ["B4", "E1"], 2: ["B5", "C12"], 3: ["B6", "E4"]}
    state = position("clasico", MANUAL, trump="E", lead=0, hands=hands)
    play(state, "B1", "B4", "B5", "B6")
    declare(state, PASS)
    assert (state.phase, state.turn) == ("play", 0)


def test_C10m_no_declaration_turn_when_nothing_can_be_declared() -> None:
    # The winner holds no pair: the hand goes on as in auto mode.
    state = individual({0: ["B1", "O12", "C11"], 1: ["B4", "E1"], 2: ["B5", "E3"], 3: ["B6", "E4"]})
    play(state, "B1", "B4", "B5", "B6")
    assert (state.phase, state.turn) == ("play", 0)
    # A suit sung already is no declaration; nor are the defenders' pairs in subastado (SU4).
    state = individual({0: ["B1", "O12", "O11"], 1: ["B4", "E1"], 2: ["B5", "E3"], 3: ["B6", "E4"]})
    state.sung = 1  # oros
    play(state, "B1", "B4", "B5", "B6")
    assert state.phase == "play"
    state = position("subastado", MANUAL, trump="B", lead=0, hands={0: ["B1", "O12", "O11"], 1: ["B4"], 2: ["B5"]})
    state.soloist = 1
    play(state, "B1", "B4", "B5")
    assert (state.phase, state.turn) == ("play", 0)
    # C8: never after the last trick.
    state = individual({0: ["B1"], 1: ["B4"], 2: ["B5"], 3: ["B6"]})
    events = play(state, "B1", "B4", "B5", "B6")
    assert "pass" not in kinds(events) and of_type(events, "hand_finished")


def test_C10m_only_the_soloist_declares_in_subastado_and_no_tute() -> None:
    hands = {0: ["B1", "O12", "C12", "E12", "B12", "O11"], 1: ["B4"], 2: ["B5"]}
    state = position("subastado", MANUAL, trump="B", lead=0, hands=hands)
    state.soloist = 0
    play(state, "B1", "B4", "B5")
    assert legal_actions(state) == [sing("O"), PASS]  # four kings, but no tute in subastado
    error = refusal(state, {"type": "tute"})
    assert (error.code, error.rule, error.message) == ("cannot_declare", "C10m", "no tute in subastado (C9)")


def test_C10m_tute_where_C9_allows_it_ends_the_hand() -> None:
    hands = {0: ["B1", "O12", "C12", "E12", "B12", "O11"], 1: ["B4", "E1"], 2: ["B5", "E3"], 3: ["B6", "E4"]}
    state = individual(hands)
    play(state, "B1", "B4", "B5", "B6")
    assert legal_actions(state) == [sing("O"), {"type": "tute"}, PASS]
    events = declare(state, {"type": "tute"})
    assert events[0] == {
        "type": "tute", "seat": 0,
        "data": {"kind": "kings", "cards": ["O12", "C12", "E12", "B12"], "declared": True},
    }
    (finished,) = of_type(events, "hand_finished")
    assert finished["data"]["tute"] == {"seat": 0, "kind": "kings"} and finished["data"]["winner"] == 0


def test_C10m_tute_after_a_canto_of_the_same_trick() -> None:
    hands = {0: ["B1", "O12", "C12", "E12", "B12", "O11"], 1: ["B4", "E1"], 2: ["B5", "E3"], 3: ["B6", "E4"]}
    state = individual(hands)
    play(state, "B1", "B4", "B5", "B6")
    declare(state, sing("O"))
    assert legal_actions(state) == [{"type": "tute"}, PASS]  # the canto used, the tute is still held
    assert of_type(declare(state, {"type": "tute"}), "hand_finished")


def test_C10m_refusals_name_the_rule_and_change_nothing() -> None:
    state = individual({0: ["B1", "O12", "O11"], 1: ["B4", "E1"], 2: ["B5", "E3"], 3: ["B6", "E4"]})
    play(state, "B1", "B4", "B5", "B6")
    error = refusal(state, sing("C"))
    assert (error.code, error.rule) == ("cannot_declare", "C10m")
    assert error.message == "seat 0 does not hold the king and the knight of C (C7)"
    assert refusal(state, {"type": "tute"}).message == "seat 0 holds neither the four kings nor the four knights (C9)"
    assert refusal(state, {"type": "exchange"}).code == "cannot_declare"
    assert refusal(state, sing("X")).code == "invalid_suit"
    assert refusal(state, {"type": "sing"}).code == "invalid_suit"
    assert refusal(state, {"type": "bid", "amount": 60}).code == "action_not_allowed_now"


# -- dos: the exchange, before the draw ------------------------------------------------------------


def test_C10m_exchange_before_the_draw_may_complete_a_canto() -> None:
    state = stock_position({0: ["C1", "O7", "O11", "E4"], 1: ["C4", "E5"]}, "O12", ["B4", "B5"], **MANUAL)
    events = play(state, "C1", "C4")
    assert kinds(events)[-1] == "trick_won" and len(state.stock) == 2  # nothing drawn yet
    assert legal_actions(state) == [{"type": "exchange"}, PASS]
    events = declare(state, {"type": "exchange"})
    assert events == [{"type": "exchange", "seat": 0, "data": {"gave": "O7", "took": "O12", "declared": True}}]
    assert legal_actions(state) == [sing("O"), PASS]  # one exchange; the card taken completes the 40
    events = declare(state, sing("O"))
    assert kinds(events) == ["canto", "draw", "draw"]  # then the winner draws first (D2)
    assert (state.phase, state.turn) == ("play", 0) and "B4" in hand_codes(state, 0)


def test_C10m_the_exchange_may_complete_a_tute() -> None:
    state = stock_position({0: ["C1", "O7", "C12", "E12", "B12"], 1: ["C4", "E5"]}, "O12", ["B4", "B5"], **MANUAL)
    play(state, "C1", "C4")
    assert legal_actions(state) == [{"type": "exchange"}, PASS]
    declare(state, {"type": "exchange"})
    assert legal_actions(state) == [{"type": "tute"}, PASS]
    events = declare(state, {"type": "tute"})
    assert of_type(events, "draw") == [] and state.scoreboard == [1, 0]


def test_C10m_a_player_may_keep_the_seven() -> None:
    state = stock_position({0: ["C1", "O7", "E4"], 1: ["C4", "E5"]}, "O3", ["B4", "B5"], **MANUAL)
    play(state, "C1", "C4")
    assert kinds(declare(state, PASS)) == ["pass", "draw", "draw"]
    assert "O7" in hand_codes(state, 0) and state.face_up == c("O3")


def test_C10m_no_exchange_in_the_arrastre_but_cantos_with_cantos_in_arrastre() -> None:
    hands = {0: ["C1", "O7", "E12", "E11"], 1: ["C4", "E5", "B4"]}
    state = position("dos", {**MANUAL, "cantos_in_arrastre": True}, trump="O", lead=0, hands=hands)
    play(state, "C1", "C4")
    assert legal_actions(state) == [sing("E"), PASS]
    state = position("dos", MANUAL, trump="O", lead=0, hands=hands)
    play(state, "C1", "C4")
    assert state.phase == "play"  # D5: no cantos in the arrastre by default


# -- records replay ----------------------------------------------------------------------------------


def test_C10m_the_declarations_are_actions_of_the_record_the_table_s_are_not() -> None:
    canto = {"type": "canto", "seat": 0, "data": {"suit": "O", "points": 20, "cards": ["O12", "O11"]}}
    assert actions_of([canto]) == []
    assert actions_of([{**canto, "data": {**canto["data"], "declared": True}}]) == [(0, sing("O"))]
    exchange = {"type": "exchange", "seat": 1, "data": {"gave": "O7", "took": "O1", "declared": True}}
    tute = {"type": "tute", "seat": 2, "data": {"kind": "kings", "cards": [], "declared": True}}
    assert actions_of([exchange, tute]) == [(1, {"type": "exchange"}), (2, {"type": "tute"})]


@given(seed=st.integers(0, 2**32 - 1), variant=st.sampled_from(["clasico", "dos", "individual", "subastado"]))
def test_C10m_a_manual_match_replays_from_its_log(seed: int, variant: str) -> None:
    state, log = new_match(variant, MANUAL, seed=seed)
    rnd = random.Random(seed)
    while state.status == "active" and state.hand_number <= 2:
        log += push(state, state.turn, rnd.choice(legal_actions(state)))
    again = replay(variant, MANUAL, log, seed=seed)
    assert again.events == log and again.state == state


# -- manual and automatic: the same hand when every player declares as the table would ----------------


def as_the_table(state: State) -> dict[str, Any]:
    """What the table would declare for the seat to act (C10, C8's order), knowing every hand."""
    actions = legal_actions(state)
    if {"type": "exchange"} in actions:
        return {"type": "exchange"}  # D4: exchanges first
    if {"type": "tute"} in actions:
        return {"type": "tute"}  # C9: tute before any canto
    later = [s for s in state.declaring[1:] if {"type": "tute"} in _may_declare(state, s)]
    if later:
        return PASS  # the table declares the partner's tute before any canto
    sings = [a["suit"] for a in actions if a["type"] == "sing"]
    if not sings:
        return PASS
    hand = view(state, state.turn)["my_hand"]
    trump = "OCEB"[state.trump]
    suit = trump if trump in sings else min(sings, key=lambda s: (sum(x[0] == s for x in hand), "OCEB".index(s)))
    return sing(suit)


def _may_declare(state: State, seat: int) -> list[dict[str, Any]]:
    probe = state.copy()
    probe.turn, probe.declared = seat, 0
    return legal_actions(probe)


def _comparable(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events with the passes left out and the mark of a player's declaration taken off."""
    return [
        {**e, "data": {k: v for k, v in e["data"].items() if k != "declared"}} for e in events if e["type"] != "pass"
    ]


def play_hands(variant: str, options: dict[str, Any], seed: int) -> tuple[State, list[dict[str, Any]]]:
    state, log = new_match(variant, options, seed=seed)
    rnd = random.Random(seed)
    while state.status == "active" and state.hand_number <= 2:
        if state.phase == "declare":
            log += push(state, state.turn, as_the_table(state))
            continue
        actions = legal_actions(state)
        log += push(state, state.turn, actions[int(rnd.random() * len(actions))])
    return state, log


@given(
    seed=st.integers(0, 2**32 - 1),
    case=st.sampled_from([
        ("clasico", {}), ("individual", {"players": 3}), ("individual", {"players": 4}), ("subastado", {}),
        ("subastado_parejas", {}), ("dos", {}), ("dos", {"hand_size": 6, "cantos_in_arrastre": True}),
    ]),
)
def test_C10m_declaring_as_the_table_gives_the_hand_of_auto_mode(seed: int, case: tuple[str, dict[str, Any]]) -> None:
    variant, options = case
    auto, auto_log = play_hands(variant, options, seed)
    manual, manual_log = play_hands(variant, {**options, **MANUAL}, seed)
    assert manual.results == auto.results
    assert _comparable(manual_log) == _comparable(auto_log)
