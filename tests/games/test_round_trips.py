"""The database round trips of the hot paths: an action opens one transaction, not a savepoint in another."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games.lobby.models import Notice
from tests.wire import wire

from .helpers import against_a_bot, human_table, new_player, until_my_turn

pytestmark = pytest.mark.django_db(transaction=True)  # no test transaction around: the service's own is seen


def test_an_action_without_an_idempotency_key_opens_no_savepoint() -> None:
    table = human_table("dos", {}, seed=2)
    turn = table.view(0)["hand"]["turn"]
    action = table.view(turn)["legal_actions"][0]
    with CaptureQueriesContext(connection) as queries:
        assert table.seats[turn].post(table.url("/actions"), action).status_code == 200
    statements = [q["sql"] for q in queries.captured_queries]
    if connection.features.has_select_for_update:  # SQLite locks the whole database instead
        assert any("FOR UPDATE" in sql for sql in statements), statements  # the match was locked
    assert not [sql for sql in statements if "SAVEPOINT" in sql], statements


def test_an_action_with_an_idempotency_key_is_kept_with_the_move() -> None:
    table = human_table("dos", {}, seed=2)
    turn = table.view(0)["hand"]["turn"]
    action = table.view(turn)["legal_actions"][0]
    first = table.seats[turn].post(table.url("/actions"), action, headers={"Idempotency-Key": "k-1"})
    again = table.seats[turn].post(table.url("/actions"), action, headers={"Idempotency-Key": "k-1"})
    assert first.status_code == again.status_code == 200
    assert again.headers["Idempotent-Replayed"] == "true" and again.json() == first.json()


def test_the_next_players_message_is_written_in_the_statement_that_saves_the_move() -> None:
    """The ``your_turn`` message (``settings.MATCH_RECORDERS``) costs the action no statement of its own."""
    table = human_table("dos", {}, seed=2)
    turn = table.view(0)["hand"]["turn"]
    action = table.view(turn)["legal_actions"][0]
    with CaptureQueriesContext(connection) as queries:
        answer = table.seats[turn].post(table.url("/actions"), action)
    statements = [q["sql"] for q in queries.captured_queries]  # before the next request empties the log
    assert answer.status_code == 200
    after = table.view(0)
    told = Notice.objects.filter(match_id=table.match_id, kind="your_turn")
    to_act = table.seats[after["hand"]["turn"]].player.pk
    assert [n.player_id for n in told if n.data == {"seq": after["seq"]}] == [to_act]
    writes = [sql for sql in statements if "lobby_notice" in sql]
    if connection.vendor == "postgresql":  # SQLite sends each insert apart
        assert len(writes) == 1 and "games_event" in writes[0] and "UPDATE" in writes[0], writes


def test_an_action_s_transaction_sends_its_begin_with_the_lock_and_its_write_with_the_commit() -> None:
    """On the wire: no round trip for BEGIN alone, nor for COMMIT: the match is locked in the transaction's
    first message, and the move is written in its last, with the COMMIT."""
    if connection.vendor != "postgresql":
        pytest.skip("the deferred BEGIN is PostgreSQL's")
    table = human_table("dos", {}, seed=2)
    turn = table.view(0)["hand"]["turn"]
    action = table.view(turn)["legal_actions"][0]
    with wire() as sent:
        assert table.seats[turn].post(table.url("/actions"), action).status_code == 200
    assert "BEGIN" not in sent, sent
    opened = [message for message in sent if message.startswith("BEGIN")]
    assert len(opened) == 1 and "FOR UPDATE" in opened[0], sent
    committed = [message for message in sent if message.endswith("COMMIT")]
    assert committed[-1].startswith("WITH") and "UPDATE" in committed[-1], "the move's write goes with the COMMIT"
    assert "COMMIT" not in sent, sent


@pytest.mark.parametrize("kept", [False, True], ids=["token read", "token kept"])
def test_an_action_against_built_in_bots_is_its_token_then_two_round_trips(
    kept: bool, settings: Any, request: pytest.FixtureRequest
) -> None:
    """The token (unless the process keeps it: players/token_cache.py), the lock with its BEGIN, the move
    (and the quick bots' turns after it) with the COMMIT."""
    if connection.vendor != "postgresql":
        pytest.skip("read on PostgreSQL's wire")
    if kept:
        request.getfixturevalue("listening")
    else:
        settings.TOKEN_CACHE_SECONDS = 0
    player, url, view = against_a_bot("solo", 3)
    for _ in range(2):  # the second action is measured: the first one's process has read what it keeps
        view = until_my_turn(player, url, view)
        with wire() as sent:
            answer = player.post(f"{url}/actions", {**view["legal_actions"][0], "expected_seq": view["seq"]})
        assert answer.status_code == 200, answer.content
        view = answer.json()
    if not kept:
        assert len(sent) == 3 and '"players_token"' in sent[0], sent
        sent = sent[1:]
    assert len(sent) == 2, sent
    assert sent[0].startswith("BEGIN") and "FOR UPDATE" in sent[0], sent
    assert sent[1].startswith("WITH") and sent[1].endswith("COMMIT"), sent


def test_a_new_match_against_built_in_bots_is_written_in_one_round_trip(settings: Any) -> None:
    """The match's row, its seats, the deal and the quick bots' turns after it go with the COMMIT, in one
    message: nothing of the ORM's inserts sent alone."""
    if connection.vendor != "postgresql":
        pytest.skip("read on PostgreSQL's wire")
    settings.TOKEN_CACHE_SECONDS = 0
    player = new_player("wired")
    seats = [{"player": "me"}, {"bot": "level-1"}]
    with wire() as sent:
        created = player.post("/api/v1/matches/", {"variant": "dos", "seats": seats})
    assert created.status_code == 201, created.content
    assert '"players_token"' in sent[0], sent
    writes = [message for message in sent[1:] if "games_" in message]
    assert len(writes) == 1, sent
    assert writes[0].startswith("BEGIN") and writes[0].endswith("COMMIT"), sent
    assert 'INSERT INTO "games_match"' in writes[0] and 'INSERT INTO "games_seat"' in writes[0], sent
    assert player.get(f"/api/v1/matches/{created.json()['id']}").json()["seats"][1]["bot"] == "level-1"
