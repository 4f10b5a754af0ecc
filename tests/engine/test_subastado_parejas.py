"""Tute subastado in pairs (RULES.md SP1–SP3)."""

from __future__ import annotations

from typing import Any

from games.engine import State, legal_actions, new_match, push

from .helpers import deal, of_type, play, position


def auction(state: State, *amounts: int) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for amount in amounts:
        events += push(state, state.turn, {"type": "bid", "amount": amount} if amount else {"type": "pass"})
    return events


def last_trick(taken: list[int], bid: int, soloist: int) -> tuple[State, list[str]]:
    """An SP hand before its last trick, which seat 0 wins with the O1 (11 + 10 points)."""
    hands = {0: ["O1"], 1: ["O4"], 2: ["O5"], 3: ["O6"]}
    state = position("subastado_parejas", None, trump="C", lead=0, hands=hands)
    state.taken, state.soloist, state.high_bid, state.high_bidder = list(taken), soloist, bid, soloist
    return state, ["O1", "O4", "O5", "O6"]


def test_SP1_forty_cards_ten_each_and_an_auction_of_many_rounds() -> None:
    step = new_match("subastado_parejas", {}, seed=3)
    assert [h.bit_count() for h in step.state.hands] == [10] * 4 and len(step.events[0]["data"]["deck"]) == 40
    state = deal("subastado_parejas", dealer=3).state
    assert state.turn == 0 and state.phase == "auction"
    assert [a["amount"] for a in legal_actions(state)[1:]] == list(range(70, 231, 5))  # min_bid 70, steps of 5
    auction(state, 70, 0, 75, 80)  # seat 1 passes for good
    assert state.turn == 0
    auction(state, 85, 0)
    assert state.turn == 3  # seat 1 is skipped
    auction(state, 0)
    assert state.phase == "trump_choice" and state.turn == 0 and state.high_bid == 85
    state = deal("subastado_parejas", {"bid_step": 10}, dealer=3).state
    assert [a["amount"] for a in legal_actions(state)[1:]] == list(range(70, 231, 10))


def test_SP2_nobody_bids_the_next_dealer_deals() -> None:
    state = deal("subastado_parejas", dealer=3).state
    events = auction(state, 0, 0, 0, 0)
    assert of_type(events, "hand_finished")[0]["data"]["passed"] is True
    assert of_type(events, "hand_started")[0]["data"]["dealer"] == 0 and state.scoreboard == [0, 0]


def test_SP2_the_bidder_chooses_trump_and_leads() -> None:
    state = deal("subastado_parejas", dealer=3).state
    auction(state, 0, 70, 0, 0)
    push(state, 1, {"type": "choose_trump", "suit": "B"})
    assert state.turn == 1 and state.phase == "play" and state.trump == 3


def test_SP2_both_partners_of_the_bidding_pair_sing_the_defenders_do_not_and_no_tute() -> None:
    hands = {0: ["B1", "C12", "C11"], 1: ["B4", "O12", "O11"], 2: ["B5", "E12", "E11"], 3: ["B6", "O1"]}
    state = position("subastado_parejas", None, trump="O", lead=0, hands=hands)
    state.soloist = 2  # the bidding pair is 0-2
    events = play(state, "B1", "B4", "B5", "B6")
    assert [(e["seat"], e["data"]["suit"]) for e in of_type(events, "canto")] == [(0, "C"), (2, "E")]
    state = position("subastado_parejas", None, trump="O", lead=0, hands=hands)
    state.soloist = 1  # now 0-2 defend
    assert of_type(play(state, "B1", "B4", "B5", "B6"), "canto") == []
    hands = {0: ["B1", "O12", "C12", "E12", "B12"], 1: ["B4", "C1"], 2: ["B5", "C3"], 3: ["B6", "C4"]}
    state = position("subastado_parejas", None, trump="O", lead=0, hands=hands)
    state.soloist = 0
    assert of_type(play(state, "B1", "B4", "B5", "B6"), "tute") == []


def test_SP3_the_bidding_pair_scores_its_points_or_loses_the_bid() -> None:
    state, cards = last_trick([50, 30, 19, 10], 85, soloist=2)  # pair 0-2: 90 of 85
    (finished,) = of_type(play(state, *cards), "hand_finished")
    assert finished["data"]["points"] == [90, 40] and finished["data"]["gains"] == [90, 40]
    state, cards = last_trick([50, 30, 19, 10], 95, soloist=2)  # 90 of 95
    (finished,) = of_type(play(state, *cards), "hand_finished")
    assert finished["data"]["made"] is False and finished["data"]["gains"] == [-95, 40]


def test_SP3_scores_may_go_negative_and_the_first_pair_to_the_target_wins() -> None:
    state, cards = last_trick([50, 30, 19, 10], 95, soloist=0)
    state.scoreboard = [-30, 970]
    events = play(state, *cards)
    assert state.scoreboard == [-125, 1010]
    assert of_type(events, "match_finished")[0]["data"]["winners"] == [1]
    assert new_match("subastado_parejas", {}).state.options["target"] == 1000


def test_SP3_a_tie_at_the_top_plays_on() -> None:
    state, cards = last_trick([50, 30, 19, 10], 85, soloist=0)
    state.scoreboard = [960, 1010]
    events = play(state, *cards)
    assert state.scoreboard == [1050, 1050] and state.status == "active"
    assert of_type(events, "match_finished") == []
