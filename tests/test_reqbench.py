"""``make reqbench`` (scripts/reqbench.py) works end to end: a short run against PostgreSQL and Redis.

The figures themselves are measured by hand on a quiet machine (docs/performance.md); this only proves
that the tool starts one server process and a worker, sends each kind of request, reports the server's
CPU per request and cleans up.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import psycopg
import pytest
from django.conf import settings

from tests import services
from tute_api.settings import BASE_DIR

DATABASE = f"tute_reqbench_ci_{os.getpid()}"


@pytest.mark.worker
def test_a_short_request_bench_reports_the_cpu_of_each_kind_of_request() -> None:
    postgres = settings.DATABASES["default"]["ENGINE"].endswith("postgresql")
    if not (postgres and (settings.CELERY_BROKER_URL or "").startswith("redis://")):
        services.missing("make reqbench needs PostgreSQL and Redis (DATABASE_URL, CELERY_BROKER_URL)")
    run = subprocess.run(
        [sys.executable, "scripts/reqbench.py", "--requests", "20", "--rounds", "2", "--port",
         str(services.free_port()), "--database", DATABASE, "--json"],
        cwd=BASE_DIR, capture_output=True, text=True, timeout=240,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    figures = json.loads(run.stdout)
    cpu = figures["cpu_ms_per_request"]
    assert set(cpu) == {"get", "poll", "events", "move", "action"} and figures["rounds"] == 2
    assert all(len(kind["web_rounds"]) == 2 for kind in cpu.values()), cpu
    # The level-1 bots play inside the action (BOT_LEVELS_IN_PROCESS): the worker's share is read, not required.
    assert cpu["action"]["web"] > 0 and cpu["action"]["worker"] >= 0, cpu
    with psycopg.connect(dbname="postgres", host="127.0.0.1", user="postgres", autocommit=True) as admin:
        left = admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", [DATABASE]).fetchall()
    assert left == []  # dropped
