"""A match's table: its timings (its :class:`~.models.Table`'s, else the settings' defaults), and
which matches have more than one human seated, those that presence and turn clocks apply to (M2, M3).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db.models import Count, QuerySet

from games.matches.models import MatchStatus, Seat

from .models import Table


@dataclass(frozen=True)
class Timings:
    presence_timeout: int
    reconnect_grace: int
    turn_seconds: int | None


def default_timings() -> Timings:
    return Timings(settings.PRESENCE_TIMEOUT, settings.RECONNECT_GRACE, settings.TURN_SECONDS)


def timings_of(match_id: UUID | str) -> Timings:
    """The match's service options: its :class:`Table`'s, else the settings' defaults."""
    table = Table.objects.filter(match_id=match_id).first()
    if table is None:
        return default_timings()
    return Timings(table.presence_timeout, table.reconnect_grace, table.turn_seconds)


def human_seats() -> QuerySet[Seat]:
    # A registered bot (docs/http-bots.md) is a player but no human.
    return Seat.objects.filter(player__isnull=False, player__bot__isnull=True)


def with_humans() -> QuerySet[Any]:
    """The ids of the active matches with more than one human seated: those M2 applies to now.

    Only the matches in play (the partial index ``match_active``) and their seats: grouping every
    human seat ever recorded grew with history (docs/scaling.md)."""
    seats = human_seats().filter(match__status=MatchStatus.ACTIVE)
    return seats.values("match").annotate(n=Count("id")).filter(n__gte=2).values("match")


def table_create(
    *, match_id: UUID, room_id: UUID | None, presence_timeout: int, reconnect_grace: int, turn_seconds: int | None
) -> Table:
    """The table of a match started from a room: its timings, in the caller's transaction."""
    return Table.objects.create(
        match_id=match_id,
        room_id=room_id,
        presence_timeout=presence_timeout,
        reconnect_grace=reconnect_grace,
        turn_seconds=turn_seconds,
    )
