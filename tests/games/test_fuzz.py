"""No input produces a 500: arbitrary JSON at every endpoint that takes a body, odd query strings."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from .helpers import Api, human_table, new_player

pytestmark = pytest.mark.django_db

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
words = st.sampled_from(
    ["play", "bid", "pass", "choose_trump", "O1", "E12", "B7", "O", "X", "me", "level-1", 75, 0, -1, True, None]
)
actions = st.fixed_dictionaries(
    {"type": words},
    optional={"card": words | scalars, "amount": words | scalars, "suit": words | scalars, "expected_seq": scalars},
)
seat_specs = st.lists(
    st.sampled_from([{"player": "me"}, {"open": True}, {"bot": "level-1"}, {"bot": "x"}]) | json_values, max_size=5
)
match_specs = st.fixed_dictionaries(
    {"variant": st.sampled_from(["clasico", "dos", "cabron", "x"]) | scalars, "seats": seat_specs | json_values},
    optional={"options": st.dictionaries(st.sampled_from(["players", "games_to_win", "x"]), scalars) | json_values,
              "seed": scalars},
)  # fmt: skip


def assert_handled(response: Any) -> None:
    assert response.status_code < 500, response.content[:300]
    if response.status_code >= 400:
        assert response["Content-Type"] == "application/problem+json"
        assert isinstance(response.json()["code"], str)


@pytest.fixture
def table():
    return human_table("subastado", {}, seed=1)


@FUZZ
@given(body=actions | json_values)
def test_any_action_body_is_answered_without_a_server_error(table, body):
    for api in table.seats:
        assert_handled(api.post(table.url("/actions"), body))


@FUZZ
@given(raw=st.binary(max_size=40) | st.text(max_size=40).map(str.encode))
@example(raw=b'{"type": "bid", "amount": NaN}')
@example(raw=b'{"type": "play", "card": "O1", "expected_seq": Infinity}')
@example(raw=b'{"type": "play", "card": "\\u0000"}')
def test_any_bytes_as_an_action_are_answered_without_a_server_error(table, raw):
    assert_handled(table.seats[0].post(table.url("/actions"), raw=raw))


@FUZZ
@given(body=match_specs | json_values)
def test_any_match_spec_is_answered_without_a_server_error(body):
    api = new_player()
    assert_handled(api.post("/api/v1/matches/", body))


@FUZZ
@given(after=st.text(max_size=8) | st.integers(-5, 2**40).map(str), limit=st.text(max_size=6),
       wait=st.sampled_from(["", "0", "-1", "0.5", "nan", "inf", "1e9", "31", "x"]))  # fmt: skip
def test_odd_query_strings_are_answered_without_a_server_error(table, after, limit, wait):
    api = table.seats[0]
    assert_handled(api.get(table.url("/events"), {"after": after, "limit": limit, "wait": wait}))
    assert_handled(api.get(table.url(), {"after": after, "wait": wait}))
    assert_handled(api.get("/api/v1/matches/", {"status": after, "variant": limit, "page": after, "page_size": limit}))


@FUZZ
@given(body=json_values, key=st.text(max_size=300))
def test_any_join_or_idempotency_key_is_answered_without_a_server_error(table, body, key):
    api = new_player()
    headers = {"Idempotency-Key": key} if key.isascii() and key.isprintable() else None
    assert_handled(api.post(table.url("/join"), body, headers=headers))
    assert_handled(Api().post("/api/v1/players/", body))
    json.dumps(body)
