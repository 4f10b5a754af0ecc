"""Poll bots are timed too: a poll bot that does not act within its ``timeout_ms`` gets a level-2
move (a ``bot_fallback`` event, reason ``timeout``), queued as a countdown task when its turn is
announced and caught by the sweep when that task is lost; an action in time counts ``ok`` in its
stats. Players that are no bots pay no query for any of it."""

from __future__ import annotations

from datetime import timedelta
from typing import Any
from unittest import mock

import pytest
from django.conf import settings
from django.db import connection
from django.db.models import F
from django.test import TestCase
from django.test.utils import CaptureQueriesContext

from games.matches.models import Event, Match
from games.turns import http_bots as turns
from games.turns import tasks
from players.models import BotCall
from tests.games.helpers import human_table, new_player
from tests.games.openapi import validate
from tute_api.beat import Beat

from .helpers import Receiver, patch, register

pytestmark = pytest.mark.django_db


def vs_human(bot_id: str) -> tuple[Any, str]:
    """A match of the bot (seat 0) against a human (seat 1)."""
    human = new_player("human")
    created = human.post("/api/v1/matches/", {"variant": "dos", "options": {"games_to_win": 1}, "seed": 4,
                                              "seats": [{"bot": bot_id}, {"player": "me"}]})  # fmt: skip
    assert created.status_code == 201, created.content
    return human, created.json()["id"]


def until_the_bots_turn(human: Any, match_id: str) -> Match:
    """The human plays its first legal action until the bot (seat 0) is to act."""
    for _ in range(20):
        match = Match.objects.get(pk=match_id)
        if match.turn == 0:
            return match
        view = human.get(f"/api/v1/matches/{match_id}").json()
        acted = human.post(f"/api/v1/matches/{match_id}/actions", {**view["legal_actions"][0],
                                                                   "expected_seq": view["seq"]})  # fmt: skip
        assert acted.status_code == 200, acted.content
    raise AssertionError("the bot never got a turn")


def backdate(match_id: object, seconds: float) -> None:
    """As if the turn had begun ``seconds`` earlier (the turn's start is ``Match.updated_at``)."""
    Match.objects.filter(pk=match_id).update(updated_at=F("updated_at") - timedelta(seconds=seconds))


def fallbacks(match_id: object) -> list[Event]:
    return list(Event.objects.filter(match_id=match_id, type="bot_fallback").order_by("seq"))


def test_a_poll_bot_that_does_not_act_in_time_gets_a_level_2_move_logged_and_counted():
    bot = register("poll", timeout_ms=2000)
    human, match_id = vs_human(bot.id)
    waiting = until_the_bots_turn(human, match_id)
    assert turns.poll_turn_expire(match_id=waiting.id, seq=waiting.seq) is False, "its time is not over"
    assert tasks.expire_poll_turn.apply(args=(match_id, waiting.seq)).get() is False
    backdate(match_id, 2.1)
    assert tasks.expire_poll_turn.apply(args=(match_id, waiting.seq)).get() is True
    (fallback,) = fallbacks(match_id)
    assert fallback.seq == waiting.seq + 1 and fallback.seat == 0
    assert fallback.data == {"reason": "timeout", "detail": "The bot did not answer in time.", "level": "level-2"}
    move = Event.objects.get(match_id=match_id, seq=fallback.seq + 1)
    assert move.seat == 0 and move.type in ("card_played", "bid", "pass", "trump_chosen")
    (call,) = BotCall.objects.filter(bot_id=bot.id)
    assert call.outcome == "timeout" and call.seq == waiting.seq and 2100 <= call.latency_ms < 4000
    stats = bot.owner.get(f"/api/v1/bots/{bot.id}/stats").json()
    validate("BotStatsOutput", stats)
    assert (stats["turns"], stats["ok"], stats["timeouts"], stats["fallbacks"]) == (1, 0, 1, 1)
    shown = human.get(f"/api/v1/matches/{match_id}/events").json()
    assert [e["data"]["reason"] for e in shown if e["type"] == "bot_fallback"] == ["timeout"]


def test_a_stale_expiry_does_nothing():
    bot = register("poll", timeout_ms=500)
    human, match_id = vs_human(bot.id)
    waiting = until_the_bots_turn(human, match_id)
    (turn,) = bot.bot.get("/api/v1/me/turns").json()["turns"]
    acted = bot.bot.post(f"/api/v1/matches/{match_id}/actions", {**turn["legal_actions"][0],
                                                                 "expected_seq": turn["seq"]})  # fmt: skip
    assert acted.status_code == 200
    moved = Match.objects.get(pk=match_id)
    backdate(match_id, 5)
    assert tasks.expire_poll_turn.apply(args=(match_id, waiting.seq)).get() is False, "the bot acted: seq moved on"
    assert turns.poll_turn_expire(match_id=match_id, seq=waiting.seq - 1) is False
    assert turns.poll_turn_expire(match_id=match_id, seq=waiting.seq + 50) is False, "a seq from the future"
    assert Match.objects.get(pk=match_id).seq == moved.seq and not fallbacks(match_id)
    assert list(BotCall.objects.filter(bot_id=bot.id).values_list("outcome", flat=True)) == ["ok"]


def until_the_humans_turn(bot: Any, match_id: str) -> Match:
    """The bot (seat 0) plays its first legal action until the human (seat 1) is to act."""
    for _ in range(20):
        match = Match.objects.get(pk=match_id)
        if match.turn == 1:
            return match
        (turn,) = bot.bot.get("/api/v1/me/turns").json()["turns"]
        acted = bot.bot.post(f"/api/v1/matches/{match_id}/actions", {**turn["legal_actions"][0],
                                                                     "expected_seq": turn["seq"]})  # fmt: skip
        assert acted.status_code == 200, acted.content
    raise AssertionError("the human never got a turn")


def test_no_expiry_for_a_turn_that_is_not_a_poll_bots():
    bot = register("poll", timeout_ms=100)
    human, match_id = vs_human(bot.id)
    waiting = until_the_bots_turn(human, match_id)
    now = until_the_humans_turn(bot, match_id)
    backdate(match_id, 60)
    assert turns.poll_turn_expire(match_id=match_id, seq=now.seq) is False, "the human's turn never expires"
    table = human_table("dos", {"games_to_win": 1}, seed=4)
    backdate(table.match_id, 60)
    assert turns.poll_turns_sweep() == 0, "matches of humans are not swept"
    assert waiting.seq < Match.objects.get(pk=match_id).seq and not fallbacks(match_id)


def test_an_action_in_time_counts_ok_with_the_time_since_the_turn_began():
    bot = register("poll", timeout_ms=3000)
    human, match_id = vs_human(bot.id)
    waiting = until_the_bots_turn(human, match_id)
    backdate(match_id, 0.25)
    (turn,) = bot.bot.get("/api/v1/me/turns").json()["turns"]
    assert 0 < turn["deadline_ms"] <= 2750, "it is told what is left of its time"
    acted = bot.bot.post(f"/api/v1/matches/{match_id}/actions", {**turn["legal_actions"][0],
                                                                 "expected_seq": turn["seq"]})  # fmt: skip
    assert acted.status_code == 200
    (call,) = BotCall.objects.filter(bot_id=bot.id)
    assert call.outcome == "ok" and call.seq == waiting.seq and 250 <= call.latency_ms < 2500
    stats = bot.owner.get(f"/api/v1/bots/{bot.id}/stats").json()
    validate("BotStatsOutput", stats)
    assert stats["delivery"] == "poll"
    assert (stats["turns"], stats["ok"], stats["fallbacks"], stats["latency_ms"]["samples"]) == (1, 1, 0, 1)
    assert stats["latency_ms"]["p50"] == call.latency_ms
    assert not fallbacks(match_id)


def test_a_late_turn_shows_no_time_left_and_a_human_polling_gets_no_deadline():
    bot = register("poll", timeout_ms=1000)
    human, match_id = vs_human(bot.id)
    until_the_bots_turn(human, match_id)
    backdate(match_id, 5)
    (turn,) = bot.bot.get("/api/v1/me/turns").json()["turns"]
    assert turn["deadline_ms"] == 0
    table = human_table("dos", {"games_to_win": 1}, seed=4)
    mine = [t for seat in table.seats for t in seat.get("/api/v1/me/turns").json()["turns"]]
    assert mine and all(t["deadline_ms"] is None for t in mine)


def test_the_sweep_expires_a_poll_turn_whose_task_was_lost():
    bot = register("poll", timeout_ms=1500)
    human, match_id = vs_human(bot.id)
    waiting = until_the_bots_turn(human, match_id)
    assert tasks.sweep_webhook_turns.apply().get() == 0, "not idle long enough"
    backdate(match_id, 1.4)
    assert turns.poll_turns_sweep() == 0
    backdate(match_id, 0.2)
    assert tasks.sweep_webhook_turns.apply().get() == 1, "the beat task sweeps poll turns too"
    assert [f.data["reason"] for f in fallbacks(match_id)] == ["timeout"]
    assert fallbacks(match_id)[0].seq == waiting.seq + 1
    assert turns.poll_turns_sweep() == 0, "done once: the bot's next turn, if any, has just begun"
    assert list(BotCall.objects.filter(bot_id=bot.id).values_list("outcome", flat=True)) == ["timeout"]


def test_in_process_no_expiry_is_queued_and_none_is_played_at_once():
    bot = register("poll", timeout_ms=100)
    human, match_id = vs_human(bot.id)
    assert tasks.expire_poll_turn.app.conf.task_always_eager
    with mock.patch.object(tasks.expire_poll_turn, "apply_async") as queued:
        waiting = until_the_bots_turn(human, match_id)
        assert bot.bot.get("/api/v1/me/turns").json()["turns"], "the bot is still to act"
    assert not queued.called and not fallbacks(match_id) and Match.objects.get(pk=match_id).seq == waiting.seq


def test_with_a_broker_the_expiry_is_queued_with_the_bots_timeout_as_countdown():
    bot = register("poll", timeout_ms=1200)
    human, match_id = vs_human(bot.id)
    app = tasks.expire_poll_turn.app
    app.conf.task_always_eager = False  # the conftest fixture puts it back
    with mock.patch.object(tasks.expire_poll_turn, "apply_async") as queued:
        waiting = until_the_bots_turn(human, match_id)
    assert queued.call_args_list[-1] == mock.call((match_id, waiting.seq), countdown=1.2 + turns.POLL_SLACK_SECONDS)
    assert turns.POLL_SLACK_SECONDS == 0.5 and not fallbacks(match_id)


def test_a_players_action_queries_nothing_about_bots():
    table = human_table("dos", {"games_to_win": 1}, seed=4)

    def act() -> list[dict[str, Any]]:
        view = table.view(0) if table.view(0)["legal_actions"] else table.view(1)
        seat = view["my_seat"]
        with CaptureQueriesContext(connection) as queries:
            acted = table.seats[seat].post(table.url("/actions"), {**view["legal_actions"][0],
                                                                   "expected_seq": view["seq"]})  # fmt: skip
        assert acted.status_code == 200, acted.content
        return queries.captured_queries

    act()  # each player, once known to be no bot, is never asked about again
    act()
    for _ in range(3):
        about_bots = [q["sql"] for q in act() if "players_bot" in q["sql"]]
        assert not about_bots, about_bots


def test_with_no_broker_the_in_process_beat_plays_the_fallback_of_a_poll_bot_that_never_acts():
    """``make run`` has no broker and so no beat process: its schedule runs in the web process instead
    (``tute_api/beat.py``), and its sweep ends the wait on a poll bot that is gone."""
    bot = register("poll", timeout_ms=1000)
    human, match_id = vs_human(bot.id)
    waiting = until_the_bots_turn(human, match_id)
    clock = [0.0]
    schedule = Beat(settings.CELERY_BEAT_SCHEDULE, clock=lambda: clock[0])
    backdate(match_id, 1.1)
    clock[0] += 30
    assert "games.tasks.sweep_webhook_turns" in schedule.run_due()
    assert [(f.seq, f.data["reason"]) for f in fallbacks(match_id)] == [(waiting.seq + 1, "timeout")]


def test_a_poll_bot_that_turned_to_webhook_during_its_turn_is_called_when_its_time_is_over(receiver: Receiver):
    """The change applies from its next turn; the turn it was in gets the new delivery at its deadline,
    not a level-2 move and not a wait for the sweep."""
    bot = register("poll", timeout_ms=2000)
    human, match_id = vs_human(bot.id)
    waiting = until_the_bots_turn(human, match_id)
    changed = patch(bot.owner, f"/api/v1/bots/{bot.id}", {"delivery": "webhook", "webhook_url": receiver.url})
    assert changed.status_code == 200, changed.content
    backdate(match_id, 2.1)
    with TestCase.captureOnCommitCallbacks(execute=True):
        assert turns.poll_turn_expire(match_id=waiting.id, seq=waiting.seq) is False, "no fallback"
    assert receiver.calls and receiver.calls[0].payload["seq"] == waiting.seq, "the webhook was called for the turn"
    assert not fallbacks(match_id) and Match.objects.get(pk=match_id).seq > waiting.seq, "its reply was played"
