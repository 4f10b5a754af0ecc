#!/usr/bin/env python3
"""Queue benchmark: N players queueing over a minute for ``clasico`` and ``dos`` (half each), against the
service under gunicorn on PostgreSQL with a real Celery worker and beat on Redis.

    make queuebench                                   # 1,000 players over 60 s
    make queuebench QUEUEBENCH_ARGS="--players 200 --seconds 20 --max-wait 5"

Its own database (``--database``, default ``tute_queuebench``, dropped afterwards), Redis database 2, the
Celery queue ``queuebench-<database>``. The players are created first (not timed); then each one posts
``POST /queue/`` at its moment, spread evenly over ``--seconds``. The figures, from the queue's rows:
time from queueing to seated (``seated_at - entered_at``), p50/p99 for players seated at tables of
humans only and at tables that bots completed; tables with bots; players seated twice (0 expected); players
never seated; the client's POST latency; the machine's load.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import loadtest  # noqa: E402  (the load test's client, PostgreSQL admin and process helpers)
from loadtest import HOST, PG, REDIS_URL, Client, percentile, pg_admin, stop, wait_ready  # noqa: E402

ROOT = loadtest.ROOT


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=60.0, help="the players arrive over this many seconds")
    parser.add_argument("--max-wait", type=float, default=20.0, help="QUEUE_MAX_WAIT_SECONDS (default 20)")
    parser.add_argument("--database", default="tute_queuebench")
    parser.add_argument("--port", type=int, default=8771)
    parser.add_argument("--web-workers", type=int, default=3)
    parser.add_argument("--web-threads", type=int, default=6)
    parser.add_argument("--client-threads", type=int, default=16)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    python = sys.executable
    env = {
        **os.environ,
        "DEBUG": "false",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": HOST,
        "SECURE_SSL_REDIRECT": "false",
        "DATABASE_URL": f"postgres://{PG['user']}@{HOST}:{PG['port']}/{args.database}",
        "DATABASE_POOL_SIZE": str(args.web_threads),
        "CELERY_BROKER_URL": REDIS_URL,
        "CELERY_RESULT_BACKEND": "",
        "CELERY_QUEUE": f"queuebench-{args.database}",
        "LIVE_UPDATES_URL": REDIS_URL,
        "LOG_LEVEL": "WARNING",
        "PYTHONUNBUFFERED": "1",
        "THROTTLE_RATE_PLAYER": "1000/s",
        "THROTTLE_RATE_ANON": "100000/min",
        "QUEUE_MAX_WAIT_SECONDS": str(args.max_wait),
        "QUEUE_GONE_SECONDS": "3600",  # the players post once and do not poll: none is taken out
    }
    (ROOT / "var").mkdir(exist_ok=True)
    log = open(ROOT / "var" / "queuebench.log", "wb")  # noqa: SIM115 - kept open for the subprocesses
    pg_admin(f'DROP DATABASE IF EXISTS "{args.database}"')
    pg_admin(f'CREATE DATABASE "{args.database}"')
    started: list[subprocess.Popen[bytes]] = []
    try:
        subprocess.run([python, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True)
        subprocess.run([python, "-m", "celery", "-A", "tute_api", "purge", "-f"], cwd=ROOT, env=env,
                       check=True, stdout=subprocess.DEVNULL)  # fmt: skip
        celery = [python, "-m", "celery", "-A", "tute_api"]
        started.append(subprocess.Popen(
            [*celery, "worker", "--loglevel=WARNING", "--concurrency=2", "--without-gossip", "--without-mingle",
             "--without-heartbeat", "--hostname", f"queuebench-{os.getpid()}@%h"],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        ))  # fmt: skip
        started.append(subprocess.Popen(
            [*celery, "beat", "--loglevel=WARNING", "-s", str(ROOT / "var" / f"queuebench-beat-{os.getpid()}")],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        ))  # fmt: skip
        started.append(subprocess.Popen(
            [python, "-m", "gunicorn", "tute_api.asgi:application", "--bind", f"{HOST}:{args.port}",
             "--workers", str(args.web_workers), "--threads", str(args.web_threads)],
            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
        ))  # fmt: skip
        wait_ready(args.port)
        figures = run(args)
    finally:
        for process in reversed(started):
            stop(process)
        figures_db = None
        try:
            figures_db = measure(args.database, args.max_wait)
        finally:
            pg_admin(f'DROP DATABASE IF EXISTS "{args.database}"')
    figures.update(figures_db or {})
    figures["load_after"] = os.getloadavg()
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for key, value in figures.items():
            print(f"{key:>28}: {value}")


def run(args: argparse.Namespace) -> dict[str, object]:
    tokens: list[str] = []
    errors: list[str] = []
    maker = Client(args.port)
    for n in range(args.players):
        status, body = maker.call("POST", "/api/v1/players/", {"username": f"queue{n}-{secrets.token_hex(3)}"})
        if status != 201:
            errors.append(f"create player: {status} {body}")
            continue
        tokens.append(body["token"])
    load_before = os.getloadavg()
    start = time.monotonic() + 1.0
    latencies: list[float] = []
    lock = threading.Lock()
    turns = iter(range(len(tokens)))

    def client() -> None:
        http = Client(args.port)
        for n in turns:
            at = start + n * args.seconds / max(len(tokens), 1)
            if at - time.monotonic() > 1.0:  # the server closes an idle kept-alive connection: a fresh one
                http = Client(args.port)
            time.sleep(max(0.0, at - time.monotonic()))
            http.token = tokens[n]
            variant = "dos" if n % 2 else "clasico"
            sent = time.perf_counter()
            try:
                status, body = http.call("POST", "/api/v1/queue/", {"variant": variant, "options": {"games_to_win": 1}})
            except OSError as exc:  # counted, never lost with the thread
                status, body = 0, repr(exc)
                http = Client(args.port)
            with lock:
                latencies.append(time.perf_counter() - sent)
                if status != 201:
                    errors.append(f"queue: {status} {body}")

    threads = [threading.Thread(target=client) for _ in range(args.client_threads)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    arrived = time.monotonic() - start
    time.sleep(args.max_wait + 3.0)  # the last players' wait, then the bots
    return {
        "players": len(tokens),
        "arrival_seconds": round(arrived, 1),
        "post_queue_p50_ms": round(percentile(latencies, 50) * 1000, 1),
        "post_queue_p99_ms": round(percentile(latencies, 99) * 1000, 1),
        "errors": len(errors),
        "first_errors": errors[:3],
        "load_before": load_before,
    }


def measure(database: str, max_wait: float) -> dict[str, object]:
    import psycopg

    with psycopg.connect(dbname=database, connect_timeout=5, **PG) as conn:
        rows = conn.execute(
            "SELECT q.player_id, q.match_id, EXTRACT(EPOCH FROM q.seated_at - q.entered_at), q.variant "
            "FROM lobby_queueentry q"
        ).fetchall()
        bots = dict(conn.execute(
            "SELECT match_id, COUNT(*) FROM games_seat WHERE bot <> '' GROUP BY match_id"
        ).fetchall())  # fmt: skip
        seats = Counter(p for (p,) in conn.execute("SELECT player_id FROM games_seat WHERE player_id IS NOT NULL"))
    seated = [r for r in rows if r[1] is not None]
    humans = [float(r[2]) for r in seated if r[1] not in bots]
    botted = [float(r[2]) for r in seated if r[1] in bots]
    by_variant = Counter(r[3] for r in seated)
    return {
        "seated": len(seated),
        "never_seated": len(rows) - len(seated),
        "seated_twice": sum(1 for count in seats.values() if count > 1),
        "seated_by_variant": dict(by_variant),
        "matches": len({r[1] for r in seated}),
        "tables_with_bots": len({r[1] for r in seated if r[1] in bots}),
        "humans_tables_p50_s": round(percentile(humans, 50), 3) if humans else None,
        "humans_tables_p99_s": round(percentile(humans, 99), 3) if humans else None,
        "bot_tables_p50_s": round(percentile(botted, 50), 3) if botted else None,
        "bot_tables_p99_s": round(percentile(botted, 99), 3) if botted else None,
        "bot_tables_target_s": max_wait + 1,
    }


if __name__ == "__main__":
    main()
