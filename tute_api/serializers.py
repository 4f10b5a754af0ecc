"""Serializers the apps share.

:class:`FlatSerializer`: DRF gives each serializer instance a deep copy of its declared fields
(``Serializer.get_fields``), which rebuilds every field from its arguments: two thirds of the parsing
of an action's body, and of a long poll's query, went to it (docs/performance.md). A field that is not
a serializer itself keeps nothing of a request: binding it sets attributes of its own (its name, its
parent), so a shallow copy per instance serves as DRF's deep one.
"""

from __future__ import annotations

import copy
from typing import Any

from rest_framework import serializers


class FlatSerializer(serializers.Serializer):  # type: ignore[type-arg]
    """A serializer of plain fields (no nested serializer, no list of them): each instance binds shallow
    copies of the declared fields instead of deep ones."""

    def get_fields(self) -> dict[str, Any]:
        fields = {}
        for name, field in self._declared_fields.items():
            if isinstance(field, serializers.BaseSerializer | serializers.ListField | serializers.DictField):
                raise TypeError(f"{type(self).__name__}.{name} holds fields of its own: not a flat serializer")
            fields[name] = copy.copy(field)
        return fields
