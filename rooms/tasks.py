"""Celery tasks of the rooms app: presence timers. They take ids, call a service, and are idempotent."""

from __future__ import annotations

from typing import Any

from celery import shared_task
from django.db import DatabaseError

from . import presence


@shared_task(acks_late=True, autoretry_for=(DatabaseError,), retry_backoff=0.5, max_retries=5)
def expire_grace(match_id: str, seat: int, seq: int) -> bool:
    """The grace of a seat disconnected at ``seq`` is over: cancel the match, unless the seat came back,
    the match moved on to another disconnection or ended, or the grace is not over (an early run)."""
    return presence.grace_expire(match_id=match_id, seat=seat, seq=seq)


@shared_task
def sweep_presence() -> dict[str, Any]:
    """Disconnect silent seats, cancel matches whose grace ran out, play expired turn clocks (beat)."""
    return presence.sweep()
