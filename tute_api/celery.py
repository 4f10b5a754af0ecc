"""The Celery app: broker and eager mode come from the Django settings; the task policy is here.

Run a worker with ``celery -A tute_api worker``. Without ``CELERY_BROKER_URL`` the settings turn on
``task_always_eager``, so tasks run in the calling process and no broker is needed.
"""

import os

from celery import Celery

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
