"""Tute clásico (RULES.md CL1–CL5)."""

from __future__ import annotations

from games.engine import view

from .helpers import c, deal, hand_codes, legal_codes, mask, of_type, play, position, refusal


def test_CL1_ten_each_and_the_dealers_last_card_is_trump() -> None:
    step = deal("clasico", dealer=2, hands={0: ["C1"]}, last="E5")
    state = step.state
    assert [h.bit_count() for h in state.hands] == [10, 10, 10, 10]
    assert "E5" in hand_codes(state, 2)  # the dealer keeps the trump card
    started = step.events[0]["data"]
    assert started["trump"] == "E" and started["trump_card"] == "E5"
    table = view(state, 0)["hand"]
    assert table["trump"] == "E" and table["trump_card"] == "E5"
    assert table["shown"] == [[], [], ["E5"], []]  # everyone saw it dealt


def test_CL1_the_dealer_plays_the_trump_card_like_any_other() -> None:
    state = position("clasico", None, trump="E", lead=3, hands={3: ["C4"], 0: ["C5"], 1: ["C6"], 2: ["E5", "C7"]})
    state.trump_card, state.seen[2] = c("E5"), mask(["E5"])
    assert legal_codes(state) == {"C4"}
    play(state, "C4", "C5", "C6")
    assert legal_codes(state) == {"C7"}  # it must follow suit: the trump card has no privilege


def test_CL2_the_mano_leads_and_C5_applies_from_the_first_trick() -> None:
    step = deal(
        "clasico", dealer=1,
        hands={2: ["C12"], 3: ["C1", "C10", "O4", "O5", "O6", "O7", "O10", "O11", "O12", "E4"]}, last="O3",
    )  # fmt: skip
    state = step.state
    assert state.turn == 2 and view(state, None)["hand"]["mano"] == 2
    play(state, "C12")
    assert legal_codes(state) == {"C1"}
    assert refusal(state, {"type": "play", "card": "C10"}).code == "must_beat"


def test_CL3_both_partners_sing_the_winner_first() -> None:
    hands = {
        0: ["B1", "C12", "C11"],
        1: ["B4", "O12", "O11"],
        2: ["B5", "E12", "E11", "B12", "B11"],
        3: ["B6", "E1"],
    }
    state = position("clasico", None, trump="O", lead=1, hands=hands)
    events = play(state, "B4", "B5", "B6", "B1")  # seat 0 wins
    assert [(e["seat"], e["data"]["suit"]) for e in of_type(events, "canto")] == [(0, "C"), (2, "E")]
    # One canto each: seat 2's bastos wait for a later trick won by the pair; seat 1's 40 waits too.
    assert state.sung_points == [20, 0, 20, 0]


def test_CL3_the_winners_partner_sings_after_a_trick_it_did_not_win() -> None:
    hands = {0: ["B1", "C4"], 1: ["B4", "C5"], 2: ["B5", "E12", "E11"], 3: ["B6", "E1"]}
    state = position("clasico", None, trump="O", lead=0, hands=hands)
    events = play(state, "B1", "B4", "B5", "B6")
    assert [(e["seat"], e["data"]["points"]) for e in of_type(events, "canto")] == [(2, 20)]


def test_CL3_tute_by_the_partner_wins_the_game_for_the_pair() -> None:
    hands = {
        0: ["B1", "C12", "C4"],
        1: ["B4", "C1"],
        2: ["B5", "O11", "C11", "E11", "B11"],
        3: ["B6", "C10"],
    }
    state = position("clasico", {"games_to_win": 2}, trump="O", lead=0, hands=hands)
    events = play(state, "B1", "B4", "B5", "B6")
    (tute,) = of_type(events, "tute")
    assert tute["seat"] == 2 and tute["data"]["kind"] == "knights"
    assert state.scoreboard == [1, 0]


def test_CL3_the_losing_pair_does_not_sing() -> None:
    hands = {0: ["B1", "C4"], 1: ["B4", "O12", "O11"], 2: ["B5", "C5"], 3: ["B6", "E12", "E11"]}
    state = position("clasico", None, trump="O", lead=0, hands=hands)
    assert of_type(play(state, "B1", "B4", "B5", "B6"), "canto") == []


def test_CL4_the_pair_with_more_points_wins_the_hand() -> None:
    # Before the last trick: pair 0-2 has 40 + 20 + a canto of 20 = 80, pair 1-3 has 40.
    state = position(
        "clasico", {"games_to_win": 2}, trump="O", lead=0, hands={0: ["C4"], 1: ["C5"], 2: ["C6"], 3: ["C1"]}
    )
    state.taken, state.sung_points = [40, 30, 20, 10], [20, 0, 0, 0]
    events = play(state, "C4", "C5", "C6", "C1")  # pair 1-3 takes the last trick: 11 + 10
    (finished,) = of_type(events, "hand_finished")
    assert finished["data"]["points"] == [80, 61] and finished["data"]["winner"] == 0
    assert state.scoreboard == [1, 0]


def test_CL5_first_pair_to_games_to_win_wins_the_match() -> None:
    assert deal("clasico").state.options["games_to_win"] == 4
    state = position(
        "clasico", {"games_to_win": 3}, trump="O", lead=0, hands={0: ["C1"], 1: ["C5"], 2: ["C6"], 3: ["C4"]}
    )
    state.scoreboard = [2, 2]
    events = play(state, "C1", "C5", "C6", "C4")
    (finished,) = of_type(events, "match_finished")
    assert finished["data"] == {"winners": [0], "winner_seats": [0, 2], "scoreboard": [3, 2]}
    assert state.status == "finished" and state.turn == -1


def test_CL5_no_capote_a_hand_is_one_game_however_it_is_won() -> None:
    state = position(
        "clasico", {"games_to_win": 3}, trump="O", lead=0, hands={0: ["C1"], 1: ["C5"], 2: ["C6"], 3: ["C4"]}
    )
    state.taken, state.tricks_won = [100, 0, 20, 0], [6, 0, 3, 0]
    play(state, "C1", "C5", "C6", "C4")
    assert state.scoreboard == [1, 0]


def test_CL5_no_exchanging_the_trump_card() -> None:
    # Seat 0 wins a trick holding the 7 of trump, with a 3 of trump face up (the dealer's): nothing happens.
    state = position(
        "clasico", None, trump="O", lead=0, hands={0: ["B1", "O7"], 1: ["B4", "C1"], 2: ["B5", "C3"], 3: ["B6", "O3"]}
    )
    events = play(state, "B1", "B4", "B5", "B6")
    assert of_type(events, "exchange") == [] and "O7" in hand_codes(state, 0)
