"""The host a request names, checked first: a host the service does not answer to gets a problem.

Django checks ``Host`` against ``ALLOWED_HOSTS`` when something first asks for it, and with ``DEBUG``
on it answers a refusal with its HTML debug page: a phone or an emulator pointed at ``make run`` by an
address the settings do not list saw a page of HTML instead of a problem it could read. This first
middleware asks for the host itself and answers 400 ``disallowed_host``, naming the setting to change.

In development (``DEBUG`` on and no ``ALLOWED_HOSTS``), :func:`development_hosts` lists the names a
developer's devices use: loopback, the Android emulators' alias of the host (``10.0.2.2``, Genymotion's
``10.0.3.2``), this machine's name and its ``.local`` (mDNS) name, and the addresses its name resolves to.
"""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponse

#: The Android emulator reaches its host's loopback as 10.0.2.2 (Genymotion as 10.0.3.2).
EMULATOR_HOSTS = ["10.0.2.2", "10.0.3.2"]


def development_hosts() -> list[str]:
    """The host names a development server answers to when ``ALLOWED_HOSTS`` is not set."""
    hosts = [".localhost", "127.0.0.1", "[::1]", *EMULATOR_HOSTS, ".local"]
    name = socket.gethostname()
    if name:
        hosts += [name, f"{name}.local"]
        try:
            found = socket.getaddrinfo(name, None)
        except OSError:  # a name that does not resolve here: no addresses to add
            found = []
        for info in found:
            address = str(info[4][0]).split("%", 1)[0]
            hosts.append(f"[{address}]" if ":" in address else address)
    return list(dict.fromkeys(hosts))


class AllowedHostMiddleware:
    """A request for a host the service does not answer to: 400 ``disallowed_host``, as a problem."""

    sync_capable = async_capable = True  # under ASGI, a sync middleware would hold a thread while a view waits

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        from .errors import problem_response  # not at the top: the settings import this module's helper

        self.get_response = get_response
        self.problem = problem_response
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        refused = self._refused(request)
        if iscoroutinefunction(self):
            return self._acall(request, refused)
        return refused or self.get_response(request)

    async def _acall(self, request: HttpRequest, refused: HttpResponse | None) -> HttpResponse:
        return refused or await self.get_response(request)  # type: ignore[misc]

    def _refused(self, request: HttpRequest) -> HttpResponse | None:
        try:
            request.get_host()
        except DisallowedHost:
            return self.problem(
                400,
                "disallowed_host",
                "This server does not answer to the host this request names; add it to ALLOWED_HOSTS.",
            )
        return None
