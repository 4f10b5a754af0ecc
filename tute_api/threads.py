"""Sync code (the ORM, DRF, Django's WSGI handler) called from the coroutines of ASGI.

One pool of ``ASGI_THREADS`` threads per server process (8 by default). uvicorn, unlike daphne, never
sized the event loop's default pool by ``ASGI_THREADS``: before this module had a pool of its own, the
setting was read by nobody and every process had Python's default (``min(32, cores + 4)``: 6 here).

The pool takes its work in two lanes: what delivers news to a client that waits for it (a long poll's
answer once woken, a stream's or a socket's next read: :func:`in_thread` with ``news=True``) before any
other work (a new request). Under load the requests queue for the pool's threads, and in one lane a
woken stream's read waited behind them (40 to 70 ms at the median beside 5,000 idle connections, up to a
second: docs/performance.md); such reads are short and the players are waiting for them. (A third lane,
for the moves before the other requests or for the long polls' first looks after them, was measured and
not kept: a lane served after another starves under load, and the bots' answer, a long poll, waited up
to a second: docs/performance.md.)

A hop into the pool is a call submitted with the caller's context copied and its future awaited (as
``loop.run_in_executor`` does), not asgiref's ``sync_to_async``: the same thread, context and
cancellation (the coroutine waits for the thread to be done before it is cancelled), about 60 µs of CPU
less per call here (docs/performance.md). Unlike ``sync_to_async``, what the sync code sets in a context
variable stays in the thread: nothing here hands one back. A request's call (``tute_api/asgi.py``) is
started without a future for the loop (:func:`start_in_pool`): it hands its answer over itself.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import contextvars
import functools
import os
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from django.db import connection

#: Threads for sync code per server process: the requests that do not wait, the waits' and sockets' reads.
THREADS = int(os.environ.get("ASGI_THREADS", "8"))


class LanePool:
    """``threads`` threads (started as work comes) that run calls, those of the first lane before any
    of the second, each lane in the order given. At the interpreter's exit, the work queued or running
    is finished first (as ``ThreadPoolExecutor`` does)."""

    def __init__(self, threads: int, name: str) -> None:
        self._threads, self._name = threads, name
        self._lanes: tuple[deque[tuple[Future[Any], Callable[[], Any]]], ...] = (deque(), deque())
        self._ready = threading.Condition(threading.Lock())
        self._started = 0  # threads started
        self._idle = 0
        self._busy = 0
        self._exiting = False
        atexit.register(self._finish)

    def submit(self, call: Callable[[], Any], *, first: bool = False) -> Future[Any]:
        future: Future[Any] = Future()
        with self._ready:
            self._lanes[0 if first else 1].append((future, call))
            # More queued than idle threads to take it (a thread woken but not yet back counts as idle):
            # one more thread, up to the pool's size.
            if len(self._lanes[0]) + len(self._lanes[1]) > self._idle and self._started < self._threads:
                threading.Thread(target=self._work, name=f"{self._name}_{self._started}", daemon=True).start()
                self._started += 1
            if self._idle:
                self._ready.notify()
        return future

    def _work(self) -> None:
        while True:
            with self._ready:
                while not (self._lanes[0] or self._lanes[1]):
                    self._idle += 1
                    self._ready.wait()
                    self._idle -= 1
                future, call = (self._lanes[0] or self._lanes[1]).popleft()
                self._busy += 1
            try:
                if future.set_running_or_notify_cancel():
                    try:
                        result = call()
                    except BaseException as exc:  # noqa: BLE001 - the caller's to handle, as an executor's
                        future.set_exception(exc)
                    else:
                        future.set_result(result)
            finally:
                with self._ready:
                    self._busy -= 1
                    if self._exiting:  # _finish waits for the last call
                        self._ready.notify_all()

    def _finish(self, timeout: float = 30.0) -> None:
        with self._ready:
            self._exiting = True
            self._ready.wait_for(lambda: not (self._lanes[0] or self._lanes[1] or self._busy), timeout)


_pool = LanePool(THREADS, "sync")


def in_pool(function: Callable[..., Any], *, news: bool = False) -> Callable[..., Any]:
    """``function`` as a coroutine, run in the process's pool of threads, as it is; ``news``: in the first
    lane, before the requests queued (a read that delivers news to a client that waits for it)."""

    async def hop(*args: Any, **kwargs: Any) -> Any:
        call = functools.partial(contextvars.copy_context().run, function, *args, **kwargs)
        done = asyncio.wrap_future(_pool.submit(call, first=news))
        try:
            return await asyncio.shield(done)
        except asyncio.CancelledError:
            # The thread cannot be stopped: let it finish (it may use what the caller would free)
            # before the cancellation goes on.
            await asyncio.wait([done])
            raise

    return hop


def start_in_pool(function: Callable[..., Any], *args: Any) -> Future[Any]:
    """Run ``function(*args)`` in the process's pool of threads with the caller's context copied, as
    :func:`in_pool` does, without the event loop hearing of its end: its future is
    ``concurrent.futures``' own, which wakes nobody (a call whose result the loop awaits costs a wake of
    the loop from the thread when it is done; a request hands its answer over once, itself)."""
    return _pool.submit(functools.partial(contextvars.copy_context().run, function, *args))


def in_thread(function: Callable[..., Any], *, news: bool = False) -> Callable[..., Any]:
    """``function`` as a coroutine, run in the process's pool of threads, its database connection given
    back after; ``news``: in the pool's first lane (:func:`in_pool`). Not asgiref's thread-sensitive
    default: under Django's ASGI handler that gives each request a thread of its own for as long as the
    request lasts, a waiting one too."""

    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        finally:
            if not connection.in_atomic_block:
                connection.close()  # back to the pool, if any

    return in_pool(run, news=news)


class Signal:
    """A flag that one thread sets once and another waits for, as ``threading.Event`` without its
    ``Condition``: a lock held from the start and released by :meth:`set`. The event loop tells each
    request's thread that its answer is sent: about 8 µs of CPU less per request than with ``Event``
    (docs/performance.md)."""

    __slots__ = ("_lock",)

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._lock.acquire()

    def set(self) -> None:
        with contextlib.suppress(RuntimeError):  # set already
            self._lock.release()

    def wait(self, timeout: float) -> bool:
        """True once set (at once if it was), False after ``timeout`` seconds without."""
        if self._lock.acquire(timeout=timeout):
            self.set()  # set for good: the next wait returns at once too
            return True
        return False
