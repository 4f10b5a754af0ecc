"""Reads and sweeps that do not grow with history (issue 19, docs/scaling.md).

The figures are ``make scalebench``'s; these check the means: which indexes exist, which are gone,
and, on PostgreSQL, that the queries' plans reach the big tables only through an index (with
sequential scans disabled, a plan that still scans a table has no index to use).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.db.models import QuerySet
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.matches import selectors
from games.matches.models import Event, IdempotencyRecord, Match, MatchStatus
from games.turns import tables
from tests import services
from tests.games.helpers import human_table, new_player

pytestmark = pytest.mark.django_db


def _indexes(model: type[Any]) -> dict[str, dict[str, Any]]:
    with connection.cursor() as cursor:
        found = connection.introspection.get_constraints(cursor, model._meta.db_table)
    return {name: c for name, c in found.items() if c["index"] or c["unique"]}


def test_no_index_of_the_match_holds_a_column_every_action_writes() -> None:
    # An action writes these; an index on any of them makes every action's update a non-HOT one.
    written = {"updated_at", "seq", "turn", "state"}
    for name, index in _indexes(Match).items():
        assert not written & set(index["columns"] or []), f"{name} indexes {index['columns']}"


def test_no_table_of_a_match_keeps_an_index_that_its_unique_constraint_gives() -> None:
    # The unique (match, seq) / (match, number) serves every lookup by match: an index on match_id
    # alone is as big again (133 MB at 15 M events) and written on every insert.
    for model in ("games_event", "games_seat", "games_hand"):
        with connection.cursor() as cursor:
            found = connection.introspection.get_constraints(cursor, model)
        alone = [n for n, c in found.items() if c["index"] and c["columns"] == ["match_id"]]
        unique = [n for n, c in found.items() if c["unique"] and c["columns"] and c["columns"][0] == "match_id"]
        assert not alone and unique, f"{model}: {alone}"


def test_the_token_digest_has_one_index_and_the_purge_one() -> None:
    with connection.cursor() as cursor:
        tokens = connection.introspection.get_constraints(cursor, "players_token")
    assert [n for n, c in tokens.items() if c["columns"] == ["digest"]] == ["token_digest_unique"]
    assert any(c["columns"] == ["created_at"] for c in _indexes(IdempotencyRecord).values())


def test_the_username_check_compares_lower_as_the_unique_index_does() -> None:
    taken = new_player("Alice").player.username  # type: ignore[attr-defined]
    other = new_player("x")
    with CaptureQueriesContext(connection) as queries:
        response = other.client.post("/api/v1/players/", {"username": taken.upper()}, format="json")
    assert response.status_code == 409, response.content
    checks = [q["sql"] for q in queries if "players_player" in q["sql"] and "username" in q["sql"].lower()]
    assert checks and all("UPPER(" not in sql for sql in checks), checks
    assert any('LOWER("players_player"."username")' in sql for sql in checks), checks


def test_the_list_still_holds_the_matches_the_caller_created_without_a_seat() -> None:
    creator = new_player("creator")
    created = creator.post("/api/v1/matches/", {"variant": "dos", "seats": [{"bot": "level-1"}, {"bot": "level-1"}]})
    assert created.status_code == 201, created.content
    mine = creator.post("/api/v1/matches/", {"variant": "dos", "seats": [{"player": "me"}, {"bot": "level-1"}]})
    page = creator.get("/api/v1/matches/").json()
    assert {m["id"] for m in page["results"]} == {created.json()["id"], mine.json()["id"]} and page["count"] == 2


# -- the plans, on PostgreSQL ---------------------------------------------------------------------------


def _plan(queryset: QuerySet[Any]) -> str:
    if connection.vendor != "postgresql":
        services.missing("query plans need PostgreSQL (DATABASE_URL); .ci/run sets it")
    sql, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute("SET enable_seqscan = off")
        try:
            cursor.execute(f"EXPLAIN {sql}", params)
            return "\n".join(row[0] for row in cursor.fetchall())
        finally:
            cursor.execute("RESET enable_seqscan")


def _scans(plan: str, *tables_: str) -> list[str]:
    lines = [line.strip() for line in plan.splitlines() if "Seq Scan" in line]
    return [line for line in lines if any(f" {t} " in line + " " for t in tables_)]


def test_the_match_list_and_its_filters_reach_matches_and_seats_by_index() -> None:
    player = new_player("lister").player  # type: ignore[attr-defined]
    for status, variant in ((None, None), ("finished", None), (None, "clasico"), ("active", "dos")):
        listed = selectors.match_list(player=player, status=status, variant=variant)
        plan = _plan(listed)
        assert not _scans(plan, "games_match", "games_seat"), plan


def test_the_presence_sweep_groups_the_seats_of_the_matches_in_play_only() -> None:
    over, playing = human_table("dos", {}), human_table("dos", {})
    Match.objects.filter(pk=over.match_id).update(status=MatchStatus.FINISHED)
    found = {str(pk) for pk in Match.objects.filter(pk__in=tables.with_humans()).values_list("pk", flat=True)}
    assert found == {playing.match_id}


def test_the_sweeps_read_the_matches_in_play_by_index() -> None:
    plan = _plan(Match.objects.filter(pk__in=tables.with_humans()))
    assert not _scans(plan, "games_match", "games_seat"), plan
    cutoff = timezone.now() - timedelta(seconds=30)
    stuck = Match.objects.filter(status=MatchStatus.ACTIVE, updated_at__lt=cutoff, turn__isnull=False)
    assert not _scans(_plan(stuck), "games_match")
    live = Match.objects.filter(public=True, status=MatchStatus.ACTIVE)
    assert not _scans(_plan(live), "games_match")


def test_the_purge_and_the_log_reads_go_by_index() -> None:
    old = IdempotencyRecord.objects.filter(created_at__lt=timezone.now() - timedelta(hours=24))
    assert not _scans(_plan(old), "games_idempotencyrecord")
    assert not _scans(_plan(Event.objects.filter(match_id=Match().id, seq__gt=3)), "games_event")
