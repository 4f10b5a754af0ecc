"""``tute_api.rows.fetch_one``: the same instance as the ORM's, on whichever database the tests use."""

from __future__ import annotations

import pytest

from games.matches.models import Match
from players.models import Player
from tests.games.helpers import new_player

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
