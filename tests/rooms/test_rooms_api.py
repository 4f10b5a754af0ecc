"""Rooms: create, join by code, configure, start a match with bots in the empty seats, back to the lobby."""

from __future__ import annotations

import uuid

import pytest

from games.matches.models import Match
from games.rooms.models import Room
from games.turns.models import Presence, Table
from tests.games.helpers import new_player
from tests.problems import problem

pytestmark = pytest.mark.django_db


def test_a_room_gathers_friends_starts_a_match_and_is_back_in_its_lobby_when_it_ends():
    host, friend = new_player("host"), new_player("friend")
    room = host.post("/api/v1/rooms/", {"variant": "clasico", "options": {"games_to_win": 1},
                                        "table_options": {"reconnect_grace": 30}})  # fmt: skip
    assert room.status_code == 201, room.content
    room = room.json()
    assert room["status"] == "lobby" and room["table_options"]["reconnect_grace"] == 30
    joined = friend.post("/api/v1/rooms/join", {"invite_code": room["invite_code"].lower()})
    assert joined.status_code == 200 and len(joined.json()["members"]) == 2
    assert friend.post(f"/api/v1/rooms/{room['id']}/start").json()["code"] == "not_host"
    started = host.post(f"/api/v1/rooms/{room['id']}/start")
    assert started.status_code == 200, started.content
    body = started.json()
    assert body["status"] == "playing" and body["match"]["status"] == "active"
    match = Match.objects.get(pk=body["match"]["id"])
    assert [s["kind"] for s in match.seating] == ["player", "player", "bot", "bot"]
    assert Table.objects.get(match=match).reconnect_grace == 30
    assert Presence.objects.filter(match=match).count() == 2
    assert host.post(f"/api/v1/rooms/{room['id']}/start").json()["code"] == "room_playing"
    assert friend.get(f"/api/v1/matches/{match.id}").json()["my_seat"] == 1
    Match.objects.filter(pk=match.pk).update(status="cancelled")
    again = host.get(f"/api/v1/rooms/{room['id']}").json()
    assert again["status"] == "lobby" and again["match"]["status"] == "cancelled"
    changed = host.client.patch(
        f"/api/v1/rooms/{room['id']}", {"variant": "dos", "options": {"games_to_win": 1}}, format="json"
    )
    assert changed.status_code == 200 and changed.json()["variant"] == "dos"
    second = host.post(f"/api/v1/rooms/{room['id']}/start").json()
    assert second["match"]["id"] != str(match.id) and second["status"] == "playing"


def test_a_room_says_invite_code_and_status_as_a_match_does_and_the_old_names_still_work():
    """One name for one thing (docs/clients.md, Changes): a room's invite_code and status, as a match's;
    code and state, deprecated, stay until version 0.2, in answers and in the join's body."""
    host, old, new, nobody = new_player("host"), new_player("old"), new_player("new"), new_player("nobody")
    room = host.post("/api/v1/rooms/", {"variant": "clasico"}).json()
    assert room["invite_code"] == room["code"] and len(room["invite_code"]) == 6
    assert room["status"] == room["state"] == "lobby"
    assert old.post("/api/v1/rooms/join", {"code": room["code"]}).status_code == 200
    assert new.post("/api/v1/rooms/join", {"invite_code": room["invite_code"]}).status_code == 200
    problem(nobody.post("/api/v1/rooms/join", {}), 400, "invalid")
    problem(nobody.post("/api/v1/rooms/join", {"invite_code": "ZZZZZZ"}), 404, "room_not_found")
    problem(nobody.get(f"/api/v1/rooms/{room['id']}"), 404, "room_not_found")  # a stranger learns nothing
    assert len(host.get(f"/api/v1/rooms/{room['id']}").json()["members"]) == 3


def test_a_match_of_one_human_against_bots_is_not_tracked():
    host = new_player("host")
    room = host.post("/api/v1/rooms/", {"variant": "dos"}).json()
    started = host.post(f"/api/v1/rooms/{room['id']}/start").json()
    assert not Presence.objects.filter(match_id=started["match"]["id"]).exists()


def test_leaving_and_removing_members():
    host, a, b = new_player("host"), new_player("a"), new_player("b")
    room = host.post("/api/v1/rooms/", {"variant": "dos"}).json()
    url = f"/api/v1/rooms/{room['id']}"
    for guest in (a, b):
        guest.post("/api/v1/rooms/join", {"code": room["code"]})
    assert host.post(f"{url}/start").json()["code"] == "too_many_players"
    assert a.client.delete(f"{url}/members/{b.player.pk}").json()["code"] == "not_host"
    problem(host.client.delete(f"{url}/members/{host.player.pk}"), 422, "host_removes_self")
    problem(host.client.delete(f"{url}/members/{uuid.uuid4()}"), 404, "not_a_member")
    removed = host.client.delete(f"{url}/members/{b.player.pk}")
    assert removed.status_code == 200 and len(removed.json()["members"]) == 2
    assert b.get(url).status_code == 404
    left = host.post(f"{url}/leave").json()
    assert left["host"] == str(a.player.pk), "the host hands the room to the next member"
    assert a.post(f"{url}/leave").json()["state"] == "closed"
    assert b.post("/api/v1/rooms/join", {"code": room["code"]}).json()["code"] == "room_not_found"


def test_bad_options_are_refused():
    host = new_player("host")
    assert host.post("/api/v1/rooms/", {"variant": "nope"}).status_code == 422
    bad = host.post("/api/v1/rooms/", {"variant": "dos", "table_options": {"reconnect_grace": 0}})
    assert bad.status_code == 400
    assert host.post("/api/v1/rooms/", {"variant": "dos", "bot": "level-9"}).json()["code"] == "unknown_bot"
    registered = host.post("/api/v1/bots/", {"name": "roombot", "delivery": "poll"}).json()
    refused = host.post("/api/v1/rooms/", {"variant": "dos", "bot": registered["id"]})
    assert refused.status_code == 422 and refused.json()["code"] == "unknown_bot", refused.json()
    assert "registered bot takes one seat of a match" in refused.json()["detail"]


def test_the_callers_rooms_are_listed():
    host, friend = new_player("host"), new_player("friend")
    room = host.post("/api/v1/rooms/", {"variant": "dos"}).json()
    friend.post("/api/v1/rooms/join", {"code": room["code"]})
    assert [r["id"] for r in friend.get("/api/v1/rooms/").json()] == [room["id"]]
    friend.post(f"/api/v1/rooms/{room['id']}/leave")
    assert friend.get("/api/v1/rooms/").json() == []


def test_a_retried_room_creation_with_the_same_key_creates_one_room():
    host = new_player("host")
    key = {"Idempotency-Key": "room-1"}
    first = host.post("/api/v1/rooms/", {"variant": "dos"}, headers=key)
    again = host.post("/api/v1/rooms/", {"variant": "dos"}, headers=key)
    assert first.status_code == again.status_code == 201
    assert again.json() == first.json() and again["Idempotent-Replayed"] == "true"
    assert Room.objects.filter(host=host.player).count() == 1
    problem(host.post("/api/v1/rooms/", {"variant": "clasico"}, headers=key), 422, "idempotency_key_reused")
    refused = host.post("/api/v1/rooms/", {"variant": "nope"}, headers={"Idempotency-Key": "room-2"})
    assert refused.status_code == 422, "an error is not kept"
    assert host.post("/api/v1/rooms/", {"variant": "dos"}, headers={"Idempotency-Key": "room-2"}).status_code == 201
    assert Room.objects.filter(host=host.player).count() == 2
