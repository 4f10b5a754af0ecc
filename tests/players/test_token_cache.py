"""A token's player kept per process for a few seconds (players/token_cache.py): read once, and revoked in
every process as soon as a token is deleted."""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from games.live import channels as live
from players import token_cache
from players.models import Player, Token
from players.selectors import player_by_token
from players.tokens import token_digest
from tests import services
from tests.problems import problem
from tests.services import until

pytestmark = pytest.mark.django_db


def _signed_up(username: str) -> tuple[APIClient, str]:
    response = APIClient().post("/api/v1/players/", {"username": username}, format="json")
    assert response.status_code == 201
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {response.json()['token']}")
    return client, response.json()["token"]


def _token_reads(client: APIClient, path: str = "/api/v1/players/me") -> tuple[int, int]:
    """The status of a GET and how many of its queries read a token."""
    with CaptureQueriesContext(connection) as queries:
        status = client.get(path).status_code
    return status, sum('"players_token"' in query["sql"] for query in queries.captured_queries)


def test_a_token_is_read_once_while_its_player_is_kept(listening: live.RedisBroker) -> None:
    client, _ = _signed_up("kept")
    assert _token_reads(client) == (200, 1)
    assert _token_reads(client) == (200, 0)
    assert _token_reads(client, "/api/v1/matches/") == (200, 0)


def test_a_waiting_clients_renewal_finds_its_token_kept(
    listening: live.RedisBroker, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """By default a token is kept longer than the longest long poll: the renewal after one reads no token."""
    from games.matches.selectors import MAX_WAIT_SECONDS
    from tute_api import expiring
    from tute_api import settings as defaults

    settings.TOKEN_CACHE_SECONDS = defaults.TOKEN_CACHE_SECONDS
    client, _ = _signed_up("renewing")
    assert _token_reads(client) == (200, 1)
    # The kept entries' clock (only theirs), a long poll later:
    monkeypatch.setattr(expiring, "time", SimpleNamespace(monotonic=lambda: time.monotonic() + MAX_WAIT_SECONDS + 1))
    assert _token_reads(client) == (200, 0)


def test_without_a_listener_every_request_reads_its_token(settings: Any) -> None:
    """In process (make run), or with the listener away from Redis, no process could hear a revocation."""
    settings.TOKEN_CACHE_SECONDS = 5.0
    client, _ = _signed_up("unkept")
    for url in ("", f"redis://127.0.0.1:{services.free_port()}/0"):  # in process; a Redis that is not there
        settings.LIVE_UPDATES_URL = url
        try:
            assert _token_reads(client) == (200, 1)
            assert _token_reads(client) == (200, 1)
        finally:
            if isinstance(broker := live.broker(), live.RedisBroker):
                broker.close()  # its listener stops trying


def test_none_is_kept_when_the_cache_is_off(listening: live.RedisBroker, settings: Any) -> None:
    settings.TOKEN_CACHE_SECONDS = 0
    client, _ = _signed_up("off")
    assert [_token_reads(client) for _ in range(2)] == [(200, 1), (200, 1)]


def test_an_entry_expires(listening: live.RedisBroker, settings: Any) -> None:
    settings.TOKEN_CACHE_SECONDS = 0.2
    client, _ = _signed_up("expiring")
    assert [_token_reads(client) for _ in range(2)] == [(200, 1), (200, 0)]
    time.sleep(0.3)
    assert _token_reads(client) == (200, 1)


def test_a_rotated_token_stops_working_at_once(listening: live.RedisBroker) -> None:
    client, old = _signed_up("rotating")
    assert _token_reads(client) == (200, 1)  # kept
    new = client.post("/api/v1/players/me/token").json()["token"]
    problem(client.get("/api/v1/players/me"), 401, "authentication_failed")
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {new}")
    assert client.get("/api/v1/players/me").status_code == 200


def test_a_retired_bots_token_stops_working_at_once(listening: live.RedisBroker) -> None:
    owner, _ = _signed_up("owner")
    registered = owner.post("/api/v1/bots/", {"name": "robo", "delivery": "poll"}, format="json").json()
    bot = APIClient()
    bot.credentials(HTTP_AUTHORIZATION=f"Bearer {registered['token']}")
    assert [_token_reads(bot) for _ in range(2)] == [(200, 1), (200, 0)]
    assert owner.delete(f"/api/v1/bots/{registered['id']}").status_code == 204
    problem(bot.get("/api/v1/players/me"), 401, "authentication_failed")


def test_a_revocation_from_another_process_is_heard(listening: live.RedisBroker) -> None:
    """Another process deleted the token and published its revocation: this one forgets it."""
    client, token = _signed_up("elsewhere")
    assert [_token_reads(client) for _ in range(2)] == [(200, 1), (200, 0)]
    digest = token_digest(token)
    with connection.cursor() as cursor:  # the deletion, made elsewhere (no signal here)
        cursor.execute('DELETE FROM "players_token" WHERE "digest" = %s', [digest])
    assert _token_reads(client) == (200, 0), "kept until the revocation is heard"
    elsewhere = live.RedisBroker(services.redis_url())
    elsewhere.revoke([digest])
    until(lambda: digest not in token_cache._entries, "the revocation to be heard")
    problem(client.get("/api/v1/players/me"), 401, "authentication_failed")


def test_a_deletion_is_published_at_once_and_once_it_commits(
    listening: live.RedisBroker, monkeypatch: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """At once, for the requests in flight; once it commits, for a read made before the commit and kept."""
    published: list[list[str]] = []
    monkeypatch.setattr(listening, "revoke", published.append)
    client, token = _signed_up("published")
    with django_capture_on_commit_callbacks(execute=True):
        Token.objects.filter(digest=token_digest(token)).delete()  # as the admin, or a cascade, would
        assert published == [[token_digest(token)]]
    assert published == [[token_digest(token)]] * 2


def test_a_read_overtaken_by_a_revocation_is_not_kept(listening: live.RedisBroker) -> None:
    """The token read before its deletion committed, the answer back after the revocation was heard."""
    player = Player.objects.create(username="overtaken")

    def read(digest: str) -> Player:
        token_cache.forget([digest])  # heard while the query ran
        return player

    assert token_cache.player_by_digest("d" * 64, read) == player
    assert "d" * 64 not in token_cache._entries


def test_each_request_gets_its_own_player(listening: live.RedisBroker) -> None:
    client, token = _signed_up("own")
    first = player_by_token(token)
    assert first is not None
    first.username = "changed by one request"
    second = player_by_token(token)
    assert second is not None and second is not first
    assert second.username == "own" and second._state.adding is False and second._state.db == "default"


def test_losing_redis_forgets_every_token(listening: live.RedisBroker) -> None:
    client, token = _signed_up("lost")
    assert [_token_reads(client) for _ in range(2)] == [(200, 1), (200, 0)]
    token_cache.forget_all()  # what the listener does when it loses Redis (tests/faults: a real loss)
    assert _token_reads(client) == (200, 1)
