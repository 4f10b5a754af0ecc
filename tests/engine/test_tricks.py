"""The deck and the trick (RULES.md C1–C6), and worked examples 1 and 2."""

from __future__ import annotations

import pytest

from games.engine import CODES, IllegalAction, cards, legal_actions, new_match
from games.engine.cards import POINTS
from games.engine.tricks import beats

from .helpers import ALL_CODES, ORDER, c, legal_codes, play, position, refusal, trick_winner


def refused(state, card: str) -> str:  # type: ignore[no-untyped-def]
    return refusal(state, {"type": "play", "card": card}).code


# -- C1–C4: the deck, the codes, the order, the points ----------------------------------------


def test_C1_forty_cards_or_thirty_six_without_the_twos() -> None:
    forty = new_match("clasico", {}, seed=3).events[0]["data"]["deck"]
    assert sorted(forty) == sorted(ALL_CODES) and len(set(forty)) == 40
    for variant, options in (("cabron", {"players": 3}), ("subastado", {}), ("individual", {"players": 3})):
        deck = new_match(variant, options, seed=3).events[0]["data"]["deck"]
        assert len(set(deck)) == 36 and not [x for x in deck if x[1:] == "2"]


def test_C2_cards_are_named_by_suit_letter_and_rank() -> None:
    assert sorted(CODES) == sorted(ALL_CODES)
    assert cards.code(cards.parse("E12")) == "E12"
    for bad in ("O8", "O9", "X1", "o1", "E13", "", 7, None):
        with pytest.raises(KeyError):
            cards.parse(bad)
    step = new_match("clasico", {}, seed=1)
    assert all(a["card"] in ALL_CODES for a in legal_actions(step.state))


@pytest.mark.parametrize("stronger, weaker", list(zip(ORDER, ORDER[1:], strict=False)))
def test_C3_order_inside_a_suit(stronger: str, weaker: str) -> None:
    # Cabrón before its first canto: no trump, so only the order inside the led suit decides.
    state = position(
        "cabron", {"players": 4}, trump=None, lead=0,
        hands={0: ["C" + weaker], 1: ["C" + stronger], 2: ["O4"], 3: ["E4"]},
    )  # fmt: skip
    assert trick_winner(play(state, "C" + weaker, "C" + stronger, "O4", "E4")) == 1


def test_C4_card_points_and_the_last_ten() -> None:
    assert {x: POINTS[cards.parse(x)] for x in ("O1", "O3", "O12", "O11", "O10", "O7", "O2")} == {
        "O1": 11, "O3": 10, "O12": 4, "O11": 3, "O10": 2, "O7": 0, "O2": 0,
    }  # fmt: skip
    assert sum(POINTS) == 120
    assert sum(POINTS[c] for c in range(40) if c % 10 != 0) == 120  # the 36-card deck too
    hands = {0: ["O1", "B4"], 1: ["O3", "B5"], 2: ["O12", "B6"], 3: ["O11", "B7"]}
    state = position("clasico", None, trump="E", lead=0, hands=hands)
    won = play(state, "O1", "O3", "O12", "O11")[-1]
    assert won["data"] == {**won["data"], "points": 11 + 10 + 4 + 3, "last": False}
    won = play(state, "B4", "B5", "B6", "B7")[4]  # the last trick: 0 points of cards, the diez de últimas
    assert won["type"] == "trick_won" and won["data"]["points"] == 10 and won["data"]["last"] is True


@pytest.mark.parametrize(
    "variant, options", [("clasico", {}), ("individual", {"players": 3}), ("cabron", {"players": 3}), ("dos", {})]
)
def test_C4_a_hand_holds_120_points_plus_the_last_ten(variant: str, options: dict[str, object]) -> None:
    state = new_match(variant, options, seed=11).state
    taken: list[int] = []
    while not taken or "end" not in taken:
        for event in play(state, sorted(legal_codes(state))[0]):
            if event["type"] == "trick_won" and "end" not in taken:
                taken.append(event["data"]["points"])
            elif event["type"] == "hand_finished":
                assert "tute" not in event["data"]
                taken.append("end")  # type: ignore[arg-type]
    assert sum(taken[:-1]) == 130  # type: ignore[arg-type]


# -- C5: the duties --------------------------------------------------------------------------


def test_C5a_must_follow_suit() -> None:
    state = position("clasico", None, trump="O", lead=0, hands={0: ["C4"], 1: ["C5", "O1", "E1"]}, played=["C4"])
    assert legal_codes(state) == {"C5"}
    assert refused(state, "O1") == "must_follow_suit"  # not even a trump
    assert refused(state, "E1") == "must_follow_suit"
    error = refusal(state, {"type": "play", "card": "E1"})
    assert error.rule == "C5.a" and "E1" in error.message


def test_C5b_must_beat_the_highest_card_of_the_led_suit() -> None:
    state = position(
        "clasico", None, trump="O", lead=0,
        hands={0: ["C4"], 1: ["C10"], 2: ["C5", "C11", "C12"]}, played=["C4", "C10"],
    )  # fmt: skip
    assert legal_codes(state) == {"C11", "C12"}  # above the C10, not just above the lead
    assert refused(state, "C5") == "must_beat"
    assert refusal(state, {"type": "play", "card": "C5"}).rule == "C5.b"


def test_C5b_holding_nothing_higher_any_card_of_the_led_suit() -> None:
    state = position("clasico", None, trump="O", lead=0, hands={0: ["C1"], 1: ["C5", "C3", "E1"]}, played=["C1"])
    assert legal_codes(state) == {"C5", "C3"}


def test_C5b_must_beat_when_trump_is_led() -> None:
    state = position("clasico", None, trump="O", lead=0, hands={0: ["O5"], 1: ["O4", "O7", "C1"]}, played=["O5"])
    assert legal_codes(state) == {"O7"}
    assert refused(state, "O4") == "must_beat"
    assert refused(state, "C1") == "must_follow_suit"


def test_C5b_once_trumped_any_card_of_the_led_suit_is_enough() -> None:
    state = position(
        "clasico", None, trump="O", lead=0,
        hands={0: ["C4"], 1: ["O2"], 2: ["C5", "C1", "O1"]}, played=["C4", "O2"],
    )  # fmt: skip
    assert legal_codes(state) == {"C5", "C1"}
    assert refused(state, "O1") == "must_follow_suit"


def test_C5c_must_trump_without_the_led_suit() -> None:
    state = position("clasico", None, trump="O", lead=0, hands={0: ["C4"], 1: ["O2", "O1", "E1"]}, played=["C4"])
    assert legal_codes(state) == {"O2", "O1"}  # any trump: nobody has trumped yet
    assert refused(state, "E1") == "must_trump"
    assert refusal(state, {"type": "play", "card": "E1"}).rule == "C5.c"


def test_C5d_must_overtrump_the_highest_trump() -> None:
    state = position(
        "clasico", None, trump="O", lead=0,
        hands={0: ["C4"], 1: ["O10"], 2: ["O5"], 3: ["O4", "O11", "E1"]}, played=["C4", "O10"],
    )  # fmt: skip
    # Seat 2 cannot over-trump the O10 with its O5 only: any card, here its only card.
    play(state, "O5")
    assert legal_codes(state) == {"O11"}
    assert refused(state, "O4") == "must_overtrump"
    assert refused(state, "E1") == "must_overtrump"
    assert refusal(state, {"type": "play", "card": "O4"}).rule == "C5.d"


def test_C5d_holding_no_higher_trump_any_card() -> None:
    state = position(
        "clasico", None, trump="O", lead=0, hands={0: ["C4"], 1: ["O1"], 2: ["O4", "E1", "B2"]}, played=["C4", "O1"]
    )
    assert legal_codes(state) == {"O4", "E1", "B2"}  # not forced to under-trump


def test_C5e_neither_led_suit_nor_trump_any_card() -> None:
    state = position("clasico", None, trump="O", lead=0, hands={0: ["C4"], 1: ["E1", "B2", "E5"]}, played=["C4"])
    assert legal_codes(state) == {"E1", "B2", "E5"}


def test_C5f_the_duties_hold_when_the_partner_is_winning() -> None:
    # Seat 2 must beat its partner's C11; seat 3 must over-trump its partner's O2.
    state = position(
        "clasico", None, trump="O", lead=0,
        hands={0: ["C11"], 1: ["C5"], 2: ["C1", "C4"], 3: ["C6"]}, played=["C11", "C5"],
    )  # fmt: skip
    assert legal_codes(state) == {"C1"}
    state = position(
        "clasico", None, trump="O", lead=0,
        hands={0: ["C4"], 1: ["O2"], 2: ["C5"], 3: ["O3", "E4"]}, played=["C4", "O2", "C5"],
    )  # fmt: skip
    assert legal_codes(state) == {"O3"}
    assert refused(state, "E4") == "must_overtrump"


def test_C5g_no_trump_yet_any_card_without_the_led_suit() -> None:
    state = position(
        "cabron",
        {"players": 4},
        trump=None,
        lead=0,
        hands={0: ["C12"], 1: ["O1", "E4"], 2: ["C1", "C4"]},
        played=["C12"],
    )
    assert legal_codes(state) == {"O1", "E4"}
    play(state, "E4")
    assert legal_codes(state) == {"C1"}  # following suit and beating still apply
    assert refused(state, "C4") == "must_beat"


def test_C5h_no_duty_during_the_stock_phase_of_dos() -> None:
    state = position("dos", None, trump="O", lead=0, hands={0: ["C12"], 1: ["C1", "C4", "O5", "E2"]}, played=[])
    state.face_up, state.stock = cards.parse("O6"), [cards.parse("B4")]
    play(state, "C12")
    assert legal_codes(state) == {"C1", "C4", "O5", "E2"}
    # D3: the same trick once the stock is empty.
    state = position("dos", None, trump="O", lead=0, hands={0: ["C12"], 1: ["C1", "C4", "O5", "E2"]}, played=["C12"])
    assert legal_codes(state) == {"C1"}


def test_C5_a_card_not_in_hand_is_refused() -> None:
    state = position("clasico", None, trump="O", lead=0, hands={0: ["C4", "C5"], 1: ["C6"]})
    assert refused(state, "C6") == "card_not_in_hand"
    play(state, "C4")
    assert refused(state, "C5") == "card_not_in_hand"


# -- C6: winning a trick ---------------------------------------------------------------------


def test_C6_the_highest_trump_wins() -> None:
    state = position("clasico", None, trump="O", lead=0, hands={0: ["C4"], 1: ["O2"], 2: ["O4"], 3: ["C1"]})
    assert trick_winner(play(state, "C4", "O2", "O4", "C1")) == 2


def test_C6_without_trump_the_highest_of_the_led_suit_and_never_another_suit() -> None:
    hands = {0: ["C4", "E4"], 1: ["E1", "E5"], 2: ["C5", "E6"], 3: ["B1", "E7"]}
    state = position("clasico", None, trump="O", lead=0, hands=hands)
    assert trick_winner(play(state, "C4", "E1", "C5", "B1")) == 2
    assert state.turn == state.lead == 2  # C6: the winner leads the next trick


# -- worked examples 1 and 2 -------------------------------------------------------------------


def test_worked_example_1_follow_and_beat_trump_overtrump() -> None:
    """Clásico, trump O. Lead C12; C1 from C1, C10, O3; O5 from O5, E1; O7 from O7, O4, E3."""
    hands = {0: ["C12", "B4"], 1: ["C1", "C10", "O3"], 2: ["O5", "E1"], 3: ["O7", "O4", "E3"]}
    state = position("clasico", None, trump="O", lead=0, hands=hands, played=["C12"])
    assert legal_codes(state) == {"C1"}
    assert refused(state, "C10") == "must_beat" and refused(state, "O3") == "must_follow_suit"
    play(state, "C1")
    assert legal_codes(state) == {"O5"}
    assert refused(state, "E1") == "must_trump"
    play(state, "O5")
    assert legal_codes(state) == {"O7"}
    assert refused(state, "O4") == "must_overtrump" and refused(state, "E3") == "must_overtrump"
    # Holding only O4 and E3 instead: it cannot over-trump the O5, so either card.
    hands[3] = ["O4", "E3"]
    state = position("clasico", None, trump="O", lead=0, hands=hands, played=["C12", "C1", "O5"])
    assert legal_codes(state) == {"O4", "E3"}


def test_worked_example_2_a_trumped_trick_needs_only_the_led_suit() -> None:
    """Clásico, trump E. Lead B4, then E2; the next holds B12 and B5: either is legal."""
    state = position(
        "clasico", None, trump="E", lead=0, hands={0: ["B4"], 1: ["E2", "O4"], 2: ["B12", "B5"]}, played=["B4", "E2"]
    )
    assert legal_codes(state) == {"B12", "B5"}


def test_an_illegal_card_is_never_accepted() -> None:
    state = position("clasico", None, trump="O", lead=0, hands={0: ["C4"], 1: ["C5", "O1"]}, played=["C4"])
    with pytest.raises(IllegalAction):
        play(state, "O1")
    assert state.hands[1] == cards.mask_of([cards.parse("C5"), cards.parse("O1")])


def test_C6_beats_says_whether_a_card_takes_the_trick() -> None:
    state = position("clasico", None, trump="O", lead=0, hands={0: ["C10"], 1: ["C5"]}, played=["C10"])
    assert [beats(state, c(x)) for x in ("C11", "C5", "O2", "E1")] == [True, False, True, False]
    state = position("clasico", None, trump="O", lead=0, hands={0: ["C10"], 1: ["O5"], 2: ["C1"]}, played=["C10", "O5"])
    assert [beats(state, c(x)) for x in ("C1", "O4", "O7", "B1")] == [False, False, True, False]
