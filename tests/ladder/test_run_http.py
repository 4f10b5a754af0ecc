"""A whole ladder run over HTTP (RULES.md L1–L3): four wins against level-1 to level-4, the deal
alternating, then a loss against level-4; every figure is checked against the matches' records."""

from __future__ import annotations

import pytest

from games.engine import ladder as rules
from games.ladder.models import LadderBest
from tests.games.helpers import new_player
from tests.games.openapi import validate

from .helpers import MARGINS, SEEDS, current, play_match, seeded, start

pytestmark = pytest.mark.django_db


def test_a_run_is_played_over_http_through_its_wins_and_its_loss():
    me = new_player()
    with seeded(SEEDS):
        run = start(me)
        assert (run["state"], run["streak"], run["level"], run["margin"], run["score"]) == (
            "active",
            0,
            "level-1",
            0,
            0,
        )
        assert [m["number"] for m in run["matches"]] == [1] and run["match"]["dealer"] == 1
        streak = margin = 0
        records = []
        for number in range(1, 6):
            assert run["match"]["number"] == number and run["level"] == rules.rival_level(number)
            match_id = run["match"]["id"]
            seen = me.get(f"/api/v1/matches/{match_id}").json()
            assert seen["variant"] == "dos" and seen["my_seat"] == 0
            assert seen["seats"][1]["bot"] == ["level-1", "level-2", "level-3", "level-4", "level-4"][number - 1]
            final = play_match(me, match_id)
            assert final["status"] == "finished"
            record = me.get(f"/api/v1/matches/{match_id}/record").json()
            validate("Record", record)
            records.append(record)
            assert len(record["hands"]) == 1, "a ladder match is one hand (L1)"
            hand = record["hands"][0]
            assert hand["dealer"] == (1 if number % 2 else 0), "the bot deals first, then the deal alternates (L1)"
            points = hand["result"]["points"]
            assert points[0] - points[1] == MARGINS[number - 1]
            run = current(me)
            entry = run["matches"][number - 1]
            assert (entry["id"], entry["status"], entry["margin"]) == (match_id, "finished", MARGINS[number - 1])
            if number < 5:
                streak, margin = streak + 1, margin + MARGINS[number - 1]
                assert entry["result"] == "won" and record["winners"] == [0]
                assert run["state"] == "active" and run["match"]["number"] == number + 1
                assert run["match"]["status"] == "active" and run["match"]["id"] != match_id
            else:
                assert entry["result"] == "lost" and record["winners"] == [1]
                assert (run["state"], run["ended_by"], run["match"]["id"]) == ("over", "lost", match_id)
                assert run["ended_at"] is not None
            assert (run["streak"], run["margin"], run["score"]) == (streak, margin, streak * 10_000 + margin)
    assert (streak, margin) == (4, 48)
    assert [m["level"] for m in run["matches"]] == ["level-1", "level-2", "level-3", "level-4", "level-4"]
    assert [m["dealer"] for m in run["matches"]] == [1, 0, 1, 0, 1]
    assert [r["seats"][1]["bot"] for r in records] == [m["level"] for m in run["matches"]]
    # The run is among the past ones, and its score is the player's best, on the leaderboard.
    past = me.get("/api/v1/ladder/runs/").json()
    validate("LadderRunPage", past)
    assert past["count"] == 1 and past["results"][0] == run
    board = me.get("/api/v1/ladder/leaderboard").json()
    validate("LadderLeaderboardPage", board)
    [entry] = board["results"]
    assert (entry["rank"], entry["player"]["id"], entry["score"], entry["streak"], entry["margin"]) == (
        1, str(me.player.pk), 40_048, 4, 48,
    )  # fmt: skip
    assert entry["run"] == run["id"]
    assert LadderBest.objects.get(player=me.player).score == 40_048
