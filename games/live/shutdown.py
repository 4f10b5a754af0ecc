"""A clean shutdown of the waiting connections (ASGI). When the server is told to stop (SIGTERM from
a deploy, SIGINT), every waiter of the process is woken at once instead of holding the server's
graceful timeout: a long poll answers with the match as it is, an event stream sends a last event
``server_closing`` (``data: {"reason": "shutdown", "retry_ms": …}``) and ends; the client reconnects
(to another process, or to the server once it is back) with its last seq and misses nothing.

:func:`install` chains the handlers: the server's own (uvicorn's, which then stops accepting and
waits for the open responses) still runs. The ASGI lifespan's startup (``tute_api/asgi.py``) calls it,
inside the server process, after the server has installed its own.
"""

from __future__ import annotations

import logging
import signal
import threading
from typing import Any

from . import channels

logger = logging.getLogger(__name__)

#: What a stream's last event tells the client (the ``retry_ms`` before it reconnects).
RECONNECT_MS = 1000

_draining = threading.Event()
_installed = False


def draining() -> bool:
    """The process is shutting down: waits end now."""
    return _draining.is_set()


def begin() -> None:
    """Wake every waiter of the process and make new ones answer at once."""
    if not _draining.is_set():
        _draining.set()
        logger.info("Shutting down: ending %d live waits", channels.broker().count())
    channels.broker().wake_all()


def reset() -> None:
    """For tests: the process serves again."""
    _draining.clear()


def install() -> None:
    """Chain :func:`begin` before the process's SIGTERM and SIGINT handlers (once; main thread only)."""
    global _installed
    if _installed or threading.current_thread() is not threading.main_thread():
        return
    _installed = True
    for number in (signal.SIGTERM, signal.SIGINT):
        previous = signal.getsignal(number)

        def handler(signum: int, frame: Any, previous: Any = previous) -> None:
            begin()
            if callable(previous):
                previous(signum, frame)
            elif previous == signal.SIG_DFL:
                signal.signal(signum, signal.SIG_DFL)
                signal.raise_signal(signum)

        signal.signal(number, handler)
