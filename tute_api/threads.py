"""Sync code (the ORM, DRF, Django's WSGI handler) called from the coroutines of ASGI.

One pool of ``ASGI_THREADS`` threads per server process (8 by default). uvicorn, unlike daphne, never
sized the event loop's default pool by ``ASGI_THREADS``: before this module had a pool of its own, the
setting was read by nobody and every process had Python's default (``min(32, cores + 4)``: 6 here).

The pool takes its work in three lanes (:class:`Lane`), each before the next: what delivers news to a
client that waits for it (a long poll's answer once woken, a stream's or a socket's next read), then a
player's move (an action's ``POST``, a socket's action), then any other request (a read, a long poll's first
look, a new match). Under load the requests queue for the pool's threads: in one lane a woken stream's read
waited behind them (40 to 70 ms at the median beside 5,000 idle connections, up to a second), and with 20
players who never pause a move waited behind the long polls of the bots' answer (the action's ``POST`` p99
52-78 ms, 20-29 with the moves first: docs/performance.md). Both are short, and players wait for them.
(Every write in the moves' lane, a new match's start too, which is long, kept the moves' tail as it was.)

A lane served after another starves while the other is never empty (with clients that never pause, the
bots' answer, a long poll, waited up to a second behind the moves: docs/performance.md), so the last
lane's oldest call, once it has waited ``ASGI_READ_WAIT_MS`` (150 by default), goes before the moves.

A hop into the pool is a call submitted with the caller's context copied and its future awaited (as
``loop.run_in_executor`` does), not asgiref's ``sync_to_async``: the same thread, context and
cancellation (the coroutine waits for the thread to be done before it is cancelled), about 60 µs of CPU
less per call here (docs/performance.md). Unlike ``sync_to_async``, what the sync code sets in a context
variable stays in the thread: nothing here hands one back. A request's call (``tute_api/asgi.py``) is
started without a future for the loop (:func:`start_in_pool`): it hands its answer over itself, through
the loop's :class:`Inbox`.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import contextvars
import enum
import functools
import logging
import os
import socket
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from django.db import connection

logger = logging.getLogger(__name__)

#: Threads for sync code per server process: the requests that do not wait, the waits' and sockets' reads.
THREADS = int(os.environ.get("ASGI_THREADS", "8"))

#: How long the oldest call of the last lane (a request that is not a move) may wait while moves go first.
READ_WAIT_SECONDS = float(os.environ.get("ASGI_READ_WAIT_MS", "150")) / 1000


class Lane(enum.IntEnum):
    """Where a call queues in the pool: each lane before the next (the last one's bounded wait aside)."""

    NEWS = 0  #: news for a client that waits for it: a woken long poll's answer, a stream's or socket's read
    MOVE = 1  #: a player's move: an action's ``POST``, a socket's action
    REQUEST = 2  #: any other request, or work for one


class LanePool:
    """``threads`` threads (started as work comes) that run calls, by :class:`Lane`: the news first, then
    the moves, then the other requests, each lane in the order given; but the last lane's oldest call goes
    before the moves once it has waited ``read_wait`` seconds. At the interpreter's exit, the work queued
    or running is finished first (as ``ThreadPoolExecutor`` does)."""

    def __init__(self, threads: int, name: str, read_wait: float = READ_WAIT_SECONDS) -> None:
        self._threads, self._name, self._read_wait = threads, name, read_wait
        # Per lane: (future, call, the moment it was queued).
        self._lanes: tuple[deque[tuple[Future[Any], Callable[[], Any], float]], ...] = (deque(), deque(), deque())
        self._ready = threading.Condition(threading.Lock())
        self._started = 0  # threads started
        self._idle = 0
        self._busy = 0
        self._exiting = False
        atexit.register(self._finish)

    def submit(self, call: Callable[[], Any], *, lane: Lane = Lane.REQUEST) -> Future[Any]:
        future: Future[Any] = Future()
        with self._ready:
            self._lanes[lane].append((future, call, time.monotonic()))
            # More queued than idle threads to take it (a thread woken but not yet back counts as idle):
            # one more thread, up to the pool's size.
            if self._queued() > self._idle and self._started < self._threads:
                threading.Thread(target=self._work, name=f"{self._name}_{self._started}", daemon=True).start()
                self._started += 1
            if self._idle:
                self._ready.notify()
        return future

    def _queued(self) -> int:
        return len(self._lanes[0]) + len(self._lanes[1]) + len(self._lanes[2])

    def _next(self) -> tuple[Future[Any], Callable[[], Any], float]:
        """The call to run next (the lock held, something queued)."""
        news, moves, requests = self._lanes
        if news:
            return news.popleft()
        if moves and not (requests and time.monotonic() - requests[0][2] >= self._read_wait):
            return moves.popleft()
        return (requests or moves).popleft()

    def _work(self) -> None:
        while True:
            with self._ready:
                while not self._queued():
                    self._idle += 1
                    self._ready.wait()
                    self._idle -= 1
                future, call, _ = self._next()
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
            self._ready.wait_for(lambda: not (self._queued() or self._busy), timeout)


_pool = LanePool(THREADS, "sync")


def in_pool(function: Callable[..., Any], *, lane: Lane = Lane.REQUEST) -> Callable[..., Any]:
    """``function`` as a coroutine, run in the process's pool of threads, as it is, in ``lane``."""

    async def hop(*args: Any, **kwargs: Any) -> Any:
        call = functools.partial(contextvars.copy_context().run, function, *args, **kwargs)
        done = asyncio.wrap_future(_pool.submit(call, lane=lane))
        try:
            return await asyncio.shield(done)
        except asyncio.CancelledError:
            # The thread cannot be stopped: let it finish (it may use what the caller would free)
            # before the cancellation goes on.
            await asyncio.wait([done])
            raise

    return hop


def start_in_pool(function: Callable[..., Any], *args: Any, lane: Lane = Lane.REQUEST) -> Future[Any]:
    """Run ``function(*args)`` in the process's pool of threads, in ``lane``, with the caller's context
    copied, as :func:`in_pool` does, without the event loop hearing of its end: its future is
    ``concurrent.futures``' own, which wakes nobody (a call whose result the loop awaits costs a wake of
    the loop from the thread when it is done; a request hands its answer over once, itself)."""
    return _pool.submit(functools.partial(contextvars.copy_context().run, function, *args), lane=lane)


def in_thread(function: Callable[..., Any], *, lane: Lane = Lane.REQUEST) -> Callable[..., Any]:
    """``function`` as a coroutine, run in the process's pool of threads, in ``lane``, its database
    connection given back after. Not asgiref's thread-sensitive default: under Django's ASGI handler that
    gives each request a thread of its own for as long as the request lasts, a waiting one too."""

    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        finally:
            if not connection.in_atomic_block:
                connection.close()  # back to the pool, if any

    return in_pool(run, lane=lane)


class Inbox:
    """Calls that the pool's threads hand to one event loop, which runs them in the order handed, woken
    by a byte on a socket pair. The thread writes the byte with the interpreter released (``send`` on a
    socket releases it; uvloop's ``call_soon_threadsafe`` writes its wake-up with it held): under load the
    kernel may take the core from the writer mid-write, and with the interpreter held the process's other
    threads could not run meanwhile (a request's hand-over was 6.8% of the server's samples holding the
    interpreter, 0.3% through here: docs/performance.md). A byte is written only when none is on its way
    (calls handed while the loop has not yet woken ride on the same wake)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._calls: deque[tuple[Callable[..., Any], tuple[Any, ...]]] = deque()
        self._lock = threading.Lock()
        self._woken = False  # a byte is on its way, or the loop has not yet taken it
        self._reader, self._writer = socket.socketpair()
        self._reader.setblocking(False)
        self._writer.setblocking(False)
        loop.add_reader(self._reader.fileno(), self._run)

    def call(self, function: Callable[..., Any], *args: Any) -> None:
        """From any thread: ``function(*args)`` to run in the loop. Nothing runs once the loop is closed."""
        self._calls.append((function, args))
        with self._lock:
            if self._woken:
                return
            self._woken = True
        with contextlib.suppress(OSError):  # the loop closed: its reader is gone
            self._writer.send(b"\0")

    def _run(self) -> None:
        # The byte is taken before the flag is cleared: a call handed after the flag was cleared wakes
        # the loop again, and one handed before it is among those run below (handed before the thread
        # looked at the flag).
        with contextlib.suppress(BlockingIOError):
            self._reader.recv(64)
        with self._lock:
            self._woken = False
        calls = self._calls
        while calls:
            function, args = calls.popleft()
            try:
                function(*args)
            except Exception:  # the calls after it still run now: nothing else may wake the loop for them
                logger.exception("A call handed to the event loop failed")


_inboxes: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Inbox] = weakref.WeakKeyDictionary()


def inbox() -> Inbox:
    """The running event loop's :class:`Inbox` (called in the loop)."""
    loop = asyncio.get_running_loop()
    found = _inboxes.get(loop)
    if found is None:
        found = _inboxes[loop] = Inbox(loop)
    return found


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
