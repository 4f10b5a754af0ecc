"""Django's PostgreSQL backend, whose connection pool checks a connection only once it has been idle a while,
and whose connections read ``timestamptz`` columns with psycopg's own loader (C in its binary build).

With ``CONN_HEALTH_CHECKS`` Django's pool checks each connection (an empty query: a round trip to the
database) before a request gets it, so that a connection broken by a restart of the database is replaced,
never handed out. Under load a connection goes back to the pool and out again within milliseconds, and the
check was one of the three round trips of a ``GET`` of a match (docs/performance.md). As HikariCP does (its
``aliveBypassWindowMs``), a connection last handed out less than :data:`CHECK_AFTER_IDLE` seconds ago is
handed out again unchecked: a restart of the database since then, shorter than that, would have to fall
between two requests. After such a restart a request may meet a broken connection: it answers 503
(``service_unavailable``, to retry) and the pool discards that connection. (The time a connection was
handed out is at most the time it went back, and needs no ``reset`` callback, which would send every
return of a connection through a thread of the pool.)

Django reads each ``timestamptz`` value through a loader of its own, a Python subclass of psycopg's that
sets the connection's time zone on the result (``psycopg_any.BaseTzLoader``): psycopg's C loader is then
never used, and every value is parsed in Python (about 3 µs each, a few per request; 2% of a server's
samples under load, docs/performance.md). When the connection's time zone is UTC, as Django's is with
``USE_TZ`` and no ``TIME_ZONE`` of the database's, psycopg's loader already gives each value that time
zone: :class:`UtcTimestamptzLoader` hands the values to it, as Django's loader for UTC, so that Django
finds its loader in place and registers no other.

``settings.py`` names this backend for PostgreSQL when ``DATABASE_POOL_SIZE`` is set; without a pool it
is Django's, unchanged.
"""

from __future__ import annotations

import datetime
import time
import weakref
from functools import cache
from typing import Any

from django.db.backends.postgresql import base
from psycopg import adapt, adapters, pq
from psycopg.types.datetime import TimestamptzLoader
from psycopg_pool import ConnectionPool

#: Seconds a connection may rest in the pool and still be handed out without a check.
CHECK_AFTER_IDLE = 1.0

_handed_out: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()


def _checked_if_idle(connection: Any) -> None:
    """The pool's ``check``, called as it hands ``connection`` out: Django's check
    (``ConnectionPool.check_connection``), unless the connection was handed out within the window."""
    now = time.monotonic()
    last = _handed_out.get(connection)
    _handed_out[connection] = now
    if last is None or now - last >= CHECK_AFTER_IDLE:
        ConnectionPool.check_connection(connection)


_TIMESTAMPTZ = adapters.types["timestamptz"].oid

#: psycopg's loader of ``timestamptz`` text: its C one when the binary build is installed.
_PSYCOPG_LOADER: Any = adapters.get_loader(_TIMESTAMPTZ, pq.Format.TEXT)


class UtcTimestamptzLoader(TimestamptzLoader):
    """Django's loader for a connection in UTC (its ``timezone``, which Django compares with its own),
    whose ``load`` is psycopg's: a value of a connection whose ``TimeZone`` is UTC comes in UTC."""

    timezone = datetime.UTC

    def __init__(self, oid: int, context: adapt.AdaptContext | None = None):
        # psycopg calls ``load`` on each value: the instance's attribute, psycopg's (C) method itself.
        self.oid, self.connection = oid, context.connection if context else None
        self.load = _PSYCOPG_LOADER(oid, context).load  # type: ignore[method-assign]


@cache
def _utc_adapters(template: adapt.AdaptersMap) -> adapt.AdaptersMap:
    """Django's adapters for a connection in UTC, with :class:`UtcTimestamptzLoader`."""
    context = adapt.AdaptersMap(template)
    context.register_loader(_TIMESTAMPTZ, UtcTimestamptzLoader)
    return context


class DatabaseWrapper(base.DatabaseWrapper):
    def get_connection_params(self) -> dict[str, Any]:
        params = super().get_connection_params()
        # Django's connections are set to its time zone's name: UTC when self.timezone is.
        if "context" in params and self.timezone is datetime.UTC and self.timezone_name == "UTC":
            params["context"] = _utc_adapters(params["context"])
        return params

    @property
    def pool(self) -> Any:
        options = self.settings_dict["OPTIONS"].get("pool")
        health_checks = self.settings_dict["CONN_HEALTH_CHECKS"]
        if options and health_checks and self.alias not in (base.NO_DB_ALIAS, *self._connection_pools):
            # Django's pool, as its own property builds it, but for the check.
            if self.settings_dict.get("CONN_MAX_AGE", 0) != 0:
                return super().pool  # refused there, with Django's own error
            options = {} if options is True else dict(options)
            kwargs = self.get_connection_params()
            kwargs["autocommit"] = True  # as Django's: it sets autocommit itself later on
            pool = ConnectionPool(kwargs=kwargs, open=False, configure=self._configure_connection,
                                  check=_checked_if_idle, **options)  # fmt: skip
            self._connection_pools.setdefault(self.alias, pool)
        return super().pool
