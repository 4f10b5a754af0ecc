"""What a test's database connection sends to PostgreSQL, read on the wire (libpq's trace): each round trip
is a ``Query`` message of the simple protocol (Django's client-side binding) or a ``Sync`` of the extended one."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from django.db import connection


@contextmanager
def wire() -> Iterator[list[str]]:
    """The messages the connection sends meanwhile: each ``Query``'s text, or ``Sync``."""
    connection.ensure_connection()
    pgconn = connection.connection.pgconn
    sent: list[str] = []
    with tempfile.TemporaryFile() as trace:
        pgconn.trace(trace.fileno())
        pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS | psycopg.pq.Trace.REGRESS_MODE)
        try:
            yield sent
        finally:
            pgconn.untrace()
            trace.seek(0)
            for line in trace.read().decode().splitlines():
                if found := re.match(r'F\t\d+\t(Query|Sync)\b\s*(?:"(.*)")?', line):
                    sent.append(found[2] if found[1] == "Query" else "Sync")
