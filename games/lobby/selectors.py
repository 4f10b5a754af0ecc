"""Reads of play-now: where a player stands in the queue, the open tables, a player's messages."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any
from uuid import UUID

from django.conf import settings
from django.db.models import Count, Q
from django.utils import timezone

from games import engine
from games.matches.models import MatchStatus
from games.ratings.models import Rating
from games.rooms.models import Room
from players.models import Player

from . import pools
from .models import Notice, OpenTable, QueueEntry

#: The open tables listed at most, the latest first.
OPEN_TABLES_LISTED = 100
#: Messages read at most per answer.
NOTICES_BATCH = 100


@dataclass(frozen=True)
class Standing:
    """A queue entry as its player sees it: how long they wait, the range searched now."""

    entry: QueueEntry
    waited: float
    range: float

    @property
    def rating_min(self) -> int:
        return round(self.entry.rating - self.range)

    @property
    def rating_max(self) -> int:
        return round(self.entry.rating + self.range)

    @property
    def bots_at(self) -> datetime:
        return self.entry.entered_at + timedelta(seconds=settings.QUEUE_MAX_WAIT_SECONDS)


def queue_standing(*, player: Player, now: datetime | None = None) -> Standing | None:
    entry = QueueEntry.objects.filter(player=player).first()
    if entry is None:
        return None
    now = now or timezone.now()
    waited = ((entry.seated_at or now) - entry.entered_at).total_seconds()
    return Standing(entry, waited, pools.search_range(waited))


@dataclass(frozen=True)
class Listed:
    """An open table: a match waiting for players (``POST /tables/``) or an open room in its lobby."""

    kind: str  # "match" or "room"
    id: UUID
    variant: str
    options: dict[str, Any]
    seats: int
    seats_free: int
    host: Player
    host_rating: float
    created_at: datetime

    @property
    def match_id(self) -> UUID | None:
        return self.id if self.kind == "match" else None


def open_tables() -> list[Listed]:
    """The open tables, the latest first: matches with a free seat, and open rooms in their lobby with
    fewer members than their next match has seats (bots take the rest when it starts)."""
    tables = list(
        OpenTable.objects.select_related("match", "match__created_by")
        .filter(match__status=MatchStatus.WAITING)
        .order_by("-created_at")[:OPEN_TABLES_LISTED]
    )
    rooms = (
        Room.objects.filter(open=True, closed=False)
        .filter(Q(match__isnull=True) | Q(match__status__in=[MatchStatus.FINISHED, MatchStatus.CANCELLED]))
        .select_related("host")
        .annotate(member_count=Count("members"))
        .order_by("-created_at")[:OPEN_TABLES_LISTED]
    )
    listed = [
        Listed("match", t.match_id, t.match.variant, t.match.options, len(t.match.seating),
               sum(1 for s in t.match.seating if s["kind"] == "open"), t.match.created_by, 1500.0, t.created_at)
        for t in tables
    ]  # fmt: skip
    for room in rooms:
        seats = engine.player_count(room.variant, room.options)
        if room.member_count < seats:
            listed.append(Listed("room", room.pk, room.variant, room.options, seats, seats - room.member_count,
                                 room.host, 1500.0, room.created_at))  # fmt: skip
    listed = sorted(listed, key=lambda t: t.created_at, reverse=True)[:OPEN_TABLES_LISTED]
    wanted = {(t.host.pk, t.variant) for t in listed}
    ratings = {
        (r.player_id, r.variant): r.rating
        for r in Rating.objects.filter(player_id__in={p for p, _ in wanted}, variant__in={v for _, v in wanted})
    }
    return [replace(t, host_rating=ratings.get((t.host.pk, t.variant), 1500.0)) for t in listed]


def notices_after(*, player: Player, after: int) -> list[Notice]:
    return list(Notice.objects.filter(player=player, pk__gt=after).order_by("pk")[:NOTICES_BATCH])
