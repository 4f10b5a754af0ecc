"""ASGI entry point: the service's server (uvicorn workers under gunicorn, ``gunicorn.conf.py``; ``make run``).

Every HTTP endpoint is served through Django's ASGI handler: the waiting ones (long polls, the event
stream, ``/me/turns?wait=``) are coroutines that hold no thread while they wait (``games/live/deferred.py``),
the others are Django's sync views (measured in docs/performance.md). Channels' ``ProtocolTypeRouter``
routes by protocol: ``"websocket"`` goes to the sockets of Django Channels: a match's (``games/live/sockets.py``)
and a player's own channel (``games/lobby/sockets.py``).
The ``lifespan`` app chains the clean shutdown (``games/live/shutdown.py``) to the server's signals.
"""

import os
from typing import Any

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tute_api.settings")

get_asgi_application()  # first: it sets Django up before anything imports models

import re  # noqa: E402

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402
from django.core.handlers.asgi import ASGIHandler  # noqa: E402

from games.live import routing as live_routing  # noqa: E402
from games.live import shutdown  # noqa: E402
from games.lobby import routing as lobby_routing  # noqa: E402

#: The requests that may wait: a stream, or a long poll (``wait=`` in the query).
WAITING = re.compile(rb"(^|&)wait=[1-9]")


class Handler(ASGIHandler):
    """Django's ASGI handler, but a request that may wait gets no thread of its own.

    Django runs each request in a ``ThreadSensitiveContext``: every sync step of the request (a signal's
    receivers, a sync view) then runs in a thread kept for that request until it ends, so that a wait
    of 25 s would keep an idle thread for 25 s (measured: 60 waits, 61 threads). A waiting request runs
    without it: its few sync steps go to the process's thread for them, and its reads to the pool of
    :func:`tute_api.threads.in_thread`. The other requests keep Django's way (a thread each while they run).
    """

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and (
            scope["path"].endswith("/stream") or WAITING.search(scope.get("query_string", b""))
        ):
            await self.handle(scope, receive, send)
        else:
            await super().__call__(scope, receive, send)


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
