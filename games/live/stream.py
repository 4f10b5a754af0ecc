"""Server-sent events of a match: each event of its log, redacted for the viewer, as it happens.

The generator subscribes to the match's channel (:mod:`.channels`) first, then reads the log, so
that news published in between is not missed; between reads it sleeps on the subscription with
the database connection closed, sending a keep-alive comment now and then. A connection lives a
bounded time; the client then reconnects with ``Last-Event-ID`` (the last ``seq`` it got) and
misses nothing. Once the match is over and every event is sent, the stream ends. A spectator's
stream (M5) holds a :class:`~.watchers.Watch` while it is open, and touches no presence.

Under ASGI the stream is :func:`aevent_stream`, an async generator: it awaits the channel holding no
thread, reads each batch in a thread (:func:`_batch`), holds one of the player's slots (:mod:`.slots`),
and ends with an event ``server_closing`` when the server shuts down (:mod:`.shutdown`).
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable, Generator, Iterator
from uuid import UUID

from games.matches.bodies import event_body
from games.matches.models import Event, Match, MatchStatus
from games.turns import presence
from tute_api.threads import in_thread

from . import channels, shutdown
from .slots import connection_slot
from .waits import refresh_connection, release_connection
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
    slot: connection_slot | None = None,
) -> Iterator[str]:
    """The ``text/event-stream`` of the match's events after ``after``, for one viewer; ``watch``: a
    spectator's lease (already entered), renewed while the stream lasts and given back when the
    server closes the response; ``slot``: the player's (already taken), given back then too."""
    events = _events(match_id, seat, player_id, after, lifetime, keepalive, watch)
    closers = [c for c in (watch.leave if watch else None, slot.release if slot else None) if c]
    return _Closing(events, closers) if closers else events


class _Closing(Iterator[str]):
    """A stream that gives something back on ``close()`` (a spectator's lease, a slot), which the server
    calls once it is done with the response, read or not (a generator's own ``finally`` would not run
    if it never started)."""

    def __init__(self, events: Generator[str], closers: list[Callable[[], None]]) -> None:
        self.events, self.closers = events, closers

    def __next__(self) -> str:
        return next(self.events)

    def close(self) -> None:
        try:
            self.events.close()
        finally:
            for close in self.closers:
                close()


def _batch(
    match_id: UUID, seat: int | None, player_id: object, after: int, watch: Watch | None
) -> tuple[str | None, list[tuple[int, str]]]:
    """One read of the stream: the match's status and its next events as ``(seq, text)``; the seat's
    presence touched, the spectator's lease renewed, the connection given back."""
    refresh_connection()
    # The status first: a match read as over has every event of its log committed.
    status = Match.objects.filter(pk=match_id).values_list("status", flat=True).first()
    rows = list(Event.objects.filter(match_id=match_id, seq__gt=after).order_by("seq")[:BATCH])
    if seat is not None:  # a seated viewer is there; a spectator's stream touches nothing (M5)
        presence.touch(match_id=match_id, player_id=player_id)
    if watch is not None:
        watch.renew()
    release_connection()
    return status, [(row.seq, _event_text(row, seat)) for row in rows]


def _event_text(row: Event, seat: int | None) -> str:
    body = event_body(row, seat)
    return f"id: {row.seq}\nevent: {row.type}\ndata: {json.dumps(body, separators=(',', ':'))}\n\n"


def closing_event(reason: str) -> str:
    """The last event of a stream the server ends before its time (``reason``: ``shutdown``)."""
    data = json.dumps({"reason": reason, "retry_ms": shutdown.RECONNECT_MS}, separators=(",", ":"))
    return f"event: server_closing\ndata: {data}\n\n"


async def aevent_stream(
    *,
    match_id: UUID,
    seat: int | None,
    player_id: object,
    after: int,
    lifetime: float,
    keepalive: float,
    slot: connection_slot,
    watch: Watch | None = None,
) -> AsyncIterator[str]:
    """:func:`event_stream` under ASGI: the same text, awaited on the channel with no thread held.
    ``slot`` (taken) and ``watch`` (entered) are given back when the stream ends or the client leaves."""
    try:
        deadline = time.monotonic() + lifetime
        yield f"retry: 1000\n: events of match {match_id} after {after}\n\n"
        async with channels.asubscribe(channels.match_channel(match_id)) as subscription:
            while True:
                status, events = await in_thread(_batch)(match_id, seat, player_id, after, watch)
                for seq, text in events:
                    yield text
                    after = seq
                if len(events) == BATCH:
                    continue
                if status in (MatchStatus.FINISHED, MatchStatus.CANCELLED, None):
                    return
                if shutdown.draining():
                    yield closing_event("shutdown")
                    return
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                if not await subscription.wait(min(keepalive, left)) and not shutdown.draining():
                    yield ": keep-alive\n\n"
    finally:
        slot.release()
        if watch is not None:
            watch.leave()


def _events(
    match_id: UUID, seat: int | None, player_id: object, after: int, lifetime: float, keepalive: float,
    watch: Watch | None,
) -> Generator[str]:  # fmt: skip
    deadline = time.monotonic() + lifetime
    yield f"retry: 1000\n: events of match {match_id} after {after}\n\n"
    with channels.subscribe(channels.match_channel(match_id)) as subscription:
        while True:
            status, events = _batch(match_id, seat, player_id, after, watch)
            for seq, text in events:
                yield text
                after = seq
            if len(events) == BATCH:
                continue
            if status in (MatchStatus.FINISHED, MatchStatus.CANCELLED, None):
                return
            left = deadline - time.monotonic()
            if left <= 0:
                return
            if not subscription.wait(min(keepalive, left)):
                yield ": keep-alive\n\n"
