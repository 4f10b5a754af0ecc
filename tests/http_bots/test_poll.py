"""Poll bots: a registered bot takes a seat, ``GET /me/turns`` lists its turns (a waiting poll is
woken by its turn), and it answers through the ordinary actions endpoint."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connections

from games.matches.models import Match
from tests.games.helpers import new_player
from tests.games.openapi import validate
from tests.problems import problem
from tests.waits import Waits

from .helpers import register


def vs_human(bot_id: str, bot_seat: int = 0, seed: int = 4) -> tuple[Any, dict[str, Any]]:
    human = new_player("human")
    seats: list[dict[str, Any]] = [{"player": "me"}, {"player": "me"}]
    seats[bot_seat] = {"bot": bot_id}
    created = human.post("/api/v1/matches/", {"variant": "dos", "options": {"games_to_win": 1}, "seed": seed,
                                              "seats": seats})  # fmt: skip
    assert created.status_code == 201, created.content
    return human, created.json()


@pytest.mark.django_db
def test_a_registered_bot_takes_a_seat_and_plays_its_turns_through_the_actions_endpoint():
    bot = register("poll")
    human, match = vs_human(bot.id)
    assert match["seats"][0]["player"] == {"id": bot.id, "username": bot.body["name"]}
    view = bot.bot.get(f"/api/v1/matches/{match['id']}").json()
    assert view["my_seat"] == 0, "the bot sees the match from its seat"
    for _ in range(40):
        turns = bot.bot.get("/api/v1/me/turns").json()
        validate("TurnsOutput", turns)
        mine = turns["turns"]
        if not mine:
            view = human.get(f"/api/v1/matches/{match['id']}").json()
            assert view["legal_actions"], "neither the bot nor the human is to act"
            human.post(f"/api/v1/matches/{match['id']}/actions", view["legal_actions"][0])
            continue
        (turn,) = mine
        assert turn["match_id"] == match["id"] and turn["seat"] == 0
        assert 0 <= turn["deadline_ms"] <= 2000, "a poll bot is told how long it has left of its timeout_ms"
        assert turn["legal_actions"] == turn["view"]["legal_actions"] and turn["view"]["seq"] == turn["seq"]
        acted = bot.bot.post(f"/api/v1/matches/{turn['match_id']}/actions",
                             {**turn["legal_actions"][-1], "expected_seq": turn["seq"]})  # fmt: skip
        assert acted.status_code == 200, acted.content
        stale = bot.bot.post(f"/api/v1/matches/{turn['match_id']}/actions",
                             {**turn["legal_actions"][-1], "expected_seq": turn["seq"]})  # fmt: skip
        assert problem(stale, 409, "stale_seq")["seq"] == acted.json()["seq"], "the same action again is stale"
    assert Match.objects.get(pk=match["id"]).seq > match["seq"] + 20


@pytest.mark.django_db
@pytest.mark.parametrize(
    "seats, status, code",
    [
        (lambda bot: [{"bot": bot}, {"bot": bot}], 422, "invalid_seats"),
        (lambda bot: [{"bot": "00000000-0000-0000-0000-000000000000"}, {"player": "me"}], 422, "unknown_bot"),
        (lambda bot: [{"bot": bot.upper()}, {"bot": "level-9"}], 422, "unknown_bot"),
    ],
)
def test_bad_bot_seats_are_refused(seats, status, code):
    bot = register("poll")
    body = {"variant": "dos", "seats": seats(bot.id)}
    problem(new_player().post("/api/v1/matches/", body), status, code)


@pytest.mark.django_db
def test_a_bot_cannot_take_two_seats_by_sitting_as_itself_too():
    bot = register("poll")
    problem(bot.bot.post("/api/v1/matches/", {"variant": "dos", "seats": [{"player": "me"}, {"bot": bot.id}]}),
            422, "invalid_seats")  # fmt: skip


@pytest.mark.django_db
def test_me_turns_needs_a_token_and_a_sane_wait(waits: Waits):
    from tests.games.helpers import Api

    problem(Api().get("/api/v1/me/turns"), 401, "not_authenticated")
    bot = register("poll")
    problem(bot.bot.get("/api/v1/me/turns", {"wait": 31}), 400, "invalid")
    problem(bot.bot.get("/api/v1/me/turns", {"wait": "soon"}), 400, "invalid")
    assert waits == [], "a refused wait does not wait"
    assert bot.bot.get("/api/v1/me/turns", {"wait": 1}).json() == {"turns": []}
    assert waits == [(pytest.approx(1, abs=0.1), False)], "no turn: answers empty once the whole wait ran out"


@pytest.mark.django_db(transaction=True)
def test_a_waiting_poll_is_woken_by_the_bots_turn(waits: Waits):
    bot = register("poll")
    human, match = vs_human(bot.id, bot_seat=1)
    url = f"/api/v1/matches/{match['id']}"
    for _ in range(40):  # play on until the human leads a trick: the bot answers it next
        view = human.get(url).json()
        if view["legal_actions"] and view["hand"]["phase"] == "play" and not view["hand"]["trick"]:
            break
        if view["legal_actions"]:
            human.post(f"{url}/actions", {**view["legal_actions"][0], "expected_seq": view["seq"]})
        else:
            (turn,) = bot.bot.get("/api/v1/me/turns").json()["turns"]
            bot.bot.post(f"{url}/actions", {**turn["legal_actions"][0], "expected_seq": turn["seq"]})
    assert view["legal_actions"] and not view["hand"]["trick"], "the human is to lead"
    assert bot.bot.get("/api/v1/me/turns").json() == {"turns": []}
    answers: list[dict[str, Any]] = []

    def poll() -> None:
        try:
            answers.append(bot.bot.get("/api/v1/me/turns", {"wait": 20}).json())
        finally:
            connections.close_all()

    thread = threading.Thread(target=poll)
    thread.start()
    assert waits.begun.wait(10), "the poll is waiting"
    acted = human.post(f"{url}/actions", {**view["legal_actions"][0], "expected_seq": view["seq"]})
    assert acted.status_code == 200
    thread.join(25)
    (body,) = answers
    assert waits == [(pytest.approx(20, abs=1), True)], "one wait, ended by the news of the bot's turn"
    assert [t["match_id"] for t in body["turns"]] == [match["id"]]
    assert body["turns"][0]["seq"] == acted.json()["seq"]


@pytest.mark.django_db
def test_a_registered_bot_is_no_human_for_presence():
    """A match of one human against registered bots never waits for them to be "connected" (M3)."""
    from django.utils import timezone

    from games.turns.models import Presence
    from games.turns.presence import presences_create

    bot = register("poll")
    vs_human(bot.id)
    assert presences_create(now=timezone.now()) == 0 and not Presence.objects.exists()
