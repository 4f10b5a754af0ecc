"""Redis stopped and started during a match between two humans (docs/reliability.md, "Redis outages").

A real gunicorn on a PostgreSQL of its own, with ``CACHE_URL`` (the rate limits) and ``LIVE_UPDATES_URL``
(long polls, streams) on a Redis of its own. While Redis is away the match goes on: the rate limits let
requests through, the long polls read the database every second instead of hearing news, nothing answers
500, ``/readyz`` says which dependencies are away; no acknowledged action is lost from a gapless log.
"""

from __future__ import annotations

import threading
import time

import pytest

from tests.faults.play import Player, assert_log_gapless_and_acknowledged
from tests.faults.services import Postgres, Redis
from tests.faults.stack import Answer, Stack

OUTAGE_SECONDS = 8.0
POLL_BOUND = 3.0  # a long poll hears a move within this while Redis is away (it reads every second)


@pytest.fixture
def stack(own_postgres: Postgres, own_redis: Redis):
    stack = Stack(own_postgres, cache=own_redis.url_for(2), live_updates=own_redis.url_for(3))
    stack.start()
    yield stack
    stack.stop()


def move(mover: Player, watcher: Player, match_id: str) -> tuple[Answer, Answer]:
    """The watcher long-polls for the mover's move; the mover moves. Both answers."""
    before = mover.view(match_id).body
    heard: list[Answer] = []
    poll = threading.Thread(target=lambda: heard.append(watcher.view(match_id, after=before["seq"], wait=10)))
    poll.start()
    time.sleep(0.3)  # the poll is waiting
    acted = mover.act(match_id, before)
    poll.join(timeout=20)
    return acted, heard[0]


def test_two_humans_play_on_while_redis_is_away(stack: Stack, own_redis: Redis):
    ana, bea = Player(stack.client(), "ana"), Player(stack.client(), "bea")
    ana.register()
    bea.register()
    created = ana.call("POST", "/api/v1/matches/", {"variant": "dos", "seats": [{"player": "me"}, {"open": True}]})
    assert created.status == 201, created
    match_id = created.body["id"]
    joined = bea.call("POST", f"/api/v1/matches/{match_id}/join", {"invite_code": created.body["invite_code"]})
    assert joined.status == 200, joined

    def play(moves: int, polls: list[float]) -> None:
        for _ in range(moves):
            answer = ana.view(match_id)
            assert answer.status == 200, answer
            view = answer.body
            if view["status"] != "active":
                return
            mover, watcher = (ana, bea) if view["legal_actions"] else (bea, ana)
            acted, heard = move(mover, watcher, match_id)
            assert acted.status == 200, acted
            assert heard.status == 200 and heard.body["seq"] >= acted.body["seq"], heard
            polls.append(heard.seconds)

    play(3, [])
    own_redis.stop()
    stopped = time.monotonic()
    ready = stack.client().call("GET", "/readyz")
    assert ready.status == 503 and ready.seconds < 2.0, ready
    assert ready.body["checks"]["cache"] == "unreachable" and ready.body["checks"]["live_updates"] == "unreachable"
    assert ready.body["checks"]["database"] == "ok"
    during: list[float] = []
    while time.monotonic() - stopped < OUTAGE_SECONDS:
        play(1, during)
    own_redis.start()
    play(4, [])
    ready = stack.client().call("GET", "/readyz")
    assert ready.status == 200, ready

    assert during, "no move was made while Redis was away"
    assert max(during) < POLL_BOUND, during
    answers = ana.answers + bea.answers
    assert not [a for a in answers if a.status >= 500], [a for a in answers if a.status >= 500]
    assert_log_gapless_and_acknowledged(ana, match_id, bea)
    print(
        f"\nfigures: {len(during)} moves while Redis was away, long polls heard them in at most {max(during):.2f} s;"
        f" {len(answers)} answers, none 5xx"
    )
