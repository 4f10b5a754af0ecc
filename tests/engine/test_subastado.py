"""Tute subastado, three players (RULES.md SU1–SU6) and worked example 5."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import State, legal_actions, new_match, push, view

from .helpers import deal, of_type, play, position, refusal


def auction(state: State, *amounts: int) -> list[dict[str, Any]]:
    """The seats to act bid these amounts in turn (0 passes)."""
    events: list[dict[str, Any]] = []
    for amount in amounts:
        action = {"type": "bid", "amount": amount} if amount else {"type": "pass"}
        events += push(state, state.turn, action)
    return events


def last_trick(taken: list[int], bid: int, soloist: int = 0, **options: Any) -> tuple[State, list[str]]:
    """A subastado hand before its last trick, which seat 0 wins with the O1 (11 + 10 points)."""
    state = position("subastado", options, trump="C", lead=0, hands={0: ["O1"], 1: ["O4"], 2: ["O5"]})
    state.taken, state.soloist, state.high_bid, state.high_bidder = list(taken), soloist, bid, soloist
    return state, ["O1", "O4", "O5"]


def score(taken: list[int], bid: int, soloist: int = 0, **options: Any) -> dict[str, Any]:
    state, cards = last_trick(taken, bid, soloist, **options)
    (finished,) = of_type(play(state, *cards), "hand_finished")
    result: dict[str, Any] = finished["data"]
    return result


def test_SU1_thirty_six_cards_twelve_each_no_trump_until_the_auction_ends() -> None:
    step = new_match("subastado", {}, seed=2)
    state = step.state
    assert [h.bit_count() for h in state.hands] == [12, 12, 12]
    assert len(step.events[0]["data"]["deck"]) == 36
    assert state.phase == "auction" and view(state, 0)["hand"]["trump"] is None
    assert step.events[0]["data"]["trump"] is None and step.events[0]["data"]["trump_card"] is None


def test_SU2_the_auction_starts_with_the_mano_and_goes_once_round() -> None:
    state = deal("subastado", dealer=2).state
    assert state.turn == 0 and state.phase == "auction"
    assert legal_actions(state) == [{"type": "pass"}, *({"type": "bid", "amount": a} for a in range(60, 231, 5))]
    auction(state, 60, 70)
    assert state.turn == 2
    assert legal_actions(state)[1] == {"type": "bid", "amount": 75}  # each above the highest so far
    events = auction(state, 0)
    # Once round: seat 0 does not get to answer seat 1's 70.
    assert state.phase == "trump_choice" and state.turn == 1
    assert [(e["type"], e["seat"]) for e in events] == [("pass", 2)]


def test_SU2_bids_go_in_steps_from_min_bid_to_230() -> None:
    state = deal("subastado", {"bid_step": 10, "min_bid": 50}, dealer=2).state
    assert [a["amount"] for a in legal_actions(state)[1:]] == list(range(50, 231, 10))
    assert refusal(state, {"type": "bid", "amount": 40}).code == "bid_too_low"
    assert refusal(state, {"type": "bid", "amount": 55}).code == "invalid_bid"
    assert refusal(state, {"type": "bid", "amount": 240}).code == "invalid_bid"
    auction(state, 230)
    assert legal_actions(state) == [{"type": "pass"}]
    assert refusal(state, {"type": "bid", "amount": 230}).code == "bid_too_low"
    state = deal("subastado", {"min_bid": 70}, dealer=2).state
    assert refusal(state, {"type": "bid", "amount": 65}).code == "bid_too_low"
    auction(state, 70)
    error = refusal(state, {"type": "bid", "amount": 70})
    assert error.code == "bid_too_low" and error.rule == "SU2"


def test_SU2_many_rounds_until_all_but_one_have_passed() -> None:
    state = deal("subastado", {"auction_rounds": "many"}, dealer=2).state
    auction(state, 60, 65, 0)  # seat 2 passes: final
    assert state.turn == 0 and state.phase == "auction"
    auction(state, 70)
    assert state.turn == 1  # seat 2 is skipped
    auction(state, 75, 80)
    assert state.turn == 1 and state.phase == "auction"
    auction(state, 0)
    assert state.phase == "trump_choice" and state.turn == 0 and state.high_bid == 80


def test_SU2_many_rounds_the_last_seat_may_still_bid_when_the_others_passed() -> None:
    state = deal("subastado", {"auction_rounds": "many"}, dealer=2).state
    auction(state, 0, 0)
    assert state.turn == 2 and state.phase == "auction"
    auction(state, 60)
    assert state.phase == "trump_choice" and state.soloist == 2


def test_SU3_nobody_bids_the_hand_is_passed() -> None:
    state = deal("subastado", dealer=2).state
    events = auction(state, 0, 0, 0)
    (finished,) = of_type(events, "hand_finished")
    assert finished["data"] == {"hand": 1, "dealer": 2, "passed": True, "scoreboard": [0, 0, 0]}
    (started,) = of_type(events, "hand_started")
    assert started["data"]["dealer"] == 0 and state.turn == 1 and state.phase == "auction"


def test_SU4_the_highest_bidder_chooses_trump_and_leads() -> None:
    state = deal("subastado", dealer=2).state
    auction(state, 0, 65, 0)
    assert state.phase == "trump_choice" and state.turn == 1
    assert legal_actions(state) == [{"type": "choose_trump", "suit": s} for s in "OCEB"]
    assert refusal(state, {"type": "choose_trump", "suit": "X"}).code == "invalid_suit"
    events = push(state, 1, {"type": "choose_trump", "suit": "E"})
    assert events == [{"type": "trump_chosen", "seat": 1, "data": {"suit": "E"}}]
    assert state.phase == "play" and state.turn == 1 and view(state, 0)["hand"]["trump"] == "E"
    assert view(state, 0)["hand"]["contract"] == {"seat": 1, "bid": 65}


def test_SU4_only_the_soloist_sings_and_no_tute() -> None:
    hands = {0: ["B1", "O12", "O11"], 1: ["B4", "C12", "C11"], 2: ["B5", "E12", "E11"]}
    state = position("subastado", None, trump="O", lead=0, hands=hands)
    state.soloist = 1
    events = play(state, "B1", "B4", "B5")  # a rival wins: it does not sing
    assert of_type(events, "canto") == []
    hands = {0: ["B4", "C1"], 1: ["B1", "O12", "C12", "E12", "B12", "O11"], 2: ["B5", "C3"]}
    state = position("subastado", None, trump="O", lead=1, hands=hands)
    state.soloist = 1
    events = play(state, "B1", "B5", "B4")
    assert of_type(events, "tute") == []  # four kings: no tute in subastado
    assert [(e["seat"], e["data"]["points"]) for e in of_type(events, "canto")] == [(1, 40)]


def test_SU5_made_the_soloist_scores_the_bid() -> None:
    result = score([83, 20, 6], 100)  # the soloist ends with 104
    assert result["points"] == [104, 20, 6] and result["made"] is True
    assert result["gains"] == [100, 0, 0] and result["scoreboard"] == [100, 0, 0]


def test_SU5_burnt_each_rival_scores_the_bid_and_120_or_more_counts_double() -> None:
    result = score([104, 5, 0], 130)  # the soloist makes 125 of 130
    assert result["made"] is False and result["gains"] == [0, 260, 260]


def test_SU5_failed_bid_split_half_each_rounded_up() -> None:
    result = score([30, 50, 29], 65, failed_bid="split")  # 51 of 65: 33 each
    assert result["made"] is False and result["gains"] == [0, 33, 33]
    result = score([79, 20, 10], 125, failed_bid="split")  # 100 of 125: 250 doubled, 125 each
    assert result["gains"] == [0, 125, 125]


def test_worked_example_5_subastado_scoring() -> None:
    """Bid 125, made 130: soloist +250. Bid 125, made 120: each rival +250."""
    assert score([109, 21, 0], 125)["gains"] == [250, 0, 0]
    assert score([99, 31, 0], 125)["gains"] == [0, 250, 250]


def test_SU5_cantos_and_the_last_ten_count_toward_the_bid() -> None:
    state, cards = last_trick([39, 60, 10], 80)
    state.sung_points = [20, 0, 0]
    (finished,) = of_type(play(state, *cards), "hand_finished")
    assert finished["data"]["points"] == [80, 60, 10] and finished["data"]["made"] is True


def test_SU6_the_first_to_reach_the_target_wins() -> None:
    state, cards = last_trick([83, 20, 6], 100)
    state.scoreboard = [400, 450, 495]
    events = play(state, *cards)
    assert of_type(events, "match_finished")[0]["data"]["winners"] == [0] and state.scoreboard == [500, 450, 495]


def test_SU6_several_reach_it_the_highest_total_wins() -> None:
    state, cards = last_trick([30, 50, 29], 65)  # burnt: the rivals score 65 each
    state.scoreboard = [480, 440, 450]
    events = play(state, *cards)
    assert state.scoreboard == [480, 505, 515]
    assert of_type(events, "match_finished")[0]["data"]["winners"] == [2]


def test_SU6_a_tie_at_the_top_plays_on() -> None:
    state, cards = last_trick([30, 50, 29], 65)
    state.scoreboard = [480, 450, 450]
    events = play(state, *cards)
    assert state.scoreboard == [480, 515, 515]
    assert of_type(events, "match_finished") == [] and state.status == "active" and state.hand_number == 2


@pytest.mark.parametrize("target", [500, 1000])
def test_SU6_target_option(target: int) -> None:
    assert new_match("subastado", {"target": target}).state.options["target"] == target
