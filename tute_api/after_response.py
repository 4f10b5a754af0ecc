"""Work that follows a commit but that the caller does not wait for: waking long polls, queuing a
bot's turn. Inside a request it runs once the answer has been sent; anywhere else, at once.

Each such step is a round trip to Redis, and on a busy server a round trip costs a wait for the CPU
on each side: the answer to an action came 5 to 40 ms later for them (docs/performance.md). Django
sends ``request_finished`` when the WSGI server closes the response, after writing it, so the
steps a request leaves with :func:`later` run then, in the same thread, in the order given.
:class:`AfterResponseMiddleware` marks where a request begins; a streamed answer (an event stream)
runs its steps before it starts streaming.

What they announce is committed before they run: if the process dies in between, the bot-turn
sweep queues the lost turn again (``games.tasks.sweep_bot_turns``) and waiting requests time out
and read the database again.

    on_commit_later(lambda: queue_the_bots(match_id, seq))
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from asgiref.local import Local
from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.core.signals import request_finished
from django.db import close_old_connections, transaction
from django.http import HttpRequest, HttpResponseBase

from .threads import in_thread

logger = logging.getLogger(__name__)

# Per request: a thread's under WSGI, a request's context under ASGI (where requests share threads).
_requests = Local()


def later(step: Callable[[], object]) -> None:
    """Run ``step`` once the current request's answer is sent; at once outside a request."""
    pending: list[Callable[[], object]] | None = getattr(_requests, "pending", None)
    if pending is None:
        step()
    else:
        pending.append(step)


def on_commit_later(step: Callable[[], object]) -> None:
    """``step`` after the current transaction commits, and after the answer (:func:`later`)."""
    transaction.on_commit(lambda: later(step))


class AfterResponseMiddleware:
    """The first middleware: from here on, :func:`later` keeps the request's steps."""

    sync_capable = async_capable = True  # under ASGI, a sync middleware would hold a thread while a view waits

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if iscoroutinefunction(self):
            return self._acall(request)
        _requests.pending = []
        response = self.get_response(request)
        if response.streaming:  # its close comes when the stream ends: too late
            _run_pending()
        return response

    async def _acall(self, request: HttpRequest) -> HttpResponseBase:
        # Django's ASGI handler runs the request in a task of its own and closes the response (sending
        # request_finished) outside it, where this request's context is not seen: the steps go with
        # the response instead, which closes once it is sent.
        pending: list[Callable[[], object]] = []
        _requests.pending = pending
        response: HttpResponseBase = await self.get_response(request)  # type: ignore[misc]
        _requests.pending = None
        if response.streaming:
            await in_thread(_run_steps)(pending)
        else:
            response._resource_closers.append(lambda: _run_steps(pending))
        return response


def _run_pending(**kwargs: Any) -> None:
    pending, _requests.pending = getattr(_requests, "pending", None), None
    if pending:
        _run_steps(pending)


def _run_steps(pending: list[Callable[[], object]]) -> None:
    steps = pending[:]
    pending.clear()
    for step in steps:
        try:
            step()
        except Exception:  # the answer is gone: a step's failure can only be logged
            logger.exception("A step after the response failed")


# Before Django's own receiver, which closes the request's database connections (or gives them back
# to the pool): a step that queries then does not keep its connection until the thread's next request.
request_finished.disconnect(close_old_connections)
request_finished.connect(_run_pending, dispatch_uid="after_response")
request_finished.connect(close_old_connections)
