"""Tests that need a real service (Redis, PostgreSQL, a broker): skipped without it, failed instead
where CI requires every service (``REQUIRE_WORKER_TESTS``, set by .ci/run)."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable
from typing import NoReturn

import pytest
from django.conf import settings


def missing(reason: str) -> NoReturn:
    """Skip the test for want of a service; fail it when every service is required."""
    if os.environ.get("REQUIRE_WORKER_TESTS"):
        pytest.fail(reason, pytrace=False)
    pytest.skip(reason)


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now (another test run on the machine may be listening too)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def redis_url() -> str:
    """The Redis that carries Celery's messages, which the live updates may use too."""
    url = settings.CELERY_BROKER_URL or ""
    if not url.startswith("redis://"):
        missing("NO REDIS CONFIGURED: set CELERY_BROKER_URL=redis://… to test live updates over Redis pub/sub")
    return url


def until(predicate: Callable[[], object], what: str, timeout: float = 5.0) -> None:
    """Wait until ``predicate()`` holds, polling; fail after ``timeout`` seconds, naming ``what``."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, f"waited {timeout} s for {what}"
        time.sleep(0.01)
