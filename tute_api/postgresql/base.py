"""Django's PostgreSQL backend, whose connection pool checks a connection only once it has been idle a while.

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

``settings.py`` names this backend for PostgreSQL when ``DATABASE_POOL_SIZE`` is set; without a pool it
is Django's, unchanged.
"""

from __future__ import annotations

import time
import weakref
from typing import Any

from django.db.backends.postgresql import base
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


class DatabaseWrapper(base.DatabaseWrapper):
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
