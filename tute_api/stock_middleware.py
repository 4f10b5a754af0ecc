"""Django's own middlewares, their hooks run where the request runs.

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

``settings.MIDDLEWARE`` keeps Django's names (``manage.py check --deploy`` looks for them there);
``tute_api.asgi.Handler`` loads these in their place (:func:`for_the_event_loop`).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import middleware as auth
from django.contrib.messages import middleware as messages
from django.contrib.sessions import middleware as sessions
from django.http import HttpRequest, HttpResponseBase
from django.middleware import clickjacking, common, csrf, security


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


class SecurityMiddleware(InlineHooks, security.SecurityMiddleware):
    pass


class SessionMiddleware(InlineHooks, sessions.SessionMiddleware):
    pass


class CommonMiddleware(InlineHooks, common.CommonMiddleware):
    pass


class CsrfViewMiddleware(InlineHooks, csrf.CsrfViewMiddleware):
    pass


class AuthenticationMiddleware(InlineHooks, auth.AuthenticationMiddleware):
    pass


class MessageMiddleware(InlineHooks, messages.MessageMiddleware):
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
    for base in cls.__bases__[1:]
}


def for_the_event_loop(middleware: list[str]) -> list[str]:
    """``settings.MIDDLEWARE`` with Django's own in this module's versions."""
    return [INLINE.get(path, path) for path in middleware]
