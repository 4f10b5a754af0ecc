"""tute_api/asgi.py: a request that does not wait is served by Django's WSGI handler in a thread of the
process's pool (cheaper than Django's ASGI handler for the sync views: docs/performance.md), the
answer sent before the response is closed; a long poll too, which hands its wait to the event loop
when it must wait; an event stream keeps the ASGI handler."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.signals import request_started

from tute_api import asgi, threads


async def _call(
    app: Any,
    method: str,
    path: str,
    query: bytes = b"",
    body: bytes = b"",
    sent: list[dict[str, Any]] | None = None,
    token: str = "",
    extra: list[tuple[bytes, bytes]] = [],  # noqa: B006 - never changed
    leave: asyncio.Event | None = None,
) -> list[dict[str, Any]]:
    """``app``'s ASGI messages for one request; ``leave``: set, the client goes (``http.disconnect``)."""
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
        "path": path, "raw_path": path.encode(), "query_string": query, "root_path": "",
        "headers": [(b"host", b"testserver"), (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    *([(b"authorization", f"Bearer {token}".encode())] if token else []), *extra],
        "client": ("127.0.0.1", 5000), "server": ("testserver", 80),
    }  # fmt: skip
    requests = [{"type": "http.request", "body": body, "more_body": False}]
    sent = [] if sent is None else sent

    async def receive() -> dict[str, Any]:
        if requests:
            return requests.pop(0)
        if leave is not None:
            await leave.wait()
            return {"type": "http.disconnect"}
        await asyncio.sleep(3600)  # no disconnect while the answer is written
        raise AssertionError

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)
    return sent


#: The scope of a plain ``GET /x``, for a bridge in front of a WSGI application of the test's own.
PLAIN_GET = {"type": "http", "method": "GET", "path": "/x", "query_string": b"", "headers": [],
             "http_version": "1.1", "scheme": "http", "root_path": "", "server": ("testserver", 80)}  # fmt: skip


@pytest.fixture
def handlers() -> Iterator[list[str]]:
    seen: list[str] = []

    def started(sender: type, **kwargs: Any) -> None:
        seen.append(sender.__name__)

    request_started.connect(started)
    yield seen
    request_started.disconnect(started)


@pytest.mark.django_db(transaction=True)
def test_a_request_that_does_not_wait_runs_on_the_wsgi_handler(handlers: list[str]) -> None:
    sent = asyncio.run(_call(asgi.application, "POST", "/api/v1/players/", body=b'{"username": "bridged"}'))
    assert handlers == ["WSGIHandler"]
    assert sent[0]["type"] == "http.response.start" and sent[0]["status"] == 201
    assert b'"username":"bridged"' in sent[1]["body"].replace(b" ", b"")  # the body was read
    assert sent[-1] == {"type": "http.response.body", "body": sent[-1]["body"]} and len(sent) == 2


@pytest.mark.django_db(transaction=True)
def test_a_long_poll_runs_on_the_wsgi_handler_and_a_stream_keeps_the_asgi_handler(handlers: list[str]) -> None:
    match = "/api/v1/matches/00000000-0000-0000-0000-000000000000"
    sent = asyncio.run(_call(asgi.application, "GET", match, query=b"after=0&wait=5"))
    assert handlers == ["WSGIHandler"]
    assert sent[0]["status"] == 401  # no token: refused before any wait
    handlers.clear()
    sent = asyncio.run(_call(asgi.application, "GET", f"{match}/stream"))
    assert handlers == ["Handler"] and sent[0]["status"] == 401


class _Streamed:
    """A streamed answer (WhiteNoise's files are): sent chunk by chunk, closed after the last."""

    streaming = True

    def __init__(self, log: list[str]) -> None:
        self.log = log

    def __iter__(self) -> Iterator[bytes]:
        yield b"one"
        yield b""
        yield b"two"

    def close(self) -> None:
        self.log.append("closed")


def test_a_streamed_answer_is_sent_chunk_by_chunk_and_closed_after_it() -> None:
    log: list[str] = []

    def app(environ: dict[str, Any], start_response: Any) -> _Streamed:
        log.append(environ["REQUEST_METHOD"] + " " + environ["PATH_INFO"])
        start_response("200 OK", [("Content-Type", "text/plain")])
        return _Streamed(log)

    async def send_and_log(app_: Any) -> list[dict[str, Any]]:
        sent = await _call(app_, "GET", "/static/file.txt")
        log.append("sent")
        return sent

    sent = asyncio.run(send_and_log(lambda scope, receive, send: asgi._Request(app)(scope, receive, send)))
    assert [m.get("body") for m in sent] == [None, b"one", b"two", None]
    assert sent[0]["status"] == 200 and sent[1]["more_body"] and not sent[-1].get("more_body")
    assert log == ["GET /static/file.txt", "closed", "sent"]


def test_a_plain_answer_is_sent_before_its_response_closes_in_the_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """The steps after the response (run as it closes) begin once the answer is sent: run while the loop
    sends it, they would hold the interpreter the loop needs (a bot's turn after an action delayed the
    action's answer). Both are done when the request is; the thread hands the answer over without
    waiting for the loop (one call, no AsyncToSync)."""
    import threading

    waited_for_the_loop: list[object] = []

    class CountedAsyncToSync(asgi.AsyncToSync):  # type: ignore[misc]
        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            waited_for_the_loop.append(args)
            return super().__call__(*args, **kwargs)

    monkeypatch.setattr(asgi, "AsyncToSync", CountedAsyncToSync)

    sent: list[dict[str, Any]] = []
    closed_in: list[str] = []
    sent_at_close: list[int] = []

    class Plain(list[bytes]):
        def close(self) -> None:
            sent_at_close.append(len(sent))
            closed_in.append(threading.current_thread().name)

    def app(environ: dict[str, Any], start_response: Any) -> Plain:
        start_response("200 OK", [("Content-Type", "text/plain")])
        return Plain([b"a", b"b"])

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.body":
            await asyncio.sleep(0.05)  # a slow write
        sent.append(message)

    woken: list[object] = []
    handed = threads.Inbox.call

    def counted_hand(self: threads.Inbox, *args: Any) -> None:
        woken.append(args)
        handed(self, *args)

    monkeypatch.setattr(threads.Inbox, "call", counted_hand)

    async def call() -> None:
        loop = asyncio.get_running_loop()
        call_soon_threadsafe = loop.call_soon_threadsafe

        def counted(*args: Any, **kwargs: Any) -> Any:
            woken.append(args)
            return call_soon_threadsafe(*args, **kwargs)

        loop.call_soon_threadsafe = counted  # type: ignore[method-assign]
        scope = dict(PLAIN_GET)
        requests = [{"type": "http.request", "body": b"", "more_body": False}]
        request = asgi._Request(app)
        await request(scope, lambda: asyncio.sleep(0, requests.pop(0)), send)
        request.done.result(timeout=5)  # the thread's steps after the response, which nobody awaits
        await asyncio.sleep(0.05)  # a wake the thread's end would have sent

    asyncio.run(call())
    assert [m.get("body") for m in sent] == [None, b"ab"]
    assert sent_at_close == [2], "the response closed (its steps ran) before the answer was sent"
    assert closed_in and closed_in[0] != threading.main_thread().name  # closed in the pool
    assert waited_for_the_loop == []
    assert len(woken) == 1, "the thread woke the loop more than once: its answer, then its end"
    assert woken[0][0] is asgi._settle, "the answer was not handed over through the loop's inbox"


ACTIONS = "/api/v1/matches/0b5e2c39-4a2e-4a47-9c1e-2f0f3b8d6a11/actions"


@pytest.mark.parametrize(
    ("method", "path", "lane"),
    [("POST", ACTIONS, "MOVE"), ("POST", ACTIONS + "/", "MOVE"), ("GET", ACTIONS, "REQUEST"),
     ("POST", "/api/v1/matches/", "REQUEST"), ("POST", "/api/v1/players/", "REQUEST"), ("PUT", ACTIONS, "REQUEST"),
     ("DELETE", "/api/v1/matches/0b5e2c39-4a2e-4a47-9c1e-2f0f3b8d6a11", "REQUEST"),
     ("GET", "/api/v1/matches/", "REQUEST"), ("POST", "/api/v1/matches/x/actions/other", "REQUEST")],
)  # fmt: skip
def test_a_players_move_goes_before_the_other_requests(
    monkeypatch: pytest.MonkeyPatch, method: str, path: str, lane: str
) -> None:
    """A player's move waited behind the long polls of the bots' answer queued in the pool
    (tute_api/threads.py); the other writes (a new match, whose start is long) stay in the requests' lane:
    in front of the moves, they kept the moves' tail as it was (docs/performance.md)."""
    lanes: list[object] = []
    start = asgi.start_in_pool

    def start_in_pool(function: Any, *args: Any, **kwargs: Any) -> Any:
        lanes.append(kwargs.get("lane"))
        return start(function, *args, **kwargs)

    monkeypatch.setattr(asgi, "start_in_pool", start_in_pool)

    def app(environ: dict[str, Any], start_response: Any) -> Any:
        start_response("204 No Content", [])
        return [b""]

    async def call() -> None:
        scope = {"type": "http", "method": method, "path": path, "query_string": b"", "headers": [],
                 "http_version": "1.1", "scheme": "http", "root_path": "", "server": ("testserver", 80)}  # fmt: skip
        requests = [{"type": "http.request", "body": b"", "more_body": False}]

        async def send(message: dict[str, Any]) -> None:
            pass

        await asgi._Request(app)(scope, lambda: asyncio.sleep(0, requests.pop(0)), send)

    asyncio.run(call())
    assert lanes == [threads.Lane[lane]]


def test_the_moves_lane_knows_the_actions_route() -> None:
    """The route of a player's move, as the URL configuration makes it, is what the handler puts first."""
    from django.urls import reverse

    path = reverse("api_v1:match-actions", kwargs={"match_id": "0b5e2c39-4a2e-4a47-9c1e-2f0f3b8d6a11"})
    assert asgi.MOVING.match(path), path


def test_a_response_whose_answer_was_not_sent_still_closes() -> None:
    """A client gone while its answer is sent: the thread does not wait for a send that will not come."""
    closed: list[bool] = []

    class Plain(list[bytes]):
        def close(self) -> None:
            closed.append(True)

    def app(environ: dict[str, Any], start_response: Any) -> Plain:
        start_response("200 OK", [("Content-Type", "text/plain")])
        return Plain([b"a"])

    async def send(message: dict[str, Any]) -> None:
        raise OSError("the client is gone")

    async def call() -> None:
        scope = dict(PLAIN_GET)
        requests = [{"type": "http.request", "body": b"", "more_body": False}]
        request = asgi._Request(app)
        with pytest.raises(OSError):
            await asyncio.wait_for(request(scope, lambda: asyncio.sleep(0, requests.pop(0)), send), 2)
        request.done.result(timeout=2)

    asyncio.run(call())
    assert closed == [True]


def _plain_call(app: Any) -> tuple[asgi._Request, list[dict[str, Any]], BaseException | None]:
    """``app`` served once by the bridge: the request, the messages sent and what the call raised."""
    sent: list[dict[str, Any]] = []
    raised: list[BaseException] = []

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    request = asgi._Request(app)

    async def call() -> None:
        scope = dict(PLAIN_GET)
        requests = [{"type": "http.request", "body": b"", "more_body": False}]
        try:
            await asyncio.wait_for(request(scope, lambda: asyncio.sleep(0, requests.pop(0)), send), 5)
        except Exception as exc:  # noqa: BLE001 - the test reads it
            raised.append(exc)
        with contextlib.suppress(Exception):
            request.done.result(timeout=5)

    asyncio.run(call())
    return request, sent, raised[0] if raised else None


def test_an_application_that_fails_before_its_answer_fails_the_call() -> None:
    """What the server's own error handling sees (a 500 and a log), as when the call awaited the thread."""

    def app(environ: dict[str, Any], start_response: Any) -> list[bytes]:
        raise ValueError("broken")

    request, sent, raised = _plain_call(app)
    assert isinstance(raised, ValueError) and sent == []
    assert isinstance(request.done.exception(), ValueError)


def test_a_failure_after_the_answer_was_handed_over_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    """Nobody awaits the thread once it has handed its answer over: what fails in the steps after the
    response (its close) is logged there, and the answer was sent."""

    class Failing(list[bytes]):
        def close(self) -> None:
            raise RuntimeError("a step after the response")

    def app(environ: dict[str, Any], start_response: Any) -> Failing:
        start_response("200 OK", [("Content-Type", "text/plain")])
        return Failing([b"a"])

    with caplog.at_level("ERROR", logger="tute_api.asgi"):
        request, sent, raised = _plain_call(app)
    assert raised is None and [m.get("body") for m in sent] == [None, b"a"]
    assert isinstance(request.done.exception(), RuntimeError)
    assert [r.getMessage() for r in caplog.records] == ["A request failed after its answer was handed over"]


@pytest.mark.django_db(transaction=True)
def test_a_cookie_goes_out_as_asgi_servers_take_it() -> None:
    """Django's WSGI handler writes a cookie's header with a leading space, which uvicorn's h11 refuses."""
    sent = asyncio.run(_call(asgi.application, "GET", "/api/docs/"))
    cookies = [value for name, value in sent[0]["headers"] if name == b"set-cookie"]
    assert cookies and all(value.startswith(b"csrftoken=") for value in cookies)


@pytest.mark.django_db(transaction=True)
def test_a_read_of_a_view_that_may_wait_runs_the_drf_view_itself_when_it_does_not_wait(handlers: list[str]) -> None:
    """Not through a coroutine and back into a thread: Django's WSGI handler calls the sync view."""
    from games.live import urls

    view = next(p.callback for p in urls.urlpatterns if p.name == "match")
    assert not asyncio.iscoroutinefunction(view) and asyncio.iscoroutinefunction(view.async_view)
    match = "/api/v1/matches/00000000-0000-0000-0000-000000000000"
    sent = asyncio.run(_call(asgi.application, "GET", match))
    assert handlers == ["WSGIHandler"] and sent[0]["status"] == 401


@pytest.mark.django_db(transaction=True)
def test_a_waiting_request_runs_djangos_middleware_hooks_without_a_thread_hop(monkeypatch: pytest.MonkeyPatch) -> None:
    """Django's MiddlewareMixin sends each process_request/process_response of an async request to a
    thread and back: 13 hops for the seven stock middlewares (tute_api/stock_middleware.py)."""
    from asgiref import sync

    hops: list[str] = []
    made = sync.SyncToAsync.__init__

    def counted(self: Any, func: Any, *args: Any, **kwargs: Any) -> None:
        hops.append(getattr(func, "__name__", repr(func)))
        made(self, func, *args, **kwargs)

    monkeypatch.setattr(sync.SyncToAsync, "__init__", counted)
    match = "/api/v1/matches/00000000-0000-0000-0000-000000000000"
    sent = asyncio.run(_call(asgi.application, "GET", f"{match}/stream"))
    assert sent[0]["status"] == 401
    headers = {name.lower(): value for name, value in sent[0]["headers"]}
    assert headers[b"x-frame-options"] == b"DENY" and headers[b"x-content-type-options"] == b"nosniff"  # still run
    assert not [hop for hop in hops if hop.startswith("process_")], hops


@pytest.mark.django_db(transaction=True)
def test_only_the_api_waits_under_the_asgi_handler(handlers: list[str]) -> None:
    """The admin's pages use sessions, which the event loop must not save: they never take the waiting path."""
    asyncio.run(_call(asgi.application, "GET", "/admin/login/", query=b"wait=5"))
    assert handlers == ["WSGIHandler"]


@pytest.mark.django_db(transaction=True)
def test_the_api_skips_the_admins_session_user_messages_and_csrf_cookie(monkeypatch: pytest.MonkeyPatch) -> None:
    """A request to the versioned API builds no session store, lazy user or message stores, on either of
    the service's handlers (tute_api/stock_middleware.py); the admin's pages and the docs keep them."""
    from django.contrib.auth.middleware import AuthenticationMiddleware
    from django.contrib.messages.middleware import MessageMiddleware
    from django.contrib.sessions.middleware import SessionMiddleware
    from django.middleware.csrf import CsrfViewMiddleware

    steps: list[str] = []
    for middleware in (SessionMiddleware, AuthenticationMiddleware, MessageMiddleware, CsrfViewMiddleware):
        for step in ("process_request", "process_response"):
            if hasattr(middleware, step):
                original = getattr(middleware, step)

                def counted(self: Any, *args: Any, _original: Any = original, _name: str = step) -> Any:
                    steps.append(f"{type(self).__name__}.{_name}")
                    return _original(self, *args)

                monkeypatch.setattr(middleware, step, counted)
    match = "/api/v1/matches/00000000-0000-0000-0000-000000000000"
    for path in ("/api/v1/variants/", match, f"{match}/stream"):  # the WSGI bridge, the ASGI handler
        sent = asyncio.run(_call(asgi.application, "GET", path))
        assert sent[0]["status"] in (200, 401) and steps == [], (path, steps)
    sent = asyncio.run(_call(asgi.application, "GET", "/admin/login/"))
    assert sent[0]["status"] == 200
    assert any(name == b"set-cookie" and value.startswith(b"csrftoken=") for name, value in sent[0]["headers"])
    assert {f"{name}.process_request" for name in ("SessionMiddleware", "AuthenticationMiddleware", "MessageMiddleware",
            "CsrfViewMiddleware")} <= set(steps), steps  # fmt: skip
    assert {"SessionMiddleware.process_response", "MessageMiddleware.process_response"} <= set(steps), steps
