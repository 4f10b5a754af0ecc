"""Tute cabrón (RULES.md CB1–CB6) and worked examples 3 and 4."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import new_match, rules_of, view

from .helpers import deal, legal_codes, of_type, play, position, refusal, trick_winner


def cantos(events: list[dict[str, Any]]) -> list[tuple[int, str, int]]:
    return [(e["seat"], e["data"]["suit"], e["data"]["points"]) for e in of_type(events, "canto")]


def last_trick(players: int, taken: list[int], *, tricks_won: list[int] | None = None, **options: Any) -> Any:
    """A cabrón hand before its last trick, which seat 0 wins with the O1 (11 + 10 points)."""
    cards = ["O1", "O2", "O4", "O5"] if players == 4 else ["O1", "O4", "O5"]
    state = position(
        "cabron", {"players": players, **options}, trump="C", lead=0, hands={s: [x] for s, x in enumerate(cards)}
    )
    state.taken = list(taken)
    state.tricks_won = list(tricks_won or [1 if t else 0 for t in taken])
    return state, cards


def finish(players: int, before: list[int], **kwargs: Any) -> tuple[Any, dict[str, Any]]:
    state, cards = last_trick(players, before, **kwargs)
    (finished,) = of_type(play(state, *cards), "hand_finished")
    return state, finished["data"]


# -- CB1, CB2 ------------------------------------------------------------------------------------


@pytest.mark.parametrize("players, size, deck", [(4, 10, 40), (3, 12, 36)])
def test_CB1_deal_by_player_count(players: int, size: int, deck: int) -> None:
    step = new_match("cabron", {"players": players}, seed=5)
    assert [h.bit_count() for h in step.state.hands] == [size] * players
    assert len(step.events[0]["data"]["deck"]) == deck


def test_CB2_no_trump_at_the_start_and_the_mano_leads() -> None:
    no_copas = ["O1", "O3", "E1", "E3", "B1", "B3", "O2", "O4", "E2", "E4"]
    step = deal("cabron", {"players": 4}, dealer=3, hands={0: ["C12"], 1: no_copas})
    state = step.state
    assert state.turn == 0 and view(state, 0)["hand"]["trump"] is None
    assert step.events[0]["data"]["trump"] is None and step.events[0]["data"]["trump_card"] is None
    play(state, "C12")
    assert legal_codes(state) == set(no_copas)  # C5.g: without the led suit, any card


# -- CB3 ---------------------------------------------------------------------------------------


def test_worked_example_3_the_first_table_canto_is_forty_and_makes_trump() -> None:
    """Cabrón, no trump yet. Trick B11, B12, B3, B5: the B3 wins and scores 40; bastos is trump next."""
    hands = {0: ["B11", "C4"], 1: ["B12", "O4", "O5"], 2: ["B3", "E4", "E5"], 3: ["B5", "E6", "E7"]}
    state = position("cabron", {"players": 4}, trump=None, lead=0, hands=hands)
    events = play(state, "B11", "B12", "B3", "B5")
    assert trick_winner(events) == 2
    assert cantos(events) == [(2, "B", 40)]
    assert state.sung_points == [0, 0, 40, 0] and view(state, None)["hand"]["trump"] == "B"


def test_CB3_trump_from_the_next_trick_on() -> None:
    hands = {
        0: ["B11", "C4"],
        1: ["B12", "O4", "B4"],
        2: ["B3", "E4", "E5"],
        3: ["B5", "E6", "E7"],
    }
    state = position("cabron", {"players": 4}, trump=None, lead=0, hands=hands)
    # In the canto's own trick bastos is not trump yet: the B11 led, the B12 and B3 follow suit.
    play(state, "B11", "B12", "B3", "B5")
    play(state, "E4")  # seat 2 leads espadas; seat 3 follows; seat 0 has none
    play(state, "E6")
    # Seat 0 holds no espadas and no bastos: any card. Seat 1 holds no espadas but the B4: it must trump.
    play(state, "C4")
    assert legal_codes(state) == {"B4"}
    assert refusal(state, {"type": "play", "card": "O4"}).code == "must_trump"


def test_CB3_the_winner_scores_whoever_played_the_cards_and_later_cantos_are_twenty() -> None:
    hands = {
        0: ["O12", "C11", "E4"],
        1: ["O11", "C12", "E5"],
        2: ["O1", "C1", "E6"],
        3: ["O4", "C4", "E7"],
    }
    state = position("cabron", {"players": 4}, trump=None, lead=0, hands=hands)
    events = play(state, "O12", "O11", "O1", "O4")
    assert trick_winner(events) == 2 and cantos(events) == [(2, "O", 40)]
    events = play(state, "C1", "C4", "C11", "C12")  # seat 2 leads again
    assert cantos(events) == [(2, "C", 20)]


def test_CB3_two_cantos_in_one_trick_in_the_order_completed() -> None:
    # Ambiguity: RULES.md does not say which of two cantos falling in one trick is "the first canto
    # of the hand". We read it as the one whose pair was completed first, in the order the cards fell.
    hands = {0: ["C12", "E4"], 1: ["O12", "E5"], 2: ["O11", "E6"], 3: ["C11", "E7"]}
    state = position("cabron", {"players": 4}, trump=None, lead=0, hands=hands)
    events = play(state, "C12", "O12", "O11", "C11")  # oros completes with the 3rd card, copas with the 4th
    assert trick_winner(events) == 0
    assert cantos(events) == [(0, "O", 40), (0, "C", 20)]
    assert view(state, None)["hand"]["trump"] == "O"


def test_CB3_a_canto_in_the_last_trick_counts() -> None:
    hands = {0: ["B12"], 1: ["B11"], 2: ["B4"], 3: ["B5"]}
    state = position("cabron", {"players": 4}, trump=None, lead=0, hands=hands)
    state.taken = [30, 30, 30, 30]
    events = play(state, "B12", "B11", "B4", "B5")
    assert cantos(events) == [(0, "B", 40)]
    (finished,) = of_type(events, "hand_finished")
    assert finished["data"]["points"] == [30 + 4 + 3 + 10 + 40, 30, 30, 30]


def test_CB3_no_hand_cantos_and_no_tute() -> None:
    hands = {
        0: ["E1", "O12", "O11", "C12", "B12"],
        1: ["E4", "C1"],
        2: ["E5", "C3"],
        3: ["E6", "C4"],
    }
    hands[0].append("E12")
    state = position("cabron", {"players": 4}, trump=None, lead=0, hands=hands)
    events = play(state, "E1", "E4", "E5", "E6")  # seat 0 holds four kings and a king-knight pair
    assert of_type(events, "canto") == [] and of_type(events, "tute") == []


# -- CB4 ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "totals, losers",
    [
        ([0, 40, 40, 50], [0]),
        ([20, 30, 35, 45], [1, 2]),
        ([15, 35, 40, 40], [1]),
        ([50, 50, 30], [0, 1]),
    ],
)
def test_worked_example_4_who_loses_in_cabron(totals: list[int], losers: list[int]) -> None:
    state = new_match("cabron", {"players": len(totals)}, seed=1).state
    rules = rules_of(state)
    state.tricks_won = [1] * len(totals)
    assert rules.losers(state, totals) == losers  # type: ignore[attr-defined]


def test_CB4_1_every_player_with_zero_points_loses() -> None:
    # Seat 3 won a trick of blank cards only: 0 points, loses with the seat that won nothing,
    # though seat 0 is over 100 (rule 1 decides first).
    state, result = finish(4, [90, 0, 19, 0], tricks_won=[3, 0, 2, 1])
    assert result["points"] == [111, 0, 19, 0] and result["losers"] == [1, 3]
    assert state.scoreboard == [0, 1, 0, 1]


def test_CB4_1_a_canto_is_not_zero_points() -> None:
    state, cards = last_trick(4, [99, 0, 10, 0], tricks_won=[3, 0, 2, 1])
    state.sung_points = [0, 0, 0, 20]
    (finished,) = of_type(play(state, *cards), "hand_finished")
    assert finished["data"]["losers"] == [1]


def test_CB4_2_every_player_over_100_loses() -> None:
    _, result = finish(4, [80, 10, 10, 9])
    assert result["points"] == [101, 10, 10, 9] and result["losers"] == [0]
    _, result = finish(3, [79, 20, 10])
    assert result["points"] == [100, 20, 10] and result["losers"] == [1]  # 100 is not over 100: the middle loses


def test_CB4_3_the_players_in_the_middle_lose() -> None:
    _, result = finish(4, [30, 20, 29, 30])
    assert result["points"] == [51, 20, 29, 30] and result["losers"] == [2, 3]


def test_CB4_4_ties_leave_nobody_in_the_middle() -> None:
    _, result = finish(4, [19, 40, 40, 10])
    assert result["points"] == [40, 40, 40, 10] and result["losers"] == [0, 1, 2]
    _, result = finish(4, [29, 40, 40, 0], tricks_won=[3, 3, 3, 1])
    assert result["losers"] == [3]  # 0 points: rule 1


# -- CB5 ---------------------------------------------------------------------------------------


def test_CB5_a_letter_per_loser_and_the_fewest_letters_win_once_someone_has_them_all() -> None:
    assert deal("cabron", {"players": 4}).state.options["letters"] == 6
    state, cards = last_trick(4, [30, 20, 29, 30], letters=2)  # seats 2 and 3 lose
    state.scoreboard = [0, 1, 1, 0]
    events = play(state, *cards)
    assert state.scoreboard == [0, 1, 2, 1]
    (finished,) = of_type(events, "match_finished")
    assert finished["data"]["winners"] == [0] and state.status == "finished"


def test_CB5_several_with_the_fewest_play_on_until_one_alone() -> None:
    state, cards = last_trick(4, [30, 20, 29, 30], letters=2)  # seats 2 and 3 lose
    state.scoreboard = [0, 0, 1, 1]
    events = play(state, *cards)
    assert state.scoreboard == [0, 0, 2, 2]
    assert of_type(events, "match_finished") == [] and state.status == "active"  # seats 0 and 1 tie at 0
    # Next hand: seat 1 loses; seat 0 alone has the fewest.
    state2, cards = last_trick(4, [30, 20, 29, 30], letters=2)
    state2.scoreboard = [0, 0, 2, 2]
    state2.taken = [60, 0, 29, 20]
    state2.tricks_won = [4, 1, 2, 2]
    events = play(state2, *cards)
    assert state2.scoreboard == [0, 1, 2, 2]
    assert of_type(events, "match_finished")[0]["data"]["winners"] == [0]


# -- CB6 ---------------------------------------------------------------------------------------


def test_CB6_zero_rule_tricks_only_a_player_without_a_trick_loses_for_zero() -> None:
    before, won = [90, 0, 19, 0], [3, 0, 2, 1]  # seat 3 won a blank trick; seat 1 won nothing
    _, result = finish(4, before, tricks_won=won)
    assert result["losers"] == [1, 3]
    _, result = finish(4, before, tricks_won=won, zero_rule="tricks")
    assert result["losers"] == [1]
    assert deal("cabron", {"players": 4}).state.options["zero_rule"] == "points"
