"""Open tables (anyone sits, no code; the host is told) and the player's own channel over SSE."""

from __future__ import annotations

import pytest

from games.lobby.models import OpenTable
from tests.games.helpers import CARD, new_player

pytestmark = pytest.mark.django_db


def test_an_open_table_is_listed_and_anyone_takes_a_seat_without_a_code():
    host, guest = new_player("host"), new_player("guest")
    created = host.post(
        "/api/v1/tables/",
        {"variant": "dos", "options": {"games_to_win": 1}, "seats": [{"player": "me"}, {"open": True}]},
    )
    assert created.status_code == 201, created.json()
    match_id = created.json()["id"]
    listed = guest.get("/api/v1/tables/open").json()
    assert [(t["match_id"], t["seats_free"], t["host"]["rating"]) for t in listed] == [(match_id, 1, 1500.0)]
    sat = guest.post(f"/api/v1/tables/{match_id}/seat", {})
    assert sat.status_code == 200 and sat.json()["my_seat"] == 1 and sat.json()["status"] == "active"
    assert guest.get("/api/v1/tables/open").json() == [] and not OpenTable.objects.exists()
    [taken] = [n for n in host.get("/api/v1/me/notices").json()["notices"] if n["kind"] == "seat_taken"]
    assert taken["match_id"] == match_id and taken["data"] == {"seat": 1, "seats_free": 0}
    again = new_player("late").post(f"/api/v1/tables/{match_id}/seat", {})
    assert again.status_code == 404 and again.json()["code"] == "table_not_found"


def test_a_table_needs_an_open_seat_and_a_plain_match_is_not_listed():
    host = new_player("host")
    full = host.post("/api/v1/tables/", {"variant": "dos", "seats": [{"player": "me"}, {"bot": "level-1"}]})
    assert full.status_code == 422 and not OpenTable.objects.exists()
    host.post("/api/v1/matches/", {"variant": "dos", "seats": [{"player": "me"}, {"open": True}]})
    assert host.get("/api/v1/tables/open").json() == []


def test_an_open_room_is_listed_in_its_lobby_and_anyone_joins_it_without_the_code():
    host, ana, bea, cid = (new_player(name) for name in ("host", "ana", "bea", "cid"))
    body = {"variant": "individual", "options": {"players": 3, "games_to_win": 1}, "open": True}
    room = host.post("/api/v1/rooms/", body).json()
    assert room["open"] is True
    closed = host.post("/api/v1/rooms/", {"variant": "dos"}).json()  # not open: not listed, not joinable
    [listed] = ana.get("/api/v1/tables/open").json()
    assert (listed["kind"], listed["id"], listed["match_id"]) == ("room", room["id"], None)
    assert (listed["seats"], listed["seats_free"], listed["host"]["id"]) == (3, 2, room["host"])
    joined = ana.post(f"/api/v1/rooms/{room['id']}/join")
    assert joined.status_code == 200 and [m["id"] for m in joined.json()["members"]][1] == str(ana.player.pk)
    assert ana.post(f"/api/v1/rooms/{room['id']}/join").status_code == 200  # again: nothing changes
    assert [t["seats_free"] for t in bea.get("/api/v1/tables/open").json()] == [1]
    refused = bea.post(f"/api/v1/rooms/{closed['id']}/join")
    assert refused.status_code == 404 and refused.json()["code"] == "room_not_found"
    assert len(host.get(f"/api/v1/rooms/{closed['id']}").json()["members"]) == 1
    assert host.post(f"/api/v1/rooms/{closed['id']}/join").status_code == 200  # its member's: nothing changes
    assert len(host.get(f"/api/v1/rooms/{closed['id']}").json()["members"]) == 1
    assert bea.post(f"/api/v1/rooms/{room['id']}/join").status_code == 200
    assert cid.get("/api/v1/tables/open").json() == []  # full: three members for three seats
    assert bea.post(f"/api/v1/rooms/{room['id']}/leave").status_code == 200  # room for one more
    assert cid.get("/api/v1/tables/open").json()[0]["seats_free"] == 1


def test_a_room_playing_or_made_private_is_not_listed():
    host, ana = new_player("host"), new_player("ana")
    room = host.post("/api/v1/rooms/", {"variant": "dos", "options": {"games_to_win": 1}, "open": True}).json()
    assert host.post(f"/api/v1/rooms/{room['id']}/start").status_code == 200  # a bot takes the other seat
    assert ana.get("/api/v1/tables/open").json() == []
    other = host.post("/api/v1/rooms/", {"variant": "dos", "open": True}).json()
    assert [t["id"] for t in ana.get("/api/v1/tables/open").json()] == [other["id"]]
    made_private = host.client.patch(f"/api/v1/rooms/{other['id']}", {"open": False}, format="json")
    assert made_private.status_code == 200 and made_private.json()["open"] is False
    assert ana.get("/api/v1/tables/open").json() == []
    assert ana.post(f"/api/v1/rooms/{other['id']}/join").status_code == 404


@pytest.mark.django_db(transaction=True)  # the stream closes its connection between reads
def test_the_channel_streams_its_messages_without_a_card(settings):
    settings.STREAM_MAX_SECONDS = 0.2
    host, guest = new_player("host"), new_player("guest")
    match_id = host.post("/api/v1/tables/", {"variant": "dos", "seats": [{"player": "me"}, {"open": True}]}).json()[
        "id"
    ]
    guest.post(f"/api/v1/tables/{match_id}/seat", {})
    response = host.client.get("/api/v1/me/notices/stream", HTTP_ACCEPT="text/event-stream")
    assert response.status_code == 200
    text = b"".join(response.streaming_content).decode()
    assert "event: seat_taken" in text and match_id in text
    assert not CARD.search(text.split("\n", 2)[2])
    first_id = int(text.split("id: ", 1)[1].split("\n", 1)[0])
    later = host.client.get(
        "/api/v1/me/notices/stream", HTTP_ACCEPT="text/event-stream", HTTP_LAST_EVENT_ID=str(first_id)
    )
    assert f"id: {first_id}\n" not in b"".join(later.streaming_content).decode()
    bad = host.client.get("/api/v1/me/notices/stream", HTTP_ACCEPT="application/json")
    assert bad.status_code == 406
