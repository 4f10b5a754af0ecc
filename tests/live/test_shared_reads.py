"""The subscribers of a match woken by the same news share one read of its new events (games/live/stream.py
``events_read``, games/matches/kept.py ``shared``): one statement for the status and the events, read once
per process until news of the match comes, never a read that news overtook, each subscriber's events
still redacted for its own seat."""

from __future__ import annotations

import json
import uuid
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.live import channels as live
from games.live.stream import BATCH, _reader, events_read
from games.matches import kept
from games.matches.models import Event, Match
from games.matches.selectors import events_after
from tests import services
from tests.games.helpers import against_a_bot, human_table
from tests.services import until

pytestmark = pytest.mark.django_db


def _queries(call: Any) -> tuple[Any, int]:
    with CaptureQueriesContext(connection) as queries:
        value = call()
    return value, len(queries.captured_queries)


def test_the_status_and_the_events_after_a_seq_come_in_one_statement() -> None:
    _, url, view = against_a_bot("shared", 5)
    match_id = url.rsplit("/", 1)[1]
    logged = list(Event.objects.filter(match_id=match_id).order_by("seq"))
    assert len(logged) >= 2 and view["seq"] == logged[-1].seq
    (status, rows, seq, turn), count = _queries(lambda: events_after(match_id=match_id, after=1, limit=BATCH))
    match = Match.objects.get(pk=match_id)
    assert count == 1 and (status, seq, turn) == ("active", match.seq, match.turn) == ("active", view["seq"], 0)
    assert [(r.pk, r.seq, r.type, r.seat, r.data, r.created_at) for r in rows] == [
        (r.pk, r.seq, r.type, r.seat, r.data, r.created_at) for r in logged[1:]
    ]
    assert [r.seq for r in events_after(match_id=match_id, after=0, limit=1)[1]] == [1]
    assert events_after(match_id=match_id, after=view["seq"], limit=BATCH) == ("active", [], view["seq"], 0)
    assert events_after(match_id=uuid.uuid4(), after=0, limit=BATCH) == (None, [], None, None)


def test_subscribers_woken_by_the_same_news_share_one_read_until_news_of_the_match(listening: Any) -> None:
    _, url, view = against_a_bot("shared", 5)
    match_id = url.rsplit("/", 1)[1]
    # The setup's own news heard first: heard during the first read, it would keep that read from being shared.
    until(lambda: kept._announced.get(match_id) == view["seq"], "the setup's news to be heard")
    first, count = _queries(lambda: events_read(uuid.UUID(match_id), 0))
    assert count == 1 and first.events[-1].seq == view["seq"]
    again, count = _queries(lambda: events_read(uuid.UUID(match_id), 0))
    assert count == 0 and again is first, "the second subscriber takes the first one's read"
    assert _queries(lambda: events_read(uuid.UUID(match_id), 1))[1] == 1, "another seq is another read"
    other = live.RedisBroker(services.redis_url())  # news of the match, from another process
    other.publish(live.match_channel(match_id), data=str(view["seq"] + 1).encode())
    until(lambda: _queries(lambda: events_read(uuid.UUID(match_id), 0))[1] == 1, "the news to drop the read")


def test_a_read_that_news_overtook_is_not_shared(listening: Any) -> None:
    reads: list[int] = []

    def read() -> int:
        reads.append(1)
        if len(reads) == 1:
            kept.heard("m", 7)  # news of the match comes while the first read runs
        return len(reads)

    assert [kept.shared("m", 0, read) for _ in range(3)] == [1, 2, 2]
    kept.forget_all()  # Redis lost: what was shared is not
    assert kept.shared("m", 0, read) == 3


def test_without_a_listener_every_subscriber_reads(settings: Any) -> None:
    settings.LIVE_UPDATES_URL = ""  # in process: what other processes write is not heard
    _, url, _ = against_a_bot("shared", 5)
    match_id = uuid.UUID(url.rsplit("/", 1)[1])
    assert [_queries(lambda: events_read(match_id, 0))[1] for _ in range(2)] == [1, 1]


def test_each_seat_gets_its_own_cards_from_a_shared_read(listening: Any) -> None:
    table = human_table("dos", {}, seed=11)
    match_id = uuid.UUID(table.match_id)
    players = [api.player.pk for api in table.seats]
    texts: list[Any] = []

    def both_seats_read_once() -> bool:  # (the news of the seats' joins may still be on their way)
        kept.forget_all()
        with CaptureQueriesContext(connection) as queries:
            texts[:] = [_reader(match_id, seat, players[seat], None)(0)[0] for seat in (0, 1)]
        return sum('"games_event"' in q["sql"] for q in queries.captured_queries) == 1

    until(both_seats_read_once, "one read of the events for both seats")
    kept.forget_all()
    assert texts == [_reader(match_id, seat, players[seat], None)(0)[0] for seat in (0, 1)], "as if each read"
    dealt = Event.objects.get(match_id=match_id, type="hand_started").data["hands"]
    for seat, text in enumerate(texts):
        started = next(json.loads(t.split("data: ", 1)[1]) for _, t in text if "event: hand_started" in t)
        assert started["data"]["my_hand"] == dealt[seat] and "hands" not in started["data"]
        assert not set(dealt[1 - seat]) & set(json.dumps(started["data"]).split('"')), "no card of the other seat"
