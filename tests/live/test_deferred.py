"""games/live/deferred.py under the ASGI application, in process: a match's long poll subscribes before
the view's first read, so that a wait woken by news reads the match once, to learn and to answer."""

from __future__ import annotations

import asyncio
import json
from typing import Any
from uuid import UUID

import pytest
from asgiref.sync import sync_to_async
from django.db import connection
from django.http import HttpResponse
from django.test.utils import CaptureQueriesContext

from games.live import waits
from games.matches.models import Match
from tests.games.helpers import human_table
from tests.test_asgi_handler import _call
from tute_api.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)  # the views read and commit as a server does


def _counted_reads(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    reads: list[Any] = []

    class CountedMatch:  # the long poll's reads after its first
        class objects:
            @staticmethod
            def fetch(match_id: Any, **kwargs: Any) -> Match | None:
                reads.append(match_id)
                return Match.objects.fetch(match_id, **kwargs)

    monkeypatch.setattr(waits, "Match", CountedMatch)
    return reads


def test_a_match_long_poll_woken_by_a_move_answers_with_one_read_of_the_match(
    monkeypatch: pytest.MonkeyPatch, settings: Any
) -> None:
    settings.LIVE_UPDATES_URL = ""  # in process: no row is kept (tests/live/test_kept.py), the match is read
    table = human_table("dos", {"games_to_win": 1})
    url = f"/api/v1/matches/{table.match_id}"
    view = table.seats[0].get(url).json()
    mover, other = table.seats[view["hand"]["turn"]], table.seats[1 - view["hand"]["turn"]]
    reads = _counted_reads(monkeypatch)  # the long poll's own (the movers' go through Match)

    async def scenario() -> list[dict[str, Any]]:
        query = f"after={view['seq']}&wait=10".encode()
        poll = asyncio.create_task(_call(application, "GET", url, query=query, token=other.token))
        await asyncio.sleep(1)
        assert not poll.done(), "the poll answered before the move"
        mine = (await sync_to_async(mover.get)(url)).json()
        act = await sync_to_async(mover.post)(f"{url}/actions", mine["legal_actions"][0])
        assert act.status_code == 200
        await sync_to_async(lambda: connection.close())()  # the movers' thread's (the test client keeps it open)
        return await asyncio.wait_for(poll, 10)

    sent = asyncio.run(scenario())
    assert sent[0]["status"] == 200
    assert b'"seq":' + str(view["seq"] + 1).encode() in sent[1]["body"].replace(b" ", b"")
    assert reads == [UUID(table.match_id)], "one read of the match: after the news, none before it"


def test_a_wake_reads_the_match_once_whether_it_answers_or_waits_on(settings: Any) -> None:
    """The read that tells whether the match moved is the one that answers: one query, not two."""
    settings.LIVE_UPDATES_URL = ""  # in process: no row is kept (tests/live/test_kept.py), the match is read
    table = human_table("dos", {"games_to_win": 1})
    url = f"/api/v1/matches/{table.match_id}"
    view = table.seats[0].get(url).json()
    mover, other = table.seats[view["hand"]["turn"]], table.seats[1 - view["hand"]["turn"]]
    with waits.deferred():
        waiting = waits.match_long_poll(
            match_id=UUID(table.match_id), player=other.player, after=view["seq"], wait=10,
            answer=lambda membership: HttpResponse(str(membership.match.seq)),
        )  # fmt: skip
    assert isinstance(waiting, waits.WaitingResponse)
    try:
        with CaptureQueriesContext(connection) as queries:
            assert waiting.answer_if_ready() is None  # not moved: waits on
        assert len(queries) == 1, [q["sql"] for q in queries.captured_queries]
        mine = mover.get(url).json()
        assert mover.post(f"{url}/actions", mine["legal_actions"][0]).status_code == 200
        with CaptureQueriesContext(connection) as queries:
            answer = waiting.answer_if_ready()
        assert answer is not None and answer.content == str(view["seq"] + 1).encode()
        assert len(queries) == 1, [q["sql"] for q in queries.captured_queries]
    finally:
        for release in waiting.release:
            release()


def _headers(message: dict[str, Any]) -> dict[bytes, bytes]:
    return dict(message["headers"])  # as sent: lower-case names, as the WSGI bridge sends them


def test_the_answer_after_a_wait_carries_the_headers_of_an_answer_given_at_once() -> None:
    """The wait ends in the event loop, after the middleware has run on the request's way out: its
    headers (CORS, security, frame options, Vary) are the answer's, as an answer given at once has them."""
    table = human_table("dos", {"games_to_win": 1})
    url = f"/api/v1/matches/{table.match_id}"
    view = table.seats[0].get(url).json()
    mover, other = table.seats[view["hand"]["turn"]], table.seats[1 - view["hand"]["turn"]]
    origin = (b"origin", b"https://app.example")

    async def scenario() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        query = f"after={view['seq']}&wait=10".encode()
        poll = asyncio.create_task(_call(application, "GET", url, query=query, token=other.token, extra=[origin]))
        await asyncio.sleep(1)
        assert not poll.done(), "the poll answered before the move"
        mine = (await sync_to_async(mover.get)(url)).json()
        assert (await sync_to_async(mover.post)(f"{url}/actions", mine["legal_actions"][0])).status_code == 200
        await sync_to_async(lambda: connection.close())()  # the mover's thread's (the test client keeps it open)
        waited = await asyncio.wait_for(poll, 10)
        at_once = await _call(application, "GET", url, query=query, token=other.token, extra=[origin])
        return waited, at_once

    waited, at_once = asyncio.run(scenario())
    assert waited[0]["status"] == at_once[0]["status"] == 200
    assert waited[1]["body"] == at_once[1]["body"]  # the same match, seen after the move
    assert _headers(waited[0]) == _headers(at_once[0])
    assert _headers(waited[0])[b"content-length"] == str(len(waited[1]["body"])).encode()
    assert _headers(waited[0])[b"x-frame-options"] == b"DENY"


def test_a_client_that_leaves_during_the_wait_gives_its_slot_back_at_once() -> None:
    from games.live import slots

    table = human_table("dos", {"games_to_win": 1})
    url = f"/api/v1/matches/{table.match_id}"
    view = table.seats[0].get(url).json()
    other = table.seats[1 - view["hand"]["turn"]]

    async def scenario() -> list[dict[str, Any]]:
        leave = asyncio.Event()
        query = f"after={view['seq']}&wait=30".encode()
        poll = asyncio.create_task(_call(application, "GET", url, query=query, token=other.token, leave=leave))
        await asyncio.sleep(1)
        assert slots.open_connections(other.player.pk) == 1 and not poll.done()
        leave.set()
        sent = await asyncio.wait_for(poll, 5)  # not the 30 s of its wait
        assert slots.open_connections(other.player.pk) == 0
        return sent

    assert asyncio.run(scenario()) == []  # nobody to answer


@pytest.mark.parametrize("published", [False, True])
def test_a_long_poll_that_times_out_reads_the_match_again_only_if_its_channel_had_news(
    monkeypatch: pytest.MonkeyPatch, published: bool
) -> None:
    """Every change of a match publishes on its channel, and the poll subscribed before its first read:
    with nothing published, the match is as that read found it, and the answer needs no second read."""
    from games.live import channels

    table = human_table("dos", {"games_to_win": 1})
    url = f"/api/v1/matches/{table.match_id}"
    view = table.seats[0].get(url).json()
    reads = _counted_reads(monkeypatch)

    async def scenario() -> list[dict[str, Any]]:
        poll = asyncio.create_task(_call(application, "GET", url, query=f"after={view['seq']}&wait=2".encode(),
                                         token=table.seats[0].token))  # fmt: skip
        await asyncio.sleep(1)
        if published:  # news that does not move the match past `after` (a seat joined, say)
            channels.broker().publish(channels.match_channel(table.match_id))
        return await asyncio.wait_for(poll, 10)

    sent = asyncio.run(scenario())
    assert sent[0]["status"] == 200
    assert json.loads(sent[1]["body"]) == table.seats[0].get(url).json()  # as the match is
    assert reads == ([UUID(table.match_id)] * 2 if published else [])  # the wake's read, the answer's


def test_a_subscription_is_silent_until_it_hears_news_or_could_have_missed_some() -> None:
    import threading

    from games.live import channels

    async def scenario() -> None:
        lost = threading.Event()
        quiet = channels.AsyncSubscription(lost)
        assert await quiet.wait(0.01) is False and quiet.silent
        lost.set()  # Redis away at a wait: news may be missed
        await quiet.wait(0.01)
        assert not quiet.silent
        told = channels.AsyncSubscription()
        told.notify()
        assert await told.wait(1) is True and not told.silent

    asyncio.run(scenario())
