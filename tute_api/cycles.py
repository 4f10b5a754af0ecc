"""A request's objects freed as soon as it ends, by reference counting, not left to the garbage collector.

DRF ties each request's objects into reference cycles: the view and its request (``view.request``, the
request's ``parser_context["view"]``), the view and its own ``head`` (Django's ``View.setup``: a bound
method of the view), the response and its ``renderer_context`` (the view, the request, the response
itself); and a serializer and its fields (each bound field's ``parent``). Only the collector frees a
cycle, and the whole graph hanging off it with it: 130 objects a request, among them the match that was
read. Beside thousands of open connections, the collections that this garbage brings about were the
fan-out's tail (docs/performance.md): CPython counts the objects allocated less those freed, and
collects the young generation each ``threshold0`` of them, so garbage freed at once never brings a
collection about.

:func:`untangle` cuts those references once a response has been sent (:class:`Untangling`: a closer
of the response, as Django's ``request.close``); a response that is not DRF's (an event stream, a
plain 204) does not lead back to its view, whose cycle is unreachable as soon as it returns, so
:func:`untangle_view` cuts it then (``games.live.deferred.DeferrableApi``); :func:`untie` cuts a
serializer's, for those that read a request (``tute_api.serializers.InputSerializer``) and those that
wrote a response's data (:func:`untangle`). ``tests/test_cycles.py`` counts what each kind of request
leaves to the collector.
"""

from __future__ import annotations

import functools
import weakref
from typing import Any

from django.http import HttpRequest, HttpResponseBase


def untangle(response: HttpResponseBase) -> None:
    """Cut the references between a sent DRF response, its view and its request, and within the
    serializers that made its data (else nothing)."""
    context = getattr(response, "renderer_context", None)
    if not isinstance(context, dict):
        return
    view = context.get("view")
    if view is not None:
        untangle_view(view)
    response.renderer_context = None  # type: ignore[attr-defined]
    data = getattr(response, "data", None)  # a serializer's ReturnDict or ReturnList, or a page of one
    for part in [data, *(data.values() if isinstance(data, dict) else ())]:
        if getattr(part, "serializer", None) is not None:
            untie(part.serializer)


def untangle_view(view: Any) -> None:
    """Cut the references between a DRF view that has answered and its request: the view forgets all
    it set on itself (the request, the response, its ``head``), the request its parser's context."""
    request = view.__dict__.get("request")
    if request is not None and hasattr(request, "parser_context"):
        request.parser_context = None
    view.__dict__.clear()


def untie(field: Any) -> None:
    """Drop the references from the fields under a serializer (or any field) back to it, and theirs, all
    the way down: each bound field's ``parent``, the binding dict that refers to its serializer, a list's
    child's. A serializer reads and writes as before; it binds its fields again if asked."""
    bound = field.__dict__.pop("fields", None)  # a serializer's
    children = list(bound.values()) if bound is not None else []
    if getattr(field, "child", None) is not None:  # a list's or a dict's, a serializer with many=True
        children.append(field.child)
    for child in children:
        child.__dict__.pop("parent", None)
        untie(child)


def untangle_when_closed(response: HttpResponseBase) -> None:
    """Untangle ``response`` once it is closed (sent)."""
    target = weakref.ref(response)  # (the closer itself must not tie it to the response)
    response._resource_closers.append(functools.partial(_if_alive, target))


def _if_alive(target: weakref.ref[HttpResponseBase]) -> None:
    alive = target()
    if alive is not None:
        untangle(alive)


class Untangling:
    """Mixed into a Django handler: each response it answers is untangled when closed (after it is sent)."""

    def get_response(self, request: HttpRequest) -> HttpResponseBase:
        response: HttpResponseBase = super().get_response(request)  # type: ignore[misc]
        untangle_when_closed(response)
        return response

    async def get_response_async(self, request: HttpRequest) -> HttpResponseBase:
        response: HttpResponseBase = await super().get_response_async(request)  # type: ignore[misc]
        untangle_when_closed(response)
        return response
