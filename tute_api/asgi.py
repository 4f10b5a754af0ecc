"""ASGI entry point: the service's server (uvicorn workers under gunicorn, ``gunicorn.conf.py``; ``make run``).

Every HTTP request but the event streams is run by Django's WSGI handler in a thread of the process's
pool, as gunicorn's threads would run it, which costs less CPU than the ASGI handler's way with sync
views (docs/performance.md); a long poll (``wait=``) that must wait hands its wait back to the event
loop, which awaits the news holding no thread (:class:`_LongPoll`). The event streams go through
Django's ASGI handler, as coroutines that hold no thread while they stream (``games/live/deferred.py``).
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
import contextlib  # noqa: E402
import functools  # noqa: E402
import logging  # noqa: E402
import re  # noqa: E402
from tempfile import SpooledTemporaryFile  # noqa: E402

from asgiref.sync import AsyncToSync  # noqa: E402
from asgiref.wsgi import WsgiToAsgiInstance  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402
from django.core.handlers.asgi import ASGIHandler  # noqa: E402
from django.http import HttpResponseBase  # noqa: E402
from django.utils.cache import patch_vary_headers  # noqa: E402

from games.live import channels, deferred, shutdown, waits  # noqa: E402
from games.live import routing as live_routing  # noqa: E402
from games.lobby import routing as lobby_routing  # noqa: E402
from tute_api import cycles, stock_middleware  # noqa: E402
from tute_api.threads import Lane, Signal, inbox, start_in_pool  # noqa: E402

#: A long poll: ``wait=`` in the query of a request under ``/api/`` (the admin's pages, which use sessions,
#: never wait: tute_api/stock_middleware.py).
WAITING = re.compile(rb"(^|&)wait=[1-9]")

logger = logging.getLogger(__name__)


#: A player's move: the path of ``POST /api/v1/matches/{id}/actions``, which goes before the other requests
#: queued in the pool (:class:`~tute_api.threads.Lane`).
MOVING = re.compile(r"^/api/v\d+/matches/[^/]+/actions/?$")


#: How long a thread waits for the loop to send its answer before it closes the response anyway.
SEND_WAIT_SECONDS = 5.0


class _Request(WsgiToAsgiInstance):
    """A request that does not wait, run by Django's WSGI handler in one thread of the process's pool,
    as gunicorn's threads would (measured cheaper than Django's ASGI handler for the sync views:
    docs/performance.md): a player's move (:data:`MOVING`) before the others queued
    (:class:`~tute_api.threads.Lane`). A plain answer is handed to the event loop in one call (waiting for
    each of its two sends cost two round trips between the thread and the loop); once the loop has sent it, the
    thread closes the response (``request_finished``: the steps after the response, such as the bots'
    turns, the database connection given back), and this call has returned: nobody awaits the thread's
    end, which would wake the loop a second time (about 80 µs of CPU a request, docs/performance.md).
    A streamed answer is sent chunk by chunk, at the client's pace."""

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
            handed: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
            self.send = send
            self.hand_over = functools.partial(inbox().call, _settle, handed)
            self.sent = Signal()
            # The thread wakes the loop once, with what it hands over; its end wakes nobody (a plain
            # answer's steps after the response run once the loop has sent it, after this call returns).
            moving = scope["method"] == "POST" and MOVING.match(scope["path"]) is not None
            self.done = start_in_pool(self._run, body, lane=Lane.MOVE if moving else Lane.REQUEST)
            try:
                handed_over = await handed
                if handed_over is not None:
                    for message in await self.messages(handed_over, receive):
                        await send(message)
            except asyncio.CancelledError:
                # The thread cannot be stopped: let it finish (it may read the body) before the
                # cancellation goes on.
                self.sent.set()
                await asyncio.wait([asyncio.wrap_future(self.done)])
                raise
            finally:
                self.sent.set()  # sent, or never to be: the thread closes the response

    async def messages(self, handed: Any, receive: Any) -> list[dict[str, Any]]:
        """What to send for what the thread handed over (here, the messages themselves)."""
        return handed  # type: ignore[no-any-return]

    def must_wait(self, response: Any) -> bool:
        """Whether the thread hands ``response`` over as it is, for the loop to wait (here, never)."""
        return False

    def start_response(self, status: str, response_headers: list[tuple[str, str]], exc_info: Any = None) -> None:
        # Django's WSGI handler writes a cookie as " name=value…" (a WSGI server strips it); ASGI's
        # servers refuse a header value that starts with a space, as Django's ASGI handler knows.
        super().start_response(status, [(name, value.strip()) for name, value in response_headers], exc_info)

    def _run(self, body: Any) -> None:
        """In a thread: hands the loop over, once, the answer's messages (a plain answer), the response
        for the loop to wait (a long poll that must wait), None once a streamed answer is sent, or the
        exception that failed the request before any of these."""
        handed = False
        try:
            response = self.wsgi_application(self.build_environ(self.scope, body), self.start_response)
            try:
                if self.must_wait(response):
                    handed = True
                    self.hand_over(response)  # and closed at once: its steps after the response run now
                elif getattr(response, "streaming", False):
                    sync_send = AsyncToSync(self.send)
                    sync_send(self.response_start)
                    for chunk in response:
                        if chunk:
                            sync_send({"type": "http.response.body", "body": chunk, "more_body": True})
                    sync_send({"type": "http.response.body"})
                else:
                    content = b"".join(response)
                    handed = True
                    self.hand_over([self.response_start, {"type": "http.response.body", "body": content}])
                    # The steps after the response (its close: request_finished) begin once the loop has
                    # sent it: run at once, they would hold the interpreter that the loop needs to send it.
                    # (Bounded: a client that reads slowly, or a loop stopped mid-send, does not keep the
                    # thread.)
                    self.sent.wait(SEND_WAIT_SECONDS)
            finally:
                response.close()
        except BaseException as exc:
            if not handed:
                self.hand_over(exc)  # raised in the loop, as the server's own error
            else:  # the answer is gone: nobody awaits this thread
                logger.exception("A request failed after its answer was handed over")
            raise
        if not handed:
            self.hand_over(None)  # a streamed answer, sent and closed


def _settle(handed: asyncio.Future[Any], what: Any) -> None:
    """In the loop: what a request's thread handed over (an exception: raised) to the coroutine that
    awaits ``handed``, if it still does (a cancelled request's does not)."""
    if handed.done():  # cancelled
        return
    if isinstance(what, BaseException):
        handed.set_exception(what)
    else:
        handed.set_result(what)


class _LongPoll(_Request):
    """A long poll (``wait=``): run as any request on Django's WSGI handler in a thread, its view told
    that it may defer its wait (:func:`games.live.waits.deferred`). Most are answered at once (the
    match already moved past ``after``: the bots played inside the action before), at the cost of any
    request. One that must wait gives back a :class:`~games.live.waits.WaitingResponse`, which this
    coroutine awaits on the live-update channel holding no thread and no database connection
    (subscribed before the thread runs, when the URL names the channel), then answers with the view's
    answer after the wait and the headers the middleware gave the request (CORS, security, frame
    options). A client that leaves during the wait ends it at once, its slot given back.
    Django's ASGI handler ran these at about three times a plain request's cost in the event loop
    (its middleware chain, a request object, URL resolution: docs/performance.md)."""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self.channel = deferred.channel_of_path(scope["path"])
        subscribing = channels.asubscribe(self.channel) if self.channel else contextlib.nullcontext()
        async with subscribing as self.subscription:
            await super().__call__(scope, receive, send)

    def must_wait(self, response: Any) -> bool:
        return isinstance(response, waits.WaitingResponse)

    def _run(self, body: Any) -> None:
        with waits.deferred():
            super()._run(body)

    async def messages(self, handed: Any, receive: Any) -> list[dict[str, Any]]:
        if not isinstance(handed, waits.WaitingResponse):
            return await super().messages(handed, receive)
        waiting = asyncio.ensure_future(deferred.answer_after_wait(handed, self.subscription, self.channel))
        gone = asyncio.ensure_future(_disconnect(receive))
        try:
            await asyncio.wait([waiting, gone], return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (waiting, gone):
                task.cancel()
            await asyncio.wait([waiting, gone])  # a read in a thread finishes first; the slot is given back
        if waiting.cancelled():
            return []  # the client left: nobody to answer
        answer = waiting.result()
        try:
            return _answer_messages(answer, handed)
        finally:
            cycles.untangle(answer)  # (rendered and never closed: closing it would end the request again)


async def _disconnect(receive: Any) -> None:
    """Returns once the client has gone (after its whole request was read, ``receive`` waits for that)."""
    while (await receive())["type"] != "http.disconnect":
        pass


def _answer_messages(answer: Any, waiting: HttpResponseBase) -> list[dict[str, Any]]:
    """The ASGI messages of the answer after a wait, with the headers the middleware gave the request
    on its way out (on ``waiting``) that the answer has not set itself."""
    if callable(getattr(answer, "render", None)) and not answer.is_rendered:
        answer.render()  # a DRF response, finalized by its view in the thread
    for name, value in waiting.items():
        if name.lower() == "vary":
            patch_vary_headers(answer, [field.strip() for field in value.split(",")])
        elif name.lower() not in ("content-type", "content-length") and not answer.has_header(name):
            answer[name] = value
    answer["Content-Length"] = str(len(answer.content))
    headers = [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in answer.items()]
    cookies = answer.cookies.values()
    headers += [(b"set-cookie", cookie.output(header="").strip().encode("latin-1")) for cookie in cookies]
    return [
        {"type": "http.response.start", "status": answer.status_code, "headers": headers},
        {"type": "http.response.body", "body": answer.content},
    ]


class Handler(cycles.Untangling, stock_middleware.Swapping, ASGIHandler):
    """Django's ASGI handler for the event streams, which get no thread of its own; the other requests
    go to Django's WSGI handler (:class:`_Request`, :class:`_LongPoll`).

    Django runs each request in a ``ThreadSensitiveContext``: every sync step of the request (a signal's
    receivers, a sync view) then runs in a thread kept for that request until it ends, so that a wait
    of 25 s would keep an idle thread for 25 s (measured: 60 waits, 61 threads). A stream runs without
    it: its few sync steps go to the process's thread for them, and its reads to the pool of
    :func:`tute_api.threads.in_thread`.
    """

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        api = scope["type"] == "http" and scope["path"].startswith("/api/")
        if api and scope["path"].endswith("/stream"):
            await self.handle(scope, receive, send)
        elif api and WAITING.search(scope.get("query_string", b"")):
            await _LongPoll(_wsgi)(scope, receive, send)
        elif scope["type"] == "http":
            await _Request(_wsgi)(scope, receive, send)
        else:
            await super().__call__(scope, receive, send)

    async def listen_for_disconnect(self, receive: Any) -> None:
        """Returns once the client has gone. (Django's raises ``RequestAborted``, whose traceback ties
        the handler's frame, its tasks and the exception into a cycle: tute_api/cycles.py.)"""
        await _disconnect(receive)

    def resolve_request(self, request: Any) -> Any:
        """A view that waits as a coroutine (``games.live.deferred``) gives this handler its coroutine."""
        match = super().resolve_request(request)
        match.func = getattr(match.func, "async_view", match.func)
        return match


_wsgi = stock_middleware.WSGIHandler()
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
