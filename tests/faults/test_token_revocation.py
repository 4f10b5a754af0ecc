"""A token kept by two server processes (players/token_cache.py) stops working in both once it is rotated,
Redis there or away.

A real gunicorn of two processes on a PostgreSQL and a Redis of its own; each request on a connection
of its own, so that both processes answer some. The processes keep a token's player for a minute here:
without the revocation, the process that did not rotate the token would take the old one for that long.
"""

from __future__ import annotations

import time

import pytest

from tests.faults.services import Postgres, Redis
from tests.faults.stack import Client, Stack

REQUESTS = 40  # each on its own connection: both processes answer some
#: A listener that lost Redis tries again after 0.5 s, then 1, 2, 4 s…: after a short outage, within this.
LISTENING_AGAIN_SECONDS = 8.5


@pytest.fixture
def stack(own_postgres: Postgres, own_redis: Redis):
    stack = Stack(own_postgres, live_updates=own_redis.url_for(3), extra_env={"TOKEN_CACHE_SECONDS": "60"})
    stack.start()
    yield stack
    stack.stop()


def _statuses(client: Client) -> set[int]:
    return {client.call("GET", "/api/v1/players/me").status for _ in range(REQUESTS)}


def _signed_up(stack: Stack, username: str) -> Client:
    client = stack.client()
    created = client.call("POST", "/api/v1/players/", {"username": username})
    assert created.status == 201, created
    client.token = created.body["token"]
    return client


def test_a_rotated_token_stops_working_in_every_process(stack: Stack) -> None:
    client = _signed_up(stack, "ana")
    old = client.token
    time.sleep(1.0)  # both processes listen to Redis (their first requests start the listener)
    assert _statuses(client) == {200}  # kept by both
    rotated = client.call("POST", "/api/v1/players/me/token")
    assert rotated.status == 201, rotated
    time.sleep(0.05)  # the other process reads the revocation from Redis (milliseconds)
    client.token = old
    assert _statuses(client) == {401}
    client.token = rotated.body["token"]
    assert _statuses(client) == {200}


def test_a_token_rotated_while_redis_is_away_stops_working_in_every_process(stack: Stack, own_redis: Redis) -> None:
    client = _signed_up(stack, "bea")
    old = client.token
    time.sleep(1.0)
    assert _statuses(client) == {200}
    own_redis.stop()  # the revocation cannot be published: the processes forget every token, and keep none
    time.sleep(1.0)
    rotated = client.call("POST", "/api/v1/players/me/token")
    assert rotated.status == 201, rotated
    client.token = old
    assert _statuses(client) == {401}
    own_redis.start()
    time.sleep(LISTENING_AGAIN_SECONDS)  # they listen again: what they kept before the outage is gone
    assert _statuses(client) == {401}
    client.token = rotated.body["token"]
    assert _statuses(client) == {200}
    assert "Could not publish revoked tokens" in stack.log("gunicorn", whole=True)
