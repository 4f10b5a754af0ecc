"""One bot at a time, for its owner: ``GET``, ``PATCH`` (delivery, URL, timeout, checked as at
registration) and ``DELETE`` (retire) ``/api/v1/bots/{id}``; anyone else gets 403 ``not_your_bot``."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from django.db import connection, connections

from games.matches import services as game_services
from games.matches.errors import Forbidden
from games.matches.models import Match, Seat
from players import services as player_services
from players.errors import UnknownBot
from players.models import Bot, Token
from players.services import bot_credentials_rotate
from tests import services
from tests.games.helpers import Api, new_player
from tests.games.openapi import validate
from tests.problems import problem

from .helpers import Receiver, delete, patch, register

pytestmark = pytest.mark.django_db

NOBODY = "00000000-0000-0000-0000-000000000000"


def stored(bot_id: str) -> dict[str, Any]:
    return dict(Bot.objects.filter(pk=bot_id).values("delivery", "webhook_url", "timeout_ms", "retired_at").get())


def test_the_owner_gets_the_bot_as_the_list_shows_it():
    bot = register("poll", timeout_ms=1500)
    got = bot.owner.get(f"/api/v1/bots/{bot.id}")
    assert got.status_code == 200
    validate("BotOutput", got.json())
    assert got.json() == bot.owner.get("/api/v1/bots/").json()[0]
    assert got.json()["timeout_ms"] == 1500 and got.json()["webhook_url"] is None


def test_anyone_but_the_owner_is_refused_as_by_the_other_bot_endpoints():
    bot = register("poll")
    before = stored(bot.id)
    for caller in (new_player(), bot.bot):  # a stranger, and the bot itself
        problem(caller.get(f"/api/v1/bots/{bot.id}"), 403, "not_your_bot")
        problem(patch(caller, f"/api/v1/bots/{bot.id}", {"timeout_ms": 500}), 403, "not_your_bot")
        problem(patch(caller, f"/api/v1/bots/{bot.id}", {"timeout_ms": 5}), 403, "not_your_bot")  # not a 400
        problem(delete(caller, f"/api/v1/bots/{bot.id}"), 403, "not_your_bot")
    problem(bot.owner.get(f"/api/v1/bots/{NOBODY}"), 404, "unknown_bot")
    problem(patch(bot.owner, f"/api/v1/bots/{NOBODY}", {"timeout_ms": 500}), 404, "unknown_bot")
    problem(delete(bot.owner, f"/api/v1/bots/{NOBODY}"), 404, "unknown_bot")
    problem(Api().get(f"/api/v1/bots/{bot.id}"), 401, "not_authenticated")
    assert stored(bot.id) == before and bot.bot.get("/api/v1/players/me").status_code == 200


def test_patch_switches_a_poll_bot_to_webhook_and_back(receiver: Receiver):
    bot = register("poll")
    url = f"/api/v1/bots/{bot.id}"
    changed = patch(bot.owner, url, {"delivery": "webhook", "webhook_url": receiver.url, "timeout_ms": 3000})
    assert changed.status_code == 200, changed.content
    validate("BotOutput", changed.json())
    assert changed.json() | {"created_at": None} == {
        "id": bot.id, "name": bot.body["name"], "delivery": "webhook", "webhook_url": receiver.url,
        "timeout_ms": 3000, "created_at": None,
    }  # fmt: skip
    assert stored(bot.id) == {"delivery": "webhook", "webhook_url": receiver.url, "timeout_ms": 3000,
                              "retired_at": None}  # fmt: skip
    created = bot.owner.post("/api/v1/matches/", {"variant": "dos", "options": {"games_to_win": 1}, "seed": 4,
                                                  "seats": [{"bot": bot.id}, {"bot": "level-2"}]})  # fmt: skip
    assert created.status_code == 201
    assert receiver.calls and Match.objects.get(pk=created.json()["id"]).status == "finished", "it is called now"
    back = patch(bot.owner, url, {"delivery": "poll"})
    assert back.status_code == 200, back.content
    assert back.json()["delivery"] == "poll" and back.json()["webhook_url"] is None, "turning to poll drops the URL"
    assert stored(bot.id) == {"delivery": "poll", "webhook_url": "", "timeout_ms": 3000, "retired_at": None}
    assert bot.owner.get(url).json() == back.json()


def test_patch_changes_only_what_it_is_given(receiver: Receiver):
    bot = register("webhook", webhook_url=receiver.url, timeout_ms=700)
    url = f"/api/v1/bots/{bot.id}"
    assert patch(bot.owner, url, {"timeout_ms": 900}).json()["webhook_url"] == receiver.url
    assert stored(bot.id) == {"delivery": "webhook", "webhook_url": receiver.url, "timeout_ms": 900, "retired_at": None}
    other = receiver.url + "other"
    assert patch(bot.owner, url, {"webhook_url": other}).json()["webhook_url"] == other
    assert patch(bot.owner, url, {}).status_code == 200
    assert stored(bot.id) == {"delivery": "webhook", "webhook_url": other, "timeout_ms": 900, "retired_at": None}


@pytest.mark.parametrize(
    "start, change, status, code",
    [
        ("poll", {"delivery": "webhook"}, 422, "invalid_webhook_url"),
        ("poll", {"webhook_url": "http://127.0.0.1/"}, 422, "invalid_webhook_url"),
        ("poll", {"delivery": "webhook", "webhook_url": "ftp://bots.example.com/"}, 422, "invalid_webhook_url"),
        ("poll", {"delivery": "webhook", "webhook_url": "http://user:pw@127.0.0.1/"}, 422, "invalid_webhook_url"),
        ("poll", {"delivery": "webhook", "webhook_url": "not a url", "timeout_ms": 900}, 422, "invalid_webhook_url"),
        ("webhook", {"webhook_url": None}, 422, "invalid_webhook_url"),
        ("webhook", {"delivery": "poll", "webhook_url": "http://127.0.0.1/"}, 422, "invalid_webhook_url"),
        ("webhook", {"webhook_url": "http://127.0.0.1:99999/", "timeout_ms": 900}, 422, "invalid_webhook_url"),
        ("poll", {"timeout_ms": 99}, 400, "invalid"),
        ("poll", {"timeout_ms": 10_001}, 400, "invalid"),
        ("webhook", {"timeout_ms": "soon"}, 400, "invalid"),
        ("poll", {"delivery": "carrier-pigeon"}, 400, "invalid"),
        ("webhook", {"webhook_url": ["x"]}, 400, "invalid"),
        ("webhook", {"webhook_url": ""}, 400, "invalid"),
    ],
)
def test_a_bad_patch_is_refused_with_the_registration_codes_and_changes_nothing(start, change, status, code):
    spec = {"webhook_url": "http://127.0.0.1:8080/hook", "timeout_ms": 700} if start == "webhook" else {}
    bot = register(start, **spec)
    before = stored(bot.id)
    problem(patch(bot.owner, f"/api/v1/bots/{bot.id}", change), status, code)
    assert stored(bot.id) == before


@pytest.mark.parametrize("url", ["http://127.0.0.1:8080/", "http://10.1.2.3/", "http://[::1]/",
                                 "http://169.254.169.254/"])  # fmt: skip
def test_patch_refuses_private_webhooks_unless_allowed(settings, url):
    bot = register("poll")
    settings.BOT_WEBHOOK_ALLOW_PRIVATE = False
    change = {"delivery": "webhook", "webhook_url": url}
    problem(patch(bot.owner, f"/api/v1/bots/{bot.id}", change), 422, "webhook_address_not_allowed")
    assert stored(bot.id)["delivery"] == "poll"


def seated_with_a_human(bot_id: str, open_seat: bool = False) -> tuple[Api, str]:
    human = new_player("human")
    seats = [{"bot": bot_id}, {"open": True} if open_seat else {"player": "me"}]
    created = human.post("/api/v1/matches/", {"variant": "dos", "options": {"games_to_win": 1}, "seats": seats})
    assert created.status_code == 201, created.content
    return human, created.json()["id"]


@pytest.mark.parametrize("status", ["active", "waiting"])
def test_a_bot_in_a_waiting_or_active_match_is_not_retired(status):
    bot = register("poll")
    _, match_id = seated_with_a_human(bot.id, open_seat=status == "waiting")
    assert Match.objects.get(pk=match_id).status == status
    body = problem(delete(bot.owner, f"/api/v1/bots/{bot.id}"), 409, "bot_in_play")
    assert body["match_id"] == match_id
    assert stored(bot.id)["retired_at"] is None
    assert bot.bot.get("/api/v1/players/me").status_code == 200, "its token still works"
    assert [b["id"] for b in bot.owner.get("/api/v1/bots/").json()] == [bot.id]


def test_a_retired_bot_loses_its_token_its_listing_and_its_seat_but_keeps_its_records():
    bot = register("poll")
    human, match_id = seated_with_a_human(bot.id)
    Match.objects.filter(pk=match_id).update(status="finished")  # its match is over
    retired = delete(bot.owner, f"/api/v1/bots/{bot.id}")
    assert retired.status_code == 204 and not retired.content
    problem(bot.bot.get("/api/v1/players/me"), 401, "authentication_failed")
    problem(bot.bot.get("/api/v1/me/turns"), 401, "authentication_failed")
    assert not Token.objects.filter(player_id=bot.id).exists()
    assert bot.owner.get("/api/v1/bots/").json() == []
    problem(bot.owner.get(f"/api/v1/bots/{bot.id}"), 404, "unknown_bot")
    problem(delete(bot.owner, f"/api/v1/bots/{bot.id}"), 404, "unknown_bot")
    problem(patch(bot.owner, f"/api/v1/bots/{bot.id}", {"timeout_ms": 500}), 404, "unknown_bot")
    problem(bot.owner.post(f"/api/v1/bots/{bot.id}/token"), 404, "unknown_bot")  # no way back in
    problem(bot.owner.get(f"/api/v1/bots/{bot.id}/stats"), 404, "unknown_bot")
    refused = human.post("/api/v1/matches/", {"variant": "dos", "seats": [{"bot": bot.id}, {"player": "me"}]})
    problem(refused, 422, "unknown_bot")
    assert Seat.objects.filter(match_id=match_id, player_id=bot.id).exists(), "its finished match keeps its seat"
    view = human.get(f"/api/v1/matches/{match_id}").json()
    assert view["seats"][0]["player"] == {"id": bot.id, "username": bot.body["name"]}
    assert stored(bot.id)["retired_at"] is not None


def test_retiring_one_bot_leaves_the_owners_others_alone():
    first = register("poll")
    second = register("poll", owner=first.owner)
    assert delete(first.owner, f"/api/v1/bots/{first.id}").status_code == 204
    assert [b["id"] for b in first.owner.get("/api/v1/bots/").json()] == [second.id]
    assert second.bot.get("/api/v1/players/me").status_code == 200
    assert first.owner.get("/api/v1/players/me").status_code == 200, "the owner's own token is untouched"


@pytest.mark.django_db(transaction=True)
def test_two_creates_seating_the_same_bots_in_other_orders_do_not_deadlock(monkeypatch):
    if connection.vendor != "postgresql":
        services.missing("row locks need PostgreSQL (DATABASE_URL); .ci/run sets it")
    owner = new_player("owner")
    one, two = register("poll", owner=owner), register("poll", owner=owner)
    locked = game_services.bot_player_locked

    def slowly(bot_id: str) -> Any:
        found = locked(bot_id)
        time.sleep(0.3)  # holding the row's lock, as a busy server might
        return found

    monkeypatch.setattr(game_services, "bot_player_locked", slowly)
    answers: list[int] = []

    def create(seats: list[Any]) -> None:
        try:
            answers.append(owner.post("/api/v1/matches/", {"variant": "dos", "seats": seats}).status_code)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=create, args=(seats,)) for seats in
               ([{"bot": one.id}, {"bot": two.id}], [{"bot": two.id}, {"bot": one.id}])]  # fmt: skip
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert answers == [201, 201]


def test_a_bot_retired_while_its_credentials_are_rotated_gets_no_token():
    bot = register("poll")
    loaded = Bot.objects.get(pk=bot.id)  # what the rotation's view had read
    assert delete(bot.owner, f"/api/v1/bots/{bot.id}").status_code == 204
    with pytest.raises(UnknownBot):
        bot_credentials_rotate(bot=loaded)
    assert not Token.objects.filter(player_id=bot.id).exists()


@pytest.mark.django_db(transaction=True)
def test_two_rotations_at_once_leave_one_token(monkeypatch):
    if connection.vendor != "postgresql":
        services.missing("row locks need PostgreSQL (DATABASE_URL); .ci/run sets it")
    me = new_player("rotating")
    issue = player_services._token_issue

    def slowly(*, player: Any) -> str:
        token = issue(player=player)
        time.sleep(0.3)  # the new token inserted, not yet committed
        return token

    monkeypatch.setattr(player_services, "_token_issue", slowly)
    answers: list[int] = []

    def rotate() -> None:
        try:
            answers.append(me.post("/api/v1/players/me/token").status_code)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=rotate) for _ in range(2)]
    for thread in threads:
        thread.start()
        time.sleep(0.05)
    for thread in threads:
        thread.join(30)
    assert 201 in answers
    assert Token.objects.filter(player_id=me.player.pk).count() == 1, "one token works, whichever rotation won"


def test_a_bot_retired_while_it_joins_a_match_takes_no_seat():
    """The join had authenticated with the bot's token before the retirement deleted it."""
    bot = register("poll")
    player = Bot.objects.get(pk=bot.id).player  # what the join's authentication had found
    host = new_player("host")
    created = host.post("/api/v1/matches/", {"variant": "dos", "seats": [{"player": "me"}, {"open": True}]}).json()
    assert delete(bot.owner, f"/api/v1/bots/{bot.id}").status_code == 204
    with pytest.raises(Forbidden):
        game_services.match_join(player=player, match_id=created["id"], invite_code=created["invite_code"])
    assert not Seat.objects.filter(match_id=created["id"], player_id=bot.id).exists()
