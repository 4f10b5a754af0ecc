"""Reads of play-now: where a player stands in the queue, the open tables, a player's messages."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from games.matches.models import MatchStatus
from games.ratings.models import Rating
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
    table: OpenTable
    seats_free: int
    host_rating: float


def open_tables() -> list[Listed]:
    tables = list(
        OpenTable.objects.select_related("match", "match__created_by")
        .filter(match__status=MatchStatus.WAITING)
        .order_by("-created_at")[:OPEN_TABLES_LISTED]
    )
    wanted = {(t.match.created_by_id, t.match.variant) for t in tables}
    ratings = {
        (r.player_id, r.variant): r.rating
        for r in Rating.objects.filter(player_id__in={p for p, _ in wanted}, variant__in={v for _, v in wanted})
    }
    return [
        Listed(
            t,
            sum(1 for s in t.match.seating if s["kind"] == "open"),
            ratings.get((t.match.created_by_id, t.match.variant), 1500.0),
        )
        for t in tables
    ]


def notices_after(*, player: Player, after: int) -> list[Notice]:
    return list(Notice.objects.filter(player=player, pk__gt=after).order_by("pk")[:NOTICES_BATCH])
