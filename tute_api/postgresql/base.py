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

A transaction's ``BEGIN`` travels with its first statement (:class:`Cursor`). psycopg, asked by Django to
turn autocommit off, sends ``BEGIN`` alone before the transaction's first statement: a round trip of its
own (docs/performance.md). Here psycopg stays in autocommit, and
the connection keeps the ``BEGIN`` that Django's ``atomic`` asked for (:attr:`DatabaseWrapper.deferred_begin`)
until the first statement, which goes as ``BEGIN; <statement>`` in one message (the simple query protocol
of Django's client-side binding takes several statements). A transaction that runs no statement costs
no round trip at all; its ``COMMIT`` is then not sent either (psycopg sends none outside a transaction).
In the same way a write whose result nobody reads (``tute_api.rows.Held``: the statement that saves a
move) waits on the connection and goes in the message of the transaction's next statement, or of its
``COMMIT``: an action's transaction is then two round trips, ``BEGIN; SELECT … FOR UPDATE`` and
``WITH … UPDATE …; COMMIT``, where psycopg alone sends four.

``settings.py`` names this backend for every PostgreSQL database; the pool is there when
``DATABASE_POOL_SIZE`` is set.
"""

from __future__ import annotations

import datetime
import time
import weakref
from functools import cache
from typing import Any

from django.db import ProgrammingError
from django.db.backends.postgresql import base
from psycopg import IsolationLevel, adapt, adapters, pq
from psycopg.types.datetime import TimestamptzLoader
from psycopg_pool import ConnectionPool

from tute_api.rows import Held

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


#: Where a psycopg connection keeps the statements its next message must send first: a transaction's
#: deferred ``BEGIN``, then the writes held (:class:`Held`); empty or absent: none.
PENDING = "tute_pending_statements"


def _holds_writes(connection: Any) -> bool:
    """Whether a psycopg connection holds writes (:class:`Held`), not only a transaction's ``BEGIN``."""
    return any(not statement.startswith("BEGIN") for statement in getattr(connection, PENDING, None) or [])


class Cursor(base.Cursor):  # type: ignore[name-defined,misc]
    """Django's cursor (client-side binding), which sends what its connection holds (a transaction's
    deferred ``BEGIN``, the writes held) in the message of the next statement: ``BEGIN; <held>; <statement>``,
    whose last result the cursor then shows (its rows, its ``rowcount``). A statement that is not plain
    text, or sent otherwise (with ``executemany``, ``copy``, ``stream``), is preceded by them alone."""

    def execute(self, query: Any, params: Any = None, **kwargs: Any) -> Any:
        pending = self._take_pending()
        if isinstance(query, Held) and not kwargs and self._in_transaction(pending):
            setattr(self._conn, PENDING, [*pending, self._bound(query, params)])
            return self
        if not pending:
            return super().execute(query, params, **kwargs)
        if not isinstance(query, str) or kwargs:
            self._send(pending)
            return super().execute(query, params, **kwargs)
        # Sent bound: with parameters, psycopg reads every "%" of the message as a placeholder's.
        sent = pending if params is None else [statement.replace("%", "%%") for statement in pending]
        try:
            super().execute("; ".join([*sent, query]), params)
        except BaseException:
            self._keep_unless_sent(pending)
            raise
        for _ in pending:
            self.nextset()  # the statement's result, after those sent before it
        if self._query is not None:  # the query Django's log reads: the statement, without what went before it
            before = ("; ".join(pending) + "; ").encode(self._tx.encoding)
            if self._query.query.startswith(before):
                self._query.query = self._query.query[len(before) :]
        return self

    def _in_transaction(self, pending: list[str]) -> bool:
        """Whether a transaction is open, or asked for (its BEGIN pending)."""
        begun = self._conn.pgconn.transaction_status != pq.TransactionStatus.IDLE
        return begun or bool(pending) and pending[0].startswith("BEGIN")

    def executemany(self, query: Any, params_seq: Any, **kwargs: Any) -> Any:
        self.send_pending()
        return super().executemany(query, params_seq, **kwargs)

    def copy(self, *args: Any, **kwargs: Any) -> Any:
        self.send_pending()
        return super().copy(*args, **kwargs)

    def stream(self, *args: Any, **kwargs: Any) -> Any:
        self.send_pending()
        return super().stream(*args, **kwargs)

    def send_pending(self, *, then: str | None = None) -> None:
        """Send what the connection holds, if anything, in one message, followed by ``then`` (a ``COMMIT``)
        if given. A failed ``COMMIT`` leaves nothing pending: the transaction is over or aborted, and the
        caller rolls it back."""
        pending = self._take_pending()
        if not pending:
            return
        if then is None:
            self._send(pending)
        else:
            super().execute("; ".join([*pending, then]))

    def _bound(self, query: str, params: Any) -> str:
        """The statement with its parameters, as it will be sent; Django's query log reads it here."""
        self._tx = adapt.Transformer(self)
        self._query = self._convert_query(query, params)
        return self._query.query.decode(self._tx.encoding)  # type: ignore[no-any-return]

    def _take_pending(self) -> list[str]:
        connection = self._conn
        pending: list[str] = getattr(connection, PENDING, None) or []
        if pending:
            setattr(connection, PENDING, [])
        return pending

    def _send(self, statements: list[str]) -> None:
        try:
            super().execute("; ".join(statements))
        except BaseException:
            self._keep_unless_sent(statements)
            raise

    def _keep_unless_sent(self, pending: list[str]) -> None:
        """After a failure: if the server opened no transaction (the message never reached it, or failed
        before it ran), what was pending is pending still: the next statement must not run outside it."""
        if pending[0].startswith("BEGIN") and self._conn.pgconn.transaction_status == pq.TransactionStatus.IDLE:
            setattr(self._conn, PENDING, pending)


class DatabaseWrapper(base.DatabaseWrapper):
    def get_connection_params(self) -> dict[str, Any]:
        params = super().get_connection_params()
        if params.get("cursor_factory") is base.Cursor:  # type: ignore[attr-defined]
            params["cursor_factory"] = Cursor
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

    # -- psycopg stays in autocommit: a transaction's BEGIN, and its held writes, go with its next statement

    @property
    def deferred_begin(self) -> bool:
        """Whether this connection's transactions begin with their first statement, and may hold writes
        (:class:`Cursor`): not with Django's server-side binding (``OPTIONS["server_side_binding"]``)."""
        return self.connection is not None and isinstance(self.connection.cursor_factory, type) and issubclass(
            self.connection.cursor_factory, Cursor
        )

    def _set_autocommit(self, autocommit: bool) -> None:
        if not self.deferred_begin:
            return super()._set_autocommit(autocommit)  # type: ignore[no-any-return]
        with self.wrap_database_errors:
            if not self.connection.autocommit:  # as Django left it (a connection from before): psycopg's own
                self.connection.autocommit = True
            if autocommit and _holds_writes(self.connection):
                raise ProgrammingError("can't turn autocommit on: the transaction holds writes not committed")
            setattr(self.connection, PENDING, [] if autocommit else [self._begin_statement()])
        return None

    def _begin_statement(self) -> str:
        level = self.connection.isolation_level
        return "BEGIN" if level is None else f"BEGIN ISOLATION LEVEL {IsolationLevel(level).name.replace('_', ' ')}"

    def _commit(self) -> None:
        if self.connection is not None and _holds_writes(self.connection):
            with self.wrap_database_errors, self.connection.cursor() as cursor:  # the writes held, with COMMIT
                cursor.send_pending(then="COMMIT")
        else:
            super()._commit()  # psycopg sends COMMIT if a statement began the transaction, else nothing
        self._begin_again()

    def _rollback(self) -> None:
        if self.connection is not None:
            setattr(self.connection, PENDING, [])  # never sent: nothing to undo
        super()._rollback()
        self._begin_again()

    def _begin_again(self) -> None:
        """After a commit or a rollback with autocommit still off (a transaction Django manages by hand, or
        ``atomic`` before it turns autocommit back on), the next statement begins the next transaction."""
        if self.connection is not None and self.deferred_begin and not self.autocommit:
            setattr(self.connection, PENDING, [self._begin_statement()])

    def get_new_connection(self, conn_params: dict[str, Any]) -> Any:
        connection = super().get_new_connection(conn_params)
        setattr(connection, PENDING, [])  # nothing pending from its last holder (a pool's connection)
        return connection

    def _close(self) -> None:
        if self.connection is not None:  # a pool's connection goes back with no BEGIN pending for its next holder
            setattr(self.connection, PENDING, [])
        super()._close()

    def create_cursor(self, name: str | None = None) -> Any:
        if name and self.deferred_begin:  # a named cursor's DECLARE, sent by psycopg's own path: in the transaction
            with self.connection.cursor() as cursor:
                cursor.send_pending()
            # Django holds a named cursor (WITH HOLD) when psycopg is in autocommit, as it always is here: inside
            # a transaction too, where PostgreSQL keeps its rows past the commit (``.iterator()``; a migration's).
        return super().create_cursor(name)
