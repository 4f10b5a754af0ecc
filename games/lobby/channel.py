"""A player's own live channel: the long poll and the event stream of their messages (:mod:`.messages`).

Both wait as a match's do (``games.live``): subscribed to the player's channel first, read second, then
asleep on the subscription holding no database connection, and under ASGI holding no thread either
(:func:`games.live.waits.player_long_poll`, :func:`games.live.stream.asse_stream`). Reading the channel
is a queued player's sign of life.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator

from django.http import HttpResponseBase

from games.live import channels
from games.live.slots import connection_slot
from games.live.stream import Read, asse_stream, sse_stream
from games.live.waits import deferring, player_long_poll, refresh_connection, release_connection
from players.models import Player

from .messages import sse_frame
from .models import Notice
from .selectors import NOTICES_BATCH, notices_after
from .services import queue_touch


def notices_long_poll(
    *, player: Player, after: int, wait: float, answer: Callable[[list[Notice]], HttpResponseBase]
) -> HttpResponseBase:
    """``answer`` the player's messages after ``after``, waiting up to ``wait`` seconds for one."""

    def read() -> list[Notice]:
        queue_touch(player=player)
        return notices_after(player=player, after=after)

    return player_long_poll(player=player, kind="notices", timeout=wait, read=read, answer=answer)


def _reader(player: Player) -> Callable[[int], Read]:
    def read(after: int) -> Read:
        refresh_connection()
        queue_touch(player=player)
        rows = notices_after(player=player, after=after)
        release_connection()
        return [(row.pk, sse_frame(row)) for row in rows], len(rows) == NOTICES_BATCH, False

    return read


def _touched(player: Player) -> None:
    """A keep-alive of the stream: the reader is there (a queued player's sign of life)."""
    refresh_connection()
    queue_touch(player=player)
    release_connection()


def notice_stream(
    *, player: Player, after: int, lifetime: float, keepalive: float, slot: connection_slot
) -> Iterator[str] | AsyncIterator[str]:
    """The ``text/event-stream`` of the player's messages after ``after``: a coroutine's under ASGI, a
    thread's otherwise; either gives ``slot`` (taken) back when it ends or the client leaves."""
    stream = dict(
        channel=channels.player_channel(player.pk),
        intro=f"retry: 1000\n: messages of player {player.pk} after {after}\n\n",
        read=_reader(player),
        after=after,
        lifetime=lifetime,
        keepalive=keepalive,
        release=[slot.release],
        tick=lambda: _touched(player),
    )
    return asse_stream(**stream) if deferring() else sse_stream(**stream)  # type: ignore[arg-type]
