"""tute_api.serializers.FlatSerializer: shallow copies of the declared fields per instance, with DRF's
answers; no deep copy made; a serializer with nested fields refused."""

from __future__ import annotations

from typing import Any, NoReturn

import pytest
from rest_framework import serializers
from rest_framework.serializers import copy as drf_copy

from games.live.apis import MatchEventsApi, WaitQuerySerializer
from games.matches.serializers import ActionInputSerializer
from tute_api.serializers import FlatSerializer

CASES: list[tuple[type[serializers.Serializer], Any]] = [
    (ActionInputSerializer, {"type": "play", "card": "O1", "expected_seq": 12}),
    (ActionInputSerializer, {"type": "bid", "amount": 80}),
    (ActionInputSerializer, {"type": "play"}),
    (ActionInputSerializer, {"type": "fold", "card": 5, "expected_seq": -1}),
    (ActionInputSerializer, {"type": "play", "card": "O1", "expected_seq": "12"}),
    (ActionInputSerializer, []),
    (WaitQuerySerializer, {"after": "3", "wait": "10"}),
    (WaitQuerySerializer, {"after": "", "wait": "99999"}),
    (MatchEventsApi.QuerySerializer, {}),
    (MatchEventsApi.QuerySerializer, {"limit": "0", "after": "x"}),
]


def _answer(serializer: serializers.Serializer) -> tuple[bool, Any]:
    valid = serializer.is_valid()
    return valid, dict(serializer.validated_data) if valid else serializer.errors


@pytest.mark.parametrize(("flat", "data"), CASES, ids=range(len(CASES)))
def test_a_flat_serializer_answers_as_drfs_deep_copies_do(flat: type[serializers.Serializer], data: Any) -> None:
    deep = type("Deep", (flat,), {"get_fields": serializers.Serializer.get_fields})
    assert _answer(flat(data=data)) == _answer(deep(data=data))


def test_each_instance_binds_copies_of_its_own_and_none_is_deep(monkeypatch: pytest.MonkeyPatch) -> None:
    def deep(*args: object, **kwargs: object) -> NoReturn:
        raise AssertionError("a deep copy of the fields")

    monkeypatch.setattr(drf_copy, "deepcopy", deep)
    one, two = (ActionInputSerializer(data={"type": "pass"}) for _ in range(2))
    assert one.is_valid() and two.is_valid()
    for name, field in one.fields.items():
        assert field is not two.fields[name] and field is not ActionInputSerializer._declared_fields[name]
        assert field.parent is one and two.fields[name].parent is two and field.field_name == name


def test_a_serializer_with_nested_fields_is_not_flat() -> None:
    class Nested(FlatSerializer):
        inner = WaitQuerySerializer()

    class Listed(FlatSerializer):
        numbers = serializers.ListField(child=serializers.IntegerField())

    for bad in (Nested, Listed):
        with pytest.raises(TypeError, match="not a flat serializer"):
            bad(data={}).is_valid()
