"""Celery tasks of the turn takers. Tasks take ids, call one service, and are idempotent.

Each keeps the name it had before the packages moved (``games.tasks.*``, ``rooms.tasks.*``), so that
messages already queued, the beat schedule and the queue routes of a running deployment still find
it; :mod:`.queue` queues them by those names.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task
from celery.signals import worker_ready
from django.db import DatabaseError

from . import builtin, http_bots, presence, queue

#: A task that plays or delivers a turn: acknowledged once done (a worker lost mid-task leaves it on
#: the queue), retried with backoff while the database is unreachable.
RETRYING: dict[str, Any] = {
    "acks_late": True,
    "autoretry_for": (DatabaseError,),
    "retry_backoff": 0.5,
    "retry_backoff_max": 10,
    "retry_jitter": True,
    "max_retries": 8,
}


@shared_task(name="games.tasks.ping")
def ping() -> str:
    """Answer ``"pong"``: proves a round trip through the broker and a worker."""
    return "pong"


@shared_task(name=queue.PLAY_BOT_TURNS, **RETRYING)
def play_bot_turns(match_id: str, seq: int) -> int:
    """Play the built-in bots' turns of a match that stands at ``seq``; a later seq makes it a no-op."""
    return builtin.bot_turns_play(match_id=match_id, seq=seq)


@shared_task(name="games.tasks.sweep_bot_turns")
def sweep_bot_turns(idle_seconds: float | None = None, again: bool = False) -> int:
    """Queue again the bot turns of matches idle on a bot's turn (run by Celery beat, and once by every
    worker that starts: see :func:`sweep_at_worker_start`)."""
    return builtin.bot_turns_sweep(idle_seconds=idle_seconds, again=again)


@worker_ready.connect
def sweep_at_worker_start(sender: Any = None, **kwargs: Any) -> None:
    """A worker that starts (a restart after a crash: its unacknowledged message may wait for the
    broker's visibility timeout) queues the turns of every match on a bot's turn at once."""
    sweep_bot_turns.apply_async(kwargs={"idle_seconds": 0, "again": True}, expires=60)


@shared_task(name=queue.DELIVER_TURN, **RETRYING)
def deliver_turn(match_id: str, seq: int) -> str:
    """Call the webhook bot that must act in a match standing at ``seq``; a later seq makes it a no-op."""
    return http_bots.turn_deliver(match_id=match_id, seq=seq)


@shared_task(name="games.tasks.sweep_webhook_turns")
def sweep_webhook_turns() -> int:
    """Queue again the webhook calls of matches idle on a webhook bot's turn, and play the stand-in move
    for the poll bots idle past their timeout whose expiry was lost (run by Celery beat)."""
    return http_bots.webhook_turns_sweep() + http_bots.poll_turns_sweep()


@shared_task(name=queue.EXPIRE_POLL_TURN, **RETRYING)
def expire_poll_turn(match_id: str, seq: int) -> bool:
    """Play the stand-in move for the poll bot to act at ``seq`` if its time is over; a later seq makes it
    a no-op."""
    return http_bots.poll_turn_expire(match_id=match_id, seq=seq)


@shared_task(name=queue.EXPIRE_GRACE, acks_late=True, autoretry_for=(DatabaseError,), retry_backoff=0.5, max_retries=5)
def expire_grace(match_id: str, seat: int, seq: int) -> bool:
    """The grace of a seat disconnected at ``seq`` is over: cancel the match, unless the seat came back,
    the match moved on to another disconnection or ended, or the grace is not over (an early run)."""
    return presence.grace_expire(match_id=match_id, seat=seat, seq=seq)


@shared_task(name="rooms.tasks.sweep_presence")
def sweep_presence() -> dict[str, Any]:
    """Disconnect silent seats, cancel matches whose grace ran out, play expired turn clocks (beat)."""
    return presence.sweep()
