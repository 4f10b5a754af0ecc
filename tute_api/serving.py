"""The web server's own parts: gunicorn's uvicorn worker (``gunicorn.conf.py``), serving HTTP with uvicorn's
C parser (httptools) and a connection upgraded to a WebSocket without leaving a reference cycle.

uvicorn's HTTP protocol holds its parser, and the parser holds the protocol's callbacks (bound methods of
it): a cycle that ``connection_lost`` cuts when the connection closes. A connection upgraded to a
WebSocket is handed to a WebSocket protocol instead, and the HTTP one, never told, was left to the
garbage collector with its parser, flow control and queues (about 40 objects a socket: the census of
docs/performance.md, 2026-12-05, thirteenth session). :class:`HttpProtocol` cuts it at the upgrade.
"""

from __future__ import annotations

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
