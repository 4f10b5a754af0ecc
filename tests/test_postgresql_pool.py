"""tute_api.postgresql: the pool checks a connection (a round trip) only once it has not been handed out
for a second, and otherwise it is Django's PostgreSQL backend and pool."""

from __future__ import annotations

import psycopg
import pytest
from django.conf import settings
from django.db.backends.base.base import NO_DB_ALIAS
from psycopg_pool import ConnectionPool

from tests import services
from tests.test_settings import print_setting
from tute_api.postgresql import base


def test_a_pool_of_postgresql_connections_is_this_backends() -> None:
    config = {"DATABASE_URL": "postgres://tute@db.example:5432/tute", "DATABASE_POOL_SIZE": "4"}
    assert print_setting("settings.DATABASES['default']['ENGINE']", **config) == "'tute_api.postgresql'"
    assert print_setting("settings.DATABASES['default']['OPTIONS']['pool']['max_size']", **config) == "4"
    del config["DATABASE_POOL_SIZE"]  # no pool: the same backend (tests/test_postgresql_begin.py), without one
    assert print_setting("settings.DATABASES['default']['OPTIONS'].get('pool')", **config) == "None"


@pytest.fixture
def pooled() -> base.DatabaseWrapper:
    if not settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
        services.missing("the pool is PostgreSQL's (DATABASE_URL)")
    options = {**settings.DATABASES["default"].get("OPTIONS", {}), "pool": {"min_size": 1, "max_size": 2}}
    wrapper = base.DatabaseWrapper({**settings.DATABASES["default"], "OPTIONS": options, "CONN_MAX_AGE": 0,
                                    "CONN_HEALTH_CHECKS": True}, alias="pool_check_test")  # fmt: skip
    yield wrapper
    wrapper.close()  # the connection a test's cursor took, given back
    wrapper.close_pool()


def test_a_connection_is_checked_once_it_has_not_been_handed_out_for_the_window(
    pooled: base.DatabaseWrapper, monkeypatch: pytest.MonkeyPatch
) -> None:
    checked: list[object] = []
    real_check = ConnectionPool.check_connection
    monkeypatch.setattr(ConnectionPool, "check_connection", staticmethod(lambda c: checked.append(c) or real_check(c)))
    clock = [1000.0]
    monkeypatch.setattr(base.time, "monotonic", lambda: clock[0])
    pool = pooled.pool
    pool.open(wait=True)

    def request() -> None:
        with pool.connection() as connection:
            assert connection.execute("SELECT 1").fetchone() == (1,)

    request()
    assert len(checked) == 1, "a connection never handed out is checked"
    for _ in range(3):
        clock[0] += base.CHECK_AFTER_IDLE / 2
        request()
    assert len(checked) == 1, "handed out again within the window: no round trip for a check"
    clock[0] += base.CHECK_AFTER_IDLE
    request()
    assert len(checked) == 2, "rested for the window: checked again"


def test_a_broken_connection_that_rested_is_replaced_not_handed_out(
    pooled: base.DatabaseWrapper, monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = [1000.0]
    monkeypatch.setattr(base.time, "monotonic", lambda: clock[0])
    pool = pooled.pool
    pool.open(wait=True)
    with pool.connection() as connection:
        pid = connection.info.backend_pid
    with psycopg.connect(**pooled.get_connection_params(), autocommit=True) as admin:  # as a restart would
        admin.execute("SELECT pg_terminate_backend(%s)", [pid])
    clock[0] += base.CHECK_AFTER_IDLE
    with pool.connection() as connection:
        assert connection.execute("SELECT 1").fetchone() == (1,) and connection.info.backend_pid != pid


def test_the_connection_without_a_database_has_no_pool(pooled: base.DatabaseWrapper) -> None:
    """Django's connection to no database in particular (creating the test database) is never pooled."""
    wrapper = base.DatabaseWrapper(pooled.settings_dict, alias=NO_DB_ALIAS)
    assert wrapper.pool is None and NO_DB_ALIAS not in wrapper._connection_pools


TIMESTAMPS = [
    "2026-12-04 19:08:32.123456+00",
    "2026-03-29 02:30:00+02",  # an offset, a daylight-saving date
    "1999-12-31 23:59:59.999999-11:30",
    "0001-01-01 00:00:00+00",
    "9999-12-31 23:59:59.999999+00",
]


@pytest.mark.django_db
def test_timestamps_are_read_by_psycopg_s_loader_as_django_s_reads_them(pooled: base.DatabaseWrapper) -> None:
    """Django's own loader parses each value in Python; on a connection in UTC psycopg's (C) loader
    gives the same values, in the same time zone, and Django registers no loader of its own per cursor."""
    import datetime
    import types

    from django.db.backends.postgresql.psycopg_any import register_tzloader

    query = "SELECT " + ", ".join(f"'{t}'::timestamptz" for t in TIMESTAMPS)
    with pooled.cursor() as cursor:
        cursor.execute(query)
        ours = cursor.fetchone()
        loader = cursor.cursor.adapters.get_loader(base._TIMESTAMPTZ, psycopg.pq.Format.TEXT)
    assert loader is base.UtcTimestamptzLoader, "Django replaced the loader for this cursor"
    with psycopg.connect(**{**pooled.get_connection_params(), "context": None}, autocommit=True) as plain:
        plain.execute("SET TIME ZONE 'UTC'")
        register_tzloader(datetime.UTC, plain)  # Django's own loader, as without this backend
        django_s = plain.execute(query).fetchone()
    assert ours == django_s and all(value.tzinfo is datetime.UTC for value in ours)
    assert [value.isoformat() for value in ours] == [value.isoformat() for value in django_s]
    if psycopg.pq.__impl__ == "binary":  # the C loader's own method loads each value, not Python code
        with pooled.cursor() as cursor:
            cursor.execute("SELECT now()")
            used = cursor.cursor._tx.get_loader(base._TIMESTAMPTZ, psycopg.pq.Format.TEXT)
        assert not isinstance(getattr(used.load, "__func__", None), types.FunctionType), used.load


@pytest.mark.django_db
def test_a_connection_given_back_inside_a_transaction_begins_none_for_its_next_holder(
    pooled: base.DatabaseWrapper,
) -> None:
    """Closed before its transaction ran a statement (its BEGIN still pending): the pool's next holder, or
    its check, must not open that transaction."""
    pooled.set_autocommit(False)
    pooled.close()
    with pooled.pool.connection() as connection:
        assert connection.execute("SELECT 1").fetchone() == (1,)
        assert connection.pgconn.transaction_status == psycopg.pq.TransactionStatus.IDLE
