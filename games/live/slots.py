"""A cap on the connections that wait for news per player, and the lifetime of those that stay open.

The cap: long polls, event streams and (the socket consumer's) WebSockets. Each holds a slot while it is
open; beyond ``LIVE_CONNECTIONS_PER_PLAYER`` slots of one player the next is refused with 429
``too_many_connections`` (``Retry-After``), before it waits, so that one player's 50 waits cannot take
what the others need::

    with connection_slot(player_id, "stream"):        # a sync view (WSGI)
        ...
    async with connection_slot(player_id, "socket"):  # a coroutine (ASGI, a consumer)
        ...

The lifetime (:func:`connection_lifetime`): a stream or a socket is closed after ``STREAM_MAX_SECONDS`` at
most, less a random share of it (up to :data:`LIFETIME_JITTER`), for its client to reconnect with its last
seq. The same for all, connections opened together (every client of a deploy, of a network's blip, of
a load test's start) would all end together, and come back together, for ever.

The count lives in the server process, exact and with no round trip (a slot is taken and given
back without I/O, and a process that dies takes its slots along): a service of W processes lets a
player hold at most W times the cap, which still bounds what one player can take of the box.
"""

from __future__ import annotations

import random
import threading
from collections import Counter
from types import TracebackType

from django.conf import settings

from tute_api.errors import ApiError

TOO_MANY_CONNECTIONS = "too_many_connections"
#: Seconds a player refused is asked to wait (``Retry-After``).
RETRY_SECONDS = 5
#: The kinds of connection that take a slot.
KINDS = ("long_poll", "stream", "turns", "notices", "socket")
#: A connection's lifetime is ``STREAM_MAX_SECONDS`` less a random share of it, up to this share.
LIFETIME_JITTER = 0.2


def connection_lifetime() -> float:
    """Seconds a stream or a socket that opens now may live: ``STREAM_MAX_SECONDS`` at most, and at least
    ``1 - LIFETIME_JITTER`` of it, at random (module docstring)."""
    return float(settings.STREAM_MAX_SECONDS) * (1 - LIFETIME_JITTER * random.random())

_lock = threading.Lock()
_open: Counter[str] = Counter()  # by player
_kinds: Counter[str] = Counter()  # by kind, for the figures


class TooManyConnections(ApiError):
    status_code = 429
    default_code = TOO_MANY_CONNECTIONS
    default_detail = "You have as many live connections (long polls, streams, sockets) open as you may; close one."

    def __init__(self, cap: int) -> None:
        super().__init__(retry_after=RETRY_SECONDS, limit=cap)
        self.wait = RETRY_SECONDS  # DRF sends it as the Retry-After header


class connection_slot:  # noqa: N801 - used as a context manager, like contextlib's
    """One open waiting connection of a player; a sync and an async context manager, or
    :meth:`acquire` and :meth:`release` (once, however often it is called)."""

    def __init__(self, player_id: object, kind: str) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown kind of connection: {kind!r}")
        self.player, self.kind = str(player_id), kind
        self.held = False

    def acquire(self) -> connection_slot:
        cap = settings.LIVE_CONNECTIONS_PER_PLAYER
        with _lock:
            if _open[self.player] >= cap:
                raise TooManyConnections(cap)
            _open[self.player] += 1
            _kinds[self.kind] += 1
            self.held = True
        return self

    def release(self) -> None:
        with _lock:
            if not self.held:
                return
            self.held = False
            _open[self.player] -= 1
            if _open[self.player] <= 0:
                del _open[self.player]
            _kinds[self.kind] -= 1

    def __enter__(self) -> connection_slot:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()

    async def __aenter__(self) -> connection_slot:
        return self.acquire()

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.release()


def open_connections(player_id: object | None = None) -> int:
    """Slots held in this process: one player's, or everyone's."""
    with _lock:
        return _open[str(player_id)] if player_id is not None else sum(_open.values())


def by_kind() -> dict[str, int]:
    with _lock:
        return {kind: _kinds[kind] for kind in KINDS}
