"""JSON through orjson (tute_api.json_codec): the renderer writes DRF's bytes, the parser reads DRF's values
and refuses with DRF's words, the JSON columns read back what ``json`` reads; and orjson does the work."""

from __future__ import annotations

import datetime
import decimal
import io
import json
import uuid
from typing import Any, NoReturn

import pytest
from django.db import transaction
from django.db.models.fields import json as django_json
from django.utils.functional import lazy
from rest_framework import parsers, renderers
from rest_framework.exceptions import ParseError
from rest_framework.utils.serializer_helpers import ReturnDict

from games.matches.models import Event, Match
from tests.games.helpers import new_player
from tute_api import json_codec
from tute_api.parsers import JSONParser
from tute_api.renderers import JSONRenderer

UTC = datetime.UTC
VALUES: list[Any] = [
    {"a": 1, "b": [1.5, -0.0, 0.1, 1523.4, 12345.678], "c": None, "d": True, "é": "ñandú ✓"},
    {1: "int key", "x": (1, 2)},
    ReturnDict({"ordered": 1, "dict": 2}, serializer=None),
    {"at": datetime.datetime(2026, 12, 3, 16, 20, 41, 123456, tzinfo=UTC)},
    {"at": datetime.datetime(2026, 12, 3, 16, 20, 41, tzinfo=datetime.timezone(datetime.timedelta(hours=1)))},
    {"day": datetime.date(2026, 12, 3), "id": uuid.UUID(int=7), "amount": decimal.Decimal("1.25")},
    {"lazy": lazy(lambda: "a lazy text", str)()},
    {"separators": "line\u2028paragraph\u2029end"},
    {"big": 2**70, "small": -(2**63)},
    [],
    "text",
]


@pytest.mark.parametrize("value", VALUES, ids=range(len(VALUES)))
def test_the_renderer_writes_drfs_bytes(value: Any) -> None:
    assert JSONRenderer().render(value) == renderers.JSONRenderer().render(value)


def test_a_float_in_exponent_notation_is_written_otherwise_with_the_same_value() -> None:
    value = [1e-7, 1e16, 2.5e-300]
    ours, drfs = JSONRenderer().render(value), renderers.JSONRenderer().render(value)
    assert ours == b"[1e-7,1e+16,2.5e-300]" and drfs == b"[1e-07,1e+16,2.5e-300]"
    assert json.loads(ours) == json.loads(drfs) == value


def test_a_pretty_printed_answer_is_drfs() -> None:
    value = {"a": [1, 2]}
    pretty = JSONRenderer().render(value, "application/json; indent=2")
    assert pretty == renderers.JSONRenderer().render(value, "application/json; indent=2") and b"\n" in pretty
    assert JSONRenderer().render(None) == b""


def _json_fails(monkeypatch: pytest.MonkeyPatch, module: Any) -> None:
    def failing(*args: object, **kwargs: object) -> NoReturn:
        raise AssertionError("the standard library's json was used")

    for name in ("dumps", "loads", "load"):
        monkeypatch.setattr(module.json, name, failing)


def test_orjson_does_the_work(monkeypatch: pytest.MonkeyPatch) -> None:
    _json_fails(monkeypatch, renderers)
    _json_fails(monkeypatch, parsers)
    assert JSONRenderer().render(VALUES[0]) == json.dumps(VALUES[0], separators=(",", ":"), ensure_ascii=False).encode()
    assert JSONParser().parse(io.BytesIO(b'{"card": "1o", "n": [1, 2.5]}')) == {"card": "1o", "n": [1, 2.5]}


BODIES = [
    b'{"type": "play", "card": "1o", "expected_seq": 12}',
    b'{"seed": 123456789012345678901234567890}',  # beyond 64 bits: json's integer, not orjson's float
    b'{"seed": 18446744073709551616}',
    b'{"name": "\\ud800"}',  # a lone surrogate, which json reads
    b'{"n": 1e400}',
    b'[NaN]',
    b'{"a": Infinity}',
    b"\xff\xfe",
    b"",
    b"\xef\xbb\xbf{}",
    b'{"a": 1,}',
    b'{"a": 1, "a": 2}',
]


def _parsed(parser: parsers.BaseParser, body: bytes) -> tuple[str, Any]:
    try:
        return "value", parser.parse(io.BytesIO(body), "application/json", {})
    except ParseError as error:
        return "error", str(error.detail)


@pytest.mark.parametrize("body", BODIES, ids=range(len(BODIES)))
def test_the_parser_reads_drfs_values_and_refuses_with_drfs_words(body: bytes) -> None:
    ours, drfs = _parsed(JSONParser(), body), _parsed(parsers.JSONParser(), body)
    assert repr(ours) == repr(drfs)  # repr: 1e400 is inf in both, a float that is not an int


def test_json_nested_too_deeply_is_a_parse_error() -> None:
    for body in (b"[" * 100_000, b"[" * 2_000 + b"]" * 2_000):
        with pytest.raises(ParseError):
            JSONParser().parse(io.BytesIO(body), "application/json", {})


def test_the_loader_leaves_to_json_what_orjson_could_read_otherwise() -> None:
    assert json_codec.loads('{"a": [1, 2]}') == {"a": [1, 2]} == json_codec.loads(b'{"a": [1, 2]}')
    for text in ("12345678901234567890", '"\\ud800"', "[1,]"):
        with pytest.raises(json_codec.Unsure):
            json_codec.loads(text)


@pytest.mark.django_db
def test_json_columns_read_back_what_json_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    me = new_player()
    created = me.post("/api/v1/matches/", {"variant": "dos", "seed": 3, "seats": [{"player": "me"}, {"open": True}]})
    match = Match.objects.fetch(created.json()["id"])
    assert match is not None
    odd = {"big": 2**70, "text": "ñ \u2028", "nested": [[{"1": 1.5}]], "deep": "x" * 3000}
    Event.objects.create(match=match, seq=match.seq + 1, type="t", seat=0, data=odd)
    _json_fails(monkeypatch, django_json)
    match = Match.objects.fetch(match.pk)  # the snapshot, read by orjson
    assert match is not None and match.state == Match.objects.values_list("state", flat=True).get(pk=match.pk)
    with pytest.raises(AssertionError, match="standard library"):  # a number beyond 64 bits goes to json
        Event.objects.get(match=match, seq=match.seq + 1)
    monkeypatch.undo()
    assert Event.objects.get(match=match, seq=match.seq + 1).data == odd
    # What json.dumps refuses, the column refuses too (orjson alone would write a datetime).
    for value in ({"at": datetime.datetime.now(UTC)}, {"thing": object()}):
        with pytest.raises(TypeError), transaction.atomic():
            Event.objects.create(match=match, seq=match.seq + 2, type="t", seat=0, data=value)
