"""Celery tasks of the games app. Tasks take ids and call a service; later: bot turns, timers."""

from celery import shared_task


@shared_task
def ping() -> str:
    """Answer ``"pong"``: proves a round trip through the broker and a worker."""
    return "pong"
