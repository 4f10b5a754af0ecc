"""One model instance from one row of plain SQL, for the queries every request makes.

The ORM, and even ``Manager.raw``, spends more CPU building and reading a one-row query than the
database spends answering it (docs/performance.md). :func:`fetch_one` selects the model's columns in
its fields' order, applies the converters the ORM would (JSON, and on SQLite UUIDs and datetimes),
and builds the instance with ``Model.from_db``, as a queryset does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, TypeVar

from django.db import connection, models

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


def fetch_one(model: type[M], alias: str, rest: str, params: Sequence[Any]) -> M | None:
    """``SELECT <the model's columns, as alias.column> <rest>``: the first row as a model instance, or None.

    ``rest`` is the SQL after the select list (``FROM … AS alias WHERE …``), with ``%s`` placeholders.
    """
    select, converters = _columns(model, alias, connection.vendor)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {select} {rest}", params)
        row = cursor.fetchone()
    if row is None:
        return None
    values = []
    for value, (column, functions) in zip(row, converters, strict=True):
        for convert in functions:
            value = convert(value, column, connection)
        values.append(value)
    return model.from_db(connection.alias, None, values)
