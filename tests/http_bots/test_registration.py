"""Registering bots: token and secret once, the bot is a player, rotation, URL checks, stats for the owner only."""

from __future__ import annotations

import socket
from unittest import mock

import pytest

from players import services as player_services
from tests.games.helpers import Api, new_player
from tests.games.openapi import validate
from tests.problems import problem

from .helpers import delete, register

pytestmark = pytest.mark.django_db


def test_a_registered_bot_gets_its_token_and_secret_once_and_is_a_player():
    bot = register("poll")
    validate("BotWithCredentialsOutput", bot.body)
    assert bot.body["delivery"] == "poll" and bot.body["webhook_url"] is None and bot.body["timeout_ms"] == 2000
    assert len(bot.body["secret"]) == 64 and bot.body["token"]
    me = bot.bot.get("/api/v1/players/me").json()
    assert me["id"] == bot.id and me["username"] == bot.body["name"], "the bot's id is its player's id"
    listed = bot.owner.get("/api/v1/bots/").json()
    assert [b["id"] for b in listed] == [bot.id]
    assert "token" not in listed[0] and "secret" not in listed[0], "credentials are shown once"
    validate("BotOutput", listed, many=True)
    assert new_player().get("/api/v1/bots/").json() == [], "only one's own bots are listed"


def test_rotating_gives_a_new_token_and_secret_and_the_old_token_stops_working():
    bot = register("poll")
    rotated = bot.owner.post(f"/api/v1/bots/{bot.id}/token")
    assert rotated.status_code == 201
    body = rotated.json()
    assert body["token"] != bot.body["token"] and body["secret"] != bot.body["secret"]
    problem(bot.bot.get("/api/v1/players/me"), 401, "authentication_failed")
    assert Api(body["token"]).get("/api/v1/players/me").json()["id"] == bot.id


def test_only_the_owner_sees_the_stats_or_rotates():
    bot = register("poll")
    stats = bot.owner.get(f"/api/v1/bots/{bot.id}/stats")
    assert stats.status_code == 200
    validate("BotStatsOutput", stats.json())
    assert stats.json()["turns"] == 0 and stats.json()["latency_ms"]["p50"] is None
    stranger = new_player()
    problem(stranger.get(f"/api/v1/bots/{bot.id}/stats"), 403, "not_your_bot")
    problem(stranger.post(f"/api/v1/bots/{bot.id}/token"), 403, "not_your_bot")
    problem(bot.bot.get(f"/api/v1/bots/{bot.id}/stats"), 403, "not_your_bot")
    problem(bot.bot.post(f"/api/v1/bots/{bot.id}/token"), 403, "not_your_bot")
    problem(bot.bot.post("/api/v1/players/me/token"), 403, "not_your_bot")
    assert bot.bot.get("/api/v1/players/me").status_code == 200, "the bot's token still works"
    problem(bot.owner.get("/api/v1/bots/00000000-0000-0000-0000-000000000000/stats"), 404, "unknown_bot")
    problem(Api().get(f"/api/v1/bots/{bot.id}/stats"), 401, "not_authenticated")


@pytest.mark.parametrize(
    "spec, status, code",
    [
        ({"delivery": "webhook"}, 422, "invalid_webhook_url"),
        ({"delivery": "webhook", "webhook_url": "ftp://bots.example.com/"}, 422, "invalid_webhook_url"),
        ({"delivery": "webhook", "webhook_url": "file:///etc/passwd"}, 422, "invalid_webhook_url"),
        ({"delivery": "webhook", "webhook_url": "http://user:pw@127.0.0.1/"}, 422, "invalid_webhook_url"),
        ({"delivery": "webhook", "webhook_url": "http://127.0.0.1:99999/"}, 422, "invalid_webhook_url"),
        ({"delivery": "webhook", "webhook_url": "http://[::1/"}, 422, "invalid_webhook_url"),
        ({"delivery": "webhook", "webhook_url": "not a url"}, 422, "invalid_webhook_url"),
        ({"delivery": "webhook", "webhook_url": "http://127.0.0.1/tüte"}, 422, "invalid_webhook_url"),
        ({"delivery": "webhook", "webhook_url": "http://пример.рф/"}, 422, "invalid_webhook_url"),
        ({"delivery": "poll", "webhook_url": "https://bots.example.com/"}, 422, "invalid_webhook_url"),
        ({"delivery": "webhook", "webhook_url": "http://127.0.0.1/", "timeout_ms": 50}, 400, "invalid"),
        ({"delivery": "carrier-pigeon"}, 400, "invalid"),
        ({"delivery": "webhook", "webhook_url": ["x"]}, 400, "invalid"),
        ({"name": "a b", "delivery": "poll"}, 400, "invalid"),
    ],
)
def test_bad_registrations_are_refused_with_a_code(spec, status, code):
    owner = new_player()
    problem(owner.post("/api/v1/bots/", {"name": "some-bot", **spec}), status, code)


def test_a_taken_name_is_refused():
    owner = new_player()
    problem(owner.post("/api/v1/bots/", {"name": owner.username, "delivery": "poll"}), 409, "username_taken")


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:8080/", "http://localhost/", "https://10.1.2.3/", "http://[::1]/", "http://169.254.169.254/",
            "http://[::ffff:127.0.0.1]/", "http://0.0.0.0/", "http://[64:ff9b::a9fe:a9fe]/", "http://[2002:7f00:1::1]/"],
)  # fmt: skip
def test_private_and_loopback_webhooks_are_refused_unless_allowed(settings, url):
    settings.BOT_WEBHOOK_ALLOW_PRIVATE = False
    owner = new_player()
    problem(owner.post("/api/v1/bots/", {"name": "b-" + str(abs(hash(url)))[:8], "delivery": "webhook",
                                         "webhook_url": url}), 422, "webhook_address_not_allowed")  # fmt: skip


def test_every_address_a_name_resolves_to_is_checked(settings):
    """A name with one public and one private address (a DNS trick) is refused."""
    settings.BOT_WEBHOOK_ALLOW_PRIVATE = False
    answers = [
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.215.14", 443)),
        (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.0.0.7", 443)),
    ]
    owner = new_player()
    with mock.patch("socket.getaddrinfo", return_value=answers):
        body = problem(owner.post("/api/v1/bots/", {"name": "tricky", "delivery": "webhook",
                                                    "webhook_url": "https://bots.example.com/tute"}),
                       422, "webhook_address_not_allowed")  # fmt: skip
    assert body["address"] == "10.0.0.7"
    with mock.patch("socket.getaddrinfo", return_value=answers[:1]):
        created = owner.post("/api/v1/bots/", {"name": "public", "delivery": "webhook",
                                               "webhook_url": "https://bots.example.com/tute"})  # fmt: skip
    assert created.status_code == 201, created.content
    assert created.json()["webhook_url"] == "https://bots.example.com/tute"


@pytest.mark.parametrize("family, address", [(socket.AF_INET, "224.0.0.1"), (socket.AF_INET6, "ff0e::1")])
def test_a_name_resolving_to_a_multicast_address_is_refused(settings, family, address):
    """Global-scope multicast counts as global to ``ipaddress``, but no bot listens there."""
    settings.BOT_WEBHOOK_ALLOW_PRIVATE = False
    owner = new_player()
    with mock.patch("socket.getaddrinfo", return_value=[(family, socket.SOCK_STREAM, 6, "", (address, 80))]):
        body = problem(owner.post("/api/v1/bots/", {"name": "multicast", "delivery": "webhook",
                                                    "webhook_url": "http://bots.example.com/"}),
                       422, "webhook_address_not_allowed")  # fmt: skip
    assert body["address"] == address


def test_a_host_that_does_not_resolve_is_refused():
    owner = new_player()
    with mock.patch("socket.getaddrinfo", side_effect=socket.gaierror("no such host")):
        problem(owner.post("/api/v1/bots/", {"name": "nowhere", "delivery": "webhook",
                                             "webhook_url": "https://nowhere.invalid/"}), 422, "invalid_webhook_url")


def test_a_player_owns_at_most_so_many_bots_retired_ones_aside(monkeypatch):
    monkeypatch.setattr(player_services, "MAX_BOTS_PER_OWNER", 2)
    owner = new_player()
    first, _ = (register("poll", owner=owner) for _ in range(2))
    refused = problem(owner.post("/api/v1/bots/", {"name": "third", "delivery": "poll"}), 409, "too_many_bots")
    assert refused["limit"] == 2
    assert new_player().post("/api/v1/bots/", {"name": "others", "delivery": "poll"}).status_code == 201
    assert delete(owner, f"/api/v1/bots/{first.id}").status_code == 204
    assert owner.post("/api/v1/bots/", {"name": "third", "delivery": "poll"}).status_code == 201


def test_a_bot_registers_no_bots():
    bot = register("poll")
    problem(bot.bot.post("/api/v1/bots/", {"name": "grandchild", "delivery": "poll"}), 403, "not_your_bot")


def test_a_webhook_on_a_port_other_than_80_and_443_is_refused_unless_allowed(settings):
    """``http://8.8.8.8:6379/`` names a public address, but the port of a database, not of a bot."""
    settings.BOT_WEBHOOK_ALLOW_PRIVATE = False
    owner = new_player()
    public = [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.215.14", 6379))]
    with mock.patch("socket.getaddrinfo", return_value=public):
        body = problem(owner.post("/api/v1/bots/", {"name": "redisbot", "delivery": "webhook",
                                                    "webhook_url": "http://bots.example.com:6379/"}),
                       422, "webhook_address_not_allowed")  # fmt: skip
        assert "80, 443" in body["detail"] and "6379" in body["detail"]
        settings.WEBHOOK_ALLOWED_PORTS = [443, 8443]
        created = owner.post("/api/v1/bots/", {"name": "altport", "delivery": "webhook",
                                               "webhook_url": "https://bots.example.com:8443/tute"})  # fmt: skip
        assert created.status_code == 201, created.content
        for url in ("http://bots.example.com/", "https://bots.example.com:8080/"):
            problem(owner.post("/api/v1/bots/", {"name": "noport", "delivery": "webhook", "webhook_url": url}),
                    422, "webhook_address_not_allowed")  # fmt: skip
