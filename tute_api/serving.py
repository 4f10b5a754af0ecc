"""The web server's own parts: gunicorn's uvicorn worker (``gunicorn.conf.py``), serving HTTP with uvicorn's
C parser (httptools), a connection upgraded to a WebSocket without leaving a reference cycle, and kept-alive
connections that move between the worker processes.

A kept-alive connection stays with the process that accepted it. Connections opened together (a proxy's
pool, clients back after a deploy, before every process has booted) can all land on one process, which
then serves them alone on one core while another process idles (``make loadtest``: 20 connections on one
of two processes in some runs, the box 63% busy and 0.6x the actions per second of an even split). So a
connection is not kept alive past ``HTTP_CONNECTION_MAX_SECONDS``: its next answer says ``Connection:
close`` and the client opens another, which the process that accepts first (the one least busy) takes.
Only once it has carried some load, though: ``HTTP_CONNECTION_MIN_REQUESTS`` requests. A client that waits
(a long poll renewed every 25 s) costs its process little, and moved at every other renewal it paid a new
connection and, on the other process, a first look at its match and its token that the first process
kept (``games/matches/kept.py``, ``players/token_cache.py``).

uvicorn's HTTP protocol holds its parser, and the parser holds the protocol's callbacks (bound methods of
it): a cycle that ``connection_lost`` cuts when the connection closes. A connection upgraded to a
WebSocket is handed to a WebSocket protocol instead, and the HTTP one, never told, was left to the
garbage collector with its parser, flow control and queues (about 40 objects a socket: the census of
docs/performance.md, 2026-12-05, thirteenth session). :class:`HttpProtocol` cuts it at the upgrade.
"""

from __future__ import annotations

import gc
import os
import random
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn_worker import UvicornWorker

#: Seconds a connection is kept alive at most (each one a random share less, down to 80% of it, so that
#: connections opened together do not all close together): its first answer after them closes it.
CONNECTION_MAX_SECONDS = float(os.environ.get("HTTP_CONNECTION_MAX_SECONDS") or 10)
#: Requests a connection has served, at least, before its lifetime closes it.
CONNECTION_MIN_REQUESTS = int(os.environ.get("HTTP_CONNECTION_MIN_REQUESTS") or 10)


def collector_thresholds() -> tuple[int, ...]:
    """The garbage collector's thresholds in a server process (``gc.set_threshold``; ``GC_THRESHOLDS``
    overrides). A request leaves no garbage cycle (tute_api/cycles.py), so reference counting frees all it
    made and the collector has little to find; but each collection stops the process's event loop while it
    scans the objects of every connection that opened since the one before (beside 5,000 open connections,
    0.25-0.7 s). A young generation of 200,000 objects (Python's is 700): about one collection per process in
    five to ten minutes, which stopped its process 0.1% of the time against 0.8% with 7,000; the fan-out's
    p99 over 300 s was 182-501 ms (three runs) against 412 ms with 7,000 (docs/performance.md, 2026-12-05).
    Nor do the server's own connections now (``make loadtest --gc-census`` found their cycles): beside 5,000
    connections for 300 s, no process collected at all (docs/performance.md, thirteenth session)."""
    return tuple(int(n) for n in os.environ.get("GC_THRESHOLDS", "200000,10,10").split(","))


def settle_collector() -> None:
    """Once a process has loaded the app (a server's worker: ``gunicorn.conf.py``; ``make reqcount`` before
    it counts): its modules, settings and URL patterns live as long as the process, so the garbage collector
    stops scanning them (each full collection then looks at a request's objects only, not at the whole of
    Django), and collects less often (:func:`collector_thresholds`)."""
    gc.freeze()
    gc.set_threshold(*collector_thresholds())

class HttpProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, which lets go of its parser once a WebSocket protocol took over, and
    closes a connection once it has lived ``CONNECTION_MAX_SECONDS`` and served ``CONNECTION_MIN_REQUESTS``
    requests, after an answer."""

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self.closes_at = self.loop.time() + CONNECTION_MAX_SECONDS * random.uniform(0.8, 1.0)
        self.requests = 0

    def on_headers_complete(self) -> None:
        super().on_headers_complete()
        self.requests += 1
        cycle = self.cycle
        if cycle is None or cycle.scope is not self.scope:
            return
        if self.requests >= CONNECTION_MIN_REQUESTS and self.loop.time() >= self.closes_at:
            cycle.keep_alive = False  # the answer says "Connection: close", then the connection closes

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
