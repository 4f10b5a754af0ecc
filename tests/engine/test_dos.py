"""Two players with a stock (RULES.md D1–D6) and worked example 6."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import State, new_match, view

from .helpers import c, dos_deck, hand_codes, legal_codes, of_type, play, position, refusal


def stock_position(
    hands: dict[int, list[str]], face_up: str, stock: list[str], *, lead: int = 0, **options: Any
) -> State:
    """A ``dos`` hand in its stock phase: ``stock`` is in draw order, ``face_up`` lies under it."""
    state = position("dos", options, trump=face_up[0], lead=lead, hands=hands)
    state.face_up = c(face_up)
    state.stock = [c(x) for x in reversed(stock)]
    return state


def kinds(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


# -- D1 ------------------------------------------------------------------------------------------


def test_D1_the_deal_the_face_up_trump_and_the_stock() -> None:
    hands = {
        1: ["O1", "O3", "C1", "C3", "E1", "E3", "B1", "B3"],
        0: ["O12", "O11", "C12", "C11", "E12", "E11", "B12", "B11"],
    }
    deck = dos_deck(0, hands, "E5", ["B4", "C7"])
    # Non-dealer first, one at a time.
    assert deck[:4] == [c("O1"), c("O12"), c("O3"), c("O11")]
    step = new_match("dos", {}, first_dealer=0, decks=[deck])
    state = step.state
    assert hand_codes(state, 1) == set(hands[1]) and hand_codes(state, 0) == set(hands[0])
    assert state.turn == 1  # the non-dealer leads
    table = view(state, 1)["hand"]
    assert table["trump"] == "E" and table["face_up"] == "E5" and table["stock_count"] == 24
    assert step.events[0]["data"]["stock"][:2] == ["B4", "C7"]
    play(state, "O1", "O12")  # seat 1 wins and draws the first stock card
    assert "B4" in hand_codes(state, 1) and "C7" in hand_codes(state, 0)


def test_D1_hand_size_six_and_the_deal_alternates() -> None:
    state = new_match("dos", {"hand_size": 6, "games_to_win": 2}, seed=4, first_dealer=1).state
    assert [h.bit_count() for h in state.hands] == [6, 6]
    assert view(state, 0)["hand"]["stock_count"] == 28 and state.turn == 0
    while state.hand_number == 1:
        play(state, sorted(legal_codes(state))[0])
    assert state.dealer == 0 and state.turn == 1
    assert new_match("dos", {}).state.options["hand_size"] == 8


# -- D2 ------------------------------------------------------------------------------------------


def test_D2_no_duty_while_the_stock_has_cards() -> None:
    state = stock_position({0: ["C12", "O4"], 1: ["C1", "C4", "O5", "E2"]}, "O6", ["B4", "B5"])
    play(state, "C12")
    assert legal_codes(state) == {"C1", "C4", "O5", "E2"}


def test_D2_the_winner_draws_first_then_the_loser_and_the_winner_leads() -> None:
    state = stock_position({0: ["C12", "O4"], 1: ["C4", "E2"]}, "O6", ["B4", "B5", "B6"])
    events = play(state, "C12", "E2")
    assert kinds(events) == ["card_played", "card_played", "trick_won", "draw", "draw"]
    assert [(e["seat"], e["data"]) for e in of_type(events, "draw")] == [(0, {"card": "B4"}), (1, {"card": "B5"})]
    assert state.turn == 0 and view(state, 0)["hand"]["stock_count"] == 2


def test_D2_the_last_face_down_card_to_the_winner_the_face_up_to_the_loser() -> None:
    state = stock_position({0: ["C4", "O4"], 1: ["C12", "E2"]}, "O6", ["B4"])
    events = play(state, "C4", "C12")  # seat 1 wins
    assert [(e["seat"], e["data"]) for e in of_type(events, "draw")] == [
        (1, {"card": "B4"}),
        (0, {"card": "O6", "face_up": True}),
    ]
    table = view(state, 1)["hand"]
    assert table["stock_count"] == 0 and table["face_up"] is None
    assert table["shown"][0] == ["O6"]  # everyone saw the face-up card go to seat 0


# -- D3 ------------------------------------------------------------------------------------------


def test_D3_arrastre_C5_applies_in_full_once_the_stock_is_empty() -> None:
    state = stock_position({0: ["C4", "C1", "O4"], 1: ["C12", "C3", "E2"]}, "O6", ["B4"])
    play(state, "C4", "C12")  # the last draw: seat 1 takes B4, seat 0 the O6
    play(state, "C3")
    assert legal_codes(state) == {"C1"}
    assert refusal(state, {"type": "play", "card": "O4"}).code == "must_follow_suit"


# -- D4 ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("face_up", ["O1", "O3", "O12", "O11", "O10"])
def test_D4_the_seven_of_trump_for_a_face_up_1_3_12_11_10(face_up: str) -> None:
    state = stock_position({0: ["C1", "O7", "E4"], 1: ["C4", "E5"]}, face_up, ["B4", "B5"])
    events = play(state, "C1", "C4")
    assert kinds(events)[2:] == ["trick_won", "exchange", "draw", "draw"]  # before drawing
    assert of_type(events, "exchange")[0]["data"] == {"gave": "O7", "took": face_up}
    assert face_up in hand_codes(state, 0) and "O7" not in hand_codes(state, 0)
    assert view(state, 1)["hand"]["face_up"] == "O7"


@pytest.mark.parametrize("face_up", ["O4", "O5", "O6", "O7"])
def test_D4_the_two_of_trump_for_a_face_up_4_5_6_7(face_up: str) -> None:
    state = stock_position({0: ["C1", "O2", "E4"], 1: ["C4", "E5"]}, face_up, ["B4", "B5"])
    events = play(state, "C1", "C4")
    assert of_type(events, "exchange")[0]["data"] == {"gave": "O2", "took": face_up}
    assert view(state, 1)["hand"]["face_up"] == "O2"


@pytest.mark.parametrize("held, face_up", [("O7", "O4"), ("O2", "O3"), ("O7", "O2")])
def test_D4_no_other_exchange(held: str, face_up: str) -> None:
    state = stock_position({0: ["C1", held, "E4"], 1: ["C4", "E5"]}, face_up, ["B4", "B5"])
    assert of_type(play(state, "C1", "C4"), "exchange") == []


def test_D4_only_the_trick_winner_exchanges() -> None:
    state = stock_position({0: ["C1", "E4"], 1: ["C4", "O7", "E5"]}, "O3", ["B4", "B5"])
    events = play(state, "C1", "C4")
    assert of_type(events, "exchange") == [] and "O7" in hand_codes(state, 1)


def test_D4_only_while_the_stock_has_cards() -> None:
    state = position("dos", None, trump="O", lead=0, hands={0: ["C1", "O7", "E4"], 1: ["C4", "E5", "B4"]})
    state.face_up = -1  # the arrastre
    assert of_type(play(state, "C1", "C4"), "exchange") == []


def test_D4_exchange_before_the_cantos_the_card_taken_may_complete_a_canto() -> None:
    state = stock_position({0: ["C1", "O7", "O11", "E4"], 1: ["C4", "E5"]}, "O12", ["B4", "B5"])
    events = play(state, "C1", "C4")
    assert kinds(events)[2:] == ["trick_won", "exchange", "canto", "draw", "draw"]
    assert of_type(events, "canto")[0]["data"]["points"] == 40


def test_D4_the_card_taken_may_complete_a_tute() -> None:
    state = stock_position({0: ["C1", "O7", "C12", "E12", "B12"], 1: ["C4", "E5"]}, "O12", ["B4", "B5"])
    events = play(state, "C1", "C4")
    assert kinds(events)[2:5] == ["trick_won", "exchange", "tute"]
    assert of_type(events, "draw") == [] and state.scoreboard == [1, 0]


def test_worked_example_6_the_table_swaps_the_seven_for_the_face_up_three() -> None:
    """Face-up O3, trump O; a player holding O7 wins a trick with stock left: they hold O3, O7 lies face up."""
    state = stock_position({0: ["B1", "O7", "E4"], 1: ["B4", "C5"]}, "O3", ["C6", "C7"])
    play(state, "B1", "B4")
    assert "O3" in hand_codes(state, 0) and "O7" not in hand_codes(state, 0)
    table = view(state, 1)["hand"]
    assert table["face_up"] == "O7" and table["trump"] == "O" and table["shown"][0] == ["O3"]


# -- D5 ------------------------------------------------------------------------------------------


def test_D5_cantos_after_a_won_trick_while_the_stock_has_cards_before_drawing() -> None:
    state = stock_position({0: ["C1", "E12", "E11", "B4"], 1: ["C4", "E5"]}, "O6", ["B5", "B6"])
    events = play(state, "C1", "C4")
    assert kinds(events)[2:] == ["trick_won", "canto", "draw", "draw"]
    assert of_type(events, "canto")[0]["data"] == {"suit": "E", "points": 20, "cards": ["E12", "E11"]}


def test_D5_no_cantos_in_the_arrastre_by_default() -> None:
    hands = {0: ["C1", "E12", "E11", "B4"], 1: ["C4", "E5", "B5", "B6"]}
    state = position("dos", None, trump="O", lead=0, hands=hands)
    assert of_type(play(state, "C1", "C4"), "canto") == []
    state = position("dos", {"cantos_in_arrastre": True}, trump="O", lead=0, hands=hands)
    assert of_type(play(state, "C1", "C4"), "canto")[0]["data"]["suit"] == "E"


def test_D5_tute_in_the_stock_phase() -> None:
    hands = {0: ["C1", "O11", "C11", "E11", "B11"], 1: ["C4", "E5"]}
    state = stock_position(hands, "O6", ["B5", "B6"], games_to_win=2)
    events = play(state, "C1", "C4")
    assert of_type(events, "tute")[0]["seat"] == 0 and state.scoreboard == [1, 0] and state.hand_number == 2


def test_D5_tute_in_the_arrastre_only_with_cantos_in_arrastre() -> None:
    hands = {0: ["C1", "O11", "C11", "E11", "B11"], 1: ["C4", "E5", "B5", "B6", "B7"]}
    state = position("dos", {"games_to_win": 2}, trump="O", lead=0, hands=hands)
    assert of_type(play(state, "C1", "C4"), "tute") == []
    state = position("dos", {"games_to_win": 2, "cantos_in_arrastre": True}, trump="O", lead=0, hands=hands)
    assert of_type(play(state, "C1", "C4"), "tute")[0]["seat"] == 0


# -- D6 ------------------------------------------------------------------------------------------


def test_D6_more_points_wins_and_games_to_win_ends_the_match() -> None:
    assert new_match("dos", {}).state.options["games_to_win"] == 1
    state = position("dos", {"games_to_win": 2}, trump="O", lead=0, hands={0: ["C4"], 1: ["C1"]})
    state.taken = [70, 49]
    events = play(state, "C4", "C1")  # seat 1 takes 11 + 10: 70 against 70
    (finished,) = of_type(events, "hand_finished")
    assert finished["data"]["points"] == [70, 70] and finished["data"]["winner"] == 1  # C13: the last trick
    assert state.scoreboard == [0, 1] and state.status == "active"
    state = position("dos", {"games_to_win": 2}, trump="O", lead=0, hands={0: ["C4"], 1: ["C1"]})
    state.taken, state.scoreboard = [80, 29], [0, 1]
    events = play(state, "C4", "C1")
    assert state.scoreboard == [1, 1] and state.status == "active"
    state = position("dos", {"games_to_win": 2}, trump="O", lead=0, hands={0: ["C4"], 1: ["C1"]})
    state.taken, state.scoreboard = [80, 29], [1, 1]
    events = play(state, "C4", "C1")
    assert of_type(events, "match_finished")[0]["data"]["winners"] == [0]


def test_D4_one_exchange_per_won_trick_and_the_two_may_take_the_face_up_seven_later() -> None:
    # Reading of D4: the table makes at most one exchange after a won trick (the winner's). The 7 given
    # lies face up, so a later won trick lets the holder of the 2 of trump swap it for that 7.
    state = stock_position({0: ["C1", "C3", "O7", "O2", "E4"], 1: ["C4", "C5", "E5"]}, "O3", ["B4", "B5", "B6", "B7"])
    events = play(state, "C1", "C4")
    assert [e["data"] for e in of_type(events, "exchange")] == [{"gave": "O7", "took": "O3"}]
    events = play(state, "C3", "C5")
    assert [e["data"] for e in of_type(events, "exchange")] == [{"gave": "O2", "took": "O7"}]
    assert view(state, 1)["hand"]["face_up"] == "O2"


def test_D4_an_exchange_before_the_last_draw_gives_the_seven_to_the_loser() -> None:
    # Reading of D4: "while the stock has cards" includes the last draw (one face-down card and the
    # face-up one left), so the 7 given then goes to the loser as the face-up card.
    state = stock_position({0: ["C1", "O7", "E4"], 1: ["C4", "E5"]}, "O3", ["B4"])
    events = play(state, "C1", "C4")
    assert kinds(events)[2:] == ["trick_won", "exchange", "draw", "draw"]
    assert [(e["seat"], e["data"]) for e in of_type(events, "draw")] == [
        (0, {"card": "B4"}),
        (1, {"card": "O7", "face_up": True}),
    ]
