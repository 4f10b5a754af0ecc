"""A process whose live-updates listener loses Redis forgets what it kept on the strength of hearing every
process (players/token_cache.py, games/matches/kept.py): what it kept may have been revoked or overtaken
while it could not hear."""

from __future__ import annotations

import pytest

from games.live import channels as live
from games.matches import kept
from games.matches.models import Match
from players import token_cache
from tests.faults.services import Redis
from tests.services import until

pytestmark = pytest.mark.django_db


def test_losing_redis_forgets_the_kept_rows_and_tokens(
    own_redis: Redis, settings: object, django_capture_on_commit_callbacks: object
) -> None:
    settings.LIVE_UPDATES_URL = own_redis.url_for(3)  # type: ignore[attr-defined]
    settings.TOKEN_CACHE_SECONDS = 60  # type: ignore[attr-defined]
    broker = live.broker()
    assert isinstance(broker, live.RedisBroker)
    until(broker.hears_everything, "the listener to subscribe")
    match = Match(seq=7)
    with django_capture_on_commit_callbacks(execute=True):  # type: ignore[operator]
        kept.keep(match)
    token_cache.player_by_digest("e" * 64, lambda digest: _player())
    assert kept.newer_than(match.pk, 0) is not None and "e" * 64 in token_cache._entries
    own_redis.stop()
    until(lambda: kept.newer_than(match.pk, 0) is None, "the kept row to be dropped")  # (kept 10 s else)
    assert "e" * 64 not in token_cache._entries
    assert not live.hears_everything()
    broker.close()


def _player():  # type: ignore[no-untyped-def]
    from players.models import Player

    return Player(username="lost")
