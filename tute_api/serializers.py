"""Serializers the apps share.

:class:`InputSerializer`: a serializer that reads a request lets go of its fields once validated, so
that the request leaves no reference cycle (tute_api/cycles.py).

:class:`FlatSerializer`: DRF gives each serializer instance a deep copy of its declared fields
(``Serializer.get_fields``), which rebuilds every field from its arguments: two thirds of the parsing
of an action's body, and of a long poll's query, went to it (docs/performance.md). A field that is not
a serializer itself keeps nothing of a request: binding it sets attributes of its own (its name, its
parent), so the instances of a class share one set of copies, bound once (a shallow copy per instance
before: the three input serializers of an action and its long poll took 233-250 us of CPU, 90-105 us
now, in a throwaway bench: docs/performance.md).
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
    """A serializer of plain fields (no nested serializer, no list of them): its instances share one set
    of fields, bound once per class to an instance of their own, instead of deep copies bound per
    instance. A plain field keeps nothing of what it validates; it reads its serializer only for a
    partial update (``root.partial``) and for the context, which the shared fields do not see: a
    partial serializer, or one given a context, binds shallow copies of its own."""

    _shared: dict[type, Any] = {}  # class -> its shared fields

    @property
    def fields(self) -> Any:  # type: ignore[override]
        if self.partial or self._context:
            return self._own_fields()
        cls = type(self)
        shared = FlatSerializer._shared.get(cls)
        if shared is None:  # (two threads may both bind them: either set serves)
            shared = FlatSerializer._shared[cls] = cls()._own_fields()
        return shared

    def _own_fields(self) -> Any:
        """DRF's fields, bound to this instance (kept in its ``__dict__``, which :func:`untie` clears)."""
        return super().fields

    def get_fields(self) -> dict[str, Any]:
        fields = {}
        for name, field in self._declared_fields.items():
            if isinstance(field, serializers.BaseSerializer | serializers.ListField | serializers.DictField):
                raise TypeError(f"{type(self).__name__}.{name} holds fields of its own: not a flat serializer")
            fields[name] = copy.copy(field)
        return fields
