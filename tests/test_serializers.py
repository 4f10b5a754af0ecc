"""tute_api.serializers.FlatSerializer: one set of fields per class, bound once, with DRF's answers in
any thread; no deep copy made; a serializer with nested fields refused."""

from __future__ import annotations

from typing import Any, NoReturn

import pytest
from rest_framework import serializers
from rest_framework.serializers import copy as drf_copy

from games.live.apis import MatchEventsApi, WaitQuerySerializer
from games.matches.serializers import ActionInputSerializer
from tute_api.serializers import FlatSerializer

PASS = {"type": "pass"}
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


def test_the_instances_of_a_class_share_one_set_of_fields_bound_once_and_none_is_deep(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def deep(*args: object, **kwargs: object) -> NoReturn:
        raise AssertionError("a deep copy of the fields")

    monkeypatch.setattr(drf_copy, "deepcopy", deep)
    one, two = (ActionInputSerializer(data=PASS) for _ in range(2))
    assert one.is_valid() and two.is_valid()
    for name, field in one.fields.items():
        assert field is two.fields[name] and field is not ActionInputSerializer._declared_fields[name]
        assert field.parent is not one and field.parent is not two and field.field_name == name
    assert "fields" not in one.__dict__  # nothing bound to the instance: no cycle to untie
    # Partial, or with a context: fields of its own (the shared ones would read another root's).
    for own in (ActionInputSerializer(data=PASS, partial=True), ActionInputSerializer(data=PASS, context={"a": 1})):
        field = own.fields["type"]
        assert field is not one.fields["type"] and field.parent is own
        own.is_valid()
        assert "fields" not in own.__dict__  # untied once validated


def test_threads_validating_with_the_shared_fields_each_get_their_own_answer() -> None:
    """The shared fields keep nothing of what they validate: every thread's answer is its data's."""
    import threading

    expected = [_answer(flat(data=data)) for flat, data in CASES]
    wrong: list[object] = []

    def check() -> None:
        for _ in range(200):
            for (flat, data), answer in zip(CASES, expected, strict=True):
                if _answer(flat(data=data)) != answer:
                    wrong.append((flat, data))

    workers = [threading.Thread(target=check) for _ in range(6)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert wrong == []


def test_a_serializer_with_nested_fields_is_not_flat() -> None:
    class Nested(FlatSerializer):
        inner = WaitQuerySerializer()

    class Listed(FlatSerializer):
        numbers = serializers.ListField(child=serializers.IntegerField())

    for bad in (Nested, Listed):
        with pytest.raises(TypeError, match="not a flat serializer"):
            bad(data={}).is_valid()
