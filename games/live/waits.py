"""Long polls: a request that waits for news (``?after=&wait=`` on a match or its events,
``/me/turns?wait=``) subscribes to its channel first and reads second, so that news published in
between is not missed, then sleeps on the subscription holding no database connection."""

from __future__ import annotations

import time
from uuid import UUID

from django.db import connection

from games.matches.models import Match, MatchStatus
from games.matches.selectors import MAX_WAIT_SECONDS, Membership, match_membership
from games.turns.feed import Turn, turns_of
from players.models import Player

from . import channels, watchers


def release_connection() -> None:
    """Give the database connection back while waiting (not inside a transaction: a test's, say)."""
    if not connection.in_atomic_block:
        connection.close()  # back to the pool, if any; the next query reconnects


def match_membership_after(*, match_id: UUID, player: Player, after: int | None, wait: float) -> Membership:
    """:func:`~games.matches.selectors.match_membership`, as a long poll when ``after`` and ``wait`` are
    given: the match once its ``seq`` is past ``after``, or as it is after ``wait`` seconds.

    Answers at once when the match is already past ``after``, or over (nothing more will happen).
    A spectator's wait counts them as watching (429 beyond the match's cap: :mod:`.watchers`).
    """
    if after is None or wait <= 0:
        return match_membership(match_id=match_id, player=player)
    with channels.subscribe(channels.match_channel(match_id)) as subscription:
        membership = match_membership(match_id=match_id, player=player)
        match = membership.match
        if match.seq > after or match.status in (MatchStatus.FINISHED, MatchStatus.CANCELLED):
            return membership
        if membership.spectator:
            with watchers.watching(match_id):
                release_connection()
                subscription.wait(min(wait, MAX_WAIT_SECONDS))
        else:
            release_connection()
            subscription.wait(min(wait, MAX_WAIT_SECONDS))
        fresh = Match.objects.fetch(match_id)
    return Membership(fresh or match, membership.seat, spectator=membership.spectator)


def turns_wait(*, player: Player, timeout: float) -> list[Turn]:
    """:func:`~games.turns.feed.turns_of`, waiting up to ``timeout`` seconds for a turn when there is none."""
    with channels.subscribe(channels.player_channel(player.pk)) as subscription:
        found = turns_of(player=player)
        deadline = time.monotonic() + timeout
        while not found and (left := deadline - time.monotonic()) > 0:
            release_connection()
            if subscription.wait(left):
                found = turns_of(player=player)
    return found
