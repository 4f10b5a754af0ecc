#!/usr/bin/env python3
"""Chaos: mixed play against the production stack on services of its own, with faults at random.

    make chaos                                       # 5 minutes, 20 clients, every kind of fault
    make chaos CHAOS_ARGS="--minutes 0.5 --faults worker,broker --json"

It starts a PostgreSQL cluster and two redis-servers of its own (tests/faults/services.py: one the
Celery broker, one the cache and the live updates, as docker-compose.yml's CACHE_URL), gunicorn
(gunicorn.conf.py, DEBUG=false), two Celery workers and beat (tests/faults/bot_stack.py). The clients:
two thirds play a human against bots (``dos``), the others pair up, human against human. Every
``--every`` seconds or so a fault is injected: ``worker`` (SIGKILL of a worker, started again 2 s later,
as a supervisor does), ``postgres`` (stopped, started 10 s later), ``redis`` (the cache's Redis, the
same), ``broker`` (the broker's Redis, the same). For each fault it prints: when, the requests in the
window up to the next fault, the answers by status (``error``: no answer), the longest stall (a client
waiting for its match to move on, or for an answer), and the acknowledged actions lost: an action
answered 200 whose match's event log, read at the end, does not reach that answer's seq, or has a gap
or a duplicate. Exit status 1 if any was lost or any answer was a 5xx other than 503.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.faults.bot_stack import Client, Stack  # noqa: E402
from tests.faults.services import Postgres, Redis  # noqa: E402

FAULTS = ("worker", "postgres", "redis", "broker")
OUTAGE_SECONDS = 10.0


@dataclass
class Record:
    """What the clients saw: (time, status) of every request, stalls, acknowledged actions."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    answers: list[tuple[float, str]] = field(default_factory=list)
    stalls: list[tuple[float, float]] = field(default_factory=list)  # (end, seconds)
    acknowledged: list[tuple[float, str, int]] = field(default_factory=list)  # (time, match, seq)
    matches: set[str] = field(default_factory=set)

    def answer(self, status: str) -> None:
        with self.lock:
            self.answers.append((time.monotonic(), status))


class Player:
    def __init__(self, port: int, record: Record, name: str, rng: random.Random) -> None:
        self.client, self.record, self.rng = Client(port, timeout=30), record, rng
        self.progress = time.monotonic()
        while True:
            try:
                self.client.new_player(name)
                return
            except (AssertionError, OSError):
                time.sleep(0.5)

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        try:
            status, answer = self.client.call(method, path, body)
        except OSError:
            self.record.answer("error")
            return 0, None
        self.record.answer(str(status))
        return status, answer

    def moved(self) -> None:
        now = time.monotonic()
        with self.record.lock:
            self.record.stalls.append((now, now - self.progress))
        self.progress = now

    def play(self, match_id: str, deadline: float) -> None:
        self.record.matches.add(match_id)
        seq = -1
        while time.monotonic() < deadline:
            status, view = self.call("GET", f"/api/v1/matches/{match_id}?after={max(seq, 0)}&wait=2")
            if status != 200:
                time.sleep(0.5)
                continue
            if view["seq"] != seq:
                seq = view["seq"]
                self.moved()
            if view["status"] != "active":
                return
            if not view["legal_actions"]:
                continue
            time.sleep(self.rng.uniform(0.1, 0.4))  # a player choosing a card
            action = {**self.rng.choice(view["legal_actions"]), "expected_seq": view["seq"]}
            status, answer = self.call("POST", f"/api/v1/matches/{match_id}/actions", action)
            if status == 200:
                with self.record.lock:
                    self.record.acknowledged.append((time.monotonic(), match_id, answer["seq"]))
            elif status in (0, 503) or status >= 500:
                time.sleep(0.5)


def against_bots(port: int, record: Record, number: int, deadline: float) -> None:
    player = Player(port, record, f"chaos{number}", random.Random(number))
    while time.monotonic() < deadline:
        status, view = player.call("POST", "/api/v1/matches/", {
            "variant": "dos", "seats": [{"player": "me"}, {"bot": "level-1"}]})  # fmt: skip
        if status != 201:
            time.sleep(0.5)
            continue
        player.play(view["id"], deadline)


def pair(port: int, record: Record, number: int, deadline: float) -> None:
    host = Player(port, record, f"host{number}", random.Random(number))
    guest = Player(port, record, f"guest{number}", random.Random(number + 1000))
    while time.monotonic() < deadline:
        status, view = host.call("POST", "/api/v1/matches/", {
            "variant": "dos", "seats": [{"player": "me"}, {"open": True}]})  # fmt: skip
        if status != 201:
            time.sleep(0.5)
            continue
        joined = 0
        while joined != 200 and time.monotonic() < deadline:
            joined, _ = guest.call("POST", f"/api/v1/matches/{view['id']}/join", {"invite_code": view["invite_code"]})
            if joined not in (200, 201):
                time.sleep(0.5)
            else:
                joined = 200
        other = threading.Thread(target=guest.play, args=(view["id"], deadline))
        other.start()
        host.play(view["id"], deadline)
        other.join()


def inject(kind: str, stack: Stack, pg: Postgres, cache: Redis, broker: Redis, rng: random.Random) -> None:
    if kind == "worker":
        number = rng.randrange(len(stack.workers))
        stack.kill_worker(number)
        time.sleep(2)
        stack.start_worker(number)
        return
    service = {"postgres": pg, "redis": cache, "broker": broker}[kind]
    service.stop()
    time.sleep(OUTAGE_SECONDS)
    service.start()


def lost_actions(stack: Stack, record: Record) -> list[tuple[float, str, int]]:
    import psycopg

    url = stack.database_url.replace("postgres://", "postgresql://")
    logs: dict[str, list[int]] = {}
    with psycopg.connect(url, connect_timeout=10) as connection:
        for match_id in record.matches:
            rows = connection.execute("SELECT seq FROM games_event WHERE match_id = %s ORDER BY id", [match_id])
            logs[match_id] = [row[0] for row in rows]
    lost = []
    for at, match_id, seq in record.acknowledged:
        log = logs.get(match_id, [])
        if log != list(range(1, len(log) + 1)) or len(log) < seq:
            lost.append((at, match_id, seq))
    return lost


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=5)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--faults", default=",".join(FAULTS), help=f"kinds to inject, of {','.join(FAULTS)}")
    parser.add_argument("--every", type=float, default=30, help="seconds between faults, about (default 30)")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    kinds = [kind for kind in args.faults.split(",") if kind]
    assert set(kinds) <= set(FAULTS), f"--faults: of {FAULTS}"
    rng = random.Random(args.seed)
    record = Record()
    with Postgres() as pg, Redis() as cache, Redis() as broker:
        env = {"CACHE_URL": cache.url_for(0), "LIVE_UPDATES_URL": cache.url_for(1)}
        with Stack(pg, broker_url=broker.url_for(0), workers=2, env=env) as stack:
            start = time.monotonic()
            deadline = start + args.minutes * 60
            bots = args.clients - 2 * (args.clients // 6)
            threads = [threading.Thread(target=against_bots, args=(stack.port, record, n, deadline))
                       for n in range(bots)]  # fmt: skip
            threads += [threading.Thread(target=pair, args=(stack.port, record, 100 + n, deadline))
                        for n in range(args.clients // 6)]  # fmt: skip
            for thread in threads:
                thread.start()
            faults: list[tuple[float, str]] = []
            time.sleep(min(5.0, args.minutes * 60 / 4))
            while kinds and time.monotonic() + OUTAGE_SECONDS + 5 < deadline:
                kind = rng.choice(kinds)
                faults.append((time.monotonic(), kind))
                inject(kind, stack, pg, cache, broker, rng)
                pause = rng.uniform(0.5, 1.5) * args.every - OUTAGE_SECONDS
                time.sleep(max(2.0, min(pause, deadline - time.monotonic() - OUTAGE_SECONDS - 5)))
            for thread in threads:
                thread.join()
            lost = lost_actions(stack, record)
    rows = table(start, faults, record, lost, time.monotonic())
    if args.json:
        print(json.dumps({"minutes": args.minutes, "clients": args.clients, "faults": rows,
                          "acknowledged": len(record.acknowledged), "lost": len(lost)}, indent=2))  # fmt: skip
    else:
        print(f"{'at s':>6} {'fault':<9} {'requests':>8} {'longest stall s':>15} {'lost':>4}  answers by status")
        for row in rows:
            statuses = " ".join(f"{status}:{count}" for status, count in sorted(row["statuses"].items()))
            print(f"{row['at']:>6.0f} {row['fault']:<9} {row['requests']:>8} {row['longest_stall']:>15.1f} "
                  f"{row['lost']:>4}  {statuses}")  # fmt: skip
        print(f"acknowledged actions: {len(record.acknowledged)}, lost: {len(lost)}")
    bad = [row for row in rows if any(s.startswith("5") and s != "503" for s in row["statuses"])]
    return 1 if lost or bad else 0


def table(start: float, faults: list[tuple[float, str]], record: Record, lost: list[tuple[float, str, int]],
          end: float) -> list[dict[str, Any]]:  # fmt: skip
    windows = [(start, "none")] + faults
    rows = []
    for index, (at, kind) in enumerate(windows):
        until = windows[index + 1][0] if index + 1 < len(windows) else end
        statuses = Counter(status for t, status in record.answers if at <= t < until)
        stalls = [seconds for t, seconds in record.stalls if at <= t < until]
        rows.append({
            "at": round(at - start, 1), "fault": kind, "requests": sum(statuses.values()),
            "statuses": dict(statuses), "longest_stall": round(max(stalls, default=0.0), 2),
            "lost": sum(1 for t, _, _ in lost if at <= t < until),
        })  # fmt: skip
    return rows


if __name__ == "__main__":
    sys.exit(main())
