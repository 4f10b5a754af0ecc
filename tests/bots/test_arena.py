"""The arena: duplicate deals between two bots, from Python and from ``manage.py arena``."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import CommandError, call_command

from games.bots.arena import play_game, run_arena, share_interval


def test_a_duplicate_deal_is_the_same_cards_with_the_seats_swapped() -> None:
    first = play_game("dos", {}, 1, 0, False, "level-2", "level-3")
    second = play_game("dos", {}, 1, 0, True, "level-3", "level-2")
    assert first.score_a == 1 - second.score_a  # the same hand, the same (deterministic) bots on the same seats
    assert first.margin_a == -second.margin_a


def test_run_arena_counts_every_hand_once() -> None:
    report = run_arena("clasico", {}, "level-2", "level-1", deals=6, seed=2)
    summary = report.summary()
    assert summary["hands"] == 12 == summary["won_a"] + summary["won_b"] + summary["draws"]
    low, high = summary["ci95_a"]
    assert low <= summary["win_rate_a"] <= high
    assert summary["time_a"]["decisions"] == summary["time_b"]["decisions"] == 6 * 2 * 20


def test_a_board_goes_to_the_bot_that_scored_more_with_the_same_cards() -> None:
    report = run_arena("clasico", {}, "level-2", "level-1", deals=30, seed=2)
    summary = report.summary()
    margins: dict[int, int] = {}
    for game in report.games:
        margins[game.deal] = margins.get(game.deal, 0) + game.margin_a
    assert summary["boards_won_a"] == sum(1 for m in margins.values() if m > 0)
    assert summary["boards_won_b"] == sum(1 for m in margins.values() if m < 0)
    assert summary["boards_tied"] == sum(1 for m in margins.values() if m == 0)
    assert summary["boards_won_a"] + summary["boards_won_b"] + summary["boards_tied"] == 30
    expected = (summary["boards_won_a"] + summary["boards_tied"] / 2) / 30
    assert summary["board_rate_a"] == round(expected, 4)
    low, high = summary["board_ci95_a"]
    assert low <= summary["board_rate_a"] <= high

    # Deterministic bots with their names swapped play the same games: every board changes hands.
    one = run_arena("clasico", {}, "level-3", "level-2", deals=10, seed=2).summary()
    other = run_arena("clasico", {}, "level-2", "level-3", deals=10, seed=2).summary()
    assert (other["boards_won_a"], other["boards_won_b"]) == (one["boards_won_b"], one["boards_won_a"])
    assert one["boards_won_a"] > 0


@pytest.mark.parametrize("variant", ["cabron", "subastado", "individual", "subastado_parejas"])
def test_the_arena_plays_every_variant(variant: str) -> None:
    summary = run_arena(variant, {}, "level-3", "level-2", deals=2, seed=1).summary()
    assert summary["hands"] == 4


def test_arena_command_prints_the_table() -> None:
    out, err = io.StringIO(), io.StringIO()
    call_command("arena", "--variant", "dos", "--a", "level-2", "--b", "level-1", "--deals", "3", "--seed", "1",
                 stdout=out, stderr=err)
    text = out.getvalue()
    assert "level-2 vs level-1, 3 duplicate deals (6 hands)" in text
    assert "hands won: level-2" in text and "95% CI" in text and "mean point margin" in text
    assert "duplicate boards (more points than the other with the same cards): level-2" in text
    assert "time per decision, level-2: median" in text and "p95" in text
    assert "3/3 deals" in err.getvalue()  # the progress bar


def test_arena_command_json_and_options() -> None:
    out = io.StringIO()
    call_command("arena", "--variant", "dos", "--a", "level-4:samples=2,time=0.01,min_samples=1", "--b", "level-3",
                 "--deals", "1", "--option", "hand_size=6", "--json", "--no-progress", stdout=out)
    summary = json.loads(out.getvalue())
    assert summary["options"]["hand_size"] == 6
    assert set(summary) >= {"won_a", "won_b", "win_rate_a", "ci95_a", "mean_margin_a", "time_a", "time_b",
                            "boards_won_a", "boards_won_b", "boards_tied", "board_rate_a", "board_ci95_a"}
    assert set(summary["time_a"]) >= {"median_ms", "p95_ms"}


def test_arena_command_refuses_unknown_bots_and_options() -> None:
    with pytest.raises(CommandError, match="unknown bot"):
        call_command("arena", "--a", "level-7", "--deals", "1", "--no-progress", stdout=io.StringIO())
    with pytest.raises(CommandError, match="hand_size"):
        call_command("arena", "--a", "level-1", "--b", "level-1", "--deals", "1", "--option", "hand_size=7",
                     "--no-progress", stdout=io.StringIO())


def test_times_count_the_decisions_with_a_choice_apart() -> None:
    summary = run_arena("dos", {}, "level-3", "level-1", deals=2, seed=3).summary()
    timing = summary["time_a"]
    assert 0 < timing["choice_decisions"] < timing["decisions"]  # the last trick never leaves a choice
    assert 0.0 <= summary["ci95_a"][0] <= summary["ci95_a"][1] <= 1.0


def test_the_oracle_sees_every_hand_and_is_no_bot_a_match_can_seat() -> None:
    from games.bots import make_policy

    with pytest.raises(KeyError):
        make_policy("oracle")  # not a policy of a view: it reads the whole state, in the arena only
    summary = run_arena("dos", {}, "oracle", "level-1", deals=6, seed=3).summary()
    assert summary["hands"] == 12
    assert summary["win_rate_a"] >= 0.75, "seeing the stock and both hands, it beats a random player"
    out = io.StringIO()
    call_command("arena", "--variant", "clasico", "--a", "oracle", "--b", "level-2", "--deals", "1", "--json",
                 "--no-progress", stdout=out)
    assert json.loads(out.getvalue())["hands"] == 2


def test_a_share_interval_never_shrinks_to_a_point_nor_leaves_0_to_1() -> None:
    low, high = share_interval([1.0] * 12)  # every deal won: the normal interval would be [1, 1]
    assert 0.7 < low < 0.8 and high == 1.0
    low, high = share_interval([1.0] * 11 + [0.0])
    assert 0.6 < low < 0.7 and 0.95 < high < 1.0, "Wilson's, not the normal interval cut at 1"
    assert share_interval([0.5] * 4) != (0.5, 0.5)
    many = [1.0, 0.5, 0.0, 1.0] * 500  # enough deals, not all alike: the normal interval of the deals' mean
    low, high = share_interval(many)
    assert abs((low + high) / 2 - 0.625) < 1e-9 and high - low < 0.05


def test_with_one_deal_the_margin_has_no_interval() -> None:
    summary = run_arena("dos", {}, "level-2", "level-1", deals=1, seed=1).summary()
    assert summary["margin_ci95_a"] is None
    out = io.StringIO()
    call_command("arena", variant="dos", a="level-2", b="level-1", deals=1, seed=1, stdout=out)
    assert "one deal: no interval" in out.getvalue()
