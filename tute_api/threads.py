"""Sync code (the ORM, DRF, Django's WSGI handler) called from the coroutines of ASGI.

One pool of ``ASGI_THREADS`` threads per server process (8 by default). uvicorn, unlike daphne, never
sized the event loop's default pool by ``ASGI_THREADS``: before this module had a pool of its own, the
setting was read by nobody and every process had Python's default (``min(32, cores + 4)``: 6 here).

A hop into the pool is ``loop.run_in_executor`` with the caller's context copied, not asgiref's
``sync_to_async``: the same thread, context and cancellation (the coroutine waits for the thread to be
done before it is cancelled), about 60 µs of CPU less per call here (docs/performance.md). Unlike
``sync_to_async``, what the sync code sets in a context variable stays in the thread: nothing here
hands one back.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.db import connection

#: Threads for sync code per server process: the requests that do not wait, the waits' and sockets' reads.
THREADS = int(os.environ.get("ASGI_THREADS", "8"))
_pool = ThreadPoolExecutor(max_workers=THREADS, thread_name_prefix="sync")


def in_pool(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` as a coroutine, run in the process's pool of threads, as it is."""

    async def hop(*args: Any, **kwargs: Any) -> Any:
        call = functools.partial(contextvars.copy_context().run, function, *args, **kwargs)
        done = asyncio.get_running_loop().run_in_executor(_pool, call)
        try:
            return await asyncio.shield(done)
        except asyncio.CancelledError:
            # The thread cannot be stopped: let it finish (it may use what the caller would free)
            # before the cancellation goes on.
            await asyncio.wait([done])
            raise

    return hop


def in_thread(function: Callable[..., Any]) -> Callable[..., Any]:
    """``function`` as a coroutine, run in the process's pool of threads, its database connection given
    back after. Not asgiref's thread-sensitive default: under Django's ASGI handler that gives each
    request a thread of its own for as long as the request lasts, a waiting one too."""

    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        finally:
            if not connection.in_atomic_block:
                connection.close()  # back to the pool, if any

    return in_pool(run)


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
