"""A seeded match (C12) deals cards that whoever knows the seed can compute, so by default it seats
nobody but its creator, built-in bots and the creator's own bots."""

from __future__ import annotations

from typing import Any

import pytest

from games.matches.models import Match
from tests.games.helpers import new_player
from tests.http_bots.helpers import register
from tests.problems import problem

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def the_default(settings: Any) -> None:
    settings.SEEDS_AT_SHARED_TABLES = False


def _create(api: Any, seats: list[dict[str, Any]], seed: int | None = 7) -> Any:
    body: dict[str, Any] = {"variant": "dos", "seats": seats}
    if seed is not None:
        body["seed"] = seed
    return api.post("/api/v1/matches/", body)


def test_a_seeded_match_with_an_open_seat_is_refused_and_nothing_is_created():
    me = new_player()
    body = problem(_create(me, [{"player": "me"}, {"open": True}]), 422, "seed_not_allowed")
    assert body["field"] == "seed"
    assert not Match.objects.exists()
    assert _create(me, [{"player": "me"}, {"open": True}], seed=None).status_code == 201


def test_a_seeded_match_may_not_seat_another_players_bot():
    me, someone_else = new_player(), new_player()
    theirs = register(owner=someone_else)
    problem(_create(me, [{"player": "me"}, {"bot": theirs.id}]), 422, "seed_not_allowed")
    assert not Match.objects.exists()


def test_a_seeded_match_seats_its_creator_built_in_bots_and_the_creators_own_bots():
    me = new_player()
    mine = register(owner=me)
    assert _create(me, [{"player": "me"}, {"bot": "level-2"}]).status_code == 201
    assert _create(me, [{"bot": mine.id}, {"bot": "level-1"}]).status_code == 201


def test_a_service_for_duplicate_tournaments_may_seed_shared_tables(settings: Any):
    settings.SEEDS_AT_SHARED_TABLES = True
    me = new_player()
    assert _create(me, [{"player": "me"}, {"open": True}]).status_code == 201
