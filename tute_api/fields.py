"""Serializer fields the apps share."""

from __future__ import annotations

import re
from typing import Any

from rest_framework import serializers
from rest_framework.fields import empty


class JSONInteger(serializers.IntegerField):
    """An integer of a JSON body: a JSON number with no fraction. DRF's ``IntegerField`` also takes
    the string ``"60"``, which the schema's ``type: integer`` does not."""

    def to_internal_value(self, data: Any) -> int:
        if not isinstance(data, int | float) or isinstance(data, bool):
            self.fail("invalid")
        return int(super().to_internal_value(data))


class JSONString(serializers.CharField):
    """A string of a JSON body: a JSON string only. DRF's ``CharField`` also takes the number 5 as
    ``"5"``, which the schema's ``type: string`` does not."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


class JSONBoolean(serializers.BooleanField):
    """A boolean of a JSON body: ``true`` or ``false`` only. DRF's ``BooleanField`` also takes ``"yes"``,
    ``1`` and ``"on"``, which the schema's ``type: boolean`` does not."""

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


_QUERY_INTEGER = re.compile(r"-?[0-9]+")


class _EmptyIsAValue:
    """A query parameter given with no value (``?wait=``) is that value, the empty string, which its
    schema (an integer, one of an enum) refuses. DRF reads it as absent for a field that is not required."""

    field_name: str

    def get_value(self, dictionary: Any) -> Any:
        value = super().get_value(dictionary)  # type: ignore[misc]
        if value is empty and dictionary.get(self.field_name) == "":
            return ""
        return value


class QueryChoice(_EmptyIsAValue, serializers.ChoiceField):
    """One of an enum, in a query string: ``?variant=`` is no variant (400), not "any"."""


class QueryInteger(_EmptyIsAValue, serializers.IntegerField):
    """An integer of a query string: ASCII digits, with a minus sign or none. DRF's ``IntegerField``
    also takes ``1.0``, `` 5``, ``+5`` and other scripts' digits (``５``), which the schema's
    ``type: integer`` does not."""

    def to_internal_value(self, data: Any) -> int:
        if not isinstance(data, str) or not _QUERY_INTEGER.fullmatch(data):
            self.fail("invalid")
        return int(super().to_internal_value(data))
