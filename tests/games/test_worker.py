"""A real Celery worker, over Redis, plays the bot turns of a match to its end."""

from __future__ import annotations

import random
import time

import pytest

from games.matches.models import Match

from .helpers import choose, new_player

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_a_worker_plays_the_bots_turns_of_a_whole_match(celery_worker, settings):
    settings.BOT_LEVELS_IN_PROCESS = frozenset()  # every level to the worker, not played here after the move
    me = new_player()
    seats = [{"bot": "level-2"}, {"player": "me"}, {"bot": "level-1"}, {"bot": "level-2"}]
    created = me.post("/api/v1/matches/", {"variant": "clasico", "options": {"games_to_win": 1}, "seed": 3,
                                           "seats": seats})  # fmt: skip
    assert created.status_code == 201
    url = f"/api/v1/matches/{created.json()['id']}"
    view = created.json()
    rng = random.Random(1)
    deadline = time.monotonic() + 120
    while view["status"] == "active":
        assert time.monotonic() < deadline, "the worker did not play the bots' turns"
        if view["legal_actions"]:
            answer = me.post(f"{url}/actions", {**choose(rng, view["legal_actions"]), "expected_seq": view["seq"]})
            assert answer.status_code == 200, answer.content
            view = answer.json()
        else:  # a long poll: answers as soon as the worker has played
            view = me.get(url, {"after": view["seq"], "wait": 10}).json()
    assert view["status"] == "finished" and view["winners"]
    assert Match.objects.get(pk=view["id"]).status == "finished"
