"""Cantos and tute, declared by the table (RULES.md C7–C10)."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import InvalidOptions, legal_actions, new_match

from .helpers import deal, of_type, play, position


def cantos(events: list[dict[str, Any]]) -> list[tuple[int, str, int]]:
    return [(e["seat"], e["data"]["suit"], e["data"]["points"]) for e in of_type(events, "canto")]


# -- C7 -----------------------------------------------------------------------------------------


def test_C7_forty_in_trump_twenty_otherwise_and_each_suit_once() -> None:
    hands = {
        0: ["B1", "B3", "B12", "O12", "O11", "C12", "C11"],
        1: ["B4", "B5", "B6", "B7", "E1", "E3", "E4"],
        2: ["E5", "E6", "E7", "E10", "E11", "E12", "E2"],
        3: ["C1", "C3", "C4", "C5", "C6", "C7", "C10"],
    }
    state = position("individual", {"players": 4}, trump="O", lead=0, hands=hands)
    events = play(state, "B1", "B4", "E5", "C1")
    assert cantos(events) == [(0, "O", 40)]  # C8: the 40 first
    assert state.sung_points[0] == 40
    events = play(state, "B3", "B5", "E6", "C3")
    assert cantos(events) == [(0, "C", 20)]
    events = play(state, "B12", "B6", "E7", "C4")
    assert cantos(events) == []  # O and C already sung: a suit is sung at most once per hand
    # Canto points count for the singer's side (C7) at the end of the hand.
    assert state.sung_points == [60, 0, 0, 0]


def test_C7_canto_shows_both_cards() -> None:
    hands = {0: ["B1", "O12", "O11"], 1: ["B4", "E1"], 2: ["B5", "E3"], 3: ["B6", "E4"]}
    state = position("individual", {"players": 4}, trump="C", lead=0, hands=hands)
    (canto,) = of_type(play(state, "B1", "B4", "B5", "B6"), "canto")
    assert canto["data"] == {"suit": "O", "points": 20, "cards": ["O12", "O11"]}


# -- C8 -----------------------------------------------------------------------------------------


def test_C8_the_forty_before_any_twenty() -> None:
    # Seat 0 holds fewer oros than copas, but oros is trump: the 40 comes first.
    hands = {0: ["B1", "O12", "O11", "O1", "O3", "C12", "C11", "E4"], 1: ["B4", "E1"], 2: ["B5", "E3"], 3: ["B6", "E5"]}
    state = position("individual", {"players": 4}, trump="O", lead=0, hands=hands)
    assert cantos(play(state, "B1", "B4", "B5", "B6")) == [(0, "O", 40)]


def test_C8_between_twenties_the_suit_held_fewest() -> None:
    hands = {
        0: ["O1", "E12", "E11", "C12", "C11", "C1", "B12", "B11", "B3"],
        1: ["O4", "E4"], 2: ["O5", "E5"], 3: ["O6", "E6"],
    }  # fmt: skip
    state = position("individual", {"players": 4}, trump="O", lead=0, hands=hands)
    # Seat 0 then holds 2 espadas, 3 copas, 3 bastos: espadas first.
    assert cantos(play(state, "O1", "O4", "O5", "O6")) == [(0, "E", 20)]
    # Then copas and bastos, 3 each: the suit order O, C, E, B decides.
    assert cantos(play(state, "E12", "E4", "E5", "E6")) == [(0, "C", 20)]


def test_C8_a_tie_goes_by_suit_order() -> None:
    hands = {0: ["E1", "B12", "B11", "C12", "C11", "O4"], 1: ["E4", "O1"], 2: ["E5", "O3"], 3: ["E6", "O5"]}
    state = position("individual", {"players": 4}, trump="O", lead=0, hands=hands)
    assert cantos(play(state, "E1", "E4", "E5", "E6")) == [(0, "C", 20)]


def test_C8_one_canto_per_player_per_won_trick() -> None:
    hands = {
        0: ["B1", "B3", "O12", "O11", "C12", "C11", "E12", "E11"],
        1: ["B4", "B5", "B6"], 2: ["B7", "B10", "B11"], 3: ["B12", "B2", "O1"],
    }  # fmt: skip
    state = position("individual", {"players": 4}, trump="O", lead=0, hands=hands)
    assert cantos(play(state, "B1", "B4", "B7", "B12")) == [(0, "O", 40)]
    assert cantos(play(state, "B3", "B5", "B10", "B2")) == [(0, "C", 20)]


def test_C8_only_after_the_singers_side_wins_a_trick() -> None:
    hands = {0: ["B1", "B2"], 1: ["B4", "O12", "O11"], 2: ["B5", "E1"], 3: ["B6", "E3"]}
    state = position("individual", {"players": 4}, trump="O", lead=0, hands=hands)
    assert cantos(play(state, "B1", "B4", "B5", "B6")) == []  # seat 1 holds the pair but lost the trick


def test_C8_only_cards_still_held() -> None:
    # Seat 0 wins with the king of the pair: the knight alone is no canto.
    hands = {0: ["O12", "O11", "B2"], 1: ["O4", "B4"], 2: ["O5", "B5"], 3: ["O6", "B6"]}
    state = position("individual", {"players": 4}, trump="O", lead=0, hands=hands)
    assert cantos(play(state, "O12", "O4", "O5", "O6")) == []


def test_C8_never_after_the_last_trick() -> None:
    # A canto after the last trick could only come from cards still held: none are. A clásico
    # pair that wins the last trick with both partners' hands empty sings nothing.
    hands = {0: ["O12", "C1"], 1: ["O4", "C4"], 2: ["O11", "C5"], 3: ["O6", "C6"]}
    state = position("clasico", None, trump="E", lead=0, hands=hands)
    assert cantos(play(state, "C1", "C4", "C5", "C6")) == []  # the pair is split between partners
    events = play(state, "O12", "O4", "O11", "O6")
    assert cantos(events) == [] and of_type(events, "hand_finished")


# -- C9 -----------------------------------------------------------------------------------------


def test_C9_tute_wins_the_hand_at_once() -> None:
    hands = {
        0: ["B1", "O12", "C12", "E12", "B12", "O1"],
        1: ["B4", "C1", "C3"], 2: ["B5", "C4", "C5"], 3: ["B6", "C6", "C7"],
    }  # fmt: skip
    state = position("individual", {"players": 4, "games_to_win": 2}, trump="O", lead=0, hands=hands)
    state.taken = [0, 50, 0, 0]
    events = play(state, "B1", "B4", "B5", "B6")
    (tute,) = of_type(events, "tute")
    assert tute["seat"] == 0 and tute["data"] == {"kind": "kings", "cards": ["O12", "C12", "E12", "B12"]}
    assert cantos(events) == []  # C9: tute comes before any canto (it holds the O12 only, though)
    (finished,) = of_type(events, "hand_finished")
    assert finished["data"]["winner"] == 0  # points are not counted: seat 1's 50 do not matter
    assert finished["data"]["tute"] == {"seat": 0, "kind": "kings"}
    assert state.scoreboard == [1, 0, 0, 0] and state.hand_number == 2  # the rest of the hand is not played


def test_C9_tute_of_knights_before_the_forty() -> None:
    hands = {
        0: ["B1", "O11", "C11", "E11", "B11", "O12"],
        1: ["B4", "C1", "C3"], 2: ["B5", "C4", "C5"], 3: ["B6", "C6", "C7"],
    }  # fmt: skip
    state = position("individual", {"players": 4, "games_to_win": 2}, trump="O", lead=0, hands=hands)
    events = play(state, "B1", "B4", "B5", "B6")
    assert [e["type"] for e in events if e["type"] in ("tute", "canto")] == ["tute"]
    assert of_type(events, "tute")[0]["data"]["kind"] == "knights"


def test_C9_only_when_the_player_may_sing() -> None:
    hands = {0: ["B4", "C1"], 1: ["B2", "O12", "C12", "E12", "B12"], 2: ["B5", "C4"], 3: ["B6", "C6"]}
    state = position("individual", {"players": 4, "games_to_win": 2}, trump="O", lead=1, hands=hands)
    events = play(state, "B2", "B5", "B6", "B4")
    assert of_type(events, "tute") == []  # seat 1 holds four kings but seat 3 won the trick
    events = play(state, "C6", "C1", "C12", "C4")
    assert of_type(events, "tute") == []  # seat 0 won; seat 1 played a king meanwhile


def test_C9_tute_on_deal_before_the_first_trick() -> None:
    kings = ["O12", "C12", "E12", "B12"]
    step = deal("clasico", {"tute_on_deal": True, "games_to_win": 2}, dealer=0, hands={2: kings})
    (tute,) = of_type(step.events, "tute")
    assert tute["seat"] == 2
    assert of_type(step.events, "card_played") == []
    assert step.state.scoreboard == [1, 0] and step.state.hand_number == 2
    # By default a tute from the deal waits for a won trick.
    step = deal("clasico", {"games_to_win": 2}, dealer=0, hands={2: kings})
    assert of_type(step.events, "tute") == [] and step.state.hand_number == 1


@pytest.mark.parametrize("variant, options", [("subastado", {}), ("subastado_parejas", {}), ("cabron", {})])
def test_C9_only_in_variants_that_say_so(variant: str, options: dict[str, Any]) -> None:
    with pytest.raises(InvalidOptions) as error:
        new_match(variant, {**options, "tute_on_deal": True})
    assert error.value.field == "tute_on_deal"


# -- C10 ----------------------------------------------------------------------------------------


def test_C10_the_table_declares_for_the_player() -> None:
    assert new_match("clasico", {"declarations": "auto"}).state.options["declarations"] == "auto"
    assert new_match("clasico").state.options["declarations"] == "auto"  # the default
    # No action to sing exists: the canto comes with the trick, for the entitled player.
    hands = {0: ["B1", "O12", "O11"], 1: ["B4", "E1"], 2: ["B5", "E3"], 3: ["B6", "E4"]}
    state = position("individual", {"players": 4}, trump="O", lead=0, hands=hands)
    events = play(state, "B1", "B4", "B5", "B6")
    assert [e["type"] for e in events][-2:] == ["trick_won", "canto"]
    assert {a["type"] for a in legal_actions(state)} == {"play"}
