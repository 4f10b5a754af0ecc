"""tute_api/serving.py: the web server's worker and its HTTP protocol, whose connections upgraded to a
WebSocket leave no reference cycle behind (each one would wait for the garbage collector, whose stops
are the fan-out's tail beside thousands of connections: docs/performance.md)."""

from __future__ import annotations

import asyncio
import gc
import runpy
import weakref
from typing import Any

import pytest
from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

from tute_api import serving
from tute_api.settings import BASE_DIR

UPGRADE = (
    b"GET /ws HTTP/1.1\r\nHost: testserver\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)


class _Transport(asyncio.Transport):
    """A connection that keeps what is written to it and the protocol it was handed to."""

    def __init__(self) -> None:
        super().__init__()
        self.written: list[bytes] = []
        self.protocol: Any = None
        self.closing = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 50000)}.get(name, default)

    def set_protocol(self, protocol: Any) -> None:
        self.protocol = protocol

    def write(self, data: Any) -> None:
        self.written.append(bytes(data))

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


async def _app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    assert scope["type"] == "websocket"
    assert (await receive())["type"] == "websocket.connect"
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.close", "code": 1000})


UVICORNS = pytest.param(HttpToolsProtocol, marks=pytest.mark.xfail(
    strict=True, reason="uvicorn's own keeps the cycle (when it stops, serving.HttpProtocol can go)"))  # fmt: skip


@pytest.mark.parametrize("protocol_class", [serving.HttpProtocol, UVICORNS])
def test_a_connection_upgraded_to_a_websocket_frees_its_http_protocol_at_once(protocol_class: Any) -> None:
    """Freed by reference counting as soon as the WebSocket protocol takes over: no collection needed."""

    async def upgrade() -> tuple[weakref.ref[Any], _Transport]:
        config = Config(app=_app, http=protocol_class, ws="auto", lifespan="off", log_level="warning")
        transport = _Transport()
        http = protocol_class(config=config, server_state=ServerState(), app_state={})
        http.connection_made(transport)
        http.data_received(UPGRADE)
        assert transport.protocol is not None and transport.protocol is not http  # handed over
        for _ in range(50):  # the socket is accepted, then closed by the application
            await asyncio.sleep(0.01)
        transport.protocol.connection_lost(None)
        return weakref.ref(http), transport

    gc.disable()
    try:
        http, transport = asyncio.run(upgrade())
        assert b"101 Switching Protocols" in b"".join(transport.written)
        assert http() is None, "the upgraded connection's HTTP protocol waits for the garbage collector"
    finally:
        gc.enable()


def test_the_worker_serves_with_the_protocol_and_uvicorns_fast_parts() -> None:
    config = Config(app=_app, **serving.Worker.CONFIG_KWARGS)
    config.load()
    assert config.http_protocol_class is serving.HttpProtocol
    assert serving.Worker.CONFIG_KWARGS["loop"] == "auto"  # uvloop, installed


def test_the_server_runs_a_process_per_core_and_two_at_least(monkeypatch: pytest.MonkeyPatch) -> None:
    """Python runs one thread of a process at a time: a process per core, two on a machine of one or two
    (docs/performance.md: two on 2 cores made more actions per second than four)."""
    for cores, workers in ((1, 2), (2, 2), (8, 8)):
        monkeypatch.setattr(serving.os, "sched_getaffinity", lambda pid, n=cores: set(range(n)))
        assert serving.default_workers() == workers
    monkeypatch.setenv("WEB_CONCURRENCY", "5")
    monkeypatch.setenv("ASGI_THREADS", "2")  # (the file sets them when unset; the test's change is undone)
    monkeypatch.setenv("DATABASE_POOL_SIZE", "6")
    assert runpy.run_path(str(BASE_DIR / "gunicorn.conf.py"))["workers"] == 5  # the environment decides first


async def _hello(scope: dict[str, Any], receive: Any, send: Any) -> None:
    assert scope["type"] == "http"
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"hi"})


@pytest.mark.parametrize(
    ("max_seconds", "requests", "closed_after"), [(0.0, 1, 1), (0.0, 3, 3), (3600.0, 1, None), (3600.0, 3, None)]
)
def test_a_connection_past_its_lifetime_is_closed_after_its_next_answer_once_it_served_enough(
    max_seconds: float, requests: int, closed_after: int | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """So that kept-alive connections that all landed on one process move to the others over time; one
    that carries little (a long poll's, renewed every 25 s) stays where its process keeps what it read."""
    monkeypatch.setattr(serving, "CONNECTION_MAX_SECONDS", max_seconds)
    monkeypatch.setattr(serving, "CONNECTION_MIN_REQUESTS", requests)

    async def serve() -> list[tuple[bytes, bool]]:
        config = Config(app=_hello, http=serving.HttpProtocol, lifespan="off", log_level="warning")
        transport = _Transport()
        http = serving.HttpProtocol(config=config, server_state=ServerState(), app_state={})
        http.connection_made(transport)
        answers = []
        for _ in range(3):
            if transport.closing:
                break
            transport.written.clear()
            http.data_received(b"GET / HTTP/1.1\r\nHost: testserver\r\n\r\n")
            for _ in range(50):
                await asyncio.sleep(0)
            answers.append((b"".join(transport.written), transport.closing))
        return answers

    answers = asyncio.run(serve())
    assert all(answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"hi") for answer, _ in answers)
    closes = [b"connection: close" in answer.lower() for answer, _ in answers]
    assert closes == [n == closed_after for n in range(1, len(answers) + 1)]
    assert [closing for _, closing in answers] == closes
    assert len(answers) == (closed_after or 3)
