#!/usr/bin/env python3
"""Scale benchmark: every read endpoint and every periodic task, on an empty database and on one
grown to a million finished matches; p50/p95 at both sizes and their ratio (docs/scaling.md).

    make scalebench                                        # 1,000,000 finished matches
    make scalebench SCALEBENCH_ARGS="--matches 100000 --json"

It creates (and afterwards drops) a database of its own, ``scalebench_<pid>``, on the PostgreSQL
server of ``--server`` (default postgres://postgres@127.0.0.1:5432), migrates it and, through the
service's own code, plays the caller's matches: a few finished, one active on the caller's turn, one
with another human, a room, an idempotent request. Those are measured first (the "empty" size).
Then bulk SQL (``INSERT … SELECT … generate_series``, cloning those rows) adds ``--matches``
finished matches of ``--players`` other players (a second human at a third of them, with its
presence rows, a turn-clock table at a tenth), the events and hands of ``--events-share`` of them,
a token and a rating per player, a room per ten matches and an ``Idempotency-Key`` record per match
(all younger than the keys' lifetime); then VACUUM ANALYZE, and the same requests again. The
caller's own matches are the same at both sizes: what grows is everybody else's history.

Requests go through Django's test client in this process (no network, no server): what is timed is
the service's work and its queries, the part that could grow with history. The periodic tasks of
``CELERY_BEAT_SCHEDULE`` are called as the worker calls them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SERVER = "postgres://postgres@127.0.0.1:5432"


def _configure(url: str) -> None:
    """Production-like settings on the bench's database: DEBUG off, no throttle, no broker (tasks run
    in process, as CELERY_TASK_ALWAYS_EAGER does without one)."""
    os.environ.update(
        DATABASE_URL=url,
        DEBUG="false",
        SECRET_KEY="scalebench-" + os.urandom(16).hex(),
        ALLOWED_HOSTS="testserver",
        SECURE_SSL_REDIRECT="false",
        THROTTLE_RATE_ANON="1000000/s",
        THROTTLE_RATE_PLAYER="1000000/s",
        CELERY_BROKER_URL="",
        LIVE_UPDATES_URL="",
        CONN_MAX_AGE="600",
        DJANGO_SETTINGS_MODULE="tute_api.settings",
    )
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    import logging

    logging.disable(logging.WARNING)  # each eager task's line, the 4xx the bench asks for on purpose


# -- the caller's own matches, through the service ------------------------------------------------


class Api:
    def __init__(self) -> None:
        from django.test import Client

        self.client = Client()
        self.token = ""

    def call(self, method: str, path: str, body: Any = None, **headers: str) -> tuple[int, Any]:
        extra = {"HTTP_AUTHORIZATION": f"Bearer {self.token}"} if self.token else {}
        extra.update({f"HTTP_{k.upper()}": v for k, v in headers.items()})
        url = "/api/v1" + path
        if method == "GET":
            response = self.client.get(url, **extra)
        else:
            response = self.client.post(url, data=json.dumps(body), content_type="application/json", **extra)
        content = response.content
        return response.status_code, json.loads(content) if content and response.get("Content-Type", "").find(
            "json"
        ) >= 0 else None

    def ok(self, method: str, path: str, body: Any = None, **headers: str) -> Any:
        status, answer = self.call(method, path, body, **headers)
        if status >= 300:
            raise SystemExit(f"{method} {path}: {status} {answer}")
        return answer


def _player(name: str) -> Api:
    api = Api()
    answer = api.ok("POST", "/players/", {"username": name})
    api.token = answer["token"]
    api.player_id = answer["player"]["id"] if "player" in answer else answer["id"]  # type: ignore[attr-defined]
    return api


def _play_out(api: Api, match_id: str, until: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """Play the caller's first legal action until ``until(view)``; the bots answer in process."""
    for _ in range(2000):
        view = api.ok("GET", f"/matches/{match_id}")
        if until(view) or view["status"] in ("finished", "cancelled"):
            return view
        if view["legal_actions"]:
            api.ok("POST", f"/matches/{match_id}/actions", {**view["legal_actions"][0], "expected_seq": view["seq"]})
    raise SystemExit(f"match {match_id} did not end")


def fixtures() -> dict[str, Any]:
    """The caller's matches and the rows the fill clones."""
    caller, friend = _player("sb_caller"), _player("sb_friend")
    seats = [{"player": "me"}, {"bot": "level-1"}, {"bot": "level-1"}, {"bot": "level-1"}]
    finished = []
    for n in range(3):
        created = caller.ok(
            "POST", "/matches/", {"variant": "clasico", "options": {"games_to_win": 1}, "seats": seats},
            **{"Idempotency-Key": f"sb-{n}"},
        )  # fmt: skip
        finished.append(_play_out(caller, created["id"], lambda v: False)["id"])
    active = caller.ok("POST", "/matches/", {"variant": "clasico", "seats": seats, "public": True})
    _play_out(caller, active["id"], lambda v: v["seq"] > 10 and bool(v["legal_actions"]))
    created = caller.ok(
        "POST", "/matches/", {"variant": "dos", "seats": [{"player": "me"}, {"open": True}]}
    )
    pair = created["id"]
    friend.ok("POST", f"/matches/{pair}/join", {"invite_code": created["invite_code"]})
    room = caller.ok("POST", "/rooms/", {})
    from games.turns.models import Table  # a turn clock on the pair's match: the clock sweep has work

    Table.objects.create(match_id=pair, presence_timeout=3600, reconnect_grace=3600, turn_seconds=3600)
    return {
        "caller": caller, "friend": friend, "finished": finished, "active": active["id"], "pair": pair,
        "room": room["id"],
    }  # fmt: skip


# -- the fill: bulk SQL that clones the fixtures' rows ---------------------------------------------


def _columns(cursor: Any, table: str) -> list[str]:
    cursor.execute(
        "SELECT column_name, column_default FROM information_schema.columns WHERE table_name = %s "
        "ORDER BY ordinal_position",
        [table],
    )
    return [name for name, default in cursor.fetchall() if not (default or "").startswith(("nextval", "generated"))]


def _identity(cursor: Any, table: str) -> set[str]:
    cursor.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = %s AND is_identity = 'YES'", [table]
    )
    return {name for (name,) in cursor.fetchall()}


def _clone(cursor: Any, table: str, source: str, overrides: dict[str, str], where: str = "TRUE") -> int:
    """INSERT into ``table`` one row per row of ``source`` (a FROM clause in which ``t`` is a template
    row of ``table``), each column as in ``t`` unless ``overrides`` gives its SQL."""
    columns = [c for c in _columns(cursor, table) if c not in _identity(cursor, table)]
    exprs = [overrides.get(c, f't."{c}"') for c in columns]
    names = ", ".join(f'"{c}"' for c in columns)
    cursor.execute(f'INSERT INTO "{table}" ({names}) SELECT {", ".join(exprs)} FROM {source} WHERE {where}')
    return int(cursor.rowcount)


def fill(
    fixture: dict[str, Any], *, matches: int, players: int, events_share: float, say: Callable[[str], None]
) -> dict[str, int]:
    from django.db import connection

    caller = fixture["caller"].player_id
    template = fixture["finished"][0]
    n_events = max(1, int(matches * events_share))
    rows: dict[str, int] = {}
    with connection.cursor() as c:
        def step(name: str, fn: Callable[[], int]) -> None:
            start = time.perf_counter()
            rows[name] = fn()
            say(f"  {name}: {rows[name]:,} rows in {time.perf_counter() - start:.0f} s")

        c.execute("SET synchronous_commit = off")
        # The rows are consistent by construction: no foreign-key trigger per row (a superuser's setting).
        c.execute("SET session_replication_role = replica")
        c.execute("CREATE TEMP TABLE sb_p AS SELECT g, gen_random_uuid() id FROM generate_series(1, %s) g", [players])
        c.execute("CREATE UNIQUE INDEX ON sb_p (g)")
        c.execute(
            "CREATE TEMP TABLE sb_m AS SELECT g, gen_random_uuid() AS id, 1 + (g::bigint * 7919) %% %s AS p, "
            "1 + (g::bigint * 104729 + 1) %% %s AS q, g %% 3 = 0 AS pair, now() - g * interval '20 seconds' AS at "
            "FROM generate_series(1, %s) g",
            [players, players, matches],
        )
        c.execute("CREATE UNIQUE INDEX ON sb_m (g)")
        c.execute("ANALYZE sb_p; ANALYZE sb_m")
        step("players", lambda: _clone(
            c, "players_player", "players_player t, sb_p",
            {"id": "sb_p.id", "username": "'sb' || sb_p.g", "created_at": "now()"}, f"t.id = '{caller}'",
        ))  # fmt: skip
        step("tokens", lambda: _clone(
            c, "players_token", "players_token t, sb_p",
            {"player_id": "sb_p.id", "digest": "md5(sb_p.g::text) || md5('t' || sb_p.g)"},
            f"t.id = (SELECT min(id) FROM players_token WHERE player_id = '{caller}')",
        ))  # fmt: skip
        step("matches", lambda: _clone(
            c, "games_match", "games_match t, sb_m JOIN sb_p p ON p.g = sb_m.p",
            {"id": "sb_m.id", "created_by_id": "p.id", "created_at": "sb_m.at", "started_at": "sb_m.at",
             "updated_at": "sb_m.at + interval '9 minutes'", "finished_at": "sb_m.at + interval '9 minutes'"},
            f"t.id = '{template}'",
        ))  # fmt: skip
        step("seats", lambda: _clone(
            c, "games_seat", "games_seat t, sb_m JOIN sb_p p ON p.g = sb_m.p JOIN sb_p q ON q.g = sb_m.q",
            {"match_id": "sb_m.id",
             "player_id": "CASE WHEN t.number = 0 THEN p.id WHEN t.number = 2 AND sb_m.pair AND q.id <> p.id "
                          "THEN q.id END",
             "bot": "CASE WHEN t.number = 0 OR (t.number = 2 AND sb_m.pair AND q.id <> p.id) THEN '' ELSE t.bot END",
             "joined_at": "sb_m.at"},
            f"t.match_id = '{template}'",
        ))  # fmt: skip
        step("presences", lambda: _clone(
            c, "rooms_presence", "rooms_presence t, sb_m JOIN sb_p p ON p.g = sb_m.p JOIN sb_p q ON q.g = sb_m.q",
            {"match_id": "sb_m.id", "player_id": "CASE WHEN t.seat = 0 THEN p.id ELSE q.id END",
             "last_seen": "sb_m.at", "seat": "CASE WHEN t.seat = 0 THEN 0 ELSE 2 END"},
            f"t.match_id = '{fixture['pair']}' AND sb_m.pair AND q.id <> p.id",
        ))  # fmt: skip
        step("tables", lambda: _clone(
            c, "rooms_table", "rooms_table t, sb_m",
            {"match_id": "sb_m.id", "room_id": "NULL", "turn_seconds": "30"},
            f"t.match_id = '{fixture['pair']}' AND sb_m.g % 10 = 0",
        ))  # fmt: skip
        step("events", lambda: _clone(
            c, "games_event", "games_event t, sb_m",
            {"match_id": "sb_m.id", "created_at": "sb_m.at"},
            f"t.match_id = '{template}' AND sb_m.g <= {n_events}",
        ))  # fmt: skip
        step("hands", lambda: _clone(
            c, "games_hand", "games_hand t, sb_m", {"match_id": "sb_m.id"},
            f"t.match_id = '{template}' AND sb_m.g <= {n_events}",
        ))  # fmt: skip
        c.execute("SELECT count(*) FROM ratings_rating WHERE player_id = %s", [caller])
        if c.fetchone()[0]:
            step("ratings", lambda: _clone(
                c, "ratings_rating", "ratings_rating t, sb_p",
                {"player_id": "sb_p.id", "rating": "1500 + (sb_p.g * 37) % 700 - 350", "games": "1 + sb_p.g % 40"},
                f"t.id = (SELECT min(id) FROM ratings_rating WHERE player_id = '{caller}')",
            ))  # fmt: skip
        step("rooms", lambda: _clone(
            c, "rooms_room", "rooms_room t, sb_m JOIN sb_p p ON p.g = sb_m.p",
            {"id": "sb_m.id", "host_id": "p.id", "code": "'sb' || sb_m.g", "match_id": "sb_m.id", "closed": "TRUE",
             "created_at": "sb_m.at", "updated_at": "sb_m.at"},
            f"t.id = '{fixture['room']}' AND sb_m.g % 10 = 0",
        ))  # fmt: skip
        step("room members", lambda: _clone(
            c, "rooms_roommember", "rooms_roommember t, sb_m JOIN sb_p p ON p.g = sb_m.p",
            {"room_id": "sb_m.id", "player_id": "p.id", "joined_at": "sb_m.at"},
            f"t.id = (SELECT min(id) FROM rooms_roommember WHERE room_id = '{fixture['room']}') AND sb_m.g % 10 = 0",
        ))  # fmt: skip
        step("idempotency records", lambda: _clone(
            c, "games_idempotencyrecord", "games_idempotencyrecord t, sb_m JOIN sb_p p ON p.g = sb_m.p",
            {"player_id": "p.id", "key": "'sb-' || sb_m.g",
             "created_at": "now() - (sb_m.g % 80000) * interval '1 second'"},
            f"t.id = (SELECT min(id) FROM games_idempotencyrecord WHERE player_id = '{caller}')",
        ))  # fmt: skip
        c.execute("DROP TABLE sb_p; DROP TABLE sb_m; SET session_replication_role = DEFAULT")
    start = time.perf_counter()
    old = connection.connection.autocommit
    connection.connection.autocommit = True
    with connection.cursor() as c:
        c.execute("VACUUM ANALYZE")
    connection.connection.autocommit = old
    say(f"  VACUUM ANALYZE in {time.perf_counter() - start:.0f} s")
    return rows


# -- what is measured --------------------------------------------------------------------------------


def reads(fixture: dict[str, Any]) -> dict[str, Callable[[], Any]]:
    """Every read endpoint, as the caller (a player with the same matches at both sizes)."""
    caller = fixture["caller"]
    done, active, me = fixture["finished"][0], fixture["active"], caller.player_id
    signups = iter(range(10**9))

    def get(path: str) -> Callable[[], Any]:
        return lambda: caller.ok("GET", path)

    return {
        "GET /matches/": get("/matches/"),
        "GET /matches/?status=finished": get("/matches/?status=finished"),
        "GET /matches/?variant=clasico": get("/matches/?variant=clasico"),
        "GET /matches/?status=active&variant=clasico": get("/matches/?status=active&variant=clasico"),
        "GET /matches/?page_size=2&page=2": get("/matches/?page_size=2&page=2"),
        "GET /matches/{active}": get(f"/matches/{active}"),
        "GET /matches/{active}/events": get(f"/matches/{active}/events?after=0"),
        "GET /matches/{finished}/record": get(f"/matches/{done}/record"),
        "GET /matches/{finished}/replay": get(f"/matches/{done}/replay?seq=20"),
        "GET /matches/live": get("/matches/live"),
        "GET /me/turns": get("/me/turns"),
        "GET /players/me": get("/players/me"),
        "GET /players/{id} (profile)": get(f"/players/{me}"),
        "GET /leaderboards/clasico": get("/leaderboards/clasico"),
        "GET /rooms/": get("/rooms/"),
        "GET /ladder/leaderboard": get("/ladder/leaderboard"),
        "GET /ladder/runs/": get("/ladder/runs/"),
        "GET /bots/": get("/bots/"),
        "GET /variants/": get("/variants/"),
        "POST /players/ (sign-up: the username check)": lambda: Api().ok(
            "POST", "/players/", {"username": f"sb_new_{os.getpid()}_{next(signups)}"}
        ),
    }


def tasks() -> dict[str, Callable[[], Any]]:
    """Every task of the beat schedule, called as the worker calls it; with its period."""
    from django.conf import settings

    from tute_api.celery import app

    app.loader.import_default_modules()  # what a worker imports: every app's tasks
    found = {}
    for name, entry in settings.CELERY_BEAT_SCHEDULE.items():
        task = app.tasks[entry["task"]]
        found[f"{name} (every {entry['schedule']:g} s)"] = task.run
    return found


def measure(calls: dict[str, Callable[[], Any]], samples: int, warmup: int = 2) -> dict[str, dict[str, float]]:
    figures = {}
    for name, call in calls.items():
        for _ in range(warmup):
            call()
        times = []
        for _ in range(samples):
            start = time.perf_counter()
            call()
            times.append((time.perf_counter() - start) * 1000)
        times.sort()
        figures[name] = {
            "p50": statistics.median(times),
            "p95": times[min(len(times) - 1, max(0, round(0.95 * len(times)) - 1))],
        }
    return figures


def _periods() -> dict[str, float]:
    from django.conf import settings

    return {f"{n} (every {e['schedule']:g} s)": float(e["schedule"]) for n, e in settings.CELERY_BEAT_SCHEDULE.items()}


# -- the run -------------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=1_000_000, help="finished matches to add (1,000,000)")
    parser.add_argument("--players", type=int, default=0, help="their players (default: a tenth of --matches)")
    parser.add_argument("--events-share", type=float, default=0.02,
                        help="the share of the matches whose events and hands are stored too (0.02)")  # fmt: skip
    parser.add_argument("--samples", type=int, default=40, help="timed calls of each read (40)")
    parser.add_argument("--task-samples", type=int, default=10, help="timed runs of each periodic task (10)")
    parser.add_argument("--server", default=os.environ.get("SCALEBENCH_SERVER", DEFAULT_SERVER))
    parser.add_argument("--keep", action="store_true", help="do not drop the database afterwards")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    players = args.players or max(10, args.matches // 10)
    say = (lambda text: print(text, file=sys.stderr, flush=True)) if args.json else (lambda t: print(t, flush=True))

    import psycopg

    database = f"scalebench_{os.getpid()}"
    with psycopg.connect(f"{args.server}/postgres", autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{database}"')
    started = time.perf_counter()
    try:
        _configure(f"{args.server}/{database}")
        from django.core.management import call_command
        from django.db import connection

        call_command("migrate", verbosity=0, interactive=False)
        say(f"database {database}: migrated; playing the caller's matches")
        fixture = fixtures()
        with connection.cursor() as c:
            c.execute("VACUUM ANALYZE") if connection.connection.autocommit else None
        reads_, tasks_ = reads(fixture), tasks()
        say("measuring the empty database")
        empty = {"reads": measure(reads_, args.samples), "tasks": measure(tasks_, args.task_samples)}
        say(f"filling: {args.matches:,} finished matches, {players:,} players")
        fill_start = time.perf_counter()
        rows = fill(fixture, matches=args.matches, players=players, events_share=args.events_share, say=say)
        fill_seconds = time.perf_counter() - fill_start
        with connection.cursor() as c:
            c.execute("SELECT pg_database_size(current_database())")
            size_bytes = c.fetchone()[0]
            c.execute(
                "SELECT relname, pg_total_relation_size(oid) FROM pg_class WHERE relname IN "
                "('games_match', 'games_event', 'games_seat', 'games_hand', 'games_idempotencyrecord')"
            )
            tables = dict(c.fetchall())
        say("measuring the full database")
        full = {"reads": measure(reads_, args.samples), "tasks": measure(tasks_, args.task_samples)}
    finally:
        from django.db import connections

        connections.close_all()
        if not args.keep:
            with psycopg.connect(f"{args.server}/postgres", autocommit=True) as admin:
                admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
    periods = _periods()
    result: dict[str, Any] = {
        "database": database, "matches": args.matches, "players": players, "events_share": args.events_share,
        "rows": rows,
        "fill_seconds": round(fill_seconds, 1), "total_seconds": round(time.perf_counter() - started, 1),
        "database_bytes": size_bytes, "table_bytes": tables, "load": list(os.getloadavg()),
        "reads": {}, "tasks": {},
    }  # fmt: skip
    for kind in ("reads", "tasks"):
        for name, before in empty[kind].items():
            after = full[kind][name]
            entry = {
                "empty_p50_ms": round(before["p50"], 2), "empty_p95_ms": round(before["p95"], 2),
                "full_p50_ms": round(after["p50"], 2), "full_p95_ms": round(after["p95"], 2),
                "p95_ratio": round(after["p95"] / before["p95"], 2) if before["p95"] else None,
            }  # fmt: skip
            if kind == "tasks":
                entry["period_share"] = round(after["p95"] / 1000 / periods[name], 4)
            result[kind][name] = entry
    reads_ok = all(e["p95_ratio"] is not None and e["p95_ratio"] <= 2 for e in result["reads"].values())
    tasks_ok = all(e["period_share"] < 0.1 for e in result["tasks"].values())
    result["targets"] = {"reads_p95_within_2x": reads_ok, "tasks_under_a_tenth_of_period": tasks_ok}
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"\n{args.matches:,} finished matches, {players:,} players, {rows.get('events', 0):,} events; "
          f"database {size_bytes / 2**20:,.0f} MB; fill {fill_seconds:.0f} s; "
          f"load {os.getloadavg()[0]:.2f}")  # fmt: skip
    print(f"{'':52} {'empty p50':>9} {'p95':>8} {'full p50':>9} {'p95':>8} {'ratio':>6}")
    for kind in ("reads", "tasks"):
        for name, e in result[kind].items():
            extra = f"  {e['period_share']:.2%} of its period" if kind == "tasks" else ""
            print(f"{name[:52]:52} {e['empty_p50_ms']:9.1f} {e['empty_p95_ms']:8.1f} {e['full_p50_ms']:9.1f} "
                  f"{e['full_p95_ms']:8.1f} {e['p95_ratio'] or 0:6.2f}{extra}")  # fmt: skip
    print(f"targets: reads p95 within 2x: {reads_ok}; tasks under a tenth of their period: {tasks_ok}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
