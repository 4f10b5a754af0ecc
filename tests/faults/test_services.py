"""The own-instance services stop, start and keep their data, on a port of their own."""

from __future__ import annotations

import psycopg
import pytest
import redis as redis_client

from tests.faults.services import Postgres, Redis, port_open


def test_postgres_stops_and_starts_with_its_data(own_postgres: Postgres) -> None:
    with psycopg.connect(own_postgres.url, autocommit=True) as conn:
        conn.execute("CREATE TABLE kept (n int)")
        conn.execute("INSERT INTO kept VALUES (7)")
    own_postgres.stop()
    assert not port_open(own_postgres.port)
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(own_postgres.url, connect_timeout=1)
    own_postgres.start()
    with psycopg.connect(own_postgres.url) as conn:
        assert conn.execute("SELECT n FROM kept").fetchall() == [(7,)]


def test_postgres_restart_closes_open_connections(own_postgres: Postgres) -> None:
    conn = psycopg.connect(own_postgres.url, autocommit=True)
    own_postgres.restart()
    with pytest.raises(psycopg.OperationalError):
        conn.execute("SELECT 1")
    own_postgres.create_database("other")
    with psycopg.connect(own_postgres.database_url("other")) as fresh:
        assert fresh.execute("SELECT 1").fetchone() == (1,)


def test_redis_stops_and_starts_on_its_port(own_redis: Redis) -> None:
    client = redis_client.Redis.from_url(own_redis.url_for(2), socket_timeout=1)
    assert client.ping()
    own_redis.stop()
    assert not port_open(own_redis.port)
    with pytest.raises(redis_client.ConnectionError):
        client.ping()
    own_redis.start()
    assert client.ping()


def test_each_instance_has_a_port_of_its_own() -> None:
    with Redis() as first, Redis() as second:
        assert first.port != second.port
        assert first.running and second.running
    assert not first.running
