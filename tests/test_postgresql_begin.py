"""tute_api.postgresql: a transaction's BEGIN travels with its first statement, a held write
(``tute_api.rows.Held``) with the next statement or the COMMIT, and the transaction is still a
transaction: what it wrote is undone by its rollback, whatever went first or failed.

The messages are read on the wire (``tests.wire``).
"""

from __future__ import annotations

from collections.abc import Iterator

import psycopg
import pytest
from django.db import connection, transaction

from tests import services
from tests.test_settings import print_setting
from tests.wire import wire
from tute_api.rows import Held

pytestmark = pytest.mark.django_db(transaction=True)  # no test transaction around: the code's own are seen


@pytest.fixture(autouse=True)
def _postgresql() -> None:
    if connection.vendor != "postgresql":
        services.missing("the deferred BEGIN is PostgreSQL's (DATABASE_URL)")


@pytest.fixture
def table() -> Iterator[str]:
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE begin_check (n integer PRIMARY KEY, note text NOT NULL DEFAULT '')")
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


# -- held writes ----------------------------------------------------------------------------------------


def test_a_held_write_goes_with_the_commit(table: str) -> None:
    with wire() as sent, transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(Held("INSERT INTO begin_check VALUES (%s, %s)"), [1, "100%"])
    assert sent == ["BEGIN; INSERT INTO begin_check VALUES (1, '100%'); COMMIT"]
    assert rows() == [1]


def test_a_held_write_goes_with_the_next_statement_which_sees_it(table: str) -> None:
    with wire() as sent, transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("INSERT INTO begin_check VALUES (1)")
        cursor.execute(Held("INSERT INTO begin_check VALUES (%s, %s)"), [2, "50% off"])  # a "%" of its own
        cursor.execute("SELECT n, note FROM begin_check WHERE n >= %s ORDER BY n", [1])
        assert cursor.fetchall() == [(1, ""), (2, "50% off")], "the last statement's rows"
    assert sent == [
        "BEGIN; INSERT INTO begin_check VALUES (1)",
        "INSERT INTO begin_check VALUES (2, '50% off'); SELECT n, note FROM begin_check WHERE n >= 1 ORDER BY n",
        "COMMIT",
    ]


def test_a_held_write_that_fails_fails_the_commit_and_undoes_the_transaction(table: str) -> None:
    from django.db import IntegrityError

    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("INSERT INTO begin_check VALUES (1)")
        cursor.execute(Held("INSERT INTO begin_check VALUES (%s)"), [1])  # the same key
    assert rows() == []
    with connection.cursor() as cursor:  # the connection is usable, and in no transaction
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)
        assert connection.connection.pgconn.transaction_status == psycopg.pq.TransactionStatus.IDLE


def test_a_held_write_of_a_transaction_rolled_back_is_never_sent(table: str) -> None:
    with wire() as sent, pytest.raises(RuntimeError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(Held("INSERT INTO begin_check VALUES (%s)"), [1])
        raise RuntimeError("undo")
    assert sent == [] and rows() == []


def test_a_held_write_inside_a_savepoint_rolled_back_is_undone(table: str) -> None:
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(Held("INSERT INTO begin_check VALUES (%s)"), [1])
        with pytest.raises(RuntimeError), transaction.atomic():
            cursor.execute(Held("INSERT INTO begin_check VALUES (%s)"), [2])
            raise RuntimeError("undo the savepoint")
        cursor.execute(Held("INSERT INTO begin_check VALUES (%s)"), [3])
    assert rows() == [1, 3]


def test_a_held_write_outside_a_transaction_runs_at_once(table: str) -> None:
    with wire() as sent, connection.cursor() as cursor:
        cursor.execute(Held("INSERT INTO begin_check VALUES (%s)"), [1])
    assert sent == ["INSERT INTO begin_check VALUES (1)"] and rows() == [1]


def test_autocommit_is_not_turned_on_over_held_writes(table: str) -> None:
    from django.db import ProgrammingError

    connection.set_autocommit(False)
    try:
        with connection.cursor() as cursor:
            cursor.execute(Held("INSERT INTO begin_check VALUES (%s)"), [1])
        with pytest.raises(ProgrammingError, match="holds writes"):
            connection.set_autocommit(True)
        connection.rollback()
    finally:
        connection.set_autocommit(True)
    assert rows() == []


def test_django_s_query_log_shows_each_statement_once_as_itself(table: str) -> None:
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries, transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(Held("INSERT INTO begin_check VALUES (%s)"), [7])
        cursor.execute("SELECT n FROM begin_check WHERE n = %s", [7])  # sent with the write before it
    logged = [q["sql"] for q in queries.captured_queries]
    assert [sql for sql in logged if "begin_check" in sql] == [
        "INSERT INTO begin_check VALUES (7)",
        "SELECT n FROM begin_check WHERE n = 7",
    ], "each statement once, as itself, in its order"
