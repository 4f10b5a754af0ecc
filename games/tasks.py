"""Celery tasks of the games app. Tasks take ids, call a service, and are idempotent."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.db import DatabaseError

from . import services, turns

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


@shared_task
def ping() -> str:
    """Answer ``"pong"``: proves a round trip through the broker and a worker."""
    return "pong"


@shared_task(**RETRYING)
def play_bot_turns(match_id: str, seq: int) -> int:
    """Play the built-in bots' turns of a match that stands at ``seq``; a later seq makes it a no-op."""
    return services.bot_turns_play(match_id=match_id, seq=seq)


@shared_task
def sweep_bot_turns() -> int:
    """Queue again the bot turns of matches idle on a bot's turn (run by Celery beat)."""
    return services.bot_turns_sweep()


@shared_task(**RETRYING)
def deliver_turn(match_id: str, seq: int) -> str:
    """Call the webhook bot that must act in a match standing at ``seq``; a later seq makes it a no-op."""
    return turns.turn_deliver(match_id=match_id, seq=seq)


@shared_task
def sweep_webhook_turns() -> int:
    """Queue again the webhook calls of matches idle on a webhook bot's turn, and play a level-2 move for
    the poll bots idle past their timeout whose expiry was lost (run by Celery beat)."""
    return turns.webhook_turns_sweep() + turns.poll_turns_sweep()


@shared_task(**RETRYING)
def expire_poll_turn(match_id: str, seq: int) -> bool:
    """Play a level-2 move for the poll bot to act at ``seq`` if its time is over; a later seq makes it a no-op."""
    return turns.poll_turn_expire(match_id=match_id, seq=seq)


@shared_task
def purge_idempotency_records() -> int:
    """Forget the answers to ``Idempotency-Key`` requests older than the keys' lifetime (Celery beat)."""
    return services.idempotency_records_purge()
