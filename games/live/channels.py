"""The live-update channels: wake the requests that wait for a match to move on (long polls, SSE, bots
polling for turns).

A waiter subscribes to a channel, checks the database once, and then sleeps on the subscription,
holding no database connection, until a publisher announces news on the channel or the time runs
out. Publishers announce after their transaction commits: :func:`match_news` hears every committed
change of a match (``settings.MATCH_LISTENERS``).

Two backends, chosen by ``settings.LIVE_UPDATES_URL``:

- ``redis://…``: Redis pub/sub, so that every process of every server hears every announcement;
- empty: in process (``threading``), enough for ``make run``'s single server process, where the
  Celery tasks run in process too.

Redis is not a single point of failure (docs/reliability.md): while the Redis of the live updates is
away, an announcement that cannot be sent is logged and dropped (the change it announces is
committed), and the waiters read the database again every :data:`FALLBACK_POLL_SECONDS` instead of
sleeping on news that cannot come: when the listener loses Redis it wakes them all, and until it
listens again a wait lasts at most that long.

The listener also hears the tokens revoked by any process (players/token_cache.py) and, in each match's
news, the match's ``seq`` (games/matches/kept.py): what a process keeps because it hears every process,
it keeps only while its listener listens (:func:`hears_everything`), and forgets when it loses Redis.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections import defaultdict
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from typing import Protocol

from django.conf import settings

from games.matches import kept
from games.matches.news import MatchNews
from players import token_cache

logger = logging.getLogger(__name__)


class Subscription(Protocol):
    def wait(self, timeout: float) -> bool:
        """Sleep until news arrives on the channel (True) or ``timeout`` seconds pass (False)."""


#: While Redis is away, the longest a waiter sleeps before reading the database again.
FALLBACK_POLL_SECONDS = 1.0


class _LocalSubscription:
    def __init__(self, lost: threading.Event | None = None) -> None:
        self.news = threading.Event()
        self.lost = lost  # set while the channel's Redis is away: wake up to read the database

    def notify(self) -> None:
        self.news.set()

    def wait(self, timeout: float) -> bool:
        """Cleared only when it returns True (the caller reads next): news that lands as a wait times
        out stays set for the next wait, instead of being cleared unread by this one."""
        if self.lost is not None and self.lost.is_set():
            got = self.news.wait(min(timeout, FALLBACK_POLL_SECONDS)) or timeout > FALLBACK_POLL_SECONDS
        else:
            got = self.news.wait(timeout)
        if got:
            self.news.clear()
        return got  # with Redis away, True after the fallback's time too: "read again", news may be missed


class AsyncSubscription:
    """A subscription awaited on an event loop (ASGI): the waiter holds no thread. Publishers in any
    thread (a sync view's, the Redis listener's) wake it through its loop."""

    def __init__(self, lost: threading.Event | None = None) -> None:
        self.loop = asyncio.get_running_loop()
        self.news = asyncio.Event()
        self.lost = lost  # set while the channel's Redis is away: wake up to read the database
        #: Nothing heard since the subscription, and no news can have been missed (Redis away at a wait:
        #: not silent; lost during a wait, every waiter is woken).
        self.silent = True

    def notify(self) -> None:
        with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
            self.loop.call_soon_threadsafe(self.news.set)

    async def wait(self, timeout: float) -> bool:
        """Sleep until news arrives (True) or ``timeout`` seconds pass (False), holding no thread; while
        Redis is away, at most :data:`FALLBACK_POLL_SECONDS` (True: read again, news may have been missed)."""
        fallback = self.lost is not None and self.lost.is_set()
        # (A timeout of the waiting task itself, not wait_for's task of its own for each wait: one task
        # fewer kept by each waiting connection, and built for each wait.)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(min(timeout, FALLBACK_POLL_SECONDS) if fallback else timeout):
                await self.news.wait()
        # The news may have landed as the wait timed out (the publisher's set may run between the
        # timeout and this line): it counts, and is cleared only when it is returned, so that no caller
        # sleeps on news it never read (a stream's keep-alive reads nothing: it would then miss the
        # event until the next one).
        got = self.news.is_set()
        self.news.clear()
        got = got or (fallback and timeout > FALLBACK_POLL_SECONDS)
        self.silent = self.silent and not got and not fallback
        return got


class LocalBroker:
    """Announcements between the threads of one process."""

    def __init__(self, lost: threading.Event | None = None) -> None:
        self._lock = threading.Lock()
        self._subscribers: dict[str, set[_LocalSubscription | AsyncSubscription]] = defaultdict(set)
        self._lost = lost

    def publish(self, *channels: str, data: bytes = b"") -> None:
        with self._lock:
            subscribers = [s for channel in channels for s in self._subscribers.get(channel, ())]
        for subscription in subscribers:
            subscription.notify()

    def wake_all(self) -> None:
        """Wake every waiter of every channel: a server that shuts down (see :mod:`.shutdown`), or news that
        may have been missed (Redis lost): they read again."""
        with self._lock:
            subscribers = [s for group in self._subscribers.values() for s in group]
        for subscription in subscribers:
            subscription.notify()

    def count(self) -> int:
        """Open subscriptions in this process."""
        with self._lock:
            return sum(len(group) for group in self._subscribers.values())

    def hears_everything(self) -> bool:
        """Whether this process hears every process's news and revocations: in process, other processes
        cannot be heard (nor told), so nothing is kept (players/token_cache.py, games/matches/kept.py)."""
        return False

    def revoke(self, digests: list[str]) -> None:
        token_cache.forget(digests)

    @contextmanager
    def subscribe(self, channel: str) -> Iterator[Subscription]:
        subscription = _LocalSubscription(self._lost)
        with self._registered(channel, subscription):
            yield subscription

    @asynccontextmanager
    async def asubscribe(self, channel: str) -> AsyncIterator[AsyncSubscription]:
        subscription = AsyncSubscription(self._lost)
        with self._registered(channel, subscription):
            yield subscription

    @contextmanager
    def _registered(self, channel: str, subscription: _LocalSubscription | AsyncSubscription) -> Iterator[None]:
        with self._lock:
            self._subscribers[channel].add(subscription)
        try:
            yield
        finally:
            with self._lock:
                self._subscribers[channel].discard(subscription)
                if not self._subscribers[channel]:
                    del self._subscribers[channel]


#: Every channel of the service starts with this prefix; a process listens to all of them at once.
CHANNEL_PREFIX = "tute:"
#: Seconds an announcement waits for Redis before it is dropped (and logged).
PUBLISH_TIMEOUT = 1.0
#: A match's channel, with its id after: its news says the match's ``seq`` (games/matches/kept.py).
MATCH_CHANNEL = CHANNEL_PREFIX + "match:"
#: Where the digests of revoked tokens are published (players/token_cache.py), comma-separated.
REVOKED_TOKENS = CHANNEL_PREFIX + "revoked-tokens"


class RedisBroker:
    """Announcements across processes through Redis pub/sub.

    A process holds one Redis connection for all its waiters: a listener thread, started on the
    first subscription, subscribes to every channel of the service (``tute:*``) and wakes the
    waiters of the channels it hears through a :class:`LocalBroker`. A waiter thus costs no
    connection of its own, and no round trip to Redis to subscribe or to leave.

    Redis's pub/sub ignores the database number: a service on ``redis://…/2`` heard every publish of
    one on ``redis://…/0`` of the same server (a load test's news woke the tests' waiters and dropped
    their kept reads). On a database other than 0 the channels on the wire start with ``db<N>:``
    (``db2:tute:match:…``), as Redis's documentation advises for scoping; on database 0 they are as they
    were.
    """

    def __init__(self, url: str) -> None:
        import redis  # imported here: the in-process default needs no Redis client

        self._client = redis.Redis.from_url(url, socket_connect_timeout=2, health_check_interval=30)
        database = self._client.connection_pool.connection_kwargs.get("db") or 0
        #: What the channels start with on the wire (the class's docstring).
        self.namespace = f"db{database}:" if database else ""
        # Announcements on a client of their own that gives up quickly: an action never hangs on Redis.
        self._publisher = redis.Redis.from_url(
            url, socket_connect_timeout=PUBLISH_TIMEOUT, socket_timeout=PUBLISH_TIMEOUT
        )
        self._lost = threading.Event()  # the listener ran and lost Redis (or never reached it)
        self._local = LocalBroker(self._lost)
        self._lock = threading.Lock()
        self._listener: threading.Thread | None = None
        self._listening = threading.Event()
        self._closed = threading.Event()

    def publish(self, *channels: str, data: bytes = b"") -> None:
        """One round trip to Redis however many channels (a move wakes its match's and a player's)."""
        try:
            if len(channels) == 1:
                self._publisher.publish(self.namespace + channels[0], data)
            elif channels:
                with self._publisher.pipeline(transaction=False) as pipe:
                    for channel in channels:
                        pipe.publish(self.namespace + channel, data)
                    pipe.execute()
        except Exception:  # Redis is away: the waiters read the database meanwhile
            logger.warning("Live updates: could not announce news on %s (Redis away)", channels, exc_info=True)

    @contextmanager
    def subscribe(self, channel: str) -> Iterator[Subscription]:
        with self._local.subscribe(channel) as subscription:
            self._listen_in_background()
            yield subscription

    @asynccontextmanager
    async def asubscribe(self, channel: str) -> AsyncIterator[AsyncSubscription]:
        async with self._local.asubscribe(channel) as subscription:
            if not self._listening.is_set():  # the first waiter of the process: start the listener
                await asyncio.to_thread(self._listen_in_background)
            yield subscription

    def wake_all(self) -> None:
        self._local.wake_all()

    def count(self) -> int:
        return self._local.count()

    def hears_everything(self) -> bool:
        """Whether the listener is subscribed, so that it hears all news and every revocation published
        from now on; if it is not running, it is started (without waiting for it)."""
        if self._listening.is_set() and not self._lost.is_set():
            return True
        self._listen_in_background(timeout=0)
        return False

    def revoke(self, digests: list[str]) -> None:
        """Publish revoked tokens' digests to every process, this one included."""
        try:
            self._publisher.publish(self.namespace + REVOKED_TOKENS, ",".join(digests).encode())
        except Exception:  # the other processes forget them within TOKEN_CACHE_SECONDS, or on losing Redis
            logger.error("Could not publish revoked tokens (Redis away)", exc_info=True)

    def _listen_in_background(self, timeout: float = 2.0) -> None:
        """Start the listener if it is not running, and wait (a little) until it listens, so that
        news published after ``subscribe`` returns is heard."""
        with self._lock:
            if self._listener is None or not self._listener.is_alive():
                self._listener = threading.Thread(target=self._listen, name="live-updates", daemon=True)
                self._listener.start()
        # A listener that has lost Redis is not waited for, or each waiter would lose the timeout
        # again: waiters then time out and read again. One that is starting is.
        self._listening.wait(0 if self._lost.is_set() else timeout)

    def _listen(self) -> None:
        pause = 0.5  # before listening again; doubles while Redis stays away, up to 8 s
        while not self._closed.is_set():
            pubsub = self._client.pubsub()
            try:
                pubsub.psubscribe(self.namespace + CHANNEL_PREFIX + "*")
                confirmed = pubsub.get_message(timeout=5)  # Redis has the subscription: no news is missed
                if confirmed is None or confirmed["type"] != "psubscribe":
                    raise ConnectionError(f"no confirmation of the subscription: {confirmed!r}")
                kept.forget_all()  # what was kept while it did not listen: changed since, unheard, maybe
                self._lost.clear()
                self._listening.set()
                pause = 0.5
                while True:
                    message = pubsub.get_message(timeout=30)  # a timeout lets redis-py check the connection
                    if message is not None and message["type"] == "pmessage":
                        channel = message["channel"]
                        channel = channel.decode() if isinstance(channel, bytes) else channel
                        channel = channel[len(self.namespace) :]
                        if channel == REVOKED_TOKENS:
                            token_cache.forget(message["data"].decode().split(","))
                            continue
                        if channel.startswith(MATCH_CHANNEL):
                            kept.heard(channel[len(MATCH_CHANNEL) :], _seq(message["data"]))
                        self._local.publish(channel)
            except Exception:  # Redis went away: listen again in a moment
                self._lost.set()
                token_cache.forget_all()  # revocations and news may be missed until it listens again
                kept.forget_all()
                self._local.wake_all()  # they may have missed news: read again, then poll while away
                logger.warning("Live updates: lost Redis, listening again", exc_info=True)
            finally:
                self._listening.clear()
                pubsub.close()
            self._closed.wait(pause)
            pause = min(pause * 2, 8.0)

    def close(self) -> None:
        """Stop trying to listen once Redis is lost (a listener that listens stops with its process)."""
        self._closed.set()


_broker: LocalBroker | RedisBroker | None = None
_broker_url: str | None = None


def _seq(data: bytes) -> int | None:
    """The ``seq`` a match's news says (None: it says none)."""
    try:
        return int(data)
    except ValueError:
        return None


def broker() -> LocalBroker | RedisBroker:
    """The broker that ``settings.LIVE_UPDATES_URL`` names, built once per process."""
    global _broker, _broker_url
    url = settings.LIVE_UPDATES_URL
    if _broker is None or url != _broker_url:
        _broker = RedisBroker(url) if url else LocalBroker()
        _broker_url = url
    return _broker


def hears_everything() -> bool:
    """Whether this process hears all news and every revocation that any process publishes from now on."""
    return broker().hears_everything()


def match_channel(match_id: object) -> str:
    return MATCH_CHANNEL + str(match_id)


def player_channel(player_id: object) -> str:
    return f"tute:player:{player_id}"


def publish(*channels: str, data: bytes = b"") -> None:
    """Announce news on some channels (call it after the news is committed); ``data``: what it says
    (a match's ``seq``, on a match's channel), empty when it is only a wake-up."""
    broker().publish(*dict.fromkeys(channels), data=data)


@contextmanager
def subscribe(channel: str) -> Iterator[Subscription]:
    with broker().subscribe(channel) as subscription:
        yield subscription


@asynccontextmanager
async def asubscribe(channel: str) -> AsyncIterator[AsyncSubscription]:
    """:func:`subscribe` for a coroutine (ASGI): its wait holds no thread and no database connection."""
    async with broker().asubscribe(channel) as subscription:
        yield subscription


class TokenRevocations:
    """The revocations of tokens kept by the processes (``settings.TOKEN_REVOCATIONS``,
    players/token_cache.py), through the broker of the live updates."""

    def listening(self) -> bool:
        return hears_everything()

    def revoke(self, digests: list[str]) -> None:
        broker().revoke(digests)


token_revocations = TokenRevocations()


def match_news(news: MatchNews) -> None:
    """A change of a match committed: wake its waiters, and the ``/me/turns`` polls of the player who
    must act after a move."""
    channels = [match_channel(news.match_id)]
    if news.moved and news.seat is not None and news.seat["player"]:
        channels.append(player_channel(news.seat["player"]["id"]))
    publish(*channels, data=str(news.seq).encode())
