"""``make scalebench`` (scripts/scalebench.py) runs end to end: a small size against PostgreSQL.

The figures themselves are measured at a million matches by hand (docs/performance.md, "Scale"); this
only proves that the tool builds its database, fills it, measures every read and task, and drops it.
"""

from __future__ import annotations

import json
import subprocess
import sys

import psycopg
from django.conf import settings

from tests import services
from tute_api.settings import BASE_DIR


def test_a_small_scale_bench_fills_measures_every_read_and_task_and_drops_its_database() -> None:
    db = settings.DATABASES["default"]
    if not db["ENGINE"].endswith("postgresql"):
        services.missing("make scalebench needs PostgreSQL (DATABASE_URL); .ci/run sets it")
    server = f"postgres://{db.get('USER') or 'postgres'}@{db.get('HOST') or '127.0.0.1'}:{db.get('PORT') or 5432}"
    run = subprocess.run(
        [sys.executable, "scripts/scalebench.py", "--matches", "2000", "--samples", "3", "--task-samples", "1",
         "--server", server, "--json"],
        cwd=BASE_DIR, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    figures = json.loads(run.stdout)
    assert figures["rows"]["matches"] == 2000 and figures["rows"]["seats"] == 8000 and figures["rows"]["events"] > 0
    assert {"GET /matches/", "GET /matches/{finished}/replay", "GET /me/turns"} <= set(figures["reads"])
    beat = settings.CELERY_BEAT_SCHEDULE
    assert set(figures["tasks"]) == {f"{n} (every {e['schedule']:g} s)" for n, e in beat.items()}
    for entry in [*figures["reads"].values(), *figures["tasks"].values()]:
        assert 0 < entry["empty_p50_ms"] <= entry["empty_p95_ms"] and 0 < entry["full_p50_ms"] <= entry["full_p95_ms"]
    with psycopg.connect(f"{server}/postgres") as admin:
        left = admin.execute("SELECT datname FROM pg_database WHERE datname LIKE 'scalebench_%%'").fetchall()
    assert figures["database"] not in {name for (name,) in left}
