"""An integer of a JSON body is a JSON number: the string "60" is refused with a 400 naming the field
and changes nothing (DRF's IntegerField would take it; the schema says ``type: integer``)."""

from __future__ import annotations

from typing import Any

import pytest

from games.matches.models import Event, Match
from games.rooms.models import Room
from players.models import Bot
from tests.games.helpers import new_player
from tests.problems import problem

pytestmark = pytest.mark.django_db


def _refused(answer: Any, field: str) -> None:
    body = problem(answer, 400, "invalid")
    assert field in body["errors"], body


def test_an_action_with_a_number_in_a_string_is_refused_and_plays_nothing():
    me = new_player()
    match = me.post("/api/v1/matches/", {"variant": "dos", "seats": [{"player": "me"}, {"bot": "level-1"}]}).json()
    url = f"/api/v1/matches/{match['id']}"
    view = me.get(url).json()
    assert view["legal_actions"], "had the bot the lead, its turn ran in process"
    events = Event.objects.filter(match_id=match["id"]).count()
    _refused(me.post(f"{url}/actions", {**view["legal_actions"][0], "expected_seq": str(view["seq"])}), "expected_seq")
    _refused(me.post(f"{url}/actions", {"type": "bid", "amount": "60"}), "amount")
    assert Event.objects.filter(match_id=match["id"]).count() == events
    assert me.post(f"{url}/actions", {**view["legal_actions"][0], "expected_seq": view["seq"]}).status_code == 200


def test_a_seed_a_seat_a_bots_timeout_or_a_rooms_timing_in_a_string_is_refused():
    me = new_player()
    _refused(me.post("/api/v1/matches/", {"variant": "dos", "seed": "42",
                                          "seats": [{"player": "me"}, {"bot": "level-1"}]}), "seed")  # fmt: skip
    assert not Match.objects.exists()
    waiting = me.post("/api/v1/matches/", {"variant": "dos", "seats": [{"player": "me"}, {"open": True}]}).json()
    friend = new_player()
    _refused(friend.post(f"/api/v1/matches/{waiting['id']}/join",
                         {"invite_code": waiting["invite_code"], "seat": "1"}), "seat")  # fmt: skip
    _refused(me.post("/api/v1/bots/", {"name": "stringy", "delivery": "poll", "timeout_ms": "500"}), "timeout_ms")
    assert not Bot.objects.exists()
    _refused(me.post("/api/v1/rooms/", {"variant": "dos", "table_options": {"presence_timeout": "20"}}),
             "table_options")  # fmt: skip
    assert not Room.objects.exists()
    assert me.post("/api/v1/rooms/", {"variant": "dos", "table_options": {"presence_timeout": 20.0}}).status_code == 201
