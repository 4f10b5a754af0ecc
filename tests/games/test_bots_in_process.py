"""The quick built-in bots (``BOT_LEVELS_IN_PROCESS``) play inside the player's move before them (an
action, a match's start), or (after a service's event, or a play inside that failed) in the process that
committed the move before, after its answer; the other levels, a turn that failed there and what follows
go to a worker (games/turns/builtin.py)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from django.db import OperationalError

from games import engine
from games.matches import moves
from games.matches.models import Event, Match
from games.turns import builtin

from .helpers import Api, Visibility, assert_no_leak, choose, new_player
from .openapi import validate

pytestmark = pytest.mark.django_db


@pytest.fixture
def queued(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, int]]:
    """The turns sent to a worker (recorded, not played)."""
    calls: list[tuple[str, int]] = []
    monkeypatch.setattr(builtin, "bot_turns_queue", lambda match_id, seq: calls.append((str(match_id), seq)))
    return calls


def clasico(me: Api, seats: list[dict[str, Any]]) -> str:
    created = me.post("/api/v1/matches/", {"variant": "clasico", "options": {"games_to_win": 1}, "seed": 3,
                                           "seats": seats})  # fmt: skip
    assert created.status_code == 201, created.content
    return str(created.json()["id"])


def act(me: Api, match_id: str, rng: random.Random) -> dict[str, Any]:
    view = me.get(f"/api/v1/matches/{match_id}").json()
    assert view["legal_actions"], "the caller is not to act"
    answer = me.post(f"/api/v1/matches/{match_id}/actions", {**choose(rng, view["legal_actions"]),
                                                             "expected_seq": view["seq"]})  # fmt: skip
    assert answer.status_code == 200, answer.content
    return dict(answer.json())


def test_quick_bots_answer_a_move_inside_it_with_nothing_queued(queued: list[tuple[str, int]]):
    me = new_player()
    match_id = clasico(me, [{"player": "me"}, {"bot": "level-1"}, {"bot": "level-2"}, {"bot": "level-1"}])
    rng = random.Random(1)
    answered = 0
    for _ in range(12):
        answer = act(me, match_id, rng)
        match = Match.objects.get(pk=match_id)
        if match.status != "active":
            break
        assert match.turn == answer["my_seat"], "the match did not come back to the human"
        if not answer["legal_actions"]:  # the move left the turn to the bots: they answered it
            assert match.seq > answer["seq"]
            answered += 1
    assert answered >= 3
    assert queued == [], "a quick bot's turn was sent to a worker"


def test_the_answer_shows_the_match_right_after_the_action_and_a_retry_gives_it_again():
    me = new_player()
    match_id = clasico(me, [{"player": "me"}, {"bot": "level-1"}, {"bot": "level-1"}, {"bot": "level-1"}])
    rng = random.Random(3)
    for _ in range(12):
        view = me.get(f"/api/v1/matches/{match_id}").json()
        action = {**choose(rng, view["legal_actions"]), "expected_seq": view["seq"]}
        key = {"Idempotency-Key": f"move-{view['seq']}"}
        answer = me.post(f"/api/v1/matches/{match_id}/actions", action, headers=key).json()
        if answer["legal_actions"] or answer["status"] != "active":
            continue  # the human won the trick (or the match): no bot followed
        mine = Event.objects.filter(match_id=match_id, seq__gt=view["seq"], seq__lte=answer["seq"])
        assert [e.seat for e in mine if e.type == "card_played"] == [answer["my_seat"]]
        assert Match.objects.get(pk=match_id).seq > answer["seq"], "the bots' turns were not recorded with it"
        again = me.post(f"/api/v1/matches/{match_id}/actions", action, headers=key)
        assert again.status_code == 200 and again.json() == answer
        return
    pytest.fail("no action of the human was followed by the bots")


def test_show_latest_answers_with_the_quick_bots_turns_and_a_match_is_played_with_posts_alone():
    """``?show=latest``: the caller's view as the action left the match, the quick bots' turns recorded with it
    (the body ``GET`` then gives, the caller's turn again), with no card the seat could not see; a whole match
    played with nothing but its POSTs."""
    me = new_player()
    match_id = clasico(me, [{"player": "me"}, {"bot": "level-1"}, {"bot": "level-2"}, {"bot": "level-1"}])
    url = f"/api/v1/matches/{match_id}"
    view = me.get(url).json()
    rng = random.Random(5)
    moved_on = 0
    for _ in range(200):
        if view["status"] != "active":
            break
        action = {**choose(rng, view["legal_actions"]), "expected_seq": view["seq"]}
        answer = me.post(f"{url}/actions?show=latest", action)
        assert answer.status_code == 200, answer.content
        latest = answer.json()
        assert latest == me.get(url).json(), "the match as it stands"
        validate("Match", latest)
        vis = Visibility(match_id, 4)
        assert_no_leak(vis, latest["my_seat"], latest, latest["seq"], "the latest view")
        assert latest["legal_actions"] or latest["status"] != "active", "the quick bots answered inside"
        moved_on += latest["seq"] > view["seq"] + 1  # bots played between
        view = latest
    assert view["status"] == "finished" and moved_on >= 3


def test_show_takes_move_or_latest_and_anything_else_plays_nothing():
    me = new_player()
    match_id = clasico(me, [{"player": "me"}, {"bot": "level-1"}, {"bot": "level-1"}, {"bot": "level-1"}])
    url = f"/api/v1/matches/{match_id}"
    view = me.get(url).json()
    action = {**view["legal_actions"][0], "expected_seq": view["seq"]}
    for bad in ("everything", "", "LATEST"):
        refused = me.post(f"{url}/actions?show={bad}", action)
        assert refused.status_code == 400 and refused.json()["code"] == "invalid", refused.content
        assert "show" in refused.json()["errors"], refused.content
    assert me.get(url).json()["seq"] == view["seq"], "a refused request played nothing"
    moved = me.post(f"{url}/actions?show=move", action)
    assert moved.status_code == 200 and moved.json()["seq"] == view["seq"] + 1, "the view right after the card"


def test_a_slower_level_is_queued_for_a_worker(queued: list[tuple[str, int]]):
    me = new_player()
    match_id = clasico(me, [{"player": "me"}, {"bot": "level-3"}, {"bot": "level-3"}, {"bot": "level-3"}])
    match = Match.objects.get(pk=match_id)
    if match.turn != 0:  # a bot leads: its turn was queued, not played here
        assert queued == [(match_id, match.seq)]
        builtin.bot_turns_play(match_id=match_id, seq=match.seq)
    answer = act(me, match_id, random.Random(1))
    assert queued[-1] == (match_id, answer["seq"]), "the level-3 turn after the move was not queued"
    assert Match.objects.get(pk=match_id).seq == answer["seq"], "a level-3 bot played in process"


def test_in_process_play_stops_at_a_slower_bot_and_queues_its_turn(queued: list[tuple[str, int]]):
    me = new_player()
    seats = [{"player": "me"}, {"bot": "level-1"}, {"bot": "level-3"}, {"bot": "level-1"}]
    match_id = clasico(me, seats)
    rng = random.Random(2)
    handed_on = 0
    for _ in range(20):
        match = Match.objects.get(pk=match_id)
        if match.status != "active":
            break
        assert match.turn is not None and seats[match.turn].get("bot") != "level-1", "a level-1 turn was left"
        if match.turn == 2:  # level-3 to act: its turn went to a worker, at the seq the match stands at
            assert queued[-1] == (match_id, match.seq)
            handed_on += 1
            builtin.bot_turns_play(match_id=match_id, seq=match.seq)  # as the worker would
        else:
            act(me, match_id, rng)
    assert handed_on >= 2, "the level-3 bot was never reached"


def test_a_bot_that_fails_inside_an_action_fails_no_action_and_its_turn_is_handed_on(
    queued: list[tuple[str, int]], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
):
    me = new_player()
    match_id = clasico(me, [{"player": "me"}, {"bot": "level-1"}, {"bot": "level-1"}, {"bot": "level-1"}])
    monkeypatch.setattr(moves, "choose_action", _broken_bot)
    rng = random.Random(1)
    for _ in range(10):
        answer = act(me, match_id, rng)
        if not answer["legal_actions"]:  # a bot is to act: it failed inside the action, then after it
            break
    assert Match.objects.get(pk=match_id).seq == answer["seq"], "only the player's move is recorded"
    assert queued == [(match_id, answer["seq"])], "the bot's turn was not handed to a worker"
    assert "quick bots after a move" in caplog.text and "failed in process; queued" in caplog.text


def _broken_bot(*args: Any) -> dict[str, Any]:
    raise RuntimeError("a bug in a bot")


def dos_bot_leads(me: Api) -> tuple[dict[str, Any], int]:
    """A match of ``dos`` whose first lead is the bot's (seed 1): the creation's answer, and the bot's seat."""
    lead = engine.current_seat(engine.new_match("dos", {}, seed=1).state)
    seats = [{"bot": "level-1"} if seat == lead else {"player": "me"} for seat in range(2)]
    created = me.post("/api/v1/matches/", {"variant": "dos", "seed": 1, "seats": seats})
    assert created.status_code == 201, created.content
    return dict(created.json()), lead


def test_a_bot_that_leads_a_new_match_plays_inside_its_creation_and_the_answer_shows_the_deal(
    queued: list[tuple[str, int]], monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setattr(builtin, "bot_turns_play", _database_away)  # no play after the answer could help
    answer, lead = dos_bot_leads(new_player())
    match = Match.objects.get(pk=answer["id"])
    assert match.seating[match.turn]["player"] is not None, "the bot that leads did not play"
    assert queued == []
    assert answer["hand"]["turn"] == lead and answer["legal_actions"] == [], "the answer is not the deal"
    assert match.seq > answer["seq"], "the bot's turn was not recorded with the deal"


def test_a_turn_that_fails_in_process_after_the_answer_is_queued(
    queued: list[tuple[str, int]], monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
):
    """The quick bots' play inside a match's creation fails (a bug in a bot): the news of the creation
    hands the turn on, in process after the answer; that fails too (the database away): queued."""
    monkeypatch.setattr(moves, "choose_action", _broken_bot)
    monkeypatch.setattr(builtin, "bot_turns_play", _database_away)
    match_id = str(dos_bot_leads(new_player())[0]["id"])
    match = Match.objects.get(pk=match_id)
    assert match.seating[match.turn]["bot"], "the bot played"
    assert queued == [(match_id, match.seq)]
    assert "quick bots after a move" in caplog.text and "failed in process; queued" in caplog.text


def _database_away(**kwargs: Any) -> int:
    raise OperationalError("the database went away")


@pytest.mark.django_db(transaction=True)  # real commits: the news of in-process play comes inside it
def test_what_follows_in_process_play_is_queued_not_played_on(queued: list[tuple[str, int]],
                                                              monkeypatch: pytest.MonkeyPatch):  # fmt: skip
    monkeypatch.setattr(moves, "BOTS_PER_RUN", 5)  # five inside the match's creation
    monkeypatch.setattr(builtin, "BOT_TURNS_PER_TASK", 5)  # five in process after its answer, as a task's
    watcher = new_player()
    match_id = clasico(watcher, [{"bot": "level-1"}] * 4)  # the creator watches: bots only
    match = Match.objects.get(pk=match_id)
    assert match.status == "active"
    assert queued == [(match_id, match.seq)], "the turns after the first ten were not handed to a worker"
    assert builtin.bot_turns_play(match_id=match_id, seq=match.seq) == 5


def test_a_level_that_does_not_exist_is_refused_by_the_checks(settings: Any):
    settings.BOT_LEVELS_IN_PROCESS = frozenset({"level-1", "levle-2"})
    with pytest.raises(SystemCheckError, match="tute.E001"):
        call_command("check")
