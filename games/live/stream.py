"""Server-sent events of a match: each event of its log, redacted for the viewer, as it happens.

The generator subscribes to the match's channel (:mod:`.channels`) first, then reads the log, so
that news published in between is not missed; between reads it sleeps on the subscription with
the database connection closed, sending a keep-alive comment now and then. A connection lives a
bounded time; the client then reconnects with ``Last-Event-ID`` (the last ``seq`` it got) and
misses nothing. Once the match is over and every event is sent, the stream ends. A spectator's
stream (M5) holds a :class:`~.watchers.Watch` while it is open, and touches no presence.

Under ASGI the stream is :func:`aevent_stream`, an async generator: it awaits the channel holding no
thread, reads each batch in a thread (:func:`_reader`), holds one of the player's slots (:mod:`.slots`),
and ends with an event ``server_closing`` when the server shuts down (:mod:`.shutdown`).

The loops themselves, :func:`sse_stream` (a thread's) and :func:`asse_stream` (a coroutine's), take any
channel and reader: a player's own channel (``games.lobby.channel``) streams through them too.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import AsyncIterator, Callable, Generator, Iterator
from uuid import UUID

from django.conf import settings

from games.matches import kept
from games.matches.bodies import event_body
from games.matches.models import Event, Match, MatchStatus
from games.matches.selectors import EventsAfter, events_after
from games.turns import presence
from games.turns.tables import timings_of
from tute_api.threads import Lane, in_thread

from . import channels, shutdown, watchers
from .slots import connection_slot
from .waits import refresh_connection, release_connection
from .watchers import Watch

#: Events read per database query.
BATCH = 200


def presence_counts(match: Match, seat: int | None, player_id: object) -> bool:
    """Whether the viewer's connection keeps a seat present (M2): a seated human of a match between
    humans, or of one not started yet (its humans may still come). Against bots (M3) it never will:
    who sits at a started match does not change."""
    if seat is None:
        return False
    return match.status == MatchStatus.WAITING or str(player_id) in presence.tracked_players(match.id)


def keepalive_seconds(match_id: UUID, *, keeps_present: bool, spectator: bool) -> float:
    """How often an idle stream or socket wakes: every ``STREAM_KEEPALIVE_SECONDS`` (a proxy closes a
    silent connection), within half the presence timeout where it keeps a seat present (M2), within half
    a spectator's epoch (M5). A seat against bots wakes a third less often than one between humans."""
    keepalive = float(settings.STREAM_KEEPALIVE_SECONDS)
    if keeps_present:
        keepalive = min(keepalive, timings_of(match_id).presence_timeout / 2)
    if spectator:
        keepalive = min(keepalive, watchers.EPOCH_SECONDS / 2)
    return keepalive


#: One read of a stream: its next messages as ``(id, text)``, whether to read again at once (a full
#: batch), and whether the stream is done (nothing more will come).
Read = tuple[list[tuple[int, str]], bool, bool]


def sse_stream(
    *,
    channel: str,
    intro: str,
    read: Callable[[int], Read],
    after: int,
    lifetime: float,
    keepalive: float,
    release: list[Callable[[], None]],
    tick: Callable[[], None] | None = None,
) -> Iterator[str]:
    """A ``text/event-stream`` in a thread (WSGI): ``intro``, then what ``read(after)`` finds, read again
    whenever ``channel`` has news, ``: keep-alive`` when it has none for ``keepalive`` seconds, for at most
    ``lifetime`` seconds. Subscribed before the first read, so no news between the two is missed. A
    keep-alive reads nothing: it runs ``tick`` (a sign of life the stream owes: the seat's presence, a
    spectator's lease), if any. What ``release`` holds is given back when the server closes the response."""
    loop = _sse_loop(channel, intro, read, after, lifetime, keepalive, tick)
    return _Closing(loop, release) if release else loop


def _sse_loop(
    channel: str, intro: str, read: Callable[[int], Read], after: int, lifetime: float, keepalive: float,
    tick: Callable[[], None] | None,
) -> Generator[str]:  # fmt: skip
    deadline = time.monotonic() + lifetime
    yield intro
    with channels.subscribe(channel) as subscription:
        news = True
        while True:
            if news:
                items, again, done = read(after)
                for after, text in items:  # noqa: B007 - after: the last id sent
                    yield text
                if again:
                    continue
                if done:
                    return
            left = deadline - time.monotonic()
            if left <= 0:
                return
            news = subscription.wait(min(keepalive, left))
            if not news:
                yield ": keep-alive\n\n"
                if tick is not None:
                    tick()


async def asse_stream(
    *,
    channel: str,
    intro: str,
    read: Callable[[int], Read],
    after: int,
    lifetime: float,
    keepalive: float,
    release: list[Callable[[], None]],
    tick: Callable[[], None] | None = None,
) -> AsyncIterator[str]:
    """:func:`sse_stream` under ASGI: the same text, awaited on the channel with no thread held (each
    ``read`` and ``tick`` runs in a thread), ended by an event ``server_closing`` when the server shuts
    down; what ``release`` holds is given back when the stream ends or the client leaves."""
    try:
        deadline = time.monotonic() + lifetime
        yield intro
        async with channels.asubscribe(channel) as subscription:
            news = True
            while True:
                if news:
                    items, again, done = await in_thread(read, lane=Lane.NEWS)(after)
                    for after, text in items:  # noqa: B007 - after: the last id sent
                        yield text
                    if again:
                        continue
                    if done:
                        return
                if shutdown.draining():
                    yield closing_event("shutdown")
                    return
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                news = await subscription.wait(min(keepalive, left))
                if not news and not shutdown.draining():
                    yield ": keep-alive\n\n"
                    if tick is not None:
                        await in_thread(tick)()
    finally:
        for close in release:
            close()


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
    keeps_present: bool,
) -> Iterator[str]:
    """The ``text/event-stream`` of the match's events after ``after``, for one viewer; ``watch``: a
    spectator's lease (already entered), renewed while the stream lasts and given back when the
    server closes the response; ``slot``: the player's (already taken), given back then too;
    ``keeps_present``: the stream keeps the seat present (:func:`presence_counts`)."""
    return sse_stream(
        channel=channels.match_channel(match_id),
        intro=_intro(match_id, after),
        read=_reader(match_id, seat, player_id, watch),
        after=after,
        lifetime=lifetime,
        keepalive=keepalive,
        release=[c for c in (watch.leave if watch else None, slot.release if slot else None) if c],
        tick=_ticker(match_id, seat, player_id, watch, keeps_present),
    )


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


def _intro(match_id: UUID, after: int) -> str:
    return f"retry: 1000\n: events of match {match_id} after {after}\n\n"


def _reader(match_id: UUID, seat: int | None, player_id: object, watch: Watch | None) -> Callable[[int], Read]:
    """One read of the stream: the match's next events, redacted for the seat; the seat's presence
    touched, the spectator's lease renewed, the connection given back. Done once the match is over and
    its last event sent."""

    def read(after: int) -> Read:
        refresh_connection()
        status, rows, _, _ = events_read(match_id, after)
        _seen(match_id, seat, player_id, watch)
        release_connection()
        full = len(rows) == BATCH
        over = status in (MatchStatus.FINISHED, MatchStatus.CANCELLED, None)
        return [(row.seq, _event_text(row, seat)) for row in rows], full, over and not full

    return read


def events_read(match_id: UUID, after: int) -> EventsAfter:
    """The match's status, seq and turn, and its next events after ``after`` (a batch), as a stream or a
    socket reads them once woken (:func:`games.matches.selectors.events_after`): read once by the subscribers
    of this process that the same news woke, while it hears every process's news
    (:func:`games.matches.kept.shared`: before, each of them read the same rows)."""
    read = functools.partial(events_after, match_id=match_id, after=after, limit=BATCH)
    return kept.shared(str(match_id), ("events", after), read) if channels.hears_everything() else read()


def _seen(match_id: UUID, seat: int | None, player_id: object, watch: Watch | None) -> None:
    """The viewer is there: a seated player's presence touched where the match counts it (M2: not against
    bots, M3; once started, a per-process lookup with no query), a spectator's lease renewed (M5)."""
    if seat is not None and str(player_id) in presence.tracked_players(match_id):
        presence.touch(match_id=match_id, player_id=player_id)
    if watch is not None:
        watch.renew()


def _ticker(
    match_id: UUID, seat: int | None, player_id: object, watch: Watch | None, keeps_present: bool
) -> Callable[[], None] | None:
    """What a keep-alive of the stream owes instead of a read: the viewer's sign of life; None for one who
    owes none (a creator who only watches their own match, a seat whose presence does not count)."""
    if (seat is None or not keeps_present) and watch is None:
        return None

    def tick() -> None:
        _seen(match_id, seat, player_id, watch)
        release_connection()

    return tick


def _event_text(row: Event, seat: int | None) -> str:
    body = event_body(row, seat)
    return f"id: {row.seq}\nevent: {row.type}\ndata: {json.dumps(body, separators=(',', ':'))}\n\n"


def closing_event(reason: str) -> str:
    """The last event of a stream the server ends before its time (``reason``: ``shutdown``)."""
    data = json.dumps({"reason": reason, "retry_ms": shutdown.RECONNECT_MS}, separators=(",", ":"))
    return f"event: server_closing\ndata: {data}\n\n"


def aevent_stream(
    *,
    match_id: UUID,
    seat: int | None,
    player_id: object,
    after: int,
    lifetime: float,
    keepalive: float,
    slot: connection_slot,
    watch: Watch | None = None,
    keeps_present: bool,
) -> AsyncIterator[str]:
    """:func:`event_stream` under ASGI. ``slot`` (taken) and ``watch`` (entered) are given back when the
    stream ends or the client leaves."""
    return asse_stream(
        channel=channels.match_channel(match_id),
        intro=_intro(match_id, after),
        read=_reader(match_id, seat, player_id, watch),
        after=after,
        lifetime=lifetime,
        keepalive=keepalive,
        release=[slot.release, *([watch.leave] if watch is not None else [])],
        tick=_ticker(match_id, seat, player_id, watch, keeps_present),
    )
