"""Celery tasks of play-now. Tasks take ids (a pool's key), call one service, and are idempotent."""

from __future__ import annotations

from celery import shared_task

from . import services


@shared_task(name=services.PAIR_QUEUE)
def pair_queue(pool: str) -> int:
    """Seat the pool's players who may sit together now (queued on each entry, on commit)."""
    return len(services.queue_pair(pool=pool))


@shared_task(name="lobby.tasks.sweep_queue")
def sweep_queue() -> dict[str, int]:
    """Celery beat, every second: drop players gone silent, pair every pool (bots after the maximum wait)."""
    return services.queue_sweep()
