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
    del config["DATABASE_POOL_SIZE"]  # no pool: Django's own backend, as it is
    assert print_setting("settings.DATABASES['default']['ENGINE']", **config) == "'django.db.backends.postgresql'"


@pytest.fixture
def pooled() -> base.DatabaseWrapper:
    if not settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
        services.missing("the pool is PostgreSQL's (DATABASE_URL)")
    options = {**settings.DATABASES["default"].get("OPTIONS", {}), "pool": {"min_size": 1, "max_size": 2}}
    wrapper = base.DatabaseWrapper({**settings.DATABASES["default"], "OPTIONS": options, "CONN_MAX_AGE": 0,
                                    "CONN_HEALTH_CHECKS": True}, alias="pool_check_test")  # fmt: skip
    yield wrapper
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
