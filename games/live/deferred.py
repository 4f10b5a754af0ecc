"""The waiting views under ASGI: a long poll, an event stream or a turns poll holds no thread while it
waits.

The DRF view runs (authentication, rate limits, validation, the first read) in a thread with
:func:`.waits.deferred` on; a long poll that must wait answers with a :class:`~.waits.WaitingResponse`,
which a coroutine awaits on the live-update channel (:func:`.channels.asubscribe`) with the thread and
the database connection given back (:func:`answer_after_wait`), then finishes in a thread again (a
short read, the DRF response). ``tute_api.asgi`` runs a long poll so (``_LongPoll``, subscribed before
the view's first read, :func:`channel_of_path`), and an event stream through the coroutine of
:meth:`DeferrableApi.as_async_view`, whose stream is an async iterator. Under WSGI (the test client's)
the DRF view runs alone: a long poll there sleeps in its thread on the subscription.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponseBase
from django.urls import Resolver404, resolve
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tute_api import cycles
from tute_api.threads import Lane, in_thread

from . import channels, shutdown, waits


class DeferrableApi(APIView):
    """A DRF view whose long polls wait in the event loop (:func:`answer_after_wait`)."""

    @classmethod
    def channel_of(cls, kwargs: dict[str, Any]) -> str | None:
        """The channel a long poll of this view waits on, when the URL tells it: ``tute_api.asgi`` then
        subscribes before the view's first read, so that no news can fall between them and the wait
        needs no second read to learn whether it came, nor one to answer if none came."""
        return None

    def finalize_response(
        self, request: Request, response: HttpResponseBase, *args: Any, **kwargs: Any
    ) -> HttpResponseBase:
        if isinstance(response, waits.WaitingResponse):
            answer, answer_if_ready, unchanged = response.answer, response.answer_if_ready, response.answer_unchanged

            def finish(done: Callable[[], HttpResponseBase | None]) -> HttpResponseBase | None:
                try:
                    answered = done()
                except Exception as exc:  # a problem, as the view's own errors are
                    answered = self.handle_exception(exc)
                if answered is None:
                    return None
                return super(DeferrableApi, self).finalize_response(request, answered, *args, **kwargs)

            response.answer = lambda: finish(answer)  # type: ignore[assignment,return-value]
            response.answer_if_ready = lambda: finish(answer_if_ready)
            response.answer_unchanged = lambda: finish(unchanged)  # type: ignore[assignment,return-value]
            return response
        return super().finalize_response(request, response, *args, **kwargs)

    def dispatch(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        response: HttpResponseBase = super().dispatch(request, *args, **kwargs)
        if not isinstance(response, Response | waits.WaitingResponse):
            # A stream, a 204: nothing leads back to this view from its response, so its cycle with its
            # request is already unreachable, and would be the collector's at its next collection (an
            # event stream's lasts minutes): cut it now (tute_api/cycles.py).
            cycles.untangle_view(self)
        return response

    @classmethod
    def as_async_view(cls, **initkwargs: Any) -> Callable[..., Any]:
        """The DRF view, for WSGI and ``tute_api.asgi``'s threads, with its coroutine (``async_view``, which
        ``tute_api.asgi.Handler`` calls instead for an event stream)."""
        drf_view = cls.as_view(**initkwargs)

        async def view(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
            with waits.deferred():
                response: HttpResponseBase = await in_thread(drf_view)(request, *args, **kwargs)
            if isinstance(response, waits.WaitingResponse):  # a long poll that tute_api.asgi did not send here
                return await await_news(response)
            return response

        view.csrf_exempt = True  # type: ignore[attr-defined]
        drf_view.async_view = view  # type: ignore[attr-defined]
        return drf_view


@functools.lru_cache(maxsize=4096)
def channel_of_path(path: str) -> str | None:
    """The channel a long poll of ``path`` waits on when its URL tells it (:meth:`DeferrableApi.channel_of`),
    for a caller that subscribes before the view runs; None for any other path. (Cached: a client's
    long polls repeat one path.)"""
    try:
        found = resolve(path)
    except Resolver404:
        return None
    view_class = getattr(found.func, "cls", None)
    if isinstance(view_class, type) and issubclass(view_class, DeferrableApi):
        return view_class.channel_of(found.kwargs)
    return None


async def answer_after_wait(
    waiting: waits.WaitingResponse, subscription: channels.AsyncSubscription | None, channel: str | None
) -> HttpResponseBase:
    """The answer of a view that had to wait: awaited on ``subscription`` when it was made, on
    ``channel``, before the view's first read (no news can have fallen between them), else on a
    subscription of its own, which reads once first."""
    if subscription is not None and waiting.channel == channel:
        return await _awaited(waiting, subscription, ready=False)
    return await await_news(waiting)


async def await_news(waiting: waits.WaitingResponse) -> HttpResponseBase:
    """Await the news a :class:`~.waits.WaitingResponse` waits for, holding no thread, then answer."""
    async with channels.asubscribe(waiting.channel) as subscription:
        # News may have come between the view's read and the subscription: read again first.
        return await _awaited(waiting, subscription, ready=None)


async def _awaited(
    waiting: waits.WaitingResponse, subscription: channels.AsyncSubscription, *, ready: bool | None
) -> HttpResponseBase:
    """Wait on ``subscription`` (``ready``: known, or None to read first), then answer: a wake reads
    once, in one thread, and answers there when the news is the one awaited."""
    try:
        deadline = time.monotonic() + waiting.timeout
        if ready is None and (answer := await in_thread(waiting.answer_if_ready, lane=Lane.NEWS)()) is not None:
            return answer
        while not shutdown.draining() and (left := deadline - time.monotonic()) > 0:
            woken = await subscription.wait(left) and not shutdown.draining()
            if woken and (answer := await in_thread(waiting.answer_if_ready, lane=Lane.NEWS)()) is not None:
                return answer
        if ready is False and subscription.silent:  # nothing published since before the view's read
            return await in_thread(waiting.answer_unchanged, lane=Lane.NEWS)()
        return await in_thread(waiting.answer, lane=Lane.NEWS)()
    finally:
        waiting.done()
