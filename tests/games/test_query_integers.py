"""An integer of a query string is ASCII digits: ``1.0``, ``+1``, `` 1`` and ``１`` are refused with a 400
naming the parameter (DRF's IntegerField would take each as 1; the schema says ``type: integer``)."""

from __future__ import annotations

import pytest

from tests.games.helpers import new_player
from tests.problems import problem

pytestmark = pytest.mark.django_db

NOT_INTEGERS = ["1.0", "+1", " 1", "1 ", "１", "0x1", "1_0"]


@pytest.fixture
def me_and_match():
    me = new_player()
    match = me.post("/api/v1/matches/", {"variant": "dos", "seats": [{"player": "me"}, {"bot": "level-1"}]}).json()
    return me, f"/api/v1/matches/{match['id']}"


@pytest.mark.parametrize("value", NOT_INTEGERS)
def test_every_integer_of_a_query_refuses_what_is_not_ascii_digits(me_and_match, value):
    me, url = me_and_match
    asked = [
        (url, "after", {"wait": "0"}),
        (url, "wait", {"after": "0"}),
        (f"{url}/events", "after", {}),
        (f"{url}/events", "limit", {}),
        (f"{url}/events", "wait", {"after": "0"}),
        ("/api/v1/matches/", "page", {}),
        ("/api/v1/matches/", "page_size", {}),
        ("/api/v1/me/turns", "wait", {}),
        (f"{url}/replay", "seq", {}),
    ]
    for path, name, others in asked:
        body = problem(me.get(path, {**others, name: value}), 400, "invalid")
        assert name in body["errors"], (path, body)
    answer = me.client.get(f"{url}/stream", {"after": value}, headers={"Accept": "text/event-stream"})
    assert answer.status_code == 400 and b"after" in answer.content


def test_the_same_queries_with_digits_are_answered(me_and_match):
    me, url = me_and_match
    assert me.get(url, {"after": "1", "wait": "0"}).status_code == 200
    assert me.get(f"{url}/events", {"after": "0", "limit": "10"}).status_code == 200
    assert me.get("/api/v1/matches/", {"page": "1", "page_size": "5"}).status_code == 200
    assert me.get("/api/v1/me/turns", {"wait": "0"}).status_code == 200
    assert me.get(f"{url}/replay", {"seq": "1"}).json()["code"] == "match_not_over"  # past the query's check
    assert me.get(url, {"after": "-1"}).json()["errors"]["after"]  # a minus sign is read, then out of range
