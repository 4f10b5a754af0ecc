"""ASGI entry point: the service's server (uvicorn workers under gunicorn, ``gunicorn.conf.py``; ``make run``).

The waiting HTTP endpoints (long polls, the event streams, ``/me/turns?wait=``) go through Django's ASGI
handler, as coroutines that hold no thread while they wait (``games/live/deferred.py``); every other
request is run by Django's WSGI handler in a thread of the process's pool, as gunicorn's threads would
run it, which costs less CPU than the ASGI handler's way with sync views (docs/performance.md).
Channels' ``ProtocolTypeRouter`` routes by protocol: ``"websocket"`` goes to the sockets of Django
Channels: a match's (``games/live/sockets.py``) and a player's own channel (``games/lobby/sockets.py``).
The ``lifespan`` app chains the clean shutdown (``games/live/shutdown.py``) to the server's signals.
"""

import os
from typing import Any

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tute_api.settings")

get_asgi_application()  # first: it sets Django up before anything imports models

import asyncio  # noqa: E402
import re  # noqa: E402
import threading  # noqa: E402
from tempfile import SpooledTemporaryFile  # noqa: E402

from asgiref.sync import AsyncToSync  # noqa: E402
from asgiref.wsgi import WsgiToAsgiInstance  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402
from django.core.handlers.asgi import ASGIHandler  # noqa: E402
from django.core.handlers.wsgi import WSGIHandler  # noqa: E402

from games.live import routing as live_routing  # noqa: E402
from games.live import shutdown  # noqa: E402
from games.lobby import routing as lobby_routing  # noqa: E402
from tute_api import stock_middleware  # noqa: E402
from tute_api.threads import in_pool  # noqa: E402

#: The requests that may wait: a stream, or a long poll (``wait=`` in the query), under ``/api/`` (the admin's
#: pages, which use sessions, never wait: tute_api/stock_middleware.py).
WAITING = re.compile(rb"(^|&)wait=[1-9]")


#: How long a thread waits for the loop to send its answer before it closes the response anyway.
SEND_WAIT_SECONDS = 5.0


class _Request(WsgiToAsgiInstance):
    """A request that does not wait, run by Django's WSGI handler in one thread of the process's pool,
    as gunicorn's threads would (measured cheaper than Django's ASGI handler for the sync views:
    docs/performance.md). A plain answer is handed to the event loop in one call (waiting for each of
    its two sends cost two round trips between the thread and the loop); once the loop has sent it, the
    thread closes the response (``request_finished``: the steps after the response, such as the bots'
    turns, the database connection given back). A streamed answer is sent chunk by chunk, at the
    client's pace."""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self.scope = scope
        with SpooledTemporaryFile(max_size=65536) as body:
            while True:
                message = await receive()
                if message["type"] != "http.request":
                    return  # the client left before its request was whole
                body.write(message.get("body", b""))
                if not message.get("more_body"):
                    break
            body.seek(0)
            loop = asyncio.get_running_loop()
            answer: asyncio.Future[list[dict[str, Any]]] = loop.create_future()
            self.sync_send = AsyncToSync(send)
            self.handed_over = False
            self.hand_over = lambda messages: loop.call_soon_threadsafe(answer.set_result, messages)
            self.sent = threading.Event()
            run = asyncio.ensure_future(in_pool(self._run)(body))
            try:
                await asyncio.wait([run, answer], return_when=asyncio.FIRST_COMPLETED)
                if self.handed_over:  # (set in the thread before the answer is handed over, or run is done)
                    for message in await answer:
                        await send(message)
            finally:
                self.sent.set()  # sent, or never to be: the thread closes the response
                await run  # closed: its steps after the response have run

    def start_response(self, status: str, response_headers: list[tuple[str, str]], exc_info: Any = None) -> None:
        # Django's WSGI handler writes a cookie as " name=value…" (a WSGI server strips it); ASGI's
        # servers refuse a header value that starts with a space, as Django's ASGI handler knows.
        super().start_response(status, [(name, value.strip()) for name, value in response_headers], exc_info)

    def _run(self, body: Any) -> None:
        response = self.wsgi_application(self.build_environ(self.scope, body), self.start_response)
        try:
            if getattr(response, "streaming", False):
                self.sync_send(self.response_start)
                for chunk in response:
                    if chunk:
                        self.sync_send({"type": "http.response.body", "body": chunk, "more_body": True})
                self.sync_send({"type": "http.response.body"})
            else:
                content = b"".join(response)
                self.handed_over = True
                self.hand_over([self.response_start, {"type": "http.response.body", "body": content}])
                # The steps after the response (its close: request_finished) begin once the loop has sent
                # it: run at once, they would hold the interpreter that the loop needs to send it. (Bounded:
                # a client that reads slowly, or a loop stopped mid-send, does not keep the thread.)
                self.sent.wait(SEND_WAIT_SECONDS)
        finally:
            response.close()


class Handler(ASGIHandler):
    """Django's ASGI handler, but a request that may wait gets no thread of its own.

    Django runs each request in a ``ThreadSensitiveContext``: every sync step of the request (a signal's
    receivers, a sync view) then runs in a thread kept for that request until it ends, so that a wait
    of 25 s would keep an idle thread for 25 s (measured: 60 waits, 61 threads). A waiting request runs
    without it: its few sync steps go to the process's thread for them, and its reads to the pool of
    :func:`tute_api.threads.in_thread`. The other requests go to Django's WSGI handler (:class:`_Request`).
    """

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"].startswith("/api/") and (
            scope["path"].endswith("/stream") or WAITING.search(scope.get("query_string", b""))
        ):
            await self.handle(scope, receive, send)
        elif scope["type"] == "http":
            await _Request(_wsgi)(scope, receive, send)
        else:
            await super().__call__(scope, receive, send)

    def load_middleware(self, is_async: bool = False) -> None:
        """``settings.MIDDLEWARE``, Django's own in versions whose hooks run in the event loop
        (``tute_api/stock_middleware.py``; the settings keep Django's names, which ``check --deploy`` reads)."""
        configured = settings.MIDDLEWARE
        settings.MIDDLEWARE = stock_middleware.for_the_event_loop(configured)
        try:
            super().load_middleware(is_async)
        finally:
            settings.MIDDLEWARE = configured

    def resolve_request(self, request: Any) -> Any:
        """A view that waits as a coroutine (``games.live.deferred``) gives this handler its coroutine."""
        match = super().resolve_request(request)
        match.func = getattr(match.func, "async_view", match.func)
        return match


_wsgi = WSGIHandler()
django_application: Any = Handler()
if settings.DEBUG:  # make run: the static files (admin, Swagger UI) from the apps, as runserver did
    from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

    django_application = ASGIStaticFilesHandler(django_application)


async def lifespan(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """ASGI lifespan: at startup, wake the waits of the process on SIGTERM/SIGINT before the server stops."""
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            shutdown.install()
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            shutdown.begin()
            await send({"type": "lifespan.shutdown.complete"})
            return


application = ProtocolTypeRouter(
    {
        "http": django_application,
        "websocket": URLRouter(live_routing.websocket_urlpatterns + lobby_routing.websocket_urlpatterns),
        "lifespan": lifespan,
    }
)
