"""The streak ladder's rules (RULES.md L1–L3), pure: ``games.engine.ladder``."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games import engine
from games.engine import ladder

WON = ladder.Outcome("won", 30)


def test_L1_a_ladder_match_is_one_hand_of_dos_with_default_options_and_the_bot_deals_first():
    assert ladder.VARIANT == "dos" and ladder.OPTIONS == {}
    assert engine.validate_options(ladder.VARIANT, ladder.OPTIONS)["games_to_win"] == 1
    assert (ladder.PLAYER_SEAT, ladder.BOT_SEAT) == (0, 1)
    assert [ladder.first_dealer(n) for n in range(1, 7)] == [1, 0, 1, 0, 1, 0]
    step = engine.new_match(ladder.VARIANT, ladder.OPTIONS, seed=3, first_dealer=ladder.first_dealer(1))
    assert step.state.dealer == 1 and engine.current_seat(step.state) == ladder.PLAYER_SEAT  # the player leads


def test_L1_matches_are_numbered_from_one():
    with pytest.raises(ValueError):
        ladder.first_dealer(0)
    with pytest.raises(ValueError):
        ladder.rival_level(0)


def test_L2_each_win_adds_one_to_the_streak_and_raises_the_rival_up_to_level_4():
    assert [ladder.rival_level(n) for n in range(1, 8)] == ["level-1", "level-2", "level-3"] + ["level-4"] * 4
    run = ladder.Run()
    levels = [run.level]
    for streak in range(1, 6):
        run = run.after(WON)
        assert (run.streak, run.over, run.next_match) == (streak, False, streak + 1)
        levels.append(run.level)
    assert levels == ["level-1", "level-2", "level-3", "level-4", "level-4", "level-4"]


@pytest.mark.parametrize("result", ["lost", "tied"])
def test_L2_a_lost_or_tied_match_ends_the_run_which_keeps_its_figures(result):
    run = ladder.Run().after(WON).after(WON)
    ended = run.after(ladder.Outcome(result, -12 if result == "lost" else 0))
    assert (ended.streak, ended.margin, ended.over, ended.score) == (2, 60, True, 20_060)
    with pytest.raises(ValueError):
        ended.after(WON)


def test_L2_starting_a_new_run_ends_the_current_one_with_its_score():
    run = ladder.Run().after(WON)
    assert (run.ended().over, run.ended().score) == (True, 10_030)


def test_L2_equal_totals_are_a_tie_although_the_last_trick_gives_the_engine_the_hand():
    assert ladder.outcome({"points": [65, 65], "winner": 0}) == ladder.Outcome("tied", 0)
    assert ladder.outcome({"points": [70, 60], "winner": 0}) == ladder.Outcome("won", 10)
    assert ladder.outcome({"points": [50, 80], "winner": 1}) == ladder.Outcome("lost", -30)


def test_L3_a_hand_won_by_tute_counts_130_to_0():
    tute = {"points": [20, 45], "winner": 0, "tute": {"seat": 0, "kind": "kings"}}
    assert ladder.outcome(tute) == ladder.Outcome("won", 130)
    against = {"points": [90, 10], "winner": 1, "tute": {"seat": 1, "kind": "knights"}}
    assert ladder.outcome(against) == ladder.Outcome("lost", -130)


def test_L3_the_margin_is_the_players_total_minus_the_rivals_from_either_seat():
    hand = {"points": [84, 46], "winner": 0}
    assert ladder.outcome(hand, 0).margin == 38 and ladder.outcome(hand, 1) == ladder.Outcome("lost", -38)


def test_L3_the_runs_margin_is_the_sum_at_most_9999_and_the_score_is_streak_times_10000_plus_margin():
    run = ladder.Run()
    for _ in range(76):
        run = run.after(ladder.Outcome("won", 130))
    assert (run.streak, run.margin, run.score) == (76, 9_880, 769_880)
    run = run.after(ladder.Outcome("won", 130))
    assert (run.streak, run.margin, run.score) == (77, 9_999, 779_999)
    assert ladder.score(3, 12_000) == 39_999


@given(st.lists(st.integers(min_value=1, max_value=200), max_size=120))
def test_L3_score_grows_with_every_win_and_the_margin_never_passes_the_cap(margins):
    run = ladder.Run()
    for margin in margins:
        after = run.after(ladder.Outcome("won", margin))
        assert after.score > run.score and after.margin <= ladder.MARGIN_CAP
        assert after.score == after.streak * ladder.STREAK_POINTS + after.margin
        run = after
    assert run.streak == len(margins) and run.margin == min(sum(margins), ladder.MARGIN_CAP)
