"""Turn clocks (``turn_seconds``, a room's table option): a human whose time runs out at a table with
other humans gets the stand-in move played for them, after an event ``turn_timed_out`` (M2), or a pass
when the turn was a declaration (C10m). One human against bots is never timed (M3)."""

from __future__ import annotations

from datetime import datetime, timedelta
from uuid import UUID

from django.db import transaction
from django.utils import timezone

from games.matches import records
from games.matches.models import Match, MatchStatus, Seat
from games.matches.services import event_append, match_act

from .models import Table
from .standin import timed_out_action
from .tables import timings_of, with_humans


def turn_clocks_sweep(*, now: datetime) -> int:
    """Play the stand-in move for every human whose turn clock has run out at ``now``; returns how many."""
    clocks = Table.objects.filter(
        turn_seconds__isnull=False,
        match__status=MatchStatus.ACTIVE,
        match__turn__isnull=False,
        match__in=with_humans(),  # one human against bots: the match waits for its player (M3)
    ).values_list("match_id", "match__seq", "match__updated_at", "turn_seconds")
    moves = 0
    for match_id, seq, updated_at, seconds in clocks:
        if updated_at <= now - timedelta(seconds=seconds):
            moves += turn_clock_expire(match_id=match_id, seq=seq, now=now)
    return moves


@transaction.atomic
def turn_clock_expire(*, match_id: UUID | str, seq: int, now: datetime | None = None) -> bool:
    """The turn clock ran out at ``seq``: event ``turn_timed_out``, then the stand-in move for the player."""
    now = now or timezone.now()
    match = Match.objects.fetch(match_id, lock=True)
    timing = timings_of(match_id)
    if match is None or match.status != MatchStatus.ACTIVE or match.seq != seq or timing.turn_seconds is None:
        return False
    if match.turn is None or now < match.updated_at + timedelta(seconds=timing.turn_seconds):
        return False
    seat = Seat.objects.filter(match=match, number=match.turn).select_related("player").first()
    if seat is None or seat.player is None:
        return False  # a bot's turn: the bots play it
    action = timed_out_action(match, records.state_of(match), match.turn)
    data = {"turn_seconds": timing.turn_seconds, "action": action}
    event_append(match, {"type": "turn_timed_out", "seat": match.turn, "data": data}, now)
    match_act(player=seat.player, match_id=match.id, action=action, expected_seq=match.seq, stand_in=True)
    return True
