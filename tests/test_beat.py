"""Celery beat's schedule in the web process (``make run``: no broker, so no beat process): each task on
its period, failures logged, and only where asked for and with no broker."""

from __future__ import annotations

import logging
import threading
from typing import Any

import pytest
from django.conf import settings
from django.core.exceptions import MiddlewareNotUsed

from tute_api import beat
from tute_api.celery import app

SCHEDULE = {
    "often": {"task": "tasks.often", "schedule": 5.0},
    "hourly": {"task": "tasks.hourly", "schedule": 3600.0},
}


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_each_task_runs_once_its_period_has_passed() -> None:
    clock, ran = Clock(), []
    schedule = beat.Beat(SCHEDULE, run=ran.append, clock=clock)
    assert schedule.run_due() == [] and ran == [], "nothing is due at the start"
    clock.now += 4.9
    assert schedule.run_due() == []
    clock.now += 0.1
    assert schedule.run_due() == ["tasks.often"]
    assert schedule.run_due() == [], "not again before its next period"
    clock.now += 3600
    assert schedule.run_due() == ["tasks.often", "tasks.hourly"]
    assert ran == ["tasks.often", "tasks.often", "tasks.hourly"]


def test_a_failing_task_is_logged_and_tried_again_next_period(caplog: pytest.LogCaptureFixture) -> None:
    clock, calls = Clock(), []

    def run(task: str) -> None:
        calls.append(task)
        if task == "tasks.often":
            raise RuntimeError("the database is away")

    schedule = beat.Beat(SCHEDULE, run=run, clock=clock)
    clock.now += 3600
    assert schedule.run_due() == ["tasks.often", "tasks.hourly"], "a failure does not stop the others"
    assert "The scheduled task tasks.often failed" in caplog.text
    clock.now += 5
    assert schedule.run_due() == ["tasks.often"]
    assert calls == ["tasks.often", "tasks.hourly", "tasks.often"]


def test_the_schedule_names_tasks_that_exist() -> None:
    app.loader.import_default_modules()
    for entry in settings.CELERY_BEAT_SCHEDULE.values():
        assert entry["task"] in app.tasks


def test_the_middleware_starts_one_thread_only_when_asked_and_with_no_broker(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    def threads() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if t.name == "in-process-beat"]

    settings.BEAT_IN_PROCESS = False
    with pytest.raises(MiddlewareNotUsed):
        beat.InProcessBeatMiddleware(lambda request: None)  # type: ignore[arg-type,return-value]
    settings.BEAT_IN_PROCESS = True
    monkeypatch.setitem(app.conf, "task_always_eager", False)
    with pytest.raises(MiddlewareNotUsed):
        beat.InProcessBeatMiddleware(lambda request: None)  # type: ignore[arg-type,return-value]
    assert threads() == []
    monkeypatch.setitem(app.conf, "task_always_eager", True)
    try:
        beat.InProcessBeatMiddleware(lambda request: None)  # type: ignore[arg-type,return-value]
        beat.InProcessBeatMiddleware(lambda request: None)  # type: ignore[arg-type,return-value]
        assert len(threads()) == 1 and threads()[0].daemon
    finally:
        beat.stop()
    for thread in threads():
        thread.join(beat.TICK_SECONDS + 1)
    assert threads() == []


class Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@pytest.mark.django_db
def test_a_scheduled_task_runs_without_a_console_line_or_django_setup_each_period(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The sweeps run every few seconds under ``make run``: they must not fill its console, nor run
    ``django.setup()`` and the system checks again each time (Celery's fixup does on every import)."""
    import django

    beat.run_task("rooms.tasks.sweep_presence")  # the first run imports the tasks (and sets up logging again)
    setups: list[int] = []
    monkeypatch.setattr(django, "setup", lambda *args, **kwargs: setups.append(1))
    console = Lines()
    root = logging.getLogger()
    monkeypatch.setattr(root, "level", logging.INFO)
    root.addHandler(console)
    try:
        beat.run_task("rooms.tasks.sweep_presence")
        beat.run_task("games.tasks.sweep_bot_turns")
    finally:
        root.removeHandler(console)
    assert console.lines == []
    assert setups == []
