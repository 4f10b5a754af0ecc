"""Celery tasks of the matches. Tasks take ids, call one service, and are idempotent."""

from __future__ import annotations

from celery import shared_task

from . import idempotency


@shared_task(name="games.tasks.purge_idempotency_records")
def purge_idempotency_records() -> int:
    """Forget the answers to ``Idempotency-Key`` requests older than the keys' lifetime (Celery beat)."""
    return idempotency.idempotency_records_purge()
