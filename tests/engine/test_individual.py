"""Individual, three or four players (RULES.md IN1–IN3)."""

from __future__ import annotations

import pytest

from games.engine import new_match, view

from .helpers import deal, hand_codes, legal_codes, of_type, play, position, refusal


@pytest.mark.parametrize("players, size, deck", [(3, 12, 36), (4, 10, 40)])
def test_IN1_deal_by_player_count_and_the_dealers_last_card_is_trump(players: int, size: int, deck: int) -> None:
    step = deal("individual", {"players": players}, dealer=1, last="B6")
    state = step.state
    assert [h.bit_count() for h in state.hands] == [size] * players
    assert len(step.events[0]["data"]["deck"]) == deck
    assert "B6" in hand_codes(state, 1)  # the dealer keeps it
    table = view(state, 0)["hand"]
    assert table["trump"] == "B" and table["trump_card"] == "B6"


def test_IN2_the_mano_leads_and_C5_applies_from_the_first_trick() -> None:
    step = deal("individual", {"players": 3}, dealer=2, hands={0: ["C12"], 1: ["C1", "C4"]}, last="O4")
    state = step.state
    assert state.turn == 0
    play(state, "C12")
    assert legal_codes(state) == {"C1"}
    assert refusal(state, {"type": "play", "card": "C4"}).code == "must_beat"


def test_IN2_only_the_trick_winner_sings_and_tute_is_allowed() -> None:
    hands = {0: ["B1", "C12", "C11"], 1: ["B4", "E12", "E11"], 2: ["B5", "O12", "O11"]}
    state = position("individual", {"players": 3}, trump="O", lead=0, hands=hands)
    events = play(state, "B1", "B4", "B5")
    assert [(e["seat"], e["data"]["suit"]) for e in of_type(events, "canto")] == [(0, "C")]
    hands = {0: ["B1", "O12", "C12", "E12", "B12"], 1: ["B4", "C1"], 2: ["B5", "C3"]}
    state = position("individual", {"players": 3, "games_to_win": 2}, trump="O", lead=0, hands=hands)
    events = play(state, "B1", "B4", "B5")
    assert of_type(events, "tute")[0]["seat"] == 0 and state.scoreboard == [1, 0, 0]


def test_IN3_most_points_wins_the_hand_and_games_to_win_the_match() -> None:
    assert new_match("individual", {}).state.options["games_to_win"] == 4
    state = position(
        "individual", {"players": 3, "games_to_win": 2}, trump="O", lead=0, hands={0: ["C4"], 1: ["C5"], 2: ["C1"]}
    )
    state.taken, state.scoreboard = [60, 30, 19], [0, 1, 1]
    events = play(state, "C4", "C5", "C1")  # seat 2 takes 21: 60, 30, 40
    (finished,) = of_type(events, "hand_finished")
    assert finished["data"]["points"] == [60, 30, 40] and finished["data"]["winner"] == 0
    assert state.scoreboard == [1, 1, 1] and state.status == "active"
    state = position(
        "individual", {"players": 3, "games_to_win": 2}, trump="O", lead=0, hands={0: ["C4"], 1: ["C5"], 2: ["C1"]}
    )
    state.taken, state.scoreboard = [60, 30, 19], [1, 1, 1]
    events = play(state, "C4", "C5", "C1")
    assert of_type(events, "match_finished")[0]["data"]["winners"] == [0]
