"""Server-sent events of a match: each event of its log, redacted for the viewer, as it happens.

The generator subscribes to the match's channel (:mod:`.channels`) first, then reads the log, so
that news published in between is not missed; between reads it sleeps on the subscription with
the database connection closed, sending a keep-alive comment now and then. A connection lives a
bounded time; the client then reconnects with ``Last-Event-ID`` (the last ``seq`` it got) and
misses nothing. Once the match is over and every event is sent, the stream ends. A spectator's
stream (M5) holds a :class:`~.watchers.Watch` while it is open, and touches no presence.
"""

from __future__ import annotations

import json
import time
from collections.abc import Generator, Iterator
from uuid import UUID

from django.db import close_old_connections

from games.matches.bodies import event_body
from games.matches.models import Event, Match, MatchStatus
from games.turns import presence

from . import channels
from .waits import release_connection
from .watchers import Watch

#: Events read per database query.
BATCH = 200


def event_stream(
    *,
    match_id: UUID,
    seat: int | None,
    player_id: object,
    after: int,
    lifetime: float,
    keepalive: float,
    watch: Watch | None = None,
) -> Iterator[str]:
    """The ``text/event-stream`` of the match's events after ``after``, for one viewer; ``watch``: a
    spectator's lease (already entered), renewed while the stream lasts and given back when the
    server closes the response."""
    events = _events(match_id, seat, player_id, after, lifetime, keepalive, watch)
    return events if watch is None else _Watched(events, watch)


class _Watched(Iterator[str]):
    """A spectator's stream: its lease goes back on ``close()``, which the server calls once it is done
    with the response, read or not (a generator's own ``finally`` would not run if it never started)."""

    def __init__(self, events: Generator[str], watch: Watch) -> None:
        self.events, self.watch = events, watch

    def __next__(self) -> str:
        return next(self.events)

    def close(self) -> None:
        try:
            self.events.close()
        finally:
            self.watch.leave()


def _events(
    match_id: UUID, seat: int | None, player_id: object, after: int, lifetime: float, keepalive: float,
    watch: Watch | None,
) -> Generator[str]:  # fmt: skip
    deadline = time.monotonic() + lifetime
    yield f"retry: 1000\n: events of match {match_id} after {after}\n\n"
    with channels.subscribe(channels.match_channel(match_id)) as subscription:
        while True:
            close_old_connections()
            # The status first: a match read as over has every event of its log committed.
            status = Match.objects.filter(pk=match_id).values_list("status", flat=True).first()
            rows = list(Event.objects.filter(match_id=match_id, seq__gt=after).order_by("seq")[:BATCH])
            if seat is not None:  # a seated viewer is there; a spectator's stream touches nothing (M5)
                presence.touch(match_id=match_id, player_id=player_id)
            if watch is not None:
                watch.renew()
            release_connection()
            for row in rows:
                body = event_body(row, seat)
                yield f"id: {row.seq}\nevent: {row.type}\ndata: {json.dumps(body, separators=(',', ':'))}\n\n"
                after = row.seq
            if len(rows) == BATCH:
                continue
            if status in (MatchStatus.FINISHED, MatchStatus.CANCELLED, None):
                return
            left = deadline - time.monotonic()
            if left <= 0:
                return
            if not subscription.wait(min(keepalive, left)):
                yield ": keep-alive\n\n"
