"""Queuing the turn takers' tasks, by name: the services here queue the tasks that call them, so they
name the task (``games.turns.tasks`` registers each under its name) instead of importing it.

With no broker (``make run``, ``task_always_eager``) a queued task runs at once, in process.
"""

from __future__ import annotations

from celery import current_app

#: The tasks' names: kept from the modules that first held them, so that messages queued by a service
#: of an earlier release are still run after a deploy.
PLAY_BOT_TURNS = "games.tasks.play_bot_turns"
DELIVER_TURN = "games.tasks.deliver_turn"
EXPIRE_POLL_TURN = "games.tasks.expire_poll_turn"
EXPIRE_GRACE = "rooms.tasks.expire_grace"


def enqueue(name: str, *args: object, countdown: float | None = None) -> None:
    """Queue the task called ``name`` with ``args``; raises kombu's ``OperationalError`` when the
    broker cannot be reached (the callers log it: the sweeps queue the turn again)."""
    task = current_app.tasks[name]
    if countdown is None:
        task.delay(*args)
    else:
        task.apply_async(args, countdown=countdown)


def in_process() -> bool:
    """Whether tasks run at once in the caller's process (no broker): a countdown cannot wait there."""
    return bool(current_app.conf.task_always_eager)
