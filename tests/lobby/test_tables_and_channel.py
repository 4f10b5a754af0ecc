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
