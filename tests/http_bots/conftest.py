"""Fixtures of the bots-over-HTTP tests: tasks in process, loopback webhooks allowed, and every
match replaying to its snapshot (``bot_fallback`` events included)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from games.matches.models import Match
from games.turns.tasks import deliver_turn
from tests.games.conftest import assert_replays_to_snapshot

from .helpers import Receiver


@pytest.fixture(autouse=True)
def tasks_in_process_and_loopback_webhooks(request: pytest.FixtureRequest, settings: Any) -> Iterator[None]:
    """Tasks run in process even when CI configures a broker (except under a real worker);
    webhooks may call 127.0.0.1 (in this process: a worker has its own settings)."""
    settings.BOT_WEBHOOK_ALLOW_PRIVATE = True
    if "celery_worker" in request.fixturenames:
        yield
        return
    app = deliver_turn.app
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        yield
    finally:
        app.conf.task_always_eager = eager


@pytest.fixture(autouse=True)
def every_match_replays_to_its_snapshot(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    if request.node.get_closest_marker("django_db"):
        for match in Match.objects.exclude(state__isnull=True):
            assert_replays_to_snapshot(match)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    webhook = Receiver()
    yield webhook
    webhook.close()
