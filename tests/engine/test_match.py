"""Seats, turns, shuffling and ties (RULES.md C11–C13); the error codes of API.md; match options."""

from __future__ import annotations

import random
from typing import Any

import pytest

from games.engine import (
    VARIANTS,
    Code,
    IllegalAction,
    InvalidOptions,
    apply_action,
    current_seat,
    from_json,
    legal_actions,
    new_match,
    push,
    replay,
    to_json,
    view,
)

from .helpers import c, deal, of_type, play, position, refusal

# -- C11 ---------------------------------------------------------------------------------------


def test_C11_one_card_at_a_time_from_the_mano_the_dealer_gets_the_last() -> None:
    deck = list(range(40))
    state = new_match("clasico", {}, first_dealer=1, decks=[deck]).state
    mano = 2
    for i, card in enumerate(deck):
        assert state.hands[(mano + i) % 4] >> card & 1
    assert state.trump_card == 39 and state.hands[1] >> 39 & 1  # the dealer's last card
    assert state.turn == mano and current_seat(state) == mano


def test_C11_seat_k_plus_1_plays_after_seat_k() -> None:
    state = new_match("individual", {"players": 3}, seed=8).state
    seats = []
    for _ in range(3):
        seats.append(state.turn)
        play(state, sorted(a["card"] for a in legal_actions(state))[0])
    assert seats == [seats[0], (seats[0] + 1) % 3, (seats[0] + 2) % 3]


def test_C11_the_first_dealer_is_drawn_at_random_then_the_deal_passes_on() -> None:
    assert {new_match("clasico", {}, seed=s).state.dealer for s in range(40)} == {0, 1, 2, 3}
    state = new_match("subastado", {}, seed=1).state
    first = state.dealer
    for _ in range(3):
        push(state, state.turn, {"type": "pass"})  # a passed hand
    assert state.dealer == (first + 1) % 3 and state.turn == (first + 2) % 3


def test_C11_seats_0_and_2_play_against_1_and_3() -> None:
    for variant in ("clasico", "subastado_parejas"):
        assert view(new_match(variant, {}, seed=1).state, 0)["sides"] == [0, 1, 0, 1]
    assert view(new_match("individual", {"players": 4}, seed=1).state, 0)["sides"] == [0, 1, 2, 3]


# -- C12 ---------------------------------------------------------------------------------------


def test_C12_unseeded_matches_shuffle_and_seeded_ones_repeat() -> None:
    def deck(seed: int | None) -> list[str]:
        started: list[str] = new_match("clasico", {}, seed=seed).events[0]["data"]["deck"]
        return started

    assert deck(None) != deck(None)
    assert deck(7) == deck(7) and deck(7) != deck(8)
    assert new_match("dos", {}, seed=7).state == new_match("dos", {}, seed=7).state


def test_C12_every_deal_is_stored_so_an_unseeded_match_replays() -> None:
    step = new_match("dos", {"games_to_win": 2}, seed=None)
    state, log = step.state, list(step.events)
    while state.status == "active":
        log += push(state, state.turn, legal_actions(state)[-1])
    assert len(of_type(log, "hand_started")) == state.hand_number >= 2
    again = replay("dos", {"games_to_win": 2}, log)
    assert again.events == log and to_json(again.state) == to_json(state)


# -- C13 ---------------------------------------------------------------------------------------


def test_C13_two_sides_tied_the_side_that_won_the_last_trick_wins() -> None:
    state = position("clasico", None, trump="O", lead=0, hands={0: ["C4"], 1: ["C5"], 2: ["C6"], 3: ["C1"]})
    state.taken = [40, 20, 25, 24]  # 65 against 44 before the last trick, which seat 3 takes: 21
    events = play(state, "C4", "C5", "C6", "C1")
    (finished,) = of_type(events, "hand_finished")
    assert finished["data"]["points"] == [65, 65] and finished["data"]["winner"] == 1


def test_C13_more_sides_the_tied_side_that_won_a_trick_latest() -> None:
    state = position("individual", {"players": 3}, trump="O", lead=0, hands={0: ["C4"], 1: ["C5"], 2: ["C1"]})
    state.taken, state.tricks_won = [50, 50, 9], [5, 4, 2]
    state.trick_number, state.last_won = 11, [9, 10, 3]  # seat 1 won trick 10, seat 0 trick 9
    events = play(state, "C4", "C5", "C1")  # seat 2 wins the last trick: 50, 50, 30
    (finished,) = of_type(events, "hand_finished")
    assert finished["data"]["points"] == [50, 50, 30] and finished["data"]["winner"] == 1
    state = position("individual", {"players": 3}, trump="O", lead=0, hands={0: ["C4"], 1: ["C5"], 2: ["C1"]})
    state.taken, state.trick_number, state.last_won = [50, 50, 9], 11, [10, 9, 3]
    (finished,) = of_type(play(state, "C4", "C5", "C1"), "hand_finished")
    assert finished["data"]["winner"] == 0


# -- error codes -------------------------------------------------------------------------------


def test_not_your_turn() -> None:
    state = new_match("clasico", {}, seed=1).state
    other = (state.turn + 1) % 4
    error = refusal(state, legal_actions(state)[0], seat=other)
    assert error.code == Code.NOT_YOUR_TURN == "not_your_turn"
    assert legal_actions(state, other) == []


def test_match_not_active() -> None:
    state = position("dos", None, trump="O", lead=0, hands={0: ["C4"], 1: ["C1"]})
    play(state, "C4", "C1")
    assert state.status == "finished" and current_seat(state) is None and legal_actions(state) == []
    assert refusal(state, {"type": "play", "card": "C4"}, seat=0).code == "match_not_active"


@pytest.mark.parametrize(
    "action",
    [
        {"type": "fold"},
        {"type": None},
        {},
        {"card": "O1"},
        {"type": "play", "card": "O8"},
        {"type": "play", "card": "o1"},
        {"type": "play", "card": 0},
        {"type": "play"},
    ],
)
def test_invalid_action(action: dict[str, Any]) -> None:
    state = new_match("clasico", {}, seed=1).state
    assert refusal(state, action).code == "invalid_action"


def test_invalid_action_not_a_mapping_and_a_bid_that_is_not_an_int() -> None:
    state = new_match("clasico", {}, seed=1).state
    assert refusal(state, ["play", "O1"]).code == "invalid_action"  # type: ignore[arg-type]
    state = new_match("subastado", {}, seed=1).state
    for amount in ("70", 70.0, True, None):
        assert refusal(state, {"type": "bid", "amount": amount}).code == "invalid_action"
    # A bid without an amount is malformed, not a bid of 0.
    assert refusal(state, {"type": "bid"}).code == "invalid_action"


def test_action_not_allowed_now() -> None:
    state = new_match("subastado", {}, seed=1).state
    assert refusal(state, {"type": "play", "card": "O1"}).code == "action_not_allowed_now"
    assert refusal(state, {"type": "choose_trump", "suit": "O"}).code == "action_not_allowed_now"
    push(state, state.turn, {"type": "bid", "amount": 60})
    push(state, state.turn, {"type": "pass"})
    push(state, state.turn, {"type": "pass"})
    assert refusal(state, {"type": "pass"}).code == "action_not_allowed_now"
    push(state, state.turn, {"type": "choose_trump", "suit": "O"})
    assert refusal(state, {"type": "bid", "amount": 65}).code == "action_not_allowed_now"
    assert refusal(state, {"type": "choose_trump", "suit": "O"}).code == "action_not_allowed_now"


def test_card_not_in_hand_and_the_duties_name_their_rule() -> None:
    state = position("clasico", None, trump="O", lead=0, hands={0: ["C10"], 1: ["C5", "C1", "O1", "E1"]})
    error = refusal(state, {"type": "play", "card": "C5"})
    assert error.code == "card_not_in_hand" and "C5" in error.message
    play(state, "C10")
    for card, code, rule in (("O1", "must_follow_suit", "C5.a"), ("C5", "must_beat", "C5.b")):
        error = refusal(state, {"type": "play", "card": card})
        assert (error.code, error.rule) == (code, rule)
        assert isinstance(error, IllegalAction) and isinstance(error, ValueError) and error.message == str(error)
    hands = {0: ["C4"], 1: ["O5", "E4"], 2: ["O1", "O4", "E1"]}
    state = position("clasico", None, trump="O", lead=0, hands=hands, played=["C4"])
    error = refusal(state, {"type": "play", "card": "E4"})
    assert (error.code, error.rule) == ("must_trump", "C5.c")
    play(state, "O5")
    error = refusal(state, {"type": "play", "card": "O4"})
    assert (error.code, error.rule) == ("must_overtrump", "C5.d")


def test_bid_too_low_invalid_bid_invalid_suit() -> None:
    state = new_match("subastado", {}, seed=1).state
    push(state, state.turn, {"type": "bid", "amount": 80})
    assert refusal(state, {"type": "bid", "amount": 80}).code == "bid_too_low"
    assert refusal(state, {"type": "bid", "amount": 0}).code == "bid_too_low"
    assert refusal(state, {"type": "bid", "amount": 83}).code == "bid_too_low"  # below the next bid, 85
    assert refusal(state, {"type": "bid", "amount": 87}).code == "invalid_bid"  # off the steps of 5
    assert refusal(state, {"type": "bid", "amount": 235}).code == "invalid_bid"
    push(state, state.turn, {"type": "pass"})
    push(state, state.turn, {"type": "pass"})
    for suit in ("X", "o", "OC", "", None, 0):
        assert refusal(state, {"type": "choose_trump", "suit": suit}).code == "invalid_suit"


def test_apply_action_leaves_the_state_untouched_and_push_refuses_without_change() -> None:
    state = new_match("clasico", {}, seed=2).state
    before = to_json(state)
    step = apply_action(state, state.turn, legal_actions(state)[0])
    assert to_json(state) == before and step.state != state
    with pytest.raises(IllegalAction):
        apply_action(state, state.turn, {"type": "pass"})
    assert to_json(state) == before


# -- options -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "variant, options, code, field",
    [
        ("tute", {}, "unknown_variant", "variant"),
        (None, {}, "unknown_variant", "variant"),
        ("clasico", {"players": 4}, "invalid_option", "players"),
        ("clasico", {"capote": True}, "invalid_option", "capote"),
        ("clasico", {"games_to_win": 10}, "invalid_option", "games_to_win"),
        ("clasico", {"games_to_win": 0}, "invalid_option", "games_to_win"),
        ("clasico", {"games_to_win": True}, "invalid_option", "games_to_win"),
        ("clasico", {"games_to_win": "4"}, "invalid_option", "games_to_win"),
        ("clasico", {"tute_on_deal": 1}, "invalid_option", "tute_on_deal"),
        ("cabron", {"players": 5}, "invalid_option", "players"),
        ("cabron", {"players": True}, "invalid_option", "players"),
        ("cabron", {"letters": 11}, "invalid_option", "letters"),
        ("cabron", {"zero_rule": "cards"}, "invalid_option", "zero_rule"),
        ("subastado", {"min_bid": 65}, "invalid_option", "min_bid"),
        ("subastado", {"bid_step": 1}, "invalid_option", "bid_step"),
        ("subastado", {"target": 750}, "invalid_option", "target"),
        ("subastado", {"auction_rounds": 2}, "invalid_option", "auction_rounds"),
        ("subastado", {"failed_bid": "none"}, "invalid_option", "failed_bid"),
        ("dos", {"hand_size": 7}, "invalid_option", "hand_size"),
        ("dos", {"cantos_in_arrastre": "yes"}, "invalid_option", "cantos_in_arrastre"),
        ("individual", {"players": 2}, "invalid_option", "players"),
    ],
)
def test_invalid_options_name_the_field(variant: Any, options: dict[str, Any], code: str, field: str) -> None:
    with pytest.raises(InvalidOptions) as error:
        new_match(variant, options)
    assert error.value.code == code and error.value.field == field
    assert field in error.value.message or code == "unknown_variant"


def test_every_variant_and_its_defaults() -> None:
    assert set(VARIANTS) == {"clasico", "cabron", "subastado", "dos", "individual", "subastado_parejas"}
    for name, info in VARIANTS.items():
        state = new_match(name, {}, seed=1).state
        assert state.options == info.defaults()
        assert state.players in info.players


def test_deal_helper_builds_the_wanted_hands() -> None:
    # The helper the other tests rely on: seat 3 gets exactly what it asked for.
    state = deal("clasico", dealer=2, hands={3: ["O1", "C1"]}, last="E4").state
    assert state.hands[3] >> c("O1") & 1 and state.hands[3] >> c("C1") & 1 and state.trump_card == c("E4")



def test_C12_a_match_replayed_with_its_seed_deals_its_later_hands_as_the_original() -> None:
    original, log = new_match("dos", {"games_to_win": 3}, seed=11)
    rng = random.Random(5)
    while original.hand_number == 1:
        seat = current_seat(original)
        log += push(original, seat, rng.choice(legal_actions(original, seat)))
    second_deal = max(i for i, e in enumerate(log) if e["type"] == "hand_started")
    rebuilt = replay("dos", {"games_to_win": 3}, log[:second_deal], seed=11)
    assert rebuilt.events == log  # hand 2 was dealt from the seed, as in the original
    assert from_json(to_json(rebuilt.state)) == original
