"""Presence (M2, M3) with controlled clocks: disconnect, grace, reconnect, cancel; bots-only never waits."""

from __future__ import annotations

import sys
import threading
import time
from datetime import timedelta
from unittest import mock

import pytest
from django.db import OperationalError, connection, connections
from django.test import TestCase
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.live import apis as live_apis
from games.matches.models import Event, Match
from games.turns import clock, presence
from games.turns.models import Presence
from players.models import BotCall
from tests import services
from tests.games.helpers import Api, new_player
from tests.problems import problem

pytestmark = pytest.mark.django_db


def friends_match(**table_options: int) -> tuple[dict, list]:
    host, friend = new_player("host"), new_player("friend")
    room = host.post("/api/v1/rooms/", {"variant": "dos", "table_options": table_options}).json()
    friend.post("/api/v1/rooms/join", {"code": room["code"]})
    started = host.post(f"/api/v1/rooms/{room['id']}/start").json()
    return started, [host, friend]


def sweep(at):
    with TestCase.captureOnCommitCallbacks(execute=True):
        return presence.sweep(now=at)


def types(match_id) -> list[str]:
    return list(Event.objects.filter(match_id=match_id).order_by("seq").values_list("type", flat=True))


def test_a_silent_seat_is_disconnected_then_the_match_is_cancelled_after_the_grace():
    room, (host, friend) = friends_match(presence_timeout=20, reconnect_grace=60)
    match_id = room["match"]["id"]
    t0 = timezone.now()
    Presence.objects.filter(match_id=match_id).update(last_seen=t0)
    assert sweep(t0 + timedelta(seconds=10))["disconnected"] == 0
    Presence.objects.filter(match_id=match_id, seat=0).update(last_seen=t0 + timedelta(seconds=15))
    done = sweep(t0 + timedelta(seconds=21))
    assert done["disconnected"] == 1, "the friend (seat 1) was silent for 21 s; the host only 6 s"
    assert types(match_id)[-1] == "seat_disconnected"
    event = Event.objects.filter(match_id=match_id).order_by("-seq").first()
    assert event.seat == 1 and event.data["grace_seconds"] == 60
    # The eager grace task ran at once: too early, it did nothing.
    assert Match.objects.get(pk=match_id).status == "active"
    Presence.objects.filter(match_id=match_id, seat=0).update(last_seen=t0 + timedelta(seconds=80))
    assert sweep(t0 + timedelta(seconds=80))["cancelled"] == 0, "the grace is not over"
    assert sweep(t0 + timedelta(seconds=82))["cancelled"] == 1
    match = Match.objects.get(pk=match_id)
    assert match.status == "cancelled" and types(match_id)[-1] == "match_cancelled"
    assert host.get(f"/api/v1/rooms/{room['id']}").json()["state"] == "lobby"
    seen = friend.get(f"/api/v1/matches/{match_id}/events", {"after": match.seq - 2}).json()
    assert [e["type"] for e in seen] == ["seat_disconnected", "match_cancelled"]
    assert sweep(t0 + timedelta(seconds=200)) == {"tracked": 0, "disconnected": 0, "cancelled": 0, "clock_moves": 0}


def test_a_player_back_within_the_grace_keeps_seat_and_cards():
    room, (host, friend) = friends_match(presence_timeout=2, reconnect_grace=5)
    match_id = room["match"]["id"]
    url = f"/api/v1/matches/{match_id}"
    hand = friend.get(url).json()["my_hand"]
    Presence.objects.filter(match_id=match_id, seat=1).update(last_seen=timezone.now() - timedelta(seconds=3))
    assert sweep(timezone.now())["disconnected"] == 1
    beat = friend.post(f"{url}/heartbeat")
    assert beat.status_code == 200, beat.content
    body = beat.json()
    assert body["match"]["my_seat"] == 1 and body["match"]["my_hand"] == hand
    assert [p["connected"] for p in body["presence"]] == [True, True]
    assert types(match_id)[-2:] == ["seat_disconnected", "seat_reconnected"]
    assert sweep(timezone.now() + timedelta(seconds=1))["cancelled"] == 0
    assert Match.objects.get(pk=match_id).status == "active"


def test_a_late_or_duplicated_grace_task_does_nothing():
    room, _ = friends_match(presence_timeout=2, reconnect_grace=5)
    match_id = room["match"]["id"]
    Presence.objects.filter(match_id=match_id, seat=1).update(last_seen=timezone.now() - timedelta(seconds=3))
    sweep(timezone.now())
    first = Presence.objects.get(match_id=match_id, seat=1).disconnected_seq
    presence.touch(match_id=match_id, player_id=Presence.objects.get(match_id=match_id, seat=1).player_id)
    later = timezone.now() + timedelta(seconds=10)
    assert not presence.grace_expire(match_id=match_id, seat=1, seq=first, now=later), "the seat came back"
    assert Match.objects.get(pk=match_id).status == "active"


def test_a_grace_task_of_an_earlier_disconnection_does_not_cancel_a_later_one():
    room, (host, friend) = friends_match(presence_timeout=2, reconnect_grace=5)
    match_id = room["match"]["id"]
    t0 = timezone.now()
    Presence.objects.filter(match_id=match_id).update(last_seen=t0)
    assert presence.seat_disconnect(match_id=match_id, seat=1, now=t0 + timedelta(seconds=3))
    first = Presence.objects.get(match_id=match_id, seat=1).disconnected_seq
    assert presence.touch(match_id=match_id, player_id=friend.player.pk, now=t0 + timedelta(seconds=4))
    assert presence.seat_disconnect(match_id=match_id, seat=1, now=t0 + timedelta(seconds=7))
    second = Presence.objects.get(match_id=match_id, seat=1).disconnected_seq
    assert second != first
    late = t0 + timedelta(seconds=13)  # both graces are over
    assert not presence.grace_expire(match_id=match_id, seat=1, seq=first, now=late)
    assert Match.objects.get(pk=match_id).status == "active"
    assert presence.grace_expire(match_id=match_id, seat=1, seq=second, now=late)
    assert Match.objects.get(pk=match_id).status == "cancelled"


def test_a_seat_heard_from_within_the_presence_timeout_is_not_disconnected():
    room, _ = friends_match(presence_timeout=2, reconnect_grace=5)
    match_id = room["match"]["id"]
    t0 = timezone.now()
    Presence.objects.filter(match_id=match_id).update(last_seen=t0)
    assert not presence.seat_disconnect(match_id=match_id, seat=1, now=t0 + timedelta(seconds=1))
    assert Presence.objects.get(match_id=match_id, seat=1).disconnected_at is None
    assert "seat_disconnected" not in types(match_id)


def test_a_call_the_server_fails_does_not_count_as_presence(monkeypatch):
    room, (host, friend) = friends_match(presence_timeout=20)
    match_id = room["match"]["id"]
    old = timezone.now() - timedelta(seconds=30)
    Presence.objects.filter(match_id=match_id).update(last_seen=old)
    monkeypatch.setattr(live_apis, "match_events", mock.Mock(side_effect=OperationalError("connection lost")))
    problem(friend.get(f"/api/v1/matches/{match_id}/events", {"after": 0}), 503, "service_unavailable")
    assert Presence.objects.get(match_id=match_id, seat=1).last_seen == old


@pytest.mark.parametrize("wait", ["\u00b2", "1" * 2000, "-1", "1.5"])
def test_a_wait_that_is_no_whole_number_is_a_400_on_a_tracked_match(wait: str):
    """The presence middleware reads ``wait`` before the API does; ``²`` passes ``str.isdigit``."""
    room, (host, friend) = friends_match(presence_timeout=20)
    for path in ("", "/events"):
        answer = friend.get(f"/api/v1/matches/{room['match']['id']}{path}", {"after": 1, "wait": wait})
        problem(answer, 400, "invalid")


def test_any_call_on_the_match_counts_as_presence():
    room, (host, friend) = friends_match(presence_timeout=20, reconnect_grace=60)
    match_id = room["match"]["id"]
    old = timezone.now() - timedelta(seconds=30)
    Presence.objects.filter(match_id=match_id).update(last_seen=old)
    friend.get(f"/api/v1/matches/{match_id}/events", {"after": 0})
    assert Presence.objects.get(match_id=match_id, seat=1).last_seen > old
    assert Presence.objects.get(match_id=match_id, seat=0).last_seen == old
    assert sweep(timezone.now())["disconnected"] == 1


def test_a_match_of_one_human_against_bots_never_times_out():
    me = new_player()
    created = me.post("/api/v1/matches/", {"variant": "dos", "seats": [{"player": "me"}, {"bot": "level-1"}]}).json()
    assert sweep(timezone.now() + timedelta(days=2)) == {
        "tracked": 0, "disconnected": 0, "cancelled": 0, "clock_moves": 0
    }  # fmt: skip
    assert Match.objects.get(pk=created["id"]).status == "active"
    assert "seat_disconnected" not in types(created["id"])


def test_a_match_with_open_seats_is_tracked_once_it_starts():
    host, guest = new_player("host"), new_player("guest")
    created = host.post("/api/v1/matches/", {"variant": "dos", "seats": [{"player": "me"}, {"open": True}]}).json()
    guest.post(f"/api/v1/matches/{created['id']}/join", {"invite_code": created["invite_code"]})
    assert sweep(timezone.now())["tracked"] == 2
    assert sweep(timezone.now() + timedelta(seconds=21))["disconnected"] == 2


def test_the_turn_clock_plays_a_level_2_move_and_marks_it():
    room, (host, friend) = friends_match(turn_seconds=5)
    match_id = room["match"]["id"]
    match = Match.objects.get(pk=match_id)
    turn, seq = match.turn, match.seq
    assert sweep(timezone.now())["clock_moves"] == 0
    Presence.objects.filter(match_id=match_id).update(last_seen=timezone.now() + timedelta(seconds=6))
    assert sweep(timezone.now() + timedelta(seconds=6))["clock_moves"] == 1
    rows = list(Event.objects.filter(match_id=match_id, seq__gt=seq).order_by("seq"))
    assert rows[0].type == "turn_timed_out" and rows[0].seat == turn
    assert rows[1].type == "card_played" and rows[1].seat == turn
    assert rows[1].data["card"] == rows[0].data["action"]["card"]


def test_a_turn_clock_that_has_not_run_out_plays_nothing():
    room, _ = friends_match(turn_seconds=5)
    match = Match.objects.get(pk=room["match"]["id"])
    early = match.updated_at + timedelta(seconds=4)
    assert not clock.turn_clock_expire(match_id=match.pk, seq=match.seq, now=early)
    assert Match.objects.get(pk=match.pk).seq == match.seq and "turn_timed_out" not in types(match.pk)


def test_a_turn_clock_never_runs_out_on_a_match_of_one_human_against_bots():
    """M3: such a match waits for its player, whatever the room's turn_seconds."""
    host = new_player("host")
    room = host.post("/api/v1/rooms/", {"variant": "dos", "table_options": {"turn_seconds": 5}}).json()
    match_id = host.post(f"/api/v1/rooms/{room['id']}/start").json()["match"]["id"]
    seq = Match.objects.get(pk=match_id).seq
    assert sweep(timezone.now() + timedelta(days=1))["clock_moves"] == 0
    assert Match.objects.get(pk=match_id).seq == seq and "turn_timed_out" not in types(match_id)


def test_touching_a_fresh_seat_is_one_update(django_assert_num_queries):
    room, (host, friend) = friends_match()
    match_id = room["match"]["id"]
    presence.touch(match_id=match_id, player_id=friend.player.pk)
    with django_assert_num_queries(1):
        presence.touch(match_id=match_id, player_id=friend.player.pk)


def test_a_long_poll_counts_as_presence():
    room, (host, friend) = friends_match(presence_timeout=20)
    match_id = room["match"]["id"]
    old = timezone.now() - timedelta(seconds=30)
    Presence.objects.filter(match_id=match_id).update(last_seen=old)
    seq = Match.objects.get(pk=match_id).seq
    friend.get(f"/api/v1/matches/{match_id}", {"after": seq - 1, "wait": 5})
    assert Presence.objects.get(match_id=match_id, seat=1).last_seen > old


@pytest.mark.django_db(transaction=True)
def test_a_player_in_a_long_poll_longer_than_the_presence_timeout_stays_connected():
    room, (host, friend) = friends_match(presence_timeout=2)
    match_id = room["match"]["id"]
    seq = Match.objects.get(pk=match_id).seq
    done: list[int] = []

    def poll() -> None:
        try:
            done.append(friend.get(f"/api/v1/matches/{match_id}", {"after": seq, "wait": 3}).status_code)
        finally:
            connections.close_all()

    thread = threading.Thread(target=poll)
    thread.start()
    time.sleep(0.5)
    presence.sweep(now=timezone.now() + timedelta(seconds=2.2))  # the friend called 2.7 s ago, and still waits
    thread.join(10)
    assert done == [200]
    assert not Event.objects.filter(match_id=match_id, type="seat_disconnected", seat=1).exists()
    # Once the poll has ended, its player counts as seen then, not until the end of the wait it asked.
    assert Presence.objects.get(match_id=match_id, seat=1).last_seen <= timezone.now()


def test_calls_on_a_match_of_one_human_against_bots_cost_no_presence_query():
    me = new_player()
    created = me.post("/api/v1/matches/", {"variant": "dos", "seats": [{"player": "me"}, {"bot": "level-1"}]}).json()
    me.get(f"/api/v1/matches/{created['id']}")  # the first call of this process asks once
    with CaptureQueriesContext(connection) as queries:
        me.get(f"/api/v1/matches/{created['id']}", {"after": 0, "wait": 1})
        me.get(f"/api/v1/matches/{created['id']}/events", {"after": 0})
    assert queries.captured_queries, "the calls ran queries of their own"
    presence_table = Presence._meta.db_table
    assert [q["sql"] for q in queries.captured_queries if presence_table in q["sql"]] == []


def test_is_tracked_only_for_a_started_match_with_more_than_one_human():
    me = new_player()
    vs_bots = me.post("/api/v1/matches/", {"variant": "dos", "seats": [{"player": "me"}, {"bot": "level-1"}]}).json()
    assert presence.is_tracked(vs_bots["id"]) is False
    host, guest = new_player("host"), new_player("guest")
    waiting = host.post("/api/v1/matches/", {"variant": "dos", "seats": [{"player": "me"}, {"open": True}]}).json()
    assert presence.is_tracked(waiting["id"]) is False, "no presence before the match starts"
    guest.post(f"/api/v1/matches/{waiting['id']}/join", {"invite_code": waiting["invite_code"]})
    assert presence.is_tracked(waiting["id"]) is True, "a waiting match is asked again once it started"
    room, _ = friends_match()
    assert presence.is_tracked(room["match"]["id"]) is True


def test_the_tracked_cache_evicts_safely_from_many_threads(monkeypatch):
    """A full cache evicts on every new match; a server's threads did it at once (KeyError, RuntimeError)."""
    row = ("active", [{"player": {"id": "a"}}, {"player": {"id": "b"}}])
    stub = mock.Mock()
    stub.objects.filter.return_value.values_list.return_value.first.return_value = row
    monkeypatch.setattr(presence, "Match", stub)
    monkeypatch.setattr(presence, "_TRACKED", {})
    monkeypatch.setattr(presence, "_TRACKED_MAX", 50)
    errors: list[BaseException] = []

    def ask(n: int) -> None:
        try:
            for i in range(2000):
                presence.is_tracked(f"{n}-{i}")
        except Exception as exc:  # noqa: BLE001 - the failure under test
            errors.append(exc)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=ask, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert not errors, errors[:3]
    assert len(presence._TRACKED) <= 50


@pytest.mark.django_db(transaction=True)
def test_a_player_who_calls_while_their_seat_is_being_disconnected_is_reconnected(monkeypatch):
    if connection.vendor != "postgresql":
        services.missing("row locks need PostgreSQL (DATABASE_URL); .ci/run sets it")
    room, (host, friend) = friends_match(presence_timeout=2)
    match_id = room["match"]["id"]
    presence.presences_create(now=timezone.now())
    Presence.objects.filter(match_id=match_id, seat=1).update(last_seen=timezone.now() - timedelta(seconds=5))
    timings = presence.timings_of

    def slowly(match_id: object) -> presence.Timings:
        time.sleep(0.4)  # the disconnection has read the seat, and not yet written
        return timings(match_id)

    monkeypatch.setattr(presence, "timings_of", slowly)

    def disconnect() -> None:
        try:
            presence.seat_disconnect(match_id=match_id, seat=1)
        finally:
            connections.close_all()

    thread = threading.Thread(target=disconnect)
    thread.start()
    time.sleep(0.2)
    presence.touch(match_id=match_id, player_id=friend.player.pk)  # the friend calls just then
    thread.join(10)
    assert Presence.objects.get(match_id=match_id, seat=1).disconnected_at is None, "back, as it called"


def test_a_move_the_turn_clock_plays_for_a_poll_bot_is_not_counted_as_its_own():
    host, friend = new_player("host"), new_player("friend")
    owner = new_player("owner")
    bot = owner.post("/api/v1/bots/", {"name": "slowpoke", "delivery": "poll", "timeout_ms": 10_000}).json()
    room = host.post("/api/v1/rooms/", {"variant": "clasico", "table_options": {"turn_seconds": 5}}).json()
    for guest in (friend, Api(bot["token"])):
        guest.post("/api/v1/rooms/join", {"code": room["code"]})
    match_id = host.post(f"/api/v1/rooms/{room['id']}/start").json()["match"]["id"]
    for _ in range(40):  # the humans play (the level-2 bot in process) until the poll bot is to act
        match = Match.objects.get(pk=match_id)
        if match.seating[match.turn]["player"] and match.seating[match.turn]["player"]["id"] == bot["id"]:
            break
        api = next(a for a in (host, friend) if match.seating[match.turn]["player"]["id"] == str(a.player.pk))
        view = api.get(f"/api/v1/matches/{match_id}").json()
        api.post(f"/api/v1/matches/{match_id}/actions", view["legal_actions"][0])
    else:
        raise AssertionError("the poll bot never got a turn")
    with TestCase.captureOnCommitCallbacks(execute=True):
        assert clock.turn_clock_expire(match_id=match_id, seq=match.seq, now=timezone.now() + timedelta(seconds=6))
    assert Match.objects.get(pk=match_id).seq > match.seq, "the clock played for the bot"
    assert not BotCall.objects.filter(bot_id=bot["id"], outcome="ok").exists(), "not the bot's own move"



def test_under_asgi_a_match_this_process_knows_costs_its_calls_no_thread_for_presence(monkeypatch):
    """The middleware's coroutine sends to a thread only what must read: a known match is looked up in place."""
    import asyncio

    from games.turns import middleware

    monkeypatch.setattr(presence, "_TRACKED", {"m-known": frozenset()})
    sent_to_threads: list[object] = []

    def in_thread(function):
        sent_to_threads.append(function)

        async def run(*args, **kwargs):
            return frozenset()  # nobody tracked: one human against bots (M3)

        return run

    async def answered(request):
        return "answer"

    monkeypatch.setattr(middleware, "in_thread", in_thread)
    presence_middleware = middleware.PresenceMiddleware(answered)
    for match_id in ("m-known", "m-new"):
        monkeypatch.setattr(middleware, "MATCH_PATH", mock.Mock(match=lambda path, m=match_id: {"match_id": m}))
        assert asyncio.run(presence_middleware(mock.Mock(path="/api/v1/matches/…"))) == "answer"
    assert sent_to_threads == [presence.tracked_players]  # only the match it did not know: read once, in a thread
