"""A ladder match with its bot's turns played by a real worker: the run is advanced once it ends,
wherever the last move was made (the player's request or the worker's task)."""

from __future__ import annotations

import time

import pytest

from games.ladder.models import LadderMatch, LadderRun
from tests.games.helpers import new_player

from .helpers import MAX_STEPS

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]


def test_a_ladder_match_played_against_the_worker_advances_its_run(celery_worker):
    me = new_player()
    run = me.post("/api/v1/ladder/runs/").json()
    url = f"/api/v1/matches/{run['match']['id']}"
    view = me.get(url).json()
    for _ in range(MAX_STEPS):
        if view["status"] != "active":
            break
        if not view["legal_actions"]:  # the bot is to play, in the worker
            view = me.get(url, {"after": view["seq"], "wait": 10}).json()
            continue
        played = me.post(f"{url}/actions", {**view["legal_actions"][0], "expected_seq": view["seq"]})
        assert played.status_code == 200, played.content
        view = played.json()
    assert view["status"] == "finished"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and not LadderMatch.objects.get(match_id=run["match"]["id"]).result:
        time.sleep(0.1)  # the listener runs after the commit, in whichever process made the last move
    entry = LadderMatch.objects.get(match_id=run["match"]["id"])
    advanced = LadderRun.objects.get(pk=run["id"])
    if entry.result == "won":
        assert (advanced.state, advanced.streak, advanced.level) == ("active", 1, "level-2")
        assert LadderMatch.objects.filter(run=advanced).count() == 2
    else:
        assert (advanced.state, advanced.ended_by, advanced.streak) == ("over", entry.result, 0)
