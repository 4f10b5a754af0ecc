"""A long poll answered from the row its process last saved (games/matches/kept.py): no query, the same
answer as from the database, redacted for its caller, and never a row that a later change overtook."""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from games.live import channels as live
from games.matches import kept
from games.matches.models import Match
from tests import services
from tests.games.helpers import Api, Visibility, against_a_bot, assert_no_leak, human_table, new_player
from tests.services import until

pytestmark = pytest.mark.django_db


def _match_reads(api: Api, path: str) -> tuple[Any, int]:
    """A GET's answer and how many of its queries read the match's row."""
    with CaptureQueriesContext(connection) as queries:
        answer = api.get(path)
    return answer, sum('FROM "games_match"' in q["sql"] for q in queries.captured_queries)


def _action(api: Api, url: str, view: dict[str, Any]) -> dict[str, Any]:
    answer = api.post(f"{url}/actions", {**view["legal_actions"][0], "expected_seq": view["seq"]})
    assert answer.status_code == 200, answer.content
    return answer.json()  # type: ignore[no-any-return]


def test_the_long_poll_after_an_action_reads_nothing_and_answers_as_the_database(listening: Any) -> None:
    player, url, view = against_a_bot("kept", 5)
    acted = _action(player, url, view)
    match_id = url.rsplit("/", 1)[1]
    kept_row = kept.newer_than(match_id, acted["seq"] - 1)
    assert kept_row is not None and kept_row.seq > acted["seq"], "the bots' turns were saved with the action"
    answer, reads = _match_reads(player, f"{url}?after={acted['seq']}&wait=5")
    assert answer.status_code == 200 and reads == 0
    kept.forget_all()
    from_database, reads = _match_reads(player, f"{url}?after={acted['seq']}&wait=5")
    assert reads == 1 and from_database.json() == answer.json()


def test_without_a_listener_the_long_poll_reads_the_database(settings: Any) -> None:
    settings.LIVE_UPDATES_URL = ""  # in process: what other processes write is not heard
    player, url, view = against_a_bot("kept", 5)
    acted = _action(player, url, view)
    assert _match_reads(player, f"{url}?after={acted['seq']}&wait=5")[1] == 1


def test_a_row_not_past_after_is_not_an_answer(listening: Any) -> None:
    player, url, view = against_a_bot("kept", 5)
    acted = _action(player, url, view)
    later = Match.objects.get(pk=url.rsplit("/", 1)[1]).seq
    answer, reads = _match_reads(player, f"{url}?after={later}&wait=1")
    assert answer.status_code == 200 and answer.json()["seq"] == later and reads >= 1
    assert acted["seq"] < later


def test_later_news_from_another_process_drops_the_row(listening: Any) -> None:
    player, url, view = against_a_bot("kept", 5)
    acted = _action(player, url, view)
    match_id = url.rsplit("/", 1)[1]
    row = kept.newer_than(match_id, 0)
    assert row is not None
    elsewhere = live.RedisBroker(services.redis_url())
    elsewhere.publish(live.match_channel(match_id), data=str(row.seq).encode())  # this process's own news
    time.sleep(0.2)
    assert kept.newer_than(match_id, 0) is not None, "news of the kept seq itself keeps it"
    elsewhere.publish(live.match_channel(match_id), data=str(row.seq + 1).encode())
    until(lambda: kept.newer_than(match_id, 0) is None, "the later news to be heard")
    assert _match_reads(player, f"{url}?after={acted['seq']}&wait=5")[1] == 1


def test_news_that_says_no_seq_drops_the_row(listening: Any) -> None:
    player, url, view = against_a_bot("kept", 5)
    _action(player, url, view)
    match_id = url.rsplit("/", 1)[1]
    live.RedisBroker(services.redis_url()).publish(live.match_channel(match_id))
    until(lambda: kept.newer_than(match_id, 0) is None, "the news to be heard")


def test_a_save_rolled_back_is_not_kept(listening: Any) -> None:
    player, url, view = against_a_bot("kept", 5)
    match = Match.objects.get(pk=url.rsplit("/", 1)[1])
    kept.forget_all()
    with pytest.raises(RuntimeError), transaction.atomic():
        match.seq += 5
        kept.keep(match)
        raise RuntimeError("rolled back")
    assert kept.newer_than(match.pk, 0) is None


def test_every_seat_spectator_and_stranger_sees_from_a_kept_row_what_the_database_shows(listening: Any) -> None:
    table = human_table("clasico", {"games_to_win": 1}, seed=4, public=True)
    vis = Visibility(table.match_id, len(table.seats))
    spectator, stranger = new_player("watcher"), new_player("stranger")
    for _ in range(6):
        turn = table.view(0)["hand"]["turn"]
        before = table.view(turn)
        _action(table.seats[turn], table.url(), before)
        assert kept.newer_than(table.match_id, before["seq"]) is not None
        vis.refresh()
        path = table.url(f"?after={before['seq']}&wait=5")
        for seat, api in [*enumerate(table.seats), (None, spectator)]:
            answer, reads = _match_reads(api, path)
            assert answer.status_code == 200 and reads == 0
            assert_no_leak(vis, seat, answer.json(), answer.json()["seq"], f"kept row, seat {seat}")
            row = kept._kept.get(str(table.match_id))
            kept._kept.pop(str(table.match_id))
            from_database, _ = _match_reads(api, path)
            kept._kept.put(str(table.match_id), row, kept.KEPT_SECONDS)
            assert from_database.json() == answer.json(), seat
    private = human_table("dos", {}, seed=6)
    turn = private.view(0)["hand"]["turn"]
    before = private.view(turn)
    _action(private.seats[turn], private.url(), before)
    assert kept.newer_than(private.match_id, before["seq"]) is not None
    assert stranger.get(private.url(f"?after={before['seq']}&wait=1")).status_code == 404


def test_a_long_poll_woken_by_news_answers_from_the_kept_row(listening: Any) -> None:
    """Its process saved the change that woke it (a bot's turn, another player's move): nothing to read."""
    from games.live import waits

    player, url, view = against_a_bot("kept", 5)
    acted = _action(player, url, view)
    match_id = url.rsplit("/", 1)[1]
    with CaptureQueriesContext(connection) as queries:
        match = waits.kept_or_read(match_id, acted["seq"])
    assert match is not None and match.seq > acted["seq"] and not queries.captured_queries
    with CaptureQueriesContext(connection) as queries:
        assert waits.kept_or_read(match_id, match.seq) is not None  # not past it: read
    assert len(queries.captured_queries) == 1


def test_the_row_a_woken_long_poll_read_is_kept_for_the_others(listening: Any) -> None:
    """News of another process's change wakes every wait on the match in this one: the first reads the
    match, the others (and the clients' next long polls) take the row it read."""
    from games.live import waits

    player, url, view = against_a_bot("kept", 5)
    match_id = url.rsplit("/", 1)[1]
    kept.forget_all()
    with CaptureQueriesContext(connection) as queries:
        first = waits.kept_or_read(match_id, view["seq"] - 1)
    assert first is not None and first.seq == view["seq"] and len(queries.captured_queries) == 1
    with CaptureQueriesContext(connection) as queries:
        again = waits.kept_or_read(match_id, view["seq"] - 1)
    assert again is not None and again.seq == view["seq"] and not queries.captured_queries
    assert _first_look(player, match_id, view["seq"])[1] == 0


def _first_look(api: Api, match_id: str, after: int) -> tuple[Any, int]:
    """A long poll's look under ASGI (it returns what to wait for) and how many of its queries read the match."""
    from django.http import HttpResponse

    from games.live import waits
    from players.models import Player

    player = Player.objects.get(pk=api.player.pk)
    with CaptureQueriesContext(connection) as queries, waits.deferred():
        answer = waits.match_long_poll(
            match_id=uuid.UUID(match_id), player=player, after=after, wait=5,
            answer=lambda membership: HttpResponse(f"{membership.seat} {membership.match.seq}"),
        )  # fmt: skip
    if isinstance(answer, waits.WaitingResponse):
        answer.done()  # its slot given back
    return answer, sum('FROM "games_match"' in q["sql"] for q in queries.captured_queries)


def test_a_long_polls_next_look_at_a_match_that_has_not_moved_reads_nothing(listening: Any) -> None:
    """Idle clients renew their long polls every few seconds, each finding the match where it was."""
    from games.live import waits

    player, url, view = against_a_bot("kept", 5)
    match_id = url.rsplit("/", 1)[1]
    kept.forget_all()
    first, reads = _first_look(player, match_id, view["seq"])
    assert isinstance(first, waits.WaitingResponse) and reads == 1
    again, reads = _first_look(player, match_id, view["seq"])
    assert isinstance(again, waits.WaitingResponse) and reads == 0
    answered, reads = _first_look(player, match_id, view["seq"] - 1)  # behind: answered at once, from the row
    assert answered.content == f"0 {view['seq']}".encode() and reads == 0
    other = live.RedisBroker(services.redis_url())  # news of a change from another process drops the row
    other.publish(live.match_channel(match_id), data=str(view["seq"] + 1).encode())
    until(lambda: kept.latest(match_id) is None, "the news to be heard")
    assert _first_look(player, match_id, view["seq"])[1] == 1


def test_no_row_is_kept_past_later_news_of_its_match(listening: Any, django_capture_on_commit_callbacks: Any) -> None:
    """Another process may change the match, and say so, between this one's read (or commit) and its
    keeping the row: a first look would then wait for news already heard."""
    import copy

    player, url, view = against_a_bot("kept", 5)
    match = Match.objects.get(pk=url.rsplit("/", 1)[1])
    kept.forget_all()
    kept.heard(str(match.pk), match.seq + 1)  # a later change, heard first
    kept.keep_read(match, kept.listened())
    assert kept.latest(match.pk) is None
    with django_capture_on_commit_callbacks(execute=True):
        kept.keep(match)  # a save whose commit came before that news, kept after it
    assert kept.latest(match.pk) is None
    kept.forget_all()
    kept.heard(str(match.pk), match.seq)  # the row's own news
    kept.keep_read(match, kept.listened())
    row = kept.latest(match.pk)
    assert row is not None and row.seq == match.seq and row is not match
    older = copy.copy(match)
    older.seq -= 1
    kept.keep_read(older, kept.listened())
    assert kept.latest(match.pk).seq == match.seq  # type: ignore[union-attr]
    kept.heard(str(match.pk), None)  # a change of unknown seq: nothing kept of the match for a while
    kept.keep_read(match, kept.listened())
    assert kept.latest(match.pk) is None
    kept.forget_all()
    since = kept.listened()
    kept.forget_all()  # the listener lost Redis (or listened again) during the read, or before the commit
    kept.keep_read(match, since)
    with django_capture_on_commit_callbacks(execute=True):
        kept.keep(match)
        kept.forget_all()
    assert kept.latest(match.pk) is None


def test_a_kept_row_lets_no_stranger_look(listening: Any) -> None:
    from games.matches.errors import NotFound

    player, url, view = against_a_bot("kept", 5)
    match_id = url.rsplit("/", 1)[1]
    _first_look(player, match_id, view["seq"])
    assert kept.latest(match_id) is not None
    with pytest.raises(NotFound):
        _first_look(new_player("stranger"), match_id, view["seq"])


def test_without_a_listener_every_look_reads(settings: Any) -> None:
    settings.LIVE_UPDATES_URL = ""
    player, url, view = against_a_bot("kept", 5)
    match_id = url.rsplit("/", 1)[1]
    assert [_first_look(player, match_id, view["seq"])[1] for _ in range(2)] == [1, 1]
