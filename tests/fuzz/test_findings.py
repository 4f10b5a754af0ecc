"""What the schema fuzzing found (tests/fuzz/test_schema.py, docs/reliability.md "Schema fuzzing"), each
checked on its own: bad input gets a 400 problem naming what was refused, and changes nothing."""

from __future__ import annotations

import json
import re

import pytest
from django.test import override_settings

from games.matches.models import Match, Seat
from players.models import Bot
from tests.games.helpers import human_table, new_player
from tests.games.openapi import _components, validate
from tests.problems import problem
from tute_api.pagination import MAX_PAGE
from tute_api.schema import NOT_BLANK_NO_NUL

pytestmark = pytest.mark.django_db


@pytest.fixture
def me_and_match():
    me = new_player()
    match = me.post("/api/v1/matches/", {"variant": "dos", "seats": [{"player": "me"}, {"bot": "level-1"}]}).json()
    return me, f"/api/v1/matches/{match['id']}"


def test_a_query_parameter_given_empty_is_refused_not_read_as_absent(me_and_match):
    me, url = me_and_match
    asked = [
        ("/api/v1/matches/", "variant"),
        ("/api/v1/matches/", "status"),
        ("/api/v1/matches/", "page"),
        ("/api/v1/matches/", "page_size"),
        ("/api/v1/matches/live", "page"),
        ("/api/v1/ladder/runs/", "page"),
        ("/api/v1/leaderboards/dos", "page"),
        ("/api/v1/me/turns", "wait"),
        (url, "wait"),
        (url, "after"),
        (f"{url}/events", "wait"),
        (f"{url}/events", "limit"),
        ("/api/v1/me/notices", "after"),
        ("/api/v1/me/notices", "wait"),
    ]
    for path, name in asked:
        body = problem(me.get(path, {name: ""}), 400, "invalid")
        assert name in body["errors"], (path, body)


@pytest.mark.parametrize("value", ["0.0", "1.0", "+1", " 1", "\uff11"])
def test_a_query_integer_is_ascii_digits_only(me_and_match, value):
    me, url = me_and_match
    for path, name in (("/api/v1/me/notices", "after"), ("/api/v1/me/notices", "wait"), (url, "wait")):
        body = problem(me.get(path, {name: value}), 400, "invalid")
        assert name in body["errors"], (path, value, body)


def test_the_same_filters_with_values_are_answered(me_and_match):
    me, _ = me_and_match
    listed = me.get("/api/v1/matches/", {"variant": "dos", "status": "active"}).json()
    assert listed["count"] == 1
    assert me.get("/api/v1/matches/", {"variant": "clasico"}).json()["count"] == 0


def test_a_page_beyond_the_largest_is_refused_and_the_largest_is_past_the_last():
    me = new_player()
    for path in ("/api/v1/leaderboards/dos", "/api/v1/matches/", "/api/v1/matches/live", "/api/v1/ladder/runs/"):
        assert "page" in problem(me.get(path, {"page": str(MAX_PAGE + 1)}), 400, "invalid")["errors"], path
        problem(me.get(path, {"page": str(MAX_PAGE), "page_size": "100"}), 404, "not_found")


def test_the_schema_says_a_request_text_field_takes_no_nul_and_is_not_blank():
    bot_input = _components()["schemas"]["BotInput"]["properties"]["webhook_url"]
    assert bot_input["pattern"] == NOT_BLANK_NO_NUL and bot_input["minLength"] == 1
    room_variant = _components()["schemas"]["RoomInput"]["properties"]["variant"]
    assert room_variant["pattern"] == NOT_BLANK_NO_NUL
    name = _components()["schemas"]["BotInput"]["properties"]["name"]
    assert name["pattern"].startswith("^[A-Za-z0-9]"), "a field's own pattern stays"


def test_a_nul_in_a_text_field_is_refused_naming_the_field_and_changes_nothing():
    me = new_player()
    body = {"name": "nulbot", "delivery": "webhook", "webhook_url": "https://bots.example.com/\x00"}
    assert "webhook_url" in problem(me.post("/api/v1/bots/", body), 400, "invalid")["errors"]
    assert not Bot.objects.exists()
    assert "webhook_url" in problem(me.post("/api/v1/bots/", {**body, "webhook_url": ""}), 400, "invalid")["errors"]
    seats = [{"player": "me"}, {"bot": "level-1"}]
    refused = me.post("/api/v1/matches/", {"variant": "dos\x00", "seats": seats})
    assert "variant" in problem(refused, 400, "invalid")["errors"]
    assert "variant" in problem(me.post("/api/v1/rooms/", {"variant": "d\x00s"}), 400, "invalid")["errors"]
    assert not Match.objects.exists()


@pytest.mark.parametrize("blank", ["\x85", " \u3000\t", "\x1c"])
def test_text_that_trimming_leaves_blank_is_refused_and_the_schema_says_so(me_and_match, blank):
    # DRF trims what str.isspace() calls whitespace (U+0085 among it, which JSON Schema's \\s is not)
    # and then refuses a blank field: the schema's pattern refuses the same strings, no more.
    me, path = me_and_match
    pattern = _components()["schemas"]["MatchJoinInput"]["properties"]["invite_code"]["pattern"]
    assert pattern == NOT_BLANK_NO_NUL
    assert not re.fullmatch(pattern, blank) and re.fullmatch(pattern, blank + "x\ufeff")
    stranger = new_player()
    assert "invite_code" in problem(stranger.post(f"{path}/join", {"invite_code": blank}), 400, "invalid")["errors"]
    assert not Seat.objects.filter(player=stranger.player).exists()


@pytest.mark.parametrize("value", ["AAA", "", "api"])
def test_an_unknown_or_empty_format_is_bad_input_not_a_missing_page(client, value):
    response = client.get("/api/v1/rules", {"format": value})
    assert "format" in problem(response, 400, "invalid")["errors"]


def test_the_known_formats_answer(client):
    assert client.get("/api/v1/rules", {"format": "md"})["Content-Type"].startswith("text/markdown")
    assert client.get("/api/v1/rules")["Content-Type"].startswith("text/markdown")


@pytest.mark.django_db(transaction=True)
@override_settings(STREAM_MAX_SECONDS=0.3, STREAM_KEEPALIVE_SECONDS=0.1)
def test_every_message_of_the_stream_is_what_the_schema_documents():
    table = human_table("dos", {}, seed=2)
    turn = table.view(0)["hand"]["turn"]
    table.seats[turn].post(table.url("/actions"), table.view(turn)["legal_actions"][0])
    response = table.seats[0].client.get(table.url("/stream"), HTTP_ACCEPT="text/event-stream")
    text = b"".join(response.streaming_content).decode()
    messages = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if line and not line.startswith(":"))
        if "data" in fields:
            messages.append(fields)
    assert len(messages) >= 2, text
    for message in messages:
        validate("StreamMessage", message)
        event = json.loads(message["data"])
        validate("Event", event)
        assert (str(event["seq"]), event["type"]) == (message["id"], message["event"])
