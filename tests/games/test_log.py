"""The event log is append-only; the bot task is idempotent; lost bot turns are queued again."""

from __future__ import annotations

from datetime import timedelta
from unittest import mock

import pytest
from django.db import OperationalError
from django.test import override_settings
from django.utils import timezone

from games import engine
from games.matches.models import AppendOnly, Event, Match
from games.turns import builtin as services
from games.turns import tasks
from tests.services import missing

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


def bot_to_act() -> Match:
    """A match of a human against a bot dealt the first lead, whose bot turn the broker lost (the bot's
    turn goes to a worker: none of its levels plays in process)."""
    lead = engine.current_seat(engine.new_match("dos", {}, seed=1).state)
    seats = [{"bot": "level-1"} if seat == lead else {"player": "me"} for seat in range(2)]
    with mock.patch.object(tasks.play_bot_turns, "delay"), override_settings(BOT_LEVELS_IN_PROCESS=frozenset()):
        created = new_player().post("/api/v1/matches/", {"variant": "dos", "seed": 1, "seats": seats})
    match = Match.objects.get(pk=created.json()["id"])
    assert match.turn == lead and match.seating[lead]["bot"]
    return match


def test_a_bot_task_for_a_seq_that_has_moved_on_does_nothing():
    match = bot_to_act()
    assert services.bot_turns_play(match_id=match.id, seq=match.seq - 1) == 0
    assert services.bot_turns_play(match_id=match.id, seq=match.seq + 5) == 0
    assert Match.objects.get(pk=match.id).seq == match.seq, "the bot is to act, but not at those seqs"
    assert services.bot_turns_play(match_id=match.id, seq=match.seq) >= 1
    played = Match.objects.get(pk=match.id)
    assert tasks.play_bot_turns.apply(args=(str(match.id), played.seq)).get() == 0, "a human is to act"


def test_the_bot_task_acks_late_and_retries_database_errors():
    assert tasks.play_bot_turns.acks_late is True
    play = mock.Mock(side_effect=[OperationalError("connection lost"), 2])
    with mock.patch.object(services, "bot_turns_play", play):
        result = tasks.play_bot_turns.apply(args=("some-match", 7), throw=False)  # a worker's retry, in process
    assert result.get() == 2 and play.call_count == 2, "retried once the database failed"


def test_the_sweep_queues_bot_turns_that_were_lost():
    match = bot_to_act()
    Match.objects.filter(pk=match.pk).update(updated_at=timezone.now() - timedelta(minutes=5))
    with mock.patch.object(tasks.play_bot_turns, "delay") as delay:
        assert tasks.sweep_bot_turns.apply().get() == 1
    delay.assert_called_once_with(str(match.id), match.seq)
    assert services.bot_turns_play(match_id=match.id, seq=match.seq) >= 1


def test_the_sweep_queues_a_turn_idle_two_seconds_and_again_only_after_twice_as_long():
    match = bot_to_act()
    Match.objects.filter(pk=match.pk).update(updated_at=timezone.now() - timedelta(seconds=1))
    with mock.patch.object(tasks.play_bot_turns, "delay") as delay:
        assert services.bot_turns_sweep() == 0, "idle 1 s: its task may still be on its way"
        Match.objects.filter(pk=match.pk).update(updated_at=timezone.now() - timedelta(seconds=3))
        assert services.bot_turns_sweep() == 1, "idle 3 s: queued again"
        assert services.bot_turns_sweep() == 0, "queued a moment ago: not every second"
        assert services.bot_turns_sweep(again=True) == 1, "a worker's start queues it whatever"
    assert delay.call_count == 2


def test_the_sweep_queues_the_turn_when_the_cache_is_away():
    match = bot_to_act()
    Match.objects.filter(pk=match.pk).update(updated_at=timezone.now() - timedelta(seconds=3))
    away = mock.patch.object(services.cache, "add", side_effect=ConnectionError("cache away"))
    with away, mock.patch.object(tasks.play_bot_turns, "delay") as delay:
        assert services.bot_turns_sweep() == 1
    delay.assert_called_once_with(str(match.id), match.seq)


def test_a_worker_that_starts_queues_a_sweep_of_every_bot_turn():
    with mock.patch.object(tasks.sweep_bot_turns, "apply_async") as apply_async:
        tasks.worker_ready.send(sender=None)
    apply_async.assert_called_once_with(kwargs={"idle_seconds": 0, "again": True}, expires=60)


def test_an_action_appends_its_events_and_saves_the_match_in_one_statement_on_postgresql():
    """Round trips are what an action waits for under load (docs/performance.md)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    if connection.vendor != "postgresql":
        missing("one statement on PostgreSQL only, SQLite takes the ORM's two: set DATABASE_URL; .ci/run does")
    me = new_player()
    seats = [{"player": "me"}, {"open": True}]  # two humans: no bot moves in between
    created = me.post("/api/v1/matches/", {"variant": "dos", "seats": seats})
    guest = new_player("guest")
    guest.post(f"/api/v1/matches/{created.json()['id']}/join", {"invite_code": created.json()["invite_code"]})
    match = Match.objects.get(pk=created.json()["id"])
    player = me if match.turn == 0 else guest
    view = player.get(f"/api/v1/matches/{match.pk}").json()
    before = Event.objects.filter(match=match).count()
    with CaptureQueriesContext(connection) as queries:
        action = {**view["legal_actions"][0], "expected_seq": view["seq"]}
        answer = player.post(f"/api/v1/matches/{match.pk}/actions", action)
    assert answer.status_code == 200
    games_tables = ('"games_event"', '"games_match"', '"games_hand"')
    statements = [q["sql"] for q in queries.captured_queries]
    writes = [s for s in statements if s.startswith(("INSERT", "UPDATE", "WITH")) and any(t in s for t in games_tables)]
    assert len(writes) == 1 and writes[0].startswith("WITH written_0 AS (INSERT INTO \"games_event\"")
    match.refresh_from_db()
    assert match.seq == answer.json()["seq"] and Event.objects.filter(match=match).count() > before
    assert list(Event.objects.filter(match=match).values_list("seq", flat=True)) == list(range(1, match.seq + 1))


def test_an_action_s_events_are_written_from_one_json_document_and_read_back_as_written():
    """On PostgreSQL the events of one save go as one JSON array spread by ``jsonb_to_recordset`` (three
    parameters, not six a row): every value comes back as it was given, quotes, percent signs, backslashes,
    a null seat, other scripts and nested data included."""
    from django.db import connection, transaction
    from django.test.utils import CaptureQueriesContext

    from games.matches import records

    if connection.vendor != "postgresql":
        missing("PostgreSQL's insert: set DATABASE_URL; .ci/run does")
    match = vs_bots()
    seq = match.seq
    tricky = [
        {"type": "note", "seat": None, "data": {"text": "it's 100% \"quoted\" %s %(x)s \\ back\\slash", "ñ": "€ 🂡"}},
        {"type": "note", "seat": 1, "data": {"nested": [[1, 2], {"a": None, "b": True}], "big": 2**62, "f": 0.5}},
        {"type": "note", "seat": 0, "data": {}},
    ]
    with transaction.atomic(), CaptureQueriesContext(connection) as queries:
        locked = Match.objects.fetch(match.pk, lock=True)
        assert locked is not None
        rows = records.event_rows(locked, tricky, timezone.now())
        Match.objects.save_with_events(locked, rows, ["seq"])
    writes = [q["sql"] for q in queries.captured_queries if '"games_event"' in q["sql"]]
    assert len(writes) == 1 and "jsonb_to_recordset" in writes[0], writes
    stored = list(Event.objects.filter(match=match, seq__gt=seq).order_by("seq"))
    assert [(e.seq, e.type, e.seat, e.data) for e in stored] == [
        (seq + n, e["type"], e["seat"], e["data"]) for n, e in enumerate(tricky, 1)
    ]
    assert {e.created_at for e in stored} == {rows[0].created_at}
    match.refresh_from_db()
    assert match.seq == seq + 3


def test_new_log_rows_are_the_rows_that_keywords_would_build():
    """``records.event_rows`` gives Django the columns by position: in the model's order, which this
    checks, each row tied to its match as the keywords would tie it, without a query."""
    from games.matches import records

    assert tuple(f.attname for f in Event._meta.concrete_fields) == records.EVENT_COLUMNS
    match, now = Match(seq=7), timezone.now()
    events = [{"type": "card_played", "seat": 2, "data": {"card": "O1"}}, {"type": "note", "seat": None, "data": {}}]
    rows = records.event_rows(match, events, now)
    by_keywords = [Event(match=match, seq=8 + i, type=e["type"], seat=e["seat"], data=e["data"], created_at=now)
                   for i, e in enumerate(events)]  # fmt: skip
    assert [[getattr(r, c) for c in records.EVENT_COLUMNS] for r in rows] == [
        [getattr(r, c) for c in records.EVENT_COLUMNS] for r in by_keywords
    ]
    assert all(r.match is match and r._state.adding for r in rows)
    assert match.seq == 9
