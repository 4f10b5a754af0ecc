"""tute_api/threads.py: the server process's pool for sync code is ``ASGI_THREADS`` threads, a hop carries
the caller's context, and a cancelled hop waits for its thread before the cancellation goes on."""

from __future__ import annotations

import asyncio
import contextvars
import os
import subprocess
import sys
import threading
import time

import pytest

from tute_api import threads
from tute_api.settings import BASE_DIR

_seen: contextvars.ContextVar[str] = contextvars.ContextVar("seen", default="")


def test_the_pool_has_as_many_threads_as_asgi_threads_says() -> None:
    """uvicorn never sized the loop's pool by ASGI_THREADS: Python's default was every process's (6 here)."""
    seen: set[int] = set()
    barrier = threading.Barrier(threads.THREADS, timeout=5)  # fewer threads: broken; more: more idents

    def work() -> None:
        seen.add(threading.get_ident())
        barrier.wait()

    async def run() -> None:
        await asyncio.gather(*(threads.in_pool(work)() for _ in range(3 * threads.THREADS)))

    asyncio.run(run())
    assert len(seen) == threads.THREADS


def test_asgi_threads_sets_the_pools_size() -> None:
    env = {**os.environ, "ASGI_THREADS": "3"}
    run = subprocess.run([sys.executable, "-c", "from tute_api import threads; print(threads.THREADS)"],
                         cwd=BASE_DIR, env=env, capture_output=True, text=True, check=True)  # fmt: skip
    assert run.stdout.strip() == "3"


def test_a_hop_carries_the_callers_context_and_answers() -> None:
    async def run() -> str:
        _seen.set("the caller's")
        return str(await threads.in_pool(lambda suffix: _seen.get() + suffix)(" value"))

    assert asyncio.run(run()) == "the caller's value"


def test_a_cancelled_hop_waits_for_its_thread_before_the_cancellation_goes_on() -> None:
    finished = threading.Event()

    def slow() -> None:
        time.sleep(0.3)
        finished.set()

    async def run() -> bool:
        hop = asyncio.create_task(threads.in_pool(slow)())
        await asyncio.sleep(0.05)
        hop.cancel()
        with pytest.raises(asyncio.CancelledError):
            await hop
        return finished.is_set()

    assert asyncio.run(run()), "the thread was still running when the cancellation went on"


def test_a_signal_wakes_its_waiter_once_set_and_stays_set() -> None:
    signal = threads.Signal()
    started = time.monotonic()
    assert signal.wait(0.05) is False and time.monotonic() - started >= 0.04  # not set: the timeout
    woken: list[bool] = []
    waiter = threading.Thread(target=lambda: woken.append(signal.wait(10)))
    waiter.start()
    time.sleep(0.05)
    assert not woken, "the waiter waits until the signal is set"
    signal.set()
    waiter.join(5)
    assert woken == [True]
    signal.set()  # set twice: still set
    assert signal.wait(0) is True and signal.wait(0) is True


def test_news_for_a_waiting_client_then_a_move_run_before_the_requests_queued_ahead_of_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A woken stream's read waited behind every request queued in the pool (40-70 ms at the median beside
    5,000 idle connections), and a player's move behind the long polls of the bots' answer: the news go
    first, then the moves, then the rest, each lane in the order it came."""
    monkeypatch.setattr(threads._pool, "_read_wait", 60.0)  # the requests' bounded wait (below) out of the way
    release = threading.Event()
    ran: list[str] = []

    def blocker() -> None:
        release.wait(5)

    async def run() -> None:
        busy = [asyncio.ensure_future(threads.in_pool(blocker)()) for _ in range(threads.THREADS)]
        await asyncio.sleep(0.05)  # every thread busy: what follows queues
        queued = [asyncio.ensure_future(threads.in_pool(ran.append)(f"request {n}")) for n in range(3)]
        queued.append(asyncio.ensure_future(threads.in_pool(ran.append, lane=threads.Lane.NEWS)("news 0")))
        queued.append(asyncio.ensure_future(threads.in_pool(ran.append, lane=threads.Lane.MOVE)("move 0")))
        queued.append(asyncio.ensure_future(threads.in_pool(ran.append, lane=threads.Lane.NEWS)("news 1")))
        queued.append(asyncio.ensure_future(threads.in_thread(ran.append, lane=threads.Lane.MOVE)("move 1")))
        await asyncio.sleep(0.05)
        release.set()
        await asyncio.gather(*busy, *queued)

    asyncio.run(run())
    assert ran == ["news 0", "news 1", "move 0", "move 1", "request 0", "request 1", "request 2"], ran


def test_a_request_that_has_waited_its_bound_goes_before_the_moves() -> None:
    """A lane served after another starves while the other is never empty: with clients that never pause,
    the bots' answer (a long poll, a request) waited up to a second behind the moves. Once the oldest request
    has waited ``read_wait``, it goes first; the moves then, and the requests that have not waited as long."""
    pool = threads.LanePool(1, "bounded", read_wait=0.5)
    release = threading.Event()
    ran: list[str] = []
    pool.submit(lambda: release.wait(5))  # the one thread busy: what follows queues
    pool.submit(lambda: ran.append("request 0"))
    time.sleep(0.6)  # request 0 has waited past its bound
    pool.submit(lambda: ran.append("request 1"))
    pool.submit(lambda: ran.append("move 0"), lane=threads.Lane.MOVE)
    pool.submit(lambda: ran.append("move 1"), lane=threads.Lane.MOVE)
    release.set()
    pool.submit(lambda: None).result(5)  # every call before it has run
    assert ran == ["request 0", "move 0", "move 1", "request 1"], ran


def test_a_call_s_exception_reaches_the_caller() -> None:
    def fails() -> None:
        raise LookupError("from the thread")

    async def run() -> None:
        await threads.in_pool(fails)()

    with pytest.raises(LookupError, match="from the thread"):
        asyncio.run(run())


def test_the_work_in_the_pool_is_finished_before_the_process_exits(tmp_path: object) -> None:
    """As ThreadPoolExecutor's threads are joined at exit: a step after a response (a bot's turn) that
    is running or queued when the interpreter exits is not cut off."""
    done = f"{tmp_path}/done"
    code = (
        "import time\nfrom tute_api import threads\n"
        "def slow(n):\n    time.sleep(0.3)\n    open(f'" + done + "{n}', 'w').close()\n"
        "for n in range(2 * threads.THREADS):\n    threads._pool.submit(lambda n=n: slow(n))\n"
    )
    env = {**os.environ, "ASGI_THREADS": "2"}
    subprocess.run([sys.executable, "-c", code], cwd=BASE_DIR, env=env, check=True, timeout=60)
    assert all(os.path.exists(f"{done}{n}") for n in range(4))


def test_a_pool_with_an_idle_thread_still_grows_to_its_size_when_more_work_comes() -> None:
    """One idle thread must not take in all the work that comes at once while the pool may grow."""
    pool = threads.LanePool(4, "grow")
    pool.submit(lambda: None).result(5)  # one thread started, now idle
    barrier = threading.Barrier(4, timeout=5)  # four at once, or broken
    futures = [pool.submit(barrier.wait) for _ in range(4)]
    assert sorted(f.result(10) for f in futures) == [0, 1, 2, 3]


@pytest.mark.parametrize("loop_kind", ["asyncio", "uvloop"])
def test_an_inbox_runs_every_call_handed_by_many_threads_in_each_thread_s_order(loop_kind: str) -> None:
    """Threads that hand calls while the loop runs earlier ones: none is lost (a wake missed while the
    loop takes its byte would leave a call, and the request waiting for it, forever), each thread's in
    the order it handed them."""
    import uvloop

    loop = uvloop.new_event_loop() if loop_kind == "uvloop" else asyncio.new_event_loop()
    senders, each = 4, 3000
    seen: dict[int, list[int]] = {n: [] for n in range(senders)}

    async def main() -> None:
        box = threads.inbox()
        assert threads.inbox() is box  # one per loop
        done = asyncio.get_running_loop().create_future()
        left = [senders * each]

        def arrived(sender: int, n: int) -> None:
            seen[sender].append(n)
            left[0] -= 1
            if not left[0]:
                done.set_result(None)

        def send(sender: int) -> None:
            for n in range(each):
                box.call(arrived, sender, n)
                if n % 97 == 0:
                    time.sleep(0)  # let the loop run mid-stream

        workers = [threading.Thread(target=send, args=(n,)) for n in range(senders)]
        for worker in workers:
            worker.start()
        await asyncio.wait_for(done, 10)
        for worker in workers:
            worker.join()

    try:
        loop.run_until_complete(main())
    finally:
        loop.close()
    assert all(seen[n] == list(range(each)) for n in range(senders))


def test_an_inbox_wakes_its_loop_once_for_calls_handed_before_it_runs() -> None:
    """Calls handed while a wake is on its way ride on it: one byte written for them all."""
    ran: list[int] = []

    async def main() -> int:
        box = threads.inbox()
        written = [0]
        writer = box._writer

        class Counted:
            def send(self, data: bytes) -> int:
                written[0] += 1
                return writer.send(data)

        box._writer = Counted()  # type: ignore[assignment]
        worker = threading.Thread(target=lambda: [box.call(ran.append, n) for n in range(5)])
        worker.start()
        worker.join()  # the loop is held here: it cannot take the first byte before the last call is handed
        for _ in range(3):
            await asyncio.sleep(0.01)
        return written[0]

    assert asyncio.run(main()) == 1
    assert ran == [0, 1, 2, 3, 4]


def test_a_call_that_fails_in_the_inbox_is_logged_and_the_calls_after_it_still_run(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ran: list[str] = []

    def fails() -> None:
        raise ValueError("broken")

    async def main() -> None:
        box = threads.inbox()
        await asyncio.to_thread(lambda: [box.call(fails), box.call(ran.append, "after")])
        for _ in range(3):
            await asyncio.sleep(0.01)

    with caplog.at_level("ERROR", logger="tute_api.threads"):
        asyncio.run(main())
    assert ran == ["after"]
    assert "A call handed to the event loop failed" in caplog.text and "broken" in caplog.text
