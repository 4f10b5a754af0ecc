"""Live updates: a long poll and a stream are woken by an event; SSE resumes from Last-Event-ID.

``waits`` (tests/waits.py) records each wait on a subscription and whether news or the time ended it."""

from __future__ import annotations

import threading

import pytest
from django.db import connections
from django.test import override_settings

from games.matches.models import Event
from tests.games.helpers import human_table, new_player
from tests.waits import Waits

pytestmark = pytest.mark.django_db(transaction=True)


def parse_sse(text: str) -> list[dict]:
    events = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if line and not line.startswith(":"))
        if "id" in fields:
            events.append(fields)
    return events


def read_stream(api, url: str, **headers: str) -> tuple[int, list[dict], str]:
    response = api.client.get(url, headers=headers)
    if response.status_code != 200 or not response.streaming:
        return response.status_code, [], ""
    assert response["Content-Type"].startswith("text/event-stream")
    text = b"".join(response.streaming_content).decode()
    return 200, parse_sse(text), text


def test_a_long_poll_of_events_is_woken_by_an_event(waits: Waits):
    table = human_table("dos", {}, seed=2)
    turn = table.view(0)["hand"]["turn"]
    view = table.view(turn)
    waiter = table.seats[1 - turn]
    woke: list[list[dict]] = []

    def poll() -> None:
        try:
            woke.append(waiter.get(table.url("/events"), {"after": view["seq"], "wait": 20}).json())
        finally:
            connections.close_all()

    thread = threading.Thread(target=poll)
    thread.start()
    assert waits.begun.wait(10), "the long poll is waiting"
    assert table.seats[turn].post(table.url("/actions"), view["legal_actions"][0]).status_code == 200
    thread.join(25)
    assert waits == [(20, True)], "one wait, ended by the news of the card played"
    (events,) = woke
    assert events[0]["type"] == "card_played" and events[0]["seq"] == view["seq"] + 1


@override_settings(STREAM_MAX_SECONDS=1.5, STREAM_KEEPALIVE_SECONDS=0.5)
def test_sse_resumes_from_last_event_id_without_losing_or_repeating_an_event():
    table = human_table("dos", {}, seed=3)
    url = table.url("/stream")
    viewer = table.seats[0]
    status, first, text = read_stream(viewer, url)
    assert status == 200 and ": keep-alive" in text, "a connection lives its lifetime, with keep-alives"
    assert [int(e["id"]) for e in first] == list(range(1, len(first) + 1))
    hand = next(e for e in first if e["event"] == "hand_started")
    assert "deck" not in hand["data"] and '"hands"' not in hand["data"], "every event is redacted for the viewer"
    for _ in range(3):  # the match moves on while the viewer is away
        turn = table.view(0)["hand"]["turn"]
        table.seats[turn].post(table.url("/actions"), table.view(turn)["legal_actions"][0])
    status, second, _ = read_stream(viewer, url, **{"Last-Event-ID": first[-1]["id"]})
    seqs = [int(e["id"]) for e in first + second]
    assert seqs == list(range(1, Event.objects.filter(match_id=table.match_id).count() + 1))
    assert [e["event"] for e in second].count("card_played") == 3, "the three cards played while away"


def test_a_last_event_id_that_is_no_whole_number_is_refused_not_taken_as_none():
    creator = new_player()
    created = creator.post("/api/v1/matches/", {"variant": "dos", "seats": [{"player": "me"}, {"open": True}]})
    url = f"/api/v1/matches/{created.json()['id']}"
    assert creator.post(f"{url}/cancel").status_code == 200
    for odd in ("\u00b2", "1" * 5000, "x", "true"):
        for path in (f"{url}/stream", "/api/v1/me/notices/stream"):
            answer = creator.client.get(path, headers={"Last-Event-ID": odd, "Accept": "text/event-stream"})
            assert answer.status_code == 400, (path, odd)
            assert answer.json()["code"] == "invalid" and "Last-Event-ID" in answer.json()["errors"], answer.json()
    status, events, _ = read_stream(creator, f"{url}/stream", **{"Last-Event-ID": "0"})
    assert status == 200 and [e["event"] for e in events] == ["match_cancelled"]
    assert read_stream(creator, f"{url}/stream", **{"Last-Event-ID": "1"})[0] == 204
    assert read_stream(creator, f"{url}/stream?after=0", **{"Last-Event-ID": "x"})[0] == 400  # with after too
    assert read_stream(creator, f"{url}/stream?after=0", **{"Last-Event-ID": "5"})[0] == 200  # after decides


@override_settings(STREAM_MAX_SECONDS=5, STREAM_KEEPALIVE_SECONDS=5)
def test_sse_sends_an_event_as_it_happens(waits: Waits):
    """The stream sends the event when news of it wakes its wait, not when the wait runs out (it
    would read the event then too)."""
    table = human_table("dos", {}, seed=3)
    viewer = table.seats[0]
    seq = table.view(0)["seq"]
    got: list[list[dict]] = []

    def listen() -> None:
        try:
            response = viewer.client.get(table.url("/stream"), headers={"Last-Event-ID": str(seq)})
            for chunk in response.streaming_content:
                if b"id: " in chunk:
                    got.append(parse_sse(chunk.decode()))
                    break
            response.close()
        finally:
            connections.close_all()

    thread = threading.Thread(target=listen)
    thread.start()
    assert waits.begun.wait(10), "the stream is waiting"
    turn = table.view(0)["hand"]["turn"]
    assert table.seats[turn].post(table.url("/actions"), table.view(turn)["legal_actions"][0]).status_code == 200
    thread.join(10)
    assert waits == [(pytest.approx(5, abs=1), True)], "one wait, ended by the news of the card played"
    (events,) = got
    assert int(events[0]["id"]) == seq + 1


def test_the_stream_needs_a_token_and_answers_with_a_problem():
    table = human_table("dos", {}, seed=3)
    from rest_framework.test import APIClient

    response = APIClient().get(table.url("/stream"), HTTP_ACCEPT="text/event-stream")
    assert response.status_code == 401
    assert response["Content-Type"] == "application/problem+json"
    assert response.json()["code"] == "not_authenticated"


@override_settings(STREAM_MAX_SECONDS=0.5, STREAM_KEEPALIVE_SECONDS=0.2)
def test_the_stream_refuses_an_accept_that_admits_no_event_stream():
    table = human_table("dos", {}, seed=3)
    viewer, url = table.seats[0], table.url("/stream")
    refused = viewer.client.get(url, headers={"Accept": "application/json"})
    assert refused.status_code == 406 and not refused.streaming
    assert refused["Content-Type"] == "application/problem+json"
    assert refused.json()["code"] == "not_acceptable"
    for accept in ("text/event-stream", "text/*", "application/json;q=0.5, text/event-stream"):
        status, events, _ = read_stream(viewer, url, Accept=accept)
        assert status == 200 and events, accept


@override_settings(STREAM_MAX_SECONDS=1.0, STREAM_KEEPALIVE_SECONDS=0.2)
def test_an_idle_stream_reads_the_log_once_and_its_keep_alives_read_nothing():
    """5,000 idle connections each woke every keep-alive to read the log again: a keep-alive now only
    owes the viewer's sign of life, and a match against bots (M3) counts none."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    me = new_player()
    created = me.post("/api/v1/matches/", {"variant": "dos", "seats": [{"player": "me"}, {"bot": "level-1"}]}).json()
    url = f"/api/v1/matches/{created['id']}/stream?after={created['seq']}"
    with CaptureQueriesContext(connection) as queries:
        status, events, text = read_stream(me, url)
    assert status == 200 and text.count(": keep-alive") >= 3
    reads = [q["sql"] for q in queries.captured_queries if 'FROM "games_event"' in q["sql"]]
    assert len(reads) <= 1, reads  # the first read (nothing after the seq: the bots wait for me)
    assert not [q for q in queries.captured_queries if "rooms_presence" in q["sql"]]  # M3: no presence


@override_settings(STREAM_MAX_SECONDS=1.0, STREAM_KEEPALIVE_SECONDS=0.6, PRESENCE_TIMEOUT=0.4)
def test_a_stream_wakes_within_the_presence_timeout_only_where_it_keeps_a_seat_present(waits: Waits):
    """Between humans a seat's stream keeps it connected (M2), so it wakes within half the presence
    timeout; against bots (M3) nothing counts its presence, and it wakes only for the keep-alive a proxy
    needs: 5,000 idle connections woke a third more often than they had to (docs/performance.md)."""
    table = human_table("dos", {}, seed=2)
    assert read_stream(table.seats[0], table.url(f"/stream?after={table.view(0)['seq']}"))[0] == 200
    between_humans = [timeout for timeout, _ in waits]
    waits.clear()
    me = new_player()
    created = me.post("/api/v1/matches/", {"variant": "dos", "seats": [{"player": "me"}, {"bot": "level-1"}]}).json()
    assert read_stream(me, f"/api/v1/matches/{created['id']}/stream?after={created['seq']}")[0] == 200
    against_bots = [timeout for timeout, _ in waits]
    assert between_humans[0] == pytest.approx(0.2)
    assert against_bots[0] == pytest.approx(0.6)
