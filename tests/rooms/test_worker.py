"""End to end with a real worker and short timings: beat-like sweeps and the countdown grace task."""

from __future__ import annotations

import time

import pytest

from games.matches.models import Event, Match
from games.turns import tasks
from tests.games.helpers import new_player

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def friends_match(**table_options: int):
    host, friend = new_player("host"), new_player("friend")
    room = host.post("/api/v1/rooms/", {"variant": "dos", "table_options": table_options}).json()
    friend.post("/api/v1/rooms/join", {"code": room["code"]})
    started = host.post(f"/api/v1/rooms/{room['id']}/start").json()
    return started["match"]["id"], host, friend


def types(match_id: str) -> list[str]:
    return list(Event.objects.filter(match_id=match_id).order_by("seq").values_list("type", flat=True))


def run_beat(seconds: float, until, *present) -> None:
    """For up to ``seconds``: the present players heartbeat, and a beat queues a sweep, until ``until()``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not until():
        for api, match_id in present:
            assert api.post(f"/api/v1/matches/{match_id}/heartbeat").status_code == 200
        tasks.sweep_presence.delay()
        time.sleep(0.3)


def test_a_seat_that_stops_calling_is_disconnected_then_the_match_is_cancelled(celery_worker):
    match_id, host, friend = friends_match(presence_timeout=1, reconnect_grace=2)
    start = time.monotonic()
    run_beat(30, lambda: Match.objects.get(pk=match_id).status != "active", (host, match_id))
    elapsed = time.monotonic() - start
    assert Match.objects.get(pk=match_id).status == "cancelled", types(match_id)
    assert types(match_id)[-1] == "match_cancelled"
    # Under a loaded machine the host's own heartbeats may come late and flap its seat too; the friend's
    # seat must have been disconnected, and never reconnected, before the cancellation.
    friend_seat = [
        e.type for e in Event.objects.filter(match_id=match_id, seat=1).order_by("seq")
        if e.type in ("seat_disconnected", "seat_reconnected")
    ]
    assert friend_seat == ["seat_disconnected"], types(match_id)
    assert elapsed > 2.5, "not before the timeout and the grace"
    cancelled = Event.objects.filter(match_id=match_id, type="match_cancelled").get()
    assert cancelled.data == {"reason": "seat_abandoned", "seat": 1}


def test_a_player_back_within_the_grace_keeps_the_seat(celery_worker):
    match_id, host, friend = friends_match(presence_timeout=2, reconnect_grace=4)
    hand = friend.get(f"/api/v1/matches/{match_id}").json()["my_hand"]
    run_beat(20, lambda: "seat_disconnected" in types(match_id), (host, match_id))
    assert "seat_disconnected" in types(match_id)
    back = friend.post(f"/api/v1/matches/{match_id}/heartbeat").json()
    assert back["match"]["my_hand"] == hand and back["match"]["status"] == "active"
    run_beat(5, lambda: False, (host, match_id), (friend, match_id))  # past the grace of the disconnection
    assert Match.objects.get(pk=match_id).status == "active"
    friend_seat = [
        e.type for e in Event.objects.filter(match_id=match_id, seat=1).order_by("seq")
        if e.type in ("seat_disconnected", "seat_reconnected")
    ]
    assert friend_seat == ["seat_disconnected", "seat_reconnected"], types(match_id)


def test_a_bots_only_table_never_times_out(celery_worker):
    me = new_player()
    room = me.post("/api/v1/rooms/", {"variant": "dos", "table_options": {"presence_timeout": 1,
                                                                          "reconnect_grace": 1}}).json()  # fmt: skip
    match_id = me.post(f"/api/v1/rooms/{room['id']}/start").json()["match"]["id"]
    run_beat(3, lambda: False)
    assert Match.objects.get(pk=match_id).status in ("active", "finished")
    assert not {"seat_disconnected", "match_cancelled"} & set(types(match_id))
