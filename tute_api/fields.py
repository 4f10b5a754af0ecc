"""Serializer fields the apps share."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers


class JSONInteger(serializers.IntegerField):
    """An integer of a JSON body: a JSON number with no fraction. DRF's ``IntegerField`` also takes
    the string ``"60"``, which the schema's ``type: integer`` does not."""

    def to_internal_value(self, data: Any) -> int:
        if not isinstance(data, int | float) or isinstance(data, bool):
            self.fail("invalid")
        return int(super().to_internal_value(data))
