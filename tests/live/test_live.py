"""games.live: a waiter wakes as soon as news is published, and sleeps out its timeout otherwise."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest
from django.test import override_settings

from games import live
from tests import services


@pytest.fixture(params=["local", "redis"])
def live_backend(request: pytest.FixtureRequest) -> Iterator[str]:
    url = "" if request.param == "local" else services.redis_url()
    with override_settings(LIVE_UPDATES_URL=url):
        yield request.param


def test_a_waiter_wakes_within_a_second_of_news(live_backend: str) -> None:
    channel = live.match_channel(f"wake-{live_backend}")
    woke: list[float] = []
    subscribed = threading.Event()

    def waiter() -> None:
        with live.subscribe(channel) as subscription:
            subscribed.set()
            start = time.monotonic()
            assert subscription.wait(10)
            woke.append(time.monotonic() - start)

    thread = threading.Thread(target=waiter)
    thread.start()
    assert subscribed.wait(5)
    time.sleep(0.2)
    live.publish(channel)
    thread.join(5)
    assert woke and 0.15 < woke[0] < 1.2


def test_a_waiter_without_news_times_out(live_backend: str) -> None:
    with live.subscribe(live.match_channel(f"quiet-{live_backend}")) as subscription:
        start = time.monotonic()
        assert subscription.wait(0.3) is False
        assert 0.25 < time.monotonic() - start < 1.5


def test_news_on_another_channel_does_not_wake_a_waiter(live_backend: str) -> None:
    with live.subscribe(live.match_channel(f"mine-{live_backend}")) as subscription:
        live.publish(live.match_channel(f"other-{live_backend}"))
        assert subscription.wait(0.3) is False


def test_the_local_broker_forgets_a_channel_when_its_last_waiter_leaves() -> None:
    broker = live.LocalBroker()
    with broker.subscribe("c"), broker.subscribe("c"):
        assert len(broker._subscribers["c"]) == 2
    assert "c" not in broker._subscribers
