"""Ratings over HTTP: a rated match rates its seats in the transaction that finishes it; profiles and
leaderboards (docs/ratings.md)."""

from __future__ import annotations

import math
import random
import uuid
from typing import Any

import pytest
from django.db import connection

from games.ratings import anchors, glicko
from games.ratings.models import LEADERBOARD_MAX_DEVIATION, Rating
from games.ratings.services import MIN_DEVIATION, TAU
from players.models import Player
from tests.games.helpers import choose, new_player
from tests.games.openapi import validate

pytestmark = pytest.mark.django_db

MAX_STEPS = 3000


def play_to_the_end(me: Any, body: dict[str, Any], seed: int = 3) -> dict[str, Any]:
    created = me.post("/api/v1/matches/", body)
    assert created.status_code == 201, created.content
    url = f"/api/v1/matches/{created.json()['id']}"
    rng = random.Random(seed)
    for _ in range(MAX_STEPS):
        view = me.get(url).json()
        if view["status"] == "finished":
            return view
        acted = me.post(f"{url}/actions", choose(rng, view["legal_actions"]))
        assert acted.status_code == 200, acted.content
    pytest.fail("the match did not end")


DOS = {"variant": "dos", "options": {"games_to_win": 1}, "seats": [{"player": "me"}, {"bot": "level-2"}]}


def test_a_rated_match_rates_its_player_against_the_bots_anchor() -> None:
    me = new_player()
    view = play_to_the_end(me, DOS)
    url = f"/api/v1/matches/{view['id']}"
    events = me.get(f"{url}/events", {"after": 0}).json()
    validate("Event", events, many=True)
    types = [e["type"] for e in events]
    assert types[-2:] == ["match_finished", "ratings_updated"], "the rating changes follow match_finished"
    won = 1.0 if view["winners"] == [0] else 0.0
    expected = glicko.update(
        glicko.Glicko(), [glicko.Game(anchors.anchor("dos", "level-2"), won)], tau=TAU, min_deviation=MIN_DEVIATION
    )
    mine, bot = events[-1]["data"]["seats"]
    assert mine["player"] == str(me.player.pk) and mine["rating_before"] == 1500.0
    assert math.isclose(mine["rating"], expected.rating, abs_tol=0.05)
    assert math.isclose(mine["deviation"], expected.deviation, abs_tol=0.05)
    assert (mine["change"] > 0) == bool(won)
    assert bot == {
        "seat": 1, "player": None, "bot": "level-2", "rating_before": 1500.0, "rating": 1500.0, "change": 0.0,
        "deviation": anchors.ANCHOR_DEVIATION,
    }  # fmt: skip
    row = Rating.objects.get(player=me.player, variant="dos")
    assert math.isclose(row.rating, expected.rating) and row.games == 1 and row.played == 1 and row.won == won
    record = me.get(f"{url}/record").json()
    validate("Record", record)
    assert record["rating_changes"] == events[-1]["data"]["seats"]
    replay = me.get(f"{url}/replay", {"seq": events[-1]["seq"]}).json()
    assert replay["event"]["type"] == "ratings_updated" and replay["engine_events"] == len(events) - 1


def test_a_seeded_match_is_counted_but_not_rated() -> None:
    me = new_player()
    view = play_to_the_end(me, {**DOS, "seed": 5})
    url = f"/api/v1/matches/{view['id']}"
    assert "ratings_updated" not in [e["type"] for e in me.get(f"{url}/events", {"after": 0}).json()]
    assert me.get(f"{url}/record").json()["rating_changes"] is None
    row = Rating.objects.get(player=me.player, variant="dos")
    assert (row.rating, row.deviation, row.games, row.played) == (1500.0, 350.0, 0, 1)


def test_a_friendly_match_is_counted_but_not_rated_and_says_so() -> None:
    me = new_player()
    created = me.post("/api/v1/matches/", {**DOS, "rated": False}).json()
    assert created["rated"] is False
    assert me.get("/api/v1/matches/").json()["results"][0]["rated"] is False
    view = play_to_the_end(me, {**DOS, "rated": False})
    url = f"/api/v1/matches/{view['id']}"
    assert view["rated"] is False
    assert "ratings_updated" not in [e["type"] for e in me.get(f"{url}/events", {"after": 0}).json()]
    assert me.get(f"{url}/record").json()["rating_changes"] is None
    row = Rating.objects.get(player=me.player, variant="dos")
    assert (row.rating, row.deviation, row.games, row.played) == (1500.0, 350.0, 0, 1)
    assert me.post("/api/v1/matches/", DOS).json()["rated"] is True  # by default
    assert me.post("/api/v1/matches/", {**DOS, "seed": 5}).json()["rated"] is False  # seeded: never (C12)
    refused = me.post("/api/v1/matches/", {**DOS, "rated": "no"})
    assert refused.status_code == 400 and "rated" in refused.json()["errors"]


def test_the_profile_shows_ratings_and_matches() -> None:
    me, other = new_player(), new_player()
    view = play_to_the_end(me, DOS)
    got = other.get(f"/api/v1/players/{me.player.pk}")
    assert got.status_code == 200, got.content
    body = got.json()
    validate("Profile", body)
    row = Rating.objects.get(player=me.player)
    assert body["username"] == me.username and body["is_bot"] is False and body["best_ladder_score"] is None
    assert body["matches_played"] == 1 and body["matches_won"] == (view["winners"] == [0])
    assert body["ratings"] == [
        {"variant": "dos", "rating": row.rating, "deviation": row.deviation, "games": 1, "played": 1,
         "won": body["matches_won"], "ranked": False},
    ]  # fmt: skip
    assert other.get("/api/v1/players/me").json()["username"] == other.username, "players/me is not a profile"


def test_a_profile_of_no_one_is_404() -> None:
    got = new_player().get(f"/api/v1/players/{uuid.uuid4()}")
    assert got.status_code == 404 and got.json()["code"] == "player_not_found"


def _rated(username: str, variant: str, rating: float, deviation: float) -> Player:
    player = Player.objects.create(username=username)
    Rating.objects.create(player=player, variant=variant, rating=rating, deviation=deviation, games=30)
    return player


def test_the_leaderboard_ranks_sure_ratings_best_first_a_page_at_a_time() -> None:
    best = _rated("best", "dos", 1900, 50)
    _rated("unsure", "dos", 2500, LEADERBOARD_MAX_DEVIATION)  # at the bound: not ranked
    second = _rated("second", "dos", 1800, 60)
    _rated("other_variant", "clasico", 2000, 50)
    third = _rated("third", "dos", 1700, 74.9)
    reader = new_player()
    first = reader.get("/api/v1/leaderboards/dos", {"page_size": 2})
    assert first.status_code == 200
    validate("Leaderboard", first.json())
    assert first.json()["next"] == 2 and first.json()["max_deviation"] == LEADERBOARD_MAX_DEVIATION
    assert [(r["rank"], r["player"]["id"]) for r in first.json()["results"]] == [(1, str(best.pk)), (2, str(second.pk))]
    last = reader.get("/api/v1/leaderboards/dos", {"page_size": 2, "page": 2}).json()
    assert [(r["rank"], r["player"]["username"], r["rating"]) for r in last["results"]] == [(3, "third", 1700.0)]
    assert last["next"] is None and str(third.pk) == last["results"][0]["player"]["id"]
    assert reader.get("/api/v1/leaderboards/dos", {"page_size": 2, "page": 3}).json()["code"] == "not_found"
    assert reader.get("/api/v1/leaderboards/individual").json()["results"] == []


def test_leaderboard_bad_input() -> None:
    reader = new_player()
    unknown = reader.get("/api/v1/leaderboards/chess")
    assert unknown.status_code == 404 and unknown.json()["code"] == "unknown_variant"
    for params in ({"page": "0"}, {"page": "x"}, {"page_size": "101"}):
        assert reader.get("/api/v1/leaderboards/dos", params).status_code == 400


def test_the_leaderboard_reads_its_partial_index() -> None:
    if connection.vendor != "sqlite":
        pytest.skip("the plan's wording is SQLite's (PostgreSQL: manage.py ratingsbench prints its plan)")
    board = Rating.objects.filter(variant="dos", deviation__lt=LEADERBOARD_MAX_DEVIATION).order_by(
        "-rating", "player_id"
    )
    plan = board[:51].explain()
    assert "rating_leaderboard" in plan and "TEMP B-TREE" not in plan, plan


def test_a_registered_bot_has_a_profile_too() -> None:
    owner = new_player()
    made = owner.post("/api/v1/bots/", {"name": "profiled-bot", "delivery": "poll"})
    assert made.status_code == 201, made.content
    body = new_player().get(f"/api/v1/players/{made.json()['id']}").json()
    validate("Profile", body)
    assert body["username"] == "profiled-bot" and body["is_bot"] is True and body["ratings"] == []
    assert body["matches_played"] == 0 and body["best_ladder_score"] is None


def test_a_profile_shows_the_best_score_of_the_players_ladder_runs():
    from django.utils import timezone

    from games.ladder.models import LadderBest
    from games.ladder.services import run_start

    me, other = new_player(), new_player()
    run = run_start(player=me.player)
    LadderBest.objects.create(player=me.player, score=20_130, streak=2, margin=130, run=run,
                              achieved_at=timezone.now())  # fmt: skip
    body = other.get(f"/api/v1/players/{me.player.pk}").json()
    assert body["best_ladder_score"] == 20_130
    assert other.get(f"/api/v1/players/{other.player.pk}").json()["best_ladder_score"] is None
