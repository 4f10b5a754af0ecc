"""``make loadtest`` (scripts/loadtest.py) works end to end: a short run against PostgreSQL and Redis.

The figures themselves are measured by hand on a quiet machine (docs/performance.md); this only
proves that the tool starts the service, plays, reports and cleans up.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from django.conf import settings

from tests import services
from tute_api.settings import BASE_DIR

# Of this test run alone: another run on the machine (another checkout's CI) may be load testing too.
DATABASE = f"tute_loadtest_ci_{os.getpid()}"


def _services_or_skip() -> None:
    postgres = settings.DATABASES["default"]["ENGINE"].endswith("postgresql")
    redis = (settings.CELERY_BROKER_URL or "").startswith("redis://")
    if postgres and redis:
        return
    services.missing("make loadtest needs PostgreSQL and Redis (DATABASE_URL, CELERY_BROKER_URL); .ci/run sets them")


@pytest.mark.worker
def test_a_short_load_test_plays_without_errors_and_reports_its_figures() -> None:
    _services_or_skip()
    run = subprocess.run(
        [sys.executable, "scripts/loadtest.py", "--clients", "2", "--seconds", "6", "--warmup", "1",
         "--port", str(services.free_port()), "--database", DATABASE, "--json"],
        cwd=BASE_DIR, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    figures = json.loads(run.stdout)
    assert figures["errors"] == 0 and figures["actions"] > 0
    latency = figures["latency_ms"]
    assert 0 < latency["p50"] <= latency["p95"] <= latency["p99"] <= latency["max"]
    assert figures["server"]["client_processes"] == 2 and figures["cpu_ms_per_action"]["web"] > 0
    assert figures["cpu_ms_per_action"]["clients"] > 0 and 0 <= figures["machine"]["clients_share"] < 1


@pytest.mark.worker
def test_clients_that_think_before_each_action_play_no_faster_than_they_think() -> None:
    _services_or_skip()
    run = subprocess.run(
        [sys.executable, "scripts/loadtest.py", "--clients", "2", "--seconds", "5", "--warmup", "1",
         "--think-ms", "200", "--port", str(services.free_port()), "--database", DATABASE, "--json"],
        cwd=BASE_DIR, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    figures = json.loads(run.stdout)
    assert figures["errors"] == 0 and figures["actions"] > 0 and figures["think_ms"] == 200
    assert figures["actions_per_second"] <= 2 / 0.2  # two clients, each pausing 0.2 s before every action
