"""``tute_api.rows``: the same instances as the ORM's, and rows written as it writes them, with no query
compiled, on whichever database the tests use."""

from __future__ import annotations

import uuid
from typing import NoReturn

import pytest
from django.db import DatabaseError, connection
from django.db.models.sql.compiler import SQLInsertCompiler, SQLUpdateCompiler
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.lobby.models import Notice, NoticeKind
from games.lobby.services import notices_add
from games.matches.models import Event, Match
from games.ratings.models import Rating
from players.models import Player
from tests.games.helpers import new_player
from tute_api.rows import update

pytestmark = pytest.mark.django_db


def _fields(instance: object, model: type) -> dict[str, object]:
    return {f.attname: getattr(instance, f.attname) for f in model._meta.concrete_fields}


def test_a_match_and_a_player_read_by_plain_sql_equal_the_orms():
    me = new_player()
    created = me.post("/api/v1/matches/", {"variant": "dos", "seed": 3, "seats": [{"player": "me"}, {"open": True}]})
    match = Match.objects.fetch(created.json()["id"])
    assert match is not None and _fields(match, Match) == _fields(Match.objects.get(pk=match.pk), Match)
    assert isinstance(match.seating, list) and isinstance(match.options, dict), "JSON columns are decoded"
    assert match.created_at.tzinfo is not None and not match._state.adding
    match.save(update_fields=["updated_at"])  # an instance the ORM can save, as one it loaded
    player = Player.objects.get(pk=me.player.pk)
    by_token = Player.objects.by_token_digest(player.tokens.get().digest)
    assert by_token is not None and _fields(by_token, Player) == _fields(player, Player)
    assert Match.objects.fetch("00000000-0000-0000-0000-000000000000") is None
    assert Player.objects.by_token_digest("no such digest") is None


def _compiling_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any write the ORM compiles from here on fails the test."""

    def compiled(self: object, *args: object, **kwargs: object) -> NoReturn:
        raise AssertionError(f"a query was compiled by {type(self).__name__}")

    for compiler in (SQLInsertCompiler, SQLUpdateCompiler):
        monkeypatch.setattr(compiler, "as_sql", compiled)


def test_rows_written_by_plain_sql_read_back_as_the_orms(monkeypatch: pytest.MonkeyPatch) -> None:
    me = new_player()
    created = me.post("/api/v1/matches/", {"variant": "dos", "seed": 3, "seats": [{"player": "me"}, {"open": True}]})
    match = Match.objects.fetch(created.json()["id"])
    assert match is not None
    now = timezone.now()
    by_orm = Notice(
        player_id=me.player.pk, kind=NoticeKind.YOUR_TURN, match_id=match.pk, data={"seq": 1}, created_at=now
    )
    Notice.objects.bulk_create([by_orm])
    _compiling_fails(monkeypatch)
    mine = [Notice(player_id=me.player.pk, kind=NoticeKind.YOUR_TURN, data={"seq": n}, created_at=now) for n in (1, 2)]
    notices_add(mine)
    stored = list(Notice.objects.filter(player_id=me.player.pk).order_by("id"))
    assert [_fields(n, Notice) | {"id": None} for n in stored] == [
        _fields(n, Notice) | {"id": None} for n in (by_orm, *mine)
    ]
    # An action's events and the match's columns in one statement, read back as written.
    seq, events = match.seq, [Event(match=match, seq=match.seq + n, type="t", seat=n, data={"n": [n]}) for n in (1, 2)]
    match.seq, match.turn, match.state, match.updated_at = seq + 2, None, {"any": ["json"]}, now
    Match.objects.save_with_events(match, events, ["seq", "turn", "state", "updated_at"])
    monkeypatch.undo()
    assert _fields(Match.objects.get(pk=match.pk), Match) == _fields(match, Match)
    logged = Event.objects.filter(match=match, seq__gt=seq).order_by("seq")
    assert [(e.seq, e.type, e.seat, e.data) for e in logged] == [
        (seq + 1, "t", 1, {"n": [1]}),
        (seq + 2, "t", 2, {"n": [2]}),
    ]
    # Rows of several models (events, a message beside them) with the match, in one statement on PostgreSQL.
    beside = Notice(player_id=me.player.pk, kind=NoticeKind.YOUR_TURN, match_id=match.pk, data={"seq": seq + 3})
    more = [Event(match=match, seq=seq + 3, type="u", seat=None, data={}), beside]
    match.seq = seq + 3
    with CaptureQueriesContext(connection) as queries:
        Match.objects.save_with_events(match, more, ["seq"])
    assert len(queries.captured_queries) == (1 if connection.vendor == "postgresql" else 3), queries.captured_queries
    assert Match.objects.get(pk=match.pk).seq == seq + 3 and Event.objects.filter(match=match, seq=seq + 3).exists()
    written = Notice.objects.filter(match_id=match.pk).latest("id")
    assert _fields(written, Notice) | {"id": None} == _fields(beside, Notice)
    Match.objects.save_with_events(match, [], ["turn"])  # no event: the match alone
    with pytest.raises(DatabaseError):  # a match that is not there is not saved
        Match.objects.save_with_events(Match(pk=uuid.uuid4()), [], ["turn"])


def test_several_rows_updated_in_one_call_read_back_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    players = [new_player().player for _ in range(3)]
    ratings = [Rating.objects.create(player=p, variant="clasico") for p in players]
    untouched = Rating.objects.create(player=players[0], variant="dos")
    for n, rating in enumerate(ratings[:2]):
        rating.rating, rating.games, rating.updated_at = 1600.5 + n, 7 + n, timezone.now()
        rating.volatility = 0.5  # set but not named: not written
    monkeypatch.setattr(SQLUpdateCompiler, "as_sql", lambda *a, **k: pytest.fail("an update was compiled"))
    update(ratings[:2], ["rating", "games", "updated_at"])
    update([], ["rating"])  # nothing to write: no statement
    monkeypatch.undo()
    stored = {r.pk: r for r in Rating.objects.all()}
    for rating in ratings[:2]:
        assert _fields(stored[rating.pk], Rating) == _fields(rating, Rating) | {"volatility": 0.06}
    assert _fields(stored[ratings[2].pk], Rating) == _fields(ratings[2], Rating)
    assert _fields(stored[untouched.pk], Rating) == _fields(untouched, Rating)


def test_a_copied_instance_is_copy_copys_without_its_cost():
    """``copied`` makes what ``copy.copy`` makes of a model instance: the same values, a state and a cache of
    related rows of its own, so that changing the copy, saving it or caching a relation on it leaves the
    original as it was."""
    import copy

    from tute_api.rows import copied

    me = new_player()
    created = me.post("/api/v1/matches/", {"variant": "dos", "seed": 3, "seats": [{"player": "me"}, {"open": True}]})
    match = Match.objects.select_related("created_by").get(pk=created.json()["id"])
    assert "created_by" in match._state.fields_cache
    twin, reference = copied(match), copy.copy(match)
    assert type(twin) is Match and twin is not match
    assert _fields(twin, Match) == _fields(reference, Match) == _fields(match, Match)
    assert twin._state is not match._state and twin._state.fields_cache is not match._state.fields_cache
    assert (twin._state.db, twin._state.adding) == (match._state.db, match._state.adding) == ("default", False)
    assert twin.created_by is match.created_by, "the related rows cached are shared, as copy.copy shares them"
    twin.seq += 5
    twin._state.fields_cache.clear()
    twin.save(update_fields=["seq"])
    assert match.seq == twin.seq - 5 and "created_by" in match._state.fields_cache
    assert Match.objects.get(pk=match.pk).seq == twin.seq


def test_rows_inserted_past_their_conflicts_and_read_all_as_the_orms(monkeypatch: pytest.MonkeyPatch) -> None:
    """``insert(ignore_conflicts=True)`` keeps the rows there and adds the others; ``fetch_all`` reads every
    row of a query as the ORM would, without compiling one."""
    from tute_api.rows import fetch_all, insert

    players = [new_player().player for _ in range(3)]
    there = Rating.objects.create(player=players[0], variant="clasico", rating=1700.0, games=4)
    _compiling_fails(monkeypatch)
    insert(Rating, [Rating(player=p, variant="clasico") for p in players], ignore_conflicts=True)
    insert(Rating, [], ignore_conflicts=True)  # nothing to write: no statement
    ids = [str(p.pk).replace("-", "") if connection.vendor == "sqlite" else str(p.pk) for p in players]
    rest = 'FROM "ratings_rating" AS r WHERE r."player_id" IN (%s, %s, %s) ORDER BY r."rating" DESC, r."id"'
    read = fetch_all(Rating, "r", rest, ids)
    monkeypatch.undo()
    assert [(r.player_id, r.rating, r.games) for r in read] == [
        (players[0].pk, 1700.0, 4), (players[1].pk, 1500.0, 0), (players[2].pk, 1500.0, 0)
    ]  # fmt: skip
    orms = {r.pk: r for r in Rating.objects.filter(player__in=players)}
    assert [_fields(r, Rating) for r in read] == [_fields(orms[r.pk], Rating) for r in read]
    assert read[0].pk == there.pk
