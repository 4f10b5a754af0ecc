"""``?after=&wait=``: a request waits for the match to move on, and answers as soon as it does.

``waits`` (tests/waits.py) records each wait on a subscription and how it ended (woken by news, or
out of time), so that the tests say what happened rather than how long it took."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext

from tests.waits import Waits

from .helpers import human_table, new_player

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_long_poll_answers_as_soon_as_another_player_acts(waits: Waits, settings: Any):
    settings.LIVE_UPDATES_URL = ""  # in process: no row is kept (tests/live/test_kept.py), the match is read
    table = human_table("dos", {}, seed=2)
    turn = table.view(0)["hand"]["turn"]
    waiter = table.seats[1 - turn]
    seq = table.view(turn)["seq"]
    answers: list[Any] = []
    reads: list[str] = []

    def poll() -> None:
        try:
            for path in (table.url(), table.url("/events")):
                with CaptureQueriesContext(connection) as queries:
                    body = waiter.get(path, {"after": seq, "wait": 10}).json()
                answers.append(body)
                if not reads:
                    reads.extend(q["sql"] for q in queries.captured_queries if 'FROM "games_match"' in q["sql"])
        finally:
            connections.close_all()

    thread = threading.Thread(target=poll)
    thread.start()
    assert waits.begun.wait(10), "the long poll is waiting"
    assert table.seats[turn].post(table.url("/actions"), table.view(turn)["legal_actions"][0]).status_code == 200
    thread.join(15)
    view, events = answers
    assert waits == [(10, True)], "woken when the other player acted; the events' poll, past `after`, did not wait"
    assert len(reads) == 2, "the match is read once before the wait and once after it"
    assert view["seq"] > seq
    assert events and events[0]["seq"] == seq + 1 and events[0]["type"] == "card_played"


def test_a_long_poll_with_no_news_answers_after_its_wait(waits: Waits):
    table = human_table("dos", {}, seed=2)
    view = table.view(0)
    again = table.seats[0].get(table.url(), {"after": view["seq"], "wait": 1}).json()
    assert waits == [(1, False)] and again["seq"] == view["seq"]
    table.seats[0].get(table.url(), {"after": view["seq"] - 1, "wait": 10})
    assert waits == [(1, False)], "the match is already past `after`: no wait"


def test_a_long_poll_on_a_match_that_is_over_answers_at_once(waits: Waits):
    creator = new_player()
    cancelled = creator.post("/api/v1/matches/", {"variant": "dos", "seats": [{"player": "me"}, {"open": True}]}).json()
    assert creator.post(f"/api/v1/matches/{cancelled['id']}/cancel").status_code == 200
    finished = creator.post("/api/v1/matches/", {"variant": "dos", "seats": [{"player": "me"}, {"bot": "level-1"}]})
    played = finished.json()
    while played["status"] == "active":  # the bot's turns run in process, after each answer
        url = f"/api/v1/matches/{played['id']}"
        if played["legal_actions"]:
            played = creator.post(f"{url}/actions", played["legal_actions"][0]).json()
        else:
            played = creator.get(url).json()
    for match in (creator.get(f"/api/v1/matches/{cancelled['id']}").json(), played):
        assert match["status"] in ("cancelled", "finished")
        for path in ("", "/events"):
            answer = creator.get(f"/api/v1/matches/{match['id']}{path}", {"after": match["seq"], "wait": 5})
            assert answer.status_code == 200
            assert waits == [], f"{match['status']}{path}: nothing more will happen, no wait"
