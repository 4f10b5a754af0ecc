"""The Celery app: broker and eager mode come from the Django settings; the task policy is here.

Run a worker with ``celery -A tute_api worker``. Without ``CELERY_BROKER_URL`` the settings turn on
``task_always_eager``, so tasks run in the calling process and no broker is needed.
"""

import os
from typing import Any

from celery import Celery
from celery.signals import task_postrun, task_prerun

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tute_api.settings")

app = Celery("tute_api")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.conf.update(
    # A task is acknowledged only once it has run, and given back to the queue if its worker dies,
    # so tasks must be idempotent; each worker process holds one message at a time.
    task_acks_late=True,
    task_reject_on_worker_lost=True,
    worker_prefetch_multiplier=1,
    task_serializer="json",
    result_serializer="json",
    accept_content=["json"],
    broker_connection_retry_on_startup=True,
)
app.autodiscover_tasks()


# A worker heals itself after a database restart (docs/reliability.md). Celery's Django fixup keeps a
# worker's connection for CELERY_DB_REUSE_MAX tasks without looking at it, so a connection that the
# server closed stayed in use and every later task failed ("the connection is closed"). Before and
# after every task run by a worker: a connection that met an error is closed if it no longer answers,
# and the task's first query checks its connection first (CONN_HEALTH_CHECKS), so no task runs on a
# dead one; a task that still meets the outage retries with backoff (games/turns/tasks.py RETRYING).
@task_prerun.connect
@task_postrun.connect
def check_connections(sender: Any = None, **kwargs: Any) -> None:
    if sender is not None and getattr(sender.request, "is_eager", False):
        return  # in process (tests, make run): the request's own connection handling applies
    heal_connections()


def heal_connections() -> None:
    """Close this thread's database connections that met an error and no longer answer; make the next
    query of each check its connection first."""
    from django.db import connections

    for conn in connections.all(initialized_only=True):
        if conn.connection is None:
            continue
        if conn.errors_occurred:
            if conn.is_usable():
                conn.errors_occurred = False
            else:
                conn.close()
                continue
        conn.health_check_done = False
