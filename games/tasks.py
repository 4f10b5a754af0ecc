"""Celery tasks of the games app. Tasks take ids, call a service, and are idempotent."""

from __future__ import annotations

from celery import shared_task
from django.db import DatabaseError

from . import services, turns


@shared_task
def ping() -> str:
    """Answer ``"pong"``: proves a round trip through the broker and a worker."""
    return "pong"


@shared_task(
    acks_late=True,
    autoretry_for=(DatabaseError,),
    retry_backoff=0.5,
    retry_backoff_max=10,
    retry_jitter=True,
    max_retries=8,
)
def play_bot_turns(match_id: str, seq: int) -> int:
    """Play the built-in bots' turns of a match that stands at ``seq``; a later seq makes it a no-op."""
    return services.bot_turns_play(match_id=match_id, seq=seq)


@shared_task
def sweep_bot_turns() -> int:
    """Queue again the bot turns of matches idle on a bot's turn (run by Celery beat)."""
    return services.bot_turns_sweep()


@shared_task(
    acks_late=True,
    autoretry_for=(DatabaseError,),
    retry_backoff=0.5,
    retry_backoff_max=10,
    retry_jitter=True,
    max_retries=8,
)
def deliver_turn(match_id: str, seq: int) -> str:
    """Call the webhook bot that must act in a match standing at ``seq``; a later seq makes it a no-op."""
    return turns.turn_deliver(match_id=match_id, seq=seq)


@shared_task
def sweep_webhook_turns() -> int:
    """Queue again the webhook calls of matches idle on a webhook bot's turn (run by Celery beat)."""
    return turns.webhook_turns_sweep()
