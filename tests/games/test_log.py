"""The event log is append-only; the bot task is idempotent; lost bot turns are queued again."""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pytest
from django.utils import timezone

from games import services, tasks
from games.models import AppendOnly, Event, Match

from .helpers import new_player

pytestmark = pytest.mark.django_db


def vs_bots(**body: object) -> Match:
    me = new_player()
    created = me.post("/api/v1/matches/", {"variant": "dos", "seed": 1, "seats": [{"player": "me"}, {"bot": "level-1"}],
                                           **body})  # fmt: skip
    return Match.objects.get(pk=created.json()["id"])


def test_events_are_never_updated_nor_deleted():
    match = vs_bots()
    event = Event.objects.filter(match=match).first()
    assert event is not None
    event.type = "changed"
    with pytest.raises(AppendOnly):
        event.save()
    with pytest.raises(AppendOnly):
        event.delete()
    with pytest.raises(AppendOnly):
        Event.objects.filter(match=match).update(seat=3)
    with pytest.raises(AppendOnly):
        Event.objects.filter(match=match).delete()


def test_a_bot_task_for_a_seq_that_has_moved_on_does_nothing():
    me = new_player()
    created = me.post(
        "/api/v1/matches/", {"variant": "dos", "seed": 1, "seats": [{"bot": "level-1"}, {"player": "me"}]}
    )
    match = Match.objects.get(pk=created.json()["id"])
    assert services.bot_turns_play(match_id=match.id, seq=match.seq - 1) == 0
    assert services.bot_turns_play(match_id=match.id, seq=match.seq + 5) == 0
    assert Match.objects.get(pk=match.id).seq == match.seq
    assert tasks.play_bot_turns.apply(args=(str(match.id), match.seq)).get() == 0, "a human is to act"


def test_the_bot_task_acks_late_and_retries_database_errors():
    task = tasks.play_bot_turns
    assert task.acks_late is True
    assert task.max_retries and task.autoretry_for


def test_the_sweep_queues_bot_turns_that_were_lost():
    with mock.patch.object(tasks.play_bot_turns, "delay"):  # the broker loses the message
        me = new_player()
        created = me.post("/api/v1/matches/", {"variant": "dos", "seed": 1,
                                               "seats": [{"bot": "level-1"}, {"player": "me"}]})  # fmt: skip
    match = Match.objects.get(pk=created.json()["id"])
    if match.turn != 0:
        pytest.skip("seed 1 deals the first lead to the human")
    Match.objects.filter(pk=match.pk).update(updated_at=timezone.now() - timedelta(minutes=5))
    with mock.patch.object(tasks.play_bot_turns, "delay") as delay:
        assert tasks.sweep_bot_turns.apply().get() == 1
    delay.assert_called_once_with(str(match.id), match.seq)
    assert services.bot_turns_play(match_id=match.id, seq=match.seq) >= 1
