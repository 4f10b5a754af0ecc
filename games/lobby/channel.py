"""A player's own live channel: the long poll and the event stream of their messages (:mod:`.messages`).

As a match's: subscribe to the player's channel first, read second, then sleep on the subscription
holding no database connection. Reading the channel is a queued player's sign of life.
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from games.live import channels
from games.live.waits import refresh_connection, release_connection
from players.models import Player

from .messages import sse_frame
from .models import Notice
from .selectors import notices_after
from .services import queue_touch


def notices_wait(*, player: Player, after: int, wait: float) -> list[Notice]:
    with channels.subscribe(channels.player_channel(player.pk)) as subscription:
        queue_touch(player=player)
        found = notices_after(player=player, after=after)
        deadline = time.monotonic() + wait
        while not found and (left := deadline - time.monotonic()) > 0:
            release_connection()
            if subscription.wait(left):
                found = notices_after(player=player, after=after)
    return found


def notice_stream(*, player: Player, after: int, lifetime: float, keepalive: float) -> Iterator[str]:
    deadline = time.monotonic() + lifetime
    yield f"retry: 1000\n: messages of player {player.pk} after {after}\n\n"
    with channels.subscribe(channels.player_channel(player.pk)) as subscription:
        while True:
            refresh_connection()
            queue_touch(player=player)
            rows = notices_after(player=player, after=after)
            release_connection()
            for row in rows:
                yield sse_frame(row)
                after = row.pk
            if rows:
                continue
            left = deadline - time.monotonic()
            if left <= 0:
                return
            if not subscription.wait(min(keepalive, left)):
                yield ": keep-alive\n\n"
