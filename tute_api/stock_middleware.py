"""Django's own middlewares, their hooks run where the request runs, and not at all where they have
nothing to do.

Under ASGI (the waiting requests: long polls, event streams; ``tute_api/asgi.py``) Django's
``MiddlewareMixin`` runs each ``process_request`` and ``process_response`` through
``sync_to_async(thread_sensitive=True)``: a hop to the process's one thread for sync code and back,
two for each middleware, thirteen for these seven (``process_view`` of CSRF too). Their hooks do no
I/O for the API's requests: security and frame headers, the trailing slash, CSRF's cookie check (the
API's views are exempt: they take a bearer token, never a cookie), and the lazy session, user and
messages of the admin's pages, which read or write nothing unless a view uses them. So here they are
called in the event loop, as plain calls; under WSGI nothing changes. The waiting requests go only to
``/api/`` views, which touch no session (``tute_api.asgi.Handler``); a session saved in the event loop
would fail loudly (``SynchronousOnlyOperation``), not silently.

A request to the versioned API or a probe (:data:`SESSIONLESS_PATHS`) skips the session's, the user's,
the messages' and the CSRF cookie's steps (:class:`AdminOnly`): built for every request, the session
store, the lazy user and the three message stores were never read by a view that takes a bearer token
(17 µs a request), and a long poll kept them through its wait.

``settings.MIDDLEWARE`` keeps Django's names (``manage.py check --deploy`` looks for them there);
the service's handlers load these in their place (:class:`Swapping`: ``tute_api.asgi``'s and
:class:`WSGIHandler`).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import middleware as auth
from django.contrib.messages import middleware as messages
from django.contrib.sessions import middleware as sessions
from django.core.handlers import wsgi
from django.http import HttpRequest, HttpResponseBase
from django.middleware import clickjacking, common, csrf, security

from tute_api.cycles import Untangling

#: The paths whose requests take no session, no user of Django's, no messages and no CSRF cookie: the
#: versioned API, whose views take a bearer token (the docs page, ``/api/docs/``, sets a cookie: not in
#: it), and the probes (which, given the whole stack, left 35 objects in a cycle each: the message
#: storage and its request).
SESSIONLESS_PATHS = ("/api/v1/", "/healthz", "/readyz")


class InlineHooks:
    """Mixed into a ``MiddlewareMixin`` whose hooks do no I/O: in async mode they run in the event loop
    (no thread hop), a ``process_view`` too (Django adapts only a sync one)."""

    async_mode: bool
    get_response: Any

    def __init__(self, get_response: Any) -> None:
        super().__init__(get_response)  # type: ignore[call-arg]
        if self.async_mode and hasattr(self, "process_view"):
            hook = self.process_view

            async def process_view(request: HttpRequest, view: Any, args: Any, kwargs: Any) -> Any:
                return hook(request, view, args, kwargs)

            self.process_view = process_view

    async def __acall__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.process_request(request) if hasattr(self, "process_request") else None
        response = response or await self.get_response(request)
        if hasattr(self, "process_response"):
            response = self.process_response(request, response)
        return response  # type: ignore[no-any-return]


class AdminOnly:
    """Mixed into a middleware whose work is the admin's pages' (a session, Django's user, messages, the
    CSRF cookie): for a request to the API or a probe (:data:`SESSIONLESS_PATHS`) its ``process_request``
    and ``process_response`` do nothing. (CSRF's ``process_view`` still runs: the API's views are exempt.)"""

    def process_request(self, request: HttpRequest) -> HttpResponseBase | None:
        if request.path_info.startswith(SESSIONLESS_PATHS):
            return None
        return super().process_request(request)  # type: ignore[misc,no-any-return]

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if request.path_info.startswith(SESSIONLESS_PATHS) or not hasattr(super(), "process_response"):
            return response  # (the user's middleware has no step on the way out)
        return super().process_response(request, response)  # type: ignore[misc,no-any-return]


class SecurityMiddleware(InlineHooks, security.SecurityMiddleware):
    pass


class SessionMiddleware(AdminOnly, InlineHooks, sessions.SessionMiddleware):
    pass


class CommonMiddleware(InlineHooks, common.CommonMiddleware):
    pass


class CsrfViewMiddleware(AdminOnly, InlineHooks, csrf.CsrfViewMiddleware):
    pass


class AuthenticationMiddleware(AdminOnly, InlineHooks, auth.AuthenticationMiddleware):
    pass


class MessageMiddleware(AdminOnly, InlineHooks, messages.MessageMiddleware):
    pass


class XFrameOptionsMiddleware(InlineHooks, clickjacking.XFrameOptionsMiddleware):
    pass


#: Django's name of each middleware above, and the name of this module's.
INLINE = {
    f"{base.__module__}.{base.__name__}": f"{__name__}.{cls.__name__}"
    for cls in (
        SecurityMiddleware,
        SessionMiddleware,
        CommonMiddleware,
        CsrfViewMiddleware,
        AuthenticationMiddleware,
        MessageMiddleware,
        XFrameOptionsMiddleware,
    )
    for base in cls.__bases__[-1:]
}


def in_place_of_djangos(middleware: list[str]) -> list[str]:
    """``settings.MIDDLEWARE`` with Django's own in this module's versions."""
    return [INLINE.get(path, path) for path in middleware]


class Swapping:
    """Mixed into a Django handler: it loads this module's middlewares in place of Django's own."""

    def load_middleware(self, is_async: bool = False) -> None:
        configured = settings.MIDDLEWARE
        settings.MIDDLEWARE = in_place_of_djangos(configured)
        try:
            super().load_middleware(is_async)  # type: ignore[misc]
        finally:
            settings.MIDDLEWARE = configured


class WSGIHandler(Untangling, Swapping, wsgi.WSGIHandler):
    """Django's WSGI handler with this module's middlewares (``tute_api.asgi``'s requests, ``tute_api.wsgi``)."""
