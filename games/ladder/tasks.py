"""Celery tasks of the ladder. Tasks take ids, call one service, and are idempotent."""

from __future__ import annotations

from celery import shared_task

from . import services


@shared_task(name="ladder.tasks.sweep_runs")
def sweep_runs() -> int:
    """Advance the runs whose match ended but whose advance was lost (Celery beat)."""
    return services.runs_sweep()
