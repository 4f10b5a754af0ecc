"""games.live: a waiter is woken by news, and sleeps out its timeout otherwise.

``waits`` (tests/waits.py) records each wait on a subscription and whether news or the time ended it."""

from __future__ import annotations

import threading
import time
from collections.abc import AsyncIterator, Iterator

import pytest
from django.test import override_settings

from games.live import channels as live
from tests import services
from tests.waits import Waits


@pytest.fixture(params=["local", "redis"])
def live_backend(request: pytest.FixtureRequest) -> Iterator[str]:
    url = "" if request.param == "local" else services.redis_url()
    with override_settings(LIVE_UPDATES_URL=url):
        yield request.param


def test_a_waiter_is_woken_by_news(live_backend: str, waits: Waits) -> None:
    channel = live.match_channel(f"wake-{live_backend}")

    def waiter() -> None:
        with live.subscribe(channel) as subscription:
            subscription.wait(10)

    thread = threading.Thread(target=waiter)
    thread.start()
    assert waits.begun.wait(5), "the waiter is waiting"
    live.publish(channel)
    thread.join(15)
    assert waits == [(10, True)], "news ended the wait, not its timeout"


def test_a_waiter_without_news_times_out(live_backend: str) -> None:
    with live.subscribe(live.match_channel(f"quiet-{live_backend}")) as subscription:
        start = time.monotonic()
        assert subscription.wait(0.3) is False
        # It slept: a wait that gave up at once would make every long poll spin. A lower bound (the
        # clock passes at least the timeout), not a speed target; one that never woke meets pytest's timeout.
        assert time.monotonic() - start >= 0.25


def test_news_on_another_channel_does_not_wake_a_waiter(live_backend: str) -> None:
    with live.subscribe(live.match_channel(f"mine-{live_backend}")) as subscription:
        live.publish(live.match_channel(f"other-{live_backend}"))
        assert subscription.wait(0.3) is False


def test_the_local_broker_forgets_a_channel_when_its_last_waiter_leaves() -> None:
    broker = live.LocalBroker()
    with broker.subscribe("c"), broker.subscribe("c"):
        assert len(broker._subscribers["c"]) == 2
    assert "c" not in broker._subscribers


class _NewsAsTheWaitTimesOut(threading.Event):
    """A subscription's flag whose wait times out just as the news lands (the publisher's ``set`` comes
    between the timeout and the waiter's next step)."""

    def wait(self, timeout: float | None = None) -> bool:
        super().wait(0)
        self.set()
        return False


def test_news_that_lands_as_a_wait_times_out_wakes_the_next_wait() -> None:
    """A stream's wait that times out sends a keep-alive and reads nothing: news cleared unread then
    was missed until the match's next event (seen under load: a stream that heard nothing for 10 s)."""
    broker = live.LocalBroker()
    with broker.subscribe("c") as subscription:
        subscription.news = _NewsAsTheWaitTimesOut()  # type: ignore[attr-defined]
        assert subscription.wait(0.01) is False  # timed out: the caller sends a keep-alive
        subscription.news.__class__ = threading.Event  # type: ignore[attr-defined]
        assert subscription.wait(0.01) is True, "the news that landed at the timeout was lost"


def test_news_that_lands_as_an_async_wait_times_out_is_not_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under ASGI the publisher's ``set`` (``call_soon_threadsafe``, from the Redis listener's thread) may
    run on the loop as the wait's timeout fires, before the waiter reads its flag: that news counts."""
    import asyncio
    import contextlib

    async def scenario() -> tuple[bool, bool]:
        broker = live.LocalBroker()
        real_timeout = asyncio.timeout
        async with broker.asubscribe("c") as subscription:

            @contextlib.asynccontextmanager
            async def times_out_as_news_lands(delay: float) -> AsyncIterator[None]:
                subscription.notify()  # queued on the loop, as from the Redis listener's thread
                await asyncio.sleep(0)  # and run, as the timeout fires
                raise TimeoutError
                yield  # (never: the wait timed out)

            monkeypatch.setattr(asyncio, "timeout", times_out_as_news_lands)
            first = await subscription.wait(0.01)
            monkeypatch.setattr(asyncio, "timeout", real_timeout)
            second = await subscription.wait(0.01)
        return first, second

    first, second = asyncio.run(scenario())
    assert first or second, "the news that landed at the timeout was lost"
