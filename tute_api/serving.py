"""The web server's own parts: gunicorn's uvicorn worker (``gunicorn.conf.py``), serving HTTP with uvicorn's
C parser (httptools) and a connection upgraded to a WebSocket without leaving a reference cycle.

uvicorn's HTTP protocol holds its parser, and the parser holds the protocol's callbacks (bound methods of
it): a cycle that ``connection_lost`` cuts when the connection closes. A connection upgraded to a
WebSocket is handed to a WebSocket protocol instead, and the HTTP one, never told, was left to the
garbage collector with its parser, flow control and queues (about 40 objects a socket: the census of
docs/performance.md, 2026-12-05, thirteenth session). :class:`HttpProtocol` cuts it at the upgrade.
"""

from __future__ import annotations

import os
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn_worker import UvicornWorker


class HttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, which lets go of its parser once a WebSocket protocol took over."""

    def handle_websocket_upgrade(self) -> None:
        super().handle_websocket_upgrade()
        self.parser = None  # type: ignore[assignment]  # (nothing calls this protocol again)


class Worker(UvicornWorker):
    """gunicorn's uvicorn worker, with :class:`HttpProtocol` (and uvloop, as uvicorn's "auto" picks it)."""

    CONFIG_KWARGS: dict[str, Any] = {**UvicornWorker.CONFIG_KWARGS, "http": f"{__name__}:HttpProtocol"}


def default_workers() -> int:
    """gunicorn's worker processes when ``WEB_CONCURRENCY`` does not say: one per core this process may run
    on, and two at least (one restarting leaves another serving). Python runs one thread of a process at
    a time, so a process is about a core's worth of work; more processes only take turns: on 2 cores, two
    against four made, over seven alternated pairs, 1.08x the actions per second, 0.77x the POST's p99 and
    0.91x the web's CPU per action (medians), and beside 5,000 idle connections the fan-out's p99 0.7x
    (docs/performance.md, fourteenth session)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # (not Linux)
        cores = os.cpu_count() or 1
    return max(2, cores)
