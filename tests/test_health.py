"""GET /healthz (the process answers) and GET /readyz (database and broker reachable)."""

import socket
import time
import uuid

import pytest
from django.conf import settings
from django.db import OperationalError

from tests import services


def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.mark.django_db
def test_healthz_answers_ok_without_touching_the_database(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/healthz")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"status": "ok"}


def test_healthz_is_get_only(client):
    assert client.post("/healthz").status_code == 405


@pytest.mark.django_db
def test_readyz_is_ready_without_a_broker(client, settings):
    settings.CELERY_BROKER_URL = None
    settings.LIVE_UPDATES_URL = ""
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "checks": {"database": "ok", "cache": "ok", "broker": "not configured", "live_updates": "not configured"},
    }


@pytest.mark.django_db
def test_readyz_checks_the_configured_broker(client):
    if not settings.CELERY_BROKER_URL:
        services.missing("NO BROKER CONFIGURED: set CELERY_BROKER_URL to check /readyz against it.")
    response = client.get("/readyz")
    assert response.status_code == 200, response.json()
    assert response.json()["checks"] == {"database": "ok", "cache": "ok", "broker": "ok", "live_updates": "ok"}


@pytest.mark.django_db
def test_readyz_is_503_when_the_broker_is_unreachable(client, settings, caplog, monkeypatch):
    """The probe must not hang: it tries the broker once (kombu would retry for ever), with
    ``HEALTH_CHECK_TIMEOUT`` on the connection and on each read (a broker that drops packets)."""
    import redis.connection

    port = closed_port()
    settings.CELERY_BROKER_URL = f"redis://127.0.0.1:{port}/0"
    settings.HEALTH_CHECK_TIMEOUT = 0.5
    attempts: list[tuple[float | None, float | None]] = []
    connect = redis.connection.Connection._connect

    def spy(self: redis.connection.Connection) -> object:
        if self.port == port:
            if attempts:  # not an Exception: the probe cannot take it for the broker's error
                pytest.fail("the probe tried the broker again: it would hang retrying", pytrace=False)
            attempts.append((self.socket_connect_timeout, self.socket_timeout))
        return connect(self)

    monkeypatch.setattr(redis.connection.Connection, "_connect", spy)
    response = client.get("/readyz")
    assert attempts == [(0.5, 0.5)], "one attempt, its connection and reads bounded by HEALTH_CHECK_TIMEOUT"
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["checks"]["database"] == "ok"
    assert body["checks"]["broker"] == "unreachable" and body["reason"] == "broker unreachable"
    assert str(port) not in response.content.decode(), "the public probe names no host or port"
    assert any(str(port) in r.getMessage() for r in caplog.records), "the log says why"


@pytest.mark.parametrize(
    "target, error, check",
    [
        ("django.db.backends.utils.CursorWrapper.execute", OperationalError("connection refused"), "database"),
        # The rate limits count in the cache: without it every API call fails, so the service is not ready.
        ("django.core.cache.cache.set", ConnectionError("Error 111 connecting to 10.0.0.7:6379. Connection refused."),
         "cache"),
    ],
    ids=["database", "cache"],
)  # fmt: skip
@pytest.mark.django_db
def test_readyz_is_503_when_the_database_or_the_cache_fails(client, monkeypatch, target, error, check):
    def refuse(*args, **kwargs):
        raise error

    monkeypatch.setattr(target, refuse)
    response = client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["checks"][check] == "unreachable" and body["reason"] == f"{check} unreachable"
    assert str(error) not in response.content.decode() and "10.0.0.7" not in response.content.decode()


@pytest.mark.django_db
def test_readyz_is_503_when_the_live_updates_redis_is_unreachable(client, settings):
    """Long polls and streams wait on it: a service whose waits cannot be woken is not ready."""
    settings.LIVE_UPDATES_URL = f"redis://127.0.0.1:{closed_port()}/0"
    settings.HEALTH_CHECK_TIMEOUT = 0.5
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["live_updates"] == "unreachable"


def test_the_throttles_let_requests_through_while_their_cache_is_away(client, settings, monkeypatch):
    """A Redis cache that is away (a port nothing listens on): the API answers, and the log says why."""
    from unittest import mock

    from tests.faults.services import free_port
    from tute_api import throttling

    monkeypatch.setattr(throttling, "_last_outage_log", -throttling.OUTAGE_LOG_SECONDS - 1e9)
    warning = mock.Mock()
    monkeypatch.setattr(throttling.logger, "warning", warning)
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"anon": "5/min", "player": "5/s"}}
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                   "LOCATION": f"redis://127.0.0.1:{free_port()}/0",
                                   "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1}}}  # fmt: skip
    for _ in range(7):  # past the limit: it is not counted
        assert client.get("/api/v1/variants/").status_code == 200
    assert "Rate limits off" in warning.call_args.args[0]


def test_a_request_counts_against_its_limit_with_one_cache_call_once_its_window_has_begun(client, settings):
    from unittest import mock

    from django.core.cache import cache

    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"anon": "3/h", "player": None}}
    cache.clear()
    with (
        mock.patch.object(cache, "add", wraps=cache.add) as add,
        mock.patch.object(cache, "incr", wraps=cache.incr) as incr,
    ):
        answers = [client.get("/api/v1/variants/").status_code for _ in range(4)]
    assert answers == [200, 200, 200, 429]
    assert add.call_count == 1 and incr.call_count == 4  # the window's first request alone adds its key


def test_in_redis_a_request_counts_against_its_limit_in_one_round_trip(client, settings):
    """Django's Redis ``incr`` is two round trips (``EXISTS``, then ``INCR``), and the window's first request
    made three: every request of a server with ``CACHE_URL=redis://…`` now makes one, and the count is the
    cache's (``cache.get`` reads it)."""
    from unittest import mock

    from django.core.cache import caches
    from redis.client import Pipeline, Redis

    from tests import services

    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"anon": "3/h", "player": None}}
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                   "LOCATION": services.redis_url().rsplit("/", 1)[0] + "/9",
                                   "KEY_PREFIX": f"test-{uuid.uuid4().hex}"}}  # fmt: skip
    with (
        mock.patch.object(Redis, "execute_command", autospec=True, side_effect=Redis.execute_command) as single,
        mock.patch.object(Pipeline, "execute", autospec=True, side_effect=Pipeline.execute) as pipelined,
    ):
        answers = [client.get("/api/v1/variants/").status_code for _ in range(4)]
    assert answers == [200, 200, 200, 429]
    assert (single.call_count, pipelined.call_count) == (0, 4)  # one round trip a request, none alone
    window = int(time.time() // 3600) * 3600
    assert caches["default"].get(f"throttle:anon:127.0.0.1:{window}") == 4
