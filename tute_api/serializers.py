"""Serializers the apps share.

:class:`InputSerializer`: a serializer that reads a request lets go of its fields once validated, so
that the request leaves no reference cycle (tute_api/cycles.py).

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

from tute_api.cycles import untie


class InputSerializer(serializers.Serializer):  # type: ignore[type-arg]
    """A serializer that reads a request's body or query: once validated, it lets go of its bound
    fields. Each refers back to its serializer (its ``parent``; the binding dict's ``serializer``), as
    a list's child to its list: cycles that only the garbage collector would free, with all that hangs
    off them (tute_api/cycles.py). ``validated_data`` and ``errors`` stay; ``fields`` is built again if
    read."""

    def is_valid(self, *, raise_exception: bool = False) -> bool:
        try:
            return super().is_valid(raise_exception=raise_exception)
        finally:
            untie(self)


class FlatSerializer(InputSerializer):
    """A serializer of plain fields (no nested serializer, no list of them): each instance binds shallow
    copies of the declared fields instead of deep ones."""

    def get_fields(self) -> dict[str, Any]:
        fields = {}
        for name, field in self._declared_fields.items():
            if isinstance(field, serializers.BaseSerializer | serializers.ListField | serializers.DictField):
                raise TypeError(f"{type(self).__name__}.{name} holds fields of its own: not a flat serializer")
            fields[name] = copy.copy(field)
        return fields
