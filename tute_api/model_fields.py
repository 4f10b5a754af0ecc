"""Model fields the apps share.

:class:`JSONField` is Django's, reading and writing its column through orjson
(:mod:`tute_api.json_codec`): every action reads a match's snapshot and writes it back with its events.
It deconstructs as Django's own, so that it changes no migration.
"""

from __future__ import annotations

import json
from typing import Any

from django.db import models
from psycopg.types.json import Jsonb

from . import json_codec


def _dumps(value: Any) -> bytes | str:
    try:
        return json_codec.dumps(value, plain=True)
    except TypeError:  # what orjson cannot write (an integer beyond 64 bits) is json's to write or refuse
        return json.dumps(value)


class JSONField(models.JSONField):  # type: ignore[type-arg]
    """Django's ``JSONField``; orjson reads and writes it where it writes and reads as ``json`` does
    (on PostgreSQL, and without a field's own ``encoder`` or ``decoder``)."""

    def deconstruct(self) -> Any:
        name, _, args, kwargs = super().deconstruct()
        return name, "django.db.models.JSONField", args, kwargs

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> Any:
        if self.decoder is None and isinstance(value, str):
            try:
                return json_codec.loads(value)
            except json_codec.Unsure:
                pass
        return super().from_db_value(value, expression, connection)

    def get_db_prep_value(self, value: Any, connection: Any, prepared: bool = False) -> Any:
        if self.encoder is not None or connection.vendor != "postgresql":
            return super().get_db_prep_value(value, connection, prepared)
        if not prepared:
            value = self.get_prep_value(value)
        return Jsonb(value, dumps=_dumps)
