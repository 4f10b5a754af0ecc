"""Wake the requests that wait for a match to move on (long polls, SSE, bots polling for turns).

A waiter subscribes to a channel, checks the database once, and then sleeps on the subscription,
holding no database connection, until a publisher announces news on the channel or the time runs
out. Publishers announce after their transaction commits.

Two backends, chosen by ``settings.LIVE_UPDATES_URL``:

- ``redis://…``: Redis pub/sub, so that every process of every server hears every announcement;
- empty: in process (``threading``), enough for ``make run``'s single server process, where the
  Celery tasks run in process too.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

from django.conf import settings


class Subscription(Protocol):
    def wait(self, timeout: float) -> bool:
        """Sleep until news arrives on the channel (True) or ``timeout`` seconds pass (False)."""


class _LocalSubscription:
    def __init__(self) -> None:
        self.news = threading.Event()

    def wait(self, timeout: float) -> bool:
        got = self.news.wait(timeout)
        self.news.clear()
        return got


class LocalBroker:
    """Announcements between the threads of one process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subscribers: dict[str, set[_LocalSubscription]] = defaultdict(set)

    def publish(self, channel: str) -> None:
        with self._lock:
            subscribers = list(self._subscribers.get(channel, ()))
        for subscription in subscribers:
            subscription.news.set()

    @contextmanager
    def subscribe(self, channel: str) -> Iterator[Subscription]:
        subscription = _LocalSubscription()
        with self._lock:
            self._subscribers[channel].add(subscription)
        try:
            yield subscription
        finally:
            with self._lock:
                self._subscribers[channel].discard(subscription)
                if not self._subscribers[channel]:
                    del self._subscribers[channel]


class _RedisSubscription:
    def __init__(self, pubsub: Any) -> None:
        self.pubsub = pubsub

    def wait(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            message = self.pubsub.get_message(ignore_subscribe_messages=True, timeout=left)
            if message is not None and message["type"] == "message":
                return True
        return False


class RedisBroker:
    """Announcements across processes through Redis pub/sub."""

    def __init__(self, url: str) -> None:
        import redis  # imported here: the in-process default needs no Redis client

        self._client = redis.Redis.from_url(url, socket_connect_timeout=2)

    def publish(self, channel: str) -> None:
        self._client.publish(channel, b"1")

    @contextmanager
    def subscribe(self, channel: str) -> Iterator[Subscription]:
        pubsub = self._client.pubsub()
        pubsub.subscribe(channel)
        try:
            yield _RedisSubscription(pubsub)
        finally:
            pubsub.close()


_broker: LocalBroker | RedisBroker | None = None
_broker_url: str | None = None


def broker() -> LocalBroker | RedisBroker:
    """The broker that ``settings.LIVE_UPDATES_URL`` names, built once per process."""
    global _broker, _broker_url
    url = settings.LIVE_UPDATES_URL
    if _broker is None or url != _broker_url:
        _broker = RedisBroker(url) if url else LocalBroker()
        _broker_url = url
    return _broker


def match_channel(match_id: object) -> str:
    return f"tute:match:{match_id}"


def player_channel(player_id: object) -> str:
    return f"tute:player:{player_id}"


def publish(*channels: str) -> None:
    """Announce news on some channels (call it after the news is committed)."""
    hub = broker()
    for channel in channels:
        hub.publish(channel)


@contextmanager
def subscribe(channel: str) -> Iterator[Subscription]:
    with broker().subscribe(channel) as subscription:
        yield subscription
