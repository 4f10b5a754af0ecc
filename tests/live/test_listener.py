"""games.live over Redis: one listener per process serves every waiter of that process."""

from __future__ import annotations

import threading
import uuid
from contextlib import ExitStack

import pytest

from games.live import channels as live
from tests import services


@pytest.fixture
def redis_url() -> str:
    return services.redis_url()


def test_many_waiters_share_one_redis_connection(redis_url: str) -> None:
    import redis

    admin = redis.Redis.from_url(redis_url)
    server, elsewhere = live.RedisBroker(redis_url), live.RedisBroker(redis_url)  # two processes
    with server.subscribe(live.match_channel("warm-up")):
        pass
    before = len(admin.client_list())
    channels = [live.match_channel(uuid.uuid4()) for _ in range(20)]
    with ExitStack() as stack:
        subscriptions = [stack.enter_context(server.subscribe(channel)) for channel in channels]
        assert len(admin.client_list()) <= before + 1, "a waiter took a Redis connection of its own"
        woke: list[bool] = []
        waiter = threading.Thread(target=lambda: woke.append(subscriptions[7].wait(5)))
        waiter.start()
        elsewhere.publish(channels[7])
        waiter.join(10)
        assert woke == [True], "news from another process ended the wait, not its timeout"
        assert subscriptions[3].wait(0.2) is False, "news on another channel woke a waiter"


def test_a_waiter_hears_news_published_right_after_it_subscribed(redis_url: str) -> None:
    server, elsewhere = live.RedisBroker(redis_url), live.RedisBroker(redis_url)
    for _ in range(5):
        channel = live.player_channel(uuid.uuid4())
        with server.subscribe(channel) as subscription:
            elsewhere.publish(channel)
            assert subscription.wait(2)


def test_a_listener_that_has_lost_redis_is_not_waited_for() -> None:
    """Each long poll would otherwise wait two seconds for a listener that cannot listen."""
    down = live.RedisBroker(f"redis://127.0.0.1:{services.free_port()}/0")
    with down.subscribe(live.match_channel(uuid.uuid4())):  # starts the listener
        pass
    assert down._lost.wait(5), "the listener cannot reach Redis"
    waits: list[float] = []
    real_wait = down._listening.wait
    down._listening.wait = lambda timeout=None: waits.append(timeout) or real_wait(timeout)  # type: ignore[method-assign]
    try:
        for _ in range(2):
            with down.subscribe(live.match_channel(uuid.uuid4())) as subscription:
                assert subscription.wait(0) is False
        assert waits == [0, 0]
    finally:
        down.close()
    assert down._listener is not None
    down._listener.join(5)
    assert not down._listener.is_alive(), "a closed broker stops trying Redis"


def test_a_listener_still_starting_is_waited_for_by_every_waiter() -> None:
    """A second waiter that came while the listener was connecting would miss the news published
    before Redis confirmed the subscription."""
    broker = live.RedisBroker(f"redis://127.0.0.1:{services.free_port()}/0")
    connecting = threading.Event()
    broker._listener = threading.Thread(target=connecting.wait, args=(5,), daemon=True)  # has not listened yet
    broker._listener.start()
    waits: list[float] = []
    broker._listening.wait = lambda timeout=None: waits.append(timeout) or False  # type: ignore[method-assign]
    try:
        for _ in range(2):
            with broker.subscribe(live.match_channel(uuid.uuid4())):
                pass
    finally:
        connecting.set()
    assert waits == [2.0, 2.0]


def test_news_on_several_channels_is_one_round_trip_to_redis(redis_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import redis.connection

    server, elsewhere = live.RedisBroker(redis_url), live.RedisBroker(redis_url)
    elsewhere.publish(live.match_channel("warm-up"))  # connected
    sent: list[object] = []
    real_send = redis.connection.AbstractConnection.send_packed_command
    monkeypatch.setattr(redis.connection.AbstractConnection, "send_packed_command",
                        lambda self, *a, **kw: sent.append(a) or real_send(self, *a, **kw))  # fmt: skip
    channels = [live.match_channel(uuid.uuid4()), live.player_channel(uuid.uuid4())]
    with ExitStack() as stack:
        subscriptions = [stack.enter_context(server.subscribe(channel)) for channel in channels]
        sent.clear()
        elsewhere.publish(*channels)
        assert len(sent) == 1, "one round trip"
        assert all(subscription.wait(2) for subscription in subscriptions), "each channel's waiter woke"


def test_services_on_two_databases_of_one_redis_do_not_hear_each_other(redis_url: str) -> None:
    """Redis's pub/sub ignores the database number: a load test's service on database 2 woke the waiters
    (and dropped the kept reads) of a service on database 0. A database other than 0 names its channels
    ``db<N>:…`` on the wire; database 0 keeps the names it had."""
    import redis

    base = redis_url.rsplit("/", 1)[0]
    here, same = live.RedisBroker(f"{base}/5"), live.RedisBroker(f"{base}/5")
    other, zero = live.RedisBroker(f"{base}/6"), live.RedisBroker(f"{base}/0")
    assert (here.namespace, other.namespace, zero.namespace) == ("db5:", "db6:", "")
    channel = live.match_channel(uuid.uuid4())
    wire = redis.Redis.from_url(f"{base}/0").pubsub()
    wire.psubscribe("*" + channel)
    assert wire.get_message(timeout=5)["type"] == "psubscribe"
    with here.subscribe(channel) as subscription:
        other.publish(channel, data=b"7")
        zero.publish(channel, data=b"7")
        assert subscription.wait(0.5) is False, "news of a service on another database woke a waiter"
        same.publish(channel, data=b"8")
        assert subscription.wait(5), "news of a service on the same database did not"
    heard = []
    while (message := wire.get_message(timeout=1)) is not None:
        heard.append(message["channel"].decode())
    assert heard == [f"db6:{channel}", channel, f"db5:{channel}"], heard
    wire.close()
