"""Celery beat's schedule run inside the web process, for ``make run``.

With no broker, tasks run in the process that queues them (``task_always_eager``) and no beat process
runs, so nothing would make the periodic sweeps of ``CELERY_BEAT_SCHEDULE``: silent seats would stay
connected, turn clocks would never run out, and a poll bot that never answers would hold its match for
ever. With ``BEAT_IN_PROCESS`` set (``make run`` sets it) and no broker, :class:`InProcessBeatMiddleware`
starts, once in each process that serves requests, a daemon thread that runs every scheduled task on its
period. The sweeps run in the web process itself, so the waiting requests they wake are its own. With a
broker, run ``celery -A tute_api beat`` instead: the middleware then stays out of the way.
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.conf import settings
from django.core.exceptions import MiddlewareNotUsed
from django.db import connections
from django.http import HttpRequest, HttpResponse

logger = logging.getLogger(__name__)

#: How often the thread looks for a task that is due, in seconds.
TICK_SECONDS = 1.0


def run_task(name: str) -> None:
    """Run the Celery task ``name`` here and now.

    Called directly, not through ``apply``, whose trace would log a line at INFO for every sweep,
    every few seconds, on the console of ``make run``; what a run did is logged at DEBUG."""
    result = _tasks()[name]()
    logger.debug("The scheduled task %s returned %r", name, result)


@functools.cache
def _tasks() -> Any:
    """Celery's tasks, every app's imported as a worker does it: once, since Celery's Django fixup
    then runs ``django.setup()`` (which sets up logging again) and Django's system checks."""
    from tute_api.celery import app

    app.loader.import_default_modules()
    return app.tasks


class Beat:
    """The schedule's tasks, each run once its period has passed since the last run (the first one
    period after the start)."""

    def __init__(
        self,
        schedule: dict[str, dict[str, Any]],
        run: Callable[[str], None] = run_task,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.run, self.clock = run, clock
        start = clock()
        self.periods = {entry["task"]: float(entry["schedule"]) for entry in schedule.values()}
        self.due_at = {task: start + period for task, period in self.periods.items()}

    def run_due(self) -> list[str]:
        """Run the tasks that are due; a task that fails is logged and tried again next period."""
        ran = []
        for task, due_at in self.due_at.items():
            now = self.clock()
            if now < due_at:
                continue
            self.due_at[task] = now + self.periods[task]
            try:
                self.run(task)
            except Exception:
                logger.exception("The scheduled task %s failed", task)
            ran.append(task)
        return ran

    def run_until(self, stop: threading.Event) -> None:
        while not stop.wait(TICK_SECONDS):
            if self.run_due():
                connections.close_all()  # the connections of this thread only


_lock = threading.Lock()
_stop: threading.Event | None = None


def start() -> threading.Event:
    """Start the beat thread of this process unless it runs already; the event stops it."""
    global _stop
    with _lock:
        if _stop is None:
            _stop = threading.Event()
            beat = Beat(settings.CELERY_BEAT_SCHEDULE)
            threading.Thread(target=beat.run_until, args=(_stop,), name="in-process-beat", daemon=True).start()
            logger.info("Celery beat's schedule runs in this process (BEAT_IN_PROCESS, no broker)")
        return _stop


def stop() -> None:
    global _stop
    with _lock:
        if _stop is not None:
            _stop.set()
            _stop = None


class InProcessBeatMiddleware:
    """Starts the beat thread when the process begins to serve; not used without BEAT_IN_PROCESS or with a broker."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        from tute_api.celery import app

        if not settings.BEAT_IN_PROCESS or not app.conf.task_always_eager:
            raise MiddlewareNotUsed
        start()
        self.get_response = get_response
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    sync_capable = async_capable = True

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)  # a coroutine under ASGI, passed on
