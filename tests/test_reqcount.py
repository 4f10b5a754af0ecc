"""``make reqcount`` (scripts/reqcount.py) works end to end: short runs against PostgreSQL and Redis.

The figures themselves are read by hand (docs/performance.md); this proves that the tool plays the requests
of each kind through the application, counts their instructions under valgrind, and cleans up.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import psycopg
import pytest
from django.conf import settings

from tests import services
from tute_api.settings import BASE_DIR

DATABASE = f"tute_reqcount_ci_{os.getpid()}"


def _reqcount(*args: str) -> dict[str, object]:
    postgres = settings.DATABASES["default"]["ENGINE"].endswith("postgresql")
    if not postgres:
        services.missing("make reqcount needs PostgreSQL (DATABASE_URL)")
    run = subprocess.run([sys.executable, "scripts/reqcount.py", "--database", DATABASE, "--json", *args],
                         cwd=BASE_DIR, capture_output=True, text=True, timeout=280)  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    with psycopg.connect(dbname="postgres", host="127.0.0.1", user="postgres", autocommit=True) as conn:
        left = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [DATABASE]).fetchone()
    assert left is None, "the bench's database was dropped"
    return json.loads(run.stdout)


@pytest.mark.parametrize("kind", ["get", "action"])
def test_each_kind_is_played_through_the_application(kind: str) -> None:
    figures = _reqcount("--kind", kind, "--steps", "30", "--no-valgrind")
    assert figures["kind"] == kind and figures["steps"] == 30
    assert 0 < figures["cpu_ms_per_step"] < 1000, figures
    # The collector settled as a server's: no collection within the steps (one in 30 with Python's defaults).
    assert figures["collections"] == 0, figures


def test_valgrind_counts_the_instructions_of_the_requests() -> None:
    if shutil.which("valgrind") is None:
        services.missing("valgrind is not installed")
    figures = _reqcount("--kind", "get", "--steps", "3", "--warm-up", "3")
    assert figures["instructions_total"] > figures["instructions_of_0_steps"] > 0, figures
    assert figures["collections"] == 0, figures
    assert 100_000 < figures["instructions_per_step"] < 1_000_000_000, figures
    # Counted from the end of the warm-up on: the run of 0 steps counts its exit, not Django's start.
    assert figures["instructions_of_0_steps"] < 3 * figures["instructions_per_step"], figures
