"""Replays of matches that are over: the whole table after any event of the log, card by card.

Anyone authenticated may replay a finished or cancelled match (its history is public once it is
over); a match still played is refused (403 ``match_not_over`` to its players, 404 to anyone else):
hidden information must hold.
The log also holds the service's own events (``games.matches.records.SERVICE_EVENTS``: presence, the turn
clock, a bot's fallback marker, a cancellation), which the engine neither reads nor counts: a log
seq is mapped to the number of engine events at or before it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from uuid import UUID

from games import engine
from players.models import Player

from . import records, selectors
from .errors import ErrorCode, Forbidden, Unprocessable
from .models import Event, Match, MatchStatus


@dataclass(frozen=True)
class Replay:
    """The table right after event ``seq`` of a match that is over (None before any engine event),
    and how many of the events up to ``seq`` are the engine's."""

    match: Match
    seq: int
    event: Event
    last_seq: int
    engine_events: int
    table: dict[str, Any] | None


def engine_count(types: list[str], seq: int) -> int:
    """How many of the log's first ``seq`` events are the engine's."""
    return sum(1 for kind in types[:seq] if kind not in records.SERVICE_EVENTS)


def match_over(match_id: UUID, player: Player) -> Match:
    """The match, for any player once it is over. While it is played: 404 to those not at it (as the
    record, :func:`.selectors.match_membership_or_over`), 403 ``match_not_over`` to its players."""
    membership = selectors.match_membership_or_over(match_id=match_id, player=player)
    if membership.match.status not in (MatchStatus.FINISHED, MatchStatus.CANCELLED):
        raise Forbidden(
            "A replay shows every hand: it is available once the match is over.", code=ErrorCode.MATCH_NOT_OVER
        )
    return membership.match


def replay_at(*, match_id: UUID, seq: int, player: Player) -> Replay:
    """The whole table (every hand face up) right after event ``seq`` of a match that is over."""
    match = match_over(match_id, player)
    rows = list(Event.objects.filter(match=match).order_by("seq"))
    if not 1 <= seq <= len(rows):
        raise Unprocessable(
            f"This match's events are numbered 1 to {len(rows)}.", code=ErrorCode.SEQ_OUT_OF_RANGE, field="seq"
        )
    engine_events = records.log_of(rows)
    count = engine_count([row.type for row in rows], seq)
    table = engine.table_after(match.variant, match.options, engine_events, count) if count else None
    if table is not None and any(row.type == "match_cancelled" for row in rows[:seq]):
        table["status"] = MatchStatus.CANCELLED.value  # the service's event, which the engine never sees
    return Replay(match, seq, rows[seq - 1], len(rows), count, table)
