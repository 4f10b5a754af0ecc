"""The Celery app's policy, the ping task, and a real worker running what a test enqueues."""

import time

import pytest
from django.conf import settings
from django.contrib.auth.models import Group

from games.turns.tasks import ping
from tests import services
from tests.worker_tasks import create_group
from tute_api.celery import app


def test_task_policy_is_late_ack_one_at_a_time_json_only():
    assert app.conf.task_acks_late is True
    assert app.conf.task_reject_on_worker_lost is True
    assert app.conf.worker_prefetch_multiplier == 1
    assert app.conf.task_serializer == "json"
    assert app.conf.result_serializer == "json"
    assert app.conf.accept_content == ["json"]


def test_tasks_run_in_process_exactly_when_no_broker_is_configured():
    assert app.conf.task_always_eager is (settings.CELERY_BROKER_URL is None)


def test_ping_task_is_autodiscovered_and_answers_pong():
    assert "games.tasks.ping" in app.tasks
    assert ping.apply().get() == "pong"


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_worker_runs_an_enqueued_task(celery_worker):
    if not settings.CELERY_RESULT_BACKEND:
        services.missing("NO RESULT BACKEND: set CELERY_RESULT_BACKEND to read task results.")
    assert ping.delay().get(timeout=20) == "pong"


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_worker_writes_to_the_test_database(celery_worker):
    create_group.delay("written-by-the-worker")
    deadline = time.monotonic() + 20
    while not Group.objects.filter(name="written-by-the-worker").exists():
        assert time.monotonic() < deadline, "the worker did not write the row within 20 s"
        time.sleep(0.1)
