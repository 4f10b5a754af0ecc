"""The pairing of a pool, pure: by rating, a range widening with the wait, bots after the maximum wait."""

from __future__ import annotations

from games.lobby.pools import Waiter, bot_level, search_range, tables


def keys(found):
    return sorted(sorted(w.key for w in t.players) for t in found)


def test_players_next_by_rating_sit_together():
    waiting = [Waiter("a", 1000, 0), Waiter("b", 1500, 0), Waiter("c", 1050, 0), Waiter("d", 1560, 0)]
    assert keys(tables(waiting, 2, 20)) == [["a", "c"], ["b", "d"]]


def test_the_range_widens_with_the_wait():
    assert search_range(10) > search_range(0)
    apart = [Waiter("a", 1000, 0), Waiter("b", 1300, 0)]
    assert tables(apart, 2, 20) == []  # 300 points apart: beyond a fresh range
    later = [Waiter("a", 1000, 10), Waiter("b", 1300, 10)]
    assert keys(tables(later, 2, 20)) == [["a", "b"]]


def test_bots_fill_the_seats_after_the_maximum_wait():
    waiting = [Waiter("a", 1500, 19.0), Waiter("b", 1520, 21.0)]
    found = tables(waiting, 4, 20)
    assert len(found) == 1 and found[0].bots == 2 and keys(found) == [["a", "b"]]
    assert tables([Waiter("a", 1500, 5.0)], 4, 20) == []


def test_humans_only_never_sits_with_a_registered_bot_and_bots_never_sit_alone():
    waiting = [Waiter("human", 1500, 0, humans_only=True), Waiter("bot", 1500, 0, is_bot=True)]
    assert tables(waiting, 2, 20) == []
    assert keys(tables([Waiter("human", 1500, 0), Waiter("bot", 1500, 0, is_bot=True)], 2, 20)) == [["bot", "human"]]
    assert tables([Waiter("b1", 1500, 30, is_bot=True), Waiter("b2", 1500, 30, is_bot=True)], 2, 20) == []


def test_the_bots_level_is_the_nearest_the_players_strength():
    anchors = {"level-1": 1300.0, "level-2": 1500.0, "level-3": 1600.0, "level-4": 1700.0}
    assert bot_level([1480, 1530], anchors) == "level-2"
    assert bot_level([1690], anchors) == "level-4"
