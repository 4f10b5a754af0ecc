"""tute_api.postgresql: a transaction's BEGIN travels with its first statement, and the transaction is
still a transaction: what it wrote is undone by its rollback, whatever went first or failed.

The messages are read on the wire (``tests.wire``).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.db import connection, transaction

from tests import services
from tests.test_settings import print_setting
from tests.wire import wire

pytestmark = pytest.mark.django_db(transaction=True)  # no test transaction around: the code's own are seen


@pytest.fixture(autouse=True)
def _postgresql() -> None:
    if connection.vendor != "postgresql":
        services.missing("the deferred BEGIN is PostgreSQL's (DATABASE_URL)")


@pytest.fixture
def table() -> Iterator[str]:
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE begin_check (n integer PRIMARY KEY)")
    yield "begin_check"
    with connection.cursor() as cursor:
        cursor.execute("DROP TABLE begin_check")


def rows() -> list[int]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT n FROM begin_check ORDER BY n")
        return [n for (n,) in cursor.fetchall()]


def test_every_postgresql_database_is_this_backends() -> None:
    config = {"DATABASE_URL": "postgres://tute@db.example:5432/tute"}
    assert print_setting("settings.DATABASES['default']['ENGINE']", **config) == "'tute_api.postgresql'"


def test_a_transaction_s_begin_goes_with_its_first_statement(table: str) -> None:
    with wire() as sent, transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("INSERT INTO begin_check VALUES (%s)", [1])
        assert cursor.rowcount == 1, "the statement's result, not BEGIN's"
        cursor.execute("SELECT n FROM begin_check")
        assert cursor.fetchall() == [(1,)]
    assert sent == ["BEGIN; INSERT INTO begin_check VALUES (1)", "SELECT n FROM begin_check", "COMMIT"]
    assert rows() == [1]


def test_the_first_statement_s_rows_are_read_as_without_the_begin(table: str) -> None:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("INSERT INTO begin_check VALUES (1), (2) RETURNING n")
        assert cursor.fetchall() == [(1,), (2,)] and cursor.rowcount == 2


def test_a_transaction_that_runs_nothing_sends_nothing() -> None:
    connection.ensure_connection()
    with wire() as sent, transaction.atomic():
        pass
    assert sent == []


def test_a_rollback_undoes_what_the_first_statement_wrote(table: str) -> None:
    with pytest.raises(RuntimeError), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("INSERT INTO begin_check VALUES (1)")
        raise RuntimeError("undo")
    assert rows() == []


def test_a_first_statement_that_never_ran_leaves_the_begin_to_the_next(table: str) -> None:
    """PostgreSQL parses the whole message first: a syntax error runs not even its BEGIN, and the next
    statement must still open the transaction, never run outside it."""
    connection.set_autocommit(False)
    try:
        with connection.cursor() as cursor, pytest.raises(Exception, match="syntax"):
            cursor.execute("INSERT INTO begin_check VALUES (")
        with connection.cursor() as cursor:
            cursor.execute("INSERT INTO begin_check VALUES (1)")
        connection.rollback()
    finally:
        connection.set_autocommit(True)
    assert rows() == []


def test_a_transaction_managed_by_hand_begins_again_after_each_commit(table: str) -> None:
    connection.set_autocommit(False)
    try:
        with connection.cursor() as cursor:
            cursor.execute("INSERT INTO begin_check VALUES (1)")
        connection.commit()
        with connection.cursor() as cursor:
            cursor.execute("INSERT INTO begin_check VALUES (2)")
        connection.rollback()
        with connection.cursor() as cursor:
            cursor.execute("INSERT INTO begin_check VALUES (3)")
        connection.rollback()
    finally:
        connection.set_autocommit(True)
    assert rows() == [1]


def test_executemany_and_savepoints_are_in_the_transaction(table: str) -> None:
    with pytest.raises(RuntimeError), transaction.atomic():
        with connection.cursor() as cursor:
            cursor.executemany("INSERT INTO begin_check VALUES (%s)", [[1], [2]])
        with transaction.atomic(), connection.cursor() as cursor:  # a savepoint
            cursor.execute("INSERT INTO begin_check VALUES (3)")
        raise RuntimeError("undo")
    assert rows() == []
    with pytest.raises(RuntimeError), transaction.atomic():
        # the savepoint is the transaction's first statement
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("INSERT INTO begin_check VALUES (4)")
        raise RuntimeError("undo")
    assert rows() == []


def test_a_named_cursor_reads_in_the_transaction(table: str) -> None:
    """``.iterator()`` declares a named cursor: in a transaction, after its BEGIN."""
    from players.models import Player

    with transaction.atomic():
        Player.objects.create(username="named-cursor")  # not the first statement: BEGIN sent with it
        assert [p.username for p in Player.objects.filter(username="named-cursor").iterator(chunk_size=1)] == [
            "named-cursor"
        ]
    with pytest.raises(RuntimeError), transaction.atomic():
        names = [p.username for p in Player.objects.filter(username="named-cursor").iterator(chunk_size=1)]
        assert names == ["named-cursor"]
        Player.objects.filter(username="named-cursor").delete()
        raise RuntimeError("undo")
    assert Player.objects.filter(username="named-cursor").exists()
    Player.objects.filter(username="named-cursor").delete()
