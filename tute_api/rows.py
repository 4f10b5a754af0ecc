"""Plain SQL for the statements every request or action makes: one model instance from one row, and
the insert and update of an action's rows.

The ORM, and even ``Manager.raw``, spends more CPU building and reading a one-row query than the
database spends answering it (docs/performance.md). :func:`fetch_one` selects the model's columns in
its fields' order, applies the converters the ORM would (JSON, and on SQLite UUIDs and datetimes),
and builds the instance with ``Model.from_db``, as a queryset does; :func:`fetch_all` the instances of
every row, :func:`fetch_beside` each beside more columns. :func:`insert_statement` and
:func:`update_statement` keep one SQL text per model and shape (row count, fields), and convert the
values as the ORM's writes do (``pre_save``, ``get_db_prep_save``). :func:`copied` copies an instance
as ``copy.copy`` does, without pickling's protocol.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, TypeVar

from django.db import DEFAULT_DB_ALIAS, connection, connections, models
from django.db.models.base import ModelState

M = TypeVar("M", bound=models.Model)
Converter = Callable[[Any, Any, Any], Any]


@cache
def _columns(model: type[models.Model], alias: str, vendor: str) -> tuple[str, tuple[tuple[Any, list[Converter]], ...]]:
    """The select list of the model's columns under ``alias``, and each column's converters."""
    fields = model._meta.concrete_fields
    select = ", ".join(f'{alias}."{field.column}"' for field in fields)
    converters = []
    for field in fields:
        column = field.get_col(alias)
        converters.append((column, [*connection.ops.get_db_converters(column), *column.get_db_converters(connection)]))
    return select, tuple(converters)


def _database() -> Any:
    """The default database's connection object, once: each attribute of ``django.db.connection`` (the proxy)
    is a lookup of the thread's (or the coroutine's) connection."""
    return connections[DEFAULT_DB_ALIAS]


def fetch_one(model: type[M], alias: str, rest: str, params: Sequence[Any]) -> M | None:
    """``SELECT <the model's columns, as alias.column> <rest>``: the first row as a model instance, or None.

    ``rest`` is the SQL after the select list (``FROM … AS alias WHERE …``), with ``%s`` placeholders.
    """
    db = _database()
    select, converters = _columns(model, alias, db.vendor)
    with db.cursor() as cursor:
        cursor.execute(f"SELECT {select} {rest}", params)
        row = cursor.fetchone()
    return None if row is None else _instance(model, db, converters, row)


def fetch_all(model: type[M], alias: str, rest: str, params: Sequence[Any]) -> list[M]:
    """``SELECT <the model's columns, as alias.column> <rest>``: every row, as model instances."""
    db = _database()
    select, converters = _columns(model, alias, db.vendor)
    with db.cursor() as cursor:
        cursor.execute(f"SELECT {select} {rest}", params)
        rows = cursor.fetchall()
    return [_instance(model, db, converters, row) for row in rows]


def fetch_beside(
    leading: Sequence[str], model: type[M], alias: str, rest: str, params: Sequence[Any]
) -> list[tuple[tuple[Any, ...], M | None]]:
    """``SELECT <leading>, <the model's columns, as alias.column> <rest>``: each row's leading values (columns,
    as the database gives them) and its instance of ``model``, None where the row has none (a left join that
    found nothing: its primary key is NULL)."""
    db = _database()
    select, converters = _columns(model, alias, db.vendor)
    with db.cursor() as cursor:
        cursor.execute(f"SELECT {', '.join(leading)}, {select} {rest}", params)
        rows = cursor.fetchall()
    pk, first = model._meta.concrete_fields.index(model._meta.pk), len(leading)
    return [
        (tuple(row[:first]), None if row[first + pk] is None else _instance(model, db, converters, row[first:]))
        for row in rows
    ]


def _instance(model: type[M], db: Any, converters: tuple[tuple[Any, list[Converter]], ...], row: Sequence[Any]) -> M:
    values = []
    for value, (column, functions) in zip(row, converters, strict=True):
        for convert in functions:
            value = convert(value, column, db)
        values.append(value)
    return model.from_db(db.alias, None, values)


def copied(instance: M) -> M:
    """A shallow copy of a model instance, as ``copy.copy`` makes one: the same values, and a state and a
    cache of related rows of its own. ``copy.copy`` goes through pickling's protocol (``Model.__reduce__``,
    ``__getstate__``, ``__setstate__``, and a generic copy of the state): 39 µs a match against 5 µs here,
    with three copies on the path of every action and its long poll (docs/performance.md)."""
    copy = object.__new__(type(instance))
    copy.__dict__.update(instance.__dict__)
    state = object.__new__(ModelState)
    state.__dict__.update(instance._state.__dict__)
    state.fields_cache = dict(instance._state.fields_cache)
    copy._state = state
    return copy


# -- writes ------------------------------------------------------------------------------------------


class Held(str):
    """A write whose result nobody reads: ``cursor.execute(Held(sql), params)`` inside a transaction on
    PostgreSQL sends it with the transaction's next statement or with its ``COMMIT``, not alone
    (``tute_api.postgresql``): a round trip fewer. Its errors are raised by the statement or the commit
    that carries it, and the transaction is then rolled back: nothing of it is kept. Outside a
    transaction, or on another database, it runs at once as any statement."""

    __slots__ = ()


@cache
def _insert_sql(model: type[models.Model], count: int, vendor: str) -> tuple[str, tuple[models.Field[Any, Any], ...]]:
    """``INSERT`` of ``count`` rows of the model's columns but those the database fills (an auto id)."""
    quote = connection.ops.quote_name
    generated = set(model._meta.db_returning_fields)
    fields = tuple(field for field in model._meta.concrete_fields if field not in generated)
    row = "(" + ", ".join(["%s"] * len(fields)) + ")"
    columns = ", ".join(quote(field.column) for field in fields)
    return f"INSERT INTO {quote(model._meta.db_table)} ({columns}) VALUES {', '.join([row] * count)}", fields


def insert_statement(model: type[M], objs: Sequence[M], *, ignore_conflicts: bool = False) -> tuple[str, list[Any]]:
    """The SQL and parameters that insert ``objs`` (one statement, nothing returned), as ``bulk_create``
    would store them: each field's ``pre_save`` and ``get_db_prep_save``, with no query compiled.
    ``ignore_conflicts``: a row that a unique constraint refuses is skipped (``ON CONFLICT DO NOTHING``,
    which PostgreSQL and SQLite both read)."""
    db = _database()
    sql, fields = _insert_sql(model, len(objs), db.vendor)
    if ignore_conflicts:
        sql += " ON CONFLICT DO NOTHING"
    return sql, [field.get_db_prep_save(field.pre_save(obj, True), db) for obj in objs for field in fields]


def insert(model: type[M], objs: Sequence[M], *, ignore_conflicts: bool = False, held: bool = False) -> None:
    """Insert ``objs`` in one statement; their database-filled fields (an auto id) are left unset, and they
    are marked saved, as ``bulk_create`` marks them (a later ``save()`` updates their rows). ``ignore_conflicts``:
    as :func:`insert_statement`'s; ``held``: the statement is :class:`Held` (sent with the transaction's next
    statement on PostgreSQL)."""
    if objs:
        db = _database()
        sql, params = insert_statement(model, objs, ignore_conflicts=ignore_conflicts)
        with db.cursor() as cursor:
            cursor.execute(Held(sql) if held else sql, params)
        for obj in objs:
            obj._state.adding, obj._state.db = False, db.alias


@cache
def _update_sql(
    model: type[models.Model], names: tuple[str, ...], vendor: str
) -> tuple[str, tuple[models.Field[Any, Any], ...]]:
    quote, pk = connection.ops.quote_name, model._meta.pk
    assert pk is not None
    fields = tuple(model._meta.get_field(name) for name in names)
    sets = ", ".join(f"{quote(field.column)} = %s" for field in fields)  # type: ignore[union-attr]
    return f"UPDATE {quote(model._meta.db_table)} SET {sets} WHERE {quote(pk.column)} = %s", fields  # type: ignore[return-value]


def update_statement(obj: models.Model, names: Sequence[str]) -> tuple[str, list[Any]]:
    """The SQL and parameters that write the fields ``names`` of ``obj``'s row, their values converted as an
    ORM ``update()`` converts them (``get_db_prep_save``; no ``pre_save``: the caller set every value), with
    no query compiled."""
    db = _database()
    sql, fields = _update_sql(type(obj), tuple(names), db.vendor)
    pk = obj._meta.pk
    assert pk is not None
    params = [field.get_db_prep_save(getattr(obj, field.attname), db) for field in fields]
    return sql, [*params, pk.get_db_prep_value(obj.pk, db)]


def update(objs: Sequence[models.Model], names: Sequence[str]) -> None:
    """Write the fields ``names`` of each of ``objs`` (instances of one model) to its row, as
    :func:`update_statement` does: one statement per row, sent together (psycopg's ``executemany``
    pipelines them: one round trip). ``bulk_update`` builds a ``CASE WHEN`` per field instead, which
    costs more CPU than the writes of a finished match's few players."""
    statements = [update_statement(obj, names) for obj in objs]
    if statements:
        with _database().cursor() as cursor:
            cursor.executemany(statements[0][0], [params for _, params in statements])
