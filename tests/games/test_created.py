"""Every 201 names what it created (``Location``), and a GET of that path shows it to its creator; a keyed
retry gets the same ``Location`` with the first answer."""

from __future__ import annotations

import uuid

import pytest
from rest_framework.test import APIClient

from tests.games.helpers import Api, new_player

pytestmark = pytest.mark.django_db


def located(api: Api, response, status: int = 200) -> dict:
    """The resource a 201 names, read by ``api``."""
    assert response.status_code == 201, response.content
    where = response["Location"]
    assert where.startswith("/api/v1/"), where
    shown = api.get(where)
    assert shown.status_code == status, (where, shown.content)
    return shown.json()


def test_a_new_player_is_located_at_its_profile():
    signed_up = APIClient().post("/api/v1/players/", {"username": "located"}, format="json")
    body = signed_up.json()
    assert located(Api(body["token"]), signed_up)["id"] == body["id"]


def test_a_keyed_sign_up_retry_gets_the_same_location():
    key = {"Idempotency-Key": str(uuid.uuid4())}
    first = APIClient().post("/api/v1/players/", {"username": "again"}, format="json", headers=key)
    retry = APIClient().post("/api/v1/players/", {"username": "again"}, format="json", headers=key)
    assert retry["Idempotent-Replayed"] == "true" and retry["Location"] == first["Location"]


def test_a_rotated_token_is_located_at_its_player():
    me = new_player()
    rotated = me.post("/api/v1/players/me/token")
    assert located(Api(rotated.json()["token"]), rotated)["id"] == str(me.player.pk)


def test_a_new_match_is_located_at_the_match_and_a_keyed_retry_says_so_again():
    me = new_player()
    body = {"variant": "dos", "seats": [{"player": "me"}, {"open": True}]}
    key = {"Idempotency-Key": "match-1"}
    created = me.post("/api/v1/matches/", body, headers=key)
    assert located(me, created)["id"] == created.json()["id"]
    retry = me.post("/api/v1/matches/", body, headers=key)
    assert retry["Idempotent-Replayed"] == "true" and retry["Location"] == created["Location"]


def test_a_new_room_is_located_at_the_room_and_a_keyed_retry_says_so_again():
    me = new_player()
    key = {"Idempotency-Key": "room-1"}
    created = me.post("/api/v1/rooms/", {"variant": "dos"}, headers=key)
    assert located(me, created)["id"] == created.json()["id"]
    retry = me.post("/api/v1/rooms/", {"variant": "dos"}, headers=key)
    assert retry["Idempotent-Replayed"] == "true" and retry["Location"] == created["Location"]


def test_a_new_bot_and_its_new_credentials_are_located_at_the_bot():
    owner = new_player()
    registered = owner.post("/api/v1/bots/", {"name": f"bot{uuid.uuid4().hex[:8]}", "delivery": "poll"})
    bot = located(owner, registered)
    assert bot["id"] == registered.json()["id"]
    rotated = owner.post(f"/api/v1/bots/{bot['id']}/token")
    assert located(owner, rotated)["id"] == bot["id"]


def test_a_new_ladder_run_is_located_at_the_current_run():
    me = new_player()
    started = me.post("/api/v1/ladder/runs/")
    assert located(me, started)["id"] == started.json()["id"]
